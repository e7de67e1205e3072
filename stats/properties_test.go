package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// randomCase draws (k, n, confidence) with n spread over small and large
// sizes and k over the boundaries as well as the interior.
func randomCase(r *rand.Rand) (Proportion, float64) {
	var n int
	switch r.IntN(3) {
	case 0:
		n = 1 + r.IntN(10)
	case 1:
		n = 1 + r.IntN(500)
	default:
		n = 1 + r.IntN(1_000_000)
	}
	var k int
	switch r.IntN(5) {
	case 0:
		k = 0
	case 1:
		k = n
	default:
		k = r.IntN(n + 1)
	}
	return Proportion{K: k, N: n}, 0.5 + 0.4999*r.Float64()
}

// TestIntervalProperties checks, over many random (k, n, confidence),
// the properties every method must have: bounds in [0,1], lower ≤ upper,
// the estimate inside the interval for the methods that guarantee it, and
// a higher confidence never giving a narrower interval.
func TestIntervalProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	containsEstimate := map[Method]bool{Wald: true, Wilson: true, WilsonCC: true, ClopperPearson: true}
	for i := 0; i < 20000; i++ {
		p, c := randomCase(r)
		c2 := c + (1-c)*r.Float64()*0.999
		for _, m := range Methods {
			iv, err := p.Interval(m, c)
			if err != nil {
				t.Fatalf("%s %v at %v: %v", m, p, c, err)
			}
			if !(0 <= iv.Lower && iv.Lower <= iv.Upper && iv.Upper <= 1) {
				t.Fatalf("%s %v at %v: bounds [%v, %v] not ordered inside [0,1]", m, p, c, iv.Lower, iv.Upper)
			}
			const eps = 1e-12
			if containsEstimate[m] && !(iv.Lower <= p.Estimate()+eps && p.Estimate() <= iv.Upper+eps) {
				t.Fatalf("%s %v at %v: [%v, %v] excludes the estimate %v", m, p, c, iv.Lower, iv.Upper, p.Estimate())
			}
			wider, err := p.Interval(m, c2)
			if err != nil {
				t.Fatal(err)
			}
			if wider.Lower > iv.Lower+eps || wider.Upper < iv.Upper-eps {
				t.Fatalf("%s %v: confidence %v gives [%v, %v], narrower than [%v, %v] at %v",
					m, p, c2, wider.Lower, wider.Upper, iv.Lower, iv.Upper, c)
			}
		}
	}
}

// TestClopperPearsonCoverage checks exactly, by summing binomial
// probabilities, that the Clopper–Pearson interval covers the true p with
// probability at least the nominal level for every n ≤ 60 over a grid of
// p (Clopper & Pearson 1934: the interval is conservative by construction).
func TestClopperPearsonCoverage(t *testing.T) {
	for _, c := range []float64{0.90, 0.95, 0.99} {
		for n := 1; n <= 60; n++ {
			ivs := make([]Interval, n+1)
			for k := 0; k <= n; k++ {
				iv, err := Proportion{K: k, N: n}.Interval(ClopperPearson, c)
				if err != nil {
					t.Fatal(err)
				}
				ivs[k] = iv
			}
			for i := 1; i < 1000; i++ {
				p := float64(i) / 1000
				b := distuv.Binomial{N: float64(n), P: p}
				cov := 0.0
				for k, iv := range ivs {
					if iv.Contains(p) {
						cov += b.Prob(float64(k))
					}
				}
				if cov < c-1e-9 {
					t.Fatalf("n=%d p=%v: Clopper–Pearson coverage %v below nominal %v", n, p, cov, c)
				}
			}
		}
	}
}

// TestWaldCoverageFails shows the property test above can fail: the Wald
// interval's exact coverage falls below nominal (Brown, Cai & DasGupta
// 2001, Figure 1), so the same check rejects it.
func TestWaldCoverageFails(t *testing.T) {
	n, p, c := 20, 0.1, 0.95
	b := distuv.Binomial{N: float64(n), P: p}
	cov := 0.0
	for k := 0; k <= n; k++ {
		iv, _ := Proportion{K: k, N: n}.Interval(Wald, c)
		if iv.Contains(p) {
			cov += b.Prob(float64(k))
		}
	}
	if cov >= c {
		t.Fatalf("Wald coverage at n=20, p=0.1 is %v; expected it below %v", cov, c)
	}
}

