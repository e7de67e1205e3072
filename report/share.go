package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/stats"
)

// Share is one system's retained share of a class at a confidence, as
// the report and `tally check` state it: the parameters are its fields,
// its methods do the work.
//
// When every verdict is known, the share is a point, Retained/Items,
// with its Wilson interval. An error verdict (the judge failed) is
// neither retained nor absent, so a share with errors is not a point: it
// is the range from every error absent, Retained/Items, to every error
// retained, (Retained+Errors)/Items, and it has no interval.
//
//	Share{Counts: c, Confidence: 0.95}.String() // "60/80 = 75.0% (64.5–83.2%)"
//	                                            // "60–70 of 80 = 75.0–87.5%, no interval" with 10 errors
type Share struct {
	Counts     fixture.Counts
	Confidence float64
}

// Known reports whether the share is a point: at least one item, and no
// error verdict among them.
func (s Share) Known() bool { return s.Counts.Items > 0 && s.Counts.Errors == 0 }

// Point is Retained/Items when the share is Known, NaN otherwise.
func (s Share) Point() float64 {
	if !s.Known() {
		return math.NaN()
	}
	return float64(s.Counts.Retained()) / float64(s.Counts.Items)
}

// Range is the share with every error verdict absent (lower) and with
// every one retained (upper); lower equals upper when there are no
// errors, and both are NaN with no items.
func (s Share) Range() (lower, upper float64) {
	c := s.Counts
	if c.Items == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(c.Items)
	return float64(c.Retained()) / n, float64(c.Retained()+c.Errors) / n
}

// Wilson is the Wilson interval of the share at s.Confidence when the
// share is Known; otherwise its bounds are NaN (no interval). It returns
// an error only for a confidence outside (0, 1).
func (s Share) Wilson() (stats.Interval, error) {
	if !s.Known() {
		return stats.Interval{Method: string(stats.Wilson), Lower: math.NaN(), Upper: math.NaN()}, nil
	}
	return stats.Proportion{K: s.Counts.Retained(), N: s.Counts.Items}.Interval(stats.Wilson, s.Confidence)
}

// Count states the retained items: "60/80", "60–70 of 80" with 10 errors,
// "0/0" with no items.
func (s Share) Count() string {
	c := s.Counts
	if c.Errors > 0 {
		return fmt.Sprintf("%d–%d of %d", c.Retained(), c.Retained()+c.Errors, c.Items)
	}
	return fmt.Sprintf("%d/%d", c.Retained(), c.Items)
}

// Percent states the share as a percentage with one decimal: "75.0%",
// "75.0–87.5%" with errors, "—" with no items.
func (s Share) Percent() string {
	if s.Counts.Items == 0 {
		return "—"
	}
	lo, hi := s.Range()
	if s.Counts.Errors > 0 {
		return pct1(lo) + "–" + pct1(hi) + "%"
	}
	return pct1(lo) + "%"
}

// IntervalText states the Wilson interval, "64.5–83.2%", or "" when the
// share has none (errors, no items, or an invalid confidence).
func (s Share) IntervalText() string {
	iv, err := s.Wilson()
	if err != nil || math.IsNaN(iv.Lower) || math.IsNaN(iv.Upper) {
		return ""
	}
	return pct1(iv.Lower) + "–" + pct1(iv.Upper) + "%"
}

// String is the share's one text form: "60/80 = 75.0% (64.5–83.2%)" when
// every verdict is known, "60–70 of 80 = 75.0–87.5%, no interval" with
// errors, "0/0" with no items.
func (s Share) String() string {
	switch {
	case s.Counts.Items == 0:
		return "0/0"
	case s.Counts.Errors > 0:
		return s.Count() + " = " + s.Percent() + ", no interval"
	}
	out := s.Count() + " = " + s.Percent()
	if iv := s.IntervalText(); iv != "" {
		out += " (" + iv + ")"
	}
	return out
}

// pct1 is 100x with one decimal (more near 0 and 100: format.Percent),
// no sign.
func pct1(x float64) string { return format.Percent(x) }

// ThresholdText states a gate's minimum share as a percentage with at
// least one decimal, and as many as it was written with: "95.0%",
// "99.999%" (where one decimal said 100.0%).
func ThresholdText(x float64) string {
	s := format.Threshold(x)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s + "%"
}
