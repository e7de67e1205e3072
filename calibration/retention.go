package calibration

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// Observation is one system's verdict on one item-compaction, with the
// reviewer's where there is one.
type Observation struct {
	// Key names the item-compaction and the system.
	Key   reviews.Key
	Class fixture.Class
	// Judge is the verdict of the check: verbatim, supported, absent,
	// contradicted or error.
	Judge fixture.Verdict
	// Reviewed is the reviewer's verdict (supported, absent or
	// contradicted); "" when the item-compaction was not reviewed.
	Reviewed fixture.Verdict
	// Sample says how the review was drawn: reviews.SampleCensus, reviews.SampleRandom,
	// or "" when no review queue drew it (a reviewer picked the row).
	Sample string
}

// judgedStrata are the judge's verdicts a judged (not verbatim) item can
// have: the strata of the correction and of the review queue.
var judgedStrata = [3]fixture.Verdict{fixture.Supported, fixture.Absent, fixture.Contradicted}

// Stratum is one stratum of a class and system's judged items: those the
// judge gave one verdict.
type Stratum struct {
	Judge fixture.Verdict
	// Judged is the number of item-compactions the judge gave Judge;
	// Reviewed how many of them a reviewer reviewed, Retained how many of
	// those the reviewer called supported.
	Judged, Reviewed, Retained int
}

// Retention is one class and system's retention: the judge's share and
// the share corrected for the judge's errors.
type Retention struct {
	Class  fixture.Class
	System string
	// Counts are the system's verdicts on the class.
	Counts fixture.Counts
	// Strata are the judged items by the judge's verdict (empty strata
	// left out).
	Strata []Stratum
	// Reviewed counts the reviews of judged items the correction uses;
	// Unmarked how many of them no review queue drew (assumed a random
	// sample of their stratum all the same).
	Reviewed, Unmarked int
	// JudgeShare is the judge's retained share over all the class's
	// items, (verbatim + supported)/items.
	JudgeShare float64
	// PPI is the prediction-powered estimate of the reviewers' share over
	// the judged items, stratified by the judge's verdict; nil when it
	// cannot be computed (Reason says why).
	PPI *stats.PPIResult
	// Share and Interval are the corrected retention over all the class's
	// items: (verbatim + judged·θ̂)/items, the verbatim ones exact. NaN
	// when PPI is nil.
	Share    float64
	Interval stats.Interval
	// Reason says why there is no corrected figure.
	Reason string
	// Agreement is the judge against the reviewers on this class and
	// system.
	Agreement Agreement
}

// Judged is the number of judged (not verbatim) items: the population of
// the correction.
func (r Retention) Judged() int {
	return r.Counts.Judged()
}

