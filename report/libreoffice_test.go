package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestXLSXLibreOffice opens the workbook in a real spreadsheet program:
// LibreOffice, headless, converts every sheet of report.xlsx to CSV
// (LibreOffice 7.2 or later: sheet -1 of the CSV filter writes one
// FILE-SheetName.csv per sheet). Then:
//
//   - the Summary of the example's report (as Build makes it from
//     examples/quarterly) and of the hostile report shows the gates
//     table's numbers as a person sees them:
//     71 of 80 constraints retained, 88.75%, the candidate's 70 and
//     87.50%, 2 and 7 contradictions, prompt means 6,407 and 4,196
//     against 12,000, and task success (83.00%, 84.00%) on the last row;
//   - every string cell excelize reads back is, in LibreOffice's CSV, the
//     same text at the same place: markup, =HYPERLINK(…), +cmd|…,
//     @SUM(…), -…, tab- and CR-led text are literal text that
//     LibreOffice did not evaluate (an evaluated cell would export its
//     result, for HYPERLINK the link text "click me").
//
// It is skipped, with the reason, only when soffice is not installed
// (CI installs libreoffice-calc-nogui).
func TestXLSXLibreOffice(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		soffice, err = exec.LookPath("libreoffice")
	}
	if err != nil {
		t.Skip("skipped: soffice (LibreOffice) is not on PATH; install it with `apt-get install -y libreoffice-calc-nogui` to run this test")
	}
	dir := t.TempDir()
	write := func(name string, r *Report) (string, []byte) {
		data := writeXLSX(t, r)
		path := filepath.Join(dir, name+".xlsx")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path, data
	}
	// The example's report as Build makes it, and the hand-made report
	// full of hostile text (with the same numbers).
	built, _ := write("report", quarterlyReport(t))
	hostile, data := write("hostile", hostileReport())
	// Fields: separator ",", quote '"', UTF-8, from line 1, no column
	// formats, language 0, quote only where needed, detect special
	// numbers, contents as shown (token 9), formulas' results rather than
	// their text (token 10), keep spaces, every sheet (token 12 = -1).
	const asShown, rawValues = "44,34,76,1,,0,false,true,true,false,false,-1", "44,34,76,1,,0,false,true,false,false,false,-1"
	loCheckSummary(t, "report.xlsx", loConvertCSV(t, soffice, dir, built, "report-shown", asShown)["Summary"])
	shown := loConvertCSV(t, soffice, dir, hostile, "hostile-shown", asShown)
	raw := loConvertCSV(t, soffice, dir, hostile, "hostile-raw", rawValues)
	loCheckSummary(t, "hostile.xlsx", shown["Summary"])

	// In the raw export, the share keeps its precision (LibreOffice keeps
	// the percent sign of the format).
	for _, rec := range raw["Summary"] {
		if len(rec) > 5 && rec[0] == "constraint" {
			if rec[5] != "88.75%" && rec[5] != "0.8875" {
				t.Errorf("LibreOffice's raw constraint share is %q, want 0.8875 or 88.75%%", rec[5])
			}
			break
		}
	}

	// Every string cell is literal text in LibreOffice: same text, same
	// place, in both exports.
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := map[string]int{}
	for _, sheet := range xlsxSheets {
		cells := xlsxReadCells(t, f, sheet)
		for _, export := range []map[string][][]string{shown, raw} {
			lo := export[sheet]
			for _, row := range cells {
				for _, c := range row {
					if c.Type != "s" {
						continue
					}
					col, rowN, _ := excelize.CellNameToCoordinates(c.Ref)
					got := ""
					if rowN-1 < len(lo) {
						got = loAt(lo[rowN-1], col-1)
					}
					if got != c.Value {
						t.Errorf("%s!%s: LibreOffice has %q, want the literal text %q", sheet, c.Ref, loClip(got), loClip(c.Value))
					}
				}
			}
		}
		for _, rec := range raw[sheet] {
			for _, v := range rec {
				for name, h := range hostileStrings {
					if v == h {
						found[name]++
					}
				}
				if v == "click me" || strings.HasPrefix(v, "#NAME?") || strings.HasPrefix(v, "Err:") || v == "#VALUE!" {
					t.Errorf("%s: LibreOffice evaluated a cell: %q", sheet, v)
				}
			}
		}
	}
	for name, h := range hostileStrings {
		if found[name] == 0 {
			t.Errorf("LibreOffice's CSV has no field exactly %q (%s)", h, name)
		}
	}
	// The cut cell: 32,767 characters in LibreOffice too, with the marker.
	var long int
	for _, rec := range raw["Items"] {
		for _, v := range rec {
			if strings.HasSuffix(v, "a cell holds 32767]") {
				long++
				if n := xlsxUTF16Len(v); n != excelize.TotalCellChars {
					t.Errorf("LibreOffice's cut cell has %d characters, want %d", n, excelize.TotalCellChars)
				}
			}
		}
	}
	if long != 1 {
		t.Errorf("LibreOffice's Items has %d cut cells, want 1", long)
	}
}

