package selection

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
)

func TestParseSession(t *testing.T) {
	started := time.Date(2026, 1, 5, 4, 55, 22, 0, time.UTC)
	tests := []struct {
		reason string
		line   string
		want   Session
	}{
		{"lists", `{"session_id":"s1","turns":31,"started":"2026-01-05T04:55:22Z","compactions":[{"turn":25}],"items":[{"class":"open_question","turn":5},{"class":"constraint","turn":11}]}`,
			Session{ID: "s1", Turns: 31, Started: started, Compactions: []int{25}, CompactionCount: 1,
				Items: []Item{{fixture.OpenQuestion, 5}, {fixture.Constraint, 11}}, ItemCount: 2}},
		{"counts only, incident, any key order and spacing", ` { "items" : 11 , "compactions":2, "incident":true, "turns":70, "session_id":"s2" } `,
			Session{ID: "s2", Turns: 70, Incident: true, CompactionCount: 2, ItemCount: 11, CountsOnly: true}},
		{"empty lists, null started and incident", `{"session_id":"s3","turns":1,"started":null,"incident":null,"compactions":[],"items":[]}`,
			Session{ID: "s3", Turns: 1, Compactions: []int{}, Items: []Item{}}},
		{"unknown keys are ignored, also inside list elements", `{"session_id":"s4","turns":9,"model":{"name":"x","v":[1,2]},"compactions":[{"turn":4,"tokens":160000}],"items":[{"class":"reference","turn":2,"id":"c1"}]}`,
			Session{ID: "s4", Turns: 9, Compactions: []int{4}, CompactionCount: 1, Items: []Item{{fixture.Reference, 2}}, ItemCount: 1}},
		{"one list, one count: counts only", `{"session_id":"s5","turns":9,"compactions":[{"turn":4}],"items":3}`,
			Session{ID: "s5", Turns: 9, CompactionCount: 1, ItemCount: 3, CountsOnly: true}},
		{"escaped id", `{"session_id":"s\u00e9\n","turns":2,"compactions":0,"items":0}`,
			Session{ID: "sé\n", Turns: 2, CountsOnly: true}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got, err := ParseSession("s.jsonl", 1, []byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("parsed session does not validate: %v", err)
			}
		})
	}
}

func TestParseSessionProblems(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"session_id":"s","turns":3,"compactions":[{"turn":2}],"items":[{"class":"constraint","turn":0}]}`,
			`s.jsonl:7:94: items[0].turn: want a whole number from 1 to 16777216, got 0`},
		{`{"session_id":"s","turns":3,"compactions":[{"turn":4}],"items":[]}`,
			`s.jsonl:7:52: compactions[0].turn: turn 4 is after the session's last turn 3`},
		{`{"session_id":"s","turns":3,"compactions":4,"items":[]}`,
			`s.jsonl:7:43: compactions: 4 compactions in 3 turns: at most one per turn`},
		{`{"session_id":"s","turns":3,"compactions":[],"items":[{"class":"goal","turn":1}]}`,
			`s.jsonl:7:64: items[0].class: unknown class "goal" (want constraint, commitment, open_question or reference)`},
		{`{"session_id":"s","turns":3,"compactions":[],"items":[{"turn":1}]}`,
			`s.jsonl:7:55: items[0]: missing "class"`},
		{`{"session_id":"s","turns":3,"compactions":[3],"items":[]}`,
			`s.jsonl:7:44: compactions[0]: want an object {"turn"}, got the number 3`},
		{`{"session_id":"s","turns":2.5,"compactions":[],"items":[]}`,
			`s.jsonl:7:27: turns: want a whole number, got 2.5`},
		{`{"session_id":"s","turns":"3","compactions":[],"items":[]}`,
			`s.jsonl:7:27: turns: want a whole number, got a string`},
		{`{"session_id":"","turns":3,"compactions":[],"items":[]}`,
			`s.jsonl:7:15: session_id: want a non-empty string`},
		{`{"session_id":"s","turns":3,"compactions":"none","items":[]}`,
			`s.jsonl:7:43: compactions: want a list of {"turn"} or a count, got a string`},
		{`{"session_id":"s","turns":3,"items":[]}`, `s.jsonl:7:1: missing "compactions"`},
		{`{"session_id":"s","turns":3,"turns":4,"compactions":[],"items":[]}`, `s.jsonl:7:29: turns: given twice`},
		{`{"session_id":"s","turns":3,"started":"yesterday","compactions":[],"items":[]}`,
			`s.jsonl:7:39: started: want an RFC 3339 time such as 2026-01-05T04:55:22Z, got "yesterday"`},
		{`{"session_id":"s","turns":3,"incident":"yes","compactions":[],"items":[]}`,
			`s.jsonl:7:40: incident: want true or false, got a string`},
		{`{"session_id":"s","turns":3,"compactions":[],"items":[]`, `s.jsonl:7:56: unexpected end of line: the JSON value is not complete`},
		{`{"session_id":"s","turns":3,"compactions":[],"items":[],}`, `s.jsonl:7:56: trailing comma before '}', which JSON does not allow`},
		{`{"session_id":"s","turns":3,"compactions":[],"items":[]} x`, `s.jsonl:7:58: invalid character 'x' after top-level value`},
		{`[1,2]`, `s.jsonl:7:1: want a JSON object (one session summary), got an array`},
		{"{\"session_id\":\"\xff\",\"turns\":3,\"compactions\":[],\"items\":[]}", `s.jsonl:7:16: invalid UTF-8 (byte 0xff) in string literal`},
		{`{"session_id":"é","turns":3x,"compactions":[],"items":[]}`, `s.jsonl:7:28: invalid character 'x' after object key:value pair (want ',' or '}')`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := ParseSession("s.jsonl", 7, []byte(tt.line))
			var p fixture.Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %v (%T) is not a fixture.Problem", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestSessionReader: blank lines are skipped, problems name their line
// and the reader goes on past them, CRLF endings and a last line without
// a newline are read.
func TestSessionReader(t *testing.T) {
	in := "{\"session_id\":\"a\",\"turns\":3,\"compactions\":[{\"turn\":2}],\"items\":[]}\r\n\n   \n" +
		"{\"session_id\":\"b\"\n" +
		`{"session_id":"c","turns":5,"compactions":1,"items":2}`
	r := NewSessionReader(strings.NewReader(in), "s.jsonl")
	var got []string
	for {
		s, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, s.ID)
	}
	want := []string{"a", "s.jsonl:4:18: unexpected end of line: the JSON value is not complete", "c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if r.Bytes() != int64(len(in)) {
		t.Errorf("Bytes() = %d, want %d", r.Bytes(), len(in))
	}
}

