package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// samples builds a labelled set from its 2×2 cells: a (judge, human) =
// (retained, retained), b (retained, not), c (not, retained), d (not, not).
func samples(a, b, c, d int) []PPISample {
	var s []PPISample
	add := func(k int, j, h bool) {
		for range k {
			s = append(s, PPISample{Judge: j, Human: h})
		}
	}
	add(a, true, true)
	add(b, true, false)
	add(c, false, true)
	add(d, false, false)
	return s
}

// TestPPIMeanReference pins PPIMean to ppi_py's ppi_mean_ci and
// ppi_mean_pointestimate (lam=1 and lam=None) as restated on explicit
// arrays by testdata/refgen/ppi.py with statsmodels' _zconfint_generic.
// Run-only values: ppi_py itself could not be installed here, and no
// published worked example of ppi_py for a binary mean gives numbers a
// test can reproduce without its downloaded data sets.
func TestPPIMeanReference(t *testing.T) {
	cases := []struct {
		name                   string
		a, b, c, d, ku, m      int
		conf                   float64
		tuned                  bool
		est, lower, upper, lam float64
	}{
		{"judge over-retains, n=40 of 500", 24, 6, 3, 7, 330, 460, 0.95, false, 0.6423913043478261, 0.49152351300512181, 0.79325909569053032, 1},
		{"judge over-retains, n=40 of 500", 24, 6, 3, 7, 330, 460, 0.95, true, 0.66107700892857135, 0.53080428564503868, 0.79134973221210403, 0.4269717261904763},
		{"judge under-retains, n=150 of 2000", 100, 5, 20, 25, 1080, 1850, 0.95, false, 0.68378378378378379, 0.61657716076056857, 0.75099040680699902, 1},
		{"judge under-retains, n=150 of 2000", 100, 5, 20, 25, 1080, 1850, 0.95, true, 0.75253166282691797, 0.6991703709164041, 0.80589295473743183, 0.40844848265210187},
		{"90% interval, n=20 of 120", 10, 2, 2, 6, 55, 100, 0.90, false, 0.55000000000000004, 0.36628376612329477, 0.73371623387670537, 1},
		{"90% interval, n=20 of 120", 10, 2, 2, 6, 55, 100, 0.90, true, 0.57654181920585756, 0.42384600081286927, 0.72923763759884586, 0.4691636158828501},
		{"all labelled agree, n=30 of 300", 20, 0, 0, 10, 180, 270, 0.95, false, 0.66666666666666663, 0.61043771947192615, 0.7228956138614071, 1},
		{"all labelled agree, n=30 of 300", 20, 0, 0, 10, 180, 270, 0.95, true, 0.66666666666666663, 0.61332053648957452, 0.72001279684375874, 0.89700000000000013},
		{"uninformative judge, n=60 of 260", 15, 15, 15, 15, 90, 200, 0.95, false, 0.45000000000000001, 0.25825547692378098, 0.6417445230762191, 1},
		{"uninformative judge, n=60 of 260", 15, 15, 15, 15, 90, 200, 0.95, true, 0.5, 0.37348486881183401, 0.62651513118816604, 0},
		{"anti-correlated judge, lambda clipped to 0", 5, 15, 15, 5, 100, 200, 0.95, false, 0.5, 0.22281923513006446, 0.77718076486993559, 1},
		{"anti-correlated judge, lambda clipped to 0", 5, 15, 15, 5, 100, 200, 0.95, true, 0.5, 0.34505124192385961, 0.65494875807614039, 0},
		{"labelled judge split evenly, lambda clipped to 1", 10, 0, 0, 10, 190, 200, 0.95, false, 0.94999999999999996, 0.91979492642096605, 0.98020507357903386, 1},
		{"labelled judge split evenly, lambda clipped to 1", 10, 0, 0, 10, 190, 200, 0.95, true, 0.94999999999999996, 0.91979492642096605, 0.98020507357903386, 1},
	}
	const tol = 1e-12
	for _, c := range cases {
		lab := samples(c.a, c.b, c.c, c.d)
		// judged counts every scored item, the labelled ones included.
		r, err := PPIMean(c.ku+c.a+c.b, c.m+len(lab), lab, c.conf, c.tuned)
		if err != nil {
			t.Fatalf("%s tuned=%v: %v", c.name, c.tuned, err)
		}
		if math.Abs(r.Estimate-c.est) > tol || math.Abs(r.Interval.Lower-c.lower) > tol ||
			math.Abs(r.Interval.Upper-c.upper) > tol || math.Abs(r.Lambda-c.lam) > tol {
			t.Errorf("%s tuned=%v: got %.15g [%.15g, %.15g] λ %.15g, want %.15g [%.15g, %.15g] λ %.15g",
				c.name, c.tuned, r.Estimate, r.Interval.Lower, r.Interval.Upper, r.Lambda, c.est, c.lower, c.upper, c.lam)
		}
		wantMethod := map[bool]string{false: "ppi", true: "ppi++"}[c.tuned]
		if r.Interval.Method != wantMethod || r.N != c.m+len(lab) || r.Labelled != len(lab) {
			t.Errorf("%s: method %q N %d labelled %d", c.name, r.Interval.Method, r.N, r.Labelled)
		}
		if want := float64(c.a+c.c-c.a-c.b) / float64(len(lab)); math.Abs(r.Rectifier-want) > tol {
			t.Errorf("%s: rectifier %v, want %v", c.name, r.Rectifier, want)
		}
	}
}

