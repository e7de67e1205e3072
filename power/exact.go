package power

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tally-eval/tally/stats"
)

// MaxExactPairs is the largest number of pairs for which the exact
// method searches for a sample size, and computes power or a level for
// any discordance. Beyond it the power and the level are still computed
// when every discordant count the sum reaches is at most MaxExactPairs
// (few discordant pairs expected, as a rare catastrophic change gives:
// the cost and the accuracy depend on the discordant counts, not on the
// pairs); otherwise use connor: at such sizes the exact and asymptotic
// answers agree closely and the exact sums cost seconds.
const MaxExactPairs = 1_000_000

// exactChunk is how many consecutive discordant counts m share one
// search for the critical value; within a chunk it is updated in O(1).
const exactChunk = 512

// exactTest computes the power of the exact conditional McNemar test at
// two-sided level alpha when a discordant pair is a gain with probability
// theta.
//
// Given m discordant pairs with X of them gains, the test rejects when
// 2·P(Bin(m, ½) ≤ min(X, m−X)) ≤ alpha, that is when X ≤ r(m) or
// X ≥ m − r(m) with the critical value
//
//	r(m) = max{r : 2r < m, 2·P(Bin(m, ½) ≤ r) ≤ alpha}  (−1 if none).
//
// r is nondecreasing in m and r(m+1) ≤ r(m) + 1, because
// P(Bin(m+1, ½) ≤ r) ≤ P(Bin(m, ½) ≤ r) ≤ P(Bin(m+1, ½) ≤ r+1); so r is
// found once per chunk and then stepped. The rejection probability given
// m is
//
//	c(m) = P(Bin(m, θ) ≤ r(m)) + P(Bin(m, 1−θ) ≤ r(m)),
//
// both tails, the second written as a lower tail of the mirrored
// distribution so neither is a difference of numbers near 1. It counts a
// rejection in either direction, as the test does (exact2x2's
// powerPaired2x2 with strict = TRUE; its default counts only the
// direction of the effect, which is smaller by the probability of
// rejecting in the wrong direction).
type exactTest struct {
	alpha  float64
	theta  float64
	zGuess float64 // normal critical value, for the first guess of r(m)
	chunks map[int][]float64
	buf    []float64
}

func newExactTest(alpha, theta float64) *exactTest {
	return &exactTest{alpha: alpha, theta: theta, zGuess: stats.Z(1 - alpha), chunks: map[int][]float64{}}
}

// tieTol decides p-values within a relative 1e-9 of alpha as rejecting,
// as exact arithmetic does when alpha is a dyadic fraction (α = 0.0625
// equals 2·P(Bin(5, ½) = 0)). gonum's incomplete beta is accurate to
// about m·1e−15 relative, so below 10^6 discordant pairs a p-value
// within tieTol of alpha is a tie in exact arithmetic, or so close to one
// that R's pbinom could decide it either way too.
const tieTol = 1e-9

// rejects reports whether r gains or fewer out of m are in the lower
// rejection region.
func (e *exactTest) rejects(m, r int) bool {
	if r < 0 || 2*r >= m {
		return false
	}
	return 2*lowerTail(m, r, 0.5) <= e.alpha*(1+tieTol)
}

// lowerTail is P(Bin(m, p) ≤ r), by gonum's regularized incomplete beta.
func lowerTail(m, r int, p float64) float64 {
	return distuv.Binomial{N: float64(m), P: p}.CDF(float64(r))
}

// critical is r(m), from the normal approximation and then exact steps.
func (e *exactTest) critical(m int) int {
	r := int(math.Floor((float64(m) - e.zGuess*math.Sqrt(float64(m))) / 2))
	r = max(-1, min(r, (m-1)/2))
	for r >= 0 && !e.rejects(m, r) {
		r--
	}
	for e.rejects(m, r+1) {
		r++
	}
	return r
}

// chunk returns c(m) for m in [k·exactChunk, (k+1)·exactChunk).
func (e *exactTest) chunk(k int) []float64 {
	if c, ok := e.chunks[k]; ok {
		return c
	}
	m0 := k * exactChunk
	c := make([]float64, exactChunk)
	r := e.critical(m0)
	for i := range c {
		m := m0 + i
		if i > 0 && e.rejects(m, r+1) {
			r++
		}
		if r >= 0 {
			c[i] = lowerTail(m, r, e.theta) + lowerTail(m, r, 1-e.theta)
		}
	}
	e.chunks[k] = c
	return c
}

// rejectProbs returns c(m) for m in [lo, hi] in a reused buffer.
func (e *exactTest) rejectProbs(lo, hi int) []float64 {
	e.buf = e.buf[:0]
	for m := lo; m <= hi; {
		k := m / exactChunk
		c := e.chunk(k)
		end := min(hi, (k+1)*exactChunk-1)
		e.buf = append(e.buf, c[m-k*exactChunk:end-k*exactChunk+1]...)
		m = end + 1
	}
	return e.buf
}

// window returns the range of discordant counts m ~ Bin(n, pd) that the
// power sums over: mean ± (12·sd + 40). Bernstein's inequality,
// P(|M − μ| ≥ t) ≤ 2·exp(−t²/(2(σ² + t/3))), gives an exponent of at
// least 60 at t = 12σ + 40 for every σ ≥ 0 (60 at σ = 0, more than 70
// for σ ≥ 1), so the mass left out is below 2·e^−60 ≈ 1.8e−26: far
// below a float64's resolution of a power near 1.
func window(n int, pd float64) (lo, hi int) {
	mean := float64(n) * pd
	t := 12*math.Sqrt(mean*(1-pd)) + 40
	lo = max(0, int(math.Floor(mean-t)))
	hi = min(n, int(math.Ceil(mean+t)))
	return lo, hi
}

