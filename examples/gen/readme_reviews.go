package main

import (
	"bytes"
	"fmt"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

// reviewsSection writes the README's section on the judge's errors and
// the simulated reviews: per class and system, the judge's retained
// share, the true one, and the share corrected by the reviews, as the
// report computes it (calibration.Correct).
func (q *Quarter) reviewsSection(b *bytes.Buffer) error {
	obs, truth, _ := q.observations()
	plan, err := reviewPlan(obs)
	if err != nil {
		return err
	}
	picked := map[string]string{}
	for _, p := range plan.Picks {
		picked[p.Key.String()] = p.Sample
	}
	trueRetained := map[[2]string]int{}
	errs := map[fixture.Verdict][2]int{} // judge's verdict → (items, wrong)
	for i, o := range obs {
		t := truth[o.Key]
		if t == fixture.Verbatim || t == fixture.Supported {
			trueRetained[[2]string{string(o.Class), o.Key.System}]++
		}
		if o.Judge == fixture.Supported || o.Judge == fixture.Absent {
			e := errs[o.Judge]
			e[0]++
			if t != o.Judge {
				e[1]++
			}
			errs[o.Judge] = e
		}
		if s, ok := picked[o.Key.String()]; ok {
			obs[i].Reviewed, obs[i].Sample = t, s
		}
	}
	ret, err := calibration.Correct(obs, reviewed, 0.95)
	if err != nil {
		return err
	}
	sup, abs := errs[fixture.Supported], errs[fixture.Absent]
	fmt.Fprintf(b, `
## reviews.jsonl: the judge measured against reviewers

The recorded judge errs like a model judge: of the item-compactions it
calls supported, each is in truth absent with probability %.0f%% (the
paraphrase is not in the context: it read support into a nearby
sentence), and of those it calls absent, each is in truth supported with
probability %.0f%% (it missed a rewording). Drawn, that is %d of %d
supported verdicts and %d of %d absent ones wrong, over both systems.
Verbatim verdicts are the substring check's and contradictions are right.

`+"`reviews.jsonl`"+` is what reviewers would record on the review queue that
`+"`tally calibrate queue --config examples/quarterly/report.yaml --seed %d`"+`
draws (before the reviews exist: every contradiction, and from each class,
system and judge's verdict a random sample sized for a corrected retention
of ±%.0f points), each given the verdict its context really carries: %d
reviews, reviewer "%s". The report reads them (`+"`reviews:`"+`), measures the
judge against them and corrects each class's retention. Here the truth is
known, so the correction can be checked (95%% intervals; "judge" is the
judge's retained share with its Wilson interval, as if the judge were exact):

| class | system | reviews | judge | true | corrected | judge's interval covers the truth | corrected interval covers it |
|---|---|---|---|---|---|---|---|
`, 100*judgeFalseSupport, 100*judgeMissedSupport, sup[1], sup[0], abs[1], abs[0],
		ReviewSeed, 100*calibration.DefaultHalfWidth, len(plan.Picks), SimulatedReviewer)
	judgeCovers, corrCovers, rows := 0, 0, 0
	for _, r := range ret {
		if r.Counts.Items == 0 {
			continue
		}
		tr := float64(trueRetained[[2]string{string(r.Class), r.System}]) / float64(r.Counts.Items)
		w, err := stats.Proportion{K: r.Counts.Retained(), N: r.Counts.Items}.Interval(stats.Wilson, 0.95)
		if err != nil {
			return err
		}
		jc := w.Lower <= tr && tr <= w.Upper
		cc := r.Interval.Lower <= tr && tr <= r.Interval.Upper
		rows++
		if jc {
			judgeCovers++
		}
		if cc {
			corrCovers++
		}
		fmt.Fprintf(b, "| %s | %s | %d | %.1f%% (%.1f–%.1f%%) | %.1f%% | %.1f%% (%.1f–%.1f%%) | %s | %s |\n",
			r.Class, r.System, r.Reviewed, 100*r.JudgeShare, 100*w.Lower, 100*w.Upper, 100*tr,
			100*r.Share, 100*r.Interval.Lower, 100*r.Interval.Upper, yesNo(jc), yesNo(cc))
	}
	fmt.Fprintf(b, `
The judge's interval covers the true share in %d of %d rows, the corrected
one in %d of %d. ("True" is these items' share; the intervals are for the
summariser's retention, of which these items are a sample.) At this size
the judge's errors, a point or two of a class, are smaller than its
interval is wide, and the correction mostly widens the interval: it adds
the reviews' own sampling error. The correction earns its keep as the
fixture set grows: the judge's interval narrows around a biased share and
stops covering. In `+"`calibration/coverage_test.go`"+`, 400 judged items with
a judge of the same kind (10%% of retained items called absent, 20%% of lost
ones supported), the judge's interval covers the true retention in 6.8%%
of 2000 draws and the corrected one (reviews sized for ±5 points) in 95.1%%.
`, judgeCovers, rows, corrCovers, rows)
	return nil
}

// yesNo is "yes" or "no".
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