func TestSessionReaderLongLine(t *testing.T) {
	long := `{"session_id":"` + strings.Repeat("x", int(MaxLineBytes)) + `"}` + "\n"
	in := long + `{"session_id":"c","turns":5,"compactions":1,"items":2}` + "\n"
	r := NewSessionReader(strings.NewReader(in), "s.jsonl")
	if _, err := r.Next(); err == nil || err.Error() != "s.jsonl:1: line longer than 64 MiB (raise with --max-line)" {
		t.Fatalf("err = %v", err)
	}
	if s, err := r.Next(); err != nil || s.ID != "c" || r.Line() != 2 {
		t.Fatalf("after the long line: %+v, %v, line %d", s, err, r.Line())
	}
}

// TestCanonical: values that differ only in key order, white space and
// string escaping are canonically equal; any other difference is kept.
func TestCanonical(t *testing.T) {
	canon := func(s string) string {
		var sc jsonscan.Scanner
		sc.Reset([]byte(s))
		out, err := sc.Canonical(nil)
		if err == nil {
			err = sc.End()
		}
		if err != nil {
			t.Fatalf("canonical(%s): %v", s, err)
		}
		return string(out)
	}
	same := [][2]string{
		{`{"path":"a.go","start_line":1,"end_line":9}`, `{ "end_line" : 9 ,"start_line":1, "path":"a.go"}`},
		{`{"a":{"y":1,"x":[{"q":2,"p":1}]}}`, "{\"a\":\n{\"x\":[{\"p\":1,\"q\":2}],\t\"y\":1}}"},
		{`{"pattern":"A/b"}`, `{"pattern":"\u0041\/b"}`},
		{`["x",1,true,null]`, `[ "x" , 1 , true , null ]`},
		{`{}`, `{ }`},
	}
	for _, p := range same {
		if a, b := canon(p[0]), canon(p[1]); a != b {
			t.Errorf("%s → %s\n%s → %s: want equal", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{`{"path":"a.go","start_line":1}`, `{"path":"a.go","start_line":2}`},
		{`{"path":"a.go"}`, `{"path":"a.go","start_line":1}`},
		{`[1,2]`, `[2,1]`},
		{`{"a":"1"}`, `{"a":1}`},
		{`{"a":1}`, `{"a":1.0}`}, // numbers compare as written
	}
	for _, p := range differ {
		if a, b := canon(p[0]), canon(p[1]); a == b {
			t.Errorf("%s and %s: both %s, want different", p[0], p[1], a)
		}
	}
	if got := canon(`{"b":"\u0001\"\\","a":"é"}`); got != `{"a":"é","b":"\u0001\"\\"}` {
		t.Errorf("escaping: %s", got)
	}
}
