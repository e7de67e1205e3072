package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// betaQuantileTol is the relative tolerance of betaQuantile: 1e-12 up to
// a+b = 100, growing in proportion to a+b beyond. The growth is that of
// mathext.RegIncBeta, the function both betaQuantile and distuv invert:
// Cephes incbet forms x^a(1−x)^b/B(a, b) from logarithms and math.Lgamma,
// whose rounding errors grow with the size of those logarithms, so two
// roots of the same computed I_x can only agree that well. Against 50-digit
// mpmath values both are off by up to 4e-11 at a or b = 1e4 and 2e-9 at
// 1e6. On the grid below betaQuantile stays within 0.34 of this tolerance
// of the mpmath values and within 0.6 of it of distuv where distuv is
// accurate (and within 0.46 of it of mpmath for 3000 random (a, b, p), a
// and b log-uniform in [½, 2·10⁶], where distuv strays beyond it 96 times).
func betaQuantileTol(a, b float64) float64 { return 1e-12 * math.Max(1, (a+b)/100) }

// betaQuantileShapes and betaQuantileProbs span the grid of the tests:
// the shapes of Clopper–Pearson (integers) and Jeffreys (half-integers)
// intervals from tiny to huge counts, and probabilities from the far tails
// to the middle.
var (
	betaQuantileShapes = []float64{0.5, 1, 1.5, 2, 10, 35, 166.5, 1e3, 1e6}
	betaQuantileProbs  = []float64{1e-10, 1e-5, 0.005, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.995, 1 - 1e-5, 1 - 1e-10}
)

// distuvOff lists the points of the grid where distuv.Beta.Quantile is
// itself inaccurate, by 6e-10 up to a factor 5e4 relative (Cephes incbi in
// the far tail of a lopsided Beta: p = 1e-10 with a ≫ b, p = 1−1e-10 with
// a ≪ b). There betaQuantile is compared with these values instead,
// computed with mpmath 1.2.1 at 40 digits from the exact float64 inputs
// and printed to 20 (two ways that agree to all 20: bisection on the
// incomplete beta's continued fraction, and the generator below):
//
//	from mpmath import mp, mpf, hyp2f1, beta, findroot
//	mp.dps = 40
//	def I(a, b, x):  # regularized incomplete beta, DLMF 8.17.8
//	    if x > a / (a + b):
//	        return 1 - I(b, a, 1 - x)
//	    return x**a * (1 - x)**b * hyp2f1(a + b, 1, a + 1, x) / (a * beta(a, b))
//	def q(a, b, p, x0):  # the root, bracketed within 1e-9 of a double start x0
//	    a, b, p, x0 = mpf(a), mpf(b), mpf(p), mpf(x0)
//	    d = mpf('1e-9') * min(x0, 1 - x0)
//	    return findroot(lambda x: I(a, b, x) - p, (x0 - d, x0 + d), solver='anderson')
var distuvOff = []struct{ a, b, p, want float64 }{
	{0.5, 35, 1 - 1e-10, 0.45201965834582729439},
	{0.5, 166.5, 1 - 1e-10, 0.11818825898968120132},
	{0.5, 1e3, 1 - 1e-10, 0.020698725993609280083},
	{0.5, 1e6, 1 - 1e-10, 0.000020910514701304674308},
	{1, 35, 1 - 1e-10, 0.48205253085244563133},
	{1, 166.5, 1 - 1e-10, 0.1291568497981715914},
	{1, 1e3, 1 - 1e-10, 0.022762778963332350429},
	{1, 1e6, 1 - 1e-10, 0.000023025585754331137369},
	{1.5, 166.5, 1 - 1e-10, 0.13804759636110014095},
	{1.5, 1e3, 1 - 1e-10, 0.024460766358668541346},
	{1.5, 1e6, 1 - 1e-10, 0.000024770764886166379943},
	{2, 166.5, 1 - 1e-10, 0.14589011448168432623},
	{2, 1e3, 1 - 1e-10, 0.025977478821852778292},
	{2, 1e6, 1 - 1e-10, 0.000026333621616795600904},
	{10, 1e3, 1 - 1e-10, 0.043456344193216901566},
	{10, 1e6, 1 - 1e-10, 0.000044626660491539592636},
	{35, 1e6, 1 - 1e-10, 0.000086621252393172692804},
	{166.5, 0.5, 1e-10, 0.88181174058128563033},
	{166.5, 1, 1e-10, 0.87084314976907235875},
	{166.5, 1.5, 1e-10, 0.86195240320271882843},
	{166.5, 2, 1e-10, 0.85410988507903995356},
	{1e3, 0.5, 1e-10, 0.97930127392715603466},
	{1e3, 1, 1e-10, 0.97723722095581068273},
	{1e3, 1.5, 1e-10, 0.97553923355903729145},
	{1e3, 2, 1e-10, 0.97402252109453750966},
	{1e3, 10, 1e-10, 0.95654365570873722285},
	{1e6, 0.5, 1e-10, 0.99997908948521780774},
	{1e6, 1, 1e-10, 0.9999769744141629304},
	{1e6, 10, 1e-10, 0.99995537333940550789},
	{1e6, 35, 1e-10, 0.99991337874747220538},
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / want }

