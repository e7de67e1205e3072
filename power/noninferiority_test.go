package power

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/tally-eval/tally/stats"
)

// TestTangoNI pins Tango's non-inferiority score statistic.
//
// Tango (1998, Stat Med 17:891) illustrates the test on a table with an
// off-diagonal zero, a,b,c,d = 43,0,1,0 (n = 44) in his orientation, where
// b counts pairs the new treatment gets right and the standard wrong:
// here b = gained and c = lost, so in tally's orientation the table is
// Table{A: 43, B: 1 (lost), C: 0 (gained), D: 0}. Issue 13 quotes his
// Z(0.1) = 1.709; the restricted lost-cell estimate is exactly the margin
// there, so Z(0.1) = 3.4/√(44·0.09) = 1.708564 to every digit. The other
// values (Z at 0.05, 0.15, 0.2; the 4,9,3,16 table of ratesci's test3.R,
// tally's Table{4, 3, 9, 16}) are RUN-ONLY: computed with
// /work/i13refs/final/tango.R, a base-R transcription of the formula that
// reproduces ratesci's and contingencytables' published Tango intervals
// (issue13-refs.md §2), not a published Z.
func TestTangoNI(t *testing.T) {
	tango := Table{A: 43, B: 1, C: 0, D: 0}
	const (
		pub = "Tango 1998 example (issue 13: Z(0.1) = 1.709); 3.4/sqrt(44*0.09)"
		run = "RUN-ONLY: tango.R (issue13-refs.md §2)"
	)
	tests := []struct {
		t         Table
		margin    float64
		z, p, tol float64
		src       string
	}{
		{tango, 0.1, 3.4 / math.Sqrt(44*0.09), 0.043766, 5e-7, pub},
		{tango, 0.1, 1.708564, 0.043766, 5e-7, pub},
		{tango, 0.05, 0.830057, 0.203253, 5e-7, run},
		{tango, 0.15, 2.364322, 0.009032, 5e-7, run},
		{tango, 0.2, 2.939736, 0.001642, 5e-7, run},
		{tango, 0, -1, 0.841345, 5e-7, run + "; margin 0 is McNemar's (C−B)/√(B+C)"},
		{Table{A: 4, B: 3, C: 9, D: 16}, 0.1, 2.551456, 0.005364, 5e-7, run + " (ratesci test3.R table a,b,c,d = 4,9,3,16)"},
		{Table{A: 59, B: 16, C: 6, D: 80}, 0.1, 1.248918, 0.105847, 5e-7, run + " (Cavo 59,6,16,80)"},
		{Table{A: 59, B: 16, C: 6, D: 80}, 0.05, -0.426058, 0.664967, 5e-7, run + " (Cavo 59,6,16,80)"},
	}
	for _, tt := range tests {
		z, p, err := TangoNI(tt.t, tt.margin)
		if err != nil {
			t.Fatalf("%v margin %v: %v", tt.t, tt.margin, err)
		}
		what := tt.t.String() + " margin " + fmtG(tt.margin)
		check(t, what+" z", z, tt.z, tt.tol, tt.src)
		check(t, what+" p", p, tt.p, tt.tol, tt.src)
	}
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TestTangoNIDualToInterval: the test at margin δ rejects at one-sided
// level α exactly when −δ is below the lower end of Tango's 1−2α score
// interval, so at δ = −lower the statistic is z_{1−α}. Checked on
// published intervals' tables (issue13-refs.md §2).
func TestTangoNIDualToInterval(t *testing.T) {
	for _, tb := range []Table{{A: 43, B: 1, C: 0, D: 0}, {A: 4, B: 3, C: 9, D: 16}, {A: 59, B: 16, C: 6, D: 80}, {A: 53, B: 8, C: 16, D: 9}} {
		for _, conf := range []float64{0.90, 0.95} {
			r := mustMcNemar(t, tb, conf)
			iv, _ := r.Interval(IntervalTango)
			if iv.Lower >= 0 {
				continue
			}
			z, _, err := TangoNI(tb, -iv.Lower)
			if err != nil {
				t.Fatal(err)
			}
			check(t, tb.String()+" z at −lower", z, stats.Z(conf), 1e-9, "duality of test and score interval")
		}
	}
}

// TestTangoNIEdges: what TangoNI says where the data say little, and what
// it refuses.
func TestTangoNIEdges(t *testing.T) {
	// No discordant pair at margin 0: z = 0, p = ½ (documented).
	if z, p, err := TangoNI(Table{A: 5, D: 5}, 0); err != nil || z != 0 || p != 0.5 {
		t.Errorf("no discordant pair, margin 0: z %v p %v err %v; want 0, ½", z, p, err)
	}
	// Every table and margin in (0, 1) gives a finite z; all lost pairs
	// with a margin is evidence against non-inferiority, none lost for it.
	for _, tb := range []Table{{A: 5, D: 5}, {B: 10}, {C: 10}, {A: 1, B: 9}, {D: 1}} {
		for _, m := range []float64{1e-9, 0.01, 0.5, 0.999} {
			z, p, err := TangoNI(tb, m)
			if err != nil || math.IsNaN(z) || math.IsInf(z, 0) || p < 0 || p > 1 {
				t.Errorf("%v margin %v: z %v p %v err %v", tb, m, z, p, err)
			}
		}
	}
	if z, _, _ := TangoNI(Table{B: 10}, 0.1); z >= 0 {
		t.Errorf("all lost, margin 0.1: z %v, want negative", z)
	}
	if z, _, _ := TangoNI(Table{A: 10}, 0.1); z <= 0 {
		t.Errorf("all concordant, margin 0.1: z %v, want positive", z)
	}
	for _, m := range []float64{-0.1, 1, 1.5, math.NaN(), math.Inf(1)} {
		if _, _, err := TangoNI(Table{A: 1, B: 1}, m); !errors.Is(err, ErrInput) {
			t.Errorf("margin %v: err %v, want ErrInput", m, err)
		}
	}
	if _, _, err := TangoNI(Table{}, 0.1); !errors.Is(err, ErrInput) {
		t.Errorf("empty table: err %v, want ErrInput", err)
	}
	if a := testing.AllocsPerRun(100, func() { _, _, _ = TangoNI(Table{A: 59, B: 16, C: 6, D: 80}, 0.1) }); a != 0 {
		t.Errorf("TangoNI allocates %v times", a)
	}
}
