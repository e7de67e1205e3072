package power

import (
	"errors"
	"math"
	"testing"
)

func errorsIsInput(err error) bool { return errors.Is(err, ErrInput) }

// closeTo reports whether got is within tol of want, both finite.
func closeTo(got, want, tol float64) bool {
	return !math.IsNaN(got) && math.Abs(got-want) <= tol
}

// check fails t when got is not within tol of want, naming src.
func check(t *testing.T, what string, got, want, tol float64, src string) {
	t.Helper()
	if !closeTo(got, want, tol) {
		t.Errorf("%s: got %.17g, want %.17g (|diff| %.3g > %g; source %s)", what, got, want, math.Abs(got-want), tol, src)
	}
}

func mustMcNemar(t *testing.T, tb Table, conf float64) Result {
	t.Helper()
	r, err := McNemar(tb, conf)
	if err != nil {
		t.Fatalf("McNemar(%v, %v): %v", tb, conf, err)
	}
	return r
}
