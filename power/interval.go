package power

import (
	"math"
	"slices"

	"github.com/tally-eval/tally/stats"
)

// IntervalMethod names a confidence interval for the paired difference
// of rates, candidate − reference = (C−B)/n.
type IntervalMethod string

// The paired-difference intervals. Their names are part of the CLI and
// JSON contract. All are clipped to [−1, 1].
const (
	// IntervalWald is δ ± z·SE with SE = sqrt((B+C) − (C−B)²/n)/n
	// (Fagerland, Lydersen & Laake 2014, Stat Med 33:2850, eq. for the
	// Wald interval of the paired difference).
	IntervalWald IntervalMethod = "wald"
	// IntervalNewcombe is Newcombe's hybrid score interval for paired
	// data (Newcombe 1998, Stat Med 17:2635, method 10): the two marginal
	// Wilson intervals combined by stats.NewcombeHybrid with the
	// correlation correction φ.
	IntervalNewcombe IntervalMethod = "newcombe"
	// IntervalNewcombeUncorrected is IntervalNewcombe with the plain
	// correlation φ̂ = (AD − BC)/sqrt(r1·r2·c1·c2) (0 when a margin is
	// 0) instead of method 10's continuity-corrected φ: Newcombe's
	// square-and-add interval "without the correlation correction". The
	// ratesci package (method_RD = "MOVER", corc = FALSE) labels it
	// "Newcombe's method 8"; that numbering is ratesci's, not checked
	// against the paper. It is narrower than method 10 when AD − BC > 0.
	IntervalNewcombeUncorrected IntervalMethod = "newcombe-uncorrected"
	// IntervalTango is Tango's asymptotic score interval (Tango 1998,
	// Stat Med 17:891), the set of δ0 at which the score statistic with
	// the cell probabilities restricted to δ0 is within ±z.
	IntervalTango IntervalMethod = "tango"
)

// IntervalMethods lists the interval methods McNemar computes, in the
// order reports show them.
var IntervalMethods = []IntervalMethod{IntervalWald, IntervalNewcombe, IntervalTango}

// AllIntervalMethods lists every method PairedInterval computes, in the
// order `tally mcnemar` shows them: IntervalMethods with
// IntervalNewcombeUncorrected beside IntervalNewcombe. (McNemar's Result
// leaves it out so that the reports built on it keep their columns.)
var AllIntervalMethods = []IntervalMethod{IntervalWald, IntervalNewcombe, IntervalNewcombeUncorrected, IntervalTango}

// PairedInterval is the interval for the paired difference (C−B)/n of t
// by method m at the given confidence level. An invalid table or level,
// or an unknown method, is an error matching ErrInput.
func PairedInterval(t Table, m IntervalMethod, confidence float64) (stats.Interval, error) {
	if err := t.Validate(); err != nil {
		return stats.Interval{}, err
	}
	if err := stats.ValidateConfidence(confidence); err != nil {
		return stats.Interval{}, err
	}
	if !slices.Contains(AllIntervalMethods, m) {
		return stats.Interval{}, inputErrorf("unknown paired interval %q (want %s)", m, joinNames(AllIntervalMethods))
	}
	return pairedInterval(t, m, confidence), nil
}

// pairedInterval is PairedInterval for a valid table, level and method.
func pairedInterval(t Table, m IntervalMethod, confidence float64) stats.Interval {
	var lo, hi float64
	switch m {
	case IntervalWald:
		lo, hi = waldPaired(t, stats.Z(confidence))
	case IntervalNewcombe:
		lo, hi = newcombePaired(t, confidence, newcombePhi(t))
	case IntervalNewcombeUncorrected:
		lo, hi = newcombePaired(t, confidence, plainPhi(t))
	case IntervalTango:
		lo, hi = tangoInterval(t, stats.Z(confidence))
	default:
		panic("power: unknown paired interval " + string(m))
	}
	return stats.Interval{Method: string(m), Lower: lo, Upper: hi}
}

func clipDiff(x float64) float64 { return math.Max(-1, math.Min(1, x)) }

// waldPaired is (C−B)/n ± z·sqrt((B+C) − (C−B)²/n)/n, clipped.
func waldPaired(t Table, z float64) (lo, hi float64) {
	n, b, c := float64(t.Pairs()), float64(t.B), float64(t.C)
	d := (c - b) / n
	se := math.Sqrt(math.Max(0, (b+c)-(c-b)*(c-b)/n)) / n
	return clipDiff(d - z*se), clipDiff(d + z*se)
}

// newcombePaired combines the Wilson intervals of the candidate's rate
// (A+C)/n, as p1, and the reference's rate (A+B)/n, as p2, with
// stats.NewcombeHybrid and correlation phi. With phi = 0 it is exactly
// stats.Compare's "newcombe" interval for the two marginal rates treated
// as independent.
func newcombePaired(t Table, confidence, phi float64) (lo, hi float64) {
	n := t.Pairs()
	cand := stats.Proportion{K: t.A + t.C, N: n}
	ref := stats.Proportion{K: t.A + t.B, N: n}
	wc, _ := cand.Interval(stats.Wilson, confidence)
	wr, _ := ref.Interval(stats.Wilson, confidence)
	return stats.NewcombeHybrid(cand.Estimate(), ref.Estimate(), wc, wr, phi)
}

