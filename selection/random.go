package selection

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// The random comparison: many seeded uniform samples of the input, drawn
// in the one pass that reads it.
//
// Up to StoredSessions sessions (2²⁰) the comparison keeps a summary of
// each — four numbers, 24 bytes, 25 MB at most — and at the end draws each
// sample's indices exactly (Floyd's algorithm: k distinct indices, each
// k-subset equally likely). A stored summary costs an append, so up to a
// million sessions the comparison is nothing beside the decoding.
//
// Past StoredSessions the store would grow with the input, so each draw
// turns into a reservoir kept by Li's Algorithm L (ACM TOMS 20(4), 1994):
// seen as giving every session a uniform key and keeping the k smallest,
// the reservoir after m sessions is a uniform k-subset of them,
// independent of its largest key W, which has the Beta(k, m−k+1)
// distribution. So each draw starts from a Floyd sample of the store and a
// W drawn from that Beta, and from then on skips straight to the next
// session to enter (a geometric number of sessions, from W) — O(k·log(n/m))
// random numbers per draw rather than one per session. The draws wait in
// a heap keyed by the next index they want, so a session no draw wants
// costs one comparison. The store is then freed: memory stays at
// draws × k × 24 bytes (4.8 MB for 1,000 × 200) whatever the input's size.
// (Algorithm L from the first session on would spend about 190 ms per
// million sessions on its early, dense replacements; the store avoids
// them.)
//
// Every draw has its own PCG generator seeded by (seed, draw number), so
// a result depends on the seed and the order of the input only.

// StoredSessions is the number of sessions the random comparison keeps a
// summary of before it turns to reservoirs.
const StoredSessions = 1 << 20

// summary is what the comparison keeps of a session.
type summary struct {
	turns, compactions, items int32
	decisions                 int64
}

// draw is one sample.
type draw struct {
	rng    rand.PCG // inline: no pointer to chase per replacement
	w      float64
	sample []summary
}

// slot is a draw waiting for the session at index next: the heap holds
// them contiguously, so the one comparison most sessions cost reads one
// cache line.
type slot struct {
	next int64
	d    int
}

// reservoirs holds every draw of the comparison.
type reservoirs struct {
	k        int
	draws    []draw
	storeCap int
	stored   [][]summary // the sessions so far in chunks, until there are storeCap
	nStored  int
	switched bool     // the draws are reservoirs now
	heap     []slot   // min-heap by next
	n        int64    // sessions seen
	chosen   []uint64 // bitset for Floyd's algorithm
}

func newReservoirs(k, draws int, seed uint64) *reservoirs {
	r := &reservoirs{k: k, draws: make([]draw, draws), storeCap: StoredSessions}
	for i := range r.draws {
		r.draws[i].rng = *rand.NewPCG(seed, uint64(i))
	}
	return r
}

// uniform returns a number in (0, 1).
func (d *draw) uniform() float64 {
	for {
		if u := float64(d.rng.Uint64()>>11) / (1 << 53); u > 0 {
			return u
		}
	}
}

// intN returns a number in [0, n) (Lemire's multiply-shift; its bias,
// n/2⁶⁴, is nothing at these sizes).
func (d *draw) intN(n int) int {
	hi, _ := bits.Mul64(d.rng.Uint64(), uint64(n))
	return int(hi)
}

// skip returns the index of the next session to enter a draw whose last
// candidate was at index i: Algorithm L skips a geometric number of
// sessions with parameter w.
func (d *draw) skip(i int64) int64 {
	s := math.Floor(math.Log(d.uniform()) / math.Log1p(-d.w))
	if !(s < 1<<53) || i+int64(s)+1 < i { // +Inf or NaN when w underflows: nothing more enters
		return math.MaxInt64
	}
	return i + int64(s) + 1
}

// storeChunk is the number of summaries in one chunk of the store (the
// store grows a chunk at a time, never copying).
const storeChunk = 1 << 14

// storedAt returns the i-th stored session.
func (r *reservoirs) storedAt(i int) summary { return r.stored[i/storeChunk][i%storeChunk] }

// floyd fills d.sample with min(k, stored) distinct stored sessions,
// every subset equally likely (Floyd's algorithm).
func (r *reservoirs) floyd(d *draw, k int) {
	m := r.nStored
	d.sample = make([]summary, 0, k)
	k = min(k, m)
	if words := (m + 63) / 64; len(r.chosen) < words {
		r.chosen = make([]uint64, words)
	}
	var picked []int
	for j := m - k; j < m; j++ {
		t := d.intN(j + 1)
		if r.chosen[t/64]&(1<<(t%64)) != 0 {
			t = j
		}
		r.chosen[t/64] |= 1 << (t % 64)
		picked = append(picked, t)
		d.sample = append(d.sample, r.storedAt(t))
	}
	for _, t := range picked {
		r.chosen[t/64] = 0
	}
}

