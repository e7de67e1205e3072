package report

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// Gate names used in Decision's lists besides the class names.
const (
	GateContradictions   = "contradictions"
	GateMeanPromptTokens = "mean_prompt_tokens"
)

// Unmet reports whether a gate in state s is not met: failed, or
// incomplete because of error verdicts or missing data.
func (s GateStatus) Unmet() bool { return s == Fail || s == Incomplete }

// shareGate is a system's state against a minimum retained share. An
// error verdict makes it incomplete, never a pass; it fails outright when
// it would fail even were every error retained.
func shareGate(c fixture.Counts, min float64, gated bool) GateStatus {
	switch {
	case !gated:
		return NoGate
	case c.Items == 0:
		return Incomplete
	case float64(c.Retained()+c.Errors)/float64(c.Items) < min:
		return Fail
	case c.Errors > 0:
		return Incomplete
	case float64(c.Retained())/float64(c.Items) >= min:
		return Pass
	}
	return Fail
}

// contradictionGate is a system's state against the maximum number of
// contradictions: failed when over it, incomplete with error verdicts
// (each might be a contradiction), else passed.
func contradictionGate(c fixture.Counts, max int) GateStatus {
	switch {
	case c.Contradicted > max:
		return Fail
	case c.Errors > 0 || c.Items == 0:
		return Incomplete
	}
	return Pass
}

// promptGate is a system's state against the maximum mean prompt size.
func promptGate(p PromptStats, maxMean float64) GateStatus {
	switch {
	case maxMean <= 0:
		return NoGate
	case p.Contexts == 0:
		return Incomplete
	case p.Mean <= maxMean:
		return Pass
	}
	return Fail
}

// retainedChange compares the candidate's retained count of a class
// with the incumbent's. It is Worse when the candidate retains more than
// tol fewer, Better when more than tol more, else Same. With error
// verdicts in either system it is Undecided — unless the candidate is
// worse even counting each of its errors as retained.
func retainedChange(inc, cand fixture.Counts, tol int) Change {
	if cand.Retained()+cand.Errors < inc.Retained()-tol {
		return Worse
	}
	if inc.Errors > 0 || cand.Errors > 0 {
		return Undecided
	}
	switch d := cand.Retained() - inc.Retained(); {
	case d < -tol:
		return Worse
	case d > tol:
		return Better
	}
	return Same
}

// contradictionChange compares the candidate's contradictions with the
// incumbent's: Worse when more than tol more, Better when more than tol
// fewer, else Same; Undecided with error verdicts unless worse even
// counting every incumbent error as a contradiction.
func contradictionChange(inc, cand fixture.Counts, tol int) Change {
	if cand.Contradicted > inc.Contradicted+inc.Errors+tol {
		return Worse
	}
	if inc.Errors > 0 || cand.Errors > 0 {
		return Undecided
	}
	switch d := cand.Contradicted - inc.Contradicted; {
	case d > tol:
		return Worse
	case d < -tol:
		return Better
	}
	return Same
}

// promptChange reports a smaller mean prompt as Better and anything else
// as Same: prompt size is gated only by its maximum.
func promptChange(inc, cand PromptStats) Change {
	if inc.Contexts > 0 && cand.Contexts > 0 && cand.Mean < inc.Mean {
		return Better
	}
	return Same
}

// decide applies the regression rule to the report's rows.
func decide(r *Report, reg Regression) Decision {
	d := Decision{Rule: RuleText(reg)}
	note := func(name string, change Change, inc, cand GateStatus) {
		switch change {
		case Worse:
			d.Worse = append(d.Worse, name)
		case Undecided:
			d.Undecided = append(d.Undecided, name)
		}
		if inc.Unmet() && cand.Unmet() {
			d.Backlog = append(d.Backlog, name)
		}
		if cand.Unmet() {
			d.CandidateUnmet = append(d.CandidateUnmet, name)
		}
	}
	for _, row := range r.Classes {
		note(string(row.Class), row.Change, row.Incumbent.Gate, row.Candidate.Gate)
	}
	c := r.Contradictions
	note(GateContradictions, c.Change, c.IncumbentGate, c.CandidateGate)
	p := r.Prompt
	note(GateMeanPromptTokens, p.Change, p.IncumbentGate, p.CandidateGate)
	d.Blocks = len(d.Worse) > 0 || len(d.Undecided) > 0
	return d
}

// RuleText states the regression rule with its tolerances, in the words
// every renderer prints and `tally gate` applies.
func RuleText(reg Regression) string {
	fewer := "retains fewer items of a class than the incumbent"
	if t := reg.RetainedTolerance; t > 0 {
		fewer = fmt.Sprintf("retains more than %d %s fewer of a class than the incumbent", t, pluralWord(t, "item", "items"))
	}
	more := "has more contradictions than the incumbent"
	if t := reg.ContradictionTolerance; t > 0 {
		more = fmt.Sprintf("has more than %d %s more than the incumbent", t, pluralWord(t, "contradiction", "contradictions"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The change blocks when any row got worse: a class row is worse when the candidate %s, and the contradiction row when it %s. ", fewer, more)
	b.WriteString("A row with an error verdict in either system is undecided unless it is worse even with every candidate error in the candidate's favour; an undecided row blocks too, until the check is re-run. ")
	b.WriteString("Otherwise the change does not block, and the gates unmet by both systems are backlog: a standard not yet met, not a merge decision. ")
	b.WriteString("Mean prompt size is gated by its maximum alone; task success is reported, not gated.")
	return b.String()
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// StrictFails reports whether --strict fails the change: it blocks, or
// the candidate leaves a gate unmet.
func (d Decision) StrictFails() bool { return d.Blocks || len(d.CandidateUnmet) > 0 }
