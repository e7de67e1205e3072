package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

// writeBook renders r and returns the workbook's bytes.
func writeBook(t testing.TB, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// openBook renders r and opens the workbook with excelize.
func openBook(t testing.TB, r *report.Report) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(writeBook(t, r)))
	if err != nil {
		t.Fatalf("excelize.OpenReader: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// cell is one cell as excelize reads it back.
type cell struct {
	Ref     string
	Type    string // "s" string, "n" number, "b" bool, "f" formula, "e" error
	Value   string // the raw value
	NumFmt  string // the number format: a built-in id ("10") or a custom code
	Formula string
}

// readCells reads every non-empty cell of a sheet, row by row.
func readCells(t testing.TB, f *excelize.File, sheet string) [][]cell {
	t.Helper()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("GetRows(%s): %v", sheet, err)
	}
	out := make([][]cell, len(rows))
	for i, row := range rows {
		for j, v := range row {
			if v == "" {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
			c := cell{Ref: ref, Value: v}
			ct, err := f.GetCellType(sheet, ref)
			if err != nil {
				t.Fatal(err)
			}
			switch ct {
			case excelize.CellTypeSharedString, excelize.CellTypeInlineString:
				c.Type = "s"
			case excelize.CellTypeBool:
				c.Type = "b"
			case excelize.CellTypeNumber, excelize.CellTypeUnset:
				c.Type = "n"
			case excelize.CellTypeFormula:
				c.Type = "f"
			default:
				c.Type = fmt.Sprintf("type%d", ct)
			}
			if c.Formula, err = f.GetCellFormula(sheet, ref); err != nil {
				t.Fatal(err)
			}
			id, err := f.GetCellStyle(sheet, ref)
			if err != nil {
				t.Fatal(err)
			}
			if id != 0 {
				st, err := f.GetStyle(id)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case st.CustomNumFmt != nil:
					c.NumFmt = *st.CustomNumFmt
				case st.NumFmt != 0:
					c.NumFmt = strconv.Itoa(st.NumFmt)
				}
			}
			out[i] = append(out[i], c)
		}
	}
	return out
}

// rowStarting returns the cells of the first row whose first cell is
// label.
func rowStarting(t testing.TB, rows [][]cell, label string) map[string]cell {
	t.Helper()
	for _, row := range rows {
		if len(row) > 0 && row[0].Ref[0] == 'A' && row[0].Value == label {
			m := map[string]cell{}
			for _, c := range row {
				m[strings.TrimRight(c.Ref, "0123456789")] = c
			}
			return m
		}
	}
	t.Fatalf("no row starts with %q", label)
	return nil
}

// wantNum checks a numeric cell: its type, value and number format
// ("" for any). The value is compared to 14 significant digits: Excel
// keeps 15, and excelize writes no more.
func wantNum(t testing.TB, where string, c cell, want float64, numFmt string) {
	t.Helper()
	if c.Type != "n" {
		t.Errorf("%s (%s): type %s, want a number (value %q)", where, c.Ref, c.Type, c.Value)
		return
	}
	got, err := strconv.ParseFloat(c.Value, 64)
	if err != nil || math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
		t.Errorf("%s (%s) = %q, want %v", where, c.Ref, c.Value, want)
	}
	if numFmt != "" && c.NumFmt != numFmt {
		t.Errorf("%s (%s): number format %q, want %q", where, c.Ref, c.NumFmt, numFmt)
	}
}