// add offers one session to every draw.
func (r *reservoirs) add(s summary) {
	i := r.n
	r.n++
	if !r.switched {
		if r.nStored%storeChunk == 0 {
			r.stored = append(r.stored, make([]summary, 0, storeChunk))
		}
		last := len(r.stored) - 1
		r.stored[last] = append(r.stored[last], s)
		r.nStored++
		if r.nStored >= max(r.storeCap, r.k) { // a reservoir starts full
			r.toReservoirs()
		}
		return
	}
	for len(r.heap) > 0 && r.heap[0].next == i {
		d := &r.draws[r.heap[0].d]
		d.sample[d.intN(r.k)] = s
		d.w *= math.Exp(math.Log(d.uniform()) / float64(r.k))
		r.heap[0].next = d.skip(i)
		r.down()
	}
}

// toReservoirs turns the stored sessions into one reservoir per draw.
func (r *reservoirs) toReservoirs() {
	m := r.nStored
	r.heap = make([]slot, len(r.draws))
	for j := range r.draws {
		d := &r.draws[j]
		r.floyd(d, r.k)
		d.w = distuv.Beta{Alpha: float64(r.k), Beta: float64(m - r.k + 1), Src: &d.rng}.Rand()
		r.heap[j] = slot{next: d.skip(int64(m) - 1), d: j}
	}
	slices.SortFunc(r.heap, func(a, b slot) int { return cmp.Compare(a.next, b.next) })
	r.stored, r.nStored, r.chosen, r.switched = nil, 0, nil, true
}

// down restores the heap order after the root's next grew.
func (r *reservoirs) down() {
	h := r.heap
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if rr := l + 1; rr < n && h[rr].next < h[l].next {
			m = rr
		}
		if h[i].next <= h[m].next {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Spread is a quantity over the draws of the random comparison: its mean
// and the central 95% range (the 2.5th and 97.5th percentiles, linear
// interpolation between order statistics as R's quantile type 7).
type Spread struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Comparison is the random baseline: Draws seeded uniform samples of Size
// sessions each (all of them when the input has fewer), each summed like
// the selection. Size is the number of sessions selected unless the
// configuration asked for another: then the totals compare like with
// like.
type Comparison struct {
	Size  int
	Draws int
	// Each Spread is over the draws' totals.
	Sessions, NeverCompact, Compactions, Decisions, Items Spread
	HoursAuthoring, HoursReview                           Spread
}

// spreadOf summarises values (which it sorts).
func spreadOf(values []float64) Spread {
	slices.Sort(values)
	var sum float64
	for _, v := range values {
		sum += v
	}
	return Spread{Mean: sum / float64(len(values)), Low: quantile7(values, 0.025), High: quantile7(values, 0.975)}
}

// quantile7 is R's type-7 quantile of sorted values.
func quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// samples returns every draw's sample of size sessions (all of them
// when fewer were read). Past the store, a draw is a reservoir of r.k
// sessions: a uniform subset of size of it is a uniform sample of the
// input (a partial Fisher–Yates shuffle, on a copy with a copy of the
// draw's generator, so that the reservoir goes on after a Result), and
// a size above r.k gets the r.k (Select warns).
func (r *reservoirs) samples(size int) [][]summary {
	out := make([][]summary, len(r.draws))
	for j := range r.draws {
		d := &r.draws[j]
		if !r.switched {
			r.floyd(d, size)
		}
		out[j] = d.sample
		if size < len(d.sample) {
			sub, pick := slices.Clone(d.sample), draw{rng: d.rng}
			for i := range size {
				t := i + pick.intN(len(sub)-i)
				sub[i], sub[t] = sub[t], sub[i]
			}
			out[j] = sub[:size]
		}
	}
	return out
}

// comparison sums every draw's sample of size sessions (samples).
func (r *reservoirs) comparison(size int) *Comparison {
	if r.switched {
		size = min(size, r.k)
	}
	samples := r.samples(size)
	c := &Comparison{Size: size, Draws: len(r.draws)}
	if len(r.draws) == 0 {
		return c
	}
	cols := make([][]float64, 7)
	for i := range cols {
		cols[i] = make([]float64, len(r.draws))
	}
	for j, sample := range samples {
		var t Totals
		for _, s := range sample {
			t.addSummary(s)
		}
		for i, v := range []float64{float64(t.Sessions), float64(t.NeverCompact), float64(t.Compactions),
			float64(t.Decisions), float64(t.Items), t.HoursAuthoring, t.HoursReview} {
			cols[i][j] = v
		}
	}
	c.Sessions, c.NeverCompact, c.Compactions = spreadOf(cols[0]), spreadOf(cols[1]), spreadOf(cols[2])
	c.Decisions, c.Items = spreadOf(cols[3]), spreadOf(cols[4])
	c.HoursAuthoring, c.HoursReview = spreadOf(cols[5]), spreadOf(cols[6])
	return c
}
