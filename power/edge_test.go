package power

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/tally-eval/tally/stats"
)

func TestParseTable(t *testing.T) {
	good := map[string]Table{
		"1,1,7,12":         {1, 1, 7, 12},
		" 0 , 0 , 0 , 10 ": {0, 0, 0, 10},
		"0,1,0,0":          {0, 1, 0, 0},
	}
	for s, want := range good {
		got, err := ParseTable(s)
		if err != nil || got != want {
			t.Errorf("ParseTable(%q) = %v, %v; want %v", s, got, err, want)
		}
		if back, err := ParseTable(got.String()); err != nil || back != got {
			t.Errorf("ParseTable(%q.String()) = %v, %v", s, back, err)
		}
	}
	bad := []struct{ in, mention string }{
		{"", "1 comma"},
		{"1,2,3", "3 comma"},
		{"1,2,3,4,5", "5 comma"},
		{"x,1,2,3", "A (both succeeded)"},
		{"1,1.5,2,3", "B (lost"},
		{"1,2,,3", "C (gained"},
		{"1,2,3,four", "D (both failed)"},
		{"1,-2,3,4", "B (lost: reference succeeded, candidate failed) must not be negative"},
		{"0,0,0,0", "empty"},
		{"99999999999999999999,0,0,0", "too large"},
		{"10000000,1,0,0", "more than 10000000 pairs"},
	}
	for _, c := range bad {
		_, err := ParseTable(c.in)
		if err == nil || !errorsIsInput(err) {
			t.Errorf("ParseTable(%q) error = %v; want an input error", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.mention) {
			t.Errorf("ParseTable(%q) error %q does not mention %q", c.in, err, c.mention)
		}
	}
	// ErrInput is stats.ErrInput: one sentinel for the CLI.
	if ErrInput != stats.ErrInput {
		t.Error("power.ErrInput is not stats.ErrInput")
	}
}

// TestInputErrors: every invalid input returns an error matching
// ErrInput, never a value.
func TestInputErrors(t *testing.T) {
	nan := math.NaN()
	ok := Paired{PLost: 0.1, PGained: 0.2, Alpha: 0.05, Method: Connor}
	errs := map[string]error{}
	add := func(name string, err error) { errs[name] = err }

	_, err := McNemar(Table{-1, 0, 0, 1}, 0.95)
	add("mcnemar negative cell", err)
	_, err = McNemar(Table{}, 0.95)
	add("mcnemar empty", err)
	for _, c := range []float64{0, 1, -0.5, 1.5, nan} {
		_, err = McNemar(Table{1, 2, 3, 4}, c)
		add("mcnemar confidence", err)
	}
	for name, d := range map[string]Paired{
		"p_lost negative":  {PLost: -0.1, PGained: 0.2, Alpha: 0.05, Method: Connor},
		"p_lost above 1":   {PLost: 1.1, PGained: 0, Alpha: 0.05, Method: Connor},
		"p_lost NaN":       {PLost: nan, PGained: 0.2, Alpha: 0.05, Method: Connor},
		"p_gained NaN":     {PLost: 0.1, PGained: nan, Alpha: 0.05, Method: Exact},
		"sum above 1":      {PLost: 0.6, PGained: 0.5, Alpha: 0.05, Method: Exact},
		"alpha 0":          {PLost: 0.1, PGained: 0.2, Alpha: 0, Method: Connor},
		"alpha 1":          {PLost: 0.1, PGained: 0.2, Alpha: 1, Method: Miettinen},
		"alpha NaN":        {PLost: 0.1, PGained: 0.2, Alpha: nan, Method: Connor},
		"method unknown":   {PLost: 0.1, PGained: 0.2, Alpha: 0.05, Method: "bayes"},
		"method empty":     {PLost: 0.1, PGained: 0.2, Alpha: 0.05},
		"equal rates":      {PLost: 0.2, PGained: 0.2, Alpha: 0.05, Method: Connor},
		"no discordance":   {PLost: 0, PGained: 0, Alpha: 0.05, Method: Exact},
		"exact equal rate": {PLost: 0.3, PGained: 0.3, Alpha: 0.05, Method: Exact},
	} {
		if !strings.Contains(name, "equal") && !strings.Contains(name, "discordance") {
			_, err = d.Power(10)
			add("paired power "+name, err)
		}
		_, err = d.SampleSize(0.8)
		add("paired sample size "+name, err)
	}
	for _, n := range []int{0, -5} {
		_, err = ok.Power(n)
		add("paired n", err)
	}
	_, err = Paired{PLost: 0.1, PGained: 0.2, Alpha: 0.05, Method: Exact}.Power(4 * MaxExactPairs) // 1.2e6 discordant expected
	add("exact above limit", err)
	_, err = Paired{PLost: 0.1, PGained: 0.1001, Alpha: 0.05, Method: Exact}.SampleSize(0.99)
	add("exact sample size beyond the limit", err)
	for _, p := range []float64{0, 1, nan, -1} {
		_, err = ok.SampleSize(p)
		add("paired target power", err)
		_, err = Independent{P1: 0.3, P2: 0.4, Alpha: 0.05}.SampleSize(p)
		add("independent target power", err)
		_, err = IndependentMDE(0.8, 100, 0.05, p)
		add("independent MDE power", err)
		_, err = PairedMDE(100, 0.05, p)
		add("paired MDE power", err)
		_, err = Plan(0.83, 200, 3, 0.05, p)
		add("plan power", err)
		_, err = Plan(0.83, 200, 3, p, 0.8)
		add("plan alpha", err)
		_, err = ExactSize(10, 0.5, p)
		add("exact size alpha", err)
	}
	for name, d := range map[string]Independent{
		"p1 negative": {P1: -0.1, P2: 0.5, Alpha: 0.05},
		"p2 above 1":  {P1: 0.1, P2: 1.5, Alpha: 0.05},
		"p1 NaN":      {P1: nan, P2: 0.5, Alpha: 0.05},
		"alpha":       {P1: 0.1, P2: 0.5, Alpha: 1},
	} {
		_, err = d.Power(10)
		add("independent power "+name, err)
	}
	_, err = Independent{P1: 0.3, P2: 0.3, Alpha: 0.05}.SampleSize(0.8)
	add("independent equal rates", err)
	_, err = Independent{P1: 0.3, P2: 0.4, Alpha: 0.05}.Power(0)
	add("independent n", err)
	_, err = IndependentMDE(1.2, 100, 0.05, 0.8)
	add("independent MDE rate", err)
	_, err = IndependentMDE(0.8, 0, 0.05, 0.8)
	add("independent MDE n", err)
	_, err = PairedMDE(0, 0.05, 0.8)
	add("paired MDE n", err)
	_, err = ExactSize(0, 0.5, 0.05)
	add("exact size n", err)
	_, err = ExactSize(10, 1.5, 0.05)
	add("exact size pd", err)
	for name, f := range map[string]func() error{
		"rate NaN":                 func() error { _, e := Plan(nan, 200, 0, 0.05, 0.8); return e },
		"rate above 1":             func() error { _, e := Plan(1.01, 200, 0, 0.05, 0.8); return e },
		"conversations 0":          func() error { _, e := Plan(0.83, 0, 0, 0.05, 0.8); return e },
		"catastrophic negative":    func() error { _, e := Plan(0.83, 200, -1, 0.05, 0.8); return e },
		"catastrophic > successes": func() error { _, e := Plan(0.5, 10, 6, 0.05, 0.8); return e },
	} {
		add("plan "+name, f())
	}
	_, err = ParsePairedMethod("normal")
	add("parse paired method", err)
	_, err = ParseTestMethod("fisher")
	add("parse test method", err)

	for name, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !errorsIsInput(err) {
			t.Errorf("%s: error %q does not match ErrInput", name, err)
		}
	}
}

