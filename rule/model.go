package rule

import (
	"fmt"
	"math"

	"github.com/tally-eval/tally/power"
)

// Class describes one class of a fixture set for the operating
// characteristics: how its items fall into conversations, how often two
// runs of one system disagree on an item (the noise), and how strongly
// those disagreements cluster within conversations.
//
// The model (Model) of one class's paired verdicts, candidate against
// incumbent: conversation k has Sizes[k] item-compactions (an item
// checked at one compaction). Each conversation draws a propensity to
// lose an item, u_k, and one to gain an item it did not lose, v_k,
// independently from beta distributions with means p_lost and
// p_gained/(1 − p_lost) and intraclass correlation Correlation (a beta
// with mean p and ICC ρ has a + b = (1 − ρ)/ρ); each of its
// item-compactions is then lost with probability u_k, else gained with
// probability v_k, independently. So a conversation's losses are
// beta-binomial, and so are its gains among the items it did not lose;
// each item is lost with probability p_lost and gained with probability
// p_gained. With Correlation 0 the items are independent trinomials. A change no better and no worse than the incumbent has
// p_lost = p_gained = Discordance/2; a drop of δ points adds δ to p_lost.
// Classes are independent of each other.
type Class struct {
	// Name labels the class in results ("constraint").
	Name string
	// Sizes holds the item-compactions of each conversation (each > 0).
	Sizes []int
	// Baseline is the incumbent's retention (a share in [0, 1]): only a
	// retained item can be lost, so a drop must leave p_lost ≤ Baseline.
	// The noise's gains are not held to 1 − Baseline: the noise is
	// measured on runs of their own, whose retention differs.
	Baseline float64
	// Discordance is the share of item-compactions on which two runs of
	// one system disagree (retained in one, not the other): the noise.
	Discordance float64
	// Correlation is the intraclass correlation ρ of the loss and gain
	// propensities within a conversation, in [0, 1): EstimateCorrelation
	// measures it from two runs of one system.
	Correlation float64
}

// Items is the number of item-compactions of the class.
func (c Class) Items() int {
	n := 0
	for _, s := range c.Sizes {
		n += s
	}
	return n
}

// validate reports whether c is usable.
func (c Class) validate() error {
	if len(c.Sizes) == 0 {
		return inputErrorf("class %s: no conversation", c.Name)
	}
	for i, s := range c.Sizes {
		if s <= 0 {
			return inputErrorf("class %s: conversation %d has %d item-compactions; want at least 1", c.Name, i+1, s)
		}
	}
	if !(c.Baseline >= 0 && c.Baseline <= 1) {
		return inputErrorf("class %s: baseline retention %g is not a share in [0, 1]", c.Name, c.Baseline)
	}
	if !(c.Discordance >= 0 && c.Discordance <= 1) {
		return inputErrorf("class %s: discordance %g is not a share in [0, 1]", c.Name, c.Discordance)
	}
	if !(c.Correlation >= 0 && c.Correlation < 1) {
		return inputErrorf("class %s: correlation %g is not in [0, 1)", c.Name, c.Correlation)
	}
	return nil
}

// rates returns the per-item probabilities of a loss and of a gain under
// a drop of drop points (a share), checked against the baseline.
// CanDrop reports whether c's baseline can pay for a drop of drop under
// its noise: the items it would lose (half its discordance plus the
// drop) are at most those it retains, and some item stays unchanged.
// A drop it cannot pay for has no power (Plan gives a Characteristics
// that is not Given).
func (c Class) CanDrop(drop float64) bool { return c.CheckDrop(drop) == nil }

// CheckDrop is CanDrop's reason: nil when c can pay for the drop, else
// an error saying how much it would lose and how much it retains.
func (c Class) CheckDrop(drop float64) error {
	_, _, err := c.rates(drop)
	return err
}

