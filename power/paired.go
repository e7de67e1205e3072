package power

import (
	"fmt"
	"math"

	"github.com/tally-eval/tally/stats"
)

// PairedMethod names a way to compute the power of a paired design.
type PairedMethod string

// The paired power methods. Their names are part of the CLI and JSON
// contract. Connor and Miettinen approximate the asymptotic McNemar test
// and, like R's power.prop.test with strict = FALSE, count only
// rejections in the direction of the effect. Exact counts rejections of
// the exact test in either direction.
const (
	// Connor is the normal approximation of Connor (1987), "Sample size
	// for testing differences in proportions for the paired-sample
	// design", Biometrics 43:207 (p. 209):
	//
	//	power = Φ((√n·|δ| − z_{α/2}·√ψ) / √(ψ − δ²))
	//	n     = (z_{α/2}·√ψ + z_β·√(ψ − δ²))² / δ²
	//
	// with ψ = p_lost + p_gained and δ = p_gained − p_lost (MESS's
	// power_mcnemar_test, method "normal").
	Connor PairedMethod = "connor"
	// Miettinen is the approximation of Miettinen (1968), "The matched
	// pairs design in the case of all-or-none responses", Biometrics
	// 24:339, which uses the variance of the difference under the
	// alternative:
	//
	//	power = Φ((|δ|·√(nψ) − z_{α/2}·ψ) / √(ψ² − δ²(3+ψ)/4))
	//	n     = (z_{α/2}·ψ + z_β·√(ψ² − δ²(3+ψ)/4))² / (ψ·δ²)
	Miettinen PairedMethod = "miettinen"
	// Exact is the unconditional power of the exact conditional McNemar
	// test: Σ_m Bin(m; n, ψ)·P(reject | m), where given m discordant pairs
	// the number of gains is Bin(m, p_gained/ψ) and the test rejects at
	// two-sided level α (TestExact). The sum runs over the m within
	// 12 sd + 40 of the mean, which leaves out less than 2e−26 of the
	// probability; it is computed up to MaxExactPairs pairs, and beyond
	// while the discordant counts summed over stay within that.
	Exact PairedMethod = "exact"
)

// PairedMethods lists the paired power methods.
var PairedMethods = []PairedMethod{Connor, Miettinen, Exact}

// ParsePairedMethod returns the PairedMethod called name, or an error
// listing the valid names.
func ParsePairedMethod(name string) (PairedMethod, error) {
	for _, m := range PairedMethods {
		if string(m) == name {
			return m, nil
		}
	}
	return "", inputErrorf("unknown paired power method %q (want %s)", name, joinNames(PairedMethods))
}

// Paired is a paired design: every conversation is run by the reference
// and by the candidate, and a pair is lost (reference ok, candidate
// fails) with probability PLost and gained with probability PGained. The
// test is two-sided at level Alpha.
type Paired struct {
	PLost   float64
	PGained float64
	Alpha   float64
	Method  PairedMethod
}

// Validate reports whether d is a usable design: probabilities in [0,1]
// with PLost + PGained ≤ 1, Alpha strictly between 0 and 1, and a known
// method.
func (d Paired) Validate() error {
	if err := stats.ValidateRate("p_lost", d.PLost); err != nil {
		return err
	}
	if err := stats.ValidateRate("p_gained", d.PGained); err != nil {
		return err
	}
	if d.PLost+d.PGained > 1+1e-12 {
		return inputErrorf("p_lost + p_gained must not exceed 1, got %v + %v = %v", d.PLost, d.PGained, d.PLost+d.PGained)
	}
	if err := validateOpen("alpha", d.Alpha); err != nil {
		return err
	}
	_, err := ParsePairedMethod(string(d.Method))
	return err
}

// discordant returns ψ = p_lost + p_gained (at most 1) and |δ|.
func (d Paired) discordant() (psi, delta float64) {
	return math.Min(1, d.PLost+d.PGained), math.Abs(d.PGained - d.PLost)
}

