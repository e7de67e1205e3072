package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tally-eval/tally/fixture"
)

// LiveTargets are the fixture set's live item-compaction pairs per class:
// over every fixture, compaction and item stated before that compaction's
// turn. They are the denominators of the source text's table.
var LiveTargets = map[fixture.Class]int{
	fixture.Constraint: 80, fixture.Commitment: 51, fixture.OpenQuestion: 103, fixture.Reference: 61,
}

// minFixtureDecisions is the fewest decisions a fixture session has; every
// other incident has fewer (or as many, with a later session id), so
// that the ranking picks exactly the fixture sessions.
const minFixtureDecisions = 5

// designItem is an item of a fixture being designed: its class and the
// segment it is stated in (segment s lies between compaction s and s+1;
// segment 0 before the first), which decides how many compactions it is
// live at.
type designItem struct {
	class fixture.Class
	seg   int
}

type design struct {
	s     *Session
	items []designItem
}

func (d *design) k() int { return len(d.s.Compactions) }

// segRange is the turns of segment seg, compaction turns excluded: items
// are not stated on the turn a compaction runs.
func (d *design) segRange(seg int) (lo, hi int) {
	cs := d.s.Compactions
	lo, hi = 2, d.s.Turns
	if seg > 0 {
		lo = cs[seg-1] + 1
	}
	if seg < len(cs) {
		hi = cs[seg] - 1
	}
	return lo, hi
}

func (d *design) capacity(seg int) int {
	lo, hi := d.segRange(seg)
	return max(0, (hi-lo+1)/2)
}

func (d *design) count(seg int) int {
	n := 0
	for _, it := range d.items {
		if it.seg == seg {
			n++
		}
	}
	return n
}

func (d *design) decisions() int {
	n := 0
	for j := 1; j <= d.k(); j++ {
		live := 0
		for _, it := range d.items {
			if it.seg < j {
				live++
			}
		}
		n += max(1, live)
	}
	return n
}

