package report

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/report/internal/casefile"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/rule"
)

func classRow(t testing.TB, r *Report, cl fixture.Class) ClassRow {
	t.Helper()
	for _, c := range r.Classes {
		if c.Class == cl {
			return c
		}
	}
	t.Fatalf("no row %s", cl)
	return ClassRow{}
}

func TestShareGate(t *testing.T) {
	tests := []struct {
		reason string
		c      fixture.Counts
		min    float64
		gated  bool
		want   GateStatus
	}{
		{"19/20 meets 0.95 exactly", fixture.Counts{Items: 20, Verbatim: 19, Absent: 1}, 0.95, true, Pass},
		{"18/20 is under 0.95", fixture.Counts{Items: 20, Verbatim: 18, Absent: 2}, 0.95, true, Fail},
		{"an error makes a passing row incomplete, never a pass", fixture.Counts{Items: 20, Verbatim: 19, Errors: 1}, 0.5, true, Incomplete},
		{"an error cannot rescue a row that fails even were it retained", fixture.Counts{Items: 20, Verbatim: 17, Absent: 2, Errors: 1}, 0.95, true, Fail},
		{"an error that might decide it: incomplete", fixture.Counts{Items: 20, Verbatim: 18, Absent: 1, Errors: 1}, 0.95, true, Incomplete},
		{"no items cannot pass", fixture.Counts{}, 0.9, true, Incomplete},
		{"no gate", fixture.Counts{Items: 1, Errors: 1}, 0, false, NoGate},
		{"a gate of 0 with an error is still incomplete", fixture.Counts{Items: 2, Verbatim: 1, Errors: 1}, 0, true, Incomplete},
	}
	for _, tt := range tests {
		if got := ShareGate(tt.c, tt.min, tt.gated); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.reason, got, tt.want)
		}
	}
}

func TestRetainedChange(t *testing.T) {
	tests := []struct {
		reason   string
		t        power.Table // A both, B lost, C gained, D neither
		errs     pairedErrors
		unpaired int
		tol      int
		want     Change
	}{
		{"one lost, none gained is worse by default", power.Table{A: 7, B: 1, D: 2}, pairedErrors{}, 0, 0, Worse},
		{"one lost net is within a tolerance of 1", power.Table{A: 7, B: 1, D: 2}, pairedErrors{}, 0, 1, Same},
		{"two lost net is beyond a tolerance of 1", power.Table{A: 6, B: 3, C: 1}, pairedErrors{}, 0, 1, Worse},
		{"as many lost as gained is same", power.Table{A: 6, B: 2, C: 2}, pairedErrors{}, 0, 0, Same},
		{"one gained net is better", power.Table{A: 8, C: 1, D: 1}, pairedErrors{}, 0, 0, Better},
		{"one gained net is within a tolerance of 1", power.Table{A: 8, C: 1, D: 1}, pairedErrors{}, 0, 1, Same},
		{"an error pair that might be a gain and close the gap: undecided", power.Table{A: 7, B: 1}, pairedErrors{n: 1, gains: 1}, 0, 0, Undecided},
		{"an error pair that cannot be a gain still leaves the row unknown: undecided", power.Table{A: 8}, pairedErrors{n: 1}, 0, 0, Undecided},
		{"worse even with every error pair a gain", power.Table{A: 5, B: 3}, pairedErrors{n: 1, gains: 1}, 0, 0, Worse},
		{"6 lost, 0 gained, 6 unpaired (exact p = 0.031): undecided, not same", power.Table{B: 6}, pairedErrors{}, 6, 0, Undecided},
		{"one unpaired item-compaction makes an unchanged row undecided", power.Table{A: 9}, pairedErrors{}, 1, 0, Undecided},
		{"10 lost and one unpaired: worse even were the unpaired one a gain, not hidden as undecided", power.Table{B: 10}, pairedErrors{}, 1, 0, Worse},
		{"2 lost, one unpaired, tolerance 1: could be 1 net, undecided", power.Table{A: 4, B: 2}, pairedErrors{}, 1, 1, Undecided},
	}
	for _, tt := range tests {
		if got := oneClassChange(t, rule.Rule{Kind: rule.Count, Tolerance: tt.tol}, tt.t, tt.errs, tt.unpaired); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.reason, got, tt.want)
		}
	}
}

