package calibration

import (
	"errors"
	"math"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

const (
	sup = fixture.Supported
	abs = fixture.Absent
	con = fixture.Contradicted
	vb  = fixture.Verbatim
	bad = fixture.Error
)

// TestAgreementTable tabulates a hand-made set of reviews: the table,
// Reviews, Equal and the contradiction counts are counted by hand; an
// item found verbatim (no judge was asked), a judge error, a missing
// verdict or a reviewer's "verbatim" (not one of the reviewer's
// verdicts) is ignored and Add says so.
func TestAgreementTable(t *testing.T) {
	var a Agreement
	adds := []struct {
		n               int
		judge, reviewer fixture.Verdict
		ok              bool
	}{
		{3, sup, sup, true},
		{1, vb, sup, false}, // found verbatim: no judge to agree with
		{1, vb, abs, false},
		{2, sup, abs, true},
		{1, abs, sup, true},
		{4, abs, abs, true},
		{1, abs, con, true},
		{2, con, con, true},
		{1, con, abs, true},
		{1, con, sup, true},
		{2, bad, sup, false}, // judge error: ignored
		{1, "", abs, false},  // no judge verdict
		{1, sup, "", false},  // not reviewed
		{1, sup, vb, false},  // verbatim is not a reviewer's verdict
		{1, sup, bad, false},
	}
	for _, x := range adds {
		for range x.n {
			if got := a.Add(x.judge, x.reviewer); got != x.ok {
				t.Errorf("Add(%q, %q) = %v, want %v", x.judge, x.reviewer, got, x.ok)
			}
		}
	}
	want := [3][3]int{
		{3, 2, 0}, // supported: 3 supported, 2 absent
		{1, 4, 1},
		{1, 1, 2},
	}
	if a.Table != want {
		t.Errorf("table %v, want %v", a.Table, want)
	}
	// Reviews 5+6+4 = 15; Equal the diagonal 3+4+2 = 9; the judge's
	// contradictions 4, of which the reviewer confirmed 2.
	if a.Reviews != 15 || a.Equal() != 9 || a.ContradictionsJudged != 4 || a.ContradictionsConfirmed != 2 {
		t.Errorf("reviews %d equal %d contradictions %d/%d, want 15, 9, 4/2",
			a.Reviews, a.Equal(), a.ContradictionsConfirmed, a.ContradictionsJudged)
	}
	if err := a.Finish(0.95); err != nil {
		t.Fatal(err)
	}
	// κ by hand: N = 15, p_o = 9/15; rows 5, 6, 4; columns 5, 7, 3;
	// p_e = (5·5 + 6·7 + 4·3)/15² = 79/225; κ = (135 − 79)/(225 − 79) = 56/146.
	if math.Abs(a.Kappa.Kappa-56.0/146) > 1e-12 || a.Kappa.N != 15 {
		t.Errorf("κ %v (N %d), want 56/146 = %v", a.Kappa.Kappa, a.Kappa.N, 56.0/146)
	}
}

// TestAgreementKappaR pins κ and its 95% interval to R's psych 2.2.9,
// testdata/kappa.R, on a judge-against-reviewer table (rows the judge's
// supported, absent, contradicted; columns the reviewer's):
//
//	30  4 1
//	 6 18 1
//	 1  2 5
//
// Rscript calibration/testdata/kappa.R printed:
//
//	[1] 0.618406285072952
//	[1] 0.00740495866438888
//	            lower          estimate             upper
//	0.449747328067425 0.618406285072952 0.787065242078478
//	psych 2.2.9
func TestAgreementKappaR(t *testing.T) {
	var a Agreement
	table := [3][3]int{{30, 4, 1}, {6, 18, 1}, {1, 2, 5}}
	for i, row := range table {
		for j, n := range row {
			for range n {
				if !a.Add(Labels[i], Labels[j]) {
					t.Fatalf("Add(%q, %q) refused", Labels[i], Labels[j])
				}
			}
		}
	}
	if err := a.Finish(0.95); err != nil {
		t.Fatal(err)
	}
	k := a.Kappa
	const tol = 1e-9
	if math.Abs(k.Kappa-0.618406285072952) > tol ||
		math.Abs(k.StandardError*k.StandardError-0.00740495866438888) > tol ||
		math.Abs(k.Interval.Lower-0.449747328067425) > tol || math.Abs(k.Interval.Upper-0.787065242078478) > tol {
		t.Errorf("κ %.15g var %.15g [%.15g, %.15g], want psych's 0.618406285072952 var 0.00740495866438888 [0.449747328067425, 0.787065242078478]",
			k.Kappa, k.StandardError*k.StandardError, k.Interval.Lower, k.Interval.Upper)
	}
	if a.Reviews != 68 || a.Equal() != 53 || a.ContradictionsJudged != 8 || a.ContradictionsConfirmed != 5 {
		t.Errorf("reviews %d equal %d contradictions %d/%d", a.Reviews, a.Equal(), a.ContradictionsConfirmed, a.ContradictionsJudged)
	}
}

// TestAgreementEmpty: no reviews (or only ignored ones) leave κ NaN and
// are not an error; one category only gives NaN κ too (stats.Kappa's
// p_e = 1 case), not an error.
func TestAgreementEmpty(t *testing.T) {
	var a Agreement
	a.Add(bad, sup)
	if err := a.Finish(0.95); err != nil {
		t.Fatalf("no reviews: %v", err)
	}
	if !math.IsNaN(a.Kappa.Kappa) || a.Reviews != 0 || a.Equal() != 0 {
		t.Errorf("no reviews: %+v", a)
	}
	var one Agreement
	for range 5 {
		one.Add(sup, sup)
	}
	if err := one.Finish(0.95); err != nil {
		t.Fatalf("one category: %v", err)
	}
	if !math.IsNaN(one.Kappa.Kappa) || one.Equal() != 5 {
		t.Errorf("one category: %+v", one)
	}
	// A bad confidence is an error, wrapped with context.
	if err := one.Finish(1.5); err == nil {
		t.Error("confidence 1.5: no error")
	} else if !errors.Is(err, stats.ErrInput) {
		t.Errorf("confidence 1.5: %v, want ErrInput", err)
	}
}
