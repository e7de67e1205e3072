package report

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/report/internal/format"
)

// Verdict is the decision in a word or three: "blocks" or "does not
// block".
func (d Decision) Verdict() string {
	if d.Blocks {
		return "blocks"
	}
	return "does not block"
}

// Headline is the decision in one line, the words every output gives it:
//
//	blocks — rows that got worse under the candidate: open_question, contradictions
//	blocks — rows that got worse under the candidate: constraint; undecided (judge errors; re-run tally check): reference
//	blocks — undecided (judge errors; re-run tally check): constraint
//	does not block — no row got worse under the candidate
//	does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: commitment
//	does not block — no row got worse under the candidate; but this gate blocks a 10-point drop in one class's retention with probability 0.0% (constraint), 0.0% (reference)
func (d Decision) Headline() string { return d.HeadlineWith(plain) }

// HeadlineWith is Headline with each row name passed through name: a
// renderer's markup around the names (HTML's <em>), the words the
// model's. The words between the names hold no markup character (none
// of <>&*_`[]\), so a renderer may write them as they are.
func (d Decision) HeadlineWith(name func(string) string) string {
	switch {
	case d.Blocks && len(d.Worse) > 0:
		s := d.Verdict() + " — " + d.worseText(name)
		if len(d.Undecided) > 0 {
			s += "; " + d.undecidedText(name)
		}
		return s
	case d.Blocks:
		return d.Verdict() + " — " + d.undecidedText(name)
	}
	newly, blind := d.newlyText(name), d.blindText(name)
	if newly != "" && blind != "" {
		blind = "; and" + strings.TrimPrefix(blind, "; but")
	}
	return d.Verdict() + " — no row got worse under the candidate" + newly + blind
}

// newlyText is "; but the candidate fails gates the incumbent meets:
// commitment" when the change does not block and gives up a gate the
// incumbent meets (NewlyUnmet), else "": the rule did not show the row
// worse, but the standard is no longer met.
func (d Decision) newlyText(name func(string) string) string {
	if d.Blocks || len(d.NewlyUnmet) == 0 {
		return ""
	}
	if len(d.NewlyUnmet) == 1 {
		return "; but the candidate fails a gate the incumbent meets: " + names(d.NewlyUnmet, name)
	}
	return "; but the candidate fails gates the incumbent meets: " + names(d.NewlyUnmet, name)
}

// blindText is "; but this gate blocks a 10-point drop in one class's
// retention with probability 4.0% (constraint), 61.0% (reference)" when
// the change does not block and the gate is blind to a drop of interest
// (Blind), else "".
func (d Decision) blindText(name func(string) string) string {
	bs := d.Blind
	if d.Blocks || bs == nil {
		return ""
	}
	parts := make([]string, len(bs.Classes))
	for i, c := range bs.Classes {
		parts[i] = pct(bs.Power[i]) + " (" + name(c) + ")"
	}
	return fmt.Sprintf("; but this gate blocks %s %s-point drop in one class's retention with probability %s",
		article(100*bs.Drop), strconvNum(100*bs.Drop), strings.Join(parts, ", "))
}

// WorseText names the rows that got worse: "rows that got worse under the
// candidate: open_question, contradictions"; "" when none did.
func (d Decision) WorseText() string { return d.worseText(plain) }

func (d Decision) worseText(name func(string) string) string {
	if len(d.Worse) == 0 {
		return ""
	}
	return "rows that got worse under the candidate: " + names(d.Worse, name)
}

// UndecidedText names the undecided rows and why they are undecided:
// "undecided (judge errors; re-run tally check): constraint"; "" when no
// row is undecided.
func (d Decision) UndecidedText() string { return d.undecidedText(plain) }

func (d Decision) undecidedText(name func(string) string) string {
	if len(d.Undecided) == 0 {
		return ""
	}
	return "undecided (" + d.UndecidedWhy() + "): " + names(d.Undecided, name)
}

// plain is a row name as it is.
func plain(s string) string { return s }

// names joins list with ", ", each passed through name.
func names(list []string, name func(string) string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = name(s)
	}
	return strings.Join(out, ", ")
}

// UndecidedWhy says why rows are undecided: item-compactions checked by
// one system only, judge errors, or both.
func (d Decision) UndecidedWhy() string {
	switch {
	case d.Unpaired > 0 && d.JudgeErrors > 0:
		return "items checked by one system only, and judge errors"
	case d.Unpaired > 0:
		return "items checked by one system only"
	}
	return "judge errors; re-run tally check"
}

// BacklogText names the gates unmet by both systems: "backlog, unmet by
// both systems (a standard not yet met, not a merge decision):
// constraint, contradictions"; "" when there are none.
func (d Decision) BacklogText() string {
	if len(d.Backlog) == 0 {
		return ""
	}
	return "backlog, unmet by both systems (a standard not yet met, not a merge decision): " + strings.Join(d.Backlog, ", ")
}

// BacklogCount counts the gates unmet by both systems: "backlog (unmet by
// both systems): 5 gates"; "" when there are none.
func (d Decision) BacklogCount() string {
	n := len(d.Backlog)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("backlog (unmet by both systems): %d %s", n, format.Plural(n, "gate", "gates"))
}