// oneClassChange decides the first class's row by r, the other classes
// having no pairs.
func oneClassChange(t *testing.T, r rule.Rule, tab power.Table, errs pairedErrors, unpaired int) Change {
	t.Helper()
	nc := len(fixture.Classes)
	pairs, favs := make([][]power.ClusterCounts, nc), make([][]power.ClusterCounts, nc)
	pairs[0] = []power.ClusterCounts{{N: tab.Pairs(), Lost: tab.B, Gained: tab.C}}
	favs[0] = []power.ClusterCounts{{N: tab.Pairs() + errs.n + unpaired, Lost: tab.B, Gained: tab.C + errs.gains + unpaired}}
	es, only := make([]pairedErrors, nc), make([][2][]ItemKey, nc)
	es[0], only[0][0] = errs, make([]ItemKey, unpaired)
	changes, _, err := decideClasses(r, pairs, favs, es, only)
	if err != nil {
		t.Fatal(err)
	}
	return changes[0]
}

// TestMcNemarChange decides rows by the one-sided exact McNemar rule at
// α = 0.05, one class tested (Holm's k = 1), on p-values from R:
// pbinom(5, 6, .5, lower.tail=FALSE) = 0.015625 (6 lost, 0 gained),
// pbinom(9, 13, .5, lower.tail=FALSE) = 0.04614258 (10 lost, 3 gained),
// pbinom(4, 6, .5, lower.tail=FALSE) = 0.109375 (5 lost, 1 gained).
func TestMcNemarChange(t *testing.T) {
	r := rule.Rule{Kind: rule.McNemar, Alpha: 0.05}
	for _, tt := range []struct {
		reason   string
		t        power.Table
		errs     pairedErrors
		unpaired int
		want     Change
	}{
		{"6 lost, 0 gained: p 0.0156 ≤ 0.05", power.Table{A: 20, B: 6}, pairedErrors{}, 0, Worse},
		{"10 lost, 3 gained: p 0.0461 ≤ 0.05", power.Table{A: 20, B: 10, C: 3}, pairedErrors{}, 0, Worse},
		{"5 lost, 1 gained: p 0.109, not evidence", power.Table{A: 20, B: 5, C: 1}, pairedErrors{}, 0, Same},
		{"one lost, none gained is not worse: noise does that", power.Table{A: 7, B: 1, D: 2}, pairedErrors{}, 0, Same},
		{"6 lost with 6 unpaired that could be gains: undecided", power.Table{B: 6}, pairedErrors{}, 6, Undecided},
		{"6 lost and 1 error pair that could be a gain: P(X ≥ 6 | 7) = 0.0625, undecided", power.Table{A: 3, B: 6}, pairedErrors{n: 1, gains: 1}, 0, Undecided},
		{"0 lost, 6 gained: better, p 0.0156", power.Table{A: 20, C: 6}, pairedErrors{}, 0, Better},
	} {
		if got := oneClassChange(t, r, tt.t, tt.errs, tt.unpaired); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.reason, got, tt.want)
		}
	}
}

func TestContradictionChange(t *testing.T) {
	news := func(n int) []ItemKey { return make([]ItemKey, n) }
	tests := []struct {
		reason   string
		c        contradictionPairs
		unpaired int
		tol      int
		want     Change
	}{
		{"one new is worse by default", contradictionPairs{new: news(1)}, 0, 0, Worse},
		{"one new is within a tolerance of 1", contradictionPairs{new: news(1)}, 0, 1, Same},
		{"one new, one resolved is same", contradictionPairs{new: news(1), resolved: 1}, 0, 0, Same},
		{"one resolved is better", contradictionPairs{resolved: 1}, 0, 0, Better},
		{"an incumbent error that might be resolved: undecided", contradictionPairs{new: news(1), errors: 1, mayResolve: 1}, 0, 0, Undecided},
		{"worse even were every error pair resolved", contradictionPairs{new: news(3), errors: 1, mayResolve: 1}, 0, 0, Worse},
		{"four unpaired item-compactions could resolve three new: undecided", contradictionPairs{new: news(3)}, 4, 0, Undecided},
		{"ten new and one unpaired: worse even were it resolved, not hidden as undecided", contradictionPairs{new: news(10)}, 1, 0, Worse},
	}
	for _, tt := range tests {
		if got := contradictionChange(tt.c, tt.unpaired, rule.Rule{Kind: rule.Count, ContradictionTolerance: tt.tol}); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.reason, got, tt.want)
		}
	}
	// Under the other rules one new contradiction blocks whatever was
	// resolved: inversions are not traded.
	for _, tt := range []struct {
		reason   string
		c        contradictionPairs
		unpaired int
		want     Change
	}{
		{"one new, one resolved is still worse", contradictionPairs{new: news(1), resolved: 1}, 0, Worse},
		{"one new with an error pair is worse, not undecided", contradictionPairs{new: news(1), errors: 1, mayResolve: 1}, 0, Worse},
		{"none new, an unpaired one: undecided", contradictionPairs{}, 1, Undecided},
		{"none new, one resolved: better", contradictionPairs{resolved: 1}, 0, Better},
	} {
		if got := contradictionChange(tt.c, tt.unpaired, rule.Default); got != tt.want {
			t.Errorf("mcnemar: %s: got %s, want %s", tt.reason, got, tt.want)
		}
	}
}

