package rule

import (
	"math"
)

// PlanInput is the question `tally plan fixtures` asks of a fixture set:
// with these classes, this rule and this noise, how likely is a harmless
// change blocked, how likely each drop, and how large must each class be
// to catch a drop with power TargetPower while a harmless change is
// blocked with probability at most MaxFalseBlock?
type PlanInput struct {
	Rule    Rule
	Classes []Class
	// Drops are the drops in one class's retention to give the power
	// for (shares: 0.03 is 3 points).
	Drops []float64
	// TargetPower and MaxFalseBlock are the sizing targets (0.8, and
	// when zero the rule's alpha for McNemar, whose family-wise level is
	// its false-block rate by design, else 0.05).
	TargetPower, MaxFalseBlock float64
	Sim                        SimOptions
}

// PlanResult answers a PlanInput.
type PlanResult struct {
	Input PlanInput
	// FalseBlock is the probability that the rule blocks a harmless
	// change; Power[i][j] that it blocks a drop of Drops[j] in class i.
	FalseBlock Characteristics
	Power      [][]Characteristics
	// Needed[i][j] is the size class i needs to catch a drop of Drops[j].
	Needed [][]Need
	// ClassBudget is the false-block rate each class may have so that
	// the set's is at most MaxFalseBlock: 1 − (1 − MaxFalseBlock)^(1/k).
	ClassBudget float64
}

// Need is the size one class needs to catch one drop: the fewest
// conversations (at the class's items per conversation, its sizes
// repeated in turn) at which the class alone blocks the drop with
// probability at least the target power, at the level the rule holds
// one of k classes to; it is reachable when, at that size, the class
// blocks a harmless change with at most its share of the false-block
// budget.
type Need struct {
	// Reachable is false when no size up to MaxPlanItems reaches the
	// power (Limit "power"), or none that does blocks a harmless change
	// rarely enough (Limit "false block"), or, under non-inferiority, the
	// drop is within the margin, which the rule lets pass by design
	// (Limit "within margin"), or the class cannot lose that much
	// (Limit LimitBaseline). A simulated false-block rate counts as
	// within its budget up to 3 Monte-Carlo standard errors over it.
	Reachable            bool
	Conversations, Items int
	// Power and FalseBlock are the class's at that size.
	Power, FalseBlock float64
	Limit             string
}

// LimitBaseline is Need.Limit for a drop the class's baseline cannot
// pay for (Class.CanDrop): its losses would exceed the items it retains.
const LimitBaseline = "baseline"

// MaxPlanItems bounds the sizes the search tries: a million
// item-compactions in one class.
const MaxPlanItems = 1_000_000

// Plan computes a PlanResult. The sizes are searched by doubling the
// conversations until the power is reached, then by bisection (power
// grows with size under every rule here); each step computes the class
// alone, exactly, or by simulation with Sim's seed and at most 500
// replicates, and the size found is computed again with Sim's
// replicates (and grown by 2% steps while those put it short of the
// target). The count rule's false-block rate grows with size, which
// is why its sizes are often unreachable.
func Plan(in PlanInput) (PlanResult, error) {
	if in.TargetPower == 0 {
		in.TargetPower = 0.8
	}
	if in.MaxFalseBlock == 0 {
		in.MaxFalseBlock = 0.05
		if r := in.Rule.Normalized(); r.Kind == McNemar {
			in.MaxFalseBlock = r.Alpha
		}
	}
	if !(in.TargetPower > 0 && in.TargetPower < 1) || !(in.MaxFalseBlock > 0 && in.MaxFalseBlock < 1) {
		return PlanResult{}, inputErrorf("target power %g and false-block budget %g must be in (0, 1)", in.TargetPower, in.MaxFalseBlock)
	}
	out := PlanResult{Input: in}
	var err error
	if out.FalseBlock, err = in.Rule.Characteristics(in.Classes, Scenario{}, in.Sim); err != nil {
		return PlanResult{}, err
	}
	// A drop no class can pay for is an input error; one that some
	// class cannot pay for leaves that class's power not given.
	for _, d := range in.Drops {
		var first error
		fits := false
		for _, c := range in.Classes {
			err := c.CheckDrop(d)
			fits = fits || err == nil
			if first == nil {
				first = err
			}
		}
		if !fits && first != nil {
			return PlanResult{}, first
		}
	}
	k := len(in.Classes)
	out.ClassBudget = -math.Expm1(math.Log1p(-in.MaxFalseBlock) / float64(k))
	out.Power = make([][]Characteristics, k)
	out.Needed = make([][]Need, k)
	for i, c := range in.Classes {
		for _, d := range in.Drops {
			if !c.CanDrop(d) {
				// The class cannot lose that much: no power, no size,
				// and the other classes' figures for the drop stand.
				out.Power[i] = append(out.Power[i], Characteristics{Rule: in.Rule, Scenario: Scenario{Drop: map[string]float64{c.Name: d}}, Block: math.NaN()})
				out.Needed[i] = append(out.Needed[i], Need{Limit: LimitBaseline})
				continue
			}
			ch, err := in.Rule.Characteristics(in.Classes, Scenario{Drop: map[string]float64{c.Name: d}}, in.Sim)
			if err != nil {
				return PlanResult{}, err
			}
			out.Power[i] = append(out.Power[i], ch)
			need, err := in.Rule.need(c, k, d, in.TargetPower, out.ClassBudget, in.Sim)
			if err != nil {
				return PlanResult{}, err
			}
			out.Needed[i] = append(out.Needed[i], need)
		}
	}
	return out, nil
}

