package report

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/rule"
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

// decideClasses decides the class rows by the rule: pairs holds each
// class's paired item-compactions by conversation as checked, favs the
// same with every error pair that could be a gain and every unpaired
// item-compaction counted as a gain (the candidate's best case). A row is
// Worse when the rule blocks it even in the candidate's best case;
// otherwise Undecided with error pairs or unpaired item-compactions;
// otherwise Worse when the rule blocks it as checked, Better when the
// candidate gains significantly (the count rule: more than its tolerance
// net; the others: the one-sided exact McNemar test of "the candidate
// gains more than it loses" at the rule's level), else Same. Holm's
// procedure runs over the classes in each case.
func decideClasses(r rule.Rule, pairs, favs [][]power.ClusterCounts, errs []pairedErrors, only [][2][]ItemKey) ([]Change, []rule.Outcome, error) {
	data := func(cs [][]power.ClusterCounts) []rule.ClassData {
		out := make([]rule.ClassData, len(fixture.Classes))
		for ci, cl := range fixture.Classes {
			out[ci] = rule.ClassData{Name: string(cl), Clusters: cs[ci]}
		}
		return out
	}
	plain, err := r.Decide(data(pairs))
	if err != nil {
		return nil, nil, fmt.Errorf("regression rule: %w", err)
	}
	fav, err := r.Decide(data(favs))
	if err != nil {
		return nil, nil, fmt.Errorf("regression rule: %w", err)
	}
	changes := make([]Change, len(fixture.Classes))
	for ci := range changes {
		o := plain[ci]
		switch {
		case fav[ci].Blocks:
			changes[ci] = Worse
		case errs[ci].n > 0 || len(only[ci][0])+len(only[ci][1]) > 0:
			changes[ci] = Undecided
		case o.Blocks:
			changes[ci] = Worse
		case r.Kind == rule.Count && o.Gained-o.Lost > r.Tolerance:
			changes[ci] = Better
		case r.Kind != rule.Count && o.Gained > o.Lost && power.OneSidedP(o.Gained, o.Lost, false) <= r.Alpha:
			changes[ci] = Better
		default:
			changes[ci] = Same
		}
	}
	return changes, plain, nil
}

// contradictionPairs collects the contradiction row over the
// item-compactions both systems checked.
type contradictionPairs struct {
	new      []ItemKey // contradicted by the candidate, not the incumbent
	resolved int       // contradicted by the incumbent, not the candidate
	// overruled are the new ones a reviewer found not contradicted;
	// found the new ones only a reviewer found contradicted.
	overruled, found []ItemKey
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
// item-compactions. Under the count rule the net new contradictions are
// those the candidate newly contradicts less those it stops
// contradicting: Worse when the net is more than the tolerance even
// counting every error pair that could be a resolved one, and every
// unpaired item-compaction, as resolved; otherwise Undecided with error
// pairs or unpaired item-compactions; otherwise Worse when the net is
// more than the tolerance, Better when less than −tolerance, else Same.
// Under the other rules contradictions are never traded against
// anything: one item the candidate newly contradicts makes the row
// Worse; otherwise error pairs or unpaired item-compactions make it
// Undecided; otherwise it is Better when the candidate stopped
// contradicting some item, else Same.
func contradictionChange(c contradictionPairs, unpaired int, r rule.Rule) Change {
	if r.Kind != rule.Count {
		switch {
		case len(c.new) > 0:
			return Worse
		case c.errors > 0 || unpaired > 0:
			return Undecided
		case c.resolved > 0:
			return Better
		}
		return Same
	}
	tol := r.ContradictionTolerance
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
		if cand.Unmet() && inc == Pass {
			d.NewlyUnmet = append(d.NewlyUnmet, name)
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

// RuleText states the regression rule with its parameters, in the words
// every renderer prints and `tally gate` applies.
func RuleText(reg Regression) string {
	var b strings.Builder
	b.WriteString("The change blocks when any row got worse. Each row is decided item by item, on the item-compactions both systems checked. Rule: ")
	b.WriteString(reg.Rule.Text())
	b.WriteString(". A row with an item-compaction checked by one system only, or with an error verdict in either system, is undecided unless it is worse even with every such one in the candidate's favour; an undecided row blocks too, until both systems have checked every item. ")
	b.WriteString("Otherwise the change passes, and the gates unmet by both systems are backlog: a standard not yet met, not a merge decision. ")
	b.WriteString("Mean prompt size is gated by its maximum alone; task success is reported, not gated.")
	return b.String()
}

// StrictFails reports whether --strict fails the change: it blocks, or
// the candidate leaves a gate unmet.
func (d Decision) StrictFails() bool { return d.Blocks || len(d.CandidateUnmet) > 0 }
