package main

import (
	"math"

	"github.com/tally-eval/tally/report"
)

// calibrationJSON is the JSON of a report's calibration
// (report.Calibration): the judge against the reviewers and each class's
// retention corrected for the judge's errors.
type calibrationJSON struct {
	// Use is what the retained-share gates were decided on: judge or
	// corrected.
	Use      string `json:"use"`
	Sentence string `json:"sentence"`
	// Reviewed counts the reviews used; Unmarked those no review queue
	// drew.
	Reviewed  int                  `json:"reviewed"`
	Unmarked  int                  `json:"unmarked"`
	Agreement []agreementJSON      `json:"judge_against_reviewers"`
	Retention []correctedShareJSON `json:"retention"`
}

// correctedShareJSON is one class and system's judge and corrected
// retention.
type correctedShareJSON struct {
	Class   string `json:"class"`
	System  string `json:"system"`
	Items   int    `json:"items"`
	Judged  int    `json:"judged"`
	Reviews int    `json:"reviews"`
	// JudgeShare is the judge's retained share; Corrected and its
	// interval the share corrected by the reviews (prediction-powered
	// inference), null with Reason when there is none.
	JudgeShare *float64 `json:"judge_share"`
	Corrected  *float64 `json:"corrected"`
	Lower      *float64 `json:"corrected_lower,omitempty"`
	Upper      *float64 `json:"corrected_upper,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// finite is &x, or nil when x is NaN.
func finite(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

func newCalibrationJSON(r *report.Report) *calibrationJSON {
	c := r.Calibration
	if c == nil {
		return nil
	}
	out := &calibrationJSON{Use: c.Use, Sentence: c.Sentence, Reviewed: c.Reviewed, Unmarked: c.Unmarked,
		Agreement: []agreementJSON{newAgreementJSON(r.Incumbent, c.Agreement[0], r.Confidence), newAgreementJSON(r.Candidate, c.Agreement[1], r.Confidence)}}
	for _, rt := range c.Retention {
		row := correctedShareJSON{Class: string(rt.Class), System: rt.System, Items: rt.Counts.Items, Judged: rt.Judged(),
			Reviews: rt.Reviewed, JudgeShare: finite(rt.JudgeShare), Corrected: finite(rt.Share), Reason: rt.Reason}
		if row.Corrected != nil {
			row.Lower, row.Upper = finite(rt.Interval.Lower), finite(rt.Interval.Upper)
		}
		out.Retention = append(out.Retention, row)
	}
	return out
}
