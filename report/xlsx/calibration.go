package xlsx

import (
	"math"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/report"
)

// --- Calibration --------------------------------------------------------

// calHeaderRow is the Calibration sheet's table header row.
const calHeaderRow = 5

// calibration writes the Calibration sheet, there only when the report
// has reviews: the sentence and which share the gates used, then one row
// per class and system — the judge's share with its Wilson interval
// beside the corrected share with its interval, the reviews used and κ,
// or why there is no corrected share — and below, per system, the judge
// against the reviewers.
func (b *book) calibration() error {
	r, st := b.r, b.st
	c := r.Calibration
	if c == nil {
		return nil
	}
	s, err := b.stream(sheetCalibration)
	if err != nil {
		return err
	}
	if err := s.widths(22, 12, 24, 11, 9, 11, 11, 11, 11, 11, 11, 9, 50, 40); err != nil {
		return err
	}
	if err := s.sw.SetPanes(freeze(2, calHeaderRow)); err != nil {
		return err
	}
	if err := b.printTitles(sheetCalibration, calHeaderRow, calHeaderRow); err != nil {
		return err
	}
	use := "the judge's share (gates.use: judge)"
	if c.Use == report.UseCorrected {
		use = "the corrected share (gates.use: corrected)"
	}
	conf := pct(r.Confidence)
	if err := s.putAll([]*cellRow{
		(&cellRow{}).str("How far to trust the judge", st.title),
		(&cellRow{}).str("In words", st.label).str(c.Sentence, 0),
		(&cellRow{}).str("The gates use", st.label).str(use, 0),
		nil,
	}); err != nil {
		return err
	}
	if err := s.headers("Class", "System", "Name", "Judged items", "Reviews",
		"Judge share", "Judge low ("+conf+" Wilson)", "Judge high",
		"Corrected share", "Corrected low ("+conf+")", "Corrected high", "κ", "κ low ("+conf+")", "κ high", "No corrected share because", "Notes"); err != nil {
		return err
	}
	roles := [2]string{"incumbent", "candidate"}
	for i := range c.Retention {
		rt := &c.Retention[i]
		sys := i % 2
		row := (&cellRow{}).str(string(rt.Class), st.label).str(roles[sys], 0).str(rt.System, 0).
			count(rt.Judged(), st.count).count(rt.Reviewed, st.count)
		share, lo, hi := rt.JudgeShare, math.NaN(), math.NaN()
		if sc, ok := systemClass(r, rt, sys); ok {
			share, lo, hi = sc.Share, sc.Wilson.Lower, sc.Wilson.Upper
		}
		row.num("judge share", share, st.pct).num("judge low", lo, st.pct).num("judge high", hi, st.pct)
		if math.IsNaN(rt.Share) {
			// No corrected share: the reason says why, not a note.
			row.skip(3)
		} else {
			row.num("corrected share", rt.Share, st.pct).num("corrected low", rt.Interval.Lower, st.pct).
				num("corrected high", rt.Interval.Upper, st.pct)
		}
		row.num("κ", kappa(rt.Agreement), st.decimal).
			num("κ low", kappaBound(rt.Agreement, rt.Agreement.Kappa.Interval.Lower), st.decimal).
			num("κ high", kappaBound(rt.Agreement, rt.Agreement.Kappa.Interval.Upper), st.decimal).str(rt.Reason, 0)
		if err := s.put(row.str(row.note(), 0)); err != nil {
			return err
		}
	}
	names := [2]string{r.Incumbent, r.Candidate}
	for sys, a := range c.Agreement {
		title := "Judge against reviewers: " + roles[sys]
		if names[sys] != "" {
			title += ": " + names[sys]
		}
		rows := []*cellRow{nil,
			(&cellRow{}).str(title, st.group).skip(3),
			(&cellRow{}).str("Judge ↓ reviewer →", st.header).str(string(calibration.Labels[0]), st.header).
				str(string(calibration.Labels[1]), st.header).str(string(calibration.Labels[2]), st.header),
		}
		for i, t := range a.Table {
			label := string(calibration.Labels[i])
			if i == 0 {
				label += " or verbatim"
			}
			rows = append(rows, (&cellRow{}).str(label, st.label).count(t[0], st.count).count(t[1], st.count).count(t[2], st.count))
		}
		k := (&cellRow{}).str("Cohen's κ", st.label).num("κ", kappa(a), st.decimal)
		rows = append(rows,
			(&cellRow{}).str("Reviews", st.label).count(a.Reviews, st.count),
			(&cellRow{}).str("With the judge's verdict", st.label).count(a.Equal(), st.count),
			k.skip(2).str(k.note(), 0),
			(&cellRow{}).str("κ low ("+conf+")", st.label).num("κ low", kappaBound(a, a.Kappa.Interval.Lower), st.decimal),
			(&cellRow{}).str("κ high", st.label).num("κ high", kappaBound(a, a.Kappa.Interval.Upper), st.decimal),
			(&cellRow{}).str("Contradictions judged", st.label).count(a.ContradictionsJudged, st.count),
			(&cellRow{}).str("Contradictions confirmed", st.label).count(a.ContradictionsConfirmed, st.count),
		)
		if err := s.putAll(rows); err != nil {
			return err
		}
	}
	return s.sw.Flush()
}

// systemClass is the gates table's share of rt's class for system s
// (0 incumbent, 1 candidate).
func systemClass(r *report.Report, rt *calibration.Retention, s int) (report.SystemClass, bool) {
	for _, row := range r.Classes {
		if row.Class == rt.Class {
			return []report.SystemClass{row.Incumbent, row.Candidate}[s], true
		}
	}
	return report.SystemClass{}, false
}

// kappa is an agreement's κ, NaN when it has no reviews.
func kappa(a calibration.Agreement) float64 {
	if a.Reviews == 0 {
		return math.NaN()
	}
	return a.Kappa.Kappa
}

// kappaBound is a bound of κ's interval, NaN when κ is or the interval
// has zero width (its standard error is 0: no interval).
func kappaBound(a calibration.Agreement, x float64) float64 {
	if math.IsNaN(kappa(a)) || a.Kappa.Interval.Lower == a.Kappa.Interval.Upper {
		return math.NaN()
	}
	return x
}
