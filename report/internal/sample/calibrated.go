package sample

import (
	"math"
	"testing"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/stats"
)

// This file holds the renderers' calibration cases: the example built
// with reviewers' verdicts (Calibrated), and a hand-made calibration
// whose every string is hostile (HostileCalibration).

// CalibratedConfig is the example's configuration with reviews: and
// gates.use: corrected, relative to the folder of a renderer's package
// (report/NAME). Its header says how its reviews were drawn.
const CalibratedConfig = "../internal/sample/testdata/calibrated/report.yaml"

// Calibrated builds the example's report with the reviewers' verdicts of
// CalibratedConfig, at QuarterlyTime: a report whose Calibration is set.
func Calibrated(t testing.TB) *report.Report {
	t.Helper()
	cfg, err := report.LoadConfig(CalibratedConfig)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(cfg, report.Options{Generated: QuarterlyTime, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calibration == nil {
		t.Fatal("the calibrated example has no calibration")
	}
	return r
}

// HostileCalibration sets on r a hand-made calibration whose system
// names, reason and sentence carry hostile text, and returns it: for
// each class, the incumbent's retention with a corrected figure
// (judge 0.9 over 40 items, Wilson 0.8–0.95, corrected 0.85, 0.8–0.9,
// κ 0.5 in 0.2–0.8, 10 reviews) and the candidate's with none and
// Reason HostileStrings["script"]+HostileStrings["hyperlink"]. The
// systems are named r.Incumbent and r.Candidate as they are.
func HostileCalibration(r *report.Report) *report.Calibration {
	h := HostileStrings
	kappa := stats.Kappa{N: 10, Kappa: 0.5, Interval: stats.Interval{Lower: 0.2, Upper: 0.8}}
	agree := calibration.Agreement{Table: [3][3]int{{6, 1, 0}, {1, 1, 0}, {0, 0, 1}}, Reviews: 10, Kappa: kappa,
		ContradictionsJudged: 1, ContradictionsConfirmed: 1}
	c := &report.Calibration{Use: report.UseCorrected, Agreement: [2]calibration.Agreement{agree, agree},
		Reviewed: 20, Sentence: "judge said " + h["img"] + " " + h["at"]}
	for _, cl := range fixture.Classes {
		inc := calibration.Retention{Class: cl, System: r.Incumbent, Counts: fixture.Counts{Items: 40, Verbatim: 20, Supported: 16, Absent: 4},
			Reviewed: 10, JudgeShare: 0.9,
			PPI:   &stats.PPIResult{N: 20, Labelled: 10, JudgeOnly: stats.Interval{Lower: 0.8, Upper: 0.95}},
			Share: 0.85, Interval: stats.Interval{Method: "ppi", Lower: 0.8, Upper: 0.9}, Agreement: agree}
		cand := inc
		cand.System, cand.PPI, cand.Share = r.Candidate, nil, math.NaN()
		cand.Interval = stats.Interval{Method: "ppi", Lower: math.NaN(), Upper: math.NaN()}
		cand.Reason = h["script"] + h["hyperlink"]
		c.Retention = append(c.Retention, inc, cand)
	}
	r.Calibration = c
	return c
}
