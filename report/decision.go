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
func (d Decision) Headline() string {
	switch {
	case d.Blocks && len(d.Worse) > 0:
		s := d.Verdict() + " — " + d.WorseText()
		if len(d.Undecided) > 0 {
			s += "; " + d.UndecidedText()
		}
		return s
	case d.Blocks:
		return d.Verdict() + " — " + d.UndecidedText()
	}
	return d.Verdict() + " — no row got worse under the candidate"
}

// WorseText names the rows that got worse: "rows that got worse under the
// candidate: open_question, contradictions"; "" when none did.
func (d Decision) WorseText() string {
	if len(d.Worse) == 0 {
		return ""
	}
	return "rows that got worse under the candidate: " + strings.Join(d.Worse, ", ")
}

// UndecidedText names the undecided rows and why they are undecided:
// "undecided (judge errors; re-run tally check): constraint"; "" when no
// row is undecided.
func (d Decision) UndecidedText() string {
	if len(d.Undecided) == 0 {
		return ""
	}
	return "undecided (" + d.UndecidedWhy() + "): " + strings.Join(d.Undecided, ", ")
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