// loCheckSummary checks the Summary as LibreOffice shows it: the source
// text's table and task success on the last row.
func loCheckSummary(t *testing.T, book string, summary [][]string) {
	t.Helper()
	row := func(label string) []string {
		t.Helper()
		for _, rec := range summary {
			if len(rec) > 0 && rec[0] == label {
				return rec
			}
		}
		t.Fatalf("%s: LibreOffice's Summary has no row %q:\n%s", book, label, loCSVText(summary))
		return nil
	}
	for _, c := range []struct {
		label string
		col   int
		want  string
	}{
		{"constraint", 2, "95.00%"},
		{"constraint", 3, "71"},
		{"constraint", 4, "80"},
		{"constraint", 5, "88.75%"},
		{"constraint", 8, "fail"},
		{"constraint", 9, "70"},
		{"constraint", 11, "87.50%"},
		{"commitment", 3, "44"},
		{"commitment", 4, "51"},
		{"commitment", 5, "86.27%"},
		{"open_question", 3, "96"},
		{"open_question", 4, "103"},
		{"open_question", 9, "88"},
		{"open_question", 15, "worse"},
		{"reference", 3, "58"},
		{"reference", 4, "61"},
		{"contradictions", 3, "2"},
		{"contradictions", 9, "7"},
		{"prompt size", 2, "12,000"},
		{"prompt size", 3, "6,407"},
		{"prompt size", 9, "4,196"},
		{"reported, never gated", 1, "200"},
		{"reported, never gated", 3, "83.00%"},
		{"reported, never gated", 4, "84.00%"},
		{"reported, never gated", 5, "1.00%"},
	} {
		if rec := row(c.label); len(rec) <= c.col || rec[c.col] != c.want {
			t.Errorf("%s: LibreOffice shows Summary row %q column %d as %q, want %q (row %q)", book, c.label, c.col+1, loAt(rec, c.col), c.want, rec)
		}
	}
	// Task success is the last row LibreOffice sees.
	last := summary[len(summary)-1]
	for len(last) > 0 && last[len(last)-1] == "" {
		last = last[:len(last)-1]
	}
	if len(last) == 0 || last[0] != "reported, never gated" {
		t.Errorf("%s: LibreOffice's last Summary row is %q, want task success", book, last)
	}
}

// loConvertCSV converts book to one CSV per sheet with LibreOffice's CSV
// filter options opts, in a folder of its own, and reads them.
func loConvertCSV(t *testing.T, soffice, dir, book, name, opts string) map[string][][]string {
	t.Helper()
	out := filepath.Join(dir, name)
	// A profile of its own, so a LibreOffice already running (or another
	// test) does not swallow the conversion.
	profile := "file://" + filepath.ToSlash(filepath.Join(dir, "profile-"+name))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, soffice, "-env:UserInstallation="+profile, "--headless", "--norestore",
		"--convert-to", `csv:Text - txt - csv (StarCalc):`+opts, "--outdir", out, book)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("soffice --convert-to csv: %v\n%s", err, msg)
	}
	base := strings.TrimSuffix(filepath.Base(book), ".xlsx")
	sheets := map[string][][]string{}
	for _, sheet := range xlsxSheets {
		path := filepath.Join(out, base+"-"+sheet+".csv")
		data, err := os.ReadFile(path)
		if err != nil {
			entries, _ := os.ReadDir(out)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("LibreOffice wrote no %s (it wrote %q; one CSV per sheet needs LibreOffice 7.2 or later):\n%s",
				filepath.Base(path), names, msg)
		}
		cr := csv.NewReader(bytes.NewReader(data))
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = false
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sheets[sheet] = recs
	}
	return sheets
}

func loAt(rec []string, i int) string {
	if i < len(rec) {
		return rec[i]
	}
	return ""
}

func loClip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func loCSVText(recs [][]string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.WriteAll(recs)
	return b.String()
}
