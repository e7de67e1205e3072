package power

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tally-eval/tally/stats"
)

// TestMethod names a test of equal marginal rates in a paired table.
type TestMethod string

// The McNemar tests. Their names are part of the CLI and JSON contract.
// All four look only at the discordant pairs B and C; with B+C = 0 every
// test has statistic 0 and p = 1.
const (
	// TestExact is the exact conditional test: given B+C discordant
	// pairs, B ~ Bin(B+C, ½) under equal rates, and the two-sided
	// p = min(1, 2·P(X ≤ min(B,C))) (McNemar 1947; R's
	// binom.test(B, B+C)).
	TestExact TestMethod = "exact"
	// TestMidP is the mid-p version of TestExact as Fagerland, Lydersen
	// & Laake define it (2013, BMC Med Res Methodol 13:91, and its
	// supplement "How to calculate the McNemar mid-p test"): with
	// m = min(B,C) and X ~ Bin(B+C, ½),
	//
	//	mid-p = 2·P(X < m) + P(X = m)   when B ≠ C,
	//	mid-p = 1 − ½·P(X = B)          when B = C.
	//
	// Both are the mid-p of the two-sided test whose statistic is
	// |X − (B+C)/2|: the outcomes further from the centre than B count
	// whole and those exactly as far count half. At B ≠ C two outcomes
	// tie (B and C); at B = C only one, which is why the formula written
	// for B ≠ C, which gives 1 there, is not used (tally gave 1 before
	// issue 13). Example: 10,3,3,10 gives 1 − ½·20/64 = 0.84375.
	TestMidP TestMethod = "mid-p"
	// TestAsymptotic is McNemar's statistic (B−C)²/(B+C) against χ²(1)
	// (R's mcnemar.test(correct = FALSE)).
	TestAsymptotic TestMethod = "asymptotic"
	// TestAsymptoticCC is the continuity-corrected statistic
	// max(0, |B−C|−1)²/(B+C) against χ²(1), as R's mcnemar.test, which
	// applies no correction when B = C.
	TestAsymptoticCC TestMethod = "asymptotic-cc"
)

// TestMethods lists the tests in the order reports show them.
var TestMethods = []TestMethod{TestExact, TestMidP, TestAsymptotic, TestAsymptoticCC}

// Test is the outcome of one test of equal marginal rates.
type Test struct {
	Method string
	// Statistic is the χ² statistic of the asymptotic tests;
	// HasStatistic is false for exact and mid-p, which have none, except
	// when B+C = 0: then every test has statistic 0 and p = 1 by
	// definition, and all four say so.
	Statistic    float64
	HasStatistic bool
	PValue       float64
}

// Result is what `tally mcnemar` reports about a paired table.
type Result struct {
	Table      Table
	Confidence float64
	Pairs      int
	Discordant int
	// ReferenceRate is (A+B)/n, CandidateRate (A+C)/n, and Difference
	// their difference candidate − reference, (C−B)/n.
	ReferenceRate float64
	CandidateRate float64
	Difference    float64
	// Tests holds one Test per TestMethods entry, in that order.
	Tests []Test
	// Intervals holds one interval for Difference per IntervalMethods
	// entry, in that order.
	Intervals []stats.Interval
	// Warnings says where a test or interval is degenerate or weak, in
	// words a reader of the report can act on.
	Warnings []string
}

// McNemar runs every test in TestMethods and computes every interval in
// IntervalMethods at the given confidence level for the paired table t.
func McNemar(t Table, confidence float64) (Result, error) {
	return McNemarWith(t, confidence, IntervalMethods)
}

// McNemarWith is McNemar with the intervals of methods, in that order
// (`tally mcnemar` passes AllIntervalMethods).
func McNemarWith(t Table, confidence float64, methods []IntervalMethod) (Result, error) {
	if err := t.Validate(); err != nil {
		return Result{}, err
	}
	if err := stats.ValidateConfidence(confidence); err != nil {
		return Result{}, err
	}
	for _, m := range methods {
		if !slices.Contains(AllIntervalMethods, m) {
			return Result{}, inputErrorf("unknown paired interval %q (want %s)", m, joinNames(AllIntervalMethods))
		}
	}
	ivs := make([]stats.Interval, len(methods))
	for i, m := range methods {
		ivs[i] = pairedInterval(t, m, confidence)
	}
	n := float64(t.Pairs())
	r := Result{
		Table:         t,
		Confidence:    confidence,
		Pairs:         t.Pairs(),
		Discordant:    t.Discordant(),
		ReferenceRate: float64(t.A+t.B) / n,
		CandidateRate: float64(t.A+t.C) / n,
		Difference:    float64(t.C-t.B) / n,
		Tests:         mcnemarTests(t.B, t.C),
		Intervals:     ivs,
	}
	switch d := t.Discordant(); {
	case d == 0:
		r.Warnings = append(r.Warnings,
			"no discordant pairs: every test has p = 1; the runs agree on every conversation, so the data say nothing about a difference")
		if _, ok := r.Interval(IntervalWald); ok {
			w := "wald: zero width with no discordant pairs"
			if tango, ok := r.Interval(IntervalTango); ok {
				w += fmt.Sprintf("; tango's ±%.4f reflects only the number of pairs, %d", tango.Upper, t.Pairs())
			}
			r.Warnings = append(r.Warnings, w)
		}
		if iv, ok := r.Interval(IntervalNewcombeUncorrected); ok && t.A > 0 && t.D > 0 {
			width := "zero width"
			if w := iv.Upper - iv.Lower; w >= 5e-5 {
				width = fmt.Sprintf("only %.4f wide", w)
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"newcombe-uncorrected: %s with no discordant pairs, because the plain correlation of the two runs is 1; method 10's continuity correction (newcombe) avoids this", width))
		}
	case d < 25:
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"asymptotic: only %d discordant pairs; below about 25 the χ² approximation is rough, prefer mid-p or exact", d))
	}
	return r, nil
}

