package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

// sheetXML returns each worksheet's XML by sheet name, read from
// the zip as Excel reads it (xl/worksheets/sheetN.xml, N in sheet
// order: Write makes the sheets in order).
func sheetXML(t testing.TB, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, name := range sheetNames {
		rc, err := zr.Open(fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(data)
	}
	return out
}

// TestColsAscending parses every worksheet's XML: its <col> elements
// are in ascending order and do not overlap, as the schema requires
// (Excel reports a damaged file and repairs it otherwise). Streamed
// sheets used to list them from the last column to the first.
func TestColsAscending(t *testing.T) {
	for name, r := range map[string]*report.Report{"sample": sample.Report(), "hostile": sample.Hostile(), "empty": {}, "minimal": sample.Minimal()} {
		for sheet, doc := range sheetXML(t, writeBook(t, r)) {
			d := xml.NewDecoder(strings.NewReader(doc))
			prevMax, n := 0, 0
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s %s: %v", name, sheet, err)
				}
				se, ok := tok.(xml.StartElement)
				if !ok || se.Name.Local != "col" {
					continue
				}
				var lo, hi int
				for _, a := range se.Attr {
					switch a.Name.Local {
					case "min":
						lo, _ = strconv.Atoi(a.Value)
					case "max":
						hi, _ = strconv.Atoi(a.Value)
					}
				}
				if lo <= prevMax || hi < lo {
					t.Errorf("%s, sheet %s: <col min=%d max=%d> after a column ending at %d: not ascending", name, sheet, lo, hi, prevMax)
				}
				prevMax = max(prevMax, hi)
				n++
			}
			if n == 0 {
				t.Errorf("%s, sheet %s: no <col> element (column widths are set on every sheet)", name, sheet)
			}
		}
	}
}

// TestPrintSetup: every sheet prints landscape, one page wide and
// as many tall as needed (fitToWidth 1, fitToHeight 0, the fit-to-page
// flag on), with its table's header rows repeated on every page.
func TestPrintSetup(t *testing.T) {
	b := writeBook(t, sample.Report())
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docs := sheetXML(t, b)
	for _, sheet := range sheetNames {
		pl, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			pl.FitToHeight == nil || *pl.FitToHeight != 0 {
			t.Errorf("%s: page layout orientation %v, fit to %v wide and %v tall; want landscape, 1 wide, 0 (any number) tall",
				sheet, deref(pl.Orientation), deref(pl.FitToWidth), deref(pl.FitToHeight))
		}
		// The fit-to-page flag, without which fitToWidth is ignored, in
		// the sheet's XML itself (streamed sheets write it first).
		if !strings.Contains(docs[sheet], `<pageSetUpPr fitToPage="1"`) && !strings.Contains(docs[sheet], `fitToPage="true"`) {
			t.Errorf("%s: no fitToPage in the sheet's properties", sheet)
		}
		if !strings.Contains(docs[sheet], `fitToWidth="1"`) || !strings.Contains(docs[sheet], `fitToHeight="0"`) || !strings.Contains(docs[sheet], `orientation="landscape"`) {
			t.Errorf("%s: pageSetup in the XML is not landscape, 1 wide, 0 tall", sheet)
		}
	}
	titles := map[string]string{}
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm.Print_Titles" {
			titles[d.Scope] = d.RefersTo
		}
	}
	for sheet, want := range map[string]string{
		"Summary": "'Summary'!$5:$6", "Items": "'Items'!$1:$2", "Lost and Contradicted": "'Lost and Contradicted'!$1:$1",
		"Replay": "'Replay'!$11:$11", "Selection": "'Selection'!$18:$18", "Provenance": "'Provenance'!$1:$1",
	} {
		if titles[sheet] != want {
			t.Errorf("%s: print titles %q, want %q (the table's header rows)", sheet, titles[sheet], want)
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// TestChartReadable reads the chart's XML: both axes have a title
// and dark labels of a stated size (excelize's default is a light grey
// a printed page loses), the share axis is 0–100% in steps of 20% as
// percentages, every class is labelled, and the chart sits in column A
// below the verdict, inside the printed width of the table, not to its
// right.
func TestChartReadable(t *testing.T) {
	b := writeBook(t, sample.Report())
	chart := html.UnescapeString(zipPart(t, b, "xl/charts/chart1.xml"))
	for _, ax := range []string{"catAx", "valAx"} {
		i, j := strings.Index(chart, "<"+ax+">"), strings.Index(chart, "</"+ax+">")
		if i < 0 || j < i {
			t.Fatalf("chart has no %s", ax)
		}
		axis := chart[i:j]
		title := map[string]string{"catAx": "Item class", "valAx": "Retained share"}[ax]
		if !strings.Contains(axis, "<title>") || !strings.Contains(axis, "<a:t>"+title+"</a:t>") {
			t.Errorf("%s has no title %q", ax, title)
		}
		k := strings.LastIndex(axis, "<txPr>")
		if k < 0 {
			t.Fatalf("%s has no label text properties", ax)
		}
		labels := axis[k:]
		if !strings.Contains(labels, `sz="1000"`) || !strings.Contains(labels, `<a:srgbClr val="404040">`) {
			t.Errorf("%s labels are not 10 pt dark grey: %s", ax, labels)
		}
	}
	for _, want := range []string{`<majorUnit val="0.2">`, `<numFmt formatCode="0%" sourceLinked="false">`, `<tickLblSkip val="1">`} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart has no %s", want)
		}
	}
	drawing := zipPart(t, b, "xl/drawings/drawing1.xml")
	from := anchor(t, drawing, "from")
	to := anchor(t, drawing, "to")
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := readCells(t, f, "Summary")
	ruleRow := 0
	for i, row := range rows {
		if len(row) > 0 && row[0].Value == "Rule" {
			ruleRow = i + 1
		}
	}
	if from[0] != 0 || from[1] < ruleRow {
		t.Errorf("chart starts at column %d, row %d (0-based); want column A, below the verdict's last row %d", from[0], from[1], ruleRow)
	}
	if to[0] >= sumNotes-1 {
		t.Errorf("chart ends at column %d (0-based), beyond the table's width", to[0])
	}
	// The rows the chart covers are empty.
	for r := from[1]; r <= to[1]; r++ {
		if r < len(rows) && len(rows[r]) > 0 {
			t.Errorf("Summary row %d, under the chart, holds %+v", r+1, rows[r])
		}
	}
}