// TestPPIMeanHand checks one case by hand from the paper's estimator
// (Angelopoulos et al. 2023: θ̂ = mean of the predictions on the unlabelled
// set + mean(Y − Yhat) on the labelled set) and ppi_py's variance: 8
// labelled of 18 judged, the judge retains all 10 unlabelled items;
// labelled cells (judge, human) = 4×(1,1), 2×(1,0), 1×(0,1), 1×(0,0).
// Y − Yhat is five 0s, two −1s and one +1: rectifier −1/8, θ̂ = 1 − 1/8 =
// 0.875; its variance (dividing by n) 3/8 − 1/64 = 0.359375; the
// unlabelled judge is constant, so SE = sqrt(0.359375/8).
func TestPPIMeanHand(t *testing.T) {
	lab := samples(4, 2, 1, 1)
	r, err := PPIMean(10+6, 18, lab, 0.95, false)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(0.359375 / 8)
	if math.Abs(r.Estimate-0.875) > 1e-15 || math.Abs(r.StandardError-se) > 1e-15 || r.Rectifier != -0.125 {
		t.Errorf("got %+v, want estimate 0.875, SE %v", r, se)
	}
	if math.Abs(r.Interval.Upper-math.Min(1, 0.875+1.959963984540054*se)) > 1e-12 {
		t.Errorf("upper %v", r.Interval.Upper)
	}
}

// TestPPIStratifiedByVerdict: stratified by the judge's verdict, the
// judge is constant within each stratum and PPI reduces to the classical
// stratified estimator (Cochran 1977, Sampling Techniques, eqs. 5.1 and
// 5.6 without the finite-population correction): θ̂ = Σ W_h ȳ_h,
// SE² = Σ W_h² ȳ_h(1−ȳ_h)/n_h, plus the variance of the shares W_h
// estimated from the judged set, Σ W_h(ȳ_h − θ̂)²/N (Cochran 1977,
// section 12.2, double sampling for stratification, infinite population).
func TestPPIStratifiedByVerdict(t *testing.T) {
	strata := []PPIStratum{
		{Judged: 1560, JudgeRetained: 1560, Labelled: samples(69, 6, 0, 0)},
		{Judged: 440, JudgeRetained: 0, Labelled: samples(0, 0, 27, 48)},
	}
	w1, w0 := 1560.0/2000, 440.0/2000
	wantEst := w1*69/75 + w0*27/75
	between := (w1*math.Pow(0.92-wantEst, 2) + w0*math.Pow(0.36-wantEst, 2)) / 2000
	wantSE := math.Sqrt(w1*w1*(0.92*0.08)/75 + w0*w0*(0.36*0.64)/75 + between)
	for _, tuned := range []bool{false, true} {
		r, err := PPIStratified(strata, 0.95, tuned)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Estimate-wantEst) > 1e-12 || math.Abs(r.StandardError-wantSE) > 1e-12 {
			t.Errorf("tuned=%v: %.15g ± %.15g, want %.15g ± %.15g", tuned, r.Estimate, r.StandardError, wantEst, wantSE)
		}
		if r.N != 2000 || r.Labelled != 150 || len(r.Strata) != 2 || r.JudgeShare != 0.78 {
			t.Errorf("tuned=%v: N %d labelled %d strata %d judge share %v", tuned, r.N, r.Labelled, len(r.Strata), r.JudgeShare)
		}
		z := Z(0.95)
		if math.Abs(r.Interval.Lower-(wantEst-z*wantSE)) > 1e-12 || math.Abs(r.Interval.Upper-(wantEst+z*wantSE)) > 1e-12 {
			t.Errorf("tuned=%v: interval %+v", tuned, r.Interval)
		}
	}
	// One stratum is PPIMean itself.
	lab := samples(24, 6, 3, 7)
	one, err := PPIStratified([]PPIStratum{{Judged: 500, JudgeRetained: 360, Labelled: lab}}, 0.95, true)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := PPIMean(360, 500, lab, 0.95, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(one.Estimate-plain.Estimate) > 1e-15 || math.Abs(one.StandardError-plain.StandardError) > 1e-15 || one.Lambda != plain.Lambda {
		t.Errorf("one stratum %+v, PPIMean %+v", one, plain)
	}
}

