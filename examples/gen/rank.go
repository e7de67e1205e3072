package main

import (
	"cmp"
	"slices"
)

// FixtureBudget is the number of fixture conversations selected.
const FixtureBudget = 40

// Decisions is the number of compaction decisions a session exercises:
// for each compaction, the number of items stated before that
// compaction's turn (item turn < compaction turn), and at least 1 per
// compaction, since a compaction with no live item is still one decision.
// A session reported with counts only (CountsOnly) is taken to have every
// item before every compaction: compactions × max(1, items). A session
// that never compacts exercises no decision.
//
// tally select implements exactly this; the fixtures under
// examples/quarterly/fixtures are the first FixtureBudget sessions of
// RankForFixtures. Every item the summary lists counts, the unannotated
// ones too.
func Decisions(s *Session) int {
	if s.CountsOnly {
		return len(s.Compactions) * max(1, len(s.listed()))
	}
	n := 0
	for _, c := range s.Compactions {
		live := 0
		for _, it := range s.listed() {
			if it.Turn < c {
				live++
			}
		}
		n += max(1, live)
	}
	return n
}

// RankForFixtures orders sessions for adversarial fixture selection:
// incidents first, then by Decisions descending, ties by session id
// ascending (byte order). The fixture set is the first budget sessions of
// the result: when incidents alone exceed the budget, that is the
// incidents with the most decisions. ss is not modified.
func RankForFixtures(ss []*Session, budget int) []*Session {
	type ranked struct {
		s *Session
		d int
	}
	rs := make([]ranked, len(ss))
	for i, s := range ss {
		rs[i] = ranked{s, Decisions(s)}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if a.s.Incident != b.s.Incident {
			if a.s.Incident {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.d, a.d), cmp.Compare(a.s.ID, b.s.ID))
	})
	out := make([]*Session, 0, min(budget, len(rs)))
	for _, r := range rs[:min(budget, len(rs))] {
		out = append(out, r.s)
	}
	return out
}
