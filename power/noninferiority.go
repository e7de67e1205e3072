package power

import (
	"fmt"
	"math"
)

// TangoNI is Tango's score statistic for the non-inferiority hypothesis
// H0: Δ ≤ −margin against H1: Δ > −margin, where Δ = (C − B)/n is the
// candidate's rate minus the reference's (Tango 1998, "Equivalence test
// and confidence interval for the difference in proportions for the
// paired-sample design", Stat Med 17:891):
//
//	z = (C − B + n·margin) / sqrt(n·(2·p̃_B − margin·(1 + margin)))
//
// with p̃_B the maximum-likelihood estimate of the lost cell's
// probability restricted to Δ = −margin (tangoInterval gives the
// quadratic). The one-sided p-value is p = 1 − Φ(z): a small p says the
// candidate is at most margin worse, with that much confidence. margin
// must be in [0, 1); at margin 0 z is the uncorrected McNemar
// (C − B)/√(B + C), signed, and with B + C = 0 as well z = 0 and p = ½
// (no discordant pair: no evidence either way). For margin > 0 the
// restricted variance is positive for every table (p̃_B ≥ margin), so z
// is always finite.
//
// It allocates nothing. An invalid table or margin is an error matching
// ErrInput.
func TangoNI(t Table, margin float64) (z, p float64, err error) {
	if err := t.Validate(); err != nil {
		return 0, 0, err
	}
	if err := validateMargin(margin); err != nil {
		return 0, 0, err
	}
	z = tangoScore(float64(t.Pairs()), float64(t.B), float64(t.C), -margin)
	return z, unitNormal.Survival(z), nil
}

// validateMargin checks a non-inferiority margin: a difference of rates
// in [0, 1).
func validateMargin(margin float64) error {
	if math.IsNaN(margin) || margin < 0 || margin >= 1 {
		return inputErrorf("the non-inferiority margin must be at least 0 and below 1 (a difference of rates), got %v", margin)
	}
	return nil
}

// NITest is a non-inferiority test of H0: Δ ≤ −Margin, one-sided, as
// `tally mcnemar --margin` reports it.
type NITest struct {
	// Method names the statistic: "tango" (TangoNI) or "durkalski"
	// (ClusteredNI).
	Method string
	Margin float64
	// Z is the statistic, positive when the data favour
	// non-inferiority; PValue = 1 − Φ(Z).
	Z      float64
	PValue float64
}

// NonInferiority runs TangoNI on t and returns it as an NITest.
func NonInferiority(t Table, margin float64) (NITest, error) {
	z, p, err := TangoNI(t, margin)
	if err != nil {
		return NITest{}, fmt.Errorf("tango non-inferiority: %w", err)
	}
	return NITest{Method: "tango", Margin: margin, Z: z, PValue: p}, nil
}
