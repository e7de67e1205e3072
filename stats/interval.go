package stats

import (
	"math"
	"strings"
)

// Method names a confidence interval for a single rate.
type Method string

// The interval methods for one rate. Their names are part of the CLI and
// JSON contract.
const (
	// Wald is p̂ ± z·sqrt(p̂(1−p̂)/n), clipped to [0,1]. It is the formula
	// people quote and the one that behaves worst near 0 and 1.
	Wald Method = "wald"
	// Wilson is the score interval (Wilson 1927), R's prop.test(correct=FALSE).
	Wilson Method = "wilson"
	// WilsonCC is the continuity-corrected score interval, Newcombe (1998),
	// "Two-sided confidence intervals for the single proportion", method 4.
	WilsonCC Method = "wilson-cc"
	// AgrestiCoull adds z²/2 successes and z²/2 failures and applies the
	// Wald formula (Agresti & Coull 1998), clipped to [0,1].
	AgrestiCoull Method = "agresti-coull"
	// Jeffreys is the equal-tailed Beta(k+½, n−k+½) interval, with the
	// lower bound 0 at k = 0 and the upper bound 1 at k = n (Brown, Cai &
	// DasGupta 2001, section 4.1.2).
	Jeffreys Method = "jeffreys"
	// ClopperPearson is the "exact" interval inverting two one-sided
	// binomial tests (Clopper & Pearson 1934), R's binom.test.
	ClopperPearson Method = "clopper-pearson"
)

// Methods lists every single-rate method in the order reports show them.
var Methods = []Method{Wald, Wilson, WilsonCC, AgrestiCoull, Jeffreys, ClopperPearson}

// ParseMethod returns the Method called name, or an error listing the
// valid names.
func ParseMethod(name string) (Method, error) {
	for _, m := range Methods {
		if string(m) == name {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return "", inputErrorf("unknown interval method %q (want all, %s)", name, strings.Join(names, ", "))
}

// Interval is a two-sided confidence interval computed by Method.
type Interval struct {
	Method string  `json:"method"`
	Lower  float64 `json:"lower"`
	Upper  float64 `json:"upper"`
}

// Width is Upper − Lower.
func (iv Interval) Width() float64 { return iv.Upper - iv.Lower }

// Contains reports whether x lies in [Lower, Upper].
func (iv Interval) Contains(x float64) bool { return iv.Lower <= x && x <= iv.Upper }

// Interval returns the two-sided interval for p's rate by method m at
// the given confidence level.
func (p Proportion) Interval(m Method, confidence float64) (Interval, error) {
	if err := p.Validate(); err != nil {
		return Interval{}, err
	}
	if err := ValidateConfidence(confidence); err != nil {
		return Interval{}, err
	}
	var lo, hi float64
	switch m {
	case Wald:
		lo, hi = waldInterval(p.K, p.N, Z(confidence))
	case Wilson:
		lo, hi = wilsonInterval(p.K, p.N, Z(confidence))
	case WilsonCC:
		lo, hi = wilsonCCInterval(p.K, p.N, Z(confidence))
	case AgrestiCoull:
		lo, hi = agrestiCoullInterval(p.K, p.N, Z(confidence))
	case Jeffreys:
		lo, hi = jeffreysInterval(p.K, p.N, 1-confidence)
	case ClopperPearson:
		lo, hi = clopperPearsonInterval(p.K, p.N, 1-confidence)
	default:
		_, err := ParseMethod(string(m))
		return Interval{}, err
	}
	if lo > hi {
		// Only at a confidence near 0, where both bounds are the same
		// quantile up to the inversion's error (up to ~1e-10 relative for
		// Jeffreys at huge n, RegIncBeta's own accuracy there).
		lo, hi = hi, lo
	}
	return Interval{Method: string(m), Lower: lo, Upper: hi}, nil
}

// clip01 bounds x to [0,1].
func clip01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

func waldInterval(k, n int, z float64) (lo, hi float64) {
	p := float64(k) / float64(n)
	h := z * RateStandardError(p, n)
	return clip01(p - h), clip01(p + h)
}

// wilsonInterval is the score interval: the p0 for which the score test
// |p̂−p0|/sqrt(p0(1−p0)/n) equals z (Wilson 1927).
func wilsonInterval(k, n int, z float64) (lo, hi float64) {
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	center := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = clip01(center-half), clip01(center+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// wilsonCCInterval is Newcombe (1998) method 4, eqs. for L and U:
//
//	L = (2np + z² − 1 − z·sqrt(z² − 2 − 1/n + 4p(nq + 1))) / (2(n + z²)), L = 0 if p = 0
//	U = (2np + z² + 1 + z·sqrt(z² + 2 − 1/n + 4p(nq − 1))) / (2(n + z²)), U = 1 if p = 1
func wilsonCCInterval(k, n int, z float64) (lo, hi float64) {
	nf := float64(n)
	p := float64(k) / nf
	q := 1 - p
	z2 := z * z
	den := 2 * (nf + z2)
	lo, hi = 0, 1
	if k > 0 {
		r := math.Max(0, z2-2-1/nf+4*p*(nf*q+1))
		lo = clip01((2*nf*p + z2 - 1 - z*math.Sqrt(r)) / den)
	}
	if k < n {
		r := math.Max(0, z2+2-1/nf+4*p*(nf*q-1))
		hi = clip01((2*nf*p + z2 + 1 + z*math.Sqrt(r)) / den)
	}
	return lo, hi
}

// agrestiCoullInterval adds z²/2 successes and failures: ñ = n + z²,
// p̃ = (k + z²/2)/ñ, p̃ ± z·sqrt(p̃(1−p̃)/ñ) (Agresti & Coull 1998).
func agrestiCoullInterval(k, n int, z float64) (lo, hi float64) {
	z2 := z * z
	nt := float64(n) + z2
	pt := (float64(k) + z2/2) / nt
	h := z * math.Sqrt(pt*(1-pt)/nt)
	return clip01(pt - h), clip01(pt + h)
}

func jeffreysInterval(k, n int, alpha float64) (lo, hi float64) {
	a, b := float64(k)+0.5, float64(n-k)+0.5
	lo, hi = 0, 1
	if k > 0 {
		lo = betaQuantile(a, b, alpha/2)
	}
	if k < n {
		hi = betaQuantile(a, b, 1-alpha/2)
	}
	return lo, hi
}

// clopperPearsonInterval: lower = Beta(k, n−k+1) quantile α/2, upper =
// Beta(k+1, n−k) quantile 1−α/2, with 0 at k = 0 and 1 at k = n
// (Clopper & Pearson 1934; Brown, Cai & DasGupta 2001, eq. 5).
func clopperPearsonInterval(k, n int, alpha float64) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		lo = betaQuantile(float64(k), float64(n-k+1), alpha/2)
	}
	if k < n {
		hi = betaQuantile(float64(k+1), float64(n-k), 1-alpha/2)
	}
	return lo, hi
}