// mcnemarTests computes the four tests from the discordant counts.
func mcnemarTests(b, c int) []Test {
	tests := []Test{
		{Method: string(TestExact), PValue: 1},
		{Method: string(TestMidP), PValue: 1},
		{Method: string(TestAsymptotic), HasStatistic: true, PValue: 1},
		{Method: string(TestAsymptoticCC), HasStatistic: true, PValue: 1},
	}
	d := b + c
	switch {
	case d == 0:
		// No discordant pair: p = 1 and statistic 0 for every test, by
		// definition (binom.test refuses n = 0, mcnemar.test gives NaN).
		tests[0].HasStatistic = true
		tests[1].HasStatistic = true
		return tests
	case b == c:
		// B = C: the exact p is 1 (capped), the mid-p 1 − ½·P(X = B)
		// (TestMidP); the statistics are 0 (R applies no correction at
		// B = C).
		tests[1].PValue = 1 - halfBinomialProb(d, b)/2
		return tests
	}
	m := min(b, c)
	tests[0].PValue = math.Min(1, 2*halfBinomialCDF(d, m))
	tests[1].PValue = math.Min(1, halfBinomialMidP(d, m))
	chi := distuv.ChiSquared{K: 1}
	diff := math.Abs(float64(b - c))
	tests[2].Statistic = diff * diff / float64(d)
	tests[2].PValue = chi.Survival(tests[2].Statistic)
	cc := math.Max(0, diff-1)
	tests[3].Statistic = cc * cc / float64(d)
	tests[3].PValue = chi.Survival(tests[3].Statistic)
	return tests
}

// halfBinomialCDF is P(X ≤ m) for X ~ Bin(n, ½), exact where symmetry
// makes it exact: ½ when 2m+1 = n.
//
// gonum's regularized incomplete beta misses ½ by some n·1e−16 (at n = 19,
// m = 9 it gives 0.49999999999999933, an exact McNemar p of
// 0.9999999999999987 where R's binom.test(9, 19) gives 1), and near the
// centre of a large n by far more (2.6e−3 relative at n = 10^7 − 1). Near
// the centre the tail is therefore taken from the symmetry
// P(X ≤ m) = P(X ≥ n−m):
//
//	P(X ≤ m) = (1 − P(m < X < n−m)) / 2   for 2m < n,
//
// with the middle from halfBinomialMiddle, empty at 2m+1 = n. Further
// out the incomplete beta is used as is.
func halfBinomialCDF(n, m int) float64 {
	switch {
	case m < 0:
		return 0
	case m >= n:
		return 1
	case 2*m >= n:
		return 1 - halfBinomialCDF(n, n-m-1)
	}
	if middle, ok := halfBinomialMiddle(n, m); ok {
		return (1 - middle) / 2
	}
	return distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(m))
}

// halfBinomialMidP is the two-sided mid-p 2·P(X < m) + P(X = m) for
// X ~ Bin(n, ½) and 0 ≤ m, 2m < n. Near the centre it is, by the same
// symmetry as halfBinomialCDF, 1 − P(m < X < n−m) − P(X = m): the point
// mass comes from the same source as the middle, and at 2m+1 = n the
// mid-p is 1 − P(X = m) with one rounding. Further out it is
// 2·P(X ≤ m−1) + P(X = m) from gonum's incomplete beta and point mass.
func halfBinomialMidP(n, m int) float64 {
	if middle, ok := halfBinomialMiddle(n, m); ok {
		return 1 - middle - halfBinomialProb(n, m)
	}
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	return 2*bin.CDF(float64(m-1)) + bin.Prob(float64(m))
}

