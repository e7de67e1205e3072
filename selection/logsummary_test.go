package selection

import (
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// TestFromLog pins FromLog's turns to DESIGN.md's definition of a
// compaction decision ("one item live at one compaction; a compaction with
// no live items is still one decision"), with compactions placed at the
// first turn whose prompt meets the compacted context.
func TestFromLog(t *testing.T) {
	s := &agentlog.Session{ID: "s1", Turns: make([]agentlog.Turn, 4)}
	items := []ProposedItem{
		{Class: fixture.Reference, Turn: 3},
		{Class: fixture.Constraint, Turn: 1},
		{Class: fixture.Commitment, Turn: 2},
	}
	cases := []struct {
		name        string
		compactions []agentlog.Compaction
		want        int64
		reason      string
	}{
		{"none", nil, 0, "a session that never compacts exercises no decision"},
		{"before the first prompt", []agentlog.Compaction{{Turn: -1}}, 1, "nothing is live, still one decision"},
		{"during turn 2", []agentlog.Compaction{{Turn: 1}}, 2, "items of turns 1 and 2 are live, the one of turn 3 is not yet stated"},
		{"during turn 3 and turn 4", []agentlog.Compaction{{Turn: 2}, {Turn: 3}}, 6, "all three live at both"},
	}
	for _, c := range cases {
		s.Compactions = c.compactions
		got := FromLog(s, items)
		if d := got.Decisions(); d != c.want {
			t.Errorf("%s: %d decisions, want %d (%s)", c.name, d, c.want, c.reason)
		}
		if got.ID != "s1" || got.Turns != 4 || got.ItemCount != 3 || got.CompactionCount != len(c.compactions) {
			t.Errorf("%s: summary %+v", c.name, got)
		}
	}
	if got := FromLog(&agentlog.Session{Name: "x.jsonl"}, nil); got.ID != "x.jsonl" {
		t.Errorf("a session without an id is named by its file, got %q", got.ID)
	}
}
