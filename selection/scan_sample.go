package selection

import (
	"cmp"
	"slices"
)

// weekAcc accumulates one week.
type weekAcc struct {
	sessions, flagged int
	kinds             []KindCount
	pools             [2]bottomK // per SignalKinds
}

// sample draws the week's sample from its pools, alternating between
// the signals.
func (a *weekAcc) sample(k int) []Flagged {
	var lists [2][]keyed
	for i := range a.pools {
		lists[i] = slices.Clone(a.pools[i].h)
		slices.SortFunc(lists[i], func(x, y keyed) int { return cmp.Compare(x.key, y.key) })
	}
	taken := map[string]bool{}
	var out []Flagged
	for i, pos := 0, [2]int{}; len(out) < k && (pos[0] < len(lists[0]) || pos[1] < len(lists[1])); i = 1 - i {
		for pos[i] < len(lists[i]) {
			f := lists[i][pos[i]].f
			pos[i]++
			if !taken[f.SessionID] {
				taken[f.SessionID] = true
				out = append(out, *f)
				break
			}
		}
	}
	slices.SortFunc(out, func(x, y Flagged) int { return cmp.Compare(x.SessionID, y.SessionID) })
	return out
}

// keyed is a flagged session with its sampling key.
type keyed struct {
	key uint64
	f   *Flagged
}

// bottomK keeps the k sessions with the smallest keys: a max-heap.
type bottomK struct {
	k int
	h []keyed
}

func (b *bottomK) offer(key uint64, f *Flagged) {
	if b.k == 0 {
		return
	}
	if len(b.h) < b.k {
		b.h = append(b.h, keyed{key, f})
		for i := len(b.h) - 1; i > 0; {
			p := (i - 1) / 2
			if b.h[p].key >= b.h[i].key {
				break
			}
			b.h[p], b.h[i] = b.h[i], b.h[p]
			i = p
		}
		return
	}
	if key >= b.h[0].key {
		return
	}
	b.h[0] = keyed{key, f}
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(b.h) && b.h[l].key > b.h[m].key {
			m = l
		}
		if r := l + 1; r < len(b.h) && b.h[r].key > b.h[m].key {
			m = r
		}
		if m == i {
			return
		}
		b.h[m], b.h[i] = b.h[i], b.h[m]
		i = m
	}
}

// splitmix is SplitMix64's finaliser: a well-mixed key from a hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
