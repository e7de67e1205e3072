package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// TestReadTally pins what testdata/tally.jsonl says, read by hand from
// the file and the mapping in tally.go.
func TestReadTally(t *testing.T) {
	ss, err := OpenAll("testdata/tally.jsonl", "") // sniffed
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 {
		t.Fatalf("%d sessions, want 2", len(ss))
	}
	a, b := ss[0], ss[1]
	stepTexts := func(s *Session) (out []string) {
		for _, st := range s.Steps {
			var calls []string
			for _, c := range st.Calls {
				calls = append(calls, c.Name+string(c.Input))
			}
			out = append(out, fmt.Sprintf("t%d l%d r%d %q %v", st.Turn, st.Line, st.Records, st.Text, calls))
		}
		return out
	}
	for _, c := range []struct {
		what      string
		got, want any
		reason    string
	}{
		{"ids", []string{a.ID, b.ID}, []string{"t-1", "t-2"}, ""},
		{"format", a.Format, Tally, ""},
		{"start", a.Start.String(), "2026-01-06 16:22:22 +0000 UTC", "the first ts"},
		{"turns", a.Turns, []Turn{{Message: 0, FirstStep: 0, Steps: 2}, {Message: -1, FirstStep: 2, Steps: 1}, {Message: 1, FirstStep: 3, Steps: 1}},
			"turn 2 has no user message; turn 3's prompt is the first of its two"},
		{"steps", stepTexts(a), []string{
			`t0 l2 r1 "" [read_file{"path":"main.go","start_line":1}]`,
			`t0 l3 r2 "Reading main.go." [grep{"pattern":"verbose"}]`,
			`t1 l5 r1 "Added the flag." []`,
			`t2 l10 r1 "" [list_dirnull]`,
		}, "a call before any assistant message is a step of its own; the grep joins the message before it; args canonical"},
		{"messages", a.Messages, []Message{
			{Kind: Typed, Turn: 0, Step: 0, Line: 1, Text: "Add a --verbose flag. Don't touch db/migrations."},
			{Kind: Typed, Turn: 2, Step: 3, Line: 8, Text: "Now the tests."},
			{Kind: Typed, Turn: 2, Step: 3, Line: 9, Text: `And "docs".`},
		}, "escapes decoded"},
		{"compactions", a.Compactions, []Compaction{{Turn: 2, Step: 3, Message: 1, Line: 6}}, "no summary, trigger or tokens"},
		{"read", a.Records.Read, map[string]int{"message/user": 3, "message/assistant": 2, "tool_call": 3, "compaction": 1}, ""},
		{"skipped", a.Records.Skipped, map[string]int{"message/system": 1, "(blank line)": 1}, "the blank line 11 is t-1's"},
		{"second session's turns", b.Turns, []Turn{{Message: -1}, {Message: 0}}, "its first event is at turn 2"},
		{"second session's lines", b.Records.Lines(), 2, "message/tool skipped"},
		{"second session's start", b.Start.IsZero(), true, "no ts"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v (%s)", c.what, c.got, c.want, c.reason)
		}
	}
}

