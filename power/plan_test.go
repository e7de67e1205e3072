package power

import (
	"math"
	"testing"
)

// TestPlanSourceNumbers reproduces the seed's arithmetic for a success
// rate of 0.83 over 200 conversations with three catastrophic failures:
// a standard error of 0.027, a 95% interval of roughly 0.78 to 0.88,
// three failures being 1.5 points against 2.7 points of one standard
// error (0.56 standard errors, so the aggregate cannot resolve them), and
// four times the conversations to halve the uncertainty. The finer
// values are R's (reference.R, "the seed's plan").
func TestPlanSourceNumbers(t *testing.T) {
	p, err := Plan(0.83, 200, 3, 0.05, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	const src = "the seed text and reference.R"
	check(t, "standard error (0.027 in the text)", p.StandardError, 0.027, 0.0005, src)
	check(t, "standard error", p.StandardError, 0.026561249970586849, 1e-15, src)
	if p.Interval.Method != "wald" {
		t.Errorf("interval method %q, want wald (the text's arithmetic)", p.Interval.Method)
	}
	check(t, "interval lower (0.78)", p.Interval.Lower, 0.78, 0.005, src)
	check(t, "interval upper (0.88)", p.Interval.Upper, 0.88, 0.005, src)
	check(t, "interval lower", p.Interval.Lower, 0.77794090667328419, 1e-12, src)
	check(t, "interval upper", p.Interval.Upper, 0.88205909332671573, 1e-12, src)
	if p.HalveUncertaintyConversations != 800 {
		t.Errorf("halving takes %d conversations, want 800", p.HalveUncertaintyConversations)
	}
	check(t, "four times the conversations halve the standard error",
		math.Sqrt(0.83*0.17/float64(p.HalveUncertaintyConversations))/p.StandardError, 0.5, 1e-15, src)

	c := p.Catastrophic
	if c == nil {
		t.Fatal("no catastrophic check")
	}
	check(t, "drop (1.5 points)", c.Drop, 0.015, 1e-15, src)
	if !(c.Drop < p.StandardError) {
		t.Errorf("drop %v is not below one standard error %v", c.Drop, p.StandardError)
	}
	check(t, "drop in standard errors (0.56)", c.InStandardErrors, 0.56, 0.005, src)
	check(t, "power to see the drop", c.Power, 0.05847678601624131, refTol, "R power.prop.test(n=200, p1=0.83, p2=0.815)$power")
	if c.Resolvable {
		t.Error("three failures in 200 reported resolvable; the seed says the aggregate cannot resolve them")
	}
	if c.ConversationsNeeded.Independent != 10185 {
		t.Errorf("independent needs %d per run, want 10185 (R power.prop.test n = 10184.49)", c.ConversationsNeeded.Independent)
	}
	if c.ConversationsNeeded.Paired != 521 {
		t.Errorf("paired needs %d, want 521 (Connor n = 520.89 in reference.R)", c.ConversationsNeeded.Paired)
	}
	check(t, "independent MDE", p.MinimumDetectable.Independent.Effect, 0.83-0.71268915458469739, 1e-9, "R power.prop.test(n=200, p2=0.83, power=0.8)$p1")
	check(t, "paired MDE", p.MinimumDetectable.Paired.Effect, 0.038783996659100664, 1e-10, "reference.R uniroot")
	if len(p.Warnings) != 0 {
		t.Errorf("unexpected warnings %q", p.Warnings)
	}
}

// TestPlanEdges: a rate of 1 has no standard error, so the drop in
// standard errors is undefined; no catastrophic count gives no check; a
// rare rate warns about the Wald interval.
func TestPlanEdges(t *testing.T) {
	p, err := Plan(1, 50, 50, 0.05, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if p.StandardError != 0 || p.Catastrophic.InStandardErrorsDefined || !p.Catastrophic.Resolvable {
		t.Errorf("rate 1, all 50 failing: %+v %+v", p, *p.Catastrophic)
	}
	if p.Interval.Lower != 1 || p.Interval.Upper != 1 {
		t.Errorf("rate 1: interval %+v", p.Interval)
	}
	p, err = Plan(0.83, 200, 0, 0.05, 0.8)
	if err != nil || p.Catastrophic != nil {
		t.Errorf("no catastrophic failures: %+v, %v", p.Catastrophic, err)
	}
	p, err = Plan(0.02, 100, 1, 0.05, 0.8)
	if err != nil || len(p.Warnings) == 0 {
		t.Errorf("rate 0.02 over 100: warnings %q, %v", p.Warnings, err)
	}
}