// TestGateErrorVerdict: a judge error makes the row incomplete, never a
// pass, and the change undecided, which blocks.
func TestGateErrorVerdict(t *testing.T) {
	gates := "gates:\n  retained: {constraint: 0.5, commitment: 0.5, open_question: 0.5, reference: 0.5}\n"
	path := casefile.Write(t, casefile.Verdicts("incumbent", nil), casefile.Verdicts("candidate", map[string]fixture.Verdict{"conv_a/c1": fixture.Error}), gates)
	r := buildCase(t, path)
	row := classRow(t, r, fixture.Constraint)
	if row.Candidate.Gate != Incomplete {
		t.Errorf("candidate constraint gate %s with an error verdict (1/2 retained ≥ 0.5): want incomplete, never pass", row.Candidate.Gate)
	}
	if row.Incumbent.Gate != Pass {
		t.Errorf("incumbent constraint gate %s", row.Incumbent.Gate)
	}
	if row.Change != Undecided {
		t.Errorf("change %s, want undecided", row.Change)
	}
	if r.Contradictions.CandidateGate != Incomplete {
		t.Errorf("contradiction gate %s: an error might hide a contradiction", r.Contradictions.CandidateGate)
	}
	d := r.Decision
	if !d.Blocks || len(d.Worse) != 0 || !slices.Equal(d.Undecided, []string{"constraint", "contradictions"}) {
		t.Errorf("decision %+v", d)
	}
	if !slices.Contains(d.CandidateUnmet, "constraint") || slices.Contains(d.Backlog, "constraint") {
		t.Errorf("unmet %v, backlog %v", d.CandidateUnmet, d.Backlog)
	}
	if row.Pairs.Pairs() != 1 || len(row.Lost) != 0 {
		t.Errorf("the error pair must be left out of the item-level pairs: %v, lost %v", row.Pairs, row.Lost)
	}
	if !slices.ContainsFunc(r.Warnings, func(s string) bool { return strings.Contains(s, "candidate: 1 error verdict") }) {
		t.Errorf("warnings %q", r.Warnings)
	}
}

func TestGateTolerance(t *testing.T) {
	inc := casefile.Verdicts("incumbent", nil)
	cand := casefile.Verdicts("candidate", map[string]fixture.Verdict{"conv_a/c1": fixture.Absent, "conv_b/c3": fixture.Contradicted})
	tests := []struct {
		reason     string
		regression string
		worse      []string
		blocks     bool
	}{
		{"default (mcnemar): one fewer item is within noise; one more contradiction is worse", "", []string{"contradictions"}, true},
		{"count rule, no tolerance: one fewer constraint and one more contradiction are worse", "regression: {rule: count}\n", []string{"constraint", "open_question", "contradictions"}, true},
		{"retained tolerance 1: one fewer item of a class is not worse", "regression: {rule: count, retained_tolerance: 1}\n", []string{"contradictions"}, true},
		{"both tolerances 1: nothing is worse", "regression: {rule: count, retained_tolerance: 1, contradiction_tolerance: 1}\n", nil, false},
	}
	for _, tt := range tests {
		r := buildCase(t, casefile.Write(t, inc, cand, tt.regression))
		if !slices.Equal(r.Decision.Worse, tt.worse) || r.Decision.Blocks != tt.blocks {
			t.Errorf("%s: worse %v blocks %v, want %v %v", tt.reason, r.Decision.Worse, r.Decision.Blocks, tt.worse, tt.blocks)
		}
		if !strings.Contains(r.Decision.Rule, "The change blocks when any row got worse") {
			t.Errorf("rule %q", r.Decision.Rule)
		}
	}
	r := buildCase(t, casefile.Write(t, inc, cand, "regression: {rule: count, retained_tolerance: 2}\n"))
	if !strings.Contains(r.Decision.Rule, "loses more than 2 items of it net") {
		t.Errorf("the rule must state the tolerance: %q", r.Decision.Rule)
	}
	row := classRow(t, r, fixture.Constraint)
	if len(row.Lost) != 1 || row.Lost[0] != (ItemKey{"conv_a", 1, "c1"}) || row.Pairs.B != 1 {
		t.Errorf("lost %v pairs %v", row.Lost, row.Pairs)
	}
	if len(r.Contradictions.New) != 1 || r.Contradictions.New[0].ItemID != "c3" {
		t.Errorf("new contradictions %v", r.Contradictions.New)
	}
}