// anchor returns the column and row (0-based) of a drawing's
// xdr:from or xdr:to.
func anchor(t testing.TB, drawing, which string) [2]int {
	t.Helper()
	i := strings.Index(drawing, "<xdr:"+which+">")
	if i < 0 {
		t.Fatalf("drawing has no xdr:%s", which)
	}
	var out [2]int
	for n, tag := range []string{"col", "row"} {
		s := drawing[i:]
		a := strings.Index(s, "<xdr:"+tag+">") + len("<xdr:"+tag+">")
		z := strings.Index(s, "</xdr:"+tag+">")
		v, err := strconv.Atoi(s[a:z])
		if err != nil {
			t.Fatalf("xdr:%s %s: %v", which, tag, err)
		}
		out[n] = v
	}
	return out
}

// TestTaskSuccessSection: the task-success caveats and the rule the
// sentence is graded by are in the Summary's last rows, once each, the
// result with its grade on the last row; the McNemar result's own
// warnings are not listed apart (they used to appear twice: among the
// warnings as "replay: …" and as the report's "task success: …").
func TestTaskSuccessSection(t *testing.T) {
	r := sample.Report()
	r.Replay.Warnings = []string{"only 20 discordant pairs; the χ² approximation is rough", "36 of 200 references are accepted traces"}
	r.Replay.Result.Warnings = []string{"RESULT WARNING"}
	r.Replay.Rule = "significant when p < α; otherwise inconclusive when the interval reaches below −d"
	r.Replay.Grade = report.GradeNoChange
	f := openBook(t, r)
	rows := readCells(t, f, "Summary")
	section := -1
	count := map[string]int{}
	for i, row := range rows {
		for _, c := range row {
			if c.Value == "Task success (reported, never gated)" && c.Ref[0] == 'A' {
				section = i
			}
			for _, w := range append(r.Replay.Warnings, r.Replay.Rule, "RESULT WARNING") {
				if strings.Contains(c.Value, w) {
					count[w]++
					if section < 0 {
						t.Errorf("%s = %q is above the task-success section", c.Ref, c.Value)
					}
				}
			}
		}
	}
	if section < 0 {
		t.Fatal("the Summary has no task-success section")
	}
	for _, w := range append(r.Replay.Warnings, r.Replay.Rule) {
		if count[w] != 1 {
			t.Errorf("%q is on the Summary %d times, want once", w, count[w])
		}
	}
	if count["RESULT WARNING"] != 0 {
		t.Error("the McNemar result's warnings are listed apart from Replay.Warnings")
	}
	if got := rowStarting(t, rows[section:], "How it is graded")["B"].Value; got != r.Replay.Rule {
		t.Errorf("rule %q", got)
	}
	last := rows[len(rows)-1]
	ts := map[string]cell{}
	for _, c := range last {
		ts[strings.TrimRight(c.Ref, "0123456789")] = c
	}
	if ts["A"].Value != "reported, never gated" || ts["J"].Value != report.GradeNoChange || ts["K"].Value != r.Replay.Sentence {
		t.Errorf("last row %+v, want the result, its grade (J) and its sentence (K)", last)
	}

	// The report as Build makes it: the χ² caveat once, in the section.
	rows = readCells(t, openBook(t, sample.Quarterly(t)), "Summary")
	n, at := 0, -1
	for i, row := range rows {
		for _, c := range row {
			if strings.Contains(c.Value, "χ²") {
				n++
				at = i
			}
		}
	}
	if n != 1 || at < len(rows)-6 {
		t.Errorf("the χ² caveat is on the example's Summary %d times (last at row %d of %d), want once, in the last rows", n, at+1, len(rows))
	}
}