// designFixtures picks FixtureBudget long, compacting sessions to be the
// fixture conversations and redraws their items so that the live
// item-compaction pairs per class are exactly LiveTargets. It marks them
// as incidents and fixtures.
func designFixtures(seed uint64, ss []*Session) ([]*Session, error) {
	r := stream(seed, "fixture-design")
	var eligible []*Session
	for _, s := range ss {
		if k := len(s.Compactions); k >= 1 && k <= 4 && s.Turns >= 30 && s.Turns <= 220 && spaced(s, 20, 12) {
			eligible = append(eligible, s)
		}
	}
	if len(eligible) < 4*FixtureBudget {
		return nil, fmt.Errorf("only %d sessions can be fixtures", len(eligible))
	}
	// Weighted sampling without replacement: sessions with more
	// compactions are likelier incidents.
	var ds []*design
	w := make([]float64, len(eligible))
	for i, s := range eligible {
		w[i] = float64(len(s.Compactions))
	}
	for len(ds) < FixtureBudget {
		i := weighted(r, w)
		w[i] = 0
		d := &design{s: eligible[i]}
		n := 3 + poisson(r, 1.5)
		for range n {
			c := fixture.Classes[weighted(r, []float64{0.27, 0.17, 0.35, 0.21})]
			segW := make([]float64, d.k()+1)
			for s := range segW {
				segW[s] = float64(d.k() + 1 - s)
			}
			seg := weighted(r, segW)
			if d.count(seg) < d.capacity(seg) {
				d.items = append(d.items, designItem{c, seg})
			}
		}
		ds = append(ds, d)
	}
	if err := fixLiveCounts(r, ds); err != nil {
		return nil, err
	}
	var out []*Session
	for _, d := range ds {
		placeItems(r, d)
		d.s.Fixture, d.s.Incident = true, true
		out = append(out, d.s)
	}
	slices.SortFunc(out, func(a, b *Session) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// spaced reports whether the first compaction runs at turn first or later
// and each later one at least gap turns after the one before.
func spaced(s *Session, first, gap int) bool {
	prev := first - gap
	for _, c := range s.Compactions {
		if c-prev < gap {
			return false
		}
		prev = c
	}
	return true
}

// liveTotals sums, per class, the compactions each item is live at.
func liveTotals(ds []*design) map[fixture.Class]int {
	t := make(map[fixture.Class]int)
	for _, d := range ds {
		for _, it := range d.items {
			t[it.class] += d.k() - it.seg
		}
	}
	return t
}

// fixLiveCounts moves, adds and removes items until every class's live
// total equals its target, keeping each fixture at ≥ 3 items and
// ≥ minFixtureDecisions decisions and each segment within its capacity.
func fixLiveCounts(r *rand.Rand, ds []*design) error {
	type ref struct {
		d *design
		i int
	}
	for iter := 0; iter < 200_000; iter++ {
		// First lift any fixture below the fewest decisions: move one of
		// its items a segment earlier, or add one before the first
		// compaction.
		if d := weakest(ds); d != nil {
			var later []int
			for i, it := range d.items {
				if it.seg > 0 && d.count(it.seg-1) < d.capacity(it.seg-1) {
					later = append(later, i)
				}
			}
			if len(later) > 0 && chance(r, 0.7) {
				d.items[pick(r, later)].seg--
			} else if d.count(0) < d.capacity(0) && len(d.items) < 10 {
				d.items = append(d.items, designItem{fixture.Classes[r.IntN(len(fixture.Classes))], 0})
			}
			continue
		}
		tot := liveTotals(ds)
		var cl fixture.Class
		diff := 0
		for _, c := range fixture.Classes {
			if tot[c] != LiveTargets[c] {
				cl, diff = c, LiveTargets[c]-tot[c]
				break
			}
		}
		if diff == 0 {
			for _, d := range ds {
				if d.decisions() < minFixtureDecisions || len(d.items) < 3 {
					return fmt.Errorf("fixture %s: %d items, %d decisions", d.s.ID, len(d.items), d.decisions())
				}
			}
			return nil
		}
		var refs []ref
		for _, d := range ds {
			for i, it := range d.items {
				if it.class == cl {
					refs = append(refs, ref{d, i})
				}
			}
		}
		d := ds[r.IntN(len(ds))]
		if diff > 0 {
			if len(refs) > 0 && chance(r, 0.5) { // move an item one segment earlier
				x := refs[r.IntN(len(refs))]
				it := &x.d.items[x.i]
				if it.seg > 0 && x.d.count(it.seg-1) < x.d.capacity(it.seg-1) {
					it.seg--
				}
				continue
			}
			// add an item live at no more than diff compactions
			seg := between(r, max(0, d.k()-diff), d.k()-1)
			if len(d.items) < 10 && d.count(seg) < d.capacity(seg) {
				d.items = append(d.items, designItem{cl, seg})
			}
			continue
		}
		if len(refs) == 0 {
			return fmt.Errorf("class %s: %d live pairs over target and no item to remove", cl, -diff)
		}
		x := refs[r.IntN(len(refs))]
		it := &x.d.items[x.i]
		old := *it
		if chance(r, 0.5) { // move an item one segment later
			if it.seg < x.d.k() && x.d.count(it.seg+1) < x.d.capacity(it.seg+1) {
				it.seg++
			}
		} else if x.d.k()-it.seg <= -diff && len(x.d.items) > 3 { // remove it
			x.d.items = slices.Delete(x.d.items, x.i, x.i+1)
			if x.d.decisions() < minFixtureDecisions {
				x.d.items = slices.Insert(x.d.items, x.i, old)
			}
			continue
		}
		if x.d.decisions() < minFixtureDecisions {
			*it = old
		}
	}
	return fmt.Errorf("live counts did not reach %v (at %v)", LiveTargets, liveTotals(ds))
}

// weakest returns a fixture below minFixtureDecisions or with fewer than
// three items, or nil.
func weakest(ds []*design) *design {
	for _, d := range ds {
		if d.decisions() < minFixtureDecisions || len(d.items) < 3 {
			return d
		}
	}
	return nil
}

// placeItems gives each designed item a distinct turn in its segment,
// constraints early in it, and makes them the session's items.
func placeItems(r *rand.Rand, d *design) {
	used := make(map[int]bool)
	var items []SessionItem
	for _, it := range d.items {
		lo, hi := d.segRange(it.seg)
		for {
			u := r.Float64()
			if it.class == fixture.Constraint {
				u *= u
			}
			t := lo + int(math.Floor(u*float64(hi-lo+1)))
			if t <= hi && !used[t] {
				used[t] = true
				items = append(items, SessionItem{it.class, t})
				break
			}
		}
	}
	sortItems(items)
	d.s.Items = items
}

// chooseIncidents marks the other incidents: sessions with fewer
// decisions than any fixture, most of them sessions that compacted, and,
// when one exists, a session tied with the weakest fixture whose later
// id keeps it out of the selection (so the tie-break is exercised).
// It returns the number of incidents and the tied session's id.
func chooseIncidents(seed uint64, ss, fixtures []*Session) (int, string) {
	r := stream(seed, "incidents")
	dmin, maxTied := math.MaxInt, ""
	for _, f := range fixtures {
		dmin = min(dmin, Decisions(f))
	}
	for _, f := range fixtures {
		if Decisions(f) == dmin && f.ID > maxTied {
			maxTied = f.ID
		}
	}
	total := 100 + r.IntN(9) - 4
	n := len(fixtures)
	tied := ""
	var below []*Session
	for _, s := range ss {
		if s.Incident {
			continue
		}
		switch d := Decisions(s); {
		case d < dmin:
			below = append(below, s)
		case d == dmin && s.ID > maxTied && tied == "":
			tied = s.ID
			s.Incident = true
			n++
		}
	}
	w := make([]float64, len(below))
	for i, s := range below {
		w[i] = 1
		if len(s.Compactions) > 0 {
			w[i] = 12
		}
	}
	for n < total {
		i := weighted(r, w)
		if w[i] == 0 {
			continue
		}
		w[i] = 0
		below[i].Incident = true
		n++
	}
	return n, tied
}

// fixtureJSON renders one fixture file in the source text's shape.
func fixtureJSON(f fixture.Fixture) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
