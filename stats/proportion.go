package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ErrInput matches, under errors.Is, every error caused by values a user
// supplied (trials ≤ 0, successes outside 0..trials, a confidence outside
// (0,1), NaN), so callers can tell bad input from misuse.
var ErrInput = errors.New("invalid input")

// inputError is an error about user-supplied values; it matches ErrInput
// without adding ErrInput's text to the message.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// inputErrorf formats an error that matches ErrInput.
func inputErrorf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}

// Proportion is K successes in N independent trials.
type Proportion struct {
	K int // successes, 0 ≤ K ≤ N
	N int // trials, N ≥ 1
}

// Validate reports whether p describes a rate: N ≥ 1 and 0 ≤ K ≤ N.
func (p Proportion) Validate() error {
	switch {
	case p.N <= 0:
		return inputErrorf("trials must be at least 1, got %d", p.N)
	case p.K < 0:
		return inputErrorf("successes must not be negative, got %d", p.K)
	case p.K > p.N:
		return inputErrorf("successes %d exceed trials %d", p.K, p.N)
	}
	return nil
}

// Estimate is the observed rate K/N.
func (p Proportion) Estimate() float64 { return float64(p.K) / float64(p.N) }

// StandardError is the estimated standard error of the rate,
// sqrt(p̂(1−p̂)/N). It is 0 at K = 0 and K = N.
func (p Proportion) StandardError() float64 { return RateStandardError(p.Estimate(), p.N) }

// String formats p as "K/N".
func (p Proportion) String() string { return fmt.Sprintf("%d/%d", p.K, p.N) }

// RateStandardError is sqrt(rate·(1−rate)/n), the standard error of a
// rate observed over n independent trials.
func RateStandardError(rate float64, n int) float64 {
	return math.Sqrt(rate * (1 - rate) / float64(n))
}

// ValidateConfidence reports whether c is a usable confidence level: a
// number strictly between 0 and 1.
func ValidateConfidence(c float64) error {
	if math.IsNaN(c) || c <= 0 || c >= 1 {
		return inputErrorf("confidence must be strictly between 0 and 1, got %v", c)
	}
	return nil
}

// ValidateRate reports whether r is a probability in [0,1].
func ValidateRate(name string, r float64) error {
	if math.IsNaN(r) || r < 0 || r > 1 {
		return inputErrorf("%s must be a probability in [0,1], got %v", name, r)
	}
	return nil
}

// Z is the two-sided critical value of the standard normal for a
// confidence level c: the (1+c)/2 quantile, 1.959964 at c = 0.95. It is
// taken as minus the lower (1−c)/2 quantile, which stays finite for every
// c < 1; 1 − (1−c)/2 rounds to 1 (and the quantile to +Inf) once c is
// within 1e-16 of 1.
func Z(c float64) float64 {
	return -distuv.UnitNormal.Quantile((1 - c) / 2)
}
