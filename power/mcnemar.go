package power

import (
	"fmt"
	"math"
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
	// TestMidP is the mid-p version of TestExact,
	// min(1, 2·P(X < m) + P(X = m)) with m = min(B,C), which is 1 when
	// B = C (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol
	// 13:91; they give 1 − P(X = m)/2 at B = C, we keep the formula).
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
	// HasStatistic is false for exact and mid-p, which have none.
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
	if err := t.Validate(); err != nil {
		return Result{}, err
	}
	if err := stats.ValidateConfidence(confidence); err != nil {
		return Result{}, err
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
		Intervals:     pairedIntervals(t, confidence),
	}
	switch d := t.Discordant(); {
	case d == 0:
		tango, _ := r.Interval(IntervalTango)
		r.Warnings = append(r.Warnings,
			"no discordant pairs: every test has p = 1; the runs agree on every conversation, so the data say nothing about a difference",
			fmt.Sprintf("wald: zero width with no discordant pairs; tango's ±%.4f reflects only the number of pairs, %d", tango.Upper, t.Pairs()))
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
	if d == 0 || b == c {
		// B = C: both exact p-values are 1 by their formulas (the
		// exact one is capped, mid-p is P(X<m)+P(X=m)+P(X>m)); the
		// statistics are 0 (R applies no correction at B = C).
		return tests
	}
	m := float64(min(b, c))
	bin := distuv.Binomial{N: float64(d), P: 0.5}
	tests[0].PValue = math.Min(1, 2*bin.CDF(m))
	tests[1].PValue = math.Min(1, 2*bin.CDF(m-1)+bin.Prob(m))
	chi := distuv.ChiSquared{K: 1}
	diff := math.Abs(float64(b - c))
	tests[2].Statistic = diff * diff / float64(d)
	tests[2].PValue = chi.Survival(tests[2].Statistic)
	cc := math.Max(0, diff-1)
	tests[3].Statistic = cc * cc / float64(d)
	tests[3].PValue = chi.Survival(tests[3].Statistic)
	return tests
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
