package xlsx

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/tally-eval/tally/report/internal/sample"
)

// TestCalibration writes the example with the reviews of
// sample.CalibratedConfig (its header says how they were drawn) and
// reads the Calibration sheet back with excelize: numbers as numbers in
// percent and decimal formats, the 3×3 tables as that draw makes them by
// hand, and the sentence on the Summary.
func TestCalibration(t *testing.T) {
	r := sample.Calibrated(t)
	b := writeBook(t, r)
	sample.Golden(t, "calibrated.golden", dumpBook(t, b))
	f := openBook(t, r)
	want := []string{"Summary", "Items", "Lost and Contradicted", "Calibration", "Replay", "Selection", "Provenance"}
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %q, want %q", got, want)
	}
	c := r.Calibration
	rows := readCells(t, f, "Calibration")
	if got := rowStarting(t, rows, "In words")["B"]; got.Type != "s" || got.Value != c.Sentence {
		t.Errorf("In words: %+v, want the sentence %q", got, c.Sentence)
	}
	if got := rowStarting(t, rows, "The gates use")["B"].Value; got != "the corrected share (gates.use: corrected)" {
		t.Errorf("The gates use: %q", got)
	}
	head := rowStarting(t, rows, "Class")
	for col, name := range map[string]string{"D": "Judged items", "E": "Reviews", "F": "Judge share", "G": "Judge low (95% Wilson)",
		"I": "Corrected share", "J": "Corrected low (95%)", "L": "κ", "M": "κ low (95%)", "N": "κ high", "O": "No corrected share because"} {
		if head[col].Value != name {
			t.Errorf("header %s = %q, want %q", col, head[col].Value, name)
		}
	}
	// The first row is the incumbent's constraints: 71/80 retained; 5
	// supported and 3 absent reviewed of 21 + 9 = 30 judged.
	inc := rowStarting(t, rows, "constraint")
	if inc["B"].Value != "incumbent" || inc["C"].Value != "incumbent" {
		t.Errorf("first row: %+v", inc)
	}
	wantNum(t, "judged items", inc["D"], 30, "3")
	wantNum(t, "reviews", inc["E"], 8, "3")
	wantNum(t, "judge share", inc["F"], 71.0/80, "10")
	rt := c.Retention[0]
	wantNum(t, "judge low", inc["G"], r.Classes[0].Incumbent.Wilson.Lower, "10")
	wantNum(t, "corrected share", inc["I"], rt.Share, "10")
	wantNum(t, "corrected low", inc["J"], rt.Interval.Lower, "10")
	wantNum(t, "corrected high", inc["K"], rt.Interval.Upper, "10")
	wantNum(t, "κ", inc["L"], rt.Agreement.Kappa.Kappa, "2")
	wantNum(t, "κ low", inc["M"], rt.Agreement.Kappa.Interval.Lower, "2")
	wantNum(t, "κ high", inc["N"], rt.Agreement.Kappa.Interval.Upper, "2")
	// The candidate's references have no corrected share (1 of 4 absent
	// reviewed): empty cells and the reason.
	var ref map[string]cell
	for _, row := range rows {
		if len(row) > 1 && row[0].Value == "reference" && row[1].Value == "candidate" {
			ref = map[string]cell{}
			for _, c := range row {
				ref[c.Ref[:1]] = c
			}
		}
	}
	if ref == nil {
		t.Fatal("no row for the candidate's references")
	}
	for _, col := range []string{"I", "J", "K"} {
		if v, ok := ref[col]; ok {
			t.Errorf("the candidate's references: %s = %+v, want empty", col, v)
		}
	}
	if got := ref["O"]; got.Type != "s" || got.Value != "1 of the judge's 2 verdicts has too few reviews (each needs 2, or its one item reviewed)" {
		t.Errorf("the candidate's references: reason %+v", got)
	}
	wantNum(t, "judge share", ref["F"], 57.0/61, "10")

	// The 3×3 tables, incumbent then candidate (the Markdown test gives
	// the arithmetic): rows supported-or-verbatim, absent, contradicted.
	var tables [][3][3]float64
	var kappas []float64
	for i, row := range rows {
		if len(row) == 0 || row[0].Value != "Judge ↓ reviewer →" {
			continue
		}
		var tb [3][3]float64
		for j := range 3 {
			for k := range 3 {
				c := rows[i+1+j][1+k]
				if c.Type != "n" || c.NumFmt != "3" {
					t.Errorf("%s: %+v, want a count", c.Ref, c)
				}
				tb[j][k] = c.num(t)
			}
		}
		tables = append(tables, tb)
		kappas = append(kappas, rows[i+6][1].num(t))
		if rows[i+6][0].Value != "Cohen's κ" || rows[i+6][1].NumFmt != "2" {
			t.Errorf("row %d: %+v, want Cohen's κ in format 2", i+7, rows[i+6])
		}
	}
	want3 := [][3][3]float64{{{16, 4, 0}, {0, 12, 0}, {0, 0, 2}}, {{16, 4, 0}, {1, 9, 0}, {0, 1, 6}}}
	if !slices.Equal(tables, want3) {
		t.Errorf("tables %v, want %v", tables, want3)
	}
	// κ = 504/640 and 625/847 (the Markdown test gives the arithmetic).
	if len(kappas) != 2 || !near(kappas[0], 504.0/640) || !near(kappas[1], 625.0/847) {
		t.Errorf("κ %v, want %v and %v", kappas, 504.0/640, 625.0/847)
	}
	if got := rowStarting(t, readCells(t, f, "Summary"), "How far to trust the judge")["B"]; got.Type != "s" || got.Value != c.Sentence {
		t.Errorf("the Summary's calibration row: %+v", got)
	}

	// Without reviews, no sheet and no Summary row.
	r.Calibration = nil
	f = openBook(t, r)
	if slices.Contains(f.GetSheetList(), "Calibration") {
		t.Error("a report without reviews has a Calibration sheet")
	}
	for _, row := range readCells(t, f, "Summary") {
		if len(row) > 0 && row[0].Value == "How far to trust the judge" {
			t.Error("a report without reviews has a calibration row on the Summary")
		}
	}
}

