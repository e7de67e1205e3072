package main

import (
	"bytes"
	"fmt"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// The simulated review of the example: the queue `tally calibrate queue
// --config examples/quarterly/report.yaml --seed ReviewSeed` draws
// (calibration.NewPlan with its defaults), each item-compaction given the
// verdict its context's text carries (builtContext.Truth).
const (
	// ReviewSeed seeds the review queue's draw.
	ReviewSeed = 1
	// SimulatedReviewer is the Reviewer of every simulated review.
	SimulatedReviewer = "simulated reviewer (the generator's truth)"
)

// observations are the two systems' verdicts on every item-compaction, as
// report.Report.Observations gives them before any review.
func (q *Quarter) observations() ([]calibration.Observation, map[reviews.Key]fixture.Verdict, map[reviews.Key]string) {
	var obs []calibration.Observation
	truth := map[reviews.Key]fixture.Verdict{}
	prints := map[reviews.Key]string{}
	for _, sys := range reviewed {
		for _, bc := range q.Built[sys] {
			for ii, v := range bc.Verdicts {
				if v == "" {
					continue
				}
				fi := bc.Conv.fx.MustSurvive[ii]
				k := reviews.Key{ConversationID: bc.Conv.s.ID, Compaction: bc.J, ItemID: fi.ID, System: sys}
				obs = append(obs, calibration.Observation{Key: k, Class: fi.Class, Judge: v})
				truth[k], prints[k] = bc.Truth[ii], fi.Fingerprint()
			}
		}
	}
	return obs, truth, prints
}

// reviewsJSONL is the simulated reviewers' verdicts on the review queue:
// the file report.yaml names as reviews:.
func (q *Quarter) reviewsJSONL() ([]byte, error) {
	obs, truth, prints := q.observations()
	plan, err := reviewPlan(obs)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := reviews.NewWriter(&buf)
	for _, p := range plan.Picks {
		v := truth[p.Key]
		if v == fixture.Verbatim {
			return nil, fmt.Errorf("review queue: %s: a verbatim item drawn", p.Key)
		}
		if err := w.Write(reviews.Review{ConversationID: p.Key.ConversationID, Compaction: p.Key.Compaction, ItemID: p.Key.ItemID,
			Class: p.Class, System: p.Key.System, Item: prints[p.Key], JudgeVerdict: p.Judge, Verdict: v,
			Reviewer: SimulatedReviewer, Sample: p.Sample}); err != nil {
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// reviewed are the systems the report compares, whose verdicts are
// reviewed.
var reviewed = []string{SystemIncumbent, SystemCandidate}

// reviewPlan is the review queue calibrate queue draws on the example
// before any review: its defaults and ReviewSeed.
func reviewPlan(obs []calibration.Observation) (calibration.Plan, error) {
	plan, err := calibration.NewPlan(obs, reviewed, calibration.PlanOptions{
		HalfWidth: calibration.DefaultHalfWidth, Confidence: 0.95, Agreement: calibration.DefaultAgreement, Seed: ReviewSeed})
	if err != nil {
		return plan, fmt.Errorf("review queue: %w", err)
	}
	return plan, nil
}
