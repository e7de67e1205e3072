package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DiffMethod names a confidence interval for a difference of two rates.
type DiffMethod string

// Interval methods for the difference of two independent rates.
const (
	// DiffNewcombe is Newcombe's hybrid score interval, Newcombe (1998),
	// "Interval estimation for the difference between independent
	// proportions", method 10, built from the two Wilson intervals.
	DiffNewcombe DiffMethod = "newcombe"
	// DiffWald is (a−b) ± z·SE with the unpooled standard error.
	DiffWald DiffMethod = "wald"
	// DiffAgrestiCaffo adds one success and one failure to each sample and
	// applies the Wald formula (Agresti & Caffo 2000).
	DiffAgrestiCaffo DiffMethod = "agresti-caffo"
)

// DiffMethods lists the difference methods in the order reports show them;
// the score intervals DiffMiettinenNurminen and DiffMee are in score.go.
var DiffMethods = []DiffMethod{DiffNewcombe, DiffWald, DiffAgrestiCaffo, DiffMiettinenNurminen, DiffMee}

// Comparison compares two independent rates A and B (two runs, two
// systems): what `tally compare` reports.
type Comparison struct {
	A, B       Proportion
	Confidence float64
	// Difference is A's rate minus B's.
	Difference float64
	// StandardError is the unpooled standard error of the difference,
	// sqrt(a(1−a)/nA + b(1−b)/nB).
	StandardError float64
	// Z and PValue are the pooled two-sided z-test of equal rates
	// (statsmodels' proportions_ztest; R's prop.test without correction
	// gives Z²). ZDefined is false when the pooled rate is 0 or 1, where
	// the test has no variance to divide by.
	Z, PValue float64
	ZDefined  bool
	Intervals []Interval
	// InStandardErrors is Difference / StandardError; InStandardErrorsDefined
	// is false when the standard error is 0 (both rates at 0 or 1), where
	// the ratio is undefined even for a zero difference.
	InStandardErrors        float64
	InStandardErrorsDefined bool
	// Distinguishable reports whether the z-test rejects equal rates at
	// α = 1 − Confidence. When false, the difference is indistinguishable
	// from run-to-run noise at this sample size.
	Distinguishable bool
	Warnings        []string
}

// Compare compares two independent rates at the given confidence level.
func Compare(a, b Proportion, confidence float64) (Comparison, error) {
	if err := a.Validate(); err != nil {
		return Comparison{}, err
	}
	if err := b.Validate(); err != nil {
		return Comparison{}, err
	}
	if err := ValidateConfidence(confidence); err != nil {
		return Comparison{}, err
	}
	z := Z(confidence)
	pa, pb := a.Estimate(), b.Estimate()
	c := Comparison{
		A: a, B: b, Confidence: confidence,
		Difference:    pa - pb,
		StandardError: math.Hypot(a.StandardError(), b.StandardError()),
	}
	c.Z, c.PValue, c.ZDefined = pooledZTest(a, b)
	c.Distinguishable = c.ZDefined && c.PValue < 1-confidence
	if c.StandardError > 0 {
		c.InStandardErrors, c.InStandardErrorsDefined = c.Difference/c.StandardError, true
	}

	wa, _ := a.Interval(Wilson, confidence)
	wb, _ := b.Interval(Wilson, confidence)
	lo, hi := NewcombeHybrid(pa, pb, wa, wb, 0)
	c.Intervals = append(c.Intervals, Interval{Method: string(DiffNewcombe), Lower: lo, Upper: hi})
	h := z * c.StandardError
	c.Intervals = append(c.Intervals, Interval{Method: string(DiffWald), Lower: clipDiff(c.Difference - h), Upper: clipDiff(c.Difference + h)})
	lo, hi = agrestiCaffo(a, b, z)
	c.Intervals = append(c.Intervals, Interval{Method: string(DiffAgrestiCaffo), Lower: lo, Upper: hi})
	lo, hi = scoreInterval(a, b, z, true)
	c.Intervals = append(c.Intervals, Interval{Method: string(DiffMiettinenNurminen), Lower: lo, Upper: hi})
	lo, hi = scoreInterval(a, b, z, false)
	c.Intervals = append(c.Intervals, Interval{Method: string(DiffMee), Lower: lo, Upper: hi})

	if !c.ZDefined {
		c.Warnings = append(c.Warnings, "z-test undefined: the pooled rate is 0 or 1, so the rates are identical at the boundary")
	}
	if c.StandardError == 0 {
		c.Warnings = append(c.Warnings, "wald: zero width; both rates are at 0 or 1")
	}
	return c, nil
}

// Interval returns the comparison's interval by method m.
func (c Comparison) Interval(m DiffMethod) (Interval, bool) {
	for _, iv := range c.Intervals {
		if iv.Method == string(m) {
			return iv, true
		}
	}
	return Interval{}, false
}

// pooledZTest is the two-sided z-test of equal rates with the pooled
// variance p(1−p)(1/nA + 1/nB), p = (kA+kB)/(nA+nB).
func pooledZTest(a, b Proportion) (z, p float64, ok bool) {
	pool := float64(a.K+b.K) / float64(a.N+b.N)
	v := pool * (1 - pool) * (1/float64(a.N) + 1/float64(b.N))
	if v <= 0 {
		return 0, 0, false
	}
	z = (a.Estimate() - b.Estimate()) / math.Sqrt(v)
	return z, 2 * distuv.UnitNormal.Survival(math.Abs(z)), true
}

// NewcombeHybrid combines two single-rate intervals ci1 around p1 and ci2
// around p2 into an interval for p1 − p2: Newcombe's method 10 for
// independent rates (phi = 0; Newcombe 1998, Stat Med 17:873) and, with
// phi the correlation correction, for paired rates (Newcombe 1998,
// Stat Med 17:2635, method 10):
//
//	L = δ − sqrt((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²)
//	U = δ + sqrt((u1−p1)² − 2φ(u1−p1)(p2−l2) + (p2−l2)²)
//
// The bounds are clipped to [−1, 1].
func NewcombeHybrid(p1, p2 float64, ci1, ci2 Interval, phi float64) (lo, hi float64) {
	d := p1 - p2
	dl1, du2 := p1-ci1.Lower, ci2.Upper-p2
	du1, dl2 := ci1.Upper-p1, p2-ci2.Lower
	lo = d - math.Sqrt(math.Max(0, dl1*dl1-2*phi*dl1*du2+du2*du2))
	hi = d + math.Sqrt(math.Max(0, du1*du1-2*phi*du1*dl2+dl2*dl2))
	return clipDiff(lo), clipDiff(hi)
}

// agrestiCaffo adds one success and one failure to each sample
// (Agresti & Caffo 2000, "Simple and effective confidence intervals for
// proportions and differences of proportions").
func agrestiCaffo(a, b Proportion, z float64) (lo, hi float64) {
	na, nb := float64(a.N+2), float64(b.N+2)
	pa, pb := float64(a.K+1)/na, float64(b.K+1)/nb
	h := z * math.Sqrt(pa*(1-pa)/na+pb*(1-pb)/nb)
	return clipDiff(pa - pb - h), clipDiff(pa - pb + h)
}

func clipDiff(x float64) float64 { return math.Max(-1, math.Min(1, x)) }