// TestDefinedEdges pins the values at the boundaries that the formulas
// leave as 0/0 or that the DESIGN defines.
func TestDefinedEdges(t *testing.T) {
	// No discordant pairs possible: no test ever rejects.
	for _, m := range PairedMethods {
		p, err := Paired{PLost: 0, PGained: 0, Alpha: 0.05, Method: m}.Power(50)
		if err != nil || p != 0 {
			t.Errorf("%s with p_lost = p_gained = 0: power %v, %v; want 0", m, p, err)
		}
	}
	// p1 = p2: R's strict = FALSE power is α/2 (one tail), also at 0 and 1
	// where the formula is 0/0.
	for _, p := range []float64{0, 0.4, 1} {
		got, err := Independent{P1: p, P2: p, Alpha: 0.05}.Power(100)
		if err != nil || got != 0.025 {
			t.Errorf("p1 = p2 = %v: power %v, %v; want 0.025", p, got, err)
		}
	}
	// Every pair discordant and all one way: Connor's statistic has no
	// variance; it rejects once √n·1 ≥ z·1, n ≥ 3.84.
	for n, want := range map[int]float64{3: 0, 4: 1} {
		got, _ := Paired{PLost: 1, PGained: 0, Alpha: 0.05, Method: Connor}.Power(n)
		if got != want {
			t.Errorf("connor p_lost = 1, n = %d: power %v, want %v", n, got, want)
		}
	}
	// B = n and C = n pin Tango's bounds at −1 and 1.
	r := mustMcNemar(t, Table{0, 5, 0, 0}, 0.95)
	if iv, _ := r.Interval(IntervalTango); iv.Lower != -1 {
		t.Errorf("B = n: tango lower %v, want -1", iv.Lower)
	}
	r = mustMcNemar(t, Table{0, 0, 5, 0}, 0.95)
	if iv, _ := r.Interval(IntervalTango); iv.Upper != 1 {
		t.Errorf("C = n: tango upper %v, want 1", iv.Upper)
	}
	// B+C = 0: Tango's interval is ±z²/(n+z²); Wald has zero width.
	r = mustMcNemar(t, Table{4, 0, 0, 6}, 0.95)
	z := stats.Z(0.95)
	if iv, _ := r.Interval(IntervalTango); math.Abs(iv.Upper-z*z/(10+z*z)) > 1e-14 || math.Abs(iv.Lower+iv.Upper) > 1e-14 {
		t.Errorf("B+C = 0: tango [%v, %v], want ±%v", iv.Lower, iv.Upper, z*z/(10+z*z))
	}
	if len(r.Warnings) < 2 {
		t.Errorf("B+C = 0: warnings %q", r.Warnings)
	}
	// A target power at or below α/2 is met by every effect.
	if m, _ := PairedMDE(10, 0.05, 0.02); !m.Detectable || m.Effect != 0 {
		t.Errorf("paired MDE at power 0.02: %+v", m)
	}
	// Too few conversations to see any drop.
	if m, _ := IndependentMDE(0.05, 20, 0.05, 0.8); m.Detectable {
		t.Errorf("independent MDE at 0.05 over 20: %+v, want undetectable", m)
	}
	if m, _ := IndependentMDE(0, 200, 0.05, 0.8); m.Detectable {
		t.Errorf("independent MDE at rate 0: %+v, want undetectable", m)
	}
	if m, _ := PairedMDE(3, 0.05, 0.8); m.Detectable {
		t.Errorf("paired MDE at 3 pairs: %+v, want undetectable (3 < z²)", m)
	}
	// Dyadic α: with B = 0, C = 5 the exact p is 2/32 = 0.0625 exactly,
	// and at α = 0.0625 the test rejects, so power with every pair a gain
	// and every pair discordant at n = 5 is 1.
	p, _ := Paired{PLost: 0, PGained: 1, Alpha: 0.0625, Method: Exact}.Power(5)
	if p != 1 {
		t.Errorf("dyadic alpha tie: power %v, want 1", p)
	}
	// A target below the power at n → 0 needs one pair.
	ss, err := Paired{PLost: 0.1, PGained: 0.2, Alpha: 0.5, Method: Connor}.SampleSize(0.1)
	if err != nil || ss.N != 1 || ss.Unrounded != 0 {
		t.Errorf("tiny target: %+v, %v", ss, err)
	}
}

