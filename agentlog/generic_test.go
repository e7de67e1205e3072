package agentlog

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestReadGeneric pins what testdata/generic.jsonl says, counted by hand.
func TestReadGeneric(t *testing.T) {
	ss, err := OpenAll("testdata/generic.jsonl", "") // sniffed
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 {
		t.Fatalf("got %d sessions, want 2", len(ss))
	}
	s, s2 := ss[0], ss[1]
	for _, c := range []struct {
		what      string
		got, want any
		reason    string
	}{
		{"ids", s.ID + "|" + s2.ID, "g-1|g-2", ""},
		{"cwd", s.Cwd + "|" + s2.Cwd, "/src|", "optional: g-2 has none"},
		{"format", s.Format, Generic, ""},
		{"kinds", kinds(s), []Kind{Typed, Meta, CompactSummary, Typed, Meta, Queued},
			`injected "meta", "compaction summary", true and "queued"`},
		{"turns", s.Turns, []Turn{{Message: 0, FirstStep: 0, Steps: 1}, {Message: 3, FirstStep: 1, Steps: 1}}, "the system message is not a message"},
		{"step 0", s.Steps[0].Text + "|" + s.Steps[0].Thinking, "Running the tests.|start with go test", ""},
		{"calls", s.Steps[0].Calls, []ToolCall{
			{ID: "c1", Name: "run_tests", Input: []byte(`{"pkg":"./..."}`), HasResult: true, Result: "FAIL a_test.go:12", IsError: true, ResultLine: 1, Line: 1, UUID: "messages[3]", ResultUUID: "messages[4]"},
			{ID: "c2", Name: "read_file", Input: []byte(`{"path":"a_test.go"}`), HasResult: true, Result: "package a\n[image_url]", ResultLine: 1, Line: 1, UUID: "messages[3]", ResultUUID: "messages[5]"},
		}, "arguments as a string of JSON and as an object; each found by its message's index, as every message is on line 1"},
		{"message index", s.Messages[3].Text + " @ " + s.Messages[3].UUID + ", step @ " + s.Steps[1].UUID, "you forgot to run the linter @ messages[7], step @ messages[8]", "the index counts every message, system ones too"},
		{"unanswered call", s.Steps[1].Calls[0].HasResult, false, "c3 has no tool message"},
		{"orphans", s.OrphanResults, 1, "c9"},
		{"compactions", s.Compactions, []Compaction{
			{Turn: -1, Step: 0, Line: 1},
			{Trigger: "auto", PreTokens: 120000, Turn: 0, Step: 1, Message: 2, Line: 1, Summary: "Fixed a_test.go; tests pass.", SummaryLine: 1},
		}, "sorted by after_message"},
		{"records", s.Records, Counts{Read: map[string]int{"session": 1}, Skipped: map[string]int{}}, ""},
		{"second session", len(s2.Turns)*10 + len(s2.Steps), 11, ""},
		{"blank line", s2.Records.Skipped, map[string]int{"(blank line)": 1}, "counted on the next session"},
		{"lines", s.Records.Lines() + s2.Records.Lines(), 3, ""},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v (%s)", c.what, c.got, c.want, c.reason)
		}
	}
}

func TestOpenGeneric(t *testing.T) {
	s, err := Open("testdata/generic-one.jsonl")
	if err != nil || s.ID != "g-2" || s.Format != Generic {
		t.Errorf("one session: got %+v, %v", s, err)
	}
	if _, err := Open("testdata/generic.jsonl"); err == nil || !strings.Contains(err.Error(), "holds 2 sessions") {
		t.Errorf("two sessions: got %v, want an error", err)
	}
	ss, err := OpenAll("testdata/session.jsonl", Generic)
	if err == nil {
		t.Errorf("a Claude Code file read as generic: got %d sessions, want an error", len(ss))
	}
	if _, err := OpenAll("testdata/session.jsonl", "yaml"); err == nil || !strings.Contains(err.Error(), `unknown format "yaml"`) {
		t.Errorf("unknown format: got %v", err)
	}
}

func TestReadGenericErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"not JSON", `{"messages":[},`, "x.jsonl:1:14: invalid character '}'"},
		{"no messages", "\n" + `{"session_id":"s"}`, `x.jsonl:2:1: session has no "messages"`},
		{"no session id", `{"messages":[]}`, `x.jsonl:1:1: session has no "session_id"`},
		// Go's struct names stay out of it (a new user's trial got
		// "Go struct field gSession.session_id").
		{"session id a number", `{"session_id":5,"messages":[]}`, `x.jsonl:1:15: session_id: want a string, got a number`},
		{"messages not a list", `{"session_id":"s","messages":{}}`, "x.jsonl:1:30: messages: want a list, got an object"},
		{"unknown role", `{"session_id":"s","messages":[{"role":"user","content":"a"},{"role":"function","content":"b"}]}`,
			`x.jsonl:1:61: messages[1]: role "function" is not`},
		// The message's column and index (a new user's trial: a 780 KB
		// line's error named neither).
		{"content of the wrong type", `{"session_id":"s","messages":[{"role":"user","content":"a"},{"role":"user","content":3}]}`, "x.jsonl:1:86: messages[1].content: want a string or a list, got a number"},
		{"content of an object", `{"session_id":"s","messages":[{"role":"user","content":{"text":"a"}}]}`, "x.jsonl:1:56: messages[0].content: want a string or a list, got an object"},
		{"a field of the wrong type", `{"session_id":"s","messages":[{"role":"tool","is_error":"yes"}]}`, "x.jsonl:1:61: messages[0]: is_error: want true or false, got a string"},
		{"injected of the wrong type", `{"session_id":"s","messages":[{"role":"user","content":"a","injected":3}]}`, "x.jsonl:1:31: messages[0]: injected is 3"},
		// A reason tally does not know is an error, not meta: "Queued"
		// for "queued" had made a person's prompts vanish (a new user's
		// trial).
		{"injected names no reason", `{"session_id":"s","messages":[{"role":"user","content":"a","injected":"Queued"}]}`,
			`x.jsonl:1:31: messages[0]: injected: "Queued" is not a reason tally knows ("compaction summary", `},
		{"compaction out of range", `{"session_id":"s","messages":[],"compactions":[{"after_message":1}]}`, "x.jsonl:1:47: compactions[0]: after_message 1 is not in 0…0"},
		{"compaction without position", `{"session_id":"s","messages":[],"compactions":[{"summary":"s"}]}`, "x.jsonl:1:47: compactions[0] has no after_message"},
		// encoding/json would take the last "role"; the harness may
		// have meant the first.
		{"a member twice", `{"session_id":"s","messages":[{"role":"user","content":"a","role":"assistant"}]}`, `x.jsonl:1:60: messages[0]: "role" is given twice in one object`},
		{"a top-level member twice", `{"session_id":"s","messages":[],"session_id":"t"}`, `x.jsonl:1:33: "session_id" is given twice in one object`},
		{"a session id twice", `{"session_id":"s","messages":[]}` + "\n\n" + `{"session_id":"s","messages":[]}`, `x.jsonl:3: session_id "s" is the session of line 1 too`},
	} {
		_, err := ReadGeneric(strings.NewReader(c.in), "x.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

func FuzzReadGeneric(f *testing.F) {
	b, err := os.ReadFile("testdata/generic.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"messages":[{"role":"tool","tool_call_id":"x"}],"compactions":[{"after_message":1},{"after_message":0}]}`))
	f.Add([]byte(`{"session_id":"s","messages":[{"role":"assistant","content":"S.","injected":"compaction summary"},{"role":"assistant","content":null,"refusal":"No."}]}`))
	f.Add([]byte(`{"session_id":"s","messages":[{"role":"assistant","content":[{"type":"refusal","refusal":"No."}]}],"compactions":[{"after_message":1.5}]}`))
	f.Add([]byte("[{\"role\":\"user\"}]\n{\"messages\":[],\"sessionId\":\"s\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ReadGeneric(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		n := 0
		for _, s := range ss {
			n += s.Records.Lines()
		}
		if len(ss) > 0 && n != bytes.Count(b, []byte("\n"))+btoi(len(b) > 0 && b[len(b)-1] != '\n') {
			t.Errorf("counted %d lines", n)
		}
	})
}

// TestReadGenericSummaryMessage: a message marked "compaction summary"
// is a compaction where the log lists none (a new user's trial: a
// harness that wrote its summary as a message, as README's list of
// reasons invites, got "0 of them compacted"), and fills the summary of
// one listed there without one. The Responses API's text parts are
// text; other parts are counted as dropped.
func TestReadGenericSummaryMessage(t *testing.T) {
	in := `{"session_id":"s","messages":[` +
		`{"role":"user","content":[{"type":"input_text","text":"never push to main"},{"type":"input_image","image_url":"data:,"}]},` +
		`{"role":"assistant","content":[{"type":"output_text","text":"OK."}]},` +
		`{"role":"user","content":"Summary one.","injected":"compaction summary"},` +
		`{"role":"user","content":"go on"},` +
		`{"role":"system","content":"Summary two.","injected":"compaction summary"},` +
		`{"role":"user","content":"and then?"},` +
		`{"role":"user","content":"Summary three.","injected":"compaction summary"}],` +
		`"compactions":[{"after_message":4,"summary":"Listed two.","trigger":"auto"},{"after_message":6,"trigger":"manual"}]}`
	ss, err := ReadGeneric(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	var got []string
	for _, c := range s.Compactions {
		got = append(got, fmt.Sprintf("%d %s %q", c.Message, c.Trigger, c.Summary))
	}
	want := []string{`1  "Summary one."`, `3 auto "Listed two."`, `4 manual "Summary three."`}
	if !slices.Equal(got, want) {
		t.Errorf("compactions %q, want %q", got, want)
	}
	if s.Messages[0].Text != "never push to main" || s.Steps[0].Text != "OK." {
		t.Errorf("text parts: %q, %q", s.Messages[0].Text, s.Steps[0].Text)
	}
	if !reflect.DeepEqual(s.Dropped, map[string]int{"content part/input_image": 1}) {
		t.Errorf("dropped %v", s.Dropped)
	}
}

// TestReadGenericAssistantSummary: a message marked "compaction summary"
// is the compaction's summary whatever role the harness gave it — many
// write the summariser's output as an assistant message (a new user's
// trial: "0 compacted", the summary read as the model's text) — and an
// assistant summary is no step. On an assistant message no other reason
// is read: a response is the model's, so it is an error, as a reason
// tally does not know is on a user message.
func TestReadGenericAssistantSummary(t *testing.T) {
	const head = `{"session_id":"s","messages":[{"role":"user","content":"deploy to staging"},{"role":"assistant","content":"Deployed."},`
	for _, c := range []struct {
		role            string
		steps, messages int
		reason          string
	}{
		{"user", 1, 2, "a user summary is also a message, of kind compaction summary"},
		{"system", 1, 1, "system messages are not in the model"},
		{"developer", 1, 1, "as system"},
		{"assistant", 1, 1, "the summary is no response of the model's: not a step"},
	} {
		in := head + `{"role":"` + c.role + `","content":"Summary: deployed to staging.","injected":"compaction summary"}]}`
		ss, err := ReadGeneric(strings.NewReader(in), "x.jsonl")
		if err != nil {
			t.Errorf("%s: %v", c.role, err)
			continue
		}
		s := ss[0]
		want := []Compaction{{Turn: 0, Step: 1, Message: 1, Line: 1, Summary: "Summary: deployed to staging.", SummaryLine: 1}}
		if !reflect.DeepEqual(s.Compactions, want) || len(s.Steps) != c.steps || len(s.Messages) != c.messages {
			t.Errorf("%s: compactions %+v, %d steps, %d messages; want %+v, %d, %d (%s)", c.role, s.Compactions, len(s.Steps), len(s.Messages), want, c.steps, c.messages, c.reason)
		}
	}
	// head is 119 characters: messages[2] starts at column 120.
	for _, c := range []struct{ injected, want string }{
		{`"meta"`, `x.jsonl:1:120: messages[2]: injected: "meta" is not a reason tally knows on an assistant message (only "compaction summary": a response is the model's), null or false`},
		{`true`, `x.jsonl:1:120: messages[2]: injected: true is not a reason tally knows on an assistant message`},
		{`"bogus-reason"`, `x.jsonl:1:120: messages[2]: injected: "bogus-reason" is not a reason tally knows ("compaction summary", `},
	} {
		in := head + `{"role":"assistant","content":"yo","injected":` + c.injected + `}]}`
		if _, err := ReadGeneric(strings.NewReader(in), "x.jsonl"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("injected %s on an assistant message: got %v, want an error starting %q", c.injected, err, c.want)
		}
	}
	for _, injected := range []string{"null", "false"} {
		in := head + `{"role":"assistant","content":"yo","injected":` + injected + `}]}`
		if ss, err := ReadGeneric(strings.NewReader(in), "x.jsonl"); err != nil || len(ss[0].Steps) != 2 {
			t.Errorf("injected %s on an assistant message: %v, want a step", injected, err)
		}
	}
}

// TestReadGenericRefusal: an assistant message's "refusal" (OpenAI Chat
// Completions: content null and a refusal string; a content part
// {"type": "refusal", "refusal": …} in Chat Completions and the
// Responses API) is what the model said: the step's text, not dropped.
func TestReadGenericRefusal(t *testing.T) {
	for _, c := range []struct {
		name, msg, want string
	}{
		{"refusal field, content null", `{"role":"assistant","content":null,"refusal":"I can't help with that."}`, "I can't help with that."},
		{"refusal field beside text", `{"role":"assistant","content":"Partly:","refusal":"not the rest."}`, "Partly:\nnot the rest."},
		{"refusal null", `{"role":"assistant","content":"ok","refusal":null}`, "ok"},
		{"refusal part", `{"role":"assistant","content":[{"type":"text","text":"No."},{"type":"refusal","refusal":"I can't do that."}]}`, "No.\nI can't do that."},
	} {
		ss, err := ReadGeneric(strings.NewReader(`{"session_id":"s","messages":[{"role":"user","content":"q"},`+c.msg+`]}`), "x.jsonl")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if s := ss[0]; len(s.Steps) != 1 || s.Steps[0].Text != c.want || s.Steps[0].TextLine != 1 || s.Dropped != nil {
			t.Errorf("%s: steps %+v, dropped %v; want text %q", c.name, s.Steps, s.Dropped, c.want)
		}
	}
	_, err := ReadGeneric(strings.NewReader(`{"session_id":"s","messages":[{"role":"assistant","content":[{"type":"refusal","refusal":3}]}]}`), "x.jsonl")
	// The 3 is the line's 90th character.
	if want := "x.jsonl:1:90: messages[0].content[0].refusal: want a string, got a number"; err == nil || err.Error() != want {
		t.Errorf("refusal a number: got %v, want %s", err, want)
	}
}

// TestReadGenericLineErrors: errors found by a new user's trial, each
// naming what is at fault as its neighbours do.
func TestReadGenericLineErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, want, reason string
	}{
		// 1.5 ends at column 67 (`{"session_id":"s","messages":[],"compactions":[{"after_message":` is 64
		// characters); columns point at a value's last character, as for messages.
		{"after_message not whole", `{"session_id":"s","messages":[],"compactions":[{"after_message":1.5}]}`,
			"x.jsonl:1:67: compactions[0].after_message: want a whole number, got number 1.5", "was compactions.after_message, without the index"},
		{"second compaction not an object", `{"session_id":"s","messages":[],"compactions":[{"after_message":0},"x"]}`,
			"x.jsonl:1:70: compactions[1]: want an object, got a string", `"x" is columns 68–70`},
		{"a list line", `{"session_id":"s","messages":[]}` + "\n" + ` [{"role":"user","content":"hi"}]`,
			`x.jsonl:2:2: a list, not a session: the generic format is one session a line, an object holding its messages, {"session_id": "…", "messages": [ … ]}`, "was want an object, got a list"},
		{"sessionId for session_id", `{"messages":[],"sessionId":"s"}`,
			`x.jsonl:1:28: session has no "session_id" (it has a "sessionId", which the generic format does not read: rename it "session_id")`, `a framework's camelCase; its value "s" starts at column 28`},
	} {
		_, err := ReadGeneric(strings.NewReader(c.in), "x.jsonl")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s (%s)", c.name, err, c.want, c.reason)
		}
	}
}
