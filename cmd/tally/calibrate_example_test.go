package main

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/reviews"
)

// TestExampleReviewsAreTheQueue: the example's reviews.jsonl reviews
// exactly what tally calibrate queue draws on the example before any
// review (seed 1, the defaults), each marked with the queue's sample —
// what its README says (examples/gen/reviews.go writes it with the same
// calibration.NewPlan, but from the generator's own records; this checks
// the two agree).
func TestExampleReviewsAreTheQueue(t *testing.T) {
	_, queue := runQueue(t, unreviewedConfig(t), filepath.Join(t.TempDir(), "queue.csv"), "--seed", "1")
	recs, err := csv.NewReader(bytes.NewReader(queue)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sampleCol := [2]int{queueCol(t, reviews.HeaderIncumbentSample), queueCol(t, reviews.HeaderCandidateSample)}
	want := map[reviews.Key]string{}
	for _, r := range recs[1:] {
		comp, err := strconv.Atoi(r[1])
		if err != nil {
			t.Fatal(err)
		}
		for s, sys := range []string{"incumbent", "candidate"} {
			if v := r[sampleCol[s]]; v != "" {
				want[reviews.Key{ConversationID: r[0], Compaction: comp, ItemID: r[2], System: sys}] = v
			}
		}
	}
	got, err := reviews.Load(filepath.Join(quarterly, "reviews.jsonl"), input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d reviews, %d item-compactions on the queue", len(got), len(want))
	}
	for _, rv := range got {
		s, ok := want[rv.Key()]
		switch {
		case !ok:
			t.Errorf("%s: reviewed, not on the queue", rv.Key())
		case s != rv.Sample:
			t.Errorf("%s: sample %q, the queue's %q", rv.Key(), rv.Sample, s)
		}
	}
}