func TestSheets(t *testing.T) {
	f := openBook(t, sample.Report())
	want := []string{"Summary", "Items", "Lost and Contradicted", "Replay", "Selection", "Provenance"}
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %q, want %q", got, want)
	}
	if i := f.GetActiveSheetIndex(); i != 0 {
		t.Errorf("active sheet %d, want 0 (Summary)", i)
	}
	// Frozen headers on every sheet with a table.
	for _, c := range []struct {
		sheet      string
		cols, rows int
	}{
		{"Summary", 1, 6}, {"Items", 3, 2}, {"Lost and Contradicted", 0, 1},
		{"Replay", 0, 11}, {"Selection", 1, 18}, {"Provenance", 0, 1},
	} {
		p, err := f.GetPanes(c.sheet)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Freeze || p.XSplit != c.cols || p.YSplit != c.rows {
			t.Errorf("%s: panes %+v, want %d columns and %d rows frozen", c.sheet, p, c.cols, c.rows)
		}
	}
	// Filters: one _xlnm._FilterDatabase per table sheet, over its header.
	filters := map[string]string{}
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm._FilterDatabase" {
			filters[d.Scope] = d.RefersTo
		}
	}
	r := sample.Report()
	for sheet, ref := range map[string]string{
		"Items":                 fmt.Sprintf("'Items'!$A$2:$T$%d", len(r.Items)+2),
		"Lost and Contradicted": "'Lost and Contradicted'!$A$1:$N$23",
		"Replay":                "'Replay'!$A$11:$H$31",
		"Selection":             "'Selection'!$A$18:$G$58",
		"Provenance":            "'Provenance'!$A$1:$E$35",
	} {
		if filters[sheet] != ref {
			t.Errorf("%s: filter %q, want %q", sheet, filters[sheet], ref)
		}
	}
	// Reviewer drop-downs.
	// The Items sheet asks for each system's verdict in the reviewer's
	// judgement: both columns Q and R, one list.
	for sheet, want := range map[string]struct{ sqref, list string }{
		"Items":  {fmt.Sprintf("Q3:R%d", len(r.Items)+2), `"supported,absent,contradicted,unsure"`},
		"Replay": {"F12:F31", `"caused by compaction,not compaction,reference wrong,unsure"`},
	} {
		dvs, err := f.GetDataValidations(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if len(dvs) != 1 || dvs[0].Sqref != want.sqref || dvs[0].Type != "list" || dvs[0].Formula1 != want.list {
			t.Errorf("%s: data validations %+v, want one list %s on %s", sheet, dvs, want.list, want.sqref)
		}
	}
	// The Lost and Contradicted sheet has no drop-down of its own, which
	// nothing would read: each row names the Items row to review it on.
	if dvs, err := f.GetDataValidations("Lost and Contradicted"); err != nil || len(dvs) != 0 {
		t.Errorf("Lost and Contradicted: data validations %+v (%v), want none", dvs, err)
	}
	lost, err := f.GetRows("Lost and Contradicted")
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]int{}
	for i, it := range r.Items {
		where[fmt.Sprint(it.ConversationID, "/", it.Compaction, "/", it.ItemID)] = i + 3
	}
	for _, row := range lost[1:] {
		if len(row) < 14 || row[0] == "none" {
			continue
		}
		want := fmt.Sprintf("Items row %d (Incumbent: reviewer's verdict, Candidate: reviewer's verdict)", where[row[2]+"/"+row[3]+"/"+row[4]])
		if row[13] != want {
			t.Errorf("Lost and Contradicted row %v: review it on %q, want %q", row[:5], row[13], want)
		}
	}
	// Widths are set.
	if w, _ := f.GetColWidth("Items", "E"); w != 40 {
		t.Errorf("Items!E width %v, want 40", w)
	}
}

