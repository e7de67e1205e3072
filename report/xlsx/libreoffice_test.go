package xlsx

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

// TestLibreOffice opens the workbook in a real spreadsheet program:
// LibreOffice, headless, converts every sheet of report.xlsx to CSV
// (LibreOffice 7.2 or later: sheet -1 of the CSV filter writes one
// FILE-SheetName.csv per sheet). Then:
//
//   - the Summary of the example's report (as Build makes it from
//     examples/quarterly) and of the hostile report shows the gates
//     table's numbers as a person sees them:
//     71 of 80 constraints retained, 88.75%, the candidate's 70 and
//     87.50%, 2 and 7 contradictions, prompt means 6,322 and 4,331 (the hostile report: 6,407 and 4,196)
//     against 12,000, and task success (83.00%, 84.00%) on the last row;
//   - every string cell excelize reads back is, in LibreOffice's CSV, the
//     same text at the same place: markup, =HYPERLINK(…), +cmd|…,
//     @SUM(…), -…, tab- and CR-led text are literal text that
//     LibreOffice did not evaluate (an evaluated cell would export its
//     result, for HYPERLINK the link text "click me").
//
// It is skipped, with the reason, only when soffice is not installed
// (CI installs libreoffice-calc-nogui).
func TestLibreOffice(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		soffice, err = exec.LookPath("libreoffice")
	}
	if err != nil {
		t.Skip("skipped: soffice (LibreOffice) is not on PATH; install it with `apt-get install -y libreoffice-calc-nogui` to run this test")
	}
	dir := t.TempDir()
	write := func(name string, r *report.Report) (string, []byte) {
		data := writeBook(t, r)
		path := filepath.Join(dir, name+".xlsx")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path, data
	}
	// The example's report as Build makes it, and the hand-made report
	// full of hostile text (with the same numbers).
	quarterly, hostileReport := sample.Quarterly(t), sample.Hostile()
	built, _ := write("report", quarterly)
	hostile, data := write("hostile", hostileReport)
	// Fields: separator ",", quote '"', UTF-8, from line 1, no column
	// formats, language 0, quote only where needed, detect special
	// numbers, contents as shown (token 9), formulas' results rather than
	// their text (token 10), keep spaces, every sheet (token 12 = -1).
	const asShown, rawValues = "44,34,76,1,,0,false,true,true,false,false,-1", "44,34,76,1,,0,false,true,false,false,false,-1"
	loCheckSummary(t, "report.xlsx", loConvertCSV(t, soffice, dir, built, "report-shown", asShown)["Summary"], promptMeans(quarterly), quarterly.Classes[2].ChangeText())
	shown := loConvertCSV(t, soffice, dir, hostile, "hostile-shown", asShown)
	raw := loConvertCSV(t, soffice, dir, hostile, "hostile-raw", rawValues)
	loCheckSummary(t, "hostile.xlsx", shown["Summary"], promptMeans(hostileReport), hostileReport.Classes[2].ChangeText())

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
	for _, sheet := range sheetNames {
		cells := readCells(t, f, sheet)
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
				for name, h := range sample.HostileStrings {
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
	for name, h := range sample.HostileStrings {
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
				if n := utf16Len(v); n != excelize.TotalCellChars {
					t.Errorf("LibreOffice's cut cell has %d characters, want %d", n, excelize.TotalCellChars)
				}
			}
		}
	}
	if long != 1 {
		t.Errorf("LibreOffice's Items has %d cut cells, want 1", long)
	}
}

