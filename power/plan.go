package power

import (
	"errors"
	"fmt"
	"math"

	"github.com/tally-eval/tally/stats"
)

// maxConversations bounds Plan's conversations so that four times it,
// the count that halves the standard error, fits an int.
const maxConversations = 1 << 53

// PlanMethod is the paired power method behind every paired figure of a
// plan: Connor's (1987) normal approximation, which is closed-form in the
// number of pairs and so serves any N.
const PlanMethod = Connor

// PairedBasis names what a plan's paired figures assume about the
// conversations the two runs disagree on besides the ones a drop loses.
type PairedBasis string

// The paired bases. Their names are part of the JSON contract.
const (
	// NoNoise is the assumption when none is stated: the runs disagree
	// on no conversation but those the change loses, so there is no
	// noise and no gained pair. It is pairing's best case (every
	// discordant pair points the same way), so every other assumption
	// gives a larger minimum detectable effect and more pairs.
	NoNoise PairedBasis = "none"
	// StatedGained fixes p_gained, the share of conversations the
	// candidate wins where the reference failed (noise, or real gains),
	// and adds the drop to the losses: p_lost = p_gained + drop.
	StatedGained PairedBasis = "p_gained"
	// StatedDiscordance fixes the share of conversations the runs
	// disagree on, p_lost + p_gained, noise included; the drop is the
	// difference: p_lost = (discordance + drop)/2, p_gained =
	// (discordance − drop)/2.
	StatedDiscordance PairedBasis = "discordance"
)

// PairedAssumption is what a plan's paired figures assume besides the
// drop. The zero value is NoNoise.
type PairedAssumption struct {
	Basis PairedBasis
	// PGained is the stated p_gained (Basis StatedGained).
	PGained float64
	// Discordance is the stated p_lost + p_gained (Basis
	// StatedDiscordance).
	Discordance float64
}

// split returns the discordant probabilities the assumption gives a
// drop, or an input error when they are impossible at the reference's
// success rate: a pair is lost only where the reference succeeded
// (p_lost ≤ rate) and gained only where it failed (p_gained ≤ 1 − rate).
func (a PairedAssumption) split(rate, drop float64) (pLost, pGained float64, err error) {
	switch a.Basis {
	case StatedGained:
		pLost, pGained = a.PGained+drop, a.PGained
	case StatedDiscordance:
		if drop > a.Discordance+1e-12 {
			return 0, 0, inputErrorf("discordance %v is below the drop %.4g: the runs disagree at least on the conversations lost", a.Discordance, drop)
		}
		pLost, pGained = (a.Discordance+drop)/2, math.Max(0, (a.Discordance-drop)/2)
	default:
		pLost = drop
	}
	if pGained > 1-rate+1e-12 {
		return 0, 0, inputErrorf("p_gained %.4g exceeds the reference's failure rate %.4g: a pair is gained only where the reference failed", pGained, 1-rate)
	}
	if pLost > rate+1e-12 {
		return 0, 0, inputErrorf("p_lost %.4g exceeds the reference's success rate %v: a pair is lost only where the reference succeeded", pLost, rate)
	}
	return pLost, pGained, nil
}

// validate checks the stated value and normalises the basis.
func (a PairedAssumption) validate(rate float64) (PairedAssumption, error) {
	switch a.Basis {
	case "", NoNoise:
		return PairedAssumption{Basis: NoNoise}, nil
	case StatedGained:
		if err := stats.ValidateRate("p_gained", a.PGained); err != nil {
			return a, err
		}
		if a.PGained > 1-rate+1e-12 {
			return a, inputErrorf("p_gained %v exceeds the reference's failure rate %.4g: a pair is gained only where the reference failed", a.PGained, 1-rate)
		}
		return PairedAssumption{Basis: StatedGained, PGained: a.PGained}, nil
	case StatedDiscordance:
		if err := stats.ValidateRate("discordance", a.Discordance); err != nil {
			return a, err
		}
		if lo, hi := a.dropRange(rate); lo > hi {
			return a, inputErrorf("discordance %v is impossible at a success rate of %v: a pair is lost only where the reference succeeded, so with no more gained than lost the runs disagree on at most 2 × %v", a.Discordance, rate, rate)
		}
		return PairedAssumption{Basis: StatedDiscordance, Discordance: a.Discordance}, nil
	}
	return a, inputErrorf("unknown paired basis %q (want none, p_gained or discordance)", string(a.Basis))
}

// dropRange is the interval of drops the assumption allows at rate.
func (a PairedAssumption) dropRange(rate float64) (lo, hi float64) {
	switch a.Basis {
	case StatedGained:
		return 0, rate - a.PGained
	case StatedDiscordance:
		d := a.Discordance
		return math.Max(0, d-2*(1-rate)), math.Min(d, 2*rate-d)
	}
	return 0, rate
}

