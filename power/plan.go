package power

import (
	"fmt"
	"math"

	"github.com/tally-eval/tally/stats"
)

// maxConversations bounds Plan's conversations so that four times it,
// the count that halves the standard error, fits an int.
const maxConversations = 1 << 53

// PlanResult is the seed's "on paper first" arithmetic for a success
// rate measured over a number of conversations: what `tally plan`
// reports.
type PlanResult struct {
	Rate          float64
	Conversations int
	Alpha         float64
	Power         float64
	// StandardError is sqrt(rate·(1−rate)/N).
	StandardError float64
	// Interval is the Wald interval rate ± z_{α/2}·SE at confidence
	// 1 − α, clipped to [0,1]: the noise band the seed computes (0.83
	// over 200 gives 0.78–0.88; the Wilson interval would be
	// 0.772–0.876). The rate is a planning assumption, not a count, so
	// this is a statement about the measurement's resolution.
	Interval stats.Interval
	// MinimumDetectable holds the smallest drop each design detects at
	// α and the target power: two independent runs of N conversations
	// (IndependentMDE) and N conversations run twice (PairedMDE, which
	// assumes no gains).
	MinimumDetectable DesignEffects
	// HalveUncertaintyConversations is 4·N: the standard error falls
	// with √N, so halving it takes four times the conversations.
	HalveUncertaintyConversations int
	// Catastrophic is the check for K conversations failing outright;
	// nil when K = 0.
	Catastrophic *Catastrophic
	Warnings     []string
}

// DesignEffects is one minimum detectable effect per design.
type DesignEffects struct {
	Independent MDE
	Paired      MDE
}

// DesignCounts is one number of conversations per design.
type DesignCounts struct {
	// Independent is the conversations per run (each of the two runs)
	// for power.prop.test to detect the drop.
	Independent int
	// Paired is the conversations, each run by both systems, for
	// Connor's McNemar power to detect the drop when it is all losses.
	Paired int
}

// Catastrophic is the resolution check for K conversations that the
// candidate fails outright where the reference succeeded, and none
// gained: the best case for the aggregate, since every failure is caught
// and nothing offsets it.
type Catastrophic struct {
	Count int
	// Drop is K/N, the fall in the success rate.
	Drop float64
	// InStandardErrors is Drop / StandardError; InStandardErrorsDefined
	// is false when the standard error is 0 (a rate of 0 or 1).
	InStandardErrors        float64
	InStandardErrorsDefined bool
	// Power is the power of comparing two independent runs of N
	// conversations (R's power.prop.test, two-sided α) to detect a move
	// from rate to rate − Drop.
	Power float64
	// Resolvable reports whether the aggregate can resolve the drop:
	// Power reaches the target power. When false the drop is within the
	// run-to-run noise of the aggregate at this size.
	Resolvable bool
	// ConversationsNeeded is what each design needs to detect the drop
	// at α and the target power.
	ConversationsNeeded DesignCounts
}

// Plan computes what an aggregate success rate over conversations can
// resolve, at two-sided level alpha with the given target power (the
// CLI's defaults are 0.05 and 0.8), and, when catastrophic > 0, whether
// that many conversations failing outright would be visible at all.
// catastrophic may not exceed the expected successes rate·conversations.
func Plan(rate float64, conversations int, catastrophic int, alpha, power float64) (PlanResult, error) {
	if err := stats.ValidateRate("rate", rate); err != nil {
		return PlanResult{}, err
	}
	if conversations < 1 || conversations > maxConversations {
		return PlanResult{}, inputErrorf("conversations must be between 1 and %d, got %d", int64(maxConversations), conversations)
	}
	if err := validateAlphaPower(alpha, power); err != nil {
		return PlanResult{}, err
	}
	n := float64(conversations)
	switch {
	case catastrophic < 0:
		return PlanResult{}, inputErrorf("catastrophic failures must not be negative, got %d", catastrophic)
	case float64(catastrophic) > rate*n+1e-9*n:
		return PlanResult{}, inputErrorf("catastrophic failures %d exceed the %.4g successes expected at rate %v over %d conversations", catastrophic, rate*n, rate, conversations)
	}
	se := stats.RateStandardError(rate, conversations)
	z := stats.Z(1 - alpha)
	p := PlanResult{
		Rate: rate, Conversations: conversations, Alpha: alpha, Power: power,
		StandardError: se,
		Interval: stats.Interval{
			Method: string(stats.Wald),
			Lower:  math.Max(0, rate-z*se),
			Upper:  math.Min(1, rate+z*se),
		},
		HalveUncertaintyConversations: 4 * conversations,
	}
	var err error
	if p.MinimumDetectable.Independent, err = IndependentMDE(rate, conversations, alpha, power); err != nil {
		return PlanResult{}, err
	}
	if p.MinimumDetectable.Paired, err = PairedMDE(conversations, alpha, power); err != nil {
		return PlanResult{}, err
	}
	if !p.MinimumDetectable.Independent.Detectable {
		p.Warnings = append(p.Warnings, fmt.Sprintf("independent: no drop from %v, not even to 0, reaches power %v with %d conversations per run", rate, power, conversations))
	}
	if !p.MinimumDetectable.Paired.Detectable {
		p.Warnings = append(p.Warnings, fmt.Sprintf("paired: no drop reaches power %v with %d pairs", power, conversations))
	}
	if k := rate * n; k < 10 || n-k < 10 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("wald: fewer than 10 expected successes or failures (%.4g of %d); the interval is rough near 0 and 1, see `tally interval` for wilson", k, conversations))
	}
	if catastrophic > 0 {
		c, err := catastrophicCheck(rate, conversations, catastrophic, se, alpha, power)
		if err != nil {
			return PlanResult{}, err
		}
		p.Catastrophic = &c
	}
	return p, nil
}

func catastrophicCheck(rate float64, conversations, k int, se, alpha, power float64) (Catastrophic, error) {
	drop := float64(k) / float64(conversations)
	p2 := math.Max(0, rate-drop)
	c := Catastrophic{Count: k, Drop: drop}
	if se > 0 {
		c.InStandardErrors, c.InStandardErrorsDefined = drop/se, true
	}
	ind := Independent{P1: rate, P2: p2, Alpha: alpha}
	c.Power = ind.power(float64(conversations))
	c.Resolvable = c.Power >= power
	ssi, err := ind.SampleSize(power)
	if err != nil {
		return Catastrophic{}, err
	}
	ssp, err := Paired{PLost: drop, Alpha: alpha, Method: Connor}.SampleSize(power)
	if err != nil {
		return Catastrophic{}, err
	}
	c.ConversationsNeeded = DesignCounts{Independent: ssi.N, Paired: ssp.N}
	return c, nil
}
