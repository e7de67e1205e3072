package reviews

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// queueRows are three rows out of order, with text a spreadsheet would
// take for formulas.
var queueRows = []QueueRow{
	{ConversationID: "c2", Compaction: 1, ItemID: "q", Class: fixture.OpenQuestion, Literal: "=HYPERLINK(\"x\")", Probe: "-1?", Expect: "@x",
		Judge: [2]fixture.Verdict{fixture.Contradicted, fixture.Supported}, Answer: [2]string{"+2", "fine, \"quoted\""}, Reason: [2]string{"\tsaid no", ""},
		Context: [2]string{"ctx/inc/c2/1.json", ""}, Sample: [2]string{SampleCensus, ""}},
	{ConversationID: "c1", Compaction: 2, ItemID: "i1", Class: fixture.Constraint, Literal: "lit", Probe: "probe", Expect: "exp",
		Judge: [2]fixture.Verdict{fixture.Supported, ""}, Sample: [2]string{SampleRandom, ""}},
	{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, Literal: "lit", Probe: "probe", Expect: "exp",
		Judge: [2]fixture.Verdict{fixture.Verbatim, fixture.Absent}, Sample: [2]string{"", SampleRandom}},
}

// TestWriteQueue pins the queue's bytes, written out by hand: a UTF-8
// byte order mark (without one Excel on Windows reads a CSV in the
// system's code page), the header,
// the rows sorted by conversation, compaction and item, "not checked" for
// a system without a record, every formula-like cell (=, +, -, @, tab)
// behind a ', CSV quoting for commas, quotes and the tab.
func TestWriteQueue(t *testing.T) {
	var b bytes.Buffer
	if err := WriteQueue(&b, queueRows); err != nil {
		t.Fatal(err)
	}
	want := "\ufeffConversation,Compaction,Item,Class,Literal,Probe,Expect," +
		"Incumbent verdict,Incumbent answer,Incumbent reason,Incumbent context,Incumbent: sample," +
		"Candidate verdict,Candidate answer,Candidate reason,Candidate context,Candidate: sample," +
		"Incumbent: reviewer's verdict,Candidate: reviewer's verdict,Reviewer,Note\n" +
		"c1,1,i1,constraint,lit,probe,exp,verbatim,,,,,absent,,,,random,,,,\n" +
		"c1,2,i1,constraint,lit,probe,exp,supported,,,,random,not checked,,,,,,,,\n" +
		"c2,1,q,open_question,\"'=HYPERLINK(\"\"x\"\")\",'-1?,'@x,contradicted,'+2,'\tsaid no,ctx/inc/c2/1.json,census," +
		"supported,\"fine, \"\"quoted\"\"\",,,,,,,\n"
	if b.String() != want {
		t.Errorf("queue:\n%s\nwant:\n%s", b.String(), want)
	}
	// The rows given are not reordered.
	if queueRows[0].ConversationID != "c2" {
		t.Error("WriteQueue sorted its argument")
	}
}

