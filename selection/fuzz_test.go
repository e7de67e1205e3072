package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
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

// FuzzParseEvent: ParseEvent never panics; what it rejects is a Problem
// inside the line; what it accepts is valid JSON in UTF-8, with the
// fields encoding/json reads; its canonical arguments are valid JSON
// equal (as values) to the arguments written, and canonical again are
// themselves.
func FuzzParseEvent(f *testing.F) {
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
		ev, err := ParseEvent("e.jsonl", 1, line)
		if err != nil {
			checkLineProblem(t, err, "e.jsonl", 1, line)
			return
		}
		std, stdErr := decodeStd(line)
		if stdErr != nil || !utf8.Valid(line) {
			t.Fatalf("accepted %q, which encoding/json rejects (%v) or is not UTF-8", line, stdErr)
		}
		m := std.(map[string]any)
		if m["session_id"] != ev.SessionID || m["turn"].(json.Number).String() != itoa(ev.Turn) || m["kind"] != string(ev.Kind) {
			t.Fatalf("encoding/json reads %v; ParseEvent %+v", m, ev)
		}
		if text, ok := m["text"].(string); ok && text != ev.Text {
			t.Fatalf("text %q vs %q", text, ev.Text)
		}
		if ev.Args == nil {
			return
		}
		canon, cerr := decodeStd(ev.Args)
		if cerr != nil {
			t.Fatalf("canonical arguments %s are not JSON: %v", ev.Args, cerr)
		}
		if !hasDuplicateKeys(line) && !reflect.DeepEqual(canon, m["args"]) {
			t.Fatalf("canonical arguments %s read as %v, the line's as %v", ev.Args, canon, m["args"])
		}
		var sc jsonscan.Scanner
		sc.Reset(ev.Args)
		again, e := sc.Canonical(nil)
		if e != nil || !bytes.Equal(again, ev.Args) {
			t.Fatalf("canonical form %s is not a fixed point: %s (%v)", ev.Args, again, e)
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
