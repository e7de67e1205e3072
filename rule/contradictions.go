package rule

import "math"

// Contradictions is what noise alone does to the contradiction row: a
// harmless change still contradicts some items the incumbent does not,
// when the judge or the summariser flips.
type Contradictions struct {
	// FlipRate is the share of item-compactions contradicted in exactly
	// one of two runs of one system; Items the item-compactions checked.
	FlipRate float64
	Items    int
	// ExpectedNew is the expected number of items a harmless candidate
	// newly contradicts, Items·FlipRate/2; AtLeastOne the probability
	// of at least one, 1 − (1 − FlipRate/2)^Items. Under McNemar and
	// NonInferiority each is a review task: it blocks until a reviewer
	// marks it a judge error.
	ExpectedNew, AtLeastOne float64
	// CountBlock is, for the Count rule, the probability that the
	// contradiction row blocks a harmless change: new less resolved
	// above its tolerance, new and resolved each Bin(Items, FlipRate/2)
	// in the trinomial model. 0 for the other rules.
	CountBlock float64
}

// NoiseContradictions computes Contradictions for r given the A/A flip
// rate and the number of item-compactions.
func (r Rule) NoiseContradictions(flipRate float64, items int) (Contradictions, error) {
	if !(flipRate >= 0 && flipRate <= 1) || items < 0 {
		return Contradictions{}, inputErrorf("contradiction flip rate %g over %d items is not a rate", flipRate, items)
	}
	c := Contradictions{FlipRate: flipRate, Items: items}
	c.ExpectedNew = float64(items) * flipRate / 2
	c.AtLeastOne = -math.Expm1(float64(items) * math.Log1p(-flipRate/2))
	if r.Kind == Count {
		cr := Rule{Kind: Count, Tolerance: r.ContradictionTolerance}
		b, err := cr.exactClass(items, flipRate/2, flipRate/2, 0)
		if err != nil {
			return Contradictions{}, err
		}
		c.CountBlock = b
	}
	return c, nil
}
