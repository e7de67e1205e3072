package agentlog

import (
	"bytes"
	"os"
	"reflect"
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
		{"kinds", kinds(s), []Kind{Typed, Meta, CompactSummary, Typed, Meta, Meta},
			`injected "meta", "compaction summary", true, and a reason that names no kind`},
		{"turns", s.Turns, []Turn{{Message: 0, FirstStep: 0, Steps: 1}, {Message: 3, FirstStep: 1, Steps: 1}}, "the system message is not a message"},
		{"step 0", s.Steps[0].Text + "|" + s.Steps[0].Thinking, "Running the tests.|start with go test", ""},
		{"calls", s.Steps[0].Calls, []ToolCall{
			{ID: "c1", Name: "run_tests", Input: []byte(`{"pkg":"./..."}`), HasResult: true, Result: "FAIL a_test.go:12", IsError: true, ResultLine: 1},
			{ID: "c2", Name: "read_file", Input: []byte(`{"path":"a_test.go"}`), HasResult: true, Result: "package a\n[image_url]", ResultLine: 1},
		}, "arguments as a string of JSON and as an object"},
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
		{"no messages", "\n" + `{"session_id":"s"}`, `x.jsonl:2: session has no "messages"`},
		{"messages not a list", `{"messages":{}}`, "x.jsonl:1:13: json: cannot unmarshal object"},
		{"unknown role", `{"messages":[{"role":"user","content":"a"},{"role":"function","content":"b"}]}`,
			`x.jsonl:1: messages[1]: role "function" is not`},
		{"content of the wrong type", `{"messages":[{"role":"user","content":3}]}`, "x.jsonl:1: content is 3…"},
		{"injected of the wrong type", `{"messages":[{"role":"user","content":"a","injected":3}]}`, "x.jsonl:1: messages[0]: injected is 3"},
		{"compaction out of range", `{"messages":[],"compactions":[{"after_message":1}]}`, "x.jsonl:1: compactions[0]: after_message 1 is not in 0…0"},
		{"compaction without position", `{"messages":[],"compactions":[{"summary":"s"}]}`, "x.jsonl:1: compactions[0] has no after_message"},
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
