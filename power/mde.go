package power

import (
	"math"

	"github.com/tally-eval/tally/stats"
)

// MDE is a minimum detectable effect: the smallest drop in a success
// rate that a design detects with the target power at a given size.
type MDE struct {
	// Effect is the drop, a difference of rates in [0,1]; meaningful
	// only when Detectable.
	Effect float64
	// Detectable is false when no drop within [0, rate] reaches the
	// target power at this size: the design cannot see any regression.
	Detectable bool
}

// IndependentMDE is the smallest drop rate − p2 that two independent
// groups of n conversations each detect with the given power at
// two-sided level alpha: the p2 below rate at which Independent's power
// (R's power.prop.test) equals the target, found by bisection to 1e-12.
// R gives the same p2 as power.prop.test(n, p2 = rate, power)$p1 (the
// formula is symmetric in p1 and p2).
//
// The power falls as p2 rises towards rate, where it is α/2 (for n ≥ 2;
// TestIndependentPowerFallsTowardsP1 checks it over random designs); a
// target at or below α/2 is met by every drop, giving Effect 0.
func IndependentMDE(rate float64, n int, alpha, power float64) (MDE, error) {
	if err := stats.ValidateRate("rate", rate); err != nil {
		return MDE{}, err
	}
	if err := validateAlphaPower(alpha, power); err != nil {
		return MDE{}, err
	}
	if n < 1 {
		return MDE{}, inputErrorf("n per group must be at least 1, got %d", n)
	}
	pw := func(p2 float64) float64 { return Independent{P1: rate, P2: p2, Alpha: alpha}.power(float64(n)) }
	switch {
	case power <= alpha/2:
		return MDE{Effect: 0, Detectable: true}, nil
	case rate == 0 || pw(0) < power:
		return MDE{}, nil
	}
	p2 := bisect(0, rate, 1e-12, func(p2 float64) bool { return pw(p2) < power })
	return MDE{Effect: rate - p2, Detectable: true}, nil
}

// PairedMDE is the smallest p_lost that a paired design of n pairs
// detects with the given power at two-sided level alpha by Connor's
// approximation, assuming no pair is gained (p_gained = 0): the candidate
// only ever breaks conversations the reference won. Then p_lost is also
// the drop in the success rate. This is the seed's scenario (a change
// that fails a few conversations outright and fixes none) and the most
// favourable case for pairing: every discordant pair points the same
// way, so the MDE of any design with gains as well is larger.
//
// With p_gained = 0 Connor's power is Φ((√(n·p) − z_{α/2})/√(1−p)),
// increasing in p for p < n/z² (its derivative has the sign of
// √(n/p) − z), so bisection on (0, min(1, n/z²)] finds it to 1e-12.
func PairedMDE(n int, alpha, power float64) (MDE, error) {
	if err := validateAlphaPower(alpha, power); err != nil {
		return MDE{}, err
	}
	if n < 1 {
		return MDE{}, inputErrorf("pairs must be at least 1, got %d", n)
	}
	z := stats.Z(1 - alpha)
	pw := func(p float64) float64 {
		return Paired{PLost: p, Alpha: alpha, Method: Connor}.approxPower(float64(n))
	}
	top := math.Min(1, float64(n)/(z*z))
	switch {
	case power <= alpha/2:
		return MDE{Effect: 0, Detectable: true}, nil
	case pw(top) < power:
		return MDE{}, nil
	}
	p := bisect(0, top, 1e-12, func(p float64) bool { return pw(p) >= power })
	return MDE{Effect: p, Detectable: true}, nil
}