// TestBetaQuantileGrid compares betaQuantile with distuv.Beta.Quantile at
// every point of the grid, and with the mpmath value where distuv is off.
func TestBetaQuantileGrid(t *testing.T) {
	ref := make(map[[3]float64]float64, len(distuvOff))
	for _, c := range distuvOff {
		ref[[3]float64{c.a, c.b, c.p}] = c.want
	}
	used := 0
	for _, a := range betaQuantileShapes {
		for _, b := range betaQuantileShapes {
			for _, p := range betaQuantileProbs {
				got := betaQuantile(a, b, p)
				tol := betaQuantileTol(a, b)
				if want, ok := ref[[3]float64{a, b, p}]; ok {
					used++
					if relErr(got, want) > tol {
						t.Errorf("betaQuantile(%v, %v, %v) = %.17g, mpmath %.17g: relative error %.2g > %.2g",
							a, b, p, got, want, relErr(got, want), tol)
					}
					continue
				}
				want := distuv.Beta{Alpha: a, Beta: b}.Quantile(p)
				if relErr(got, want) > tol {
					t.Errorf("betaQuantile(%v, %v, %v) = %.17g, distuv %.17g: relative difference %.2g > %.2g (if distuv is the one that is off, add the mpmath value to distuvOff)",
						a, b, p, got, want, relErr(got, want), tol)
				}
			}
		}
	}
	if used != len(distuvOff) {
		t.Errorf("only %d of the %d distuvOff points are on the grid", used, len(distuvOff))
	}
}

// TestBetaQuantileIntervalShapes compares betaQuantile with distuv at every
// Clopper–Pearson and Jeffreys bound for n ≤ 300 and a few k at n up to
// 10⁶, at three confidence levels.
func TestBetaQuantileIntervalShapes(t *testing.T) {
	check := func(a, b, p float64) {
		t.Helper()
		got := betaQuantile(a, b, p)
		want := distuv.Beta{Alpha: a, Beta: b}.Quantile(p)
		if tol := betaQuantileTol(a, b); relErr(got, want) > tol {
			t.Errorf("betaQuantile(%v, %v, %v) = %.17g, distuv %.17g: relative difference %.2g > %.2g",
				a, b, p, got, want, relErr(got, want), tol)
		}
	}
	bounds := func(k, n int, alpha float64) {
		t.Helper()
		kf, nf := float64(k), float64(n)
		if k > 0 {
			check(kf, nf-kf+1, alpha/2)
			check(kf+0.5, nf-kf+0.5, alpha/2)
		}
		if k < n {
			check(kf+1, nf-kf, 1-alpha/2)
			check(kf+0.5, nf-kf+0.5, 1-alpha/2)
		}
	}
	for _, alpha := range []float64{0.1, 0.05, 0.01} {
		for n := 1; n <= 300; n++ {
			for k := 0; k <= n; k++ {
				bounds(k, n, alpha)
			}
		}
		for _, n := range []int{1000, 10_000, 100_000, 1_000_000} {
			for _, k := range []int{0, 1, 2, 3, 10, n / 3, n / 2, n - 10, n - 3, n - 2, n - 1, n} {
				bounds(k, n, alpha)
			}
		}
	}
}

