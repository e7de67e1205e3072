package rule

import (
	"math"
	"testing"
)

// TestPlanNeedMinimal checks the size search on the exact path: the size
// found reaches the target power and one conversation fewer does not;
// and the count rule, whose false-block rate grows with size, is
// reported unreachable where its power needs more items than its
// false-block budget allows.
func TestPlanNeedMinimal(t *testing.T) {
	c := Class{Name: "constraint", Sizes: sizes(t, 80, 40), Baseline: 0.9, Discordance: 0.12}
	res, err := Plan(PlanInput{Rule: Rule{Kind: McNemar}, Classes: []Class{c, {Name: "reference", Sizes: sizes(t, 60, 40), Baseline: 0.95, Discordance: 0.06}}, Drops: []float64{0.05}})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Needed[0][0]
	if !n.Reachable || n.Power < 0.8 {
		t.Fatalf("need %+v: want a reachable size with power ≥ 0.8", n)
	}
	r := Rule{Kind: McNemar}.Normalized()
	less, err := r.classAlone(resized(c, n.Conversations-1), 2, 0.05, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if less >= 0.8 {
		t.Errorf("%d conversations already reach power %.3f; the search gave %d", n.Conversations-1, less, n.Conversations)
	}
	if want := 1 - math.Sqrt(0.95); math.Abs(res.ClassBudget-want) > 1e-12 {
		t.Errorf("class budget %v, want 1 − √0.95 = %v", res.ClassBudget, want)
	}
	if res.FalseBlock.Block > 0.05 {
		t.Errorf("exact McNemar at family-wise 0.05 blocks a harmless change with probability %.4f", res.FalseBlock.Block)
	}
	count, err := Plan(PlanInput{Rule: Rule{Kind: Count, Tolerance: 1}, Classes: []Class{c}, Drops: []float64{0.05}})
	if err != nil {
		t.Fatal(err)
	}
	if nd := count.Needed[0][0]; nd.Reachable || nd.Limit != "false block" {
		t.Errorf("count rule: %+v; want unreachable for its false-block rate", nd)
	}
}

// TestPlanNonInferiority: a drop beyond the margin is caught once the
// class is large enough to show a harmless change non-inferior (the
// false-block rate falls with size); a drop within the margin is what
// the rule lets pass, whatever the size.
func TestPlanNonInferiority(t *testing.T) {
	c := Class{Name: "constraint", Sizes: sizes(t, 200, 100), Baseline: 0.89, Discordance: 0.11}
	res, err := Plan(PlanInput{Rule: Rule{Kind: NonInferiority, Margin: 0.10}, Classes: []Class{c}, Drops: []float64{0.15, 0.08}})
	if err != nil {
		t.Fatal(err)
	}
	beyond, within := res.Needed[0][0], res.Needed[0][1]
	if !beyond.Reachable || beyond.FalseBlock > 0.05 || beyond.Power < 0.8 {
		t.Errorf("15-point drop, margin 10: %+v; want reachable", beyond)
	}
	if within.Reachable || within.Limit != "within margin" {
		t.Errorf("8-point drop, margin 10: %+v; want unreachable, within the margin", within)
	}
	// One conversation fewer shows a harmless change non-inferior too
	// rarely: the size is the fewest.
	r := Rule{Kind: NonInferiority, Margin: 0.10}.Normalized()
	fb, err := r.classAlone(resized(c, beyond.Conversations-1), 1, 0, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fb <= 0.05 {
		t.Errorf("%d conversations already block a harmless change only %.4f of the time; the search gave %d", beyond.Conversations-1, fb, beyond.Conversations)
	}
}