func TestSummary(t *testing.T) {
	r := sample.Report()
	f := openBook(t, r)
	rows := readCells(t, f, "Summary")
	const pct = "10" // 0.00%
	for _, c := range []struct {
		class          string
		ik, in, ck, cn float64
		gate           float64
	}{
		{"constraint", 71, 80, 70, 80, 0.95},
		{"commitment", 44, 51, 43, 51, 0.90},
		{"open_question", 96, 103, 88, 103, 0.95},
		{"reference", 58, 61, 57, 61, 0.98},
	} {
		row := rowStarting(t, rows[:12], c.class)
		wantNum(t, c.class+" gate", row["C"], c.gate, pct)
		wantNum(t, c.class+" incumbent retained", row["D"], c.ik, "3")
		wantNum(t, c.class+" incumbent items", row["E"], c.in, "3")
		wantNum(t, c.class+" incumbent share", row["F"], c.ik/c.in, pct)
		wantNum(t, c.class+" candidate retained", row["J"], c.ck, "3")
		wantNum(t, c.class+" candidate share", row["L"], c.ck/c.cn, pct)
		for _, col := range []string{"G", "H", "M", "N"} {
			if c := row[col]; c.Type != "n" || c.NumFmt != pct {
				t.Errorf("%s!%s: %+v, want a number formatted as a percentage", "Summary", c.Ref, c)
			}
		}
		if row["I"].Value != "fail" || row["O"].Value != "fail" {
			t.Errorf("%s: statuses %q, %q, want fail, fail", c.class, row["I"].Value, row["O"].Value)
		}
	}
	if got := rowStarting(t, rows, "open_question")["P"].Value; got != "worse" {
		t.Errorf("open_question change %q, want worse", got)
	}
	con := rowStarting(t, rows, "contradictions")
	wantNum(t, "incumbent contradictions", con["D"], 2, "3")
	wantNum(t, "candidate contradictions", con["J"], 7, "3")
	prompt := rowStarting(t, rows, "prompt size")
	wantNum(t, "prompt budget", prompt["C"], 12000, "3")
	wantNum(t, "incumbent prompt mean", prompt["D"], 6407, "3")
	wantNum(t, "candidate prompt mean", prompt["J"], 4196, "3")
	if prompt["I"].Value != "pass" || prompt["O"].Value != "pass" {
		t.Errorf("prompt statuses %q, %q, want pass", prompt["I"].Value, prompt["O"].Value)
	}
	verdict := rowStarting(t, rows, "Verdict")["B"].Value
	if verdict != "blocks — rows that got worse under the candidate: open_question, contradictions" {
		t.Errorf("verdict %q", verdict)
	}
	if got := rowStarting(t, rows, "Backlog: gates unmet by both")["B"].Value; got != "constraint, commitment, open_question, reference, contradictions" {
		t.Errorf("backlog %q", got)
	}
	if got := rowStarting(t, rows, "Rule")["B"].Value; got != r.Decision.Rule {
		t.Errorf("rule %q, want %q", got, r.Decision.Rule)
	}

	// Task success is the last row.
	last := rows[len(rows)-1]
	if len(last) == 0 || last[0].Value != "reported, never gated" {
		t.Fatalf("last row %+v, want task success", last)
	}
	ts := rowStarting(t, rows, "reported, never gated")
	wantNum(t, "pairs", ts["B"], 200, "3")
	wantNum(t, "discordant", ts["C"], 20, "3")
	wantNum(t, "reference rate", ts["D"], 0.83, pct)
	wantNum(t, "candidate rate", ts["E"], 0.84, pct)
	wantNum(t, "difference", ts["F"], 0.01, pct)
	if ts["J"].Value != r.Replay.Grade || ts["K"].Value != r.Replay.Sentence {
		t.Errorf("task success grade %q and in words %q, want %q and %q", ts["J"].Value, ts["K"].Value, r.Replay.Grade, r.Replay.Sentence)
	}

	// Conditional formatting on statuses, changes and shares.
	cf, err := f.GetConditionalFormats("Summary")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"I7:I12", "O7:O12", "P7:P12", "F7:F10", "L7:L10"} {
		if len(cf[ref]) == 0 {
			t.Errorf("no conditional format on Summary!%s (have %v)", ref, keys(cf))
		}
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestQuarterly renders the example's report as Build makes it: the
// source text's table is on the Summary, task success on its last row,
// and every item row on Items.
func TestQuarterly(t *testing.T) {
	r := sample.Quarterly(t)
	f := openBook(t, r)
	rows := readCells(t, f, "Summary")
	for _, c := range []struct {
		class          string
		ik, in, ck, cn float64
	}{
		{"constraint", 71, 80, 70, 80},
		{"commitment", 44, 51, 43, 51},
		{"open_question", 96, 103, 88, 103},
		{"reference", 58, 61, 57, 61},
	} {
		row := rowStarting(t, rows[:12], c.class)
		wantNum(t, c.class+" incumbent retained", row["D"], c.ik, "3")
		wantNum(t, c.class+" incumbent items", row["E"], c.in, "3")
		wantNum(t, c.class+" incumbent share", row["F"], c.ik/c.in, "10")
		wantNum(t, c.class+" candidate retained", row["J"], c.ck, "3")
		wantNum(t, c.class+" candidate share", row["L"], c.ck/c.cn, "10")
	}
	con := rowStarting(t, rows, "contradictions")
	wantNum(t, "incumbent contradictions", con["D"], 2, "3")
	wantNum(t, "candidate contradictions", con["J"], 7, "3")
	prompt := rowStarting(t, rows, "prompt size")
	wantNum(t, "incumbent prompt mean", prompt["D"], r.Prompt.Incumbent.Mean, "3")
	if math.Round(r.Prompt.Incumbent.Mean) != 6320 || math.Round(r.Prompt.Candidate.Mean) != 4331 {
		t.Errorf("prompt means %v, %v", r.Prompt.Incumbent.Mean, r.Prompt.Candidate.Mean)
	}
	if v := rowStarting(t, rows, "Verdict")["B"].Value; !strings.HasPrefix(v, "blocks — ") {
		t.Errorf("verdict %q", v)
	}
	last := rows[len(rows)-1]
	if last[0].Value != "reported, never gated" {
		t.Errorf("last Summary row %+v, want task success", last)
	}
	ts := rowStarting(t, rows, "reported, never gated")
	wantNum(t, "reference rate", ts["D"], 0.83, "10")
	wantNum(t, "candidate rate", ts["E"], 0.84, "10")
	if n := len(readCells(t, f, "Items")); n != len(r.Items)+2 {
		t.Errorf("Items has %d rows, want %d", n, len(r.Items)+2)
	}
	if !bytes.Equal(writeBook(t, r), writeBook(t, sample.Quarterly(t))) {
		t.Error("two builds of the example give different workbooks")
	}
}

// TestChart checks the native chart: a clustered column chart whose
// categories, values and series names are references to Summary cells.
func TestChart(t *testing.T) {
	b := writeBook(t, sample.Report())
	chart := html.UnescapeString(zipPart(t, b, "xl/charts/chart1.xml"))
	for _, ref := range []string{
		`<barDir val="col">`, `<grouping val="clustered">`,
		"<f>'Summary'!$A$7:$A$10</f>", "<f>'Summary'!$F$7:$F$10</f>", "<f>'Summary'!$L$7:$L$10</f>", "<f>'Summary'!$C$7:$C$10</f>",
		"<tx><strRef><f>'Summary'!$D$5</f>", "<tx><strRef><f>'Summary'!$J$5</f>", "<tx><strRef><f>'Summary'!$C$6</f>",
		"Retained share by class",
	} {
		if !strings.Contains(chart, ref) {
			t.Errorf("chart has no %q", ref)
		}
	}
	if !strings.Contains(zipPart(t, b, "xl/worksheets/sheet1.xml"), "<drawing ") {
		t.Error("Summary has no drawing")
	}
}

func zipPart(t testing.TB, b []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatalf("zip entry %s: %v", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestItems(t *testing.T) {
	r := sample.Report()
	f := openBook(t, r)
	rows := readCells(t, f, "Items")
	if len(rows) != len(r.Items)+2 {
		t.Fatalf("%d rows, want %d items + 2 header rows", len(rows), len(r.Items))
	}
	head := []string{"Conversation", "Compaction", "Item", "Class", "Literal", "Probe", "Expect",
		"Incumbent verdict", "Incumbent answer", "Incumbent reason", "Incumbent judge",
		"Candidate verdict", "Candidate answer", "Candidate reason", "Candidate judge",
		"Changed", "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict", "Reviewer", "Note"}
	for i, c := range rows[1] {
		if c.Value != head[i] {
			t.Errorf("header %s = %q, want %q", c.Ref, c.Value, head[i])
		}
	}
	if g := rows[0]; g[1].Value != "Incumbent: summariser-v3" || g[2].Value != "Candidate: summariser-v4" {
		t.Errorf("group header %+v", g)
	}
	changed := 0
	for i, it := range r.Items {
		row := map[string]cell{}
		for _, c := range rows[i+2] {
			row[strings.TrimRight(c.Ref, "0123456789")] = c
		}
		if row["A"].Value != it.ConversationID || row["C"].Value != it.ItemID || row["D"].Value != string(it.Class) ||
			row["E"].Value != it.Literal || row["H"].Value != string(it.Incumbent.Verdict) || row["L"].Value != string(it.Candidate.Verdict) ||
			row["M"].Value != it.Candidate.Answer {
			t.Fatalf("row %d = %+v, want item %+v", i+3, rows[i+2], it)
		}
		wantNum(t, "compaction", row["B"], float64(it.Compaction), "")
		if c := row["P"]; c.Type != "b" || c.Value != map[bool]string{true: "1", false: "0"}[it.Changed] {
			t.Fatalf("changed flag %+v, want bool %v", c, it.Changed)
		}
		if it.Changed {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no changed item in the sample")
	}
	cf, err := f.GetConditionalFormats("Items")
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.Items) + 2
	for _, ref := range []string{fmt.Sprintf("H3:H%d", n), fmt.Sprintf("L3:L%d", n), fmt.Sprintf("P3:P%d", n)} {
		if len(cf[ref]) == 0 {
			t.Errorf("no conditional format on Items!%s (have %v)", ref, keys(cf))
		}
	}
}

func TestLostAndContradicted(t *testing.T) {
	r := sample.Report()
	f := openBook(t, r)
	rows := readCells(t, f, "Lost and Contradicted")
	var want []string
	for _, c := range r.Classes {
		for _, k := range c.Lost {
			want = append(want, fmt.Sprintf("lost %s %s/%d/%s", c.Class, k.ConversationID, k.Compaction, k.ItemID))
		}
	}
	for _, k := range r.Contradictions.New {
		want = append(want, fmt.Sprintf("new contradiction %s/%d/%s", k.ConversationID, k.Compaction, k.ItemID))
	}
	if len(want) != 16+6 {
		t.Fatalf("sample has %d lost and new, want 22", len(want))
	}
	var got []string
	for _, row := range rows[1:] {
		kind := row[0].Value
		if kind == "lost" {
			kind += " " + row[1].Value
		}
		got = append(got, fmt.Sprintf("%s %s/%s/%s", kind, row[2].Value, row[3].Value, row[4].Value))
		if row[8].Value == "" || row[5].Value == "" {
			t.Errorf("row %+v has no item details", row)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReplayAndSelection(t *testing.T) {
	r := sample.Report()
	f := openBook(t, r)
	rows := readCells(t, f, "Replay")
	labels := map[string]cell{}
	for i, c := range rows[1] {
		labels[c.Value] = rows[2][i]
	}
	wantNum(t, "pairs", labels["Pairs"], 200, "")
	wantNum(t, "lost", labels["Lost (reference ✓, candidate ✗)"], 9, "")
	wantNum(t, "gained", labels["Gained (reference ✗, candidate ✓)"], 11, "")
	wantNum(t, "reference rate", labels["Reference rate"], 0.83, "10")
	wantNum(t, "exact p", labels["exact p"], r.Replay.Result.Tests[0].PValue, "0.0000")
	wantNum(t, "uncompacted", labels["References: uncompacted"], 164, "")
	kinds := rowStarting(t, rows, "accepted_trace")
	wantNum(t, "accepted_trace pairs", kinds["B"], 36, "3")
	wantNum(t, "accepted_trace lost", kinds["D"], 3, "3")
	queue := rows[11:]
	if len(queue) != 20 {
		t.Fatalf("review queue of %d rows, want 20", len(queue))
	}
	for i, p := range r.Replay.Discordant {
		dir := map[string]string{"success": "lost", "failure": "gained"}[p.Reference]
		if queue[i][0].Value != p.ConversationID || queue[i][4].Value != dir {
			t.Errorf("queue row %d = %+v, want %+v (%s)", i, queue[i], p, dir)
		}
	}

	rows = readCells(t, f, "Selection")
	dec := rowStarting(t, rows, "Compaction decisions")
	// The sample's random samples hold 200 sessions against 40 selected,
	// so the sheet compares per session: 1148 decisions over 40 sessions
	// against a mean of 301.2 over 200.
	wantNum(t, "selected decisions per session", dec["B"], 1148.0/40, "2")
	wantNum(t, "random decisions per session", dec["C"], 301.2/200, "2")
	if got := rowStarting(t, rows, "Seed")["B"]; got.Type != "s" && got.Type != "inlineStr" || got.Value != "1" {
		t.Errorf("seed: %+v, want the text 1 (a number cell would round seeds beyond 2⁵³)", got)
	}
	if got := rowStarting(t, rows, "Incidents exceed the budget")["B"]; got.Type != "b" || got.Value != "1" {
		t.Errorf("incidents exceed the budget: %+v, want TRUE", got)
	}
	sessions := rows[18:]
	if len(sessions) != 40 || sessions[0][0].Value != r.Selection.Sessions[0].SessionID {
		t.Errorf("%d sessions, first %+v", len(sessions), sessions[0])
	}

	rows = readCells(t, f, "Provenance")
	var inputs, config []string
	for _, row := range rows[1:] {
		switch row[0].Value {
		case "input":
			inputs = append(inputs, row[2].Value+" "+row[3].Value)
		case "config":
			if len(row) > 2 {
				config = append(config, row[2].Value)
			} else {
				config = append(config, "")
			}
		}
	}
	if len(inputs) != 4 || inputs[0] != r.Provenance.Inputs[0].Path+" "+r.Provenance.Inputs[0].SHA256 {
		t.Errorf("inputs %q", inputs)
	}
	if got := strings.Join(config, "\n") + "\n"; got != r.Provenance.Config {
		t.Errorf("config\n%s\nwant\n%s", got, r.Provenance.Config)
	}
	if v := rowStarting(t, rows, "tally"); v["C"].Value != "v0.4.0-dev" {
		t.Errorf("version %+v", v)
	}
}

// TestHostile writes a report full of markup, formulas, DDE payloads,
// tab- and CR-led text and an over-long line, and reads every sheet back:
// each such text is a string cell holding exactly the input, no cell
// anywhere has a formula, and the long text is cut with a marker and a
// warning.
func TestHostile(t *testing.T) {
	r := sample.Hostile()
	b := writeBook(t, r)
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// No formula in any worksheet's XML.
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/worksheets/sheet") {
			continue
		}
		xml := zipPart(t, b, zf.Name)
		if strings.Contains(xml, "<f>") || strings.Contains(xml, "<f ") {
			t.Errorf("%s has a formula element", zf.Name)
		}
	}

	found := map[string]int{}
	var long []cell
	for _, sheet := range f.GetSheetList() {
		for _, row := range readCells(t, f, sheet) {
			for _, c := range row {
				if c.Formula != "" || c.Type == "f" {
					t.Errorf("%s!%s has formula %q", sheet, c.Ref, c.Formula)
				}
				for name, h := range sample.HostileStrings {
					if !strings.Contains(c.Value, h) {
						continue
					}
					if c.Type != "s" {
						t.Errorf("%s!%s holding %s is of type %s, want a string", sheet, c.Ref, name, c.Type)
					}
					if c.Value == h {
						found[name]++
					}
				}
				if strings.Contains(c.Value, sample.HostileLong[:40]) {
					long = append(long, c)
				}
			}
		}
	}
	for name := range sample.HostileStrings {
		if found[name] == 0 {
			t.Errorf("no cell holds exactly the %s string %q", name, sample.HostileStrings[name])
		}
	}
	// The CR- and tab-led strings are lost items: on Items and on Lost and
	// Contradicted. The DDE one is also the candidate's name (Summary,
	// Items' group header, Provenance).
	for name, min := range map[string]int{"cr": 2, "tab": 2, "dde": 4, "script": 4} {
		if found[name] < min {
			t.Errorf("%s string found exactly in %d cells, want at least %d", name, found[name], min)
		}
	}

	// The long answer: on Items and twice on Lost and Contradicted (a lost
	// item that is also newly contradicted? no: lost, so once there).
	if len(long) < 2 {
		t.Fatalf("long text in %d cells, want at least 2", len(long))
	}
	var refs []string
	for _, c := range long {
		if n := utf16Len(c.Value); n != excelize.TotalCellChars {
			t.Errorf("long cell %s has %d characters, want %d", c.Ref, n, excelize.TotalCellChars)
		}
		if !strings.HasSuffix(c.Value, "[…cut by tally: the text has 40000 characters, a cell holds 32767]") {
			t.Errorf("long cell %s ends %q, want the cut marker", c.Ref, c.Value[len(c.Value)-80:])
		}
		if !strings.HasPrefix(c.Value, sample.HostileLong[:100]) {
			t.Errorf("long cell %s starts %q", c.Ref, c.Value[:40])
		}
		refs = append(refs, c.Ref)
	}
	summary := readCells(t, f, "Summary")
	var warnings []string
	for _, row := range summary {
		for _, c := range row {
			if strings.Contains(c.Value, "cut to Excel's cell limit") {
				warnings = append(warnings, c.Value)
			}
		}
	}
	if len(warnings) != len(long) {
		t.Errorf("cut warnings %q, want one per long cell %v", warnings, refs)
	}
	if len(warnings) > 0 && !strings.HasPrefix(warnings[0], "Items!I") {
		t.Errorf("first cut warning %q, want it to name the Items cell", warnings[0])
	}
}

// TestCutLimit checks the cut at the limit itself, with characters
// outside the Basic Multilingual Plane (two UTF-16 units each).
func TestCutLimit(t *testing.T) {
	b := &book{}
	for _, c := range []struct {
		name string
		s    string
		cut  bool
	}{
		{"ascii at the limit", strings.Repeat("x", excelize.TotalCellChars), false},
		{"ascii over the limit", strings.Repeat("x", excelize.TotalCellChars+1), true},
		{"emoji at the limit", strings.Repeat("😀", excelize.TotalCellChars/2) + "x", false},
		{"emoji over the limit", strings.Repeat("😀", excelize.TotalCellChars/2+1), true},
		{"3-byte runes under the limit", strings.Repeat("—", excelize.TotalCellChars), false},
		{"invalid UTF-8", "ok\xff\xfe", false},
	} {
		got := b.fit("Items", 5, 3, c.s)
		if n := utf16Len(got); n > excelize.TotalCellChars || !utf8.ValidString(got) {
			t.Errorf("%s: %d UTF-16 units (valid UTF-8 %v)", c.name, n, utf8.ValidString(got))
		}
		if cut := strings.Contains(got, "cut by tally"); cut != c.cut {
			t.Errorf("%s: cut %v, want %v", c.name, cut, c.cut)
		}
	}
	if b.cut != 2 || len(b.cutNotes) != 2 || b.cutNotes[0] != "Items!E3: text of 32768 characters cut to Excel's cell limit of 32767 (the cell ends with a marker)" {
		t.Errorf("cut %d, notes %q", b.cut, b.cutNotes)
	}
}

// TestDeterministic writes the same report twice, a second apart:
// the bytes are the same, every zip entry carries r.Generated, and no
// entry holds the time of the run.
func TestDeterministic(t *testing.T) {
	r := sample.Hostile()
	a := writeBook(t, r)
	time.Sleep(1100 * time.Millisecond)
	// excelize iterates Go maps (streamed sheets, image types): several
	// writes make a different iteration order all but certain.
	for i := range 4 {
		if b := writeBook(t, sample.Hostile()); !bytes.Equal(a, b) {
			t.Fatalf("write %d of the same report differs from the first (%d and %d bytes)", i+2, len(b), len(a))
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	var names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
		if !zf.Modified.Equal(r.Generated) {
			t.Errorf("%s: modified %v, want %v", zf.Name, zf.Modified, r.Generated)
		}
		if today != r.Generated.Format("2006-01-02") && strings.Contains(zipPart(t, a, zf.Name), today) {
			t.Errorf("%s holds today's date %s", zf.Name, today)
		}
	}
	if names[0] != "[Content_Types].xml" || !slices.IsSorted(names[1:]) {
		t.Errorf("entries not in the fixed order: %q", names)
	}
	core := zipPart(t, a, "docProps/core.xml")
	for _, want := range []string{
		`<dcterms:created xsi:type="dcterms:W3CDTF">2026-04-01T09:30:00Z</dcterms:created>`,
		`<dcterms:modified xsi:type="dcterms:W3CDTF">2026-04-01T09:30:00Z</dcterms:modified>`,
		`<dc:creator>tally v0.4.0-dev</dc:creator>`,
	} {
		if !strings.Contains(core, want) {
			t.Errorf("docProps/core.xml has no %s:\n%s", want, core)
		}
	}
	// A different time gives different properties: the time is the
	// report's, not a constant.
	r2 := sample.Hostile()
	r2.Generated = r2.Generated.Add(48 * time.Hour)
	if bytes.Equal(a, writeBook(t, r2)) {
		t.Error("a report generated at another time gives the same bytes")
	}
}

// TestGolden pins every cell (type, raw value, number format) of the
// sample workbook, its merges, panes, filters, validations and
// conditional formats, and the zip's entries. Rewrite with -update.
func TestGolden(t *testing.T) {
	sample.Golden(t, "sample.golden", dumpBook(t, writeBook(t, sample.Report())))
}

// dumpBook is a workbook as text: its zip entries, defined names, and per
// sheet its panes, page layout, merges, validations, conditional formats
// and every cell with its type, number format and value.
func dumpBook(t *testing.T, b []byte) string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("# zip entries\n")
	for _, zf := range zr.File {
		fmt.Fprintf(&out, "%s\n", zf.Name)
	}
	out.WriteString("# defined names\n")
	for _, d := range f.GetDefinedName() {
		fmt.Fprintf(&out, "%s %s %s\n", d.Scope, d.Name, d.RefersTo)
	}
	for _, sheet := range f.GetSheetList() {
		fmt.Fprintf(&out, "# sheet %s\n", sheet)
		p, _ := f.GetPanes(sheet)
		fmt.Fprintf(&out, "panes freeze=%v x=%d y=%d top=%s\n", p.Freeze, p.XSplit, p.YSplit, p.TopLeftCell)
		pl, _ := f.GetPageLayout(sheet)
		fmt.Fprintf(&out, "page orientation=%v fit=%v wide, %v tall\n", deref(pl.Orientation), deref(pl.FitToWidth), deref(pl.FitToHeight))
		mc, _ := f.GetMergeCells(sheet)
		for _, m := range mc {
			fmt.Fprintf(&out, "merge %s:%s\n", m.GetStartAxis(), m.GetEndAxis())
		}
		dvs, _ := f.GetDataValidations(sheet)
		for _, dv := range dvs {
			fmt.Fprintf(&out, "validation %s %s %s\n", dv.Sqref, dv.Type, dv.Formula1)
		}
		cf, _ := f.GetConditionalFormats(sheet)
		for _, ref := range keys(cf) {
			for _, o := range cf[ref] {
				fmt.Fprintf(&out, "conditional %s %s %s %s\n", ref, o.Type, o.Criteria, o.Value)
			}
		}
		for _, row := range readCells(t, f, sheet) {
			for _, c := range row {
				fmt.Fprintf(&out, "%s %s %s %q\n", c.Ref, c.Type, c.NumFmt, c.Value)
			}
		}
	}
	return out.String()
}

// TestEmptyAndUndefined writes a report with no items, no replay and
// no selection, and one whose class has no items (NaN share): empty
// cells with a note, never "NaN" text.
func TestEmptyAndUndefined(t *testing.T) {
	f := openBook(t, &report.Report{})
	rows := readCells(t, f, "Summary")
	last := rows[len(rows)-1]
	if last[0].Value != "Task success (reported, never gated)" || !strings.Contains(last[1].Value, "not measured") {
		t.Errorf("last row %+v", last)
	}
	if got := readCells(t, f, "Items"); len(got) != 2 {
		t.Errorf("Items of an empty report: %d rows, want the 2 header rows", len(got))
	}

	r := sample.Report()
	c := &r.Classes[3]
	c.Incumbent = report.SystemClass{Share: math.NaN(), Wilson: c.Incumbent.Wilson, Gate: report.Incomplete}
	c.Incumbent.Wilson.Lower, c.Incumbent.Wilson.Upper = math.NaN(), math.Inf(1)
	c.Candidate.Clustered.DesignEffect = math.NaN()
	f = openBook(t, r)
	rows = readCells(t, f, "Summary")
	for _, row := range rows {
		for _, cell := range row {
			if strings.Contains(cell.Value, "NaN") || strings.Contains(cell.Value, "Inf") {
				t.Errorf("Summary!%s = %q", cell.Ref, cell.Value)
			}
		}
	}
	ref := rowStarting(t, rows[:12], "reference")
	for _, col := range []string{"F", "G", "H"} {
		if c, ok := ref[col]; ok {
			t.Errorf("reference incumbent %s = %+v, want an empty cell", col, c)
		}
	}
	note := ref["T"].Value
	for _, want := range []string{"incumbent: no items", "incumbent share undefined", "incumbent low undefined", "incumbent high infinite", "cell left empty"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q has no %q", note, want)
		}
	}
}

// TestRowLimit lowers the rows a sheet holds: the items that do not
// fit are left out with a note row and a warning, not an error.
func TestRowLimit(t *testing.T) {
	defer func(n int) { maxRows = n }(maxRows)
	maxRows = 100
	r := sample.Report()
	f := openBook(t, r)
	items := readCells(t, f, "Items")
	if len(items) != 100 {
		t.Fatalf("Items has %d rows, want 100", len(items))
	}
	if got, want := items[99][0].Value, fmt.Sprintf("… %d more item rows: a sheet holds 100 rows", len(r.Items)-97); got != want {
		t.Errorf("last Items row %q, want %q", got, want)
	}
	if last := items[98]; last[0].Value != r.Items[96].ConversationID || last[2].Value != r.Items[96].ItemID {
		t.Errorf("last item row %+v, want item 97 %+v", last, r.Items[96].ItemKey)
	}
	want := fmt.Sprintf("Items: the last %d of %d item rows are not in the workbook: a sheet holds 100 rows", len(r.Items)-97, len(r.Items))
	found := false
	for _, row := range readCells(t, f, "Summary") {
		for _, c := range row {
			found = found || c.Value == want
		}
	}
	if !found {
		t.Errorf("Summary has no warning %q", want)
	}
}

type failWriter struct{ n, after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.after {
		return 0, errors.New("disk full")
	}
	w.n += len(p)
	return len(p), nil
}

func TestErrors(t *testing.T) {
	if err := Write(io.Discard, nil); err == nil {
		t.Error("nil report: no error")
	}
	for _, after := range []int{0, 100, 20000} {
		err := Write(&failWriter{after: after}, sample.Report())
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("writer failing after %d bytes: error %v, want disk full", after, err)
		}
	}
}

// TestLarge writes 300,000 item rows: well under 30 seconds, with a
// bounded heap, and every row is in the Items sheet.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300,000-row workbook; skipped with -short")
	}
	const n = 300_000
	r := sample.Large(n)
	w := &sample.CountWriter{Keep: true}
	stop := sample.Heap()
	start := time.Now()
	if err := Write(w, r); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	base, peak := stop()
	above := peak.Above(base)
	live, inUse := above.Live, above.Objects
	t.Logf("%d items: %v, %.1f MB written; peak heap above the report: %.1f MB live, %.1f MB in use",
		n, elapsed.Round(time.Millisecond), float64(w.N)/1e6, float64(live)/1e6, float64(inUse)/1e6)
	if elapsed > 30*time.Second {
		t.Errorf("took %v, want well under 30s", elapsed)
	}
	// The output is kept in w.Buf: allow for it, and a fixed budget for
	// the writer, whatever the number of items: excelize keeps up to
	// 16 MB of each streamed sheet in a buffer that can grow to twice
	// that before it moves to a temporary file (Items, and here Lost and
	// Contradicted), the spool 8 MB of compressed workbook.
	if limit := uint64(w.Buf.Len()) + 96<<20; live > limit {
		t.Errorf("peak live heap %.1f MB, want under %.1f MB", float64(live)/1e6, float64(limit)/1e6)
	}
	// The Items sheet ends with the last item's row: read the end of its
	// XML (the sheet is some 200 MB uncompressed).
	zr, err := zip.NewReader(bytes.NewReader(w.Buf.Bytes()), int64(w.Buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open("xl/worksheets/sheet2.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tail := &tailWriter{max: 1 << 20}
	if _, err := io.Copy(tail, rc); err != nil {
		t.Fatal(err)
	}
	if end := string(tail.buf); !strings.Contains(end, fmt.Sprintf(`<row r="%d"`, n+2)) || strings.Contains(end, fmt.Sprintf(`<row r="%d"`, n+3)) {
		t.Errorf("Items sheet does not end at row %d", n+2)
	}
}

// tailWriter keeps at least the last max bytes written to it (at most
// twice that).
type tailWriter struct {
	buf []byte
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

// BenchmarkWrite writes workbooks of 30,000 and 300,000 item rows to
// a counting writer, and reports their size and the peak heap above the
// report's own (live: held by the writer; in use: with garbage).
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{30_000, 300_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := sample.Large(n)
			var live, inUse uint64
			var size int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				stop := sample.Heap()
				w := &sample.CountWriter{}
				if err := Write(w, r); err != nil {
					b.Fatal(err)
				}
				base, peak := stop()
				above := peak.Above(base)
				live, inUse = max(live, above.Live), max(inUse, above.Objects)
				size = w.N
			}
			b.ReportMetric(float64(live)/1e6, "peak-live-MB")
			b.ReportMetric(float64(inUse)/1e6, "peak-inuse-MB")
			b.ReportMetric(float64(size)/1e6, "xlsx-MB")
		})
	}
}

