package power

import (
	"fmt"
	"math"

	"github.com/tally-eval/tally/stats"
)

// ErrInput is stats.ErrInput: every error this package returns because of
// a value a user supplied (a negative count, a probability outside [0,1],
// NaN, an alpha outside (0,1)) matches it under errors.Is.
var ErrInput = stats.ErrInput

// inputError is an error about user-supplied values; it matches ErrInput
// without adding ErrInput's text to the message.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// inputErrorf formats an error that matches ErrInput.
func inputErrorf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}

// validateOpen checks that v, named name, lies strictly between 0 and 1.
func validateOpen(name string, v float64) error {
	if math.IsNaN(v) || v <= 0 || v >= 1 {
		return inputErrorf("%s must be strictly between 0 and 1, got %v", name, v)
	}
	return nil
}

// validateAlphaPower checks a two-sided significance level and a target
// power, both strictly between 0 and 1.
func validateAlphaPower(alpha, power float64) error {
	if err := validateOpen("alpha", alpha); err != nil {
		return err
	}
	return validateOpen("power", power)
}