// TestTallyProblems: each malformed line is one error naming
// file:line:column and the field (the line is the third of the file).
func TestTallyProblems(t *testing.T) {
	const want = ` is not a role (want system, user, assistant or tool)`
	tests := []struct{ line, want string }{
		{`{"session_id":"s","turn":1,"kind":"note"}`, `e.jsonl:3:35: kind: want message, tool_call or compaction, got "note"`},
		{`{"session_id":"s","turn":1,"kind":"message","text":"hi"}`, `e.jsonl:3:35: role: a message needs a non-empty role`},
		{`{"session_id":"s","turn":1,"kind":"message","role":"user"}`, `e.jsonl:3:35: text: a message needs a text`},
		{`{"session_id":"s","turn":1,"kind":"tool_call","args":{}}`, `e.jsonl:3:35: tool: a tool call needs a non-empty tool`},
		{`{"session_id":"s","turn":0,"kind":"compaction"}`, `e.jsonl:3:26: turn: want a whole number from 1 to 16777216, got 0`},
		{`{"session_id":"s","kind":"compaction"}`, `e.jsonl:3:1: missing "turn"`},
		{`{"session_id":"","turn":1,"kind":"compaction"}`, `e.jsonl:3:15: session_id: want a non-empty string`},
		{`{"session_id":"s","turn":1,"kind":"compaction","ts":"5 pm"}`, `e.jsonl:3:53: ts: want an RFC 3339 time such as 2026-01-05T04:55:22Z, got "5 pm"`},
		{`{"session_id":"s","turn":1,"kind":"compaction","ts":"2026-02-30T10:00:00Z"}`, `e.jsonl:3:53: ts: want an RFC 3339 time such as 2026-01-05T04:55:22Z, got "2026-02-30T10:00:00Z"`},
		{`{"session_id":"s","turn":1,"kind":"message","role":"user","text":7}`, `e.jsonl:3:66: text: want a string, got the number 7`},
		{`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","args":{"a":1,}}`, `e.jsonl:3:74: trailing comma before '}', which JSON does not allow`},
		{`{"session_id":"s","turn":1,"kind":"message","role":"user","text":"\x"}`, `e.jsonl:3:68: invalid character 'x' in string escape code`},
		{`{"session_id":"s","turn":1,"kind":"compaction","kind":"compaction"}`, `e.jsonl:3:48: kind: given twice`},
		{`{"session_id":"s","turn":1,"kind":"message","role":"human","text":"hi"}`, `e.jsonl:3:52: role: "human"` + want},
		{`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","role":"bot"}`, `e.jsonl:3:68: role: "bot"` + want},
		{`[1]`, `e.jsonl:3:1: want a JSON object (one event), got an array`},
	}
	for _, tt := range tests {
		_, err := ReadTally(strings.NewReader("\n\n"+tt.line+"\n"), "e.jsonl")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\ngot  %v\nwant %s", tt.line, err, tt.want)
		}
	}
	for _, ok := range []string{
		`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","role":"assistant"}`,
		`{"session_id":"s","turn":1,"kind":"compaction","role":null,"ts":null,"text":null,"tool":null}`,
		`{"session_id":"s","turn":16777216,"kind":"compaction","ts":"2026-01-06T16:22:22+01:00"}`,
	} {
		if _, err := ReadTally(strings.NewReader(ok), "e.jsonl"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestTallySessionsTogether: a session whose events come back after
// another's, and a turn that goes back, are problems; with SkipBad they
// are skipped, each line reported and counted, never dropped silently.
func TestTallySessionsTogether(t *testing.T) {
	ev := func(s string, turn int) string {
		return fmt.Sprintf(`{"session_id":%q,"turn":%d,"kind":"tool_call","tool":"grep"}`+"\n", s, turn)
	}
	log := ev("a", 1) + ev("b", 1) + ev("a", 2) + ev("a", 3) + ev("c", 5) + ev("c", 4) + ev("c", 6)
	_, err := ReadTally(strings.NewReader(log), "log.jsonl")
	if err == nil || err.Error() != `log.jsonl:3:1: session_id: the events of session "a" are not together: an earlier run of them ends at line 1` {
		t.Errorf("err = %v", err)
	}
	var bad []string
	rd, err := NewReader(strings.NewReader(log), "log.jsonl", Options{SkipBad: true, Bad: func(err error) { bad = append(bad, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		s, err := rd.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%s:%d calls, %d lines, %d malformed", s.ID, len(s.Steps), s.Records.Lines(), s.Records.Skipped[MalformedLine]))
	}
	want := []string{"a:1 calls, 1 lines, 0 malformed", "b:1 calls, 3 lines, 2 malformed", "c:2 calls, 3 lines, 1 malformed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions %q, want %q", got, want)
	}
	wantBad := []string{
		`log.jsonl:3:1: session_id: the events of session "a" are not together: an earlier run of them ends at line 1`,
		`log.jsonl:4:1: session_id: skipped with the rest of session "a"'s returning events`,
		`log.jsonl:6:1: turn: turn 4 comes after turn 5 of session "c": a session's events must be in turn order`,
	}
	if !reflect.DeepEqual(bad, wantBad) {
		t.Errorf("skipped\n%s\nwant\n%s", strings.Join(bad, "\n"), strings.Join(wantBad, "\n"))
	}
}

func TestSniffTally(t *testing.T) {
	for _, c := range []struct {
		line string
		want Format
	}{
		{`{"session_id":"s","turn":1,"kind":"compaction"}`, Tally},
		{`{"kind":"tool_call","turn":2,"session_id":"s","tool":"grep"}`, Tally},
		{`{"sessionId":"s","type":"user","message":{"content":[{"type":"tool_use","input":{"kind":"message","session_id":"x"}}]}}`, ClaudeCode},
		{`{"session_id":"s","messages":[{"role":"user","content":"say \"kind\":\"message\""}]}`, Generic},
	} {
		if got := Sniff([]byte(c.line)); got != c.want {
			t.Errorf("%s: sniffed %s, want %s", c.line, got, c.want)
		}
	}
}

func FuzzReadTally(f *testing.F) {
	b, err := os.ReadFile("testdata/tally.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"session_id":"a","turn":3,"kind":"message","role":"user","text":"\u00e9"}` + "\n" + `{"session_id":"a","turn":2,"kind":"compaction"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ReadTally(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		lines := 0
		for _, s := range ss {
			lines += s.Records.Lines()
			for i, tn := range s.Turns {
				if tn.Message >= 0 && s.Messages[tn.Message].Turn != i {
					t.Errorf("turn %d's prompt is message %d, of turn %d", i, tn.Message, s.Messages[tn.Message].Turn)
				}
			}
		}
		if want := bytes.Count(b, []byte("\n")) + btoi(len(b) > 0 && b[len(b)-1] != '\n'); len(ss) > 0 && lines != want {
			t.Errorf("counted %d lines, want %d", lines, want)
		}
	})
}

// FuzzTallyLine: a line ReadTally accepts is valid JSON in UTF-8 that
// encoding/json reads the same (session id, text); its tool call's
// canonical arguments are JSON equal (as values) to the arguments
// written, and canonical again are themselves. What it rejects is an
// error naming the file and line 1.
func FuzzTallyLine(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","turn":1,"ts":"2026-01-06T16:22:22Z","kind":"message","role":"user","text":"Ground rule: leave dual_write_orders off by default."}`,
		`{"session_id":"s","turn":2,"kind":"tool_call","tool":"read_file","args":{"path":"payments/rounding.py","start_line":323,"end_line":502}}`,
		`{"session_id":"s","turn":24,"kind":"compaction"}`,
		`{"kind":"tool_call","turn":2,"session_id":"s","tool":"x","args":{"b":[1,{"d":null,"c":"\u00e9\ud83d\ude00"}],"a":-0.5e+3}}`,
		`{"session_id":"s","turn":1,"kind":"message","role":"user","text":"\ud800\"\\\/\b\f\n\r\t"}`,
		`{"session_id":"s","turn":1,"kind":"tool_call","tool":"x","args":{"a":1,"a":2}}`,
		`{"session_id":"s","turn":1,"kind":"tool_call","tool":"x","args":[01]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\r\n") {
			return
		}
		ss, err := ReadTally(bytes.NewReader(line), "e.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "e.jsonl:1:") {
				t.Fatalf("error not placed on line 1: %v", err)
			}
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil || !utf8.Valid(line) {
			t.Fatalf("accepted %q, which encoding/json rejects (%v) or is not UTF-8", line, err)
		}
		s := ss[0]
		if m["session_id"] != s.ID {
			t.Fatalf("encoding/json reads session %v; ReadTally %q", m["session_id"], s.ID)
		}
		text, _ := m["text"].(string)
		if len(s.Messages) > 0 && s.Messages[0].Text != text || len(s.Steps) > 0 && s.Steps[0].Text != text && m["kind"] == "message" {
			t.Fatalf("text %q read differently", text)
		}
		if len(s.Steps) == 0 || len(s.Steps[0].Calls) == 0 || m["args"] == nil {
			return
		}
		args := s.Steps[0].Calls[0].Input
		var canon any
		cd := json.NewDecoder(bytes.NewReader(args))
		cd.UseNumber()
		if err := cd.Decode(&canon); err != nil {
			t.Fatalf("canonical arguments %s are not JSON: %v", args, err)
		}
		if !hasDuplicateKeys(line) && !reflect.DeepEqual(canon, m["args"]) {
			t.Fatalf("canonical arguments %s read as %v, the line's as %v", args, canon, m["args"])
		}
		var sc jsonscan.Scanner
		sc.Reset(args)
		again, e := sc.Canonical(nil)
		if e != nil || !bytes.Equal(again, args) {
			t.Fatalf("canonical form %s is not a fixed point: %s (%v)", args, again, e)
		}
	})
}

// hasDuplicateKeys is a conservative test for an object with a key given
// twice, where encoding/json keeps the last value and the canonical form
// keeps both.
func hasDuplicateKeys(line []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	var stack []map[string]bool
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
				continue
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
				continue
			default:
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][v] {
					return true
				}
				stack[n-1][v] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
	}
}
