package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/rule"
)

// TestDecisionWording pins the decision's words, the ones every output
// gives it.
func TestDecisionWording(t *testing.T) {
	for _, c := range []struct {
		name, reason string
		d            Decision
		verdict      string
		headline     string
		worse        string
		undecided    string
		backlog      string
		count        string
	}{
		{"blocks, worse", "the example: two rows worse, five gates backlog",
			Decision{Blocks: true, Worse: []string{"open_question", "contradictions"},
				Backlog: []string{"constraint", "commitment", "open_question", "reference", "contradictions"}},
			"blocks", "blocks — rows that got worse under the candidate: open_question, contradictions",
			"rows that got worse under the candidate: open_question, contradictions", "",
			"backlog, unmet by both systems (a standard not yet met, not a merge decision): constraint, commitment, open_question, reference, contradictions",
			"backlog (unmet by both systems): 5 gates"},
		{"blocks, worse and undecided", "judge errors leave a row undecided beside a worse one",
			Decision{Blocks: true, Worse: []string{"constraint"}, Undecided: []string{"reference"}, JudgeErrors: 3},
			"blocks", "blocks — rows that got worse under the candidate: constraint; undecided (judge errors; re-run tally check): reference",
			"rows that got worse under the candidate: constraint", "undecided (judge errors; re-run tally check): reference", "", ""},
		{"blocks, undecided only", "no row worse, but judge errors block",
			Decision{Blocks: true, Undecided: []string{"constraint", "contradictions"}, JudgeErrors: 13},
			"blocks", "blocks — undecided (judge errors; re-run tally check): constraint, contradictions",
			"", "undecided (judge errors; re-run tally check): constraint, contradictions", "", ""},
		{"blocks, unpaired", "items checked by one system only",
			Decision{Blocks: true, Undecided: []string{"commitment"}, Unpaired: 2},
			"blocks", "blocks — undecided (items checked by one system only): commitment",
			"", "undecided (items checked by one system only): commitment", "", ""},
		{"blocks, unpaired and errors", "both reasons named",
			Decision{Blocks: true, Undecided: []string{"commitment"}, Unpaired: 2, JudgeErrors: 1},
			"blocks", "blocks — undecided (items checked by one system only, and judge errors): commitment",
			"", "undecided (items checked by one system only, and judge errors): commitment", "", ""},
		{"does not block", "no row worse, no backlog", Decision{},
			"does not block", "does not block — no row got worse under the candidate", "", "", "", ""},
		{"does not block, blind", "a gate that would miss a drop of interest says so on the verdict line",
			Decision{Blind: &BlindSpot{Drop: 0.10, Classes: []string{"constraint", "reference"}, Power: []float64{0, 0.612}}},
			"does not block", "does not block — no row got worse under the candidate; but this gate blocks a 10-point drop in one class's retention with probability 0.0% (constraint), 61.2% (reference)", "", "", "", ""},
		{"blocks, blind", "a block is no blind spot", Decision{Blocks: true, Worse: []string{"constraint"}, Blind: &BlindSpot{Drop: 0.10, Classes: []string{"constraint"}, Power: []float64{0}}},
			"blocks", "blocks — rows that got worse under the candidate: constraint", "rows that got worse under the candidate: constraint", "", "", ""},
		{"does not block, a gate given up", "a gate the incumbent meets and the candidate does not is said on the verdict line, before a blind spot (a stakeholder's trial: 16 lost, 0 gained over 3 conversations passed in silence)",
			Decision{CandidateUnmet: []string{"constraint", "commitment"}, Backlog: []string{"constraint"}, NewlyUnmet: []string{"commitment"},
				Blind: &BlindSpot{Drop: 0.10, Classes: []string{"constraint"}, Power: []float64{0}}},
			"does not block", "does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: commitment; and this gate blocks a 10-point drop in one class's retention with probability 0.0% (constraint)", "", "",
			"backlog, unmet by both systems (a standard not yet met, not a merge decision): constraint",
			"backlog (unmet by both systems): 1 gate"},
		{"does not block, backlog", "a gate unmet by both is backlog, not a block",
			Decision{Backlog: []string{"reference"}, CandidateUnmet: []string{"reference"}},
			"does not block", "does not block — no row got worse under the candidate", "", "",
			"backlog, unmet by both systems (a standard not yet met, not a merge decision): reference",
			"backlog (unmet by both systems): 1 gate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range []struct{ what, got, want string }{
				{"Verdict()", c.d.Verdict(), c.verdict},
				{"Headline()", c.d.Headline(), c.headline},
				{"WorseText()", c.d.WorseText(), c.worse},
				{"UndecidedText()", c.d.UndecidedText(), c.undecided},
				{"BacklogText()", c.d.BacklogText(), c.backlog},
				{"BacklogCount()", c.d.BacklogCount(), c.count},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q (%s)", f.what, f.got, f.want, c.reason)
				}
			}
		})
	}
}

