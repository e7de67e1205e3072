package power

import (
	"math"

	"github.com/tally-eval/tally/stats"
)

// Independent is a design comparing two independent groups of equal size
// (two separate runs over different conversations, or the same
// conversations without pairing) with success rates P1 and P2, tested
// two-sided at level Alpha.
//
// Power and sample size are R's power.prop.test with its defaults
// (alternative = "two.sided", strict = FALSE):
//
//	power = Φ((√n·|p1−p2| − z_{α/2}·√((p1+p2)(1−(p1+p2)/2))) / √(p1q1 + p2q2))
//
// n per group. With strict = FALSE R counts only the tail in the
// direction of the effect, so at p1 = p2 the power is α/2, not α; we
// match R (stats::power.prop.test, R 4.2).
type Independent struct {
	P1, P2 float64
	Alpha  float64
}

// Validate reports whether d is a usable design: rates in [0,1] and
// Alpha strictly between 0 and 1.
func (d Independent) Validate() error {
	if err := stats.ValidateRate("p1", d.P1); err != nil {
		return err
	}
	if err := stats.ValidateRate("p2", d.P2); err != nil {
		return err
	}
	return validateOpen("alpha", d.Alpha)
}

// terms returns the three pieces of R's formula: |p1−p2|, the null
// term z_{α/2}·√((p1+p2)(1−(p1+p2)/2)) and the alternative sd
// √(p1q1 + p2q2).
func (d Independent) terms() (diff, null, sd float64) {
	s := d.P1 + d.P2
	z := stats.Z(1 - d.Alpha)
	return math.Abs(d.P1 - d.P2), z * math.Sqrt(math.Max(0, s*(1-s/2))), math.Sqrt(d.P1*(1-d.P1) + d.P2*(1-d.P2))
}

// power is R's formula at a real n per group. Where both rates are 0 or
// both 1 the formula is 0/0; its limit along p1 = p2 is Φ(−z) = α/2,
// which is what it returns. Where one rate is 0 and the other 1 the
// alternative has no variance and the power is 1 once √n exceeds the
// null term (normalPower).
func (d Independent) power(n float64) float64 {
	diff, null, sd := d.terms()
	if diff == 0 {
		return d.Alpha / 2
	}
	return normalPower(math.Sqrt(n)*diff-null, sd)
}

// Power is the power with n conversations in each group.
func (d Independent) Power(n int) (float64, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, inputErrorf("n per group must be at least 1, got %d", n)
	}
	return d.power(float64(n)), nil
}

// SampleSize is the number of conversations per group reaching the
// target power. R's power.prop.test finds n with uniroot (tolerance
// 1.2e-4 by default); the power curve is Φ((√n·|δ| − a)/s), so the root
// has the closed form n = ((a + z_β·s)/|δ|)², which this returns as
// Unrounded: R's answer without its root-finding error. P1 = P2 is an
// input error: no n detects a difference that is not there.
func (d Independent) SampleSize(power float64) (SampleSize, error) {
	if err := d.Validate(); err != nil {
		return SampleSize{}, err
	}
	if err := validateOpen("power", power); err != nil {
		return SampleSize{}, err
	}
	diff, null, sd := d.terms()
	if diff == 0 {
		return SampleSize{}, inputErrorf("p1 = p2 = %v: the rates are equal, so no sample size detects a difference", d.P1)
	}
	s := null + unitNormal.Quantile(power)*sd
	root := math.Copysign(s*s, s) / (diff * diff)
	return closedForm(root, power, func(n int) float64 { return d.power(float64(n)) })
}
