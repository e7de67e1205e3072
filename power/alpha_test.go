package power

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestIndependentSolveAlphaR pins Independent.SolveAlpha to R 4.2:
//
//	power.prop.test(n = n, p1 = p1, p2 = p2, power = pw, sig.level = NULL)$sig.level
//
// which finds the level with uniroot (tolerance .Machine$double.eps^0.25,
// about 1.2e-4), and to the same power formula solved in closed form in R,
// 2*pnorm((sqrt(n)*abs(p1-p2) - qnorm(pw)*sd)/a, lower.tail = FALSE) with
// a = sqrt(s*(1-s/2)), s = p1+p2, sd = sqrt(p1*(1-p1)+p2*(1-p2)), to 1e-12.
func TestIndependentSolveAlphaR(t *testing.T) {
	for _, c := range []struct {
		n                 int
		p1, p2, pw        float64
		uniroot, closedFm float64
	}{
		{200, 0.83, 0.72, 0.8, 0.071881643407107232, 0.071872973614274055},
		{100, 0.5, 0.6, 0.3, 0.0520060713443012, 0.052006080890265982},
		{500, 0.9, 0.95, 0.8, 0.030488131156918643, 0.030488951075198757},
		{1000, 0.3, 0.25, 0.9, 0.22081201067416595, 0.22081111937892001},
		{10185, 0.83, 0.815, 0.8, 0.04999276043407011, 0.049991747632623373},
	} {
		got, err := Independent{P1: c.p1, P2: c.p2}.SolveAlpha(c.n, c.pw)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("n %d p1 %v p2 %v power %v", c.n, c.p1, c.p2, c.pw)
		check(t, what+" vs uniroot", got, c.uniroot, 1.2e-4, "R power.prop.test(sig.level = NULL)")
		check(t, what+" vs closed form", got, c.closedFm, 1e-12, "R closed form of power.prop.test's power")
	}
}

