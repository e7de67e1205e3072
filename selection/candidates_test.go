package selection

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// sample is a small candidates file as `tally propose` writes it
// (testdata/candidates.json; the review's tests start from it too).
var sample = mustRead("testdata/candidates.json")

// mustRead is the text of a test data file.
func mustRead(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestParseCandidatesSample(t *testing.T) {
	p, err := ParseCandidates("c.json", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if p.ConversationID != "sess_a4f1" || p.Turns != 63 || p.CompactionsExpected != 2 || len(p.Candidates) != 3 || p.Position != 0 {
		t.Fatalf("%+v", p)
	}
	c := p.Candidates[2]
	if c.Class != fixture.Reference || c.Turn != 41 || c.Confidence != 0.85 || c.Status != ReviewPending || c.Role != "user" || c.Rule != "reference/revision" || c.Line != 0 {
		t.Errorf("%+v", c)
	}
	// A candidate's log line, when given, is read and written back.
	p.Candidates[2].Line = 118

	// What Propose writes, ParseCandidates reads back the same.
	js, _ := json.Marshal(p)
	q, err := ParseCandidates("again.json", js)
	if err != nil || !equalJSON(t, p, q) {
		t.Errorf("round trip: %v", err)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestParseCandidatesProblems: every problem is named with line, column and field.
func TestParseCandidatesProblems(t *testing.T) {
	tests := []struct {
		name, edit, with string
		want             []string
	}{
		{"unknown field", `"position": 0`, `"positon": 0`, []string{`c.json:46:3: unknown field "positon" (want conversation_id, turns, compactions_expected, candidates, position)`}},
		{"bad status", `"status": "pending",
      "message": "I'll`, `"status": "maybe",
      "message": "I'll`, []string{`c.json:29:17: candidates[1].status: "maybe" is not a status (want pending, accepted or rejected)`}},
		{"turn outside", `"turn": 41`, `"turn": 70`, []string{"c.json:35:15: candidates[2].turn: 70 is outside 1..63 (turns)"}},
		{"duplicate id", `"id": "c2"`, `"id": "c1"`, []string{`c.json:20:13: candidates[1].id: duplicate id "c1" (first at candidates[0])`}},
		{"wrong types", `"confidence": 0.9,
      "rule": "constraint`, `"confidence": "high",
      "rule": "constraint`, []string{`c.json:14:21: candidates[0].confidence: want a number from 0 to 1, got string "high"`}},
		{"confidence out of range", `"confidence": 0.85`, `"confidence": 1.5`, []string{"c.json:40:21: candidates[2].confidence: 1.5 is outside 0..1"}},
		{"negative line", `"confidence": 0.85`, `"line": -3, "confidence": 0.85`, []string{"c.json:40:15: candidates[2].line: -3 is not a line (lines are numbered from 1; 0 or none when unknown)"}},
		{"line not a number", `"confidence": 0.85`, `"line": "40", "confidence": 0.85`, []string{`c.json:40:15: candidates[2].line: want a whole number, got string "40"`}},
		{"bad class", `"class": "commitment"`, `"class": "promise"`, []string{`c.json:21:16: candidates[1].class: "promise" is not a class (want constraint, commitment, open_question or reference)`}},
		{"position beyond", `"position": 0`, `"position": 4`, []string{"c.json:46:15: position: 4 is outside 0..3 (the number of candidates)"}},
		{"missing literal", `"literal": "report.md rev 14",`, ``, []string{"c.json:32:5: candidates[2].literal: missing"}},
		{"repeated field", `"turns": 63,`, `"turns": 63, "turns": 64,`, []string{"c.json:3:16: turns: repeated field"}},
		{"folder", `"sess_a4f1"`, `"../x"`, []string{`c.json:2:22: conversation_id: "../x" cannot name a folder (no /, \, :, control characters, "." or "..")`}},
		// The lexer's words (internal/jsonscan), as for every JSON tally
		// reads: the comma is the fault, at line 46 after "position": 0.
		{"syntax", `"position": 0`, `"position": 0,`, []string{"c.json:46:16: trailing comma before '}', which JSON does not allow"}},
		{"truncated", "\n}\n", "\n", []string{"c.json:46:16: unexpected end of file: the JSON value is not complete"}},
		{"two problems, in file order", `"turns": 63`, `"turns": 10`, []string{"c.json:22:15: candidates[1].turn: 19 is outside 1..10 (turns)", "c.json:35:15: candidates[2].turn: 41 is outside 1..10 (turns)"}},
		{"turns", `"turns": 63`, `"turns": 0`, []string{"c.json:3:12: turns: must be at least 1, got 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(sample, tt.edit) {
				t.Fatalf("sample lacks %q", tt.edit)
			}
			data := strings.Replace(sample, tt.edit, tt.with, 1)
			_, err := ParseCandidates("c.json", []byte(data))
			ps := fixture.AsProblems(err)
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseCandidatesDefaults(t *testing.T) {
	p, err := ParseCandidates("m.json", []byte(`{"conversation_id":"s","turns":5,"compactions_expected":0,"candidates":[
{"id":"x","class":"reference","turn":5,"literal":"a","probe":"b","expect":"c"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Candidates[0]; c.Status != ReviewPending || c.Confidence != 0 || p.Position != 0 {
		t.Errorf("defaults: %+v", p)
	}
	_, err = ParseCandidates("e.json", []byte(`[]`))
	if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].Error() != "e.json:1:1: want a JSON object (one candidates file), got an array" {
		t.Errorf("array: %v", err)
	}
	_, err = ParseCandidates("u.json", []byte("{\"conversation_id\":\"\xff\"}"))
	if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].Error() != "u.json:1:21: invalid UTF-8 (byte 0xff)" {
		t.Errorf("utf-8: %v", err)
	}
}

func TestProposalValidateAndFixture(t *testing.T) {
	p, _ := ParseCandidates("c.json", []byte(sample))
	p.Candidates[2].Status = ReviewAccepted
	p.Candidates[0].Status = ReviewAccepted
	p.Candidates[1].Status = ReviewRejected
	p.Position = 3
	fx, err := p.Fixture()
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.MustSurvive) != 2 || fx.MustSurvive[0].ID != "c1" || fx.MustSurvive[1].ID != "c3" {
		t.Errorf("accepted items: %+v", fx.MustSurvive)
	}
	js, _ := json.Marshal(fx)
	if _, err := fixture.Parse("fx.json", js); err != nil {
		t.Errorf("fixture.Parse: %v", err)
	}
	// Nothing accepted yet: an empty must_survive list, not null.
	p.Candidates[0].Status, p.Candidates[2].Status = ReviewPending, ReviewPending
	fx, _ = p.Fixture()
	if js, _ := json.Marshal(fx); !strings.Contains(string(js), `"must_survive":[]`) {
		t.Errorf("empty fixture: %s", js)
	}
	p.Candidates[1].Probe = "  "
	p.Candidates[0].Status = "maybe"
	p.Position = -1
	err = p.Validate()
	want := "position: -1 is outside 0..3 (the number of candidates)\ncandidates[0].status: \"maybe\" is not a status (want pending, accepted or rejected)\ncandidates[1].probe: blank: only white space"
	if err == nil || err.Error() != want {
		t.Errorf("Validate:\n%v\nwant\n%s", err, want)
	}
}

// TestWriteCandidates: the writer writes the sample byte for byte (it is
// what `tally propose` and `tally review` write), with <, > and & as they
// are, and LoadCandidates reads the file back the same.
func TestWriteCandidates(t *testing.T) {
	p, err := ParseCandidates("c.json", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCandidates(&b, p); err != nil {
		t.Fatal(err)
	}
	if b.String() != sample {
		t.Errorf("WriteCandidates wrote\n%s\nwant\n%s", b.String(), sample)
	}
	p.Candidates[1].Expect = "develop <not main> & \"quoted\""
	b.Reset()
	if err := WriteCandidates(&b, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `develop <not main> & \"quoted\"`) {
		t.Errorf("HTML characters escaped in %s", b.String())
	}
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCandidates(path, input.Limits{})
	if err != nil || !equalJSON(t, p, back) {
		t.Fatalf("candidates file does not read back: %v", err)
	}
	if _, err := LoadCandidates(filepath.Join(t.TempDir(), "none.json"), input.Limits{}); err == nil || !strings.HasPrefix(err.Error(), "reading candidates: ") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParseCandidates: ParseCandidates never panics, places its problems inside the input,
// and what it accepts is valid, reads back the same after a JSON round
// trip, and gives a fixture that fixture.Parse accepts once every
// candidate is accepted.
func FuzzParseCandidates(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"conversation_id":"s","turns":1,"compactions_expected":0,"candidates":[]}`))
	f.Add([]byte(`{"conversation_id":"s","turns":2,"compactions_expected":0,"candidates":[{"id":"a","class":"reference","turn":2,"literal":"\u0000","probe":"\/","expect":"\"","status":"accepted","confidence":1e-3}],"position":1}`))
	f.Add([]byte(`[[[{"a":[1,2,{}]}]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseCandidates("f.json", data)
		if err != nil {
			lines := strings.Count(string(data), "\n") + 1
			ps := fixture.AsProblems(err)
			if len(ps) == 0 {
				t.Fatalf("error is not Problems: %v", err)
			}
			for _, p := range ps {
				if p.File != "f.json" || p.Line < 1 || p.Line > lines || p.Col < 1 || p.Msg == "" {
					t.Fatalf("problem out of place: %#v", p)
				}
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParseCandidates accepted what Validate rejects: %v", err)
		}
		js, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParseCandidates("again.json", js)
		if err != nil || !equalJSON(t, p, q) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range p.Candidates {
			p.Candidates[i].Status = ReviewAccepted
		}
		fx, err := p.Fixture()
		if err != nil {
			t.Fatalf("Fixture: %v", err)
		}
		js, _ = json.Marshal(fx)
		if _, err := fixture.Parse("fx.json", js); err != nil {
			t.Fatalf("fixture.Parse rejects the fixture: %v", err)
		}
	})
}
