package rule

import (
	"math/rand/v2"

	"github.com/tally-eval/tally/power"
	"gonum.org/v1/gonum/stat/distuv"
)

// SimOptions control the simulation used where the model has no exact
// answer (correlated items, or a clustered test).
type SimOptions struct {
	// Replicates is the number of simulated fixture sets; 0 means
	// DefaultReplicates.
	Replicates int
	// Seed seeds the generator (PCG); the same seed gives the same
	// answer. 0 means DefaultSeed.
	Seed uint64
}

// Simulation defaults.
const (
	// DefaultReplicates gives a Monte-Carlo standard error of at most
	// 0.011 on any probability, 0.005 near 0.05.
	DefaultReplicates = 2000
	// DefaultSeed is the seed used when none is given.
	DefaultSeed = 20261201
)

func (o SimOptions) normalized() SimOptions {
	if o.Replicates <= 0 {
		o.Replicates = DefaultReplicates
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// simClass holds one class's fixed inputs and its reusable buffers.
type simClass struct {
	sizes          []int
	pairs          int
	pLost, pGained float64
	rho            float64
	// tables hold, for each conversation size up to maxTableSize, the
	// distribution of (lost, gained) in one conversation, to draw from.
	tables   map[int]*convTable
	lostB    distuv.Beta // propensity draws for larger conversations
	gainedB  distuv.Beta
	clusters []power.ClusterCounts
	blocks   int // replicates in which the class blocked
}

// maxTableSize is the largest conversation whose outcome is drawn from a
// table of its (lost, gained) distribution: (m+1)(m+2)/2 entries. A
// larger one is drawn item by item.
const maxTableSize = 300

// convTable is the distribution of one conversation's (lost, gained).
type convTable struct {
	alias        aliasTable
	lost, gained []int32
}

// newConvTable tabulates P(L = l, G = g) for a conversation of m items
// under the model of Class: L ~ BetaBinomial(m; pLost, rho) and, given
// L, G ~ BetaBinomial(m − L; pGained/(1 − pLost), rho).
func newConvTable(m int, pLost, pGained, rho float64) *convTable {
	t := &convTable{}
	var w []float64
	q := 0.0
	if pLost < 1 {
		q = pGained / (1 - pLost)
	}
	for l, pl := range betaBinomial(m, pLost, rho) {
		if pl == 0 {
			continue
		}
		for g, pg := range betaBinomial(m-l, q, rho) {
			if pg == 0 {
				continue
			}
			w = append(w, pl*pg)
			t.lost = append(t.lost, int32(l))
			t.gained = append(t.gained, int32(g))
		}
	}
	t.alias = newAliasTable(w)
	return t
}

// newBeta returns the beta distribution with mean p and intraclass
// correlation rho (a + b = (1 − rho)/rho), or ok false when p is 0 or 1
// or rho is 0 and the propensity is a constant.
func newBeta(p, rho float64, src rand.Source) (distuv.Beta, bool) {
	if p <= 0 || p >= 1 || rho <= 0 {
		return distuv.Beta{}, false
	}
	s := (1 - rho) / rho
	return distuv.Beta{Alpha: p * s, Beta: (1 - p) * s, Src: src}, true
}

// prepare builds c's tables and draws, once per simulation.
func (c *simClass) prepare(rng *rand.Rand) {
	c.blocks = 0
	c.clusters = make([]power.ClusterCounts, len(c.sizes))
	c.tables = map[int]*convTable{}
	for _, m := range c.sizes {
		if _, ok := c.tables[m]; !ok && m <= maxTableSize {
			c.tables[m] = newConvTable(m, c.pLost, c.pGained, c.rho)
		}
	}
	q := 0.0
	if c.pLost < 1 {
		q = c.pGained / (1 - c.pLost)
	}
	c.lostB, _ = newBeta(c.pLost, c.rho, rng)
	c.gainedB, _ = newBeta(q, c.rho, rng)
}

// simulate estimates the probability that each class blocks, and that
// any does, by drawing opts.Replicates fixture sets from the model of
// Class and applying the rule to each, at the first step's level for k
// tested classes. It returns the number of replicates that blocked.
func (r Rule) simulate(classes []simClass, k int, opts SimOptions) (int, error) {
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	for i := range classes {
		classes[i].prepare(rng)
	}
	level := r.firstLevel(k)
	blockedReps := 0
	for rep := 0; rep < opts.Replicates; rep++ {
		blocked := false
		for i := range classes {
			c := &classes[i]
			lost, gained := c.draw(rng)
			t, err := r.testClass(c.clusters, lost, gained, c.pairs)
			if err != nil {
				return 0, err
			}
			if r.blocks(t, level) {
				c.blocks++
				blocked = true
			}
		}
		if blocked {
			blockedReps++
		}
	}
	return blockedReps, nil
}

// draw simulates one fixture set of the class into c.clusters and
// returns its totals.
func (c *simClass) draw(rng *rand.Rand) (lost, gained int) {
	for k, m := range c.sizes {
		var l, g int
		if t := c.tables[m]; t != nil {
			i := t.alias.draw(rng)
			l, g = int(t.lost[i]), int(t.gained[i])
		} else {
			l, g = c.drawItems(m, rng)
		}
		c.clusters[k] = power.ClusterCounts{N: m, Lost: l, Gained: g}
		lost += l
		gained += g
	}
	return lost, gained
}

// drawItems draws a conversation of m items item by item: its
// propensities, then each item lost with probability u, else gained with
// probability v.
func (c *simClass) drawItems(m int, rng *rand.Rand) (l, g int) {
	u, v := c.pLost, 0.0
	if c.pLost < 1 {
		v = c.pGained / (1 - c.pLost)
	}
	if c.lostB.Src != nil {
		u = c.lostB.Rand()
	}
	if c.gainedB.Src != nil {
		v = c.gainedB.Rand()
	}
	for range m {
		switch {
		case rng.Float64() < u:
			l++
		case rng.Float64() < v:
			g++
		}
	}
	return l, g
}