func TestIntervalErrors(t *testing.T) {
	tests := []struct {
		name string
		p    Proportion
		c    float64
		m    Method
	}{
		{"n zero", Proportion{0, 0}, 0.95, Wilson},
		{"n negative", Proportion{0, -3}, 0.95, Wilson},
		{"k negative", Proportion{-1, 10}, 0.95, Wilson},
		{"k above n", Proportion{11, 10}, 0.95, Wilson},
		{"confidence 0", Proportion{1, 10}, 0, Wilson},
		{"confidence 1", Proportion{1, 10}, 1, Wilson},
		{"confidence above 1", Proportion{1, 10}, 95, Wilson},
		{"confidence NaN", Proportion{1, 10}, math.NaN(), Wilson},
		{"unknown method", Proportion{1, 10}, 0.95, Method("bayes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.p.Interval(tt.m, tt.c)
			if err == nil {
				t.Fatal("no error")
			}
			if !errorsIsInput(err) {
				t.Fatalf("error %q does not match ErrInput", err)
			}
		})
	}
}

func TestParseProportion(t *testing.T) {
	good := map[string]Proportion{"166/200": {166, 200}, " 0 / 1 ": {0, 1}, "5/5": {5, 5}}
	for s, want := range good {
		got, err := ParseProportion(s)
		if err != nil || got != want {
			t.Errorf("ParseProportion(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "166", "166/", "/200", "a/b", "1.5/3", "3/2", "-1/4", "1/0", "1/-2", "1/2/3"} {
		if _, err := ParseProportion(s); err == nil || !errorsIsInput(err) {
			t.Errorf("ParseProportion(%q) error = %v; want an input error", s, err)
		}
	}
}

func TestSampleSize(t *testing.T) {
	// Wald: ⌈z²p(1−p)/h²⌉; the classic 385 for p = ½, h = 0.05 at 95%
	// (z = 1.959964, z²/4/0.0025 = 384.15).
	if n, err := SampleSizeWald(0.5, 0.05, 0.95); err != nil || n != 385 {
		t.Errorf("SampleSizeWald(0.5, 0.05, 0.95) = %d, %v; want 385", n, err)
	}
	// Wilson: the smallest n whose half-width reaches h, and n−1 does not.
	for _, tc := range []struct{ p, h, c float64 }{{0.83, 0.027, 0.95}, {0.5, 0.05, 0.95}, {0.01, 0.005, 0.99}, {0, 0.01, 0.9}, {1, 0.1, 0.95}} {
		n, err := SampleSizeWilson(tc.p, tc.h, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		z := Z(tc.c)
		if WilsonHalfWidth(tc.p, n, z) > tc.h || (n > 1 && WilsonHalfWidth(tc.p, n-1, z) <= tc.h) {
			t.Errorf("SampleSizeWilson%v = %d is not the smallest n reaching the half-width", tc, n)
		}
	}
	for _, bad := range [][3]float64{{-0.1, 0.05, 0.95}, {0.5, 0, 0.95}, {0.5, 1, 0.95}, {0.5, 0.05, 1}, {math.NaN(), 0.05, 0.95}} {
		if _, err := SampleSizeWilson(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("SampleSizeWilson%v: no error", bad)
		}
		if _, err := SampleSizeWald(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("SampleSizeWald%v: no error", bad)
		}
	}
}

// TestSourceNumbers reproduces the seed text's arithmetic: 200
// conversations at 0.83 have a standard error of 0.027 and a 95%
// interval of roughly 0.78–0.88; halving it takes four times the trials.
func TestSourceNumbers(t *testing.T) {
	p := Proportion{K: 166, N: 200}
	if se := p.StandardError(); math.Abs(se-0.027) > 0.0005 {
		t.Errorf("standard error %v, want 0.027", se)
	}
	iv, _ := p.Interval(Wald, 0.95)
	if math.Abs(iv.Lower-0.78) > 0.005 || math.Abs(iv.Upper-0.88) > 0.005 {
		t.Errorf("Wald interval [%v, %v], want about 0.78–0.88", iv.Lower, iv.Upper)
	}
	if got := RateStandardError(0.83, 800) / RateStandardError(0.83, 200); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("four times the trials scales the standard error by %v, want 0.5", got)
	}
}
