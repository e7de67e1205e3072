package calibration

import (
	"math"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// find is the Retention of class cl and system sys in rs.
func find(t *testing.T, rs []Retention, cl fixture.Class, sys string) Retention {
	t.Helper()
	for _, r := range rs {
		if r.Class == cl && r.System == sys {
			return r
		}
	}
	t.Fatalf("no retention for %s, %s", cl, sys)
	return Retention{}
}

// TestCorrectStratified checks one class's corrected retention against
// the stratified estimator worked by hand (Cochran 1977, Sampling
// Techniques, eqs. 5.1 and 5.6 without the finite-population correction,
// plus the variance of the strata's shares, section 12.2, as
// stats.PPIStratified documents). The class of system "s" has 22 items:
//
//	verbatim      4  (one reviewed: supported; exact, not in the correction)
//	supported    10  4 reviewed: 3 supported, 1 absent           ȳ = 3/4
//	absent        6  3 reviewed: 1 supported, 2 absent           ȳ = 1/3
//	contradicted  2  2 reviewed: 1 contradicted, 1 absent        ȳ = 0
//
// Judged N = 18, W = 10/18, 6/18, 2/18.
//
//	θ̂ = Σ W_h·ȳ_h = (10·3/4 + 6·1/3 + 2·0)/18 = (7.5 + 2 + 0)/18 = 9.5/18
//	share = (verbatim + judged·θ̂)/items = (4 + 9.5)/22 = 13.5/22
//	SE² = W_s²·p̃_s(1−p̃_s)/4 + W_a²·p̃_a(1−p̃_a)/3 + W_c²·p̃_c(1−p̃_c)/2
//	      + [W_s(3/4 − θ̂)² + W_a(1/3 − θ̂)² + W_c(0 − θ̂)²]/18
//	p̃ = (x + ½)/(n + 1): p̃_s = 3.5/5, p̃_a = 1.5/4, p̃_c = 0.5/3
//
// (stats.PPIStratifiedJeffreys: each stratum's variance at the
// Jeffreys-adjusted share; the supported stratum's unreviewed items are
// all judge-retained and the absent stratum's none, so the judge's own
// variance term is 0). The class interval adds the variance of the
// verbatim share V/n, which is as random as the judged strata's:
//
//	SE_class² = (18/22)²·SE² + (4/22)·(18/22)·(1 − θ̂)²/22
//	interval = 13.5/22 ± z·SE_class
//
// The judge's share is (4 + 10)/22. Observations of another system and of
// no valid class are ignored; the absent stratum's three reviews carry no
// sample marking and are counted Unmarked.
func TestCorrectStratified(t *testing.T) {
	var b obsBuilder
	const cl = fixture.Constraint
	b.add(1, cl, "s", vb, sup, "")
	b.add(3, cl, "s", vb, "", "")
	b.add(3, cl, "s", sup, sup, reviews.SampleRandom)
	b.add(1, cl, "s", sup, abs, reviews.SampleRandom)
	b.add(6, cl, "s", sup, "", "")
	b.add(1, cl, "s", abs, sup, "")
	b.add(2, cl, "s", abs, abs, "")
	b.add(3, cl, "s", abs, "", "")
	b.add(1, cl, "s", con, con, reviews.SampleCensus)
	b.add(1, cl, "s", con, abs, reviews.SampleCensus)
	// Ignored: another system, and a class that is not one.
	b.add(5, cl, "other", abs, sup, reviews.SampleRandom)
	b.add(5, "nonsense", "s", abs, sup, reviews.SampleRandom)

	rs, err := Correct(b.obs, []string{"s"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(fixture.Classes) {
		t.Fatalf("%d retentions, want one per class (%d)", len(rs), len(fixture.Classes))
	}
	r := find(t, rs, cl, "s")
	wantCounts := fixture.Counts{Items: 22, Verbatim: 4, Supported: 10, Absent: 6, Contradicted: 2}
	if r.Counts != wantCounts || r.Judged() != 18 || r.Reviewed != 9 || r.Unmarked != 3 {
		t.Errorf("counts %+v judged %d reviewed %d unmarked %d, want %+v, 18, 9, 3", r.Counts, r.Judged(), r.Reviewed, r.Unmarked, wantCounts)
	}
	wantStrata := []Stratum{{sup, 10, 4, 3}, {abs, 6, 3, 1}, {con, 2, 2, 0}}
	if len(r.Strata) != 3 || r.Strata[0] != wantStrata[0] || r.Strata[1] != wantStrata[1] || r.Strata[2] != wantStrata[2] {
		t.Errorf("strata %+v, want %+v", r.Strata, wantStrata)
	}
	if r.PPI == nil {
		t.Fatalf("no correction: %s", r.Reason)
	}
	ws, wa, wc := 10.0/18, 6.0/18, 2.0/18
	theta := 9.5 / 18
	between := (ws*math.Pow(0.75-theta, 2) + wa*math.Pow(1.0/3-theta, 2) + wc*theta*theta) / 18
	ps, pa, pc := 3.5/5, 1.5/4, 0.5/3
	se := math.Sqrt(ws*ws*ps*(1-ps)/4 + wa*wa*pa*(1-pa)/3 + wc*wc*pc*(1-pc)/2 + between)
	z := stats.Z(0.95)
	const tol = 1e-12
	if math.Abs(r.PPI.Estimate-theta) > tol || math.Abs(r.PPI.StandardError-se) > tol {
		t.Errorf("θ̂ %.15g ± %.15g, want %.15g ± %.15g", r.PPI.Estimate, r.PPI.StandardError, theta, se)
	}
	seClass := math.Sqrt(18.0*18/(22*22)*se*se + (4.0/22)*(18.0/22)*(1-theta)*(1-theta)/22)
	lo, hi := 13.5/22-z*seClass, 13.5/22+z*seClass
	if math.Abs(r.Share-13.5/22) > tol || math.Abs(r.Interval.Lower-lo) > tol || math.Abs(r.Interval.Upper-hi) > tol {
		t.Errorf("share %.15g [%.15g, %.15g], want %.15g [%.15g, %.15g]", r.Share, r.Interval.Lower, r.Interval.Upper, 13.5/22, lo, hi)
	}
	if r.Interval.Method != "ppi-jeffreys" || math.Abs(r.JudgeShare-14.0/22) > tol || r.Reason != "" {
		t.Errorf("method %q judge share %v reason %q", r.Interval.Method, r.JudgeShare, r.Reason)
	}
	// The class's agreement: the verbatim review is left out (no judge
	// was asked), so 9 of the 10 reviews.
	wantTable := [3][3]int{{3, 1, 0}, {1, 2, 0}, {0, 1, 1}}
	if r.Agreement.Table != wantTable || r.Agreement.Reviews != 9 {
		t.Errorf("agreement %v (%d reviews), want %v (9)", r.Agreement.Table, r.Agreement.Reviews, wantTable)
	}
	// The other classes have no items.
	if o := find(t, rs, fixture.Commitment, "s"); o.Reason != "no items checked" || !math.IsNaN(o.Share) || o.PPI != nil {
		t.Errorf("empty class: %+v", o)
	}
}

// TestCorrectReasons: the classes with no corrected figure say why, and
// the one edge that is accepted (a stratum of one item reviewed in full)
// is. Each case is one class of one system.
func TestCorrectReasons(t *testing.T) {
	type group struct {
		n               int
		judge, reviewed fixture.Verdict
	}
	cases := []struct {
		name   string
		groups []group
		reason string  // "" for a corrected figure
		share  float64 // the corrected share when there is one
	}{
		{"no reviews", []group{{5, sup, ""}, {3, abs, ""}}, "no reviews", math.NaN()},
		{"a stratum with one review of several",
			[]group{{2, sup, sup}, {3, sup, ""}, {1, abs, abs}, {2, abs, ""}},
			"1 of the judge's 2 verdicts has too few reviews (each needs 2, or its one item reviewed)", math.NaN()},
		{"a stratum with no review",
			[]group{{2, sup, sup}, {3, sup, ""}, {3, abs, ""}},
			"1 of the judge's 2 verdicts has too few reviews (each needs 2, or its one item reviewed)", math.NaN()},
		{"an error verdict",
			[]group{{3, sup, sup}, {2, sup, ""}, {3, abs, abs}, {1, bad, ""}},
			"1 error verdict: the share is not known", math.NaN()},
		{"two error verdicts, one reviewed",
			[]group{{3, sup, sup}, {3, abs, abs}, {1, bad, ""}, {1, bad, sup}},
			"2 error verdicts: the share is not known", math.NaN()},
		// Every item verbatim: the judge's share is exact, 3/3.
		{"every item verbatim", []group{{3, vb, ""}}, "every item verbatim: nothing judged to correct", 1},
		// A contradicted stratum of one item, reviewed (supported): one
		// of one is the stratum's exact share. By hand: W = 4/8, 3/8,
		// 1/8; ȳ = 2/2, 1/2, 1/1; θ̂ = (4·1 + 3·1/2 + 1·1)/8 = 6.5/8.
		{"a one-item contradicted stratum reviewed in full",
			[]group{{2, sup, sup}, {2, sup, ""}, {1, abs, sup}, {1, abs, abs}, {1, abs, ""}, {1, con, sup}},
			"", 6.5 / 8},
	}
	for _, c := range cases {
		var b obsBuilder
		for _, g := range c.groups {
			b.add(g.n, fixture.Reference, "s", g.judge, g.reviewed, reviews.SampleRandom)
		}
		rs, err := Correct(b.obs, []string{"s"}, 0.95)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		r := find(t, rs, fixture.Reference, "s")
		if r.Reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.name, r.Reason, c.reason)
		}
		switch {
		case math.IsNaN(c.share):
			if !math.IsNaN(r.Share) || r.PPI != nil || !math.IsNaN(r.Interval.Lower) || !math.IsNaN(r.Interval.Upper) {
				t.Errorf("%s: share %v interval %+v PPI %v, want none", c.name, r.Share, r.Interval, r.PPI)
			}
		case math.Abs(r.Share-c.share) > 1e-12 || !(r.Interval.Lower <= r.Share && r.Share <= r.Interval.Upper):
			t.Errorf("%s: share %v interval %+v, want %v inside it", c.name, r.Share, r.Interval, c.share)
		}
	}
}

// TestCorrectVerbatimOnly: every item verbatim gives the exact share, an
// exact interval of no width, and no PPI.
func TestCorrectVerbatimOnly(t *testing.T) {
	var b obsBuilder
	b.add(3, fixture.Constraint, "s", vb, "", "")
	rs, err := Correct(b.obs, []string{"s"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	r := find(t, rs, fixture.Constraint, "s")
	if r.Share != 1 || r.JudgeShare != 1 || r.Interval != (stats.Interval{Method: "exact", Lower: 1, Upper: 1}) || r.PPI != nil {
		t.Errorf("%+v", r)
	}
}

// TestCorrectSystems: retentions come class by class in fixture.Classes
// order, systems in the order given; a system with no observations still
// gets its rows ("no items checked"); systems not asked for are ignored.
func TestCorrectSystems(t *testing.T) {
	var b obsBuilder
	b.add(2, fixture.Commitment, "a", sup, sup, reviews.SampleRandom)
	b.add(2, fixture.Commitment, "a", abs, abs, reviews.SampleRandom)
	b.add(4, fixture.Commitment, "z", abs, sup, reviews.SampleRandom)
	rs, err := Correct(b.obs, []string{"b", "a"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2*len(fixture.Classes) {
		t.Fatalf("%d retentions, want %d", len(rs), 2*len(fixture.Classes))
	}
	for i, r := range rs {
		if r.Class != fixture.Classes[i/2] || r.System != []string{"b", "a"}[i%2] {
			t.Errorf("row %d is %s, %s", i, r.Class, r.System)
		}
	}
	// a's commitments: 2 supported reviewed supported, 2 absent reviewed
	// absent: θ̂ = (2·1 + 2·0)/4 = 1/2, "z" not counted.
	a := find(t, rs, fixture.Commitment, "a")
	if a.Counts.Items != 4 || a.Share != 0.5 || a.Reviewed != 4 || a.Unmarked != 0 {
		t.Errorf("a: %+v", a)
	}
	if r := find(t, rs, fixture.Commitment, "b"); r.Reason != "no items checked" || r.Counts.Items != 0 {
		t.Errorf("b: %+v", r)
	}
	// A bad confidence is an error.
	if _, err := Correct(b.obs, []string{"a"}, 0); err == nil {
		t.Error("confidence 0: no error")
	}
}