// TestWriteFiles writes the sample, hostile and empty workbooks to
// the folder named by TALLY_XLSX_OUT, for a person to open.
func TestWriteFiles(t *testing.T) {
	dir := os.Getenv("TALLY_XLSX_OUT")
	if dir == "" {
		t.Skip("set TALLY_XLSX_OUT=DIR to write the sample workbooks there")
	}
	for name, r := range map[string]*report.Report{"sample": sample.Report(), "hostile": sample.Hostile(), "empty": {}} {
		if err := os.WriteFile(filepath.Join(dir, name+".xlsx"), writeBook(t, r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ExampleWrite writes the sample report's workbook and reads the
// constraint row of its gates table back, as a spreadsheet shows it.
func ExampleWrite() {
	var buf bytes.Buffer
	if err := Write(&buf, sample.Report()); err != nil {
		fmt.Println(err)
		return
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println(strings.Join(f.GetSheetList(), " | "))
	var row []string
	for _, ref := range []string{"A7", "C7", "D7", "E7", "F7", "I7", "J7", "L7", "O7"} {
		v, _ := f.GetCellValue("Summary", ref)
		row = append(row, v)
	}
	fmt.Println(strings.Join(row, " "))
	// Output:
	// Summary | Items | Lost and Contradicted | Replay | Selection | Provenance
	// constraint 95.00% 71 80 88.75% fail 70 87.50% fail
}

// TestControlCharacters: text with characters XML 1.0 cannot hold
// (NUL, other C0 controls) still makes a workbook that opens; each such
// character, and each bidirectional or zero-width one, reads back as
// the escape the HTML shows for it, the rest unchanged.
func TestControlCharacters(t *testing.T) {
	r := sample.Report()
	in := "a\x00b\x01c\x1fd\x7fe\ufffef_x0041_g\u202Eh\u200Bi\tj"
	r.Items[0].Literal = in
	r.Items[0].ItemID = "c\u200B1"
	f := openBook(t, r)
	got, err := f.GetCellValue("Items", "E3")
	if err != nil {
		t.Fatal(err)
	}
	// An id stays as the fixture spells it: tally calibrate matches it.
	if id, _ := f.GetCellValue("Items", "C3"); id != r.Items[0].ItemID {
		t.Errorf("item id %q, want %q", id, r.Items[0].ItemID)
	}
	// U+FFFE, a noncharacter XML 1.0 cannot hold, reads back as U+FFFD.
	if want := `a\x00b\x01c\x1Fd\x7Fe` + "\ufffd" + `f_x0041_g\u202Eh\u200Bi` + "\tj"; got != want {
		t.Errorf("read back %q, want %q", got, want)
	}
}

// TestFitEmojiCount: a cut text's marker counts characters as the HTML
// does (code points) and gives Excel's UTF-16 units beside them when
// they differ (a new user's trial read 80012 characters here against
// 39413 more in the HTML for one 40012-character probe of emoji).
func TestFitEmojiCount(t *testing.T) {
	b := &book{}
	s := strings.Repeat("👍", 20000) + strings.Repeat("a", 12)
	got := b.fit(sheetItems, 5, 3, s)
	if want := "[…cut by tally: the text has 20012 characters (40012 UTF-16 units), a cell holds 32767 units]"; !strings.HasSuffix(got, want) {
		t.Errorf("marker %q, want %q", got[len(got)-120:], want)
	}
	if n := utf16Len(got); n > excelize.TotalCellChars {
		t.Errorf("%d UTF-16 units, more than a cell holds", n)
	}
}
