package markdown

import (
	"fmt"
	"math"
	"strings"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/format"
)

// calibration writes "How far to trust the judge" when the report has
// reviewers' verdicts (report.Calibration): the sentence, each class and
// system's retained share as the judge gives it beside the share
// corrected for the judge's errors, and per system the judge against the
// reviewers. Nothing without reviews.
func (m *writer) calibration(r *report.Report) {
	c := r.Calibration
	if c == nil {
		return
	}
	m.printf("## How far to trust the judge\n\n")
	m.printf("%s\n\n", escape(c.Sentence))
	judge, corrected := "judge", "corrected"
	if c.Use == report.UseCorrected {
		corrected += " (the gates use this)"
	} else {
		judge += " (the gates use this)"
	}
	m.printf("| row | system | %s | %s | reviews used | κ |\n", judge, corrected)
	m.printf("|---|---|---|---|---|---|\n")
	for i := range c.Retention {
		rt := &c.Retention[i]
		s := i % 2
		m.printf("| %s | %s | %s | %s | %d of %d judged | %s |\n", escape(string(rt.Class)), roles[s],
			judgeShare(r, rt, s), correctedShare(rt), rt.Reviewed, rt.Judged(), kappaInterval(rt.Agreement))
	}
	m.printf("\nJudge: the share of the row's items the judge called verbatim or supported, with its Wilson interval. Corrected: the same share with the judge's verdicts corrected by the reviewers' (prediction-powered inference, stratified by the judge's verdict; verbatim items count as they are), with its %s interval. κ: Cohen's κ of the judge against the reviewers on the row's reviews of judged items (an item found verbatim was never put to the judge), with its %s interval (Fleiss–Cohen–Everitt; none when its standard error is 0, as when the judge or the reviewers gave one verdict only).\n\n",
		format.Confidence(r.Confidence), format.Confidence(r.Confidence))
	names := [2]string{r.Incumbent, r.Candidate}
	for s, a := range c.Agreement {
		m.printf("### The judge against the reviewers: %s", roles[s])
		if n := strings.TrimSpace(names[s]); n != "" && !strings.EqualFold(n, roles[s]) {
			m.printf(" %s", quote(names[s]))
		}
		m.printf("\n\n")
		if a.Reviews == 0 {
			m.printf("No review of the %s's verdicts.\n\n", roles[s])
			continue
		}
		m.printf("| judge ↓ reviewer → | %s | %s | %s |\n|---|---|---|---|\n", calibration.Labels[0], calibration.Labels[1], calibration.Labels[2])
		for i, row := range a.Table {
			label := string(calibration.Labels[i])
			if i == 0 {
				label += " or verbatim"
			}
			m.printf("| %s | %d | %d | %d |\n", label, row[0], row[1], row[2])
		}
		m.printf("\n%d %s, %d of them the judge's verdict; κ = %s", a.Reviews, format.Plural(a.Reviews, "review", "reviews"), a.Equal(), kappa(a))
		switch iv := a.Kappa.Interval; {
		case finite(iv.Lower) && finite(iv.Upper) && iv.Lower == iv.Upper:
			// A standard error of 0 gives no interval: said as tally
			// calibrate says it.
			m.printf(" (no interval: its standard error is 0)")
		case finite(iv.Lower) && finite(iv.Upper):
			m.printf(" (%s interval %s to %s)", format.Confidence(r.Confidence), signed(iv.Lower), signed(iv.Upper))
		}
		m.printf("; contradictions confirmed: %d of %d.\n\n", a.ContradictionsConfirmed, a.ContradictionsJudged)
	}
}

// roles names the systems by their role, incumbent then candidate.
var roles = [2]string{"incumbent", "candidate"}

// judgeShare is the judge's retained share of rt's class for system s
// in its one text form, from the gates table's row; from rt when the
// report has no row for the class.
func judgeShare(r *report.Report, rt *calibration.Retention, s int) string {
	for _, row := range r.Classes {
		if row.Class == rt.Class {
			return []report.SystemClass{row.Incumbent, row.Candidate}[s].Retained.String()
		}
	}
	if !finite(rt.JudgeShare) {
		return "—"
	}
	return pct(rt.JudgeShare)
}

// correctedShare is the corrected share with its interval, or why there
// is none.
func correctedShare(rt *calibration.Retention) string {
	if !finite(rt.Share) {
		if rt.Reason == "" {
			return "—"
		}
		return "none: " + escape(rt.Reason)
	}
	out := pct(rt.Share)
	if iv := rt.Interval; finite(iv.Lower) && finite(iv.Upper) {
		out += fmt.Sprintf(" (%.1f–%.1f%%)", 100*iv.Lower, 100*iv.Upper)
	}
	if rt.Reason != "" {
		out += "; " + escape(rt.Reason)
	}
	return out
}

// kappa is an agreement's κ with two decimals, "—" when undefined (no
// reviews, or one category only).
func kappa(a calibration.Agreement) string {
	if a.Reviews == 0 || !finite(a.Kappa.Kappa) {
		return "—"
	}
	return signed(a.Kappa.Kappa)
}

// kappaInterval is κ with its interval, "0.83 (0.62 to 1.00)", or κ
// alone when the interval is undefined or of zero width (every review
// agreeing: the large-sample standard error is then 0, which is no
// interval).
func kappaInterval(a calibration.Agreement) string {
	k := kappa(a)
	if k == "—" || !finite(a.Kappa.Interval.Lower) || !finite(a.Kappa.Interval.Upper) || a.Kappa.Interval.Lower == a.Kappa.Interval.Upper {
		return k
	}
	return fmt.Sprintf("%s (%s to %s)", k, signed(a.Kappa.Interval.Lower), signed(a.Kappa.Interval.Upper))
}

// signed formats x with two decimals and a true minus sign.
func signed(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	if s == "-0.00" {
		return "0.00"
	}
	if len(s) > 0 && s[0] == '-' {
		return "−" + s[1:]
	}
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
