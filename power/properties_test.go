package power

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// randomCount draws a cell count over small and large scales, with
// zeros often.
func randomCount(r *rand.Rand) int {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return r.IntN(5)
	case 2:
		return r.IntN(60)
	case 3:
		return r.IntN(5000)
	default:
		return r.IntN(MaxPairs / 4)
	}
}

func randomTable(r *rand.Rand) Table {
	for {
		t := Table{A: randomCount(r), B: randomCount(r), C: randomCount(r), D: randomCount(r)}
		if t.Pairs() > 0 {
			return t
		}
	}
}

// TestMcNemarProperties: over random tables, every p-value is in [0,1],
// mid-p never exceeds exact, every interval is ordered inside [−1,1] and
// contains the observed difference, and B+C = 0 gives p = 1 and
// statistic 0 for every test.
func TestMcNemarProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		tb := randomTable(r)
		if i%10 == 0 {
			tb.B, tb.C = 0, 0
			tb.A++
		}
		conf := 0.5 + 0.4999*r.Float64()
		res := mustMcNemar(t, tb, conf)
		for _, ts := range res.Tests {
			if !(ts.PValue >= 0 && ts.PValue <= 1) || math.IsNaN(ts.Statistic) || ts.Statistic < 0 {
				t.Fatalf("%v: %s p = %v, statistic %v", tb, ts.Method, ts.PValue, ts.Statistic)
			}
			if tb.Discordant() == 0 && (ts.PValue != 1 || ts.Statistic != 0) {
				t.Fatalf("%v: B+C = 0 but %s has p %v, statistic %v", tb, ts.Method, ts.PValue, ts.Statistic)
			}
			// Exact and mid-p carry a statistic (0) only when B+C = 0.
			if hasStat := tb.Discordant() == 0 || (ts.Method != string(TestExact) && ts.Method != string(TestMidP)); ts.HasStatistic != hasStat {
				t.Fatalf("%v: %s HasStatistic %v, want %v", tb, ts.Method, ts.HasStatistic, hasStat)
			}
		}
		ex, _ := res.Test(TestExact)
		mid, _ := res.Test(TestMidP)
		if mid.PValue > ex.PValue {
			t.Fatalf("%v: mid-p %v exceeds exact %v", tb, mid.PValue, ex.PValue)
		}
		const eps = 1e-12
		for _, iv := range res.Intervals {
			if !(-1 <= iv.Lower && iv.Lower <= iv.Upper && iv.Upper <= 1) {
				t.Fatalf("%v at %v: %s [%v, %v] not ordered in [-1,1]", tb, conf, iv.Method, iv.Lower, iv.Upper)
			}
			if !(iv.Lower <= res.Difference+eps && res.Difference <= iv.Upper+eps) {
				t.Fatalf("%v at %v: %s [%v, %v] excludes the difference %v", tb, conf, iv.Method, iv.Lower, iv.Upper, res.Difference)
			}
		}
	}
}

// TestExactSizeAtMostAlpha: with gains and losses equally likely the
// exact test's rejection probability never exceeds α, whatever n, the
// discordant probability and α.
func TestExactSizeAtMostAlpha(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		n := 1 + r.IntN(3000)
		if i%50 == 0 {
			n = 1 + r.IntN(MaxExactPairs)
		}
		pd := r.Float64()
		if i%7 == 0 {
			pd = 1
		}
		alpha := []float64{0.05, 0.01, 0.1, 0.0625, 0.5}[r.IntN(5)]
		size, err := ExactSize(n, pd, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if size > alpha*(1+tieTol) || size < 0 {
			t.Fatalf("n=%d pd=%v alpha=%v: size %v exceeds alpha", n, pd, alpha, size)
		}
		p, err := Paired{PLost: pd / 2, PGained: pd / 2, Alpha: alpha, Method: Exact}.Power(n)
		if err != nil || math.Abs(p-size) > 1e-15 {
			t.Fatalf("n=%d pd=%v: power at θ=½ %v differs from ExactSize %v (%v)", n, pd, p, size, err)
		}
	}
}

// TestExactWindowTruncation checks the window's claim directly: for
// n ≤ 400 the windowed sum equals the full sum over m = 0..n.
func TestExactWindowTruncation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200; i++ {
		n := 1 + r.IntN(400)
		pd := r.Float64()
		theta := r.Float64()
		e := newExactTest(0.05, theta)
		c := e.rejectProbs(0, n)
		full := 0.0
		for m := 0; m <= n; m++ {
			full += distuv.Binomial{N: float64(n), P: pd}.Prob(float64(m)) * c[m]
		}
		if got := e.power(n, pd); math.Abs(got-full) > 1e-12 {
			t.Fatalf("n=%d pd=%v θ=%v: windowed %v, full %v", n, pd, theta, got, full)
		}
	}
}

// TestApproxPowerIncreasesWithEffect: at fixed n, Connor's and
// Miettinen's power rise as p_gained moves away from a fixed p_lost.
// Both are normal approximations whose variance term dominates below
// about z² ≈ 3.84 pairs (Connor's derivative in δ has the sign of
// √(n/ψ)·ψ − z·δ), so n starts at 4.
func TestApproxPowerIncreasesWithEffect(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, m := range []PairedMethod{Connor, Miettinen} {
		for i := 0; i < 50000; i++ {
			n := 4 + r.IntN(5000)
			alpha := 0.001 + 0.2*r.Float64()
			pl := 0.5 * r.Float64()
			pg1 := pl + r.Float64()*(1-2*pl)
			pg2 := pg1 + r.Float64()*(1-pl-pg1)
			a, err1 := Paired{PLost: pl, PGained: pg1, Alpha: alpha, Method: m}.Power(n)
			b, err2 := Paired{PLost: pl, PGained: pg2, Alpha: alpha, Method: m}.Power(n)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if b < a-1e-12 {
				t.Fatalf("%s n=%d α=%v: p_lost %v, p_gained %v → %v, %v → %v", m, n, alpha, pl, pg1, a, pg2, b)
			}
		}
	}
}

