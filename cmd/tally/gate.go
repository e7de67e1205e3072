package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/report"
)

// gateSideJSON is one system's cell of a gate row.
type gateSideJSON struct {
	Retained *int     `json:"retained,omitempty"`
	Items    *int     `json:"items,omitempty"`
	Share    *float64 `json:"retained_share,omitempty"`
	// ShareRange replaces Share when error verdicts leave the share
	// unknown: every error absent to every error retained.
	ShareRange       *shareRange `json:"retained_share_range,omitempty"`
	Errors           *int        `json:"errors,omitempty"`
	Contradicted     *int        `json:"contradicted,omitempty"`
	MeanPromptTokens *float64    `json:"mean_prompt_tokens,omitempty"`
	Status           string      `json:"status"`
	// DecidedOn is "corrected" when Status was decided on the corrected
	// share (gates.use: corrected), with CorrectedShare (null when there is
	// none, CorrectedReason saying why); absent when it was the judge's.
	DecidedOn       string   `json:"decided_on,omitempty"`
	CorrectedShare  *float64 `json:"corrected_share,omitempty"`
	CorrectedReason string   `json:"corrected_reason,omitempty"`
}

// gateRowJSON is one row of `tally gate`'s JSON: a class, the
// contradictions or the mean prompt size.
type gateRowJSON struct {
	Row       string       `json:"row"`
	Gate      float64      `json:"gate"` // minimum share, maximum contradictions or maximum mean tokens (0: none)
	Incumbent gateSideJSON `json:"incumbent"`
	Candidate gateSideJSON `json:"candidate"`
	Change    string       `json:"change"`
	// ChangeText is the change in the words every output gives it
	// ("fewer retained, not significant"); Change is its value.
	ChangeText string `json:"change_text"`
	Lost       *int   `json:"lost,omitempty"`
	Gained     *int   `json:"gained,omitempty"`
	New        *int   `json:"new,omitempty"`
	Resolved   *int   `json:"resolved,omitempty"` // contradicted by the incumbent, not the candidate
	// FoundByReviewer counts the new contradictions only a reviewer found
	// (the judge saw none); Overruled the candidate's judge contradictions
	// a reviewer found otherwise, not in new (reviews: in report.yaml).
	FoundByReviewer *int     `json:"found_by_reviewer,omitempty"`
	Overruled       *int     `json:"overruled,omitempty"`
	PValue          *float64 `json:"mcnemar_exact_p,omitempty"`
	// RuleP and RuleLevel are the rule's p-value for the row and the
	// level it was held to (mcnemar, noninferiority; absent for count).
	RuleP     *float64 `json:"rule_p,omitempty"`
	RuleLevel *float64 `json:"rule_level,omitempty"`
	// OnlyIncumbent and OnlyCandidate are the item-compactions one
	// system checked and the other did not; any makes the row undecided.
	OnlyIncumbent *gateUnpairedJSON `json:"only_incumbent,omitempty"`
	OnlyCandidate *gateUnpairedJSON `json:"only_candidate,omitempty"`
}

// gateUnpairedJSON counts the item-compactions of a row checked by one
// system only and names the first few (the class rows name them; the
// contradiction row, all classes together, gives the count alone).
type gateUnpairedJSON struct {
	Count int           `json:"count"`
	First []itemKeyJSON `json:"first,omitempty"`
}

// itemKeyJSON names one item at one compaction.
type itemKeyJSON struct {
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	ItemID         string `json:"item_id"`
}

// unpairedJSON is the JSON of keys, nil when there are none.
func unpairedJSON(keys []report.ItemKey) *gateUnpairedJSON {
	if len(keys) == 0 {
		return nil
	}
	u := &gateUnpairedJSON{Count: len(keys)}
	for _, k := range keys[:min(len(keys), report.MaxNamed)] {
		u.First = append(u.First, itemKeyJSON{k.ConversationID, k.Compaction, k.ItemID})
	}
	return u
}

// unpairedCount is the JSON of a bare count, nil when 0.
func unpairedCount(n int) *gateUnpairedJSON {
	if n == 0 {
		return nil
	}
	return &gateUnpairedJSON{Count: n}
}

