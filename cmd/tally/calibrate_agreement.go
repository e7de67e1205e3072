package main

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/reviews"
)

// agreementJSON is the judge against the reviewers for one system.
type agreementJSON struct {
	System  string   `json:"system"`
	Reviews int      `json:"reviews"`
	Labels  []string `json:"labels"`
	// Table[i][j] counts the reviews where the judge said Labels[i] and
	// the reviewer Labels[j].
	Table [][]int `json:"table"`
	// Kappa is Cohen's κ with its Fleiss–Cohen–Everitt interval at
	// Confidence (none when of zero width); null when undefined (one
	// category only), with the reason.
	Confidence  float64  `json:"kappa_confidence"`
	Kappa       *float64 `json:"kappa"`
	KappaLower  *float64 `json:"kappa_lower,omitempty"`
	KappaUpper  *float64 `json:"kappa_upper,omitempty"`
	KappaReason string   `json:"kappa_undefined,omitempty"`
	// ContradictionsJudged counts the reviews of items the judge called
	// contradicted; ContradictionsConfirmed those the reviewer called
	// contradicted too.
	ContradictionsJudged    int `json:"contradictions_judged"`
	ContradictionsConfirmed int `json:"contradictions_confirmed"`
}

// newAgreementJSON is the JSON of one system's agreement (κ computed by
// a.Finish).
func newAgreementJSON(system string, a calibration.Agreement, confidence float64) agreementJSON {
	out := agreementJSON{System: system, Reviews: a.Reviews, Confidence: confidence,
		ContradictionsJudged: a.ContradictionsJudged, ContradictionsConfirmed: a.ContradictionsConfirmed}
	for i, l := range calibration.Labels {
		out.Labels = append(out.Labels, string(l))
		out.Table = append(out.Table, slices.Clone(a.Table[i][:]))
	}
	switch k := a.Kappa; {
	case math.IsNaN(k.Kappa):
		out.KappaReason = "judge and reviewers used one verdict only"
	default:
		out.Kappa = ptr(k.Kappa)
		// A zero-width interval (every review agreeing, or judge and
		// reviewers each using one verdict: the standard error is 0) is
		// no interval.
		if !math.IsNaN(k.Interval.Lower) && k.Interval.Lower != k.Interval.Upper {
			out.KappaLower, out.KappaUpper = ptr(k.Interval.Lower), ptr(k.Interval.Upper)
		}
	}
	return out
}

// newAgreement tabulates the judge against the reviewers, one entry per
// system in systems' order (then any other system the file holds), over
// the reviews that carry the judge's verdict (a judge error, or no
// record, is left out).
func newAgreement(rs []reviews.Review, systems []string, confidence float64) ([]agreementJSON, error) {
	by := map[string]*calibration.Agreement{}
	order := slices.Clone(systems)
	for _, r := range rs {
		a := by[r.System]
		if a == nil {
			a = &calibration.Agreement{}
		}
		if !a.Add(r.JudgeVerdict, r.Verdict) {
			continue
		}
		if by[r.System] == nil {
			by[r.System] = a
			if !slices.Contains(order, r.System) {
				order = append(order, r.System)
			}
		}
	}
	var out []agreementJSON
	for _, s := range order {
		a := by[s]
		if a == nil {
			continue
		}
		if err := a.Finish(confidence); err != nil {
			return nil, fmt.Errorf("agreement of %s: %w", s, err)
		}
		out = append(out, newAgreementJSON(s, *a, confidence))
	}
	return out, nil
}

// writeAgreementText prints each system's judge-against-reviewer table,
// κ and the contradictions the reviewers confirmed.
func writeAgreementText(w io.Writer, file string, as []agreementJSON) error {
	if len(as) == 0 {
		return nil
	}
	fmt.Fprintf(w, "judge against reviewers, every review in %s with the judge's verdict (rows the judge, columns the reviewer; items found verbatim left out):\n", file)
	for _, a := range as {
		kappa := "κ undefined: " + a.KappaReason
		if a.Kappa != nil {
			kappa = fmt.Sprintf("Cohen's κ %.3f", *a.Kappa)
			if a.KappaLower != nil {
				kappa += fmt.Sprintf(", %.4g%% interval %.3f to %.3f (Fleiss–Cohen–Everitt)", 100*a.Confidence, *a.KappaLower, *a.KappaUpper)
			} else {
				kappa += " (no interval: its standard error is 0)"
			}
		}
		fmt.Fprintf(w, "%s, %d %s: %s; contradictions: %d of %d the judge called contradicted confirmed\n",
			a.System, a.Reviews, pluralWord(a.Reviews, "review"), kappa, a.ContradictionsConfirmed, a.ContradictionsJudged)
		tw := table(w)
		fmt.Fprintf(tw, "  judge \\ reviewer\t%s\t%s\t%s\n", a.Labels[0], a.Labels[1], a.Labels[2])
		for i, row := range a.Table {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\n", a.Labels[i], row[0], row[1], row[2])
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// pluralWord is noun, or noun+"s" unless n is 1.
func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