// TestUnpaired: an undecided row's item-compactions checked by one
// system only are counted in its notes and named (the first few) under
// the verdict; on Items such a row's missing verdict reads "not
// checked", coloured, not left looking like an empty cell.
func TestUnpaired(t *testing.T) {
	r := sample.Report()
	c := &r.Classes[0]
	c.Change = report.Undecided
	for i := range 7 {
		c.OnlyIncumbent = append(c.OnlyIncumbent, report.ItemKey{ConversationID: fmt.Sprintf("conv_%d", i), Compaction: 1, ItemID: "c1"})
	}
	c.OnlyCandidate = []report.ItemKey{{ConversationID: "=cmd|' /C calc'!A0", Compaction: 2, ItemID: "c9"}}
	r.Decision.Undecided = append(r.Decision.Undecided, string(c.Class), report.GateContradictions)
	r.Contradictions.Change, r.Contradictions.OnlyIncumbent, r.Contradictions.OnlyCandidate = report.Undecided, 7, 1
	r.Items[0].Candidate = fixture.Record{}
	f := openBook(t, r)
	rows := readCells(t, f, "Summary")
	want := "constraint: 7 item-compactions checked by the incumbent only, not by the candidate " +
		"(conv_0 compaction 1 item c1; conv_1 compaction 1 item c1; conv_2 compaction 1 item c1; conv_3 compaction 1 item c1; conv_4 compaction 1 item c1; and 2 more); " +
		"1 item-compaction checked by the candidate only, not by the incumbent (=cmd|' /C calc'!A0 compaction 2 item c9)"
	got := rowStarting(t, rows, "Checked by one system only")["B"]
	if got.Value != want || got.Type != "s" {
		t.Errorf("checked by one system only: %+v, want the string %q", got, want)
	}
	if note := rowStarting(t, rows[:12], "constraint")["T"].Value; !strings.Contains(note, "7 checked by the incumbent only, 1 by the candidate only") {
		t.Errorf("constraint notes %q", note)
	}
	if note := rowStarting(t, rows[:12], "contradictions")["T"].Value; !strings.Contains(note, "7 checked by the incumbent only, 1 by the candidate only: the row is undecided") {
		t.Errorf("contradictions notes %q", note)
	}
	if got := rowStarting(t, rows, "Rows undecided")["B"].Value; !strings.Contains(got, "constraint") {
		t.Errorf("rows undecided %q", got)
	}
	items, err := f.GetCellValue("Items", "L3")
	if err != nil {
		t.Fatal(err)
	}
	if items != "not checked" {
		t.Errorf("Items!L3, a candidate verdict never checked, = %q, want \"not checked\"", items)
	}
	cf, err := f.GetConditionalFormats("Items")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range cf[fmt.Sprintf("L3:L%d", len(r.Items)+2)] {
		found = found || o.Value == `"not checked"`
	}
	if !found {
		t.Error("no conditional format for \"not checked\" on the candidate's verdicts")
	}
	if strings.Contains(strings.Join(allValues(t, f), "\n"), "no record") {
		t.Error("a verdict still reads \"no record\"")
	}
}

func allValues(t testing.TB, f *excelize.File) []string {
	t.Helper()
	var out []string
	for _, sheet := range sheetNames {
		for _, row := range readCells(t, f, sheet) {
			for _, c := range row {
				out = append(out, c.Value)
			}
		}
	}
	return out
}
