package power

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

var unitNormal = distuv.UnitNormal

// maxSampleSize bounds the sample sizes the closed-form methods return;
// a design needing more is reported as an input error.
const maxSampleSize = 1 << 53

// MaxSampleSize is the largest sample size computed: 2^53, beyond which
// whole numbers are not exact in a float64.
const MaxSampleSize int64 = maxSampleSize

// ErrBeyondLimit is matched (with ErrInput) by a sample size's error when
// the target needs more than MaxSampleSize pairs or conversations: a
// true answer, too large to compute, which a caller may state as "more
// than MaxSampleSize" and go on.
var ErrBeyondLimit = errors.New("beyond the sample-size limit")

// beyondError is the error of a sample size beyond MaxSampleSize.
type beyondError struct{ msg string }

func (e *beyondError) Error() string { return e.msg }
func (e *beyondError) Is(target error) bool {
	return target == ErrInput || target == ErrBeyondLimit
}

// SampleSize is the number of pairs (paired designs) or of conversations
// per group (independent designs) that reaches a target power.
type SampleSize struct {
	// N is the recommended whole n. For the closed-form methods it is
	// the smallest n whose power reaches the target; for the exact
	// method it is the smallest n from which every n up to ⌊1.1·N⌋
	// reaches it too (exact power is saw-toothed in n).
	N int
	// Unrounded is the real n that solves power(n) = target, as R's
	// power.prop.test reports it and as Connor's and Miettinen's
	// formulas give it before rounding up; 0 when every n ≥ 1 reaches
	// the target. For the exact method it is float64(N).
	Unrounded float64
	// FirstN is the smallest n whose power reaches the target. It
	// equals N except where the exact power dips again after a first
	// crossing. (The exact search scans n one by one while the sd of
	// the discordant count is below 4, where the saw-tooth lives, and
	// bisects above it, where the power is smooth in n.)
	FirstN int
	// Power is the power at N.
	Power float64
	// ActualSize is, for the exact method, the exact test's type I error
	// at N when gains and losses are equally likely with the same
	// discordant probability (ExactSize); HasActualSize is false for the
	// other methods.
	ActualSize    float64
	HasActualSize bool
	Warnings      []string
}

// closedForm turns the real root of a monotone power curve into a
// SampleSize: N is the smallest whole n ≥ 1 reaching target, found from
// the ceiling of the root and corrected by at most a few steps where
// rounding put the ceiling one off.
func closedForm(root, target float64, power func(n int) float64) (SampleSize, error) {
	if math.IsNaN(root) || root > maxSampleSize {
		return SampleSize{}, &beyondError{fmt.Sprintf("the target power needs more than %d pairs or conversations", int64(maxSampleSize))}
	}
	root = math.Max(0, root)
	n := max(1, int(math.Ceil(root)))
	for i := 0; i < 4 && n > 1 && power(n-1) >= target; i++ {
		n--
	}
	for i := 0; i < 4 && power(n) < target; i++ {
		n++
	}
	return SampleSize{N: n, Unrounded: root, FirstN: n, Power: power(n)}, nil
}

// normalPower is Φ(num/den), the power of a one-tailed normal
// approximation, with den = 0 (a statistic without variance) giving 1
// when num ≥ 0 (the test statistic sits at or past its critical value
// and the test rejects) and 0 otherwise.
func normalPower(num, den float64) float64 {
	if den > 0 {
		return unitNormal.CDF(num / den)
	}
	if num >= 0 {
		return 1
	}
	return 0
}