// TestWriteQueueInvalid: each invalid row is an error naming it, and
// nothing is written (WriteQueueFile leaves the file as it was).
func TestWriteQueueInvalid(t *testing.T) {
	ok := queueRows[1]
	for _, tc := range []struct {
		name string
		edit func(q *QueueRow)
		want string
	}{
		{"unknown sample", func(q *QueueRow) { q.Sample[1] = "often" },
			`review queue: conversation "c1" compaction 2 item "i1": "often" is not how a review queue draws (want census or random, or leave it empty)`},
		{"drawn for neither", func(q *QueueRow) { q.Sample = [2]string{} },
			`review queue: conversation "c1" compaction 2 item "i1": drawn for neither system`},
		{"compaction 0", func(q *QueueRow) { q.Compaction = 0 },
			`review queue: conversation "c1" compaction 0 item "i1": compaction 0: compactions are numbered from 1`},
		{"bad class", func(q *QueueRow) { q.Class = "rule" },
			`review queue: conversation "c1" compaction 2 item "i1": "rule" is not a class (want constraint, commitment, open_question or reference)`},
		{"bad judge verdict", func(q *QueueRow) { q.Judge[0] = "maybe" },
			`review queue: conversation "c1" compaction 2 item "i1": "maybe" is not a judge's verdict`},
		{"no item", func(q *QueueRow) { q.ItemID = " " },
			`review queue: conversation "c1" compaction 2 item " ": no conversation or item`},
		{"a second row", func(q *QueueRow) { q.Sample = [2]string{"", SampleCensus} },
			`review queue: conversation "c1" compaction 2 item "i1": two rows of one item-compaction`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ok
			tc.edit(&q)
			rows := []QueueRow{q}
			if tc.name == "a second row" {
				rows = append(rows, ok)
			}
			path := filepath.Join(t.TempDir(), "queue.csv")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteQueueFile(path, rows)
			if err == nil || err.Error() != "writing "+path+": "+tc.want {
				t.Errorf("error %v\nwant writing %s: %s", err, path, tc.want)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Errorf("file now %q", b)
			}
		})
	}
}

// queueCheck is the report the queue rows are from.
var queueCheck = &Check{Name: "report.yaml", Systems: [2]string{"inc", "cand"}, Items: map[ItemKey]Known{
	{"c1", 1, "i1"}: {Class: fixture.Constraint, Item: "fp1", Judge: [2]fixture.Verdict{fixture.Verbatim, fixture.Absent}},
	{"c1", 2, "i1"}: {Class: fixture.Constraint, Item: "fp1", Judge: [2]fixture.Verdict{fixture.Supported, ""}},
	{"c2", 1, "q"}:  {Class: fixture.OpenQuestion, Item: "fp2", Judge: [2]fixture.Verdict{fixture.Contradicted, fixture.Supported}},
}}

// fillQueue sets the reviewer's columns of the queue's data lines: by
// line (2 = the first row), the incumbent's and candidate's verdicts,
// the reviewer and the note.
func fillQueue(t *testing.T, queue []byte, fills map[int][4]string) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(queue, []byte(jsonscan.BOM)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := len(QueueHeader)
	for line, f := range fills {
		copy(recs[line-1][n-4:], f[:])
	}
	return string(csvBytes(t, recs))
}

// TestQueueRoundTrip: a queue written, filled by a reviewer and read back
// gives each review its system's sample ("" for a system the row was not
// drawn for, reviewed all the same), the judge's verdicts checked.
func TestQueueRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteQueue(&b, queueRows); err != nil {
		t.Fatal(err)
	}
	filled := fillQueue(t, b.Bytes(), map[int][4]string{
		2: {"", "absent", "ana", `=HYPERLINK("x")`}, // c1 1 i1: candidate, random
		3: {"supported", "", "bo", ""},              // c1 2 i1: incumbent, random
		4: {"absent", "supported", "cy", "both"},    // c2 1 q: incumbent census, candidate not drawn
	})
	tab, err := ReadCSV(strings.NewReader(filled), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(tab, queueCheck)
	if err != nil {
		t.Fatal(err)
	}
	want := []Review{
		{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "cand", Item: "fp1", JudgeVerdict: fixture.Absent,
			Verdict: fixture.Absent, Reviewer: "ana", Note: `=HYPERLINK("x")`, Source: "q.csv", Sample: SampleRandom},
		{ConversationID: "c1", Compaction: 2, ItemID: "i1", Class: fixture.Constraint, System: "inc", Item: "fp1", JudgeVerdict: fixture.Supported,
			Verdict: fixture.Supported, Reviewer: "bo", Source: "q.csv", Sample: SampleRandom},
		{ConversationID: "c2", Compaction: 1, ItemID: "q", Class: fixture.OpenQuestion, System: "inc", Item: "fp2", JudgeVerdict: fixture.Contradicted,
			Verdict: fixture.Absent, Reviewer: "cy", Note: "both", Source: "q.csv", Sample: SampleCensus},
		{ConversationID: "c2", Compaction: 1, ItemID: "q", Class: fixture.OpenQuestion, System: "cand", Item: "fp2", JudgeVerdict: fixture.Supported,
			Verdict: fixture.Supported, Reviewer: "cy", Note: "both", Source: "q.csv"},
	}
	if len(got.Reviews) != len(want) {
		t.Fatalf("reviews %+v", got.Reviews)
	}
	for i := range want {
		if got.Reviews[i] != want[i] {
			t.Errorf("review %d:\n%+v\nwant\n%+v", i, got.Reviews[i], want[i])
		}
	}
}

