package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/tally-eval/tally/fixture"
)

// Unannotated items. The items a session summary lists are what the
// arrival-time classifier flagged; a fixture's must_survive items are
// what its annotator kept, and an annotation lists only some of them ("a
// conversation whose annotation lists four items will not reveal that a
// fifth was lost"). Compaction incidents concentrate in long, dense
// sessions, so the fixture sessions' summaries carry, besides their
// fixture's items, items the classifier flagged and the annotation leaves
// out. They appear only in sessions.jsonl (and in the decisions it
// implies); the event logs, fixtures and contexts are built from the
// annotated items alone.
const (
	// unannotatedDensity is the median number of unannotated items per
	// turn in a fixture session (each session draws its own density
	// around it, log-normal with log-sd unannotatedSigma).
	unannotatedDensity = 0.36
	unannotatedSigma   = 0.25
	// unannotatedAfterLast is the density after the last compaction,
	// relative to the density before it: the incident is the compactions,
	// and the classifier's flags are counted up to them.
	unannotatedAfterLast = 0.25
)

// addUnannotated gives each fixture session the unannotated items its
// summary lists besides its fixture's, drawn from a stream of their own
// so that every other file stays as it was: the class mix of the
// session's own around the quarter's, constraints early, at distinct
// turns ≥ 2 that are neither a compaction's turn nor an annotated item's,
// mostly before the last compaction. The fixture tiedWith is left with as
// many decisions as it had (its unannotated items all come after its last
// compaction), so that its tie with an incident of a later id still
// decides the 40th place; tiedWith is "" when there is no tie.
func addUnannotated(seed uint64, fixtures []*Session, tiedWith string) {
	r := stream(seed, "unannotated")
	for _, s := range fixtures {
		s.Unannotated = drawUnannotated(r, s, s.ID == tiedWith)
	}
}

// drawUnannotated draws one fixture session's unannotated items.
func drawUnannotated(r *rand.Rand, s *Session, afterLastOnly bool) []SessionItem {
	density := logNormal(r, unannotatedDensity, unannotatedSigma)
	w := make([]float64, len(fixture.Classes))
	for i, c := range fixture.Classes {
		w[i] = classWeights[c] * logNormal(r, 1, 0.4)
	}
	used := make(map[int]bool)
	for _, c := range s.Compactions {
		used[c] = true
	}
	for _, it := range s.Items {
		used[it.Turn] = true
	}
	last := s.Compactions[len(s.Compactions)-1]
	var out []SessionItem
	// place draws n items at free turns in lo..hi.
	place := func(n, lo, hi int) {
		free := 0
		for t := lo; t <= hi; t++ {
			if !used[t] {
				free++
			}
		}
		n = min(n, free)
		for n > 0 {
			c := fixture.Classes[weighted(r, w)]
			u := r.Float64()
			if c == fixture.Constraint {
				u *= u // constraints come early
			}
			t := lo + int(u*float64(hi-lo+1))
			if t > hi || used[t] {
				continue
			}
			used[t] = true
			out = append(out, SessionItem{c, t})
			n--
		}
	}
	before := 0
	if !afterLastOnly {
		before = poisson(r, density*float64(last-2))
	}
	rate := unannotatedAfterLast * density
	if afterLastOnly {
		rate = density
	}
	after := poisson(r, rate*float64(s.Turns-last))
	place(before, 2, last-1)
	place(after, last+1, s.Turns)
	sortItems(out)
	return out
}

// checkUnannotated reports an unannotated item that is not at a free turn.
func checkUnannotated(s *Session) error {
	used := make(map[int]bool)
	for _, c := range s.Compactions {
		used[c] = true
	}
	for _, it := range s.Items {
		used[it.Turn] = true
	}
	for _, it := range s.Unannotated {
		if it.Turn < 2 || it.Turn > s.Turns || used[it.Turn] {
			return fmt.Errorf("%s: unannotated item %+v at a taken turn", s.ID, it)
		}
		used[it.Turn] = true
	}
	return nil
}
