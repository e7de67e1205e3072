package calibration_test

import (
	"fmt"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// One system's 60 constraints: 6 verbatim, and the judge called 40
// supported, 12 absent and 2 contradicted. The queue asks for every
// contradiction and a seeded random sample of the rest; a reviewer
// reviews the picks (here every fifth item is truly the opposite of the
// judge's call), and Correct turns the reviews into a corrected retention
// beside the judge's own.
//
// The sizes by hand (NewPlan's doc): judged N = 54, W = 40/54, 12/54,
// 2/54, S_h = 0.3, θ_h = 0.9, 0.1, 0.1, θ̄ = 0.6926; between =
// Σ W_h(θ_h − θ̄)²/54 = 0.002276; the verbatim term (6/60)(54/60)(1 −
// θ̄)²/60 = 0.0001416; V = ((0.15/1.96)² − 0.0001416)·(60/54)² − between
// = 0.004780; n = 0.09/V = 18.83; supported ⌈13.95⌉ = 14, absent 5 raised
// to MinPerStratum 10, contradicted both. At the Jeffreys-adjusted
// shares the expected half-width is over 0.15, so V is tightened by 0.9:
// n = 20.92, supported ⌈15.5⌉ = 16 (expected half-width 0.146). The share
// by hand from the printed strata: θ̂ = (40·13/16 + 12·2/10 + 2·1/2)/54
// = (32.5 + 2.4 + 1)/54 = 0.6648, corrected (6 + 54·θ̂)/60 = 41.9/60 =
// 0.698, against the judge's (6 + 40)/60 = 0.767.
func ExampleNewPlan() {
	var obs []calibration.Observation
	lost := map[reviews.Key]bool{}
	add := func(n int, judge fixture.Verdict) {
		for range n {
			i := len(obs) + 1
			k := reviews.Key{ConversationID: fmt.Sprintf("conv%02d", i), Compaction: 1, ItemID: "budget", System: "incumbent"}
			lost[k] = i%5 == 0
			if judge == fixture.Absent || judge == fixture.Contradicted {
				lost[k] = i%5 != 0
			}
			obs = append(obs, calibration.Observation{Key: k, Class: fixture.Constraint, Judge: judge})
		}
	}
	add(6, fixture.Verbatim)
	add(40, fixture.Supported)
	add(12, fixture.Absent)
	add(2, fixture.Contradicted)

	plan, err := calibration.NewPlan(obs, []string{"incumbent"}, calibration.PlanOptions{
		HalfWidth: 0.15, Confidence: 0.95, Agreement: calibration.DefaultAgreement, Seed: 14})
	if err != nil {
		panic(err)
	}
	for _, s := range plan.Strata {
		fmt.Printf("%-12s judged %2d, review %2d (%s)\n", s.Judge, s.Judged, s.Want, s.Sample)
	}
	c := plan.Classes[0]
	fmt.Printf("expected half-width %.3f (target 0.15, reachable %v), %d picks\n", c.HalfWidth, c.Reachable, len(plan.Picks))

	// The reviewer's verdicts on the picks.
	picked := map[reviews.Key]string{}
	for _, p := range plan.Picks {
		picked[p.Key] = p.Sample
	}
	for i, o := range obs {
		if s, ok := picked[o.Key]; ok {
			obs[i].Reviewed, obs[i].Sample = fixture.Supported, s
			if lost[o.Key] {
				obs[i].Reviewed = fixture.Absent
			}
		}
	}
	rs, err := calibration.Correct(obs, []string{"incumbent"}, 0.95)
	if err != nil {
		panic(err)
	}
	r := rs[0]
	for _, s := range r.Strata {
		fmt.Printf("%-12s %d of %d reviewed retained\n", s.Judge, s.Retained, s.Reviewed)
	}
	fmt.Printf("judge %.3f, corrected %.3f (95%% %.3f–%.3f)\n", r.JudgeShare, r.Share, r.Interval.Lower, r.Interval.Upper)
	// Output:
	// supported    judged 40, review 16 (random)
	// absent       judged 12, review 10 (random)
	// contradicted judged  2, review  2 (census)
	// expected half-width 0.146 (target 0.15, reachable true), 28 picks
	// supported    13 of 16 reviewed retained
	// absent       2 of 10 reviewed retained
	// contradicted 1 of 2 reviewed retained
	// judge 0.767, corrected 0.698 (95% 0.540–0.857)
}