// TestMcNemarExactAtSymmetry: where 2m+1 = B+C (m = min(B, C)),
// P(X ≤ m) = ½ exactly for X ~ Bin(B+C, ½), so the exact p is 1 to the
// bit, as R's binom.test(9, 19)$p.value == 1, and mid-p is
// 1 − P(X = m); at B = C the exact p is 1 (binom.test(10, 20)$p.value
// == 1) and the mid-p 1 − ½·P(X = B) (TestMidP).
// The incomplete beta alone gave 0.9999999999999987 at B = 10, C = 9.
func TestMcNemarExactAtSymmetry(t *testing.T) {
	ds := []int{9999999}
	for d := 1; d <= 2001; d += 2 {
		ds = append(ds, d)
	}
	for _, d := range ds {
		m := (d - 1) / 2
		if got := halfBinomialCDF(d, m); got != 0.5 {
			t.Errorf("P(Bin(%d, ½) ≤ %d) = %.17g, want ½ exactly", d, m, got)
		}
		for _, tb := range []Table{{B: m + 1, C: m}, {B: m, C: m + 1}} {
			r := mustMcNemar(t, tb, 0.95)
			if ex, _ := r.Test(TestExact); ex.PValue != 1 {
				t.Errorf("%v: exact p %.17g, want 1 exactly", tb, ex.PValue)
			}
		}
	}
	// B = 10, C = 9: mid-p = 1 − C(19, 9)/2^19 = 1 − 92378/524288, a
	// float64 exactly. Allow 2 ulps (a fused multiply-add may round
	// differently); R's 2*pbinom(8, 19, .5) + dbinom(9, 19, .5) is 3 ulps
	// off, and gonum's tail and point mass gave 0.8238029479980437, 29.
	r := mustMcNemar(t, Table{5, 10, 9, 6}, 0.95)
	mid, _ := r.Test(TestMidP)
	check(t, "5,10,9,6 mid-p", mid.PValue, 1-92378.0/524288, 2.3e-16, "1 − C(19, 9)/2^19, exact")
	for _, b := range []int{1, 10, 500, 4999999} {
		r := mustMcNemar(t, Table{B: b, C: b}, 0.95)
		if ts, _ := r.Test(TestExact); ts.PValue != 1 {
			t.Errorf("B = C = %d: exact p %.17g, want 1", b, ts.PValue)
		}
	}
}

