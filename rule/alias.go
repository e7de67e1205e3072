package rule

import (
	"math"
	"math/rand/v2"
)

// aliasTable samples from a discrete distribution in constant time by
// Vose's alias method (Vose 1991, "A linear algorithm for generating
// random numbers with a given distribution", IEEE Trans Softw Eng
// 17:972): one uniform picks a column and decides between the column and
// its alias.
type aliasTable struct {
	prob  []float64
	alias []int32
}

// newAliasTable builds the table of weights w (not all zero).
func newAliasTable(w []float64) aliasTable {
	n := len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	t := aliasTable{prob: make([]float64, n), alias: make([]int32, n)}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		t.prob[i], t.alias[i] = 1, i
	}
	return t
}

// draw returns an index with probability proportional to its weight.
func (t aliasTable) draw(rng *rand.Rand) int {
	x := rng.Float64() * float64(len(t.prob))
	i := int(x)
	if i >= len(t.prob) {
		i = len(t.prob) - 1
	}
	if x-float64(i) < t.prob[i] {
		return i
	}
	return int(t.alias[i])
}

// betaBinomial returns P(X = k), k = 0..m, for X ~ BetaBinomial(m, a, b),
// the number of successes among m items whose common success
// probability is drawn from Beta(a, b); with a or b infinite (no
// correlation) it is Binomial(m, p) for p = a/(a+b) given as mean.
func betaBinomial(m int, mean, rho float64) []float64 {
	out := make([]float64, m+1)
	switch {
	case mean <= 0:
		out[0] = 1
		return out
	case mean >= 1:
		out[m] = 1
		return out
	}
	lchoose := func(k int) float64 {
		a, _ := math.Lgamma(float64(m + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(m - k + 1))
		return a - b - c
	}
	if rho <= 0 {
		for k := range out {
			out[k] = math.Exp(lchoose(k) + float64(k)*math.Log(mean) + float64(m-k)*math.Log1p(-mean))
		}
		return out
	}
	s := (1 - rho) / rho
	a, b := mean*s, (1-mean)*s
	lbeta := func(x, y float64) float64 {
		p, _ := math.Lgamma(x)
		q, _ := math.Lgamma(y)
		r, _ := math.Lgamma(x + y)
		return p + q - r
	}
	base := lbeta(a, b)
	for k := range out {
		out[k] = math.Exp(lchoose(k) + lbeta(float64(k)+a, float64(m-k)+b) - base)
	}
	return out
}