// PlanInput is what `tally plan` is given: a success rate over a number
// of conversations, a count of conversations failing outright (0 for
// none), a two-sided level and a target power, and the paired design's
// assumption.
type PlanInput struct {
	Rate          float64
	Conversations int
	Catastrophic  int
	Alpha         float64
	Power         float64
	Paired        PairedAssumption
}

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
	// PairedAssumption is what every paired figure assumes (NoNoise
	// when nothing was stated), and PairedMethod how they are computed
	// (PlanMethod).
	PairedAssumption PairedAssumption
	PairedMethod     PairedMethod
	// MinimumDetectable holds the smallest drop each design detects at
	// α and the target power: two independent runs of N conversations
	// (IndependentMDE) and N conversations run twice, under
	// PairedAssumption.
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
	// Connor's McNemar power to detect the drop under the plan's
	// PairedAssumption.
	Paired int
	// IndependentBeyond and PairedBeyond say the count is more than
	// MaxSampleSize (the field is 0 then): a drop too small to detect
	// by any run that can be computed.
	IndependentBeyond, PairedBeyond bool
}

// Catastrophic is the resolution check for K conversations that the
// candidate fails outright where the reference succeeded.
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
	// from rate to rate − Drop: the aggregate's, which no assumption
	// about discordance changes.
	Power float64
	// Resolvable reports whether the aggregate of two independent runs
	// can resolve the drop: Power reaches the target power. When false
	// the drop is within the run-to-run noise of the aggregate at this
	// size.
	Resolvable bool
	// Paired is what a paired run of the same N conversations does with
	// the drop, under the plan's PairedAssumption.
	Paired PairedCheck
	// ConversationsNeeded is what each design needs to detect the drop
	// at α and the target power.
	ConversationsNeeded DesignCounts
}

// PairedCheck is a paired run of N conversations facing a drop, by
// Connor's approximation.
type PairedCheck struct {
	// PLost and PGained are the discordant probabilities the assumption
	// gives the drop (PLost − PGained = Drop).
	PLost, PGained float64
	// Power is the power of McNemar's test with N pairs; Resolvable is
	// whether it reaches the target.
	Power      float64
	Resolvable bool
	// MaxDiscordance is the largest share of conversations the runs may
	// disagree on (p_lost + p_gained, the lost ones included) for N
	// pairs still to detect the drop with the target power, holding the
	// drop and adding noise evenly to both sides; MaxDiscordanceDefined
	// is false when N pairs fall short even with no noise, or when the
	// target power is below one half (where Connor's power need not
	// fall with discordance). AtRateLimit reports that N pairs detect
	// the drop at every discordance the success rate allows, which is
	// then MaxDiscordance.
	MaxDiscordance        float64
	MaxDiscordanceDefined bool
	AtRateLimit           bool
}

// Plan is PlanFor with no stated paired assumption (NoNoise).
func Plan(rate float64, conversations int, catastrophic int, alpha, power float64) (PlanResult, error) {
	return PlanFor(PlanInput{Rate: rate, Conversations: conversations, Catastrophic: catastrophic, Alpha: alpha, Power: power})
}

// PlanFor computes what an aggregate success rate over conversations can
// resolve, at two-sided level alpha with the given target power (the
// CLI's defaults are 0.05 and 0.8), and, when the catastrophic count is
// positive, whether that many conversations failing outright would be
// visible at all, to two independent runs and to a paired run under the
// input's PairedAssumption. The catastrophic count may not exceed the
// expected successes rate·conversations.
func PlanFor(in PlanInput) (PlanResult, error) {
	rate, conversations, catastrophic, alpha, power := in.Rate, in.Conversations, in.Catastrophic, in.Alpha, in.Power
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
		return PlanResult{}, inputErrorf("catastrophic failures %d exceed the %.4g successes expected at rate %v over %d conversation%s", catastrophic, rate*n, rate, conversations, map[bool]string{true: "", false: "s"}[conversations == 1])
	}
	assume, err := in.Paired.validate(rate)
	if err != nil {
		return PlanResult{}, err
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
		PairedAssumption:              assume,
		PairedMethod:                  PlanMethod,
		HalveUncertaintyConversations: 4 * conversations,
	}
	if p.MinimumDetectable.Independent, err = IndependentMDE(rate, conversations, alpha, power); err != nil {
		return PlanResult{}, err
	}
	p.MinimumDetectable.Paired = assume.mde(rate, conversations, alpha, power)
	if !p.MinimumDetectable.Independent.Detectable {
		p.Warnings = append(p.Warnings, fmt.Sprintf("independent: no drop from %v, not even to 0, reaches power %v with %d conversations per run", rate, power, conversations))
	}
	if !p.MinimumDetectable.Paired.Detectable {
		p.Warnings = append(p.Warnings, fmt.Sprintf("paired: no drop the assumption allows at rate %v reaches power %v with %d pairs", rate, power, conversations))
	}
	if k := rate * n; k < 10 || n-k < 10 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("wald: fewer than 10 expected successes or failures (%.4g of %d); the interval is rough near 0 and 1, see `tally interval` for wilson", k, conversations))
	}
	if catastrophic > 0 {
		c, err := catastrophicCheck(rate, conversations, catastrophic, se, alpha, power, assume)
		if err != nil {
			return PlanResult{}, err
		}
		p.Catastrophic = &c
	}
	return p, nil
}