// TestSolveAlphaRoundTrip: the level SolveAlpha returns, handed back to
// the existing solve-for-n, gives back n — as the unrounded root for the
// closed-form methods (R's power.prop.test(p1, p2, power, sig.level =
// alpha)$n would return the same n), and for exact as an n that reaches
// the power at that level when a level a hair lower does not.
func TestSolveAlphaRoundTrip(t *testing.T) {
	checked := 0
	for _, n := range []int{23, 200, 10185} {
		for _, d := range []Independent{{P1: 0.83, P2: 0.815}, {P1: 0.5, P2: 0.6}, {P1: 0.1, P2: 0.2}} {
			for _, pw := range []float64{0.5, 0.8, 0.95} {
				alpha, err := d.SolveAlpha(n, pw)
				if err != nil {
					continue // not reachable at this n: TestSolveAlphaErrors
				}
				d.Alpha = alpha
				ss, err := d.SampleSize(pw)
				if err != nil {
					t.Fatal(err)
				}
				check(t, fmt.Sprintf("independent %v n %d power %v: n at α %v", d, n, pw, alpha), ss.Unrounded, float64(n), 1e-7*float64(n), "round trip through SampleSize")
				checked++
			}
		}
	}
	for _, m := range []PairedMethod{Connor, Miettinen} {
		for _, n := range []int{23, 100, 4000} {
			for _, d := range []Paired{{PLost: 0.45, PGained: 0.05}, {PLost: 0.07, PGained: 0.04}, {PLost: 0.02, PGained: 0.06}} {
				d.Method = m
				for _, pw := range []float64{0.5, 0.8, 0.9} {
					alpha, err := d.SolveAlpha(n, pw)
					if err != nil {
						continue
					}
					d.Alpha = alpha
					ss, err := d.SampleSize(pw)
					if err != nil {
						t.Fatal(err)
					}
					check(t, fmt.Sprintf("%s %v n %d power %v: n at α %v", m, d, n, pw, alpha), ss.Unrounded, float64(n), 1e-7*float64(n), "round trip through SampleSize")
					p, _ := d.Power(n)
					check(t, fmt.Sprintf("%s %v n %d: power at α", m, d, n), p, pw, 1e-9, "the closed form")
					checked++
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d round trips reachable; the cases test little", checked)
	}
	// MESS's example (power_mcnemar_test(paid = 0.05, psi = 9, power =
	// 0.8): 22.01 pairs at α 0.05): 23 pairs reach 0.8 at a level below
	// 0.05, 22 pairs need one above it.
	d := Paired{PLost: 0.45, PGained: 0.05, Method: Connor}
	a23, _ := d.SolveAlpha(23, 0.8)
	a22, _ := d.SolveAlpha(22, 0.8)
	if !(a23 < 0.05 && a22 > 0.05) {
		t.Errorf("MESS example: α at 23 pairs %v, at 22 %v; want them either side of 0.05", a23, a22)
	}
	for _, c := range []struct {
		n      int
		pl, pg float64
		pw     float64
	}{{23, 0.45, 0.05, 0.8}, {400, 0.02, 0.06, 0.8}, {421, 0.02, 0.06, 0.8}, {100, 0.5, 0.3, 0.5}, {60, 0.2, 0.05, 0.9}} {
		d := Paired{PLost: c.pl, PGained: c.pg, Method: Exact}
		alpha, err := d.SolveAlpha(c.n, c.pw)
		if err != nil {
			t.Fatalf("exact %v n %d: %v", d, c.n, err)
		}
		d.Alpha = alpha
		at, _ := d.Power(c.n)
		d.Alpha = alpha * (1 - 1e-9)
		below, _ := d.Power(c.n)
		if at < c.pw || below >= c.pw {
			t.Errorf("exact %v n %d: power %v at α %v and %v just below it; want the target %v reached at and not below", d, c.n, at, alpha, below, c.pw)
		}
		// The jump sits where α(1+tieTol) is twice a binomial tail:
		// SolveAlpha's level is at most a relative 1e−15 above it.
	}
	// Exact at 421 pairs and α = 0.05 reaches 0.8 (TestReferenceExactSampleSize's
	// n), so the smallest α there is at most 0.05.
	if a, _ := (Paired{PLost: 0.02, PGained: 0.06, Method: Exact}).SolveAlpha(421, 0.8); a > 0.05 {
		t.Errorf("exact 421 pairs: α %v, want ≤ 0.05 (SampleSize gives 421 at 0.05)", a)
	}
}

func TestSolveAlphaErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"independent equal rates", func() error { _, err := (Independent{P1: 0.5, P2: 0.5}).SolveAlpha(100, 0.8); return err }},
		{"independent unreachable", func() error { _, err := (Independent{P1: 0.83, P2: 0.815}).SolveAlpha(200, 0.8); return err }},
		{"independent n 0", func() error { _, err := (Independent{P1: 0.8, P2: 0.5}).SolveAlpha(0, 0.8); return err }},
		{"independent power 1", func() error { _, err := (Independent{P1: 0.8, P2: 0.5}).SolveAlpha(10, 1); return err }},
		{"independent everywhere", func() error { _, err := (Independent{P1: 0, P2: 1}).SolveAlpha(100000, 0.5); return err }},
		{"paired equal", func() error {
			_, err := (Paired{PLost: 0.1, PGained: 0.1, Method: Connor}).SolveAlpha(100, 0.8)
			return err
		}},
		{"paired unreachable", func() error {
			_, err := (Paired{PLost: 0.02, PGained: 0.03, Method: Connor}).SolveAlpha(50, 0.9)
			return err
		}},
		{"exact unreachable", func() error {
			_, err := (Paired{PLost: 0.02, PGained: 0.03, Method: Exact}).SolveAlpha(50, 0.9)
			return err
		}},
		{"exact too many pairs", func() error {
			_, err := (Paired{PLost: 0.02, PGained: 0.03, Method: Exact}).SolveAlpha(30*MaxExactPairs, 0.9) // 1.5e6 discordant expected
			return err
		}},
		{"paired bad method", func() error {
			_, err := (Paired{PLost: 0.2, PGained: 0.1, Method: "magic"}).SolveAlpha(10, 0.8)
			return err
		}},
	} {
		if err := c.err(); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", c.name, err)
		}
	}
	// The closed form never returns NaN or a level outside (0, 1).
	for _, pw := range []float64{1e-9, 0.5, 1 - 1e-9} {
		a, err := (Paired{PLost: 0.3, PGained: 0.1, Method: Miettinen}).SolveAlpha(1000, pw)
		if err == nil && (math.IsNaN(a) || a <= 0 || a >= 1) {
			t.Errorf("power %v: α %v", pw, a)
		}
	}
}