// halfBinomialMiddle is P(m < X < n−m) for X ~ Bin(n, ½) and 0 ≤ m,
// 2m < n, added up from halfBinomialProb's point masses in mirrored
// pairs (X = k and X = n−k are equally likely), from the ends inwards.
// ok is false, and nothing is summed, when P(X ≤ m) is below ¼: there
// the middle is nearly 1, and 1 minus it would lose the tail's leading
// digits. Where ok is true the middle spans under 1.35 standard
// deviations: some 2,100 terms at MaxPairs.
func halfBinomialMiddle(n, m int) (middle float64, ok bool) {
	if (distuv.Binomial{N: float64(n), P: 0.5}).CDF(float64(m)) < 0.25 {
		return 0, false
	}
	lo, hi := m+1, n-m-1
	for ; lo < hi; lo, hi = lo+1, hi-1 {
		middle += 2 * halfBinomialProb(n, lo)
	}
	if lo == hi {
		middle += halfBinomialProb(n, lo)
	}
	return middle, true
}

// halfBinomialProb is P(X = k) for X ~ Bin(n, ½) by Loader's
// saddle-point expansion (Loader 2000, "Fast and accurate computation of
// binomial probabilities"; R's dbinom, which it matches):
//
//	P(X = k) = exp(δ(n) − δ(k) − δ(n−k) − D(k, n/2) − D(n−k, n/2)) · √(n / (2π·k·(n−k)))
//
// with δ the error of Stirling's formula and D(x, μ) = x·ln(x/μ) + μ − x,
// each computed without cancellation. Within two standard deviations of
// the centre, where halfBinomialMiddle sums it, it is good to about
// 2e−15 relative at any n (1e−13 in the far tails, as R's); gonum's
// Binomial.Prob, through log-gamma, loses about log2(n·ln n) bits there
// (3e−12 relative at n = 1,500, 3e−8 at 10^7).
func halfBinomialProb(n, k int) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case k == 0 || k == n:
		return math.Ldexp(1, -n)
	}
	x, y, mu := float64(k), float64(n-k), float64(n)/2
	lc := stirlingError(n) - stirlingError(k) - stirlingError(n-k) - devianceTerm(x, mu) - devianceTerm(y, mu)
	lf := math.Log(2*math.Pi) + math.Log(x) + math.Log1p(-x/float64(n))
	return math.Exp(lc - lf/2)
}

// stirlingErrors holds ln(n!) − ln(√(2πn)·(n/e)^n) for n = 0 … 15 (0 is
// unused), computed to 25 digits with Python's decimal module; they are
// R's sferr_halves at whole n.
var stirlingErrors = [16]float64{
	0,
	0.08106146679532725821967026,
	0.04134069595540929409382208,
	0.02767792568499833914878929,
	0.02079067210376509311152277,
	0.01664469118982119216319487,
	0.01387612882307074799874573,
	0.01189670994589177009505572,
	0.01041126526197209649747857,
	0.009255462182712732917728637,
	0.008330563433362871256469319,
	0.007573675487951840794972024,
	0.006942840107209529865664153,
	0.006408994188004207068439631,
	0.005951370112758847735624416,
	0.005554733551962801371038690,
}

// stirlingError is ln(n!) − ln(√(2πn)·(n/e)^n) for n ≥ 1: a table up to
// 15, the asymptotic series 1/(12n) − 1/(360n³) + … beyond (as R's
// stirlerr, with as many terms as n needs for full precision).
func stirlingError(n int) float64 {
	if n < len(stirlingErrors) {
		return stirlingErrors[n]
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	x := float64(n)
	xx := x * x
	switch {
	case n > 500:
		return (s0 - s1/xx) / x
	case n > 80:
		return (s0 - (s1-s2/xx)/xx) / x
	case n > 35:
		return (s0 - (s1-(s2-s3/xx)/xx)/xx) / x
	}
	return (s0 - (s1-(s2-(s3-s4/xx)/xx)/xx)/xx) / x
}

// devianceTerm is x·ln(x/mu) + mu − x, by a series in v = (x−mu)/(x+mu)
// when x is near mu, where the direct form would cancel (Loader's bd0).
func devianceTerm(x, mu float64) float64 {
	if math.Abs(x-mu) < 0.1*(x+mu) {
		v := (x - mu) / (x + mu)
		s := (x - mu) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/mu) + mu - x
}

// Test returns the result's test by method m.
func (r Result) Test(m TestMethod) (Test, bool) {
	for _, t := range r.Tests {
		if t.Method == string(m) {
			return t, true
		}
	}
	return Test{}, false
}

// Interval returns the result's interval by method m.
func (r Result) Interval(m IntervalMethod) (stats.Interval, bool) {
	for _, iv := range r.Intervals {
		if iv.Method == string(m) {
			return iv, true
		}
	}
	return stats.Interval{}, false
}

// ParseTestMethod returns the TestMethod called name, or an error listing
// the valid names.
func ParseTestMethod(name string) (TestMethod, error) {
	for _, m := range TestMethods {
		if string(m) == name {
			return m, nil
		}
	}
	return "", inputErrorf("unknown test %q (want %s)", name, joinNames(TestMethods))
}

func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}