// TestCalibrationHostile: system names, reasons and the sentence hold
// formulas and markup; each is a string cell holding the text as is.
func TestCalibrationHostile(t *testing.T) {
	r := sample.Hostile()
	c := sample.HostileCalibration(r)
	f := openBook(t, r)
	var texts []string
	for _, row := range readCells(t, f, "Calibration") {
		for _, cl := range row {
			if cl.Type == "f" || cl.Formula != "" {
				t.Errorf("%s is a formula: %+v", cl.Ref, cl)
			}
			if cl.Type == "s" {
				texts = append(texts, cl.Value)
			}
		}
	}
	for _, want := range []string{c.Sentence, c.Retention[1].Reason, r.Incumbent, r.Candidate,
		"Judge against reviewers: incumbent: " + r.Incumbent, "Judge against reviewers: candidate: " + r.Candidate} {
		if !slices.Contains(texts, want) {
			t.Errorf("no string cell holds %q", want)
		}
	}
	if got := rowStarting(t, readCells(t, f, "Summary"), "How far to trust the judge")["B"]; got.Type != "s" || got.Value != c.Sentence {
		t.Errorf("the Summary's calibration row: %+v", got)
	}
}

// num is a numeric cell's value.
func (c cell) num(t testing.TB) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(c.Value, 64)
	if err != nil {
		t.Errorf("%s: %q is not a number", c.Ref, c.Value)
		return math.NaN()
	}
	return x
}

// near reports whether a and b agree to 14 significant digits, as
// wantNum compares.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Max(1, math.Abs(b)) }
