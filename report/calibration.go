package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// Calibration is the judge against the reviewers and the retention
// corrected for the judge's errors, for both systems.
type Calibration struct {
	// Use is what the retained-share gates were decided on: UseJudge or
	// UseCorrected (gates.use).
	Use string
	// Agreement is the judge against the reviewers over every class, for
	// the incumbent and the candidate.
	Agreement [2]calibration.Agreement
	// Retention holds each class's retention for the incumbent then the
	// candidate, classes in fixture.Classes order: the judge's share and
	// the corrected one.
	Retention []calibration.Retention
	// Reviewed counts the reviews used (of either system's verdicts on
	// this report's item-compactions); Unmarked how many of them no review
	// queue drew (tally calibrate queue), which the correction takes for a
	// random sample of their stratum all the same.
	Reviewed, Unmarked int
	// Sentence says in one sentence what the correction did.
	Sentence string
}

// Of returns the retention of class cl for system s (0 incumbent, 1
// candidate).
func (c *Calibration) Of(cl fixture.Class, s int) *calibration.Retention {
	for i := range c.Retention {
		r := &c.Retention[i]
		if r.Class == cl && (s == 0) == (i%2 == 0) {
			return r
		}
	}
	return nil
}

// Observations are each system's verdicts on the report's
// item-compactions, incumbent then candidate per row, with the reviewer's
// verdict where the configured reviews give one (reviews of another
// system, of no item-compaction here, or of an item edited since are not
// used): the input of calibration.Correct and calibration.NewPlan.
func (r *Report) Observations() []calibration.Observation {
	names := []string{r.Incumbent, r.Candidate}
	var obs []calibration.Observation
	for i := range r.Items {
		row := &r.Items[i]
		for s, rec := range []*fixture.Record{&row.Incumbent, &row.Candidate} {
			if rec.Verdict == "" {
				continue
			}
			k := reviews.Key{ConversationID: row.ConversationID, Compaction: row.Compaction, ItemID: row.ItemID, System: names[s]}
			o := calibration.Observation{Key: k, Class: row.Class, Judge: rec.Verdict}
			if rv, ok := r.reviews[k]; ok {
				o.Reviewed, o.Sample = rv.Verdict, rv.Sample
			}
			obs = append(obs, o)
		}
	}
	return obs
}

// calibrate measures the judge against the reviews and corrects each
// class's retention; with gates.use: corrected it decides the
// retained-share gates on the corrected share.
func (b *builder) calibrate() error {
	if b.reviews == nil {
		return nil
	}
	r := b.r
	names := []string{r.Incumbent, r.Candidate}
	obs := r.Observations()
	ret, err := calibration.Correct(obs, names, r.Confidence)
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	c := &Calibration{Use: b.cfg.Gates.Use, Retention: ret}
	for _, o := range obs {
		if o.Reviewed == "" {
			continue
		}
		s := 0
		if o.Key.System == r.Candidate {
			s = 1
		}
		if c.Agreement[s].Add(o.Judge, o.Reviewed) {
			c.Reviewed++
			if o.Sample == "" {
				c.Unmarked++
			}
		}
	}
	for s := range c.Agreement {
		if err := c.Agreement[s].Finish(r.Confidence); err != nil {
			return fmt.Errorf("calibration, %s: %w", names[s], err)
		}
	}
	if c.Use == UseCorrected {
		for i := range r.Classes {
			row := &r.Classes[i]
			min, gated := b.cfg.Gates.Retained[row.Class]
			for s, sc := range []*SystemClass{&row.Incumbent, &row.Candidate} {
				rt := c.Of(row.Class, s)
				sc.Gate = CorrectedGate(rt, min, gated)
				if rt != nil {
					sc.Decided = &DecidedShare{Share: rt.Share, Interval: rt.Interval, Reason: rt.Reason}
				}
			}
		}
		r.Decision = decide(r, b.cfg.Regression)
		for _, rt := range ret {
			if math.IsNaN(rt.Share) && rt.Counts.Items > 0 {
				if _, gated := b.cfg.Gates.Retained[rt.Class]; gated {
					r.Warnings = append(r.Warnings, fmt.Sprintf("%s, %s: no corrected retention (%s), so its gate is incomplete under gates.use: corrected", rt.Class, rt.System, rt.Reason))
				}
			}
		}
	}
	if c.Unmarked > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"reviews: %d of %d %s used for the corrected retention no review queue drew (tally calibrate queue marks the ones it draws); the correction takes them for a random sample of the judge's verdict they review, which rows picked by hand (the lost ones, say) are not",
			c.Unmarked, c.Reviewed, format.Plural(c.Reviewed, "review", "reviews")))
	}
	c.Sentence = calibrationSentence(c)
	r.Calibration = c
	return nil
}

