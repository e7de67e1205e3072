package reviews

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

const okLine = `{"conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","system":"s","verdict":"absent"}`

// TestReaderProblems pins each problem's message and position, the
// columns counted by hand on the lines below.
func TestReaderProblems(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"compaction 0 and a judge's verdict as the reviewer's",
			`{"conversation_id":"c","compaction":0,"item_id":"i","class":"constraint","system":"s","verdict":"verbatim"}`,
			[]string{
				`f.jsonl:1:37: compaction: must be at least 1 (compactions are numbered from 1), got 0`,
				`f.jsonl:1:97: verdict: "verbatim" is not a reviewer's verdict (want supported, absent or contradicted)`,
			}},
		{"a key reviewed twice names both lines", "\n" + okLine + "\n" + okLine + "\n",
			[]string{`f.jsonl:3:20: conversation_id: a second review of conversation "c" compaction 1 item "i" system "s" (first at line 2): a file holds one review per item, compaction and system`}},
		{"missing verdict", `{"conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","system":"s"}`,
			[]string{`f.jsonl:1:1: verdict: missing`}},
		{"unknown field", strings.TrimSuffix(okLine, "}") + `,"extra":1}`,
			[]string{`f.jsonl:1:106: extra: unknown field (want conversation_id, compaction, item_id, class, system, item, judge_verdict, verdict, reviewer, note, source or sample)`}},
		{"line ends inside the object", `{"conversation_id":`,
			[]string{`f.jsonl:1:20: unexpected end of line: want one JSON object (one review) on one line`}},
		{"not an object", `[1]`,
			[]string{`f.jsonl:1:1: want a JSON object (one review), got an array`}},
		{"wrong types and an empty system, an unknown class and judge verdict",
			`{"conversation_id":7,"compaction":"1","item_id":"i","class":"rule","system":" ","judge_verdict":"maybe","verdict":"absent"}`,
			[]string{
				`f.jsonl:1:20: conversation_id: want a string, got the number 7`,
				`f.jsonl:1:35: compaction: want a whole number, got a string`,
				`f.jsonl:1:61: class: "rule" is not a class (want constraint, commitment, open_question or reference)`,
				`f.jsonl:1:77: system: empty`,
				`f.jsonl:1:97: judge_verdict: "maybe" is not a judge's verdict (want verbatim, supported, absent, contradicted or error, or leave it out)`,
			}},
		{"repeated field", strings.TrimSuffix(okLine, "}") + `,"verdict":"absent"}`,
			[]string{`f.jsonl:1:106: verdict: repeated field`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(strings.NewReader(tc.text), "f.jsonl", 0)
			var got []string
			for _, p := range fixture.AsProblems(err) {
				got = append(got, p.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestReaderLongLine: a line over the limit is a problem at its line,
// and the lines after it are read.
func TestReaderLongLine(t *testing.T) {
	text := `{"conversation_id":"` + strings.Repeat("x", 300) + "\"}\n" + okLine + "\n"
	rd := NewReader(strings.NewReader(text), "f.jsonl", 150)
	_, err := rd.Next()
	if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].Error() != "f.jsonl:1: line longer than 150 bytes (raise with --max-line)" {
		t.Fatalf("long line: %v", err)
	}
	if r, err := rd.Next(); err != nil || r.ConversationID != "c" || rd.Line() != 2 {
		t.Fatalf("after the long line: %+v, %v (line %d)", r, err, rd.Line())
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
}

// hostile holds text a reviewer may type that must stay text.
var hostile = []Review{
	{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "incumbent",
		Item: "b2b48181e0c55a09", JudgeVerdict: fixture.Verbatim, Verdict: fixture.Supported,
		Reviewer: `=HYPERLINK("http://evil.example","x")`, Note: "+cmd|' /C calc'!A0", Source: "out/report.xlsx"},
	{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "candidate",
		Verdict: fixture.Contradicted, Reviewer: "@x", Note: "\x00\x01\x1f\t\r\n\u2028\u2029<script>&amp;\"\\ é 😀 " + strings.Repeat("long ", 7000)},
	{ConversationID: "c2", Compaction: 3, ItemID: "i9", Class: fixture.OpenQuestion, System: "candidate",
		JudgeVerdict: fixture.Error, Verdict: fixture.Absent},
}

// reference is a review encoded by encoding/json as the format's doc
// comment describes it: what Writer must write byte for byte.
type reference struct {
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	ItemID         string `json:"item_id"`
	Class          string `json:"class"`
	System         string `json:"system"`
	Item           string `json:"item,omitempty"`
	JudgeVerdict   string `json:"judge_verdict,omitempty"`
	Verdict        string `json:"verdict"`
	Reviewer       string `json:"reviewer,omitempty"`
	Note           string `json:"note,omitempty"`
	Source         string `json:"source,omitempty"`
}

func TestRoundTrip(t *testing.T) {
	var got, want bytes.Buffer
	w := NewWriter(&got)
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	for _, r := range hostile {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(reference{r.ConversationID, r.Compaction, r.ItemID, string(r.Class), r.System, r.Item,
			string(r.JudgeVerdict), string(r.Verdict), r.Reviewer, r.Note, r.Source}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("Writer:\n%.400s\nencoding/json:\n%.400s", got.String(), want.String())
	}
	back, err := ReadAll(&got, "f.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(hostile) {
		t.Fatalf("read %d reviews, wrote %d", len(back), len(hostile))
	}
	for i := range back {
		if back[i] != hostile[i] {
			t.Errorf("review %d read back as %+v", i, back[i])
		}
	}
}

// TestWriteInvalid: an invalid review is refused by Write and by
// WriteFile, which then leaves the file as it was.
func TestWriteInvalid(t *testing.T) {
	bad := hostile[0]
	bad.Verdict = Unsure
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), `verdict: "unsure" is not a reviewer's verdict`) {
		t.Errorf("Write: %v", err)
	}
	path := filepath.Join(t.TempDir(), "reviews.jsonl")
	if err := WriteFile(path, hostile[:1]); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := WriteFile(path, []Review{hostile[1], bad}); err == nil {
		t.Error("WriteFile wrote an invalid review")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("WriteFile changed the file: %s", after)
	}
	rs, err := Load(path, input.Limits{})
	if err != nil || len(rs) != 1 || rs[0] != hostile[0] {
		t.Errorf("Load: %+v, %v", rs, err)
	}
	if rs, err := Load(filepath.Join(t.TempDir(), "none.jsonl"), input.Limits{}); err != nil || rs != nil {
		t.Errorf("Load of a missing file: %v, %v", rs, err)
	}
	if _, err := Load(t.TempDir(), input.Limits{}); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a folder: %v", err)
	}
}
