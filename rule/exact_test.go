package rule

import (
	"math"
	"testing"
)

// TestExactAgainstR pins the exact path to R: rule/testdata/power.R
// (R 4.2.2, run here) sums the trinomial model over every (lost, gained)
// for one class, with the one-sided exact and mid-p McNemar tests at
// α = 0.05 (pbinom) and the count rule "lost − gained ≥ 2". These are
// values computed by a second implementation, not published ones: no
// table of exact McNemar power is published (Fagerland et al. 2013 give
// power as figures only).
func TestExactAgainstR(t *testing.T) {
	for _, c := range []struct {
		n                      int
		pL, pG                 float64
		exact, midP, countTol1 float64
	}{
		{40, .07, .04, 0.03937651, 0.08675480, 0.43461729},
		{80, .10, .05, 0.21649041, 0.29572885, 0.76708792},
		{100, .15, .05, 0.67541448, 0.74266622, 0.97606041},
	} {
		for _, r := range []struct {
			rule Rule
			want float64
		}{
			{Rule{Kind: McNemar, Alpha: 0.05}, c.exact},
			{Rule{Kind: McNemar, Alpha: 0.05, MidP: true}, c.midP},
			{Rule{Kind: Count, Tolerance: 1}, c.countTol1},
		} {
			got, err := r.rule.exactClass(c.n, c.pL, c.pG, r.rule.firstLevel(1))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-r.want) > 5e-9 {
				t.Errorf("n=%d pL=%g pG=%g %s: got %.10f, R gives %.8f", c.n, c.pL, c.pG, r.rule.Text(), got, r.want)
			}
		}
	}
}

// trinomialEnumerate is P(rule blocks) by the full enumeration of
// (lost, gained) ~ trinomial(n; pL, pG), in logs, as power.R does: the
// independent check of exactClass's sum over the discordant count.
func trinomialEnumerate(t *testing.T, r Rule, n int, pL, pG, level float64) float64 {
	t.Helper()
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	var s float64
	for l := 0; l <= n; l++ {
		for g := 0; l+g <= n; g++ {
			ct, err := r.testClass(nil, l, g, n)
			if err != nil {
				t.Fatal(err)
			}
			if !r.blocks(ct, level) {
				continue
			}
			lp := lf(n) - lf(l) - lf(g) - lf(n-l-g)
			if l > 0 {
				lp += float64(l) * math.Log(pL)
			}
			if g > 0 {
				lp += float64(g) * math.Log(pG)
			}
			if n-l-g > 0 {
				lp += float64(n-l-g) * math.Log1p(-pL-pG)
			}
			s += math.Exp(lp)
		}
	}
	return s
}

// TestExactEnumerates checks the exact path against the full
// enumeration of the trinomial on small cases, for every rule the exact
// path serves, at levels that put ties on the rejection boundary.
func TestExactEnumerates(t *testing.T) {
	rules := []Rule{
		{Kind: Count},
		{Kind: Count, Tolerance: 2},
		{Kind: McNemar, Alpha: 0.05},
		{Kind: McNemar, Alpha: 0.0625}, // = P(Bin(4,½) = 4)·... a dyadic level: ties
		{Kind: McNemar, Alpha: 0.05, MidP: true},
		{Kind: NonInferiority, Alpha: 0.05, Margin: 0.1},
		{Kind: NonInferiority, Alpha: 0.025, Margin: 0.2},
	}
	for _, r := range rules {
		r = r.Normalized()
		for _, c := range []struct {
			n      int
			pL, pG float64
		}{{1, .3, .2}, {7, .1, .1}, {12, .2, .05}, {25, .05, .15}, {30, .3, .3}, {18, 0, .2}, {18, .2, 0}} {
			level := r.firstLevel(1)
			want := trinomialEnumerate(t, r, c.n, c.pL, c.pG, level)
			got, err := r.exactClass(c.n, c.pL, c.pG, level)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%s n=%d pL=%g pG=%g: exact path %.15f, enumeration %.15f", r.Text(), c.n, c.pL, c.pG, got, want)
			}
		}
	}
}
