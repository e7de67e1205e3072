package selection

import (
	"slices"

	"github.com/tally-eval/tally/agentlog"
)

// ItemSource says where a session summary's items came from.
type ItemSource string

// The sources of items.
const (
	// ItemsListed: the session summary listed its items (DESIGN.md,
	// "Session summary").
	ItemsListed ItemSource = "listed"
	// ItemsProposed: a real agent log lists no items, so they are the
	// candidates the proposer found (Propose), before anyone reviewed
	// them.
	ItemsProposed ItemSource = "proposed"
)

// FromLog summarises a session read from an agent log for selection:
// its person-typed turns, the turn of each compaction and the items
// proposed from it (items, whose Turn is the 1-based typed turn they were
// stated in). Real logs list no items, so the decisions it gives count
// proposed items: the same proposer must summarise every session a
// selection compares, the selected and the random alike.
//
// A compaction during typed turn t (1-based) — most run while the agent
// works on a prompt — is put at turn t+1 of the summary, the first turn
// whose prompt meets the compacted context: every item stated in turns
// 1 to t is live at it (Session.Decisions counts items stated before a
// compaction's turn). An item stated in turn t after the compaction is
// counted live too; the log's turns are not finer than that for the
// proposer. A compaction before the first typed prompt is at turn 1,
// with nothing live.
func FromLog(s *agentlog.Session, items []ProposedItem) Session {
	out := Session{ID: s.ID, Turns: len(s.Turns), Compactions: []int{}, Items: []Item{}}
	if out.ID == "" {
		out.ID = s.Name
	}
	for _, c := range s.Compactions {
		out.Compactions = append(out.Compactions, c.Turn+2)
	}
	for _, it := range items {
		out.Items = append(out.Items, Item{Class: it.Class, Turn: it.Turn})
	}
	slices.SortStableFunc(out.Items, func(a, b Item) int { return a.Turn - b.Turn })
	out.CompactionCount, out.ItemCount = len(out.Compactions), len(out.Items)
	return out
}