// TestCollectSampleProblems pins the problem of an unknown sample value,
// at the column counted by hand (Incumbent: sample is column 12,
// Candidate: sample 17), whether or not that system was reviewed; case
// and spaces aside a known value is read.
func TestCollectSampleProblems(t *testing.T) {
	recs := queueRecords(t)
	recs[1][16] = " Random " // c1 1 i1, candidate: known, case aside
	recs[2][11] = "sometimes"
	recs[3][16] = "=census"
	out := csvBytes(t, recs)
	filled := fillQueue(t, out, map[int][4]string{2: {"", "absent"}, 3: {"supported", "", "bo"}, 4: {"absent"}})
	tab, err := ReadCSV(strings.NewReader(filled), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Collect(tab, queueCheck)
	want := `q.csv:3:12: Incumbent: sample: "sometimes" is not how a review queue draws (want census or random, or leave it empty)` + "\n" +
		`q.csv:4:17: Candidate: sample: "=census" is not how a review queue draws (want census or random, or leave it empty)`
	if err == nil || err.Error() != want {
		t.Errorf("problems:\n%v\nwant:\n%s", err, want)
	}
	// Line 2 alone reads, its sample case-folded.
	recs[2][11], recs[3][16] = SampleRandom, ""
	out = csvBytes(t, recs)
	tab, err = ReadCSV(strings.NewReader(fillQueue(t, out, map[int][4]string{2: {"", "absent"}})), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(tab, queueCheck)
	if err != nil || len(got.Reviews) != 1 || got.Reviews[0].Sample != SampleRandom {
		t.Errorf("reviews %+v, %v", got, err)
	}
}

// TestCollectSampleMismatch: a sample mark that does not fit the judge's
// verdict — census on a supported item, random on a contradicted one —
// was edited, and is a problem at its cell (Incumbent: sample, column 12).
func TestCollectSampleMismatch(t *testing.T) {
	recs := queueRecords(t)
	recs[2][11] = SampleCensus // c1 2 i1: the judge said supported
	recs[3][11] = SampleRandom // c2 1 q: the judge said contradicted
	out := csvBytes(t, recs)
	tab, err := ReadCSV(strings.NewReader(fillQueue(t, out, map[int][4]string{3: {"supported"}, 4: {"absent"}})), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Collect(tab, queueCheck)
	want := `q.csv:3:12: Incumbent: sample: "census" does not fit the judge's verdict supported: a review queue draws the contradictions as its census and the other verdicts at random (was the cell edited?)` + "\n" +
		`q.csv:4:12: Incumbent: sample: "random" does not fit the judge's verdict contradicted: a review queue draws the contradictions as its census and the other verdicts at random (was the cell edited?)`
	if err == nil || err.Error() != want {
		t.Errorf("problems:\n%v\nwant:\n%s", err, want)
	}
}

// queueRecords is the records of the queue of queueRows, as written.
func queueRecords(t *testing.T) [][]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteQueue(&b, queueRows); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte(jsonscan.BOM)) {
		t.Errorf("the queue does not start with a UTF-8 byte order mark (Excel on Windows needs it)")
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b.Bytes(), []byte(jsonscan.BOM)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// csvBytes writes recs as CSV.
func csvBytes(t *testing.T, recs [][]string) []byte {
	t.Helper()
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