// promptMeans is how a spreadsheet shows r's mean prompt sizes,
// incumbent and candidate: rounded, with a thousands separator. (The
// hostile report keeps the example's figures of an earlier generation;
// the prompt sizes are the only ones that changed since.)
func promptMeans(r *report.Report) [2]string {
	show := func(x float64) string {
		s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	return [2]string{show(r.Prompt.Incumbent.Mean), show(r.Prompt.Candidate.Mean)}
}

// loCheckSummary checks the Summary as LibreOffice shows it: the source
// text's table, the mean prompt sizes given, and task success on the last
// row.
func loCheckSummary(t *testing.T, book string, summary [][]string, prompt [2]string, openQuestion string) {
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
		{"open_question", 15, openQuestion},
		{"reference", 3, "58"},
		{"reference", 4, "61"},
		{"contradictions", 3, "2"},
		{"contradictions", 9, "7"},
		{"prompt size", 2, "12,000"},
		{"prompt size", 3, prompt[0]},
		{"prompt size", 9, prompt[1]},
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
	for _, sheet := range sheetNames {
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

// TestLibreOfficePDF prints the Summary as a stakeholder would:
// LibreOffice, headless, exports a workbook holding only the example's
// Summary (as Build makes it from examples/quarterly) to PDF, and the
// test reads the PDF's pages (their count and /MediaBox; pdfinfo is not
// needed). Three versions of the sheet:
//
//   - the Summary as written: every page landscape (wider than tall);
//   - its gates table alone (the rows below hidden, the chart removed),
//     whose height is a fraction of a page, so that its page count is
//     the number of pages across: one, as fitToWidth=1 asks;
//   - the same without the print setup (portrait, no fit to page): more
//     than one page across, so the check above can fail.
//
// Skipped, with the reason, when soffice is not installed.
func TestLibreOfficePDF(t *testing.T) {
	soffice := loSoffice(t)
	dir := t.TempDir()
	data := writeBook(t, sample.Quarterly(t))
	variants := []struct {
		name string
		edit func(*excelize.File) error
	}{
		{"summary", func(*excelize.File) error { return nil }},
		{"gates", loGatesOnly},
		{"gates-unfitted", func(f *excelize.File) error {
			if err := loGatesOnly(f); err != nil {
				return err
			}
			fit, portrait := false, "portrait"
			if err := f.SetSheetProps(sheetSummary, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
				return err
			}
			return f.SetPageLayout(sheetSummary, &excelize.PageLayoutOptions{Orientation: &portrait})
		}},
	}
	var books []string
	for _, v := range variants {
		f, err := excelize.OpenReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, sheet := range f.GetSheetList()[1:] {
			if err := f.DeleteSheet(sheet); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.edit(f); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		path := filepath.Join(dir, v.name+".xlsx")
		if err := f.SaveAs(path); err != nil {
			t.Fatal(err)
		}
		f.Close()
		books = append(books, path)
	}
	out := filepath.Join(dir, "pdf")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"-env:UserInstallation=file://" + filepath.ToSlash(filepath.Join(dir, "profile")), "--headless", "--norestore",
		"--convert-to", "pdf", "--outdir", out}, books...)
	cmd := exec.CommandContext(ctx, soffice, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice --convert-to pdf: %v\n%s", err, msg)
	}
	pages := map[string][]loPage{}
	for _, v := range variants {
		pdf, err := os.ReadFile(filepath.Join(out, v.name+".pdf"))
		if err != nil {
			t.Fatalf("LibreOffice wrote no PDF for %s: %v", v.name, err)
		}
		pages[v.name] = loPDFPages(pdf)
		t.Logf("%s: %d pages, %v", v.name, len(pages[v.name]), pages[v.name])
	}
	summary := pages["summary"]
	if len(summary) == 0 || len(summary) > 3 {
		t.Errorf("the Summary prints on %d pages, want 1 to 3 (one page wide)", len(summary))
	}
	for i, p := range summary {
		if p.W <= p.H {
			t.Errorf("Summary page %d is %v×%v points: portrait, want landscape", i+1, p.W, p.H)
		}
	}
	if n := len(pages["gates"]); n != 1 {
		t.Errorf("the gates table prints %d pages across, want 1 (fitToWidth=1)", n)
	}
	if n := len(pages["gates-unfitted"]); n < 2 {
		t.Errorf("without the print setup the gates table prints %d pages across, want more than 1: the check cannot tell", n)
	}
}

// loSoffice returns the path of LibreOffice's soffice, or skips the
// test, saying why.
func loSoffice(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipped: soffice (LibreOffice) is not on PATH; install it with `apt-get install -y libreoffice-calc-nogui` to run this test")
	return ""
}

// loGatesOnly leaves the Summary's title and gates table (rows 1 to 12)
// to print: the rows below are hidden and the chart is removed.
func loGatesOnly(f *excelize.File) error {
	rows, err := f.GetRows(sheetSummary)
	if err != nil {
		return err
	}
	for r := 13; r <= len(rows); r++ {
		if err := f.SetRowVisible(sheetSummary, r, false); err != nil {
			return err
		}
	}
	// The chart is anchored in column A below the verdict; DeleteChart
	// succeeds, deleting nothing, at a cell with no chart.
	for r := 13; r <= len(rows)+chartRows; r++ {
		cell, _ := excelize.CoordinatesToCellName(1, r)
		if err := f.DeleteChart(sheetSummary, cell); err != nil {
			return err
		}
	}
	return nil
}

// loPage is one PDF page's size in points.
type loPage struct{ W, H float64 }

// loPDFPages reads the pages of a PDF as LibreOffice writes it (page
// objects in the clear): each /Type/Page dictionary's /MediaBox, or the
// page tree's when the page has none.
func loPDFPages(pdf []byte) []loPage {
	box := regexp.MustCompile(`/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]`)
	size := func(b []byte) (loPage, bool) {
		m := box.FindSubmatch(b)
		if m == nil {
			return loPage{}, false
		}
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
		}
		return loPage{W: v[2] - v[0], H: v[3] - v[1]}, true
	}
	var tree loPage
	if i := regexp.MustCompile(`/Type\s*/Pages\b`).FindIndex(pdf); i != nil {
		end := bytes.Index(pdf[i[0]:], []byte(">>"))
		if end > 0 {
			tree, _ = size(pdf[i[0] : i[0]+end])
		}
	}
	var pages []loPage
	for _, i := range regexp.MustCompile(`/Type\s*/Page\b[^s]`).FindAllIndex(pdf, -1) {
		end := bytes.Index(pdf[i[0]:], []byte("endobj"))
		if end < 0 {
			end = len(pdf) - i[0]
		}
		p, ok := size(pdf[i[0] : i[0]+end])
		if !ok {
			p = tree
		}
		pages = append(pages, p)
	}
	return pages
}
