package calibration

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
	"github.com/tally-eval/tally/stats"
)

// stratumPlan is the plan's stratum of class cl, system sys and the
// judge's verdict v.
func stratumPlan(t *testing.T, p Plan, cl fixture.Class, sys string, v fixture.Verdict) StratumPlan {
	t.Helper()
	for _, s := range p.Strata {
		if s.Class == cl && s.System == sys && s.Judge == v {
			return s
		}
	}
	t.Fatalf("no stratum %s, %s, %s in %+v", cl, sys, v, p.Strata)
	return StratumPlan{}
}

// classPlan is the plan's class cl of system sys.
func classPlan(t *testing.T, p Plan, cl fixture.Class, sys string) ClassPlan {
	t.Helper()
	for _, c := range p.Classes {
		if c.Class == cl && c.System == sys {
			return c
		}
	}
	t.Fatalf("no class %s, %s in %+v", cl, sys, p.Classes)
	return ClassPlan{}
}

var defaultOpts = PlanOptions{HalfWidth: 0.08, Confidence: 0.95, Agreement: DefaultAgreement, Seed: 1}

// neymanObs is the class of TestPlanNeyman: 250 items, 50 verbatim, 150
// supported, 46 absent, 4 contradicted, with the reviews made so far:
// sup of the supported, abs of the absent, con of the contradicted
// (each reviewer agreeing with the judge).
func neymanObs(sup0, abs0, con0 int) []Observation {
	var b obsBuilder
	const cl = fixture.Constraint
	b.add(50, cl, "s", vb, "", "")
	b.add(sup0, cl, "s", sup, sup, reviews.SampleRandom)
	b.add(150-sup0, cl, "s", sup, "", "")
	b.add(abs0, cl, "s", abs, abs, reviews.SampleRandom)
	b.add(46-abs0, cl, "s", abs, "", "")
	b.add(con0, cl, "s", con, con, reviews.SampleCensus)
	b.add(4-con0, cl, "s", con, "", "")
	b.add(30, cl, "other", abs, "", "") // not planned
	return b.obs
}

