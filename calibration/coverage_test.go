package calibration

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

// judgeProfile is a simulated class and judge: items of one class, a
// share of them verbatim (retained, exact), the rest retained with
// probability Retention, and a judge that errs at known rates.
type judgeProfile struct {
	name string
	// Items is the class's items; Verbatim the probability that an item
	// is verbatim (the substring check: retained, and never judged).
	Items    int
	Verbatim float64
	// Retention is the probability that a judged item is retained.
	Retention float64
	// MissRetained is the probability that the judge calls a retained
	// item absent, FalseSupported that it calls a lost item supported,
	// FalseContradicted that it calls any item contradicted.
	MissRetained, FalseSupported, FalseContradicted float64
	// HalfWidth is the review queue's target.
	HalfWidth float64
}

// target is the super-population retention: the share of the class's
// items retained in the population the items are drawn from.
func (p judgeProfile) target() float64 { return p.Verbatim + (1-p.Verbatim)*p.Retention }

// coverage is the result of a simulation.
type coverage struct {
	reps, corrected, judgeOnly, noFigure, reviews int
}

// simulate draws reps replicates of p: the truth and the judge's verdicts
// item by item, the review queue by NewPlan from the replicate's seed,
// the reviewer's verdict (the truth) on the queue's picks, and Correct;
// it counts the replicates whose corrected interval and whose judge-only
// Wilson interval (over all the class's items, verbatim ones included)
// cover the super-population retention.
func simulate(t *testing.T, p judgeProfile, reps int) coverage {
	t.Helper()
	target := p.target()
	var c coverage
	obs := make([]Observation, p.Items)
	truth := make([]bool, p.Items)
	index := map[string]int{}
	var b obsBuilder
	b.add(p.Items, fixture.Constraint, "s", sup, "", "")
	for i, o := range b.obs {
		index[o.Key.ConversationID] = i
	}
	for r := range reps {
		rng := rand.New(rand.NewPCG(uint64(r), 0x5eed))
		for i := range obs {
			obs[i] = b.obs[i]
			retained := rng.Float64() < p.Retention
			verbatim := rng.Float64() < p.Verbatim
			u := rng.Float64()
			var v fixture.Verdict
			switch {
			case verbatim:
				v, retained = vb, true
			case u < p.FalseContradicted:
				v = con
			case retained && u < p.FalseContradicted+p.MissRetained:
				v = abs
			case retained:
				v = sup
			case u < p.FalseContradicted+p.FalseSupported:
				v = sup
			default:
				v = abs
			}
			obs[i].Judge, truth[i] = v, retained
		}
		plan, err := NewPlan(obs, []string{"s"}, PlanOptions{HalfWidth: p.HalfWidth, Confidence: 0.95, Agreement: DefaultAgreement, Seed: uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		for _, pk := range plan.Picks {
			i := index[pk.Key.ConversationID]
			obs[i].Reviewed, obs[i].Sample = abs, pk.Sample
			if truth[i] {
				obs[i].Reviewed = sup
			}
		}
		rs, err := Correct(obs, []string{"s"}, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		ret := rs[0]
		c.reps++
		c.reviews += ret.Reviewed
		if ret.PPI == nil {
			c.noFigure++
			continue
		}
		if ret.Interval.Lower <= target && target <= ret.Interval.Upper {
			c.corrected++
		}
		w, err := stats.Proportion{K: ret.Counts.Retained(), N: ret.Counts.Items}.Interval(stats.Wilson, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if w.Lower <= target && target <= w.Upper {
			c.judgeOnly++
		}
	}
	return c
}

// share is k/n as a float.
func share(k, n int) float64 { return float64(k) / float64(n) }

// checkCoverage runs p and asserts that the corrected interval covers the
// super-population retention at 95% within tol·(Monte-Carlo SE), and, when
// judgeBelow > 0, that the judge-only interval covers it in fewer than
// that share of the replicates.
func checkCoverage(t *testing.T, p judgeProfile, reps int, low float64, judgeBelow float64) {
	t.Helper()
	c := simulate(t, p, reps)
	mcse := math.Sqrt(0.95 * 0.05 / float64(reps))
	cov, judge := share(c.corrected, c.reps), share(c.judgeOnly, c.reps)
	t.Logf("%s (target %.3f, half-width %.2f, %.1f reviews a replicate): corrected covers in %d of %d (%.4f, Monte-Carlo SE %.4f), judge-only in %d of %d (%.4f)",
		p.name, p.target(), p.HalfWidth, share(c.reviews, c.reps), c.corrected, c.reps, cov, mcse, c.judgeOnly, c.reps, judge)
	if c.noFigure > 0 {
		t.Errorf("%s: %d of %d replicates had no corrected figure", p.name, c.noFigure, c.reps)
	}
	if cov < low || cov > 0.95+3*mcse {
		t.Errorf("%s: corrected coverage %.4f outside [%.4f, %.4f]", p.name, cov, low, 0.95+3*mcse)
	}
	if judgeBelow > 0 && judge >= judgeBelow {
		t.Errorf("%s: judge-only coverage %.4f, want below %.2f (the judge's errors bias it)", p.name, judge, judgeBelow)
	}
}

// replicates is the number of simulated reviews: 2000, or 500 with -short.
func replicates() int {
	if testing.Short() {
		return 500
	}
	return 2000
}

// TestCoverage is issue 14's must-show: with a judge of known error rates
// and the review queue's own stratified sample, the corrected interval
// covers the true retention at its nominal rate, within Monte-Carlo error
// (3 SE of 0.95: ±0.0146 at 2000 replicates), where the judge-only
// interval does not. The target is the retention of the population the
// items are drawn from (the super-population: stats.PPIStratified's
// variance counts the judge's strata sizes as random, as they are here).
//
// Profile "over-calls absent": 400 judged items, true retention 0.85; the
// judge calls 1% of items contradicted, 10% of retained ones absent and
// 20% of lost ones supported. Its expected share is 0.85·0.89 + 0.15·0.20
// = 0.7865, so the judge-only Wilson interval (half-width ≈ 0.04) rarely
// reaches 0.85. Profile "misses retained": true retention 0.70, the judge
// calls 3% contradicted, 25% of retained items absent, 5% of lost ones
// supported: expected share 0.70·0.72 + 0.30·0.05 = 0.519.
//
// The first at a half-width of 0.05 (about 264 reviews of 400), the
// second at 0.07 (about 124), and the first again at DefaultHalfWidth
// (0.10, about 49 reviews), all asserted within 3 SE of 0.95. The last is
// the case the Jeffreys adjustment is for (stats.PPIStratifiedJeffreys):
// with the planning agreement 0.9 the queue draws some three dozen of the judge's
// supported items, of which only about 4% are truly lost (0.15·0.20/0.7865
// = 3.8%), so in about 0.962³⁴ ≈ 27% of replicates no review in that stratum
// disagrees. With the plain share its variance was then 0 and the
// interval covered in 92.3% of 8000 replicates (Monte-Carlo SE 0.0024);
// with the adjusted share 93.95% of 2000 (2 SE under 0.95).
func TestCoverage(t *testing.T) {
	reps := replicates()
	mcse := math.Sqrt(0.95 * 0.05 / float64(reps))
	overAbsent := judgeProfile{name: "over-calls absent", Items: 400, Retention: 0.85,
		MissRetained: 0.10, FalseSupported: 0.20, FalseContradicted: 0.01, HalfWidth: 0.05}
	misses := judgeProfile{name: "misses retained", Items: 400, Retention: 0.70,
		MissRetained: 0.25, FalseSupported: 0.05, FalseContradicted: 0.03, HalfWidth: 0.07}
	checkCoverage(t, overAbsent, reps, 0.95-3*mcse, 0.5)
	checkCoverage(t, misses, reps, 0.95-3*mcse, 0.5)
	def := overAbsent
	def.name, def.HalfWidth = "over-calls absent, default half-width", DefaultHalfWidth
	checkCoverage(t, def, reps, 0.95-3*mcse, 0.5)
}

// TestCoverageVerbatim: with verbatim items the corrected interval must
// cover the super-population retention too. The split between verbatim
// and judged items is as random as the judged strata's sizes, so the
// class's variance has a term for the verbatim share π_v:
// (J/n)²·SE_θ² + (V/n)(J/n)(1 − θ̂)²/n for V verbatim and J judged of n
// items. Without it (the verbatim count taken as fixed) the interval
// covered in 88.6% of 8000 replicates (Monte-Carlo SE 0.0024); with it,
// 94.2%. 400 items, half of them verbatim, the judged ones retained at
// 0.5 (target 0.5 + 0.5·0.5 = 0.75), the first profile's judge,
// half-width 0.03 (about 200 reviews: nearly every judged item).
func TestCoverageVerbatim(t *testing.T) {
	reps := replicates()
	mcse := math.Sqrt(0.95 * 0.05 / float64(reps))
	p := judgeProfile{name: "half verbatim", Items: 400, Verbatim: 0.5, Retention: 0.5,
		MissRetained: 0.10, FalseSupported: 0.20, FalseContradicted: 0.01, HalfWidth: 0.03}
	checkCoverage(t, p, reps, 0.95-3*mcse, 0)
}