// TestIndependentPowerFallsTowardsP1 backs IndependentMDE's bisection:
// for n ≥ 2, R's power falls as p2 rises towards p1 from below.
func TestIndependentPowerFallsTowardsP1(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 100000; i++ {
		n := 2 + r.IntN(5000)
		p1 := r.Float64()
		a := r.Float64() * p1
		b := r.Float64() * a
		alpha := 0.001 + 0.2*r.Float64()
		pa := Independent{P1: p1, P2: a, Alpha: alpha}.power(float64(n))
		pb := Independent{P1: p1, P2: b, Alpha: alpha}.power(float64(n))
		if pb < pa-1e-12 {
			t.Fatalf("n=%d p1=%v: p2 %v → %v but p2 %v → %v", n, p1, a, pa, b, pb)
		}
	}
}

// TestClosedFormSampleSizeIsSmallest: for Connor, Miettinen and
// power.prop.test, N reaches the target and N−1 does not.
func TestClosedFormSampleSizeIsSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < 20000; i++ {
		alpha := 0.001 + 0.2*r.Float64()
		target := 0.05 + 0.94*r.Float64()
		pl := 0.5 * r.Float64()
		pg := r.Float64() * (1 - pl)
		if pl == pg {
			continue
		}
		for _, m := range []PairedMethod{Connor, Miettinen} {
			d := Paired{PLost: pl, PGained: pg, Alpha: alpha, Method: m}
			ss, err := d.SampleSize(target)
			if err != nil {
				if errorsIsInput(err) {
					continue // beyond maxSampleSize
				}
				t.Fatal(err)
			}
			if ss.Power < target || ss.N < 1 || (ss.N > 1 && d.approxPower(float64(ss.N-1)) >= target) {
				t.Fatalf("%+v at %v: N = %d (power %v) is not the smallest reaching it", d, target, ss.N, ss.Power)
			}
		}
		d := Independent{P1: r.Float64(), P2: r.Float64(), Alpha: alpha}
		ss, err := d.SampleSize(target)
		if err != nil {
			continue
		}
		if ss.Power < target || (ss.N > 1 && d.power(float64(ss.N-1)) >= target) {
			t.Fatalf("%+v at %v: N = %d (power %v) is not the smallest reaching it", d, target, ss.N, ss.Power)
		}
	}
}

// TestExactSampleSizeProperties: for random designs the exact sample
// size satisfies its definition (every n in [N, ⌊1.1N⌋] reaches the
// target, FirstN is a crossing), and reports the test's actual size at
// N, at most α.
func TestExactSampleSizeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	checked := 0
	for checked < 25 {
		pl := 0.3 * r.Float64()
		pg := pl + 0.05 + 0.4*r.Float64()
		if pl+pg > 1 {
			continue
		}
		if r.IntN(2) == 0 {
			pl, pg = pg, pl
		}
		alpha := []float64{0.05, 0.01, 0.1}[r.IntN(3)]
		target := 0.5 + 0.45*r.Float64()
		d := Paired{PLost: pl, PGained: pg, Alpha: alpha, Method: Exact}
		ss, err := d.SampleSize(target)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for n := ss.N; n <= ss.N*11/10; n++ {
			if p, _ := d.Power(n); p < target {
				t.Fatalf("%+v at %v: N = %d but power(%d) = %v", d, target, ss.N, n, p)
			}
		}
		if p, _ := d.Power(ss.FirstN); p < target || ss.FirstN > ss.N {
			t.Fatalf("%+v: FirstN %d has power %v", d, ss.FirstN, p)
		}
		if ss.FirstN > 1 {
			if p, _ := d.Power(ss.FirstN - 1); p >= target {
				t.Fatalf("%+v: FirstN−1 = %d already reaches %v", d, ss.FirstN-1, target)
			}
		}
		size, _ := ExactSize(ss.N, pl+pg, alpha)
		if !ss.HasActualSize || ss.ActualSize != size || size > alpha {
			t.Fatalf("%+v: actual size %v (has %v), ExactSize %v", d, ss.ActualSize, ss.HasActualSize, size)
		}
		if len(ss.Warnings) == 0 || !strings.Contains(ss.Warnings[0], "not monotone") {
			t.Fatalf("%+v: no saw-tooth warning: %q", d, ss.Warnings)
		}
	}
}

// TestExactSawTooth shows why the exact sample size is defined over a
// band: with every pair discordant (ψ = 1) the power is the conditional
// power at m = n, which falls as well as rises with n.
func TestExactSawTooth(t *testing.T) {
	d := Paired{PLost: 0.4, PGained: 0.6, Alpha: 0.05, Method: Exact}
	falls := 0
	prev := 0.0
	for n := 1; n <= 300; n++ {
		p, err := d.Power(n)
		if err != nil {
			t.Fatal(err)
		}
		if p < prev {
			falls++
		}
		prev = p
	}
	if falls < 10 {
		t.Fatalf("exact power fell only %d times over n = 1..300", falls)
	}
}
