package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// propFromTranscript is t as an agentlog.Session (Transcript.Session).
func propFromTranscript(t Transcript) *agentlog.Session { return t.Session() }

// TestReadTranscriptsProblems: every malformed line is named by file,
// line and column, with the field at fault.
func TestReadTranscriptsProblems(t *testing.T) {
	good := `{"session_id":"s1","turn":1,"kind":"message","role":"user","text":"hi"}`
	tests := []struct {
		line string
		want string
	}{
		{`{"session_id":"s1","turn":1,"kind":"message","role":"user","text":"hi"`, "log.jsonl:2:71: unexpected end of line: the JSON object is not complete"},
		{`not json`, "log.jsonl:2:2: invalid character 'o' in literal null (expecting 'u')"},
		{`[1,2]`, "log.jsonl:2:1: want a JSON object (one event), got an array"},
		{`{"session_id":"s1","turn":0,"kind":"compaction"}`, "log.jsonl:2:20: turn: must be at least 1 (turns are numbered from 1), got 0"},
		{`{"session_id":"s1","turn":16777217,"kind":"compaction"}`, "log.jsonl:2:20: turn: must be at most 16777216, as in every event log, got 16777217"},
		{`{"session_id":"s1","turn":"3","kind":"compaction"}`, `log.jsonl:2:20: turn: want a whole number, got string "3"`},
		{`{"session_id":"s1","turn":2.5,"kind":"compaction"}`, "log.jsonl:2:20: turn: want a whole number, got number 2.5"},
		{`{"session_id":"s1","kind":"compaction"}`, `log.jsonl:2:1: missing "turn"`},
		{`{"session_id":"","turn":1,"kind":"compaction"}`, "log.jsonl:2:2: session_id: want a non-empty string"},
		{`{"session_id":7,"turn":1,"kind":"compaction"}`, "log.jsonl:2:2: session_id: want a string, got number 7"},
		{`{"session_id":"s1","turn":1,"kind":"note"}`, `log.jsonl:2:29: kind: want message, tool_call or compaction, got "note"`},
		{`{"session_id":"s1","turn":1,"kind":"message","text":"hi"}`, "log.jsonl:2:29: role: a message needs a non-empty role"},
		{`{"session_id":"s1","turn":1,"kind":"message","role":"user","text":null}`, "log.jsonl:2:29: text: a message needs a text"},
		{`{"session_id":"s1","turn":1,"kind":"tool_call"}`, "log.jsonl:2:29: tool: a tool call needs a non-empty tool"},
		{`{"session_id":"s1","turn":1,"turn":2,"kind":"compaction"}`, "log.jsonl:2:29: turn: given twice"},
		{`{"session_id":"s1","turn":1,"ts":"yesterday","kind":"compaction"}`, `log.jsonl:2:29: ts: want an RFC 3339 time such as 2026-01-05T04:55:22Z, got "yesterday"`},
		{`{"session_id":"s1","turn":1,"kind":"compaction"} x`, "log.jsonl:2:50: extra data after the event object"},
		{"{\"session_id\":\"s\xff\",\"turn\":1,\"kind\":\"compaction\"}", "log.jsonl:2:17: invalid UTF-8 (byte 0xff)"},
		{`{"session_id":"a/b","turn":1,"kind":"compaction"}`, `log.jsonl:2:1: session_id: "a/b" cannot name a folder (no /, \, :, control characters, "." or ".."), and it would be the fixture's conversation_id`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			in := good + "\n" + tt.line + "\n\n" + good + "\n"
			_, err := ReadTranscripts("log.jsonl", strings.NewReader(in), TranscriptOptions{})
			ps := fixture.AsProblems(err)
			if len(ps) != 1 || ps[0].Error() != tt.want {
				t.Fatalf("got  %v\nwant %s", err, tt.want)
			}
			// --skip-bad: the line is skipped, reported, and the rest read.
			log, err := ReadTranscripts("log.jsonl", strings.NewReader(in), TranscriptOptions{SkipBad: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(log.Skipped) != 1 || log.Skipped[0].Error() != tt.want {
				t.Errorf("skipped %v", log.Skipped)
			}
			if len(log.Sessions) != 1 || len(log.Sessions[0].Events) != 2 {
				t.Errorf("sessions %+v", log.Sessions)
			}
		})
	}
}

// TestReadTranscriptsManyProblems: every bad line is reported, not only
// the first, up to a cap.
func TestReadTranscriptsManyProblems(t *testing.T) {
	_, err := ReadTranscripts("x", strings.NewReader("a\nb\n"), TranscriptOptions{})
	if ps := fixture.AsProblems(err); len(ps) != 2 || ps[1].Line != 2 {
		t.Errorf("two bad lines: %v", err)
	}
	_, err = ReadTranscripts("x", strings.NewReader(strings.Repeat("?\n", 150)), TranscriptOptions{})
	ps := fixture.AsProblems(err)
	if len(ps) != propMaxProblems+1 || ps[len(ps)-1].Error() != "x: 50 more problems not shown" {
		t.Errorf("150 bad lines: %d problems, last %v", len(ps), ps[len(ps)-1])
	}
}

// TestReadTranscriptsSessions: a log of many sessions is grouped by
// session, in order of appearance, each in turn order; Session keeps one;
// unknown keys are ignored and null is an absent value.
func TestReadTranscriptsSessions(t *testing.T) {
	in := strings.Join([]string{
		`{"session_id":"b","turn":2,"kind":"message","role":"user","text":"two","extra":{"x":1}}`,
		`{"session_id":"a","turn":1,"kind":"compaction","ts":null,"role":null}`,
		`{"session_id":"b","turn":1,"ts":"2026-01-05T09:13:58Z","kind":"tool_call","tool":"grep","args":{"pattern":"x"}}`,
		"",
		`{"session_id":"b","turn":2,"kind":"message","role":"assistant","text":"ok"}` + "\r",
	}, "\n")
	log, err := ReadTranscripts("l", strings.NewReader(in), TranscriptOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Sessions) != 2 || log.Sessions[0].SessionID != "b" || log.Sessions[1].SessionID != "a" {
		t.Fatalf("sessions %+v", log.Sessions)
	}
	b := log.Sessions[0]
	var order []string
	for _, e := range b.Events {
		order = append(order, fmt.Sprintf("%d:%s@%d", e.Turn, e.Kind, e.Line))
	}
	if strings.Join(order, " ") != "1:tool_call@3 2:message@1 2:message@5" {
		t.Errorf("order %v", order)
	}
	if b.Events[0].TS != "2026-01-05T09:13:58Z" || string(b.Events[0].Args) != `{"pattern":"x"}` || b.Events[2].Text != "ok" {
		t.Errorf("fields %+v", b.Events)
	}
	if b.Turns() != 2 || b.Compactions() != 0 || log.Sessions[1].Compactions() != 1 {
		t.Errorf("turns %d compactions %d", b.Turns(), b.Compactions())
	}
	one, err := ReadTranscripts("l", strings.NewReader(in), TranscriptOptions{Session: "a"})
	if err != nil || len(one.Sessions) != 1 || one.Sessions[0].SessionID != "a" {
		t.Errorf("Session a: %+v %v", one.Sessions, err)
	}
}

// errReader fails after its data.
type propErrReader struct{ data []byte }

func (r *propErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadTranscriptsIOError(t *testing.T) {
	_, err := ReadTranscripts("l", &propErrReader{[]byte("{}\n")}, TranscriptOptions{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || len(fixture.AsProblems(err)) != 0 {
		t.Errorf("I/O error: %v", err)
	}
}

// FuzzReadTranscripts: reading never panics; problems are placed inside
// the input; every event read obeys the format; and proposing from any
// session read gives candidates that make a valid fixture once accepted,
// survive a JSON round trip, and have confidences in [0, 1].
func FuzzReadTranscripts(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","turn":1,"kind":"message","role":"user","text":"Ground rule: never touch x. Should we use y or z?"}`))
	f.Add([]byte(`{"session_id":"s","turn":2,"kind":"message","role":"assistant","text":"I'll fix it before x.go:12; see PR #12 and commit abcdef1."}` + "\n" + `{"session_id":"t","turn":1,"kind":"compaction"}`))
	f.Add([]byte(`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","args":[1,{"a":null}]}`))
	f.Add([]byte("{\"session_id\":\"s\",\"turn\":1,\"kind\":\"message\",\"role\":\"user\",\"text\":\"\\u0000\\n§ 1.2 … e.g. Also, no\"}\r\n\n"))
	f.Add([]byte(`{"session_id":".","turn":99999999999999999999,"kind":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			log, err := ReadTranscripts("f.jsonl", bytes.NewReader(data), TranscriptOptions{SkipBad: skip})
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, p := range append(fixture.AsProblems(err), log.Skipped...) {
				if p.File != "f.jsonl" || p.Msg == "" || (p.Line != 0 && (p.Line < 1 || p.Line > lines || p.Col < 1)) {
					t.Fatalf("problem out of place: %#v", p)
				}
			}
			if err != nil {
				if skip {
					t.Fatalf("SkipBad returned %v", err)
				}
				continue
			}
			for _, s := range log.Sessions {
				for _, e := range s.Events {
					if e.SessionID != s.SessionID || e.Turn < 1 || (e.Kind != "message" && e.Kind != "tool_call" && e.Kind != "compaction") {
						t.Fatalf("bad event %+v", e)
					}
				}
				p := Propose(propFromTranscript(s), ProposeOptions{})
				fx := fixture.Fixture{ConversationID: p.ConversationID, Turns: p.Turns, CompactionsExpected: p.CompactionsExpected, MustSurvive: []fixture.Item{}}
				for _, c := range p.Candidates {
					if !(c.Confidence >= 0 && c.Confidence <= 1) || c.Rule == "" || c.Status != ReviewPending {
						t.Fatalf("bad candidate %+v", c)
					}
					fx.MustSurvive = append(fx.MustSurvive, c.Item())
				}
				if err := fx.Validate(); err != nil {
					t.Fatalf("accepting every candidate gives an invalid fixture: %v\n%+v", err, p.Candidates)
				}
				js, err := json.Marshal(fx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := fixture.Parse("fx.json", js); err != nil {
					t.Fatalf("fixture.Parse rejects it: %v", err)
				}
			}
		}
	})
}

// TestReadTranscriptsSyntaxColumns: a syntax error points at the
// character it is about, whichever way encoding/json found it.
func TestReadTranscriptsSyntaxColumns(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"turn":1,,"kind":"compaction"}`, "l:1:11: invalid character ',' looking for beginning of object key string"},
		{`{"turn":1 "kind":"compaction"}`, "l:1:11: invalid character '\"' after object key:value pair"},
		{`{"turn":tru}`, "l:1:12: invalid character '}' in literal true (expecting 'e')"},
		{`{"turn":1,   }`, "l:1:14: invalid character '}' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		_, err := ReadTranscripts("l", strings.NewReader(tt.line), TranscriptOptions{})
		if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].Error() != tt.want {
			t.Errorf("%s:\ngot  %v\nwant %s", tt.line, err, tt.want)
		}
	}
}