// newcombePhi is the correlation correction of Newcombe (1998, Stat Med
// 17:2635), method 10: with the margins r1 = A+B, r2 = C+D, c1 = A+C,
// c2 = B+D,
//
//	φ = (AD − BC − n/2)/sqrt(r1·r2·c1·c2)  if AD − BC > n/2,
//	φ = 0                                   if 0 ≤ AD − BC ≤ n/2,
//	φ = (AD − BC)/sqrt(r1·r2·c1·c2)         if AD − BC < 0,
//
// and φ = 0 when any margin is 0 (the correlation is undefined). The
// n/2 shrinks a positive correlation, as Newcombe's continuity
// correction; it is the φ of Fagerland, Lydersen & Laake (2014).
func newcombePhi(t Table) float64 {
	a, b, c, d := float64(t.A), float64(t.B), float64(t.C), float64(t.D)
	r1, r2, c1, c2 := a+b, c+d, a+c, b+d
	if r1 == 0 || r2 == 0 || c1 == 0 || c2 == 0 {
		return 0
	}
	n := a + b + c + d
	num := a*d - b*c
	switch {
	case num > n/2:
		num -= n / 2
	case num >= 0:
		return 0
	}
	// sqrt of each pair keeps the product far from overflow.
	return num / (math.Sqrt(r1*r2) * math.Sqrt(c1*c2))
}

// plainPhi is the sample correlation of the two runs' outcomes,
// (AD − BC)/sqrt(r1·r2·c1·c2), with no continuity correction, and 0 when
// a margin is 0 (newcombePhi).
func plainPhi(t Table) float64 {
	a, b, c, d := float64(t.A), float64(t.B), float64(t.C), float64(t.D)
	r1, r2, c1, c2 := a+b, c+d, a+c, b+d
	if r1 == 0 || r2 == 0 || c1 == 0 || c2 == 0 {
		return 0
	}
	return (a*d - b*c) / (math.Sqrt(r1*r2) * math.Sqrt(c1*c2))
}

// tangoInterval inverts Tango's score test. For a hypothesised difference
// δ0 = p_C − p_B the statistic is (Tango 1998; as written by Fagerland,
// Lydersen & Laake 2014, with their n12 our C and their n21
// our B, since their difference is n12 − n21 and ours C − B)
//
//	T(δ0) = (C − B − n·δ0) / sqrt(n·(2·p̃_B + δ0·(1 − δ0)))
//
// where p̃_B is the maximum-likelihood estimate of the lost-cell
// probability under δ0, the positive root of
//
//	2n·p² + (−C − B + (2n − C + B)·δ0)·p − B·δ0·(1 − δ0) = 0.
//
// T falls from +∞ at δ0 = −1 to −∞ at δ0 = 1 (unless B or C is n), so the
// bounds are the δ0 with T = z (lower) and T = −z (upper), found by
// bisection to 1e-15. The interval always contains (C−B)/n; with B+C = 0
// it is ±z²/(n+z²). At B = n the lower bound is −1, at C = n the upper
// bound is 1.
func tangoInterval(t Table, z float64) (lo, hi float64) {
	n, b, c := float64(t.Pairs()), float64(t.B), float64(t.C)
	score := func(d0 float64) float64 { return tangoScore(n, b, c, d0) }
	lo, hi = -1, 1
	if t.B != t.Pairs() {
		lo = bisect(-1, 1, 1e-15, func(d0 float64) bool { return score(d0) <= z })
	}
	if t.C != t.Pairs() {
		hi = bisect(-1, 1, 1e-15, func(d0 float64) bool { return score(d0) < -z })
	}
	return lo, hi
}

// tangoScore is Tango's statistic T(d0) for n pairs, b lost and c
// gained (tangoInterval). It is 0 where the numerator is 0 (at d0 = 0
// with b = c, whatever the variance) and ±∞, by the numerator's sign,
// where the restricted variance is not positive (only at d0 = ±1).
func tangoScore(n, b, c, d0 float64) float64 {
	num := c - b - n*d0
	if num == 0 {
		return 0
	}
	qa := 2 * n
	qb := -c - b + (2*n-c+b)*d0
	qc := -b * d0 * (1 - d0)
	disc := math.Sqrt(math.Max(0, qb*qb-4*qa*qc))
	var p float64
	if qb > 0 {
		p = -2 * qc / (qb + disc) // the same root without cancellation
	} else {
		p = (disc - qb) / (2 * qa)
	}
	v := n * (2*p + d0*(1-d0))
	if v <= 0 {
		return math.Copysign(math.Inf(1), num)
	}
	return num / math.Sqrt(v)
}
