package main

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// stream returns a generator of its own for one named part of the data,
// seeded from the run's seed and the name. Each part draws from its own
// stream, so a change to how one part is drawn leaves the others as they
// were.
func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// logNormal draws from a log-normal whose median is median and whose log
// has standard deviation sigma.
func logNormal(r *rand.Rand, median, sigma float64) float64 {
	return distuv.LogNormal{Mu: math.Log(median), Sigma: sigma, Src: r}.Rand()
}

// poisson draws a Poisson count with mean lambda (0 when lambda ≤ 0).
func poisson(r *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	return int(distuv.Poisson{Lambda: lambda, Src: r}.Rand())
}

// pick returns one element of xs, uniformly.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// chance reports true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

// weighted returns an index drawn with probability proportional to w[i].
func weighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := r.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// between draws an integer uniformly from lo..hi inclusive (lo when hi < lo).
func between(r *rand.Rand, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.IntN(hi-lo+1)
}