// gateJSON is the JSON contract of `tally gate`.
type gateJSON struct {
	Verdict string `json:"verdict"` // "blocks" | "does not block"
	// Headline is the verdict line every output prints
	// (report.Decision.Headline), with what a change that does not
	// block still gives up.
	Headline       string   `json:"headline"`
	Blocks         bool     `json:"blocks"`
	Strict         bool     `json:"strict"`
	Fails          bool     `json:"fails"` // the exit code is 3
	Worse          []string `json:"worse"`
	Undecided      []string `json:"undecided"`
	Backlog        []string `json:"backlog"`
	CandidateUnmet []string `json:"candidate_unmet"`
	// NewlyUnmet are the gates the incumbent meets and the candidate
	// does not.
	NewlyUnmet []string   `json:"newly_unmet"`
	Rule       string     `json:"rule"`
	ErrorRates *ratesJSON `json:"error_rates"`
	// Calibration is the judge against the reviewers and the corrected
	// retention; null when the configuration names no reviews.
	Calibration *calibrationJSON `json:"calibration"`
	Rows        []gateRowJSON    `json:"rows"`
	Warnings    []string         `json:"warnings,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func newGateJSON(r *report.Report, strict bool) gateJSON {
	d := r.Decision
	out := gateJSON{Verdict: d.Verdict(), Headline: d.Headline(), NewlyUnmet: nonNil(d.NewlyUnmet), Blocks: d.Blocks, Strict: strict, Fails: gateFails(d, strict),
		Worse: nonNil(d.Worse), Undecided: nonNil(d.Undecided), Backlog: nonNil(d.Backlog),
		CandidateUnmet: nonNil(d.CandidateUnmet), Rule: d.Rule, ErrorRates: newRatesJSON(r.ErrorRates), Calibration: newCalibrationJSON(r), Warnings: r.Warnings}
	side := func(s report.SystemClass) gateSideJSON {
		c := s.Counts
		g := gateSideJSON{Retained: ptr(c.Retained()), Items: ptr(c.Items), Errors: ptr(c.Errors), Contradicted: ptr(c.Contradicted), Status: string(s.Gate)}
		switch {
		case s.Retained.Known():
			g.Share = ptr(s.Retained.Point())
		case c.Items > 0:
			lo, hi := s.Retained.Range()
			g.ShareRange = &shareRange{Lower: lo, Upper: hi}
		}
		if d := s.Decided; d != nil {
			g.DecidedOn, g.CorrectedShare = report.UseCorrected, finite(d.Share)
			if g.CorrectedShare == nil {
				g.CorrectedReason = d.Reason
			}
		}
		return g
	}
	for _, c := range r.Classes {
		row := gateRowJSON{Row: string(c.Class), Gate: c.MinShare, Incumbent: side(c.Incumbent), Candidate: side(c.Candidate),
			Change: string(c.Change), ChangeText: c.ChangeText(), Lost: ptr(len(c.Lost)), Gained: ptr(len(c.Gained)),
			OnlyIncumbent: unpairedJSON(c.OnlyIncumbent), OnlyCandidate: unpairedJSON(c.OnlyCandidate)}
		if c.Pairs.Pairs() > 0 {
			row.PValue = ptr(c.McNemar.PValue)
		}
		if o := c.Rule; o.Tested && !math.IsNaN(o.P) {
			row.RuleP, row.RuleLevel = ptr(o.P), ptr(o.Level)
		}
		out.Rows = append(out.Rows, row)
	}
	k := r.Contradictions
	out.Rows = append(out.Rows, gateRowJSON{Row: report.GateContradictions, Gate: float64(k.Max),
		Incumbent: gateSideJSON{Contradicted: ptr(k.Incumbent), Status: string(k.IncumbentGate)},
		Candidate: gateSideJSON{Contradicted: ptr(k.Candidate), Status: string(k.CandidateGate)},
		Change:    string(k.Change), ChangeText: string(k.Change), New: ptr(len(k.New)), Resolved: ptr(k.Resolved),
		FoundByReviewer: ptr(len(k.Found)), Overruled: ptr(len(k.Overruled)),
		OnlyIncumbent: unpairedCount(k.OnlyIncumbent), OnlyCandidate: unpairedCount(k.OnlyCandidate)})
	p := r.Prompt
	out.Rows = append(out.Rows, gateRowJSON{Row: report.GateMeanPromptTokens, Gate: p.MaxMean,
		Incumbent: gateSideJSON{MeanPromptTokens: optional(p.Incumbent.Mean, p.Incumbent.Contexts > 0), Status: string(p.IncumbentGate)},
		Candidate: gateSideJSON{MeanPromptTokens: optional(p.Candidate.Mean, p.Candidate.Contexts > 0), Status: string(p.CandidateGate)},
		Change:    string(p.Change), ChangeText: string(p.Change)})
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// gateFails is the rule of `tally gate` and `tally report --gate`: the
// change blocks, or, with --strict, the candidate leaves a gate unmet.
func gateFails(d report.Decision, strict bool) bool {
	if strict {
		return d.StrictFails()
	}
	return d.Blocks
}

// gateErr returns the gateError for a failed gate, nil otherwise.
func gateErr(d report.Decision, strict bool) error {
	switch {
	case d.Blocks:
		return gateError{"the change blocks: " + strings.Join(append(append([]string{}, d.Worse...), d.Undecided...), ", ")}
	case strict && d.StrictFails():
		return gateError{"--strict: the candidate leaves gates unmet: " + strings.Join(d.CandidateUnmet, ", ")}
	}
	return nil
}

func newGateCmd(opts *options) *cobra.Command {
	var (
		strict bool
		lim    limitFlags
	)
	cmd := &cobra.Command{
		Use:   "gate CONFIG.yaml [--strict]",
		Short: "Apply the report's regression rule: exit 3 when the change blocks",
		Long: `gate builds the report CONFIG.yaml describes (see tally report) and applies
its rule, the one the report prints: the change blocks when any row got worse
under the candidate — by default a class whose one-sided clustered McNemar
test finds it loses more items than it gains (Holm across classes; the count
rule: fell by more than the tolerance), or a new contradiction — or cannot be
compared because of judge errors. Gates unmet by both systems are backlog,
not a merge decision; a gate the incumbent meets and the candidate does not
is said on the verdict line.

It prints the verdict and the rows that decide it. Exit 0 when the change does
not block, 3 when it does; with --strict, also 3 when the candidate leaves any
gate unmet. With --format json: "verdict" ("blocks" or "does not block"),
"headline" (the verdict line every output prints), "newly_unmet", and per
row "change" (worse, same, better, undecided) with "change_text" (its words:
"fewer retained, not significant").`,
		Example: "  tally gate examples/quarterly/report.yaml\n  tally gate report.yaml --strict --format json",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			r, _, _, err := buildReport(args[0], "", lim.Limits, nil)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				if err := writeJSON(w, newGateJSON(r, strict)); err != nil {
					return err
				}
			} else if err := writeGateText(w, r, strict); err != nil {
				return err
			}
			return gateErr(r.Decision, strict)
		}),
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "also exit 3 when the candidate leaves any gate unmet")
	lim.register(cmd)
	return cmd
}

// writeVerdictLine prints the verdict and the rows that decide it, in
// the decision's own words (report.Decision.Headline).
func writeVerdictLine(w io.Writer, r *report.Report) {
	fmt.Fprintln(w, "verdict: "+r.Decision.Headline())
}

// writeUnpaired names, for each row with item-compactions checked by one
// system only, how many and the first few.
func writeUnpaired(w io.Writer, r *report.Report) {
	k := r.Contradictions
	if k.OnlyIncumbent+k.OnlyCandidate == 0 {
		return
	}
	fmt.Fprintf(w, "undecided: %d item-compactions checked by %s only and %d by %s only; each row is decided on the item-compactions both checked, and is undecided until both have checked these:\n",
		k.OnlyIncumbent, printable(r.Incumbent), k.OnlyCandidate, printable(r.Candidate))
	for _, c := range r.Classes {
		for _, s := range []struct {
			name string
			keys []report.ItemKey
		}{{r.Incumbent, c.OnlyIncumbent}, {r.Candidate, c.OnlyCandidate}} {
			if len(s.keys) == 0 {
				continue
			}
			fmt.Fprintf(w, "  %s: %d checked by %s only: %s\n", c.Class, len(s.keys), printable(s.name), itemList(s.keys))
		}
	}
}

// itemList names the first few item-compactions of keys, and how many
// more there are.
func itemList(keys []report.ItemKey) string {
	var b strings.Builder
	for i, k := range keys[:min(len(keys), report.MaxNamed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s/%s at compaction %d", printable(k.ConversationID), printable(k.ItemID), k.Compaction)
	}
	if n := len(keys) - report.MaxNamed; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	return b.String()
}

func writeGateText(w io.Writer, r *report.Report, strict bool) error {
	d := r.Decision
	writeVerdictLine(w, r)
	fmt.Fprintln(w)
	t := table(w)
	fmt.Fprintf(t, "row\tgate\t%s\t\t%s\t\tchange\n", printable(r.Incumbent), printable(r.Candidate))
	for _, c := range r.Classes {
		gate := "none"
		if c.Incumbent.Gate != report.NoGate {
			gate = "≥ " + report.ThresholdText(c.MinShare)
		}
		change := fmt.Sprintf("%s (%d lost, %d gained", c.ChangeText(), len(c.Lost), len(c.Gained))
		if t := r.RowTest(c); t != "" {
			change += ", " + t
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s)\n", c.Class, gate, shareCell(c.Incumbent), c.Incumbent.Gate, shareCell(c.Candidate), c.Candidate.Gate, change)
	}
	k := r.Contradictions
	overruled := ""
	if e := k.JudgeErrors; e[0]+e[1] > 0 {
		overruled = fmt.Sprintf("; overruled by a reviewer, not counted: %d of the incumbent's, %d of the candidate's", e[0], e[1])
	}
	if f := k.ReviewerFound; f[0]+f[1] > 0 {
		overruled += fmt.Sprintf("; found by a reviewer where the judge saw none, counted: %d of the incumbent's, %d of the candidate's", f[0], f[1])
	}
	fmt.Fprintf(t, "contradictions\t≤ %d\t%d\t%s\t%d\t%s\t%s (%d new, %d no longer contradicted%s)\n", k.Max, k.Incumbent, k.IncumbentGate, k.Candidate, k.CandidateGate, k.Change, len(k.New), k.Resolved, overruled)
	p := r.Prompt
	gate := "none"
	if p.MaxMean > 0 {
		gate = fmt.Sprintf("≤ %.0f", p.MaxMean)
	}
	fmt.Fprintf(t, "mean prompt tokens\t%s\t%s\t%s\t%s\t%s\t%s\n", gate, meanCell(p.Incumbent), p.IncumbentGate, meanCell(p.Candidate), p.CandidateGate, p.Change)
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	writeUnpaired(w, r)
	if b := d.BacklogText(); b != "" {
		fmt.Fprintln(w, b)
	}
	if len(d.CandidateUnmet) > 0 {
		fmt.Fprintf(w, "gates the candidate leaves unmet: %s", strings.Join(d.CandidateUnmet, ", "))
		if strict {
			fmt.Fprint(w, " (--strict: these fail the gate)")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "rule: %s\n", d.Rule)
	if er := r.ErrorRates; er != nil {
		fmt.Fprintln(w, printable(er.Sentence))
	}
	if c := r.Calibration; c != nil {
		fmt.Fprintln(w, printable(c.Sentence))
	}
	writeWarnings(w, r.Warnings)
	return nil
}

func shareCell(s report.SystemClass) string {
	c := s.Counts
	if c.Items == 0 {
		return "0/0"
	}
	if c.Errors > 0 {
		// The one presentation of a share with errors: a range, no
		// interval (report.Share).
		return fmt.Sprintf("%s, %s", s.Retained, plural(c.Errors, "error"))
	}
	out := s.Retained.Count() + " " + s.Retained.Percent()
	if s.Decided != nil {
		// gates.use: corrected: the status beside it was decided on this.
		out += "; " + printable(s.Decided.String())
	}
	return out
}

func meanCell(p report.PromptStats) string {
	if p.Contexts == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", p.Mean)
}

// pctShare formats a share as a percentage with one decimal.
func pctShare(p float64) string { return fmt.Sprintf("%.1f%%", 100*p) }