// pairedPower is Connor's power of n pairs at the given discordant
// probabilities.
func pairedPower(pLost, pGained float64, n int, alpha float64) float64 {
	return Paired{PLost: pLost, PGained: pGained, Alpha: alpha, Method: PlanMethod}.approxPower(float64(n))
}

// mde is the smallest drop within the assumption's range that n pairs
// detect with the target power: the first crossing of Connor's power on
// a grid of 1024 steps, refined by bisection to 1e-12. For a target of
// at least one half the crossing is unique, so this is exact: the power
// reaches the target where n ≥ n(δ) = (z_{α/2}√ψ + z_β√(ψ−δ²))²/δ², and
// with ψ = 2g + δ (StatedGained, NoNoise: g = 0) or ψ fixed
// (StatedDiscordance), d/dδ[√n(δ)] < 0 whenever z_β ≥ 0 (2ψ ≥ δ and
// 2(ψ−δ²) ≥ δ(1−2δ) make each term's quotient fall).
func (a PairedAssumption) mde(rate float64, n int, alpha, power float64) MDE {
	if power <= alpha/2 {
		return MDE{Effect: 0, Detectable: true}
	}
	lo, hi := a.dropRange(rate)
	if hi <= 0 || hi < lo {
		return MDE{}
	}
	ok := func(d float64) bool {
		pl, pg, err := a.split(rate, d)
		return err == nil && pairedPower(pl, pg, n, alpha) >= power
	}
	d, found := firstCrossing(lo, hi, ok)
	if !found {
		return MDE{}
	}
	return MDE{Effect: d, Detectable: true}
}

// firstCrossing is the smallest x in [lo, hi] with ok(x), found on a
// grid of 1024 steps and refined by bisection within the step where ok
// turns true; found is false when ok holds at no grid point.
func firstCrossing(lo, hi float64, ok func(float64) bool) (x float64, found bool) {
	const steps = 1024
	if ok(lo) {
		return lo, true
	}
	prev := lo
	for i := 1; i <= steps; i++ {
		x := lo + (hi-lo)*float64(i)/steps
		if i == steps {
			x = hi
		}
		if ok(x) {
			return bisect(prev, x, 1e-12, ok), true
		}
		prev = x
	}
	return 0, false
}

func catastrophicCheck(rate float64, conversations, k int, se, alpha, power float64, assume PairedAssumption) (Catastrophic, error) {
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
	if errors.Is(err, ErrBeyondLimit) {
		c.ConversationsNeeded.IndependentBeyond, err = true, nil
	}
	if err != nil {
		return Catastrophic{}, err
	}
	pl, pg, err := assume.split(rate, drop)
	if err != nil {
		return Catastrophic{}, fmt.Errorf("%d catastrophic of %d: %w", k, conversations, err)
	}
	ssp, err := Paired{PLost: pl, PGained: pg, Alpha: alpha, Method: PlanMethod}.SampleSize(power)
	if errors.Is(err, ErrBeyondLimit) {
		c.ConversationsNeeded.PairedBeyond, err = true, nil
	}
	if err != nil {
		return Catastrophic{}, err
	}
	c.Paired = PairedCheck{PLost: pl, PGained: pg, Power: pairedPower(pl, pg, conversations, alpha)}
	c.Paired.Resolvable = c.Paired.Power >= power
	c.Paired.maxDiscordance(rate, drop, conversations, alpha, power)
	c.ConversationsNeeded.Independent, c.ConversationsNeeded.Paired = ssi.N, ssp.N
	return c, nil
}

// maxDiscordance fills MaxDiscordance: the largest g in [0, gMax] with
// Connor's power at p_lost = drop + g, p_gained = g reaching the target,
// where gMax keeps p_lost ≤ rate and p_gained ≤ 1 − rate. With the
// numerator √n·δ − z√ψ positive (needed for a power above one half) the
// power falls as ψ = drop + 2g grows, its numerator falling and its
// denominator √(ψ − δ²) rising, so the set is [0, g*] and bisection finds
// g* to 1e-12.
func (c *PairedCheck) maxDiscordance(rate, drop float64, n int, alpha, power float64) {
	if power < 0.5 {
		return
	}
	ok := func(g float64) bool { return pairedPower(drop+g, g, n, alpha) >= power }
	gMax := math.Max(0, math.Min(rate-drop, 1-rate))
	switch {
	case !ok(0):
		return
	case ok(gMax):
		c.MaxDiscordance, c.MaxDiscordanceDefined, c.AtRateLimit = drop+2*gMax, true, true
		return
	}
	g := bisect(0, gMax, 1e-12, func(g float64) bool { return !ok(g) })
	c.MaxDiscordance, c.MaxDiscordanceDefined = drop+2*g, true
}
