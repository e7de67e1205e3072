package power

import "math"

// minAlpha is the smallest significance level SolveAlpha reports; a
// design that reaches its power at every level above it is said to. The
// power formulas take the level as the confidence 1 − α (stats.Z), which
// keeps about 16 − |log10 α| digits of α: below 1e−8 a level would not
// survive a round trip through Power and SampleSize to 8 digits.
const minAlpha = 1e-8

// SolveAlpha is the smallest two-sided significance level at which n
// pairs reach the target power: the third of n, power and α, given the
// other two. d.Alpha is ignored.
//
// For connor and miettinen power is Φ((a − z_{α/2}·b)/c) (Paired's
// formulas), so z_{α/2} = (a − z_power·c)/b and α = 2·(1 − Φ(z_{α/2}))
// in closed form; at that α the power is the target exactly. For exact
// the power is a step function of α (the test rejects when
// 2·P(Bin(m, ½) ≤ r) ≤ α), so SolveAlpha bisects on ln α over [ln 1e−8, 0), 60 steps, and
// returns the upper end of the last bracket: a level at which the power
// does reach the target, within a relative 1e−15 of the smallest.
//
// It is an input error when PLost = PGained (no difference to detect),
// when n pairs cannot reach the power at any α below 1 (the power as α
// approaches 1 is below the target), or when they reach it at every α
// down to 1e−8 (minAlpha).
func (d Paired) SolveAlpha(n int, target float64) (float64, error) {
	d.Alpha = 0.05 // any valid level: Validate checks the rest
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, inputErrorf("pairs must be at least 1, got %d", n)
	}
	if err := validateOpen("power", target); err != nil {
		return 0, err
	}
	psi, delta := d.discordant()
	if delta == 0 {
		return 0, inputErrorf("p_lost = p_gained = %v: the rates are equal, so no significance level gives power for a difference", d.PLost)
	}
	if d.Method == Exact {
		if err := validateExactPairs(n, psi); err != nil {
			return 0, err
		}
		return exactAlpha(n, psi, d.theta(), target)
	}
	zb, nf := unitNormal.Quantile(target), float64(n)
	var z float64
	if d.Method == Miettinen {
		// power = Φ((|δ|·√(nψ) − z·ψ)/√v), v = ψ² − δ²(3+ψ)/4
		v := math.Max(0, psi*psi-delta*delta*(3+psi)/4)
		z = (delta*math.Sqrt(nf*psi) - zb*math.Sqrt(v)) / psi
	} else {
		// power = Φ((√n·|δ| − z·√ψ)/√(ψ − δ²))
		z = (math.Sqrt(nf)*delta - zb*math.Sqrt(math.Max(0, psi-delta*delta))) / math.Sqrt(psi)
	}
	return alphaFromZ(z, n, target)
}

// SolveAlpha is the smallest two-sided significance level at which n
// conversations per group reach the target power, R's
// power.prop.test(n = n, p1, p2, power = target, sig.level = NULL) without
// its root-finding error: the power is Φ((√n·|p1−p2| − z_{α/2}·a)/s)
// (Independent), so z_{α/2} = (√n·|p1−p2| − z_power·s)/a in closed form.
// d.Alpha is ignored. It is an input error when P1 = P2, or when n cannot
// reach the power at any α below 1 or reaches it at every α down to
// 1e−8.
func (d Independent) SolveAlpha(n int, target float64) (float64, error) {
	d.Alpha = 0.05
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, inputErrorf("n per group must be at least 1, got %d", n)
	}
	if err := validateOpen("power", target); err != nil {
		return 0, err
	}
	diff := math.Abs(d.P1 - d.P2)
	if diff == 0 {
		return 0, inputErrorf("p1 = p2 = %v: the rates are equal, so no significance level gives power for a difference", d.P1)
	}
	// a = √((p1+p2)(1−(p1+p2)/2)) > 0 whenever p1 ≠ p2.
	sum := d.P1 + d.P2
	a := math.Sqrt(sum * (1 - sum/2))
	sd := math.Sqrt(d.P1*(1-d.P1) + d.P2*(1-d.P2))
	z := (math.Sqrt(float64(n))*diff - unitNormal.Quantile(target)*sd) / a
	return alphaFromZ(z, n, target)
}

// alphaFromZ turns a two-sided critical value into α = 2·(1 − Φ(z)),
// refusing levels outside [minAlpha, 1).
func alphaFromZ(z float64, n int, target float64) (float64, error) {
	if !(z > 0) {
		return 0, inputErrorf("n = %d cannot reach power %v at any significance level below 1", n, target)
	}
	alpha := 2 * unitNormal.Survival(z)
	if alpha < minAlpha {
		return 0, inputErrorf("n = %d reaches power %v at every significance level down to %g", n, target, minAlpha)
	}
	return alpha, nil
}

// exactAlpha bisects ln α for the smallest level at which the exact
// McNemar test over n pairs reaches the target power. The power is
// nondecreasing in α: a larger level only adds to each rejection region.
func exactAlpha(n int, psi, theta, target float64) (float64, error) {
	reaches := func(lnAlpha float64) bool {
		return newExactTest(math.Exp(lnAlpha), theta).power(n, psi) >= target
	}
	lo, hi := math.Log(minAlpha), math.Log(1-1e-12)
	if !reaches(hi) {
		return 0, inputErrorf("n = %d cannot reach power %v at any significance level below 1", n, target)
	}
	if reaches(lo) {
		return 0, inputErrorf("n = %d reaches power %v at every significance level down to %g", n, target, minAlpha)
	}
	for range 60 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if reaches(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Exp(hi), nil
}
