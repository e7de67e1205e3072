package stats

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestPPIStratifiedJeffreys pins the Jeffreys-adjusted stratified
// interval to hand arithmetic. Strata of 60 items the judge called
// retained (10 reviewed, all retained) and 20 it called not retained (8
// reviewed, 2 retained); W = 0.75, 0.25:
//
//	θ̂  = 0.75·1 + 0.25·0.25 = 0.8125
//	p̃₁ = 10.5/11, p̃₂ = 2.5/9
//	SE² = 0.75²·p̃₁(1−p̃₁)/10 + 0.25²·p̃₂(1−p̃₂)/8
//	    + (0.75·(1−0.8125)² + 0.25·(0.25−0.8125)²)/80
//	SE = 0.07298137488029337, interval 0.669459133692409 to 0.955540866307591
//
// (computed in Python from these formulas). The plain stratified
// interval has the first stratum's variance 0 and is narrower.
func TestPPIStratifiedJeffreys(t *testing.T) {
	strata := []PPIStratum{
		{Judged: 60, JudgeRetained: 60, Labelled: samples(10, 0, 0, 0)},
		{Judged: 20, JudgeRetained: 0, Labelled: samples(0, 0, 2, 6)},
	}
	r, err := PPIStratifiedJeffreys(strata, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Estimate-0.8125) > 1e-12 || math.Abs(r.StandardError-0.07298137488029337) > 1e-12 {
		t.Errorf("estimate %.15g SE %.15g, want 0.8125 and 0.0729813748802934", r.Estimate, r.StandardError)
	}
	if math.Abs(r.Interval.Lower-0.669459133692409) > 1e-9 || math.Abs(r.Interval.Upper-0.955540866307591) > 1e-9 || r.Interval.Method != "ppi-jeffreys" {
		t.Errorf("interval %+v", r.Interval)
	}
	if r.N != 80 || r.Labelled != 18 || r.JudgeShare != 0.75 || len(r.Strata) != 2 {
		t.Errorf("N %d labelled %d judge share %v strata %d", r.N, r.Labelled, r.JudgeShare, len(r.Strata))
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "estimated as 0") {
			t.Errorf("warning %q survives the adjustment", w)
		}
	}
	plain, err := PPIStratified(strata, 0.95, false)
	if err != nil {
		t.Fatal(err)
	}
	if !(plain.StandardError < r.StandardError) {
		t.Errorf("plain SE %v not below the adjusted %v", plain.StandardError, r.StandardError)
	}
	// A stratum where the judge gives both verdicts is refused.
	_, err = PPIStratifiedJeffreys([]PPIStratum{{Judged: 10, JudgeRetained: 5, Labelled: samples(2, 1, 1, 2)}}, 0.95)
	if !errors.Is(err, ErrInput) {
		t.Errorf("mixed stratum: err %v, want ErrInput", err)
	}
}