func (c Class) rates(drop float64) (pLost, pGained float64, err error) {
	pLost, pGained = c.Discordance/2+drop, c.Discordance/2
	switch {
	case drop < 0 || drop >= 1:
		return 0, 0, inputErrorf("class %s: a drop of %g is not a share in [0, 1)", c.Name, drop)
	case pLost > c.Baseline+1e-12:
		return 0, 0, inputErrorf("class %s: a drop of %s points with noise %s%% needs %s%% of items lost, more than the %s%% retained at baseline",
			c.Name, num(100*drop), num(100*c.Discordance/2), num(100*pLost), num(100*c.Baseline))
	case pLost+pGained > 1+1e-12:
		return 0, 0, inputErrorf("class %s: a drop of %s points with noise %s%% leaves no item unchanged", c.Name, num(100*drop), num(100*c.Discordance))
	}
	return math.Min(pLost, 1), pGained, nil
}

// EvenSizes splits items into conversations as evenly as possible: the
// shape of a fixture set known only by its counts.
func EvenSizes(items, conversations int) ([]int, error) {
	if items <= 0 || conversations <= 0 {
		return nil, inputErrorf("want at least one item and one conversation, got %d items in %d conversations", items, conversations)
	}
	conversations = min(conversations, items)
	sizes := make([]int, conversations)
	for i := range sizes {
		sizes[i] = items / conversations
		if i < items%conversations {
			sizes[i]++
		}
	}
	return sizes, nil
}

// EstimateCorrelation estimates Class.Correlation from two runs of one
// system, given each conversation's paired item-compactions, losses and
// gains (first run against second), by the method of moments under the
// model of Class: with x = +1 for a lost item, −1 for a gained one and 0
// otherwise, a conversation's net S_k = Σx has
//
//	Var(S_k) = m_k(ψ − Δ²) + m_k(m_k − 1)·ρ·τ,   ψ = p_L + p_G, Δ = p_L − p_G,
//	τ = p_L(1 − p_L) + p_G(1 − p_G),
//
// so ρ̂ = [Σ(S_k − m_kΔ̂)² − Σm_k(ψ̂ − Δ̂²)] / [τ̂·Σm_k(m_k − 1)], clipped to
// [0, 0.99]. It is the share of the spread of conversations' net losses
// beyond what independent items give, which is what inflates a count's
// variance (the design effect of the net loss is 1 + (m − 1)ρτ/(ψ − Δ²)
// for conversations of m items). ok is false, and ρ̂ 0, when it is not
// identified: no conversation with two items, or no discordance.
func EstimateCorrelation(cs []power.ClusterCounts) (rho float64, ok bool, err error) {
	var n, lost, gained, pairsWithin float64
	for i, c := range cs {
		if c.N < 0 || c.Lost < 0 || c.Gained < 0 || c.Lost+c.Gained > c.N {
			return 0, false, inputErrorf("conversation %d: %d lost and %d gained of %d pairs is not a paired count", i+1, c.Lost, c.Gained, c.N)
		}
		m := float64(c.N)
		n += m
		lost += float64(c.Lost)
		gained += float64(c.Gained)
		pairsWithin += m * (m - 1)
	}
	if n == 0 || lost+gained == 0 || pairsWithin == 0 {
		return 0, false, nil
	}
	pl, pg := lost/n, gained/n
	psi, delta := pl+pg, pl-pg
	tau := pl*(1-pl) + pg*(1-pg)
	var spread float64
	for _, c := range cs {
		d := float64(c.Lost-c.Gained) - float64(c.N)*delta
		spread += d * d
	}
	rho = (spread - n*(psi-delta*delta)) / (tau * pairsWithin)
	return math.Max(0, math.Min(0.99, rho)), true, nil
}

// Scenario is a state of the world the characteristics are computed in:
// a drop in retention per class, by class name, as a share (0.03 is 3
// points). Classes it does not name do not drop. The zero Scenario is a
// change exactly as good as the incumbent: what it blocks is a false
// block.
type Scenario struct {
	Drop map[string]float64
}

// String describes the scenario ("no drop", "constraint −3 points").
func (s Scenario) String() string {
	out := ""
	for name, d := range s.Drop {
		if d == 0 {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s −%s points", name, num(100*d))
	}
	if out == "" {
		return "no drop"
	}
	return out
}