// TestPlanNeyman checks the sizes against Neyman allocation worked by
// hand (Cochran 1977, section 5.9) for neymanObs at half-width 0.08, 95%,
// planning agreement 0.9:
//
//	items 250, judged N = 200; W = 150/200, 46/200, 4/200 = 0.75, 0.23, 0.02
//	S_h = √(0.9·0.1) = 0.3 in every stratum, so Σ W_h S_h = 0.3
//	θ_h = 0.9 (supported), 0.1 (absent), 0.1 (contradicted)
//	θ̄ = 0.75·0.9 + 0.25·0.1 = 0.7
//	between = Σ W_h(θ_h − θ̄)²/N = (0.75·0.2² + 0.25·0.6²)/200 = 0.0006
//	verbatim term (V/I)(J/I)(1 − θ̄)²/I = 0.2·0.8·0.09/250 = 0.0000576
//	V = ((0.08/z)² − 0.0000576)·(250/200)² − between = 0.0019132, z = 1.959964
//	n = (Σ W_h S_h)²/V = 0.09/0.0019132 = 47.04
//	n_supported = ⌈47.04·0.75⌉ = 36, n_absent = ⌈47.04·0.23⌉ = 11, contradicted 4
//
// The half-width expected of these, each stratum's variance at the
// Jeffreys-adjusted share (θ_h·n_h + ½)/(n_h + 1):
//
//	z·√((Σ W_h²·p̃_h(1 − p̃_h)/n_h + between)·(200/250)² + 0.0000576) = 0.08297
//
// exceeds 0.08, so the plan tightens V by 0.9: n = 52.27, n_supported =
// ⌈39.20⌉ = 40, n_absent = ⌈12.02⌉ = 13, and the half-width is 0.078941
// (p̃ = 36.5/41, 1.8/14, 0.9/5), within the target. (Computed in Python
// from these formulas.)
func TestPlanNeyman(t *testing.T) {
	p, err := NewPlan(neymanObs(0, 0, 0), []string{"s"}, defaultOpts)
	if err != nil {
		t.Fatal(err)
	}
	cp := classPlan(t, p, fixture.Constraint, "s")
	z := stats.Z(0.95)
	between := 0.12 / 200
	jv := func(theta, n float64) float64 { p := (theta*n + 0.5) / (n + 1); return p * (1 - p) / n }
	wantHW := z * math.Sqrt((0.5625*jv(0.9, 40)+0.0529*jv(0.1, 13)+0.0004*jv(0.1, 4)+between)*0.64+0.2*0.8*0.09/250)
	if cp.Items != 250 || cp.Judged != 200 || !cp.Reachable || cp.Reason != "" || math.Abs(cp.HalfWidth-wantHW) > 1e-12 {
		t.Errorf("class %+v, want 250 items, 200 judged, reachable, half-width %v", cp, wantHW)
	}
	if cp.HalfWidth > 0.08 {
		t.Errorf("half-width %v exceeds the target 0.08", cp.HalfWidth)
	}
	want := []StratumPlan{
		{Judge: sup, Judged: 150, Want: 40, Drawn: 40, Sample: reviews.SampleRandom},
		{Judge: abs, Judged: 46, Want: 13, Drawn: 13, Sample: reviews.SampleRandom},
		{Judge: con, Judged: 4, Want: 4, Drawn: 4, Sample: reviews.SampleCensus},
	}
	if len(p.Strata) != 3 {
		t.Fatalf("strata %+v", p.Strata)
	}
	for i, w := range want {
		w.Class, w.System, w.Agreement = fixture.Constraint, "s", 0.9
		if p.Strata[i] != w {
			t.Errorf("stratum %d: %+v, want %+v", i, p.Strata[i], w)
		}
	}
	// The picks: 57 distinct items, each from its stratum, in stratum
	// order, the contradictions marked as the census.
	if len(p.Picks) != 57 {
		t.Fatalf("%d picks, want 40 + 13 + 4", len(p.Picks))
	}
	seen := map[reviews.Key]bool{}
	for i, pk := range p.Picks {
		wantJudge, wantSample := sup, reviews.SampleRandom
		switch {
		case i >= 53:
			wantJudge, wantSample = con, reviews.SampleCensus
		case i >= 40:
			wantJudge = abs
		}
		if pk.Judge != wantJudge || pk.Sample != wantSample || pk.Class != fixture.Constraint || pk.Key.System != "s" || seen[pk.Key] {
			t.Errorf("pick %d: %+v (repeated %v), want judge %s, sample %s", i, pk, seen[pk.Key], wantJudge, wantSample)
		}
		seen[pk.Key] = true
	}
	if len(p.Classes) != 1 {
		t.Errorf("classes %+v: the other system is not planned", p.Classes)
	}
}

// TestPlanExisting: reviews already made count towards a stratum's n_h
// and are never drawn again. With 5 supported, 12 absent and 1
// contradicted reviewed (fewer than 20 in each: the planning agreement
// stays 0.9, so the sizes are TestPlanNeyman's 40 and 13): supported
// Want 40, Drawn 40 − 5 = 35; absent Want 13, Drawn 1; contradicted Want
// 4, Drawn 3.
func TestPlanExisting(t *testing.T) {
	obs := neymanObs(5, 12, 1)
	p, err := NewPlan(obs, []string{"s"}, defaultOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		v                             fixture.Verdict
		reviewed, want, drawn, judged int
	}{{sup, 5, 40, 35, 150}, {abs, 12, 13, 1, 46}, {con, 1, 4, 3, 4}} {
		s := stratumPlan(t, p, fixture.Constraint, "s", w.v)
		if s.Reviewed != w.reviewed || s.Want != w.want || s.Drawn != w.drawn || s.Judged != w.judged || s.Measured {
			t.Errorf("%s: %+v, want reviewed %d, want %d, drawn %d of %d", w.v, s, w.reviewed, w.want, w.drawn, w.judged)
		}
	}
	reviewed := map[reviews.Key]bool{}
	for _, o := range obs {
		if o.Reviewed != "" {
			reviewed[o.Key] = true
		}
	}
	if len(p.Picks) != 39 {
		t.Errorf("%d picks, want 35 + 1 + 3", len(p.Picks))
	}
	for _, pk := range p.Picks {
		if reviewed[pk.Key] {
			t.Errorf("pick %+v was reviewed already", pk)
		}
	}
}

