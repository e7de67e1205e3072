package stats

import (
	"math"
	"sort"
)

// validateHalfWidth checks a target half-width h ∈ (0, 1).
func validateHalfWidth(h float64) error {
	if math.IsNaN(h) || h <= 0 || h >= 1 {
		return inputErrorf("half-width must be strictly between 0 and 1, got %v", h)
	}
	return nil
}

// SampleSizeWald is the number of trials at which the Wald interval at
// the expected rate has half-width at most h: ⌈z²·p(1−p)/h²⌉, at least 1
// (the textbook formula, e.g. Fleiss, Levin & Paik 2003, eq. 2.11).
func SampleSizeWald(rate, h, confidence float64) (int, error) {
	if err := sampleSizeInputs(rate, h, confidence); err != nil {
		return 0, err
	}
	z := Z(confidence)
	n := math.Ceil(z*z*rate*(1-rate)/(h*h) - 1e-9)
	return int(math.Max(1, n)), nil
}

// SampleSizeWilson is the smallest number of trials at which the Wilson
// interval centred on the expected rate has half-width at most h. The
// half-width z·sqrt(p(1−p)n + z²/4)/(n + z²) falls strictly as n grows
// for every p, so a bisection finds it.
func SampleSizeWilson(rate, h, confidence float64) (int, error) {
	if err := sampleSizeInputs(rate, h, confidence); err != nil {
		return 0, err
	}
	z := Z(confidence)
	hw := func(n int) float64 { return WilsonHalfWidth(rate, n, z) }
	hiN := 1
	for hw(hiN) > h {
		if hiN > math.MaxInt32 {
			return 0, inputErrorf("half-width %v needs more than %d trials", h, math.MaxInt32)
		}
		hiN *= 2
	}
	return sort.Search(hiN+1, func(n int) bool { return n >= 1 && hw(n) <= h }), nil
}

// WilsonHalfWidth is the half-width of the Wilson interval at observed
// rate p over n trials with critical value z.
func WilsonHalfWidth(p float64, n int, z float64) float64 {
	nf := float64(n)
	return z * math.Sqrt(p*(1-p)*nf+z*z/4) / (nf + z*z)
}

func sampleSizeInputs(rate, h, confidence float64) error {
	if err := ValidateRate("rate", rate); err != nil {
		return err
	}
	if err := validateHalfWidth(h); err != nil {
		return err
	}
	return ValidateConfidence(confidence)
}
