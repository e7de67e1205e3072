package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// checkLineProblem checks that err is a fixture.Problem placed inside
// line lineNo of file name.
func checkLineProblem(t *testing.T, err error, name string, lineNo int, line []byte) {
	t.Helper()
	var p fixture.Problem
	if !errors.As(err, &p) {
		t.Fatalf("error %v (%T) is not a fixture.Problem", err, err)
	}
	if p.File != name || p.Line != lineNo || p.Col < 1 || p.Col > utf8.RuneCount(line)+1 || p.Msg == "" {
		t.Fatalf("problem out of place: %#v (line of %d characters)", p, utf8.RuneCount(line))
	}
}

// decodeStd decodes data with encoding/json into generic values,
// numbers kept as written.
func decodeStd(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

// FuzzParseSession: ParseSession never panics; what it rejects is a
// Problem inside the line; what it accepts is valid JSON in UTF-8 that
// encoding/json reads the same (id, turns, incident and every turn), and
// a session that validates. Invalid JSON is never accepted. The reader
// agrees with ParseSession line by line.
func FuzzParseSession(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"sess_2026_01_05_c44b","turns":31,"started":"2026-01-05T06:47:36Z","compactions":[{"turn":25}],"items":[{"class":"open_question","turn":5},{"class":"constraint","turn":11}]}`,
		`{"session_id":"sess_2026_01_05_3ac2","turns":70,"started":"2026-01-05T07:57:33Z","incident":true,"compactions":2,"items":11}`,
		`{"session_id":"a","turns":3,"compactions":[{"turn":4}],"items":[]}`,
		`{"session_id":"\ud800x","turns":1e0,"compactions":[],"items":[{"class":"reference","turn":1,"x":[{}]}]}`,
		`{"session_id":"a","turns":3,"compactions":[],"items":[],}`,
		`[[[[[{"a":1}]]]]]`, `{"session_id":"a"`, "\xef\xbb\xbf{}", `{"session_id":"a","turns":99999999999999999999,"compactions":0,"items":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s, err := ParseSession("s.jsonl", 1, line)
		std, stdErr := decodeStd(line)
		if err != nil {
			checkLineProblem(t, err, "s.jsonl", 1, line)
		} else {
			if stdErr != nil || !utf8.Valid(line) {
				t.Fatalf("accepted %q, which encoding/json rejects (%v) or is not UTF-8", line, stdErr)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted a session that does not validate: %v", err)
			}
			m := std.(map[string]any)
			if m["session_id"] != s.ID || m["turns"].(json.Number).String() != itoa(s.Turns) {
				t.Fatalf("encoding/json reads id %v, turns %v; ParseSession %q, %d", m["session_id"], m["turns"], s.ID, s.Turns)
			}
			if inc, _ := m["incident"].(bool); inc != s.Incident {
				t.Fatalf("incident %v vs %v", m["incident"], s.Incident)
			}
			if cs, ok := m["compactions"].([]any); ok && s.Compactions != nil {
				for i, c := range cs {
					if c.(map[string]any)["turn"].(json.Number).String() != itoa(s.Compactions[i]) {
						t.Fatalf("compaction %d: %v vs %d", i, c, s.Compactions[i])
					}
				}
			}
			if s.Decisions() < 0 {
				t.Fatalf("negative decisions")
			}
		}
		// The reader: same verdict on the line, then on two copies of it.
		r := NewSessionReader(bytes.NewReader(append(append(bytes.Clone(line), '\n'), line...)), "s.jsonl")
		for range 2 {
			rs, rerr := r.Next()
			if rerr == io.EOF {
				if len(bytes.TrimSpace(line)) != 0 && !bytes.ContainsAny(line, "\n") {
					t.Fatalf("reader found no line in %q", line)
				}
				return
			}
			if bytes.ContainsAny(line, "\n\r") {
				continue // the line is several lines for the reader
			}
			if (rerr == nil) != (err == nil) || rerr == nil && !reflect.DeepEqual(rs.Clone(), s.Clone()) {
				t.Fatalf("reader %+v, %v; ParseSession %+v, %v", rs, rerr, s, err)
			}
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// FuzzProposeCallInput feeds tool inputs, as agent logs write them, to
// the work index's reader: it never panics, and a file path it returns
// is one of the input's strings.
func FuzzProposeCallInput(f *testing.F) {
	for _, s := range []string{`{"file_path": "a.go"}`, `{"command": ["bash", "-lc", "ls"]}`, `"*** Update File: x.go"`, `{"path": 3}`, `[`, `"\u00e9`, `{"cmd": ["a", 1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		file, _, _ := propCallInput([]byte(input))
		if file != "" && !strings.Contains(input, file) && !strings.Contains(input, `\`) {
			t.Errorf("file %q is not in the input %q", file, input)
		}
	})
}

// FuzzProposeAnswerText feeds AskUserQuestion results, as a log may hold
// them, to propAnswerText: no panic, and nothing read from a result
// without the answer marker or without a result.
func FuzzProposeAnswerText(f *testing.F) {
	for _, s := range []string{`User has answered your questions: "Q?"="A". You can now continue`, `User has answered your questions: "Q"="a \"b\"", "R"=""`, `User has answered your questions: "`, `"Q"="A"`} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, result string, has bool) {
		got := propAnswerText(agentlog.ToolCall{Name: "AskUserQuestion", Result: result, HasResult: has})
		if got != "" && (!has || !strings.Contains(result, propAnswerMarker)) {
			t.Errorf("answers %q from result %q (has %v)", got, result, has)
		}
	})
}

// FuzzProposeReviewText feeds typed messages to propReviewText: no
// panic, and what it calls a pasted review is made of the message's own
// lines (a person's lead-in cut), never of the person's voice.
func FuzzProposeReviewText(f *testing.F) {
	for _, s := range []string{
		"The RunGitCommand function is defined in testenv.go but never called anywhere in the codebase. This is dead code.",
		"can you also check: When reusing a checkpoint, the code doesn't retrieve the AgentType. Consider retrieving it.",
		"Variable named README but creates DOCS.md file\nLow Severity\nPromptCreateREADME has the comment \"creates a README\".",
		"we should not do that", ": :", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := propReviewText(text)
		for line := range strings.Lines(got) {
			line = strings.TrimSpace(line)
			if !strings.Contains(text, line) || propReviewPerson.MatchString(line) {
				t.Errorf("review line %q of %q", line, text)
			}
		}
	})
}