// TestHeadlineWith: a renderer's markup around the row names leaves the
// words the model's, and the words between the names hold no markup
// character.
func TestHeadlineWith(t *testing.T) {
	d := Decision{Blocks: true, Worse: []string{"open_question"}, Undecided: []string{"reference"}, Unpaired: 1, JudgeErrors: 1,
		Backlog: []string{"constraint"}}
	em := func(s string) string { return "<em>" + s + "</em>" }
	got := d.HeadlineWith(em)
	want := "blocks — rows that got worse under the candidate: <em>open_question</em>; undecided (items checked by one system only, and judge errors): <em>reference</em>"
	if got != want {
		t.Errorf("HeadlineWith(em) = %q, want %q", got, want)
	}
	if d.HeadlineWith(plain) != d.Headline() {
		t.Error("HeadlineWith(plain) is not Headline()")
	}
	for _, d := range []Decision{d, {Blocks: true, Undecided: []string{"x"}}, {}} {
		words := d.HeadlineWith(func(string) string { return "" })
		if i := strings.IndexAny(words, "<>&*_`[]\\"); i >= 0 {
			t.Errorf("the headline's words %q hold a markup character at %d", words, i)
		}
	}
}

// TestBlindSpot: the largest drop of interest that some class blocks
// with probability under one half, with every class's probability; none
// when every class sees every drop, or when the rates are unknown.
func TestBlindSpot(t *testing.T) {
	rates := func(power ...[]float64) *ErrorRates {
		er := &ErrorRates{Known: true, Drops: []float64{0.03, 0.10}}
		for i, row := range power {
			er.Classes = append(er.Classes, rule.Class{Name: []string{"constraint", "reference"}[i]})
			var cs []rule.Characteristics
			for _, p := range row {
				c := rule.Characteristics{Block: p, Method: rule.MethodExact}
				if math.IsNaN(p) { // the class cannot lose that much
					c = rule.Characteristics{Block: p}
				}
				cs = append(cs, c)
			}
			er.Power = append(er.Power, cs)
		}
		return er
	}
	for _, c := range []struct {
		name string
		er   *ErrorRates
		want *BlindSpot
	}{
		{"blind to both drops", rates([]float64{0.01, 0.2}, []float64{0.3, 0.9}), &BlindSpot{Drop: 0.10, Classes: []string{"constraint", "reference"}, Power: []float64{0.2, 0.9}}},
		{"blind to the small drop only", rates([]float64{0.4, 0.8}, []float64{0.6, 0.9}), &BlindSpot{Drop: 0.03, Classes: []string{"constraint", "reference"}, Power: []float64{0.4, 0.6}}},
		{"sees both", rates([]float64{0.5, 0.8}, []float64{0.6, 0.9}), nil},
		// A class that cannot lose 10 points has no power for it; the
		// other class's blindness still shows (a new user's trial lost
		// the warning to a commitment class at 0%).
		{"one class cannot drop", rates([]float64{0.6, math.NaN()}, []float64{0.7, 0.2}), &BlindSpot{Drop: 0.10, Classes: []string{"reference"}, Power: []float64{0.2}}},
		{"unknown", &ErrorRates{}, nil},
		{"none", nil, nil},
	} {
		if got := blindSpot(c.er); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestChangeText: a row a test did not find worse has "no significant
// change", not "same" (failing to reject is not evidence of no change),
// or "fewer retained, not significant" when it lost more than it gained;
// the count rule, which tests nothing, keeps "same".
func TestChangeText(t *testing.T) {
	for _, c := range []struct {
		row  ClassRow
		want string
	}{
		// Three conversations, 8 lost and none gained: not shown worse,
		// but not "no change" either (a stakeholder's trial).
		{ClassRow{Change: Same, Rule: rule.Outcome{Tested: true, Level: 0.0167, P: 0.027, Lost: 8}}, "fewer retained, not significant"},
		{ClassRow{Change: Same, Rule: rule.Outcome{Tested: true, Level: 0.0125, P: 0.6, Lost: 7, Gained: 7}}, "no significant change"},
		{ClassRow{Change: Same, Rule: rule.Outcome{Tested: true, Level: 0.05, P: 0.9, Lost: 2, Gained: 5}}, "no significant change"},
		{ClassRow{Change: Same, Rule: rule.Outcome{Tested: true}}, "same"}, // the count rule: no level
		{ClassRow{Change: Same}, "same"}, // no pairs: untested
		{ClassRow{Change: Worse, Rule: rule.Outcome{Tested: true, Level: 0.05}}, "worse"},
		{ClassRow{Change: Better, Rule: rule.Outcome{Tested: true, Level: 0.05}}, "better"},
		{ClassRow{Change: Undecided}, "undecided"},
	} {
		if got := c.row.ChangeText(); got != c.want {
			t.Errorf("%s with rule %+v: %q, want %q", c.row.Change, c.row.Rule, got, c.want)
		}
	}
}