// DecidedShare is the corrected share a retained-share gate was decided
// on under gates.use: corrected.
type DecidedShare struct {
	// Share and Interval are the corrected retention; NaN when there is
	// none, and Reason says why.
	Share    float64
	Interval stats.Interval
	Reason   string
}

// String is the share in words: "corrected 83.3% (70.7–96.3%)", or
// "no corrected share: REASON".
func (d *DecidedShare) String() string {
	if math.IsNaN(d.Share) {
		return "no corrected share: " + d.Reason
	}
	out := "corrected " + format.Points(d.Share) + "%"
	if !math.IsNaN(d.Interval.Lower) && !math.IsNaN(d.Interval.Upper) {
		out += fmt.Sprintf(" (%s–%s%%)", format.Points(d.Interval.Lower), format.Points(d.Interval.Upper))
	}
	return out
}

// CorrectedGate is a system's state against a class's minimum retained
// share, decided on the corrected share: incomplete when there is none.
func CorrectedGate(rt *calibration.Retention, min float64, gated bool) GateStatus {
	switch {
	case !gated:
		return NoGate
	case rt == nil || math.IsNaN(rt.Share):
		return Incomplete
	case rt.Share >= min:
		return Pass
	}
	return Fail
}

// calibrationSentence says what the correction did: how far the judge
// agreed with the reviewers, the largest move of a corrected share from
// the judge's, and what the gates used.
func calibrationSentence(c *Calibration) string {
	var b strings.Builder
	agree, n := 0, 0
	for _, a := range c.Agreement {
		agree += a.Equal()
		n += a.Reviews
	}
	if n == 0 {
		return "No review matches a judged item of this report, so nothing is corrected; the gates use the judge's figures."
	}
	fmt.Fprintf(&b, "Reviewers agreed with the judge on %d of the %d judged item-compactions they reviewed, both systems together (%s)", agree, n, pct(float64(agree)/float64(n)))
	var big *calibration.Retention
	corrected, missing := 0, 0
	for i := range c.Retention {
		rt := &c.Retention[i]
		if rt.Judged() == 0 || rt.Counts.Items == 0 {
			continue
		}
		if math.IsNaN(rt.Share) {
			missing++
			continue
		}
		corrected++
		if big == nil || math.Abs(rt.Share-rt.JudgeShare) > math.Abs(big.Share-big.JudgeShare) {
			big = rt
		}
	}
	switch {
	case big == nil:
		b.WriteString("; no class has enough reviews to correct its retention (each of the judge's verdicts needs two)")
	default:
		d := (big.Share - big.JudgeShare) * 100
		fmt.Fprintf(&b, "; corrected for the judge's errors, retention moves by at most %.1f %s (%s, %s: %s judged, %s corrected)",
			math.Abs(d), format.Plural(int(math.Round(math.Abs(d))), "point", "points"), big.Class, big.System, pct(big.JudgeShare), pct(big.Share))
		if missing > 0 {
			fmt.Fprintf(&b, ", and %d class %s no corrected figure", missing, format.Plural(missing, "row has", "rows have"))
		}
	}
	if c.Use == UseCorrected {
		b.WriteString(". The retained-share gates use the corrected figures.")
	} else {
		b.WriteString(". The retained-share gates use the judge's figures (gates.use: judge).")
	}
	return b.String()
}
