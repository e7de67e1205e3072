package rule

import (
	"errors"
	"math"
	"testing"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

func one(name string, lost, gained, pairs int) ClassData {
	return ClassData{Name: name, Clusters: []power.ClusterCounts{{N: pairs, Lost: lost, Gained: gained}}}
}

// TestDecideHolm pins the McNemar rule's step-down to Holm (1979) on
// one-sided exact p-values computed in R:
//
//	pbinom(7, 8, .5, lower.tail=FALSE)   # 8 lost, 0 gained: 0.00390625
//	pbinom(6, 7, .5, lower.tail=FALSE)   # 7 lost, 0 gained: 0.0078125
//	pbinom(9, 13, .5, lower.tail=FALSE)  # 10 lost, 3 gained: 0.04614258
//	pbinom(2, 6, .5, lower.tail=FALSE)   # 3 lost, 3 gained: 0.65625
//
// At α = 0.05 over 4 classes the levels are 0.0125, 0.01667, 0.025 and
// 0.05: the first two are rejected and the step-down stops at 0.0461.
func TestDecideHolm(t *testing.T) {
	r := Rule{Kind: McNemar, Alpha: 0.05}
	out, err := r.Decide([]ClassData{one("a", 10, 3, 50), one("b", 8, 0, 50), one("c", 3, 3, 50), one("d", 7, 0, 50), one("e", 0, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		p, level float64
		blocks   bool
	}{{0.04614258, 0.025, false}, {0.00390625, 0.0125, true}, {0.65625, 0.05, false}, {0.0078125, 0.05 / 3, true}, {math.NaN(), 0, false}}
	for i, w := range want {
		o := out[i]
		if o.Blocks != w.blocks || math.Abs(o.Level-w.level) > 1e-12 || !(math.Abs(o.P-w.p) < 5e-9 || math.IsNaN(w.p) && o.Pairs == 0) {
			t.Errorf("class %s: p %.8f level %.5f blocks %v; want p %.8f level %.5f blocks %v", o.Name, o.P, o.Level, o.Blocks, w.p, w.level, w.blocks)
		}
	}
	if out[4].Tested {
		t.Error("a class with no pairs is not tested")
	}
	// Without the two small p-values nothing is rejected: 0.0461 > 0.05/2.
	out, _ = r.Decide([]ClassData{one("a", 10, 3, 50), one("c", 3, 3, 50)})
	if out[0].Blocks || out[1].Blocks {
		t.Errorf("want no class blocked, got %+v", out)
	}
}

// TestDecideHolmStopped: a class whose p is below its own Holm level but
// does not block, because the step-down stopped at a smaller p, says so.
// pbinom(5, 6, .5, lower.tail=FALSE) = 0.015625 for 6 lost, 0 gained;
// over 4 classes the smallest p, 0.015625, fails 0.05/4 = 0.0125, so
// testing stops, and the second, 0.015625 ≤ 0.05/3 = 0.01667, is not
// reached (a statistician's trial read it as a contradiction).
func TestDecideHolmStopped(t *testing.T) {
	r := Rule{Kind: McNemar, Alpha: 0.05}
	out, err := r.Decide([]ClassData{one("a", 6, 0, 40), one("b", 6, 0, 40), one("c", 3, 3, 40), one("d", 2, 2, 40)})
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for _, o := range out {
		if o.Blocks {
			t.Errorf("class %s blocks", o.Name)
		}
		if o.HolmStopped {
			stopped++
			if math.Abs(o.Level-0.05/3) > 1e-12 || math.Abs(o.P-0.015625) > 1e-9 {
				t.Errorf("class %s: stopped at p %.6f level %.5f", o.Name, o.P, o.Level)
			}
		}
	}
	if stopped != 1 {
		t.Errorf("%d classes marked stopped, want 1: %+v", stopped, out)
	}
}

// TestDecideRules checks the count and non-inferiority decisions on
// values worked by hand and against Tango's example.
func TestDecideRules(t *testing.T) {
	count := Rule{Kind: Count, Tolerance: 1}
	out, err := count.Decide([]ClassData{one("a", 5, 3, 20), one("b", 4, 3, 20)})
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].Blocks || out[1].Blocks {
		t.Errorf("count, tolerance 1: net 2 blocks, net 1 does not; got %v, %v", out[0].Blocks, out[1].Blocks)
	}
	// Tango (1998) example, 43 both retained, 1 lost, 0 gained: Z(0.1) =
	// 1.708564, one-sided p 0.043766 < 0.05: non-inferiority shown at
	// margin 0.1; at α = 0.025 it is not, and the class blocks.
	ni := Rule{Kind: NonInferiority, Alpha: 0.05, Margin: 0.1}
	out, _ = ni.Decide([]ClassData{one("a", 1, 0, 44)})
	if out[0].Blocks || math.Abs(out[0].Z-1.708564) > 5e-7 {
		t.Errorf("NI at 0.05: blocks %v Z %.6f; want a pass with Z 1.708564", out[0].Blocks, out[0].Z)
	}
	ni.Alpha = 0.025
	out, _ = ni.Decide([]ClassData{one("a", 1, 0, 44)})
	if !out[0].Blocks {
		t.Error("NI at 0.025: p 0.0438 does not show non-inferiority; want a block")
	}
	if _, err := count.Decide([]ClassData{one("a", 5, 3, 7)}); !errors.Is(err, stats.ErrInput) {
		t.Errorf("8 discordant of 7 pairs: err %v, want an input error", err)
	}
}

// TestValidate covers the fields that belong to another rule.
func TestValidate(t *testing.T) {
	for _, r := range []Rule{
		{Kind: "median"},
		{Kind: Count, Alpha: 0.05},
		{Kind: Count, Tolerance: -1},
		{Kind: McNemar, Tolerance: 1},
		{Kind: McNemar, Alpha: 0.7},
		{Kind: McNemar, Margin: 0.1},
		{Kind: McNemar, MidP: true, Clustered: true},
		{Kind: NonInferiority, Margin: 1.2},
		{Kind: NonInferiority, MidP: true},
	} {
		if err := r.Validate(); !errors.Is(err, stats.ErrInput) {
			t.Errorf("%+v: err %v, want an input error", r, err)
		}
	}
	for _, r := range []Rule{Default, {Kind: Count}, {Kind: NonInferiority, Clustered: true}, {Kind: McNemar, MidP: true}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}