// TestGateUnpaired: testdata/unpaired's incumbent lacks four fixtures;
// on the six both checked, the candidate lost six constraint items and
// gained none. Counted whole, both retain six (the counts read "same");
// item by item, the row is undecided, names the unpaired
// item-compactions, and blocks.
func TestGateUnpaired(t *testing.T) {
	r := buildCase(t, filepath.Join("testdata", "unpaired", "report.yaml"))
	row := classRow(t, r, fixture.Constraint)
	if row.Incumbent.Counts.Retained() != 6 || row.Candidate.Counts.Retained() != 6 {
		t.Fatalf("the case must retain 6 each, counted whole: %d, %d", row.Incumbent.Counts.Retained(), row.Candidate.Counts.Retained())
	}
	if row.Change != Undecided || len(row.Lost) != 6 || len(row.Gained) != 0 || math.Abs(row.McNemar.PValue-0.03125) > 1e-12 {
		t.Errorf("constraint row: change %s, lost %d, gained %d, p %v; want undecided, 6, 0, 0.03125 (2·0.5⁶)", row.Change, len(row.Lost), len(row.Gained), row.McNemar.PValue)
	}
	if len(row.OnlyIncumbent) != 0 || len(row.OnlyCandidate) != 6 || row.OnlyCandidate[0] != (ItemKey{"conv_07", 1, "c1"}) {
		t.Errorf("unpaired: incumbent only %v, candidate only %v", row.OnlyIncumbent, row.OnlyCandidate)
	}
	k := r.Contradictions
	if k.Change != Undecided || k.OnlyIncumbent != 0 || k.OnlyCandidate != 18 {
		t.Errorf("contradiction row %+v", k)
	}
	d := r.Decision
	if !d.Blocks || len(d.Worse) != 0 || !slices.Contains(d.Undecided, "constraint") || !slices.Contains(d.Undecided, GateContradictions) {
		t.Errorf("decision %+v", d)
	}
	if !strings.Contains(d.Rule, "checked by one system only, or with an error verdict in either system, is undecided unless it is worse") {
		t.Errorf("the rule must say that unpaired item-compactions make a row undecided: %q", d.Rule)
	}
}

func TestGateStrictAndBacklog(t *testing.T) {
	gates := "gates:\n  retained: {constraint: 0.9}\n"
	both := map[string]fixture.Verdict{"conv_a/c1": fixture.Absent}
	r := buildCase(t, casefile.Write(t, casefile.Verdicts("incumbent", both), casefile.Verdicts("candidate", both), gates))
	d := r.Decision
	if d.Blocks || !slices.Equal(d.Backlog, []string{"constraint"}) || !slices.Equal(d.CandidateUnmet, []string{"constraint"}) {
		t.Errorf("decision %+v", d)
	}
	if !d.StrictFails() {
		t.Error("--strict must fail when the candidate leaves a gate unmet")
	}
	if got := classRow(t, r, fixture.Commitment).Candidate.Gate; got != NoGate {
		t.Errorf("ungated class: %s", got)
	}
	r = buildCase(t, casefile.Write(t, casefile.Verdicts("incumbent", nil), casefile.Verdicts("candidate", nil), gates))
	if r.Decision.Blocks || r.Decision.StrictFails() || len(r.Decision.Backlog) != 0 {
		t.Errorf("clean: %+v", r.Decision)
	}
}
