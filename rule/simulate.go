package rule

import (
	"math"
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
	lostB, gainedB distuv.Beta // propensity draws; Src nil for a constant
	clusters       []power.ClusterCounts
	blocks         int // replicates in which the class blocked
}

// newBeta returns the beta distribution with mean p and intraclass
// correlation rho (a + b = (1 − rho)/rho), or ok false when p is 0 or 1
// and the propensity is a constant.
func newBeta(p, rho float64, src rand.Source) (distuv.Beta, bool) {
	if p <= 0 || p >= 1 || rho <= 0 {
		return distuv.Beta{}, false
	}
	s := (1 - rho) / rho
	return distuv.Beta{Alpha: p * s, Beta: (1 - p) * s, Src: src}, true
}

// simulate estimates the probability that each class blocks, and that
// any does, by drawing opts.Replicates fixture sets from the model of
// Class and applying the rule to each, at the first step's level for k
// tested classes. It returns the overall count of blocking replicates.
func (r Rule) simulate(classes []simClass, k int, opts SimOptions) (int, error) {
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	for i := range classes {
		c := &classes[i]
		c.blocks = 0
		c.clusters = make([]power.ClusterCounts, len(c.sizes))
		c.lostB, _ = newBeta(c.pLost, c.rho, rng)
		c.gainedB, _ = newBeta(c.pGained, c.rho, rng)
	}
	level := r.firstLevel(k)
	any := 0
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
			any++
		}
	}
	return any, nil
}

// draw simulates one fixture set of the class into c.clusters and
// returns its totals.
func (c *simClass) draw(rng *rand.Rand) (lost, gained int) {
	for k, m := range c.sizes {
		u, v := c.pLost, c.pGained
		if c.rho > 0 {
			if c.lostB.Src != nil {
				u = c.lostB.Rand()
			}
			if c.gainedB.Src != nil {
				v = c.gainedB.Rand()
			}
			v = math.Min(v, 1-u)
		}
		l, g := 0, 0
		for range m {
			x := rng.Float64()
			switch {
			case x < u:
				l++
			case x < u+v:
				g++
			}
		}
		c.clusters[k] = power.ClusterCounts{N: m, Lost: l, Gained: g}
		lost += l
		gained += g
	}
	return lost, gained
}
