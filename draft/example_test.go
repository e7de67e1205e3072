package draft_test

import (
	"fmt"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/draft"
	"github.com/tally-eval/tally/selection"
)

func ExampleBuild() {
	s, err := agentlog.Open("testdata/two.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := draft.Build(s, func(p *agentlog.Session) (selection.Proposal, error) {
		return selection.Propose(p, selection.ProposeOptions{MinConfidence: selection.DefaultMinConfidence}), nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d typed turns; a fixture of %d turns\n", d.TypedTurns, d.Candidates.Turns)
	for _, c := range d.Compactions {
		fmt.Printf("compaction at line %d (%s) in typed turn %d: context %d serves turn %d, %d messages, %d items live\n",
			c.Line, c.Trigger, c.TypedTurn, c.Context, c.Turn, c.Messages, c.Live)
	}
	// Output:
	// 5 typed turns; a fixture of 6 turns
	// compaction at line 11 (auto) in typed turn 2: context 1 serves turn 3, 1 messages, 5 items live
	// compaction at line 21 (manual) in typed turn 4: context 2 serves turn 6, 2 messages, 7 items live
}