func TestBetaQuantileEdges(t *testing.T) {
	for _, c := range []struct {
		a, b, p, want float64
		reason        string
	}{
		{2, 3, 0, 0, "p = 0"},
		{2, 3, 1, 1, "p = 1"},
		{1, 1, 0.3, 0.3, "Beta(1, 1) is uniform"},
		{4, 1, 0.0625, 0.5, "b = 1: x = p^(1/a)"},
		{1, 2, 0.75, 0.5, "a = 1: x = 1 − (1−p)^(1/b)"},
		{0.5, 0.5, 0.5, 0.5, "symmetric: the median is ½"},
		{7, 7, 0.5, 0.5, "symmetric: the median is ½"},
	} {
		if got := betaQuantile(c.a, c.b, c.p); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("betaQuantile(%v, %v, %v) = %v, want %v (%s)", c.a, c.b, c.p, got, c.want, c.reason)
		}
	}
	if got := betaQuantile(2, 3, math.NaN()); !math.IsNaN(got) {
		t.Errorf("betaQuantile(2, 3, NaN) = %v, want NaN", got)
	}
}

// FuzzBetaQuantile: for any shapes in [0.5, 2·10⁶] and probabilities in
// [0, 1], betaQuantile returns a number in [0, 1], never NaN, and is
// nondecreasing in p up to its accuracy: betaQuantileTol relative plus 2⁻⁵⁰
// absolute, the spacing of the doubles near 1 that a quantile computed as
// 1 − y (for p > ½) is limited to.
func FuzzBetaQuantile(f *testing.F) {
	f.Add(166.0, 35.0, 0.025, 0.975)
	f.Add(167.0, 34.0, 0.5, 0.5000001)
	f.Add(0.5, 0.5, 0.4999999, 0.5)
	f.Add(2.0, 1e3, 0.9999999999, 1.0)
	f.Add(1e6, 0.5, 1e-10, 2e-10)
	f.Add(0.5, 1e6, 0.995, 0.9999999999)
	f.Add(1e6, 1e6, 0.3, 0.7)
	f.Fuzz(func(t *testing.T, a, b, p, q float64) {
		for _, v := range []float64{a, b, p, q} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return
			}
		}
		a = 0.5 + math.Mod(math.Abs(a), 2e6)
		b = 0.5 + math.Mod(math.Abs(b), 2e6)
		p, q = math.Min(1, math.Abs(p)), math.Min(1, math.Abs(q))
		if p > q {
			p, q = q, p
		}
		x, y := betaQuantile(a, b, p), betaQuantile(a, b, q)
		for _, v := range [][2]float64{{p, x}, {q, y}} {
			if !(0 <= v[1] && v[1] <= 1) {
				t.Fatalf("betaQuantile(%v, %v, %v) = %v, outside [0,1]", a, b, v[0], v[1])
			}
		}
		if x > y+betaQuantileTol(a, b)*y+0x1p-50 {
			t.Fatalf("betaQuantile(%v, %v, ·) decreases: %v at p = %v, %v at p = %v", a, b, x, p, y, q)
		}
	})
}

var sinkQuantile float64

// BenchmarkBetaQuantile times one quantile by betaQuantile and by distuv at
// the two Clopper–Pearson bounds of 166/200 and the Jeffreys upper bound of
// 0/200 (the shape ½ takes two or three evaluations).
func BenchmarkBetaQuantile(b *testing.B) {
	for _, c := range []struct {
		name    string
		a, b, p float64
	}{{"cp-lower", 166, 35, 0.025}, {"cp-upper", 167, 34, 0.975}, {"jeffreys-0of200", 0.5, 200.5, 0.975}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sinkQuantile = betaQuantile(c.a, c.b, c.p)
			}
		})
		b.Run(c.name+"/distuv", func(b *testing.B) {
			for b.Loop() {
				sinkQuantile = distuv.Beta{Alpha: c.a, Beta: c.b}.Quantile(c.p)
			}
		})
	}
}
