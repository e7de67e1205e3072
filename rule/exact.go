package rule

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactClass is the probability that one class blocks, at level, when
// its n item-compactions are independent, each lost with probability
// pLost and gained with probability pGained: the trinomial model
// summed over the discordant count D,
//
//	P(block) = Σ_D Bin(D; n, ψ) · P(Bin(D, θ) ≥ k(D)),   ψ = pLost + pGained, θ = pLost/ψ,
//
// where k(D) is the fewest losses among D discordant pairs at which the
// rule blocks (every rule here blocks on more losses for a given D).
// This is the conditional form of the trinomial sum, as SAS PROC POWER
// computes the unconditional power of McNemar's exact test
// (DIST=EXACT_COND); TestExactEnumerates checks it against the full
// enumeration of (lost, gained). D runs over its mean ± 40 standard
// deviations, which leaves out less than 1e−300 of the probability.
func (r Rule) exactClass(n int, pLost, pGained, level float64) (float64, error) {
	psi := pLost + pGained
	if psi == 0 || n == 0 {
		// No discordant pair ever: the rule sees 0 lost, 0 gained.
		t, err := r.testClass(nil, 0, 0, n)
		if err != nil {
			return 0, err
		}
		if r.blocks(t, level) {
			return 1, nil
		}
		return 0, nil
	}
	theta := pLost / psi
	mean, sd := float64(n)*psi, math.Sqrt(float64(n)*psi*(1-psi))
	lo := max(0, int(math.Floor(mean-40*sd))-1)
	hi := min(n, int(math.Ceil(mean+40*sd))+1)
	disc := distuv.Binomial{N: float64(n), P: math.Min(psi, 1)}
	k := -1
	var sum float64
	for d := lo; d <= hi; d++ {
		w := disc.Prob(float64(d))
		if psi >= 1 && d != n {
			w = 0
		}
		if w == 0 {
			continue
		}
		var err error
		if k, err = r.threshold(n, d, level, k); err != nil {
			return 0, err
		}
		sum += w * binomialUpper(d, theta, k)
	}
	return math.Min(1, sum), nil
}

// threshold is k(d): the fewest losses among d discordant pairs (of n
// pairs) at which the class blocks at level; d+1 when no number does.
// guess (−1 for none) is k at a neighbouring d, from which the search
// steps: k changes by at most a step or two between neighbours, so the
// search costs a few tests. The rule blocks on more losses whenever it
// blocks on fewer (for a fixed d), which the search relies on.
func (r Rule) threshold(n, d int, level float64, guess int) (int, error) {
	if r.Kind == Count {
		// lost − (d − lost) > tol  ⇔  lost > (d + tol)/2.
		return (d+r.Tolerance)/2 + 1, nil
	}
	blocksAt := func(lost int) (bool, error) {
		t, err := r.testClass(nil, lost, d-lost, n)
		if err != nil {
			return false, err
		}
		return r.blocks(t, level), nil
	}
	k := guess
	if k < 0 || k > d+1 {
		k = (d + 1) / 2
	}
	if k > d {
		k = d + 1
	}
	// Step up while k does not block, then down while k−1 does.
	for k <= d {
		b, err := blocksAt(k)
		if err != nil {
			return 0, err
		}
		if b {
			break
		}
		k++
	}
	for k > 0 {
		b, err := blocksAt(k - 1)
		if err != nil {
			return 0, err
		}
		if !b {
			break
		}
		k--
	}
	return k, nil
}

// binomialUpper is P(Bin(d, θ) ≥ k).
func binomialUpper(d int, theta float64, k int) float64 {
	switch {
	case k <= 0:
		return 1
	case k > d:
		return 0
	case theta <= 0:
		return 0
	case theta >= 1:
		return 1
	}
	return distuv.Binomial{N: float64(d), P: theta}.Survival(float64(k - 1))
}
