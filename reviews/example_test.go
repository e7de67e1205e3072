package reviews_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// A reviews file read, merged with a later quarter's reviews, and
// written: a new review is appended, a changed one replaces its line.
func Example() {
	kept, err := reviews.ReadAll(strings.NewReader(
		`{"conversation_id":"c1","compaction":1,"item_id":"i1","class":"constraint","system":"candidate","judge_verdict":"contradicted","verdict":"absent","source":"q1/report.xlsx"}`+"\n"),
		"reviews.jsonl", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	later := []reviews.Review{
		{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "candidate",
			JudgeVerdict: fixture.Contradicted, Verdict: fixture.Contradicted, Note: "=looked again", Source: "q2/report.xlsx"},
		{ConversationID: "c2", Compaction: 2, ItemID: "q1", Class: fixture.OpenQuestion, System: "incumbent",
			JudgeVerdict: fixture.Supported, Verdict: fixture.Supported, Source: "q2/report.xlsx"},
	}
	merged, changes := reviews.Merge(kept, later)
	fmt.Println(changes)
	w := reviews.NewWriter(os.Stdout)
	for _, r := range merged {
		if err := w.Write(r); err != nil {
			fmt.Println(err)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [replaced new]
	// {"conversation_id":"c1","compaction":1,"item_id":"i1","class":"constraint","system":"candidate","judge_verdict":"contradicted","verdict":"contradicted","note":"=looked again","source":"q2/report.xlsx"}
	// {"conversation_id":"c2","compaction":2,"item_id":"q1","class":"open_question","system":"incumbent","judge_verdict":"supported","verdict":"supported","source":"q2/report.xlsx"}
}

// A bad line is one problem naming the file, line, column and field.
func ExampleReader() {
	rd := reviews.NewReader(strings.NewReader(
		`{"conversation_id":"c1","compaction":1,"item_id":"i1","class":"constraint","system":"candidate","verdict":"unsure"}`+"\n"),
		"reviews.jsonl", 0)
	_, err := rd.Next()
	fmt.Println(err)
	// Output:
	// reviews.jsonl:1:107: verdict: "unsure" is not a reviewer's verdict (want supported, absent or contradicted)
}

// A review queue saved by Excel with German regional settings ("CSV
// UTF-8": a byte order mark, ";" between the columns, CRLF): the
// separator is found from the header row. The row with a note but no
// verdict is counted and named, not dropped.
func ExampleReadCSV() {
	text := "\ufeff" + strings.Join(reviews.QueueHeader, ";") + "\r\n" +
		"c1;1;i1;constraint;;;;verbatim;;;;;absent;;;;random;;absent;Jürgen;Größe passt, sagt er\r\n" +
		"c1;2;i1;constraint;;;;supported;;;;random;not checked;;;;;;;Jürgen;Nur Notiz\r\n"
	tab, err := reviews.ReadCSV(strings.NewReader(text), "queue.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	got, err := reviews.Collect(tab, &reviews.Check{Name: "report.yaml", Systems: [2]string{"inc", "cand"},
		Items: map[reviews.ItemKey]reviews.Known{
			{ConversationID: "c1", Compaction: 1, ItemID: "i1"}: {Class: fixture.Constraint, Judge: [2]fixture.Verdict{fixture.Verbatim, fixture.Absent}},
			{ConversationID: "c1", Compaction: 2, ItemID: "i1"}: {Class: fixture.Constraint, Judge: [2]fixture.Verdict{fixture.Supported, ""}},
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range got.Reviews {
		fmt.Printf("%s %s: %s, %q\n", r.ItemID, r.System, r.Verdict, r.Note)
	}
	fmt.Println("no verdict:", got.NoVerdict.Rows, got.NoVerdict.At)
	// Output:
	// i1 cand: absent, "Größe passt, sagt er"
	// no verdict: 1 [queue.csv:3:21]
}
