package reviews

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/internal/input"
)

// writeBook writes a workbook of the sheets given, in order, each its
// rows from A1, every cell a string, and returns its path.
func writeBook(t *testing.T, sheets []string, rows map[string][][]string) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, rec := range rows[name] {
			for c, v := range rec {
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if err := f.SetCellStr(name, ref, v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "book.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadSheetQueueWorkbook: a review queue opened in LibreOffice Calc
// and saved as .xlsx has one sheet, named after the file, with the
// headers on row 1. It reads as the queue's CSV does, its rows named by
// their real cells, and (naming no report) is not checked for a
// configuration's SHA-256. Found by a trial: `no sheet "Items"`, then,
// with the sheet renamed, `Items!A2: no column "Conversation"` for a
// header on row 1.
func TestReadSheetQueueWorkbook(t *testing.T) {
	rows := append([][]string{}, filledQueue...)
	rows = append(rows, queueRecord(map[string]string{HeaderConversation: "c1", HeaderCompaction: "2", HeaderItem: "i1", HeaderClass: "constraint",
		HeaderIncumbentVerdict: "supported", HeaderCandidateVerdict: "not checked", HeaderNote: "Nur Notiz, kein Urteil"}))
	chk := *csvCheck
	chk.ConfigSHA256 = "0123"
	for _, name := range []string{"queue", ItemsSheet} {
		path := writeBook(t, []string{name}, map[string][][]string{name: rows})
		tab, err := ReadSheet(path, input.Limits{})
		if err != nil {
			t.Fatalf("sheet %q: %v", name, err)
		}
		if tab.Sheet != name || len(tab.Rows) != 2 || tab.Rows[0].Line != 2 {
			t.Fatalf("sheet %q: %+v", name, tab)
		}
		got, err := Collect(tab, &chk)
		if err != nil {
			t.Fatalf("sheet %q: %v", name, err)
		}
		if len(got.Reviews) != 2 || got.Reviews[0].Sample != SampleRandom || got.Reviews[0].Note != "Semikolon; Komma, \"Zitat\"\nZeile 2" {
			t.Errorf("sheet %q: %+v", name, got.Reviews)
		}
		if want := path + ": " + name + "!U4"; got.NoVerdict.Rows != 1 || len(got.NoVerdict.At) != 1 || got.NoVerdict.At[0] != want {
			t.Errorf("sheet %q: no verdict %+v, want %s", name, got.NoVerdict, want)
		}
		// Without a check it names no systems: as a CSV, it needs one.
		if _, err := Collect(tab, nil); err == nil || !strings.Contains(err.Error(), "a review queue does not name the systems") {
			t.Errorf("sheet %q without a check: %v", name, err)
		}
	}
}

// TestReadSheetHeaderRow: the header row is found among the first rows,
// below empty rows and the Items sheet's row of column groups; a sheet
// without it is one problem naming the row that should have been it; a
// workbook of several sheets, none of them Items, names its sheets.
func TestReadSheetHeaderRow(t *testing.T) {
	group := make([]string, len(QueueHeader))
	group[0], group[7], group[12], group[17] = GroupItem, "inc", "cand", GroupReview
	ok := []struct {
		reason string
		rows   [][]string
		first  int // the first reviewed row
	}{
		{"headers on row 1 (a saved queue)", filledQueue, 2},
		{"below the column groups (the report's Items sheet)", append([][]string{group}, filledQueue...), 3},
		{"below an empty row and the groups", append([][]string{{""}, group}, filledQueue...), 4},
	}
	for _, c := range ok {
		tab, err := ReadSheet(writeBook(t, []string{"S"}, map[string][][]string{"S": c.rows}), input.Limits{})
		if err != nil || len(tab.Rows) != 2 || tab.Rows[0].Line != c.first {
			t.Errorf("%s: %v %+v", c.reason, err, tab)
		}
	}
	wrong := []string{"Conversation", "Compaction", "Item", "Class", "Review"}
	bad := []struct {
		reason string
		rows   [][]string
		want   string
	}{
		{"a wrong header on row 1", [][]string{wrong}, `: S!A1: no column "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row: want the reviewer's columns as tally report writes them`},
		{"a wrong header below the groups", [][]string{group, wrong}, `: S!A2: no column "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row: want the reviewer's columns as tally report writes them`},
		{"an empty sheet", nil, `: S!A1: no header row: want the reviewer's columns as tally report writes them`},
	}
	for _, c := range bad {
		path := writeBook(t, []string{"S"}, map[string][][]string{"S": c.rows})
		if _, err := ReadSheet(path, input.Limits{}); err == nil || err.Error() != path+c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.reason, err, path+c.want)
		}
	}
	path := writeBook(t, []string{"Notes", "queue"}, map[string][][]string{"queue": filledQueue})
	want := `reading reviews: ` + path + `: no sheet "Items" among its 2 sheets ("Notes", "queue"): want a report workbook, whose Items sheet has the reviewer's columns, or a workbook of one sheet (a review queue saved as .xlsx)`
	if _, err := ReadSheet(path, input.Limits{}); err == nil || err.Error() != want {
		t.Errorf("two sheets:\n got %v\nwant %s", err, want)
	}
}
