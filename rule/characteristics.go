package rule

import (
	"math"
)

// ClassRate is one class's part of a Characteristics.
type ClassRate struct {
	Name                 string
	Items, Conversations int
	// PLost and PGained are the per-item probabilities of a loss and a
	// gain in the scenario; Drop is the scenario's drop for the class.
	PLost, PGained, Drop float64
	// Block is the probability that the class blocks: for McNemar at the
	// first step of Holm's procedure (p ≤ α/k), which is when the change
	// blocks because of some class.
	Block float64
}

// Characteristics is the probability that a rule blocks a change in one
// scenario, overall and class by class.
type Characteristics struct {
	Rule     Rule
	Scenario Scenario
	// Block is the probability that the change blocks (some class
	// blocks): with the zero Scenario, the false-block rate.
	Block float64
	// StandardError is Block's Monte-Carlo standard error
	// sqrt(Block(1 − Block)/Replicates); 0 when Method is "exact".
	StandardError float64
	// Method is "" when the power was not given (Given), else "exact" (the trinomial model summed; items independent
	// and the test unclustered) or "simulation".
	Method     string
	Replicates int
	Seed       uint64
	Classes    []ClassRate
}

// Given reports whether c was computed: Plan leaves a class's power for
// a drop it cannot pay for (Class.CanDrop) not given, Block NaN.
func (c Characteristics) Given() bool { return c.Method != "" }

// Method names.
const (
	MethodExact      = "exact"
	MethodSimulation = "simulation"
)

// Characteristics computes the probability that r blocks in scenario s,
// for a fixture set of the given classes under the model of Class. It is
// exact when every class's Correlation is 0 and the rule's test is not
// clustered (the classes are independent, so the change passes with
// probability Π(1 − P(class blocks))); otherwise it simulates
// opts.Replicates fixture sets. Classes with no items are not tested and
// do not count in Holm's k.
func (r Rule) Characteristics(classes []Class, s Scenario, opts SimOptions) (Characteristics, error) {
	if err := r.Validate(); err != nil {
		return Characteristics{}, err
	}
	r = r.Normalized()
	out := Characteristics{Rule: r, Scenario: s, Method: MethodExact}
	exact := !r.Clustered
	sims := make([]simClass, 0, len(classes))
	for name := range s.Drop {
		found := false
		for _, c := range classes {
			found = found || c.Name == name
		}
		if !found {
			return Characteristics{}, inputErrorf("the scenario drops class %q, which the fixture set does not have", name)
		}
	}
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return Characteristics{}, err
		}
		drop := s.Drop[c.Name]
		pl, pg, err := c.rates(drop)
		if err != nil {
			return Characteristics{}, err
		}
		out.Classes = append(out.Classes, ClassRate{Name: c.Name, Items: c.Items(), Conversations: len(c.Sizes), PLost: pl, PGained: pg, Drop: drop})
		sims = append(sims, simClass{sizes: c.Sizes, pairs: c.Items(), pLost: pl, pGained: pg, rho: c.Correlation})
		exact = exact && c.Correlation == 0
	}
	k := len(classes)
	if k == 0 {
		return Characteristics{}, inputErrorf("no class to compute the rule's error rates for")
	}
	if exact {
		pass := 1.0
		for i, c := range out.Classes {
			b, err := r.exactClass(c.Items, c.PLost, c.PGained, r.firstLevel(k))
			if err != nil {
				return Characteristics{}, err
			}
			out.Classes[i].Block = b
			pass *= 1 - b
		}
		out.Block = 1 - pass
		return out, nil
	}
	opts = opts.normalized()
	blocked, err := r.simulate(sims, k, opts)
	if err != nil {
		return Characteristics{}, err
	}
	n := float64(opts.Replicates)
	out.Method, out.Replicates, out.Seed = MethodSimulation, opts.Replicates, opts.Seed
	out.Block = float64(blocked) / n
	out.StandardError = math.Sqrt(out.Block * (1 - out.Block) / n)
	for i := range out.Classes {
		out.Classes[i].Block = float64(sims[i].blocks) / n
	}
	return out, nil
}

// MonteCarloError is the Monte-Carlo error to print beside a simulated
// Block: StandardError, but at least 1/Replicates, since an estimate of
// 0 or 1 has a plug-in standard error sqrt(p(1 − p)/R) of 0 while the
// simulation resolves no probability finer than one fixture set in R.
// 0 when exact.
func (c Characteristics) MonteCarloError() float64 {
	if c.Method != MethodSimulation || c.Replicates == 0 {
		return 0
	}
	return math.Max(c.StandardError, 1/float64(c.Replicates))
}

// Extreme reports a simulated Block of 0 or 1, where a standard error
// says little, and bound, the 95% bound the rule of three gives there
// (Hanley & Lippman-Hand 1983, "If nothing goes wrong, is everything all
// right?", JAMA 249:1743): with no block in R fixture sets the
// probability is below 3/R, with every one blocked above 1 − 3/R.
func (c Characteristics) Extreme() (bound float64, ok bool) {
	if c.Method != MethodSimulation || c.Replicates == 0 || (c.Block != 0 && c.Block != 1) {
		return 0, false
	}
	b := 3 / float64(c.Replicates)
	if c.Block == 1 {
		b = 1 - b
	}
	return b, true
}

// ClassStandardError is the Monte-Carlo standard error of class i's
// Block; 0 when exact.
func (c Characteristics) ClassStandardError(i int) float64 {
	if c.Method != MethodSimulation || c.Replicates == 0 {
		return 0
	}
	b := c.Classes[i].Block
	return math.Sqrt(b * (1 - b) / float64(c.Replicates))
}