// power is Σ_m Bin(m; n, pd)·c(m) over the window. The binomial weights
// are built outward from the mode by the ratio recurrences
//
//	w(m+1)/w(m) = (n−m)/(m+1) · pd/(1−pd)
//
// starting from w(mode) = 1 and divided by their sum at the end, so no
// factorial is formed and nothing overflows; weights that underflow to
// 0 are below 1e−300 of the mode's. The cost is O(window) after the
// c(m) it needs are cached.
func (e *exactTest) power(n int, pd float64) float64 {
	switch {
	case pd <= 0:
		return 0 // no discordant pairs: the test never rejects
	case pd >= 1:
		return e.rejectProbs(n, n)[0]
	}
	lo, hi := window(n, pd)
	c := e.rejectProbs(lo, hi)
	mode := max(lo, min(hi, int(math.Floor(float64(n+1)*pd))))
	odds := pd / (1 - pd)
	var sumW, sumWC float64
	w := 1.0
	for m := mode; m <= hi && w > 0; m++ {
		if m > mode {
			w *= float64(n-m+1) / float64(m) * odds
		}
		sumW += w
		sumWC += w * c[m-lo]
	}
	w = 1.0
	for m := mode - 1; m >= lo && w > 0; m-- {
		w *= float64(m+1) / float64(n-m) / odds
		sumW += w
		sumWC += w * c[m-lo]
	}
	return math.Min(1, sumWC/sumW)
}

// smoothSD is the standard deviation of the discordant count above which
// the exact power is treated as monotone in n when searching for a
// crossing: the saw-tooth of c(m) has a period of about two discordant
// pairs, and averaging it over a binomial with sd σ damps it by about
// exp(−2π²σ²/4), below 1e−30 at σ = 4.
const smoothSD = 4

// sampleSize returns the smallest n reaching target power (first) and
// the smallest n from which every n' up to ⌊1.1·n⌋ reaches it (stable),
// searching n ≤ maxN.
//
// While the sd of the discordant count is below smoothSD, n is scanned
// one by one. Above it, crossings are found by galloping and bisection,
// which assumes the power is monotone there (see smoothSD); the stable n
// is always verified by evaluating every n' in [n, ⌊1.1·n⌋].
func (e *exactTest) sampleSize(pd, target float64, maxN int) (first, stable int, ok bool) {
	reaches := func(n int) bool { return e.power(n, pd) >= target }
	smooth := func(n int) bool { return float64(n)*pd*(1-pd) >= smoothSD*smoothSD }
	// next is the smallest n' ≥ n reaching the target.
	next := func(n int) (int, bool) {
		for ; n <= maxN && !smooth(n); n++ {
			if reaches(n) {
				return n, true
			}
		}
		if n > maxN {
			return 0, false
		}
		return gallop(n, maxN, reaches)
	}
	first, ok = next(1)
	if !ok {
		return 0, 0, false
	}
	stable = first
	for k := stable; k <= stable*11/10; k++ {
		if reaches(k) {
			continue
		}
		if stable, ok = next(k + 1); !ok {
			return first, 0, false
		}
		k = stable - 1
	}
	return first, stable, true
}

// gallop returns the smallest n in [lo, hi] with ok(n), assuming ok is
// monotone there: steps of 1, 2, 4, … from lo, then bisection.
func gallop(lo, hi int, ok func(int) bool) (int, bool) {
	bad, x, step := lo-1, lo, 1
	for !ok(x) {
		if x >= hi {
			return 0, false
		}
		bad = x
		x = min(hi, x+step)
		step *= 2
	}
	for x-bad > 1 {
		mid := bad + (x-bad)/2
		if ok(mid) {
			x = mid
		} else {
			bad = mid
		}
	}
	return x, true
}

// ExactSize is the actual type I error of the exact conditional McNemar
// test at two-sided level alpha over n pairs when a pair is discordant
// with probability pDiscordant and gains and losses are equally likely
// (θ = ½). It never exceeds alpha; the gap is the test's conservatism.
func ExactSize(n int, pDiscordant, alpha float64) (float64, error) {
	if err := stats.ValidateRate("discordant probability", pDiscordant); err != nil {
		return 0, err
	}
	if err := validateOpen("alpha", alpha); err != nil {
		return 0, err
	}
	if err := validateExactPairs(n, pDiscordant); err != nil {
		return 0, err
	}
	return newExactTest(alpha, 0.5).power(n, pDiscordant), nil
}

// validateExactPairs says whether the exact sums can be computed for n
// pairs of discordance psi: up to MaxExactPairs pairs, or beyond when
// the discordant counts summed over (window) stay within it.
func validateExactPairs(n int, psi float64) error {
	if n < 1 {
		return inputErrorf("pairs must be at least 1, got %d", n)
	}
	if _, hi := window(n, psi); n > MaxExactPairs && hi > MaxExactPairs {
		return inputErrorf("exact power is computed up to %d pairs, or beyond while at most %d discordant pairs are likely; got %d pairs with %.3g expected discordant; use connor", MaxExactPairs, MaxExactPairs, n, float64(n)*psi)
	}
	return nil
}
