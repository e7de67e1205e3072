package calibration

import (
	"fmt"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// obsBuilder makes observations with distinct keys, in the order added.
type obsBuilder struct {
	obs []Observation
	n   int
}

// add appends k observations of class cl and system sys with the judge's
// and the reviewer's verdicts ("" for not reviewed) and the review's
// sample marking.
func (b *obsBuilder) add(k int, cl fixture.Class, sys string, judge, reviewed fixture.Verdict, sample string) {
	for range k {
		b.n++
		b.obs = append(b.obs, Observation{
			Key:   reviews.Key{ConversationID: fmt.Sprintf("c%04d", b.n), Compaction: 1, ItemID: "i", System: sys},
			Class: cl, Judge: judge, Reviewed: reviewed, Sample: sample,
		})
	}
}