// resized is c with n conversations, its sizes repeated in turn.
func resized(c Class, n int) Class {
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = c.Sizes[i%len(c.Sizes)]
	}
	c.Sizes = sizes
	return c
}

// classAlone is the probability that class c alone blocks in the
// scenario with drop d, at the level the rule holds one of k classes to.
func (r Rule) classAlone(c Class, k int, d float64, sim SimOptions) (float64, error) {
	r = r.Normalized()
	pl, pg, err := c.rates(d)
	if err != nil {
		return 0, err
	}
	level := r.firstLevel(k)
	if !r.Clustered && c.Correlation == 0 {
		return r.exactClass(c.Items(), pl, pg, level)
	}
	sim = sim.normalized()
	sc := []simClass{{sizes: c.Sizes, pairs: c.Items(), pLost: pl, pGained: pg, rho: c.Correlation}}
	// Holm's first step for one of k classes: simulate the class alone
	// at level α/k by telling simulate there are k classes.
	if _, err := r.simulate(sc, k, sim); err != nil {
		return 0, err
	}
	return float64(sc[0].blocks) / float64(sim.Replicates), nil
}

// searchReplicates is the replicates of each simulated step of the size
// search; the size found is then computed with the full replicates.
const searchReplicates = 500

// need searches the size class c needs to catch drop d: the fewest
// conversations at which the class alone blocks the drop with
// probability at least target and a harmless change with at most budget
// (within 3 Monte-Carlo standard errors when simulated). Under
// non-inferiority a drop within the margin is what the rule lets pass,
// so no size catches it (Limit "within margin"); under the count rule
// the false-block rate only grows with size, so once the power is
// reached with too many false blocks no larger size helps.
func (r Rule) need(c Class, k int, d, target, budget float64, sim SimOptions) (Need, error) {
	if err := c.validate(); err != nil {
		return Need{}, err
	}
	r = r.Normalized()
	if r.Kind == NonInferiority && d <= r.Margin {
		return Need{Limit: "within margin"}, nil
	}
	sim = sim.normalized()
	search := sim
	search.Replicates = min(sim.Replicates, searchReplicates)
	simulated := r.Clustered || c.Correlation > 0
	slack := func(o SimOptions) float64 {
		if !simulated {
			return 0
		}
		return 3 * math.Sqrt(budget*(1-budget)/float64(o.Replicates))
	}
	per := float64(c.Items()) / float64(len(c.Sizes))
	maxConv := max(1, int(MaxPlanItems/per))
	eval := func(n int, o SimOptions) (Need, bool, error) {
		rc := resized(c, n)
		p, err := r.classAlone(rc, k, d, o)
		if err != nil {
			return Need{}, false, err
		}
		fb, err := r.classAlone(rc, k, 0, o)
		if err != nil {
			return Need{}, false, err
		}
		nd := Need{Conversations: n, Items: rc.Items(), Power: p, FalseBlock: fb}
		return nd, p >= target && fb <= budget+slack(o), nil
	}
	short := func(nd Need) Need {
		nd.Limit = "power"
		if nd.Power >= target {
			nd.Limit = "false block"
		}
		return nd
	}
	lo, hi := 0, len(c.Sizes) // sizes ≤ lo fall short (0: none tried)
	for {
		nd, ok, err := eval(hi, search)
		if err != nil {
			return Need{}, err
		}
		if ok {
			break
		}
		if hi >= maxConv || r.Kind == Count && nd.Power >= target {
			return short(nd), nil
		}
		lo, hi = hi, min(2*hi, maxConv)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		_, ok, err := eval(mid, search)
		if err != nil {
			return Need{}, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The size found, with the full replicates; where those put it a
	// little short, the size grows by 2% steps (at most 20) until they
	// do not.
	nd, ok, err := eval(hi, sim)
	for step := 0; !ok && err == nil && step < 20 && hi < maxConv; step++ {
		hi = min(maxConv, hi+max(1, hi/50))
		nd, ok, err = eval(hi, sim)
	}
	if err != nil {
		return Need{}, err
	}
	if !ok {
		return short(nd), nil
	}
	nd.Reachable = true
	return nd, nil
}
