package reviews

import (
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// csvHeader is the Items sheet's header row as a CSV line.
const csvHeader = "Conversation,Compaction,Item,Class,Literal,Probe,Expect,Incumbent verdict,Incumbent answer,Incumbent reason,Incumbent judge," +
	"Candidate verdict,Candidate answer,Candidate reason,Candidate judge,Changed,Incumbent: reviewer's verdict,Candidate: reviewer's verdict,Reviewer,Note\n"

var csvCheck = &Check{Name: "report.yaml", Systems: [2]string{"inc", "cand"}, Items: map[ItemKey]Known{
	{"c1", 1, "i1"}: {Class: fixture.Constraint, Item: "fp1", Judge: [2]fixture.Verdict{fixture.Verbatim, fixture.Absent}},
	{"c1", 2, "i1"}: {Class: fixture.Constraint, Item: "fp1", Judge: [2]fixture.Verdict{fixture.Supported, ""}},
	{"c2", 1, "q"}:  {Class: fixture.OpenQuestion, Item: "fp2", Judge: [2]fixture.Verdict{fixture.Contradicted, fixture.Supported}},
}}

func TestCollectCSV(t *testing.T) {
	text := "\ufeff" + csvHeader +
		"c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,Supported , absent,'=cmd,\"'+1 \"\"quoted, with comma\"\"\"\n" +
		"c1,2,i1,constraint,,,,supported,,,,not checked,,,,FALSE,unsure,,,\n" +
		"c2,1,q,open_question,,,,contradicted,,,,supported,,,,TRUE,,contradicted,bo,\"two\nlines\"\n" +
		"c2,1,z,open_question,,,,,,,,,,,,,,,,\n" // not reviewed: not read
	tab, err := ReadCSV(strings.NewReader(text), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(tab, csvCheck)
	if err != nil {
		t.Fatal(err)
	}
	want := []Review{
		{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "inc", Item: "fp1", JudgeVerdict: fixture.Verbatim,
			Verdict: fixture.Supported, Reviewer: "=cmd", Note: `+1 "quoted, with comma"`, Source: "r.csv"},
		{ConversationID: "c1", Compaction: 1, ItemID: "i1", Class: fixture.Constraint, System: "cand", Item: "fp1", JudgeVerdict: fixture.Absent,
			Verdict: fixture.Absent, Reviewer: "=cmd", Note: `+1 "quoted, with comma"`, Source: "r.csv"},
		{ConversationID: "c2", Compaction: 1, ItemID: "q", Class: fixture.OpenQuestion, System: "cand", Item: "fp2", JudgeVerdict: fixture.Supported,
			Verdict: fixture.Contradicted, Reviewer: "bo", Note: "two\nlines", Source: "r.csv"},
	}
	if len(got.Reviews) != len(want) {
		t.Fatalf("reviews %+v", got.Reviews)
	}
	for i := range want {
		if got.Reviews[i] != want[i] {
			t.Errorf("review %d:\n%+v\nwant\n%+v", i, got.Reviews[i], want[i])
		}
	}
	if len(got.Unsure) != 1 || got.Unsure[0].System != "inc" || got.Unsure[0].Compaction != 2 || got.Rows != 3 || got.Scanned != 4 {
		t.Errorf("unsure %+v, rows %d, scanned %d", got.Unsure, got.Rows, got.Scanned)
	}
	// Without a check a CSV names no systems.
	if _, err := Collect(tab, nil); err == nil || err.Error() != "reading reviews: r.csv: a CSV does not name the systems: give the report's configuration (--config) to name them" {
		t.Errorf("without a check: %v", err)
	}
}

// TestCollectProblems pins each problem, on CSV lines counted by hand.
func TestCollectProblems(t *testing.T) {
	text := csvHeader +
		"c1,1,i1,rule,,,,verbatim,,,,absent,,,,TRUE,supported,,,\n" + // line 2: bad class (col 4)
		"c1,x,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,,,\n" + // line 3: bad compaction (col 2)
		"c9,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,,,\n" + // line 4: no such conversation
		"c1,3,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,,,\n" + // line 5: no such compaction
		"c1,1,i1,commitment,,,,verbatim,,,,absent,,,,TRUE,,nope,,\n" + // line 6: edited class, bad word (col 18)
		"c1,1,i1,constraint,,,,absent,,,,absent,,,,TRUE,supported,,,\n" + // line 7: edited judge verdict (col 8)
		"c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,supported,,,\n" + // line 8: the key of line 7 again
		"c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,absent,,,\n" // line 9: and again
	tab, err := ReadCSV(strings.NewReader(text), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Collect(tab, csvCheck)
	want := []string{
		`r.csv:2:4: Class: "rule" is not a class (want constraint, commitment, open_question or reference)`,
		`r.csv:3:2: Compaction: "x" is not a compaction (a whole number from 1)`,
		`r.csv:4:1: Conversation: "c9" is no conversation of report.yaml: the row matches no item-compaction (was the key cell edited?)`,
		`r.csv:5:2: Compaction: conversation "c1" has no compaction 3 in report.yaml: the row matches no item-compaction (was the key cell edited?)`,
		`r.csv:6:4: Class: "commitment" was edited: item "i1" of conversation "c1" is of class constraint in report.yaml's fixtures`,
		`r.csv:6:18: Candidate: reviewer's verdict: "nope" is not supported, absent, contradicted or unsure`,
		`r.csv:7:8: Incumbent verdict: "absent" was edited: the report's judge verdict is "verbatim"`,
		`r.csv:8:1: Conversation: a second row for conversation "c1" compaction 1 item "i1" (first at line 7): review each item-compaction on one row`,
		`r.csv:9:1: Conversation: a second row for conversation "c1" compaction 1 item "i1" (first at line 7): review each item-compaction on one row`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("problems:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	// A table without the reviewer's columns names the header row.
	_, err = ReadCSV(strings.NewReader("Conversation,Compaction,Item,Class,Review\n"), "old.csv")
	if err == nil || err.Error() != `old.csv:1:1: no column "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row (read with "," between the columns; tried ",", ";" and tab): want the reviewer's columns as tally report writes them` {
		t.Errorf("old header: %v", err)
	}
}

// TestReadCSVNotUTF8: a CSV saved in a Windows code page (Excel's plain
// "CSV" on a German Windows: "ö" is the byte 0xF6 of Windows-1252) is
// one problem naming the cell and the encoding, not a key that matches
// no item (a new user's trial).
func TestReadCSVNotUTF8(t *testing.T) {
	data := csvHeader + "de-j\xf6rg-01,1,c1,constraint,,,,verbatim,,,,absent,,,,TRUE,,,,\r\n"
	_, err := ReadCSV(strings.NewReader(data), "r.csv")
	want := `r.csv:2:1: Conversation: byte 0xF6 is not UTF-8: the file was saved in another encoding (Excel's plain "CSV" on Windows uses the system's code page); save it as "CSV UTF-8"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestReadCSVGroupRow: the Items sheet saved as CSV keeps its first row,
// the column groups, above the headers; it is read past (a new user's
// trial: "no column "Conversation" … in the header row").
func TestReadCSVGroupRow(t *testing.T) {
	group := "Item,,,,,,,inc,,,,cand,,,,,Review,,,\n"
	text := group + csvHeader + "c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,Supported , absent,bo,\n"
	tab, err := ReadCSV(strings.NewReader(text), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 1 || tab.Rows[0].Line != 3 {
		t.Errorf("rows %+v, want one, on line 3", tab.Rows)
	}
	// A first row that is neither is still the error it was.
	_, err = ReadCSV(strings.NewReader("a,b,c,d,e,f,g\n"+csvHeader), "r.csv")
	if err == nil || !strings.Contains(err.Error(), "r.csv:1:1: no column") {
		t.Errorf("a wrong header row: %v", err)
	}
}