// Correct computes each class's retention for each system, classes in
// fixture.Classes order and systems in the order given, from the
// observations (of those systems; others are ignored). The correction is
// classic PPI (λ = 1), which with strata by the judge's verdict is the
// stratified estimator of the reviewers' share, each stratum's variance at
// the Jeffreys-adjusted share (stats.PPIStratifiedJeffreys). The class's
// interval adds the variance of its verbatim share, which is as random as
// the judged strata's sizes: SE² = (J/n)²·SE_θ² + (V/n)(J/n)(1 − θ̂)²/n
// for V verbatim and J judged of n items.
// A class with an error verdict, with no judged item, or with a stratum
// of fewer than two reviews (one suffices for a stratum of one item) has
// no corrected figure and says why.
func Correct(obs []Observation, systems []string, confidence float64) ([]Retention, error) {
	type cell struct {
		r       Retention
		strata  [3]stats.PPIStratum
		judgedN [3]int
	}
	cells := map[[2]string]*cell{}
	get := func(cl fixture.Class, sys string) *cell {
		k := [2]string{string(cl), sys}
		c := cells[k]
		if c == nil {
			c = &cell{r: Retention{Class: cl, System: sys}}
			cells[k] = c
		}
		return c
	}
	for _, o := range obs {
		if !slices.Contains(systems, o.Key.System) || !o.Class.Valid() {
			continue
		}
		c := get(o.Class, o.Key.System)
		c.r.Counts.Add(o.Judge)
		if o.Reviewed != "" {
			c.r.Agreement.Add(o.Judge, o.Reviewed)
		}
		h := slices.Index(judgedStrata[:], o.Judge)
		if h < 0 {
			continue
		}
		c.judgedN[h]++
		st := &c.strata[h]
		st.Judged++
		if o.Judge == fixture.Supported {
			st.JudgeRetained++
		}
		if label(o.Reviewed) >= 0 && o.Reviewed != fixture.Verbatim {
			st.Labelled = append(st.Labelled, stats.PPISample{Judge: o.Judge == fixture.Supported, Human: o.Reviewed == fixture.Supported})
			c.r.Reviewed++
			if o.Sample == "" {
				c.r.Unmarked++
			}
		}
	}
	var out []Retention
	for _, cl := range fixture.Classes {
		for _, sys := range systems {
			c := get(cl, sys)
			r := &c.r
			if err := r.Agreement.Finish(confidence); err != nil {
				return nil, fmt.Errorf("%s, %s: %w", cl, sys, err)
			}
			r.Share = math.NaN()
			r.Interval = stats.Interval{Method: "ppi", Lower: math.NaN(), Upper: math.NaN()}
			r.JudgeShare = math.NaN()
			if r.Counts.Items > 0 {
				r.JudgeShare = float64(r.Counts.Retained()) / float64(r.Counts.Items)
			}
			var strata []stats.PPIStratum
			short := 0
			for h, st := range c.strata {
				if st.Judged == 0 {
					continue
				}
				human := 0
				for _, s := range st.Labelled {
					if s.Human {
						human++
					}
				}
				r.Strata = append(r.Strata, Stratum{Judge: judgedStrata[h], Judged: st.Judged, Reviewed: len(st.Labelled), Retained: human})
				strata = append(strata, st)
				if n := len(st.Labelled); n < 2 && n < st.Judged {
					short++
				}
			}
			switch {
			case r.Counts.Items == 0:
				r.Reason = "no items checked"
			case r.Counts.Errors > 0:
				r.Reason = fmt.Sprintf("%d error %s: the share is not known", r.Counts.Errors, plural(r.Counts.Errors, "verdict", "verdicts"))
			case len(strata) == 0:
				r.Reason = "every item verbatim: nothing judged to correct"
				r.Share = r.JudgeShare
				r.Interval = stats.Interval{Method: "exact", Lower: r.Share, Upper: r.Share}
			case r.Reviewed == 0:
				r.Reason = "no reviews"
			case short > 0:
				r.Reason = fmt.Sprintf("%d of the judge's %d %s %s too few reviews (each needs 2, or its one item reviewed)", short, len(strata), plural(len(strata), "verdict", "verdicts"), plural(short, "has", "have"))
			default:
				res, err := stats.PPIStratifiedJeffreys(strata, confidence)
				if err != nil {
					if errors.Is(err, stats.ErrInput) {
						r.Reason = err.Error()
						break
					}
					return nil, fmt.Errorf("%s, %s: %w", cl, sys, err)
				}
				r.PPI = &res
				j, n := float64(r.Judged()), float64(r.Counts.Items)
				v := float64(r.Counts.Verbatim)
				r.Share = (v + j*res.Estimate) / n
				se := math.Sqrt(j*j/(n*n)*res.StandardError*res.StandardError + (v/n)*(j/n)*(1-res.Estimate)*(1-res.Estimate)/n)
				hw := stats.Z(confidence) * se
				r.Interval = stats.Interval{Method: res.Interval.Method,
					Lower: max(0, r.Share-hw), Upper: min(1, r.Share+hw)}
			}
		}
	}
	for _, cl := range fixture.Classes {
		for _, sys := range systems {
			out = append(out, cells[[2]string{string(cl), sys}].r)
		}
	}
	return out, nil
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