// TestHalfBinomialCDF checks the tail, the point mass and the mid-p of
// Bin(n, ½) against exact rational sums over every m for n up to 300:
// the point mass to a relative 4e−15 within two standard deviations of
// the centre (where the tails sum it) and 1e−12 further out; the tail and
// mid-p to 1e−12 (the far tails are gonum's, some n·1e−15).
func TestHalfBinomialCDF(t *testing.T) {
	for n := 1; n <= 300; n++ {
		den := new(big.Int).Lsh(big.NewInt(1), uint(n))
		sum, c := new(big.Int), big.NewInt(1)
		prevTail := new(big.Int)
		for m := 0; m <= n; m++ {
			if m > 0 {
				c.Mul(c, big.NewInt(int64(n-m+1)))
				c.Quo(c, big.NewInt(int64(m)))
			}
			prevTail.Set(sum)
			sum.Add(sum, c)
			tail, _ := new(big.Rat).SetFrac(sum, den).Float64()
			point, _ := new(big.Rat).SetFrac(c, den).Float64()
			if point < 1e-300 {
				continue // gonum's tail may underflow differently down there
			}
			tol := 1e-12 // R's dbinom(7, 49, .5) is 1e−13 off too
			if math.Abs(float64(2*m-n)) <= math.Sqrt(float64(n)) {
				tol = 4e-15 // within two standard deviations of the centre
			}
			if got := halfBinomialProb(n, m); math.Abs(got-point) > tol*point {
				t.Fatalf("P(Bin(%d, ½) = %d) = %.17g, want %.17g", n, m, got, point)
			}
			if got := halfBinomialCDF(n, m); math.Abs(got-tail) > 1e-12*tail {
				t.Fatalf("P(Bin(%d, ½) ≤ %d) = %.17g, want %.17g", n, m, got, tail)
			}
			if 2*m < n {
				// 2·P(X < m) + P(X = m) = (2·prevTail + c) / 2^n.
				num := new(big.Int).Add(new(big.Int).Lsh(prevTail, 1), c)
				mid, _ := new(big.Rat).SetFrac(num, den).Float64()
				if got := halfBinomialMidP(n, m); math.Abs(got-mid) > 1e-12*mid {
					t.Fatalf("mid-p of Bin(%d, ½) at %d = %.17g, want %.17g", n, m, got, mid)
				}
			}
		}
	}
	if halfBinomialCDF(10, -1) != 0 || halfBinomialCDF(10, 10) != 1 || halfBinomialCDF(10, 12) != 1 ||
		halfBinomialProb(10, -1) != 0 || halfBinomialProb(10, 11) != 0 || halfBinomialProb(1074, 0) != 0x1p-1074 {
		t.Error("out-of-range or edge m")
	}
}

// TestExactBeyondMaxPairs: beyond MaxExactPairs pairs the exact power is
// still computed while few discordant pairs are expected (a rare
// catastrophic change: 3 lost in a billion). References from base R,
// testdata/exact_beyond_limit.R (the rejection rule of exactTest summed
// over dbinom(m, n, ψ)):
//
//	1 - pbinom(5, 1e9, 3e-9)          = 0.0839179417288
//	n = 2e6, p_lost 2e-6, p_gained 1e-6 → 0.04570238375
//	n = 5e8, p_lost 4e-8, p_gained 1e-8 → 0.832644208992
func TestExactBeyondMaxPairs(t *testing.T) {
	for _, c := range []struct {
		n      int
		pl, pg float64
		want   float64
	}{
		{1e9, 3e-9, 0, 0.0839179417288},
		{2e6, 2e-6, 1e-6, 0.04570238375},
		{5e8, 4e-8, 1e-8, 0.832644208992},
	} {
		got, err := Paired{PLost: c.pl, PGained: c.pg, Alpha: 0.05, Method: Exact}.Power(c.n)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("n %d, p_lost %v, p_gained %v: %v, %v; want %v (R)", c.n, c.pl, c.pg, got, err, c.want)
		}
	}
}
