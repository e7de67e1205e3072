package selection

import (
	"os"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// propHeldOutFloor is what Propose measured on the held-out sessions of
// one class, found/items and matched/proposed, and the floors held: a
// little below the measure, so a change that makes unseen sessions
// worse fails while the figures stay what they are.
type propHeldOutFloor struct {
	class                   fixture.Class
	found, items            int
	matched, proposed       int
	minRecall, minPrecision float64
}

// propHeldOutFloors were measured on 2026-12-01, on the first scoring run
// of testdata/real/labels/propose_heldout.jsonl (labelled before the
// proposer's output on those sessions was seen; README.md there). Never
// raise them by tuning the rules to these sessions: label new held-out
// sessions instead.
var propHeldOutFloors = []propHeldOutFloor{
	// 1 of 17 found: losing it fails; one more false proposal passes.
	{class: fixture.Constraint, found: 1, items: 17, matched: 1, proposed: 3, minRecall: 0.05, minPrecision: 0.25},
	// 0 of 1 found, none proposed (precision counts as 1): a false
	// commitment fails unless a right one comes with it.
	{class: fixture.Commitment, found: 0, items: 1, matched: 0, proposed: 0, minRecall: 0, minPrecision: 0.5},
	// 67 of 78 found, 67 of 161 right: about 3 more misses or 10 more
	// false proposals fail.
	{class: fixture.Reference, found: 67, items: 78, matched: 67, proposed: 161, minRecall: 0.82, minPrecision: 0.39},
}

// TestProposeScoreHeldOut scores Propose, at DefaultMinConfidence, on 6
// dev sessions whose rules were not written on them (4 compacted, 2
// not), against hand labels made before the proposer's output on them
// was seen, with the matching of TestProposeScoreReal. It logs recall
// and precision per class with counts and fails when constraints,
// commitments or references fall below the floors measured when the
// labels were made (issue 12's targets, recall ≥ 0.8 and precision ≥
// 0.5, are what a hidden set of sessions is judged by; the floors say
// how far from them unseen sessions are). Run with -v for the counts and
// every miss and false proposal.
func TestProposeScoreHeldOut(t *testing.T) {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Skip("TALLY_REAL_LOGS is not set: it names the folder of real Claude Code sessions (../shared/real/claude-code)")
	}
	labels := propLoadRealLabels(t, "propose_heldout.jsonl")
	counts := propNewCounts()
	propScoreRealSessions(t, dir, labels, func([]propRealLabel) []map[fixture.Class]*propClassCount {
		return []map[fixture.Class]*propClassCount{counts}
	})
	propReport(t, "held out: 6 real Claude Code sessions labelled before the proposer's output was seen", counts)
	for _, f := range propHeldOutFloors {
		n := counts[f.class]
		recall, precision := propRatio(n.found, n.items), propRatio(n.matched, n.proposed)
		if recall < f.minRecall {
			t.Errorf("%s: held-out recall %d/%d = %.3f is below the floor %.2f (measured %d/%d = %.3f when labelled; issue 12's target is ≥ %.1f)",
				f.class, n.found, n.items, recall, f.minRecall, f.found, f.items, propRatio(f.found, f.items), propRealMinRecall)
		}
		if precision < f.minPrecision {
			t.Errorf("%s: held-out precision %d/%d = %.3f is below the floor %.2f (measured %d/%d = %.3f when labelled; issue 12's target is ≥ %.1f)",
				f.class, n.matched, n.proposed, precision, f.minPrecision, f.matched, f.proposed, propRatio(f.matched, f.proposed), propRealMinPrecision)
		}
	}
}