// TestPPIEdges pins the documented edge cases.
func TestPPIEdges(t *testing.T) {
	// No labelled items: an input error.
	if _, err := PPIMean(5, 10, nil, 0.95, false); !errorsIsInput(err) {
		t.Errorf("no labelled: err %v, want ErrInput", err)
	}
	// One labelled item: the rectifier's variance is undefined.
	_, err := PPIMean(5, 10, samples(1, 0, 0, 0), 0.95, true)
	if !errors.Is(err, ErrTooFewLabelled) || !errorsIsInput(err) {
		t.Errorf("one labelled: err %v, want ErrTooFewLabelled and ErrInput", err)
	}
	if _, err := PPIStratified([]PPIStratum{{10, 10, samples(3, 0, 0, 0)}, {10, 0, samples(0, 0, 0, 1)}}, 0.95, false); !errors.Is(err, ErrTooFewLabelled) || !strings.Contains(err.Error(), "stratum 2") {
		t.Errorf("stratum of one: err %v", err)
	}
	// All labelled agree with the judge: rectifier 0 and variance 0, so
	// the interval is the judge's own sampling error, with a warning.
	r, err := PPIMean(180+20, 300, samples(20, 0, 0, 10), 0.95, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rectifier != 0 || math.Abs(r.StandardError-math.Sqrt(180.0/270*90/270/270)) > 1e-15 || !hasWarning(r, "agree with the judge") {
		t.Errorf("all agree: %+v", r)
	}
	// N equal to n: no unlabelled item; the reviewers' share, λ = 0.
	lab := samples(6, 1, 2, 1)
	for _, tuned := range []bool{false, true} {
		r, err = PPIMean(7, 10, lab, 0.95, tuned)
		if err != nil {
			t.Fatal(err)
		}
		if r.Estimate != 0.8 || r.Lambda != 0 || math.Abs(r.StandardError-math.Sqrt(0.8*0.2/10)) > 1e-15 || !hasWarning(r, "every judged item was labelled") {
			t.Errorf("N = n tuned=%v: %+v", tuned, r)
		}
	}
	// Judge constant over every item, tuned: λ kept at 1, not NaN.
	r, err = PPIMean(50, 50, samples(8, 2, 0, 0), 0.95, true)
	if err != nil || r.Lambda != 1 || r.Estimate != 0.8 || math.IsNaN(r.StandardError) {
		t.Errorf("constant judge: %+v, %v", r, err)
	}
	// An estimate outside [0, 1] is clipped, with a warning.
	r, err = PPIMean(98, 100, samples(0, 0, 2, 0), 0.95, false)
	if err != nil || r.Estimate != 1 || r.Interval.Upper != 1 || !hasWarning(r, "outside [0, 1]") {
		t.Errorf("clipped: %+v, %v", r, err)
	}
	// Inconsistent counts are input errors.
	bad := []struct {
		name          string
		judge, judged int
		lab           []PPISample
		conf          float64
	}{
		{"judged 0", 0, 0, samples(1, 1, 0, 0), 0.95},
		{"judge above judged", 11, 10, samples(1, 1, 0, 0), 0.95},
		{"negative judge", -1, 10, samples(0, 0, 1, 1), 0.95},
		{"more labelled than judged", 3, 3, samples(2, 0, 1, 1), 0.95},
		{"labelled judge-retained above the judge's count", 1, 10, samples(1, 1, 0, 0), 0.95},
		{"labelled judge-not-retained above the judge's count", 9, 10, samples(0, 0, 1, 1), 0.95},
		{"confidence 1", 5, 10, samples(1, 1, 0, 0), 1},
		{"confidence NaN", 5, 10, samples(1, 1, 0, 0), math.NaN()},
	}
	for _, c := range bad {
		if _, err := PPIMean(c.judge, c.judged, c.lab, c.conf, false); !errorsIsInput(err) {
			t.Errorf("%s: err %v, want ErrInput", c.name, err)
		}
	}
	if _, err := PPIStratified(nil, 0.95, false); !errorsIsInput(err) {
		t.Errorf("no strata: %v", err)
	}
	if _, err := PPIStratified([]PPIStratum{{0, 0, nil}}, 0.95, false); !errorsIsInput(err) {
		t.Errorf("empty stratum: %v", err)
	}
}

func hasWarning(r PPIResult, s string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestPPICoverage: a judge with known error rates (says retained for 90%
// of truly retained items and 30% of the others), true retention 0.8, N =
// 2000 judged, n = 150 reviewed. Over 1000 seeded replicates the 95% PPI
// interval covers 0.8 within 3 Monte-Carlo standard errors of 0.95 for a
// simple random review and for one stratified by the judge's verdict with
// proportional allocation, and the judge-only Wilson interval (centred
// near 0.78) does not. Equal allocation (75 per verdict) falls short of
// nominal; see the case. Over 10000 replicates of this seed the coverages
// were: random classic 0.949, random PPI++ 0.939 (λ̂ is estimated from the
// same labels, as in ppi_py, so PPI++ runs about 1 point under nominal
// here), proportional 0.946, 75 each 0.932; judge-only about 0.40.
func TestPPICoverage(t *testing.T) {
	const (
		reps  = 1000
		truth = 0.8
		big   = 2000
		n     = 150
	)
	rng := rand.New(rand.NewPCG(14, 2026))
	type design struct {
		name string
		run  func(items []PPISample, judge int) (PPIResult, error)
	}
	pick := func(items []PPISample, k int) []PPISample {
		// Partial Fisher–Yates: the first k of a random permutation.
		for i := range k {
			j := i + rng.IntN(len(items)-i)
			items[i], items[j] = items[j], items[i]
		}
		return items[:k]
	}
	designs := []design{
		{"random, classic", func(items []PPISample, judge int) (PPIResult, error) {
			return PPIMean(judge, big, pick(items, n), 0.95, false)
		}},
		{"random, tuned", func(items []PPISample, judge int) (PPIResult, error) {
			return PPIMean(judge, big, pick(items, n), 0.95, true)
		}},
		{"stratified by verdict, proportional", func(items []PPISample, judge int) (PPIResult, error) {
			var yes, no []PPISample
			for _, s := range items {
				if s.Judge {
					yes = append(yes, s)
				} else {
					no = append(no, s)
				}
			}
			ny := int(math.Round(float64(n*len(yes)) / big))
			return PPIStratified([]PPIStratum{
				{Judged: len(yes), JudgeRetained: len(yes), Labelled: pick(yes, ny)},
				{Judged: len(no), JudgeRetained: 0, Labelled: pick(no, n-ny)},
			}, 0.95, false)
		}},
		{"stratified by verdict, 75 each", func(items []PPISample, judge int) (PPIResult, error) {
			var yes, no []PPISample
			for _, s := range items {
				if s.Judge {
					yes = append(yes, s)
				} else {
					no = append(no, s)
				}
			}
			return PPIStratified([]PPIStratum{
				{Judged: len(yes), JudgeRetained: len(yes), Labelled: pick(yes, n/2)},
				{Judged: len(no), JudgeRetained: 0, Labelled: pick(no, n/2)},
			}, 0.95, false)
		}},
	}
	items := make([]PPISample, big)
	for _, d := range designs {
		covered, judgeCovered := 0, 0
		for range reps {
			judge := 0
			for i := range items {
				h := rng.Float64() < truth
				p := 0.3
				if h {
					p = 0.9
				}
				items[i] = PPISample{Judge: rng.Float64() < p, Human: h}
				if items[i].Judge {
					judge++
				}
			}
			r, err := d.run(items, judge)
			if err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			if r.Interval.Contains(truth) {
				covered++
			}
			if r.JudgeOnly.Contains(truth) {
				judgeCovered++
			}
		}
		cov := float64(covered) / reps
		mcse := math.Sqrt(0.95 * 0.05 / reps)
		t.Logf("%s: PPI covers %d/%d (%.3f), judge-only %d/%d", d.name, covered, reps, cov, judgeCovered, reps)
		if d.name == "stratified by verdict, 75 each" {
			// Known shortfall of the normal approximation: the judge-retained
			// stratum's share is near 0.92 with 75 reviews (about 6
			// disagreements), where a Wald-type interval undercovers (Brown,
			// Cai & DasGupta 2001). Measured over 10000 replicates with two
			// seeds: 0.936 and 0.932. The result carries a warning; here the
			// coverage only has to stay near that figure.
			if math.Abs(cov-0.934) > 3*math.Sqrt(0.934*0.066/reps) {
				t.Errorf("%s: PPI coverage %.3f, want near the measured 0.934", d.name, cov)
			}
		} else if math.Abs(cov-0.95) > 3*mcse {
			t.Errorf("%s: PPI coverage %.3f, want 0.95 ± %.3f", d.name, cov, 3*mcse)
		}
		if jc := float64(judgeCovered) / reps; jc > 0.95-3*mcse {
			t.Errorf("%s: judge-only coverage %.3f, want clearly below 0.95", d.name, jc)
		}
	}
}
