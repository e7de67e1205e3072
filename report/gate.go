package report

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/format"
)

// Gate names used in Decision's lists besides the class names.
const (
	GateContradictions   = "contradictions"
	GateMeanPromptTokens = "mean_prompt_tokens"
)

// Unmet reports whether a gate in state s is not met: failed, or
// incomplete because of error verdicts or missing data.
func (s GateStatus) Unmet() bool { return s == Fail || s == Incomplete }

// ShareGate is a system's state against a minimum retained share (gated
// false: the class has no gate). An error verdict makes it incomplete,
// never a pass; it fails outright when it would fail even were every
// error retained.
func ShareGate(c fixture.Counts, min float64, gated bool) GateStatus {
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

// pairedErrors counts the item-compactions of a class both systems
// checked with an error verdict in either: their outcome is unknown.
type pairedErrors struct {
	n int
	// gains counts those that would be a gain in the candidate's favour:
	// the incumbent's verdict an error or not retained, the candidate's
	// an error or retained.
	gains int
}

func (e *pairedErrors) add(inc, cand fixture.Verdict) {
	e.n++
	if (inc == fixture.Error || !inc.Retained()) && (cand == fixture.Error || cand.Retained()) {
		e.gains++
	}
}

// retainedChange decides a class row on the item-compactions both
// systems checked (the paired table t: B lost, C gained). It is Worse
// when the candidate lost more than tol items net even counting, in its
// favour, every error pair that could be a gain and every unpaired
// item-compaction (checked by one system only) as a gain; otherwise
// Undecided with error pairs or unpaired item-compactions; otherwise
// Worse or Better by more than tol net, else Same.
func retainedChange(t power.Table, e pairedErrors, unpaired, tol int) Change {
	switch {
	case t.B-t.C-e.gains-unpaired > tol:
		return Worse
	case e.n > 0 || unpaired > 0:
		return Undecided
	}
	switch d := t.C - t.B; {
	case d < -tol:
		return Worse
	case d > tol:
		return Better
	}
	return Same
}

// contradictionPairs collects the contradiction row over the
// item-compactions both systems checked.
type contradictionPairs struct {
	new      []ItemKey // contradicted by the candidate, not the incumbent
	resolved int       // contradicted by the incumbent, not the candidate
	// errors counts the pairs with an error verdict; mayResolve those
	// that would be resolved in the candidate's favour.
	errors, mayResolve int
}

func (c *contradictionPairs) add(k ItemKey, inc, cand fixture.Verdict) {
	ic, cc := inc == fixture.Contradicted, cand == fixture.Contradicted
	switch {
	case cc && !ic:
		c.new = append(c.new, k)
	case ic && !cc:
		c.resolved++
	}
}

func (c *contradictionPairs) addError(inc, cand fixture.Verdict) {
	c.errors++
	if (inc == fixture.Contradicted || inc == fixture.Error) && cand != fixture.Contradicted {
		c.mayResolve++
	}
}

// contradictionChange decides the contradiction row on the paired
// item-compactions: the net new contradictions are those the candidate
// newly contradicts less those it stops contradicting. Worse when the
// net is more than tol even counting every error pair that could be a
// resolved one, and every unpaired item-compaction, as resolved;
// otherwise Undecided with error pairs or unpaired item-compactions;
// otherwise Worse when the net is more than tol, Better when less than
// −tol, else Same.
func contradictionChange(c contradictionPairs, unpaired, tol int) Change {
	net := len(c.new) - c.resolved
	switch {
	case net-c.mayResolve-unpaired > tol:
		return Worse
	case c.errors > 0 || unpaired > 0:
		return Undecided
	case net > tol:
		return Worse
	case net < -tol:
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
		d.JudgeErrors += row.Incumbent.Counts.Errors + row.Candidate.Counts.Errors
	}
	c := r.Contradictions
	d.Unpaired = c.OnlyIncumbent + c.OnlyCandidate
	note(GateContradictions, c.Change, c.IncumbentGate, c.CandidateGate)
	p := r.Prompt
	note(GateMeanPromptTokens, p.Change, p.IncumbentGate, p.CandidateGate)
	d.Blocks = len(d.Worse) > 0 || len(d.Undecided) > 0
	return d
}

// RuleText states the regression rule with its tolerances, in the words
// every renderer prints and `tally gate` applies.
func RuleText(reg Regression) string {
	fewer := "loses more items of a class than it gains"
	if t := reg.RetainedTolerance; t > 0 {
		fewer = fmt.Sprintf("loses more than %d %s of a class net (lost less gained)", t, format.Plural(t, "item", "items"))
	}
	more := "newly contradicts more items than it stops contradicting"
	if t := reg.ContradictionTolerance; t > 0 {
		more = fmt.Sprintf("newly contradicts more than %d %s net (new less resolved)", t, format.Plural(t, "item", "items"))
	}
	var b strings.Builder
	b.WriteString("The change blocks when any row got worse. Each row is decided item by item, on the item-compactions both systems checked: ")
	fmt.Fprintf(&b, "a class row is worse when the candidate %s, and the contradiction row when the candidate %s. ", fewer, more)
	b.WriteString("A row with an item-compaction checked by one system only, or with an error verdict in either system, is undecided unless it is worse even with every such one in the candidate's favour; an undecided row blocks too, until both systems have checked every item. ")
	b.WriteString("Otherwise the change passes, and the gates unmet by both systems are backlog: a standard not yet met, not a merge decision. ")
	b.WriteString("Mean prompt size is gated by its maximum alone; task success is reported, not gated.")
	return b.String()
}

// StrictFails reports whether --strict fails the change: it blocks, or
// the candidate leaves a gate unmet.
func (d Decision) StrictFails() bool { return d.Blocks || len(d.CandidateUnmet) > 0 }