// TestPlanFloorCapMeasured: the MinPerStratum floor, the cap at the
// stratum's size, and the agreement measured from 20 or more reviews.
func TestPlanFloorCapMeasured(t *testing.T) {
	opts := PlanOptions{HalfWidth: 0.1, Confidence: 0.95, Agreement: 0.9, Seed: 7}
	// Floor: 300 supported, 30 absent, half-width 0.1. W = 10/11, 1/11;
	// θ̄ = (300·0.9 + 30·0.1)/330 = 0.82727; between = [W_s·0.07273² +
	// W_a·0.72727²]/330 = 0.00016; V = 0.01/z² − between = 0.0024429;
	// n = 0.09/V = 36.84; n_absent = ⌈36.84/11⌉ = 4, raised to 10;
	// n_supported = ⌈36.84·10/11⌉ = ⌈33.49⌉ = 34. At the Jeffreys-adjusted
	// shares (30.6 + ½)/35 and (1 + ½)/11 these give a half-width of
	// 0.1012, over 0.1, so V is tightened by 0.9: n = 40.94,
	// n_supported = ⌈37.22⌉ = 38 (half-width 0.0958); n_absent stays 10.
	var b obsBuilder
	b.add(300, fixture.Commitment, "s", sup, "", "")
	b.add(30, fixture.Commitment, "s", abs, "", "")
	// All of a stratum smaller than the floor: 6 absent beside 300
	// supported.
	b.add(300, fixture.OpenQuestion, "s", sup, "", "")
	b.add(6, fixture.OpenQuestion, "s", abs, "", "")
	// Measured agreement and the cap: 300 supported; 30 absent of which
	// 22 reviewed, 11 agreeing. The absent stratum's agreement is
	// measured, (11 + 1)/(22 + 2) = 0.5, S = 0.5. At half-width 0.04:
	// W = 10/11, 1/11; Σ W_h S_h = 0.27273 + 0.04545 = 0.31818;
	// θ̄ = 10/11·0.9 + 1/11·0.5 = 0.86364; between = [10/11·0.03636² +
	// 1/11·0.36364²]/330 = 0.0000401; V = 0.0016/z² − 0.0000401 =
	// 0.00037644; n = 0.31818²/V = 268.9; n_absent = ⌈268.9·0.04545/0.31818⌉
	// = ⌈38.4⌉ = 39, capped at the stratum's 30: Want 30, Drawn 30 − 22 = 8.
	b.add(300, fixture.Reference, "s", sup, "", "")
	b.add(11, fixture.Reference, "s", abs, abs, reviews.SampleRandom)
	b.add(11, fixture.Reference, "s", abs, sup, reviews.SampleRandom)
	b.add(8, fixture.Reference, "s", abs, "", "")
	p, err := NewPlan(b.obs, []string{"s"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := stratumPlan(t, p, fixture.Commitment, "s", abs); s.Want != MinPerStratum || s.Drawn != MinPerStratum {
		t.Errorf("floor: %+v, want %d", s, MinPerStratum)
	}
	if s := stratumPlan(t, p, fixture.Commitment, "s", sup); s.Want != 38 {
		t.Errorf("floor: supported %+v, want 38", s)
	}
	if s := stratumPlan(t, p, fixture.OpenQuestion, "s", abs); s.Want != 6 || s.Drawn != 6 {
		t.Errorf("small stratum: %+v, want all 6", s)
	}
	opts.HalfWidth = 0.04
	p, err = NewPlan(b.obs, []string{"s"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := stratumPlan(t, p, fixture.Reference, "s", abs)
	if !s.Measured || s.Agreement != 0.5 || s.Want != 30 || s.Drawn != 8 || s.Reviewed != 22 {
		t.Errorf("cap: %+v, want measured agreement 0.5, want 30, drawn 8", s)
	}
	if s := stratumPlan(t, p, fixture.Reference, "s", sup); s.Measured || s.Agreement != 0.9 {
		t.Errorf("unmeasured: %+v", s)
	}
}

// TestPlanReachableMeetsTarget: a class the plan calls reachable must
// expect a half-width within the target (ClassPlan's doc: Reachable is
// false only when the target cannot be met even reviewing every judged
// item). Two cases where Neyman's n_h exceeds a stratum's size:
//
//   - every stratum capped: 60 supported, 20 absent, half-width 0.1.
//     W = 0.75, 0.25; θ̄ = 0.7; between = 0.12/80 = 0.0015; V = 0.01/z² −
//     0.0015 = 0.0011032; n = 0.09/V = 81.6 > 80 items: everything is
//     reviewed, and the half-width with every item reviewed is
//     z·√(0.5625·0.09/60 + 0.0625·0.09/20 + 0.0015) = z·√0.002625 =
//     0.1004 > 0.1. The target cannot be met: Reachable must be false.
//   - one stratum capped (TestPlanFloorCapMeasured's Reference class at
//     0.04): absent capped at 30 of its Neyman 39, supported left at
//     ⌈268.9·0.27273/0.31818⌉ = 231; expected variance
//     0.82645·0.09/231 + 0.0082645·0.25/30 + 0.0000401 = 0.00043093 >
//     0.0016/z² = 0.00041651, a half-width of 0.0407. Reviewing every
//     supported item would give 0.82645·0.09/300 + 0.0000689 + 0.0000401
//     = 0.000357 < 0.00041651: the target is reachable, by giving the
//     capped stratum's surplus to the supported stratum (the usual remedy
//     when optimum allocation gives n_h > N_h, Cochran 1977, chapter 5:
//     set n_h = N_h and reallocate among the other strata).
func TestPlanReachableMeetsTarget(t *testing.T) {
	var b obsBuilder
	b.add(60, fixture.Constraint, "s", sup, "", "")
	b.add(20, fixture.Constraint, "s", abs, "", "")
	b.add(300, fixture.Reference, "s", sup, "", "")
	b.add(11, fixture.Reference, "s", abs, abs, reviews.SampleRandom)
	b.add(11, fixture.Reference, "s", abs, sup, reviews.SampleRandom)
	b.add(8, fixture.Reference, "s", abs, "", "")
	for _, c := range []struct {
		cl        fixture.Class
		hw        float64
		reachable bool
	}{{fixture.Constraint, 0.1, false}, {fixture.Reference, 0.04, true}} {
		p, err := NewPlan(b.obs, []string{"s"}, PlanOptions{HalfWidth: c.hw, Confidence: 0.95, Agreement: 0.9, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		cp := classPlan(t, p, c.cl, "s")
		if cp.Reachable != c.reachable || (cp.Reachable && cp.HalfWidth > c.hw) {
			t.Errorf("%s at %v: reachable %v with expected half-width %.4f (%s); want reachable %v and, if so, a half-width within the target",
				c.cl, c.hw, cp.Reachable, cp.HalfWidth, cp.Reason, c.reachable)
		}
	}
}

// TestPlanUnreachable: where the variance of the strata's shares alone
// exceeds the target, every judged item is wanted and the class is not
// reachable. 30 supported, 30 absent, half-width 0.05: θ̄ = 0.5,
// between = (0.5·0.4² + 0.5·0.4²)/60 = 0.0026667 > 0.0025/z² = 0.00065.
// A class with an error verdict is planned but not reachable; a class of
// verbatim items only has nothing to review.
func TestPlanUnreachable(t *testing.T) {
	var b obsBuilder
	b.add(30, fixture.Constraint, "s", sup, "", "")
	b.add(30, fixture.Constraint, "s", abs, "", "")
	b.add(100, fixture.Commitment, "s", sup, "", "")
	b.add(20, fixture.Commitment, "s", abs, "", "")
	b.add(1, fixture.Commitment, "s", bad, "", "")
	b.add(5, fixture.OpenQuestion, "s", vb, "", "")
	p, err := NewPlan(b.obs, []string{"s"}, PlanOptions{HalfWidth: 0.05, Confidence: 0.95, Agreement: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	cp := classPlan(t, p, fixture.Constraint, "s")
	if cp.Reachable || !strings.Contains(cp.Reason, "sampling error alone exceeds the target") {
		t.Errorf("unreachable: %+v", cp)
	}
	for _, v := range []fixture.Verdict{sup, abs} {
		if s := stratumPlan(t, p, fixture.Constraint, "s", v); s.Want != 30 || s.Drawn != 30 {
			t.Errorf("unreachable %s: %+v, want all 30", v, s)
		}
	}
	cp = classPlan(t, p, fixture.Commitment, "s")
	if cp.Reachable || cp.Reason != "1 error verdict: re-run tally check first; the share is not known" || cp.Items != 121 || cp.Judged != 120 {
		t.Errorf("error verdict: %+v", cp)
	}
	if s := stratumPlan(t, p, fixture.Commitment, "s", sup); s.Want == 0 {
		t.Errorf("error verdict: still planned, got %+v", s)
	}
	cp = classPlan(t, p, fixture.OpenQuestion, "s")
	if cp.Judged != 0 || cp.Reason != "every item verbatim: nothing to review" {
		t.Errorf("verbatim only: %+v", cp)
	}
	for _, s := range p.Strata {
		if s.Class == fixture.OpenQuestion {
			t.Errorf("verbatim only: stratum %+v", s)
		}
	}
}

// keys is the picks' keys in order.
func keys(p Plan) []reviews.Key {
	var k []reviews.Key
	for _, pk := range p.Picks {
		k = append(k, pk.Key)
	}
	return k
}

// TestPlanDeterministic: the same seed and observations give the same
// picks, whatever the observations' order; another seed gives others.
func TestPlanDeterministic(t *testing.T) {
	obs := neymanObs(0, 0, 0)
	a, err := NewPlan(obs, []string{"s"}, defaultOpts)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(obs)
	slices.Reverse(rev)
	b, err := NewPlan(rev, []string{"s"}, defaultOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys(a), keys(b)) {
		t.Error("same seed, observations reversed: different picks")
	}
	other := defaultOpts
	other.Seed = 2
	c, err := NewPlan(obs, []string{"s"}, other)
	if err != nil {
		t.Fatal(err)
	}
	// 40 of 150 supported items: two seeds agreeing by chance on every
	// pick in order has probability 150!/110! ⁻¹, nil.
	if slices.Equal(keys(a)[:40], keys(c)[:40]) {
		t.Error("seeds 1 and 2 drew the same supported items")
	}
	// The census is the same whatever the seed, as a set.
	ca, cc := slices.Clone(keys(a)[53:]), slices.Clone(keys(c)[53:])
	slices.SortFunc(ca, compareKeys)
	slices.SortFunc(cc, compareKeys)
	if !slices.Equal(ca, cc) {
		t.Errorf("census %v and %v differ", ca, cc)
	}
}

// TestPlanBadOptions: options out of range are errors.
func TestPlanBadOptions(t *testing.T) {
	obs := neymanObs(0, 0, 0)
	for _, o := range []PlanOptions{
		{HalfWidth: 0, Confidence: 0.95, Agreement: 0.9},
		{HalfWidth: 1, Confidence: 0.95, Agreement: 0.9},
		{HalfWidth: math.NaN(), Confidence: 0.95, Agreement: 0.9},
		{HalfWidth: 0.1, Confidence: 0.95, Agreement: 0},
		{HalfWidth: 0.1, Confidence: 0.95, Agreement: 1},
		{HalfWidth: 0.1, Confidence: 0.95, Agreement: math.NaN()},
		{HalfWidth: 0.1, Confidence: 0, Agreement: 0.9},
		{HalfWidth: 0.1, Confidence: 1, Agreement: 0.9},
	} {
		if _, err := NewPlan(obs, []string{"s"}, o); err == nil || !strings.HasPrefix(err.Error(), "review queue: ") {
			t.Errorf("%+v: err %v, want a review-queue error", o, err)
		}
	}
}