// Power is the probability that the design's test rejects equal rates
// with n pairs. With no discordant pairs possible (PLost = PGained = 0)
// it is 0: the test never rejects.
func (d Paired) Power(n int) (float64, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, inputErrorf("pairs must be at least 1, got %d", n)
	}
	if d.Method == Exact {
		psi, _ := d.discordant()
		if err := validateExactPairs(n, psi); err != nil {
			return 0, err
		}
		return newExactTest(d.Alpha, d.theta()).power(n, psi), nil
	}
	return d.approxPower(float64(n)), nil
}

// theta is the probability that a discordant pair is a gain.
func (d Paired) theta() float64 {
	psi, _ := d.discordant()
	if psi == 0 {
		return 0.5
	}
	return math.Min(1, d.PGained/psi)
}

// approxPower is Connor's or Miettinen's power at a real n.
func (d Paired) approxPower(n float64) float64 {
	psi, delta := d.discordant()
	if psi == 0 {
		return 0
	}
	z := stats.Z(1 - d.Alpha)
	if d.Method == Miettinen {
		v := math.Max(0, psi*psi-delta*delta*(3+psi)/4)
		return normalPower(delta*math.Sqrt(n*psi)-z*psi, math.Sqrt(v))
	}
	v := math.Max(0, psi-delta*delta)
	return normalPower(math.Sqrt(n)*delta-z*math.Sqrt(psi), math.Sqrt(v))
}

// SampleSize is the number of pairs at which the design reaches the
// target power. It is an input error when PLost = PGained (no effect to
// detect) or when the target needs more pairs than the method handles.
func (d Paired) SampleSize(power float64) (SampleSize, error) {
	if err := d.Validate(); err != nil {
		return SampleSize{}, err
	}
	if err := validateOpen("power", power); err != nil {
		return SampleSize{}, err
	}
	psi, delta := d.discordant()
	if delta == 0 {
		return SampleSize{}, inputErrorf("p_lost = p_gained = %v: the rates are equal, so no number of pairs detects a difference", d.PLost)
	}
	if d.Method == Exact {
		return d.exactSampleSize(psi, power)
	}
	z, zb := stats.Z(1-d.Alpha), unitNormal.Quantile(power)
	var root float64
	if d.Method == Miettinen {
		s := z*psi + zb*math.Sqrt(math.Max(0, psi*psi-delta*delta*(3+psi)/4))
		root = math.Copysign(s*s, s) / (psi * delta * delta)
	} else {
		s := z*math.Sqrt(psi) + zb*math.Sqrt(math.Max(0, psi-delta*delta))
		root = math.Copysign(s*s, s) / (delta * delta)
	}
	return closedForm(root, power, func(n int) float64 { return d.approxPower(float64(n)) })
}

// exactSampleSize searches for the exact test's sample size. It refuses
// at once when Connor's approximation already needs more than
// MaxExactPairs: the exact test is the more conservative, and in every
// case checked its n exceeded Connor's, so the search would only run to
// the limit and fail.
func (d Paired) exactSampleSize(psi, power float64) (SampleSize, error) {
	approx, err := Paired{PLost: d.PLost, PGained: d.PGained, Alpha: d.Alpha, Method: Connor}.SampleSize(power)
	if err != nil || approx.Unrounded > MaxExactPairs {
		return SampleSize{}, inputErrorf("exact: connor already needs more than %d pairs for power %v, beyond the exact method's limit; use connor", MaxExactPairs, power)
	}
	e := newExactTest(d.Alpha, d.theta())
	first, n, ok := e.sampleSize(psi, power, MaxExactPairs)
	if !ok {
		return SampleSize{}, inputErrorf("exact: power %v is not reached within %d pairs; use connor for larger designs", power, MaxExactPairs)
	}
	ss := SampleSize{N: n, Unrounded: float64(n), FirstN: first, Power: e.power(n, psi)}
	ss.ActualSize = newExactTest(d.Alpha, 0.5).power(n, psi)
	ss.HasActualSize = true
	w := fmt.Sprintf("exact: power is not monotone in n (the saw-tooth of a discrete test); %d pairs is the smallest n from which every n up to 1.1× reaches %v", n, power)
	if first < n {
		w += fmt.Sprintf(", though %d pairs already reach it", first)
	}
	ss.Warnings = append(ss.Warnings, w,
		fmt.Sprintf("exact: the test's actual size at %d pairs is %.4g against the nominal %v", n, ss.ActualSize, d.Alpha))
	return ss, nil
}
