package stats

import (
	"math"
	"testing"
)

// refKappa pins CohenKappa to published examples and to R and statsmodels
// run on this machine (R 4.2.2 with psych 2.2.9 and vcd 1.4-11;
// statsmodels 0.13.5). tol is the absolute tolerance: half a unit in the
// last digit quoted.
var refKappa = []struct {
	name              string
	table             [][]int
	conf              float64
	po, pe, kappa     float64
	se, se0, z        float64
	lower, upper, tol float64
	src               string
}{
	{
		name:  "Fleiss, Cohen & Everitt 1969 3×3",
		table: [][]int{{106, 10, 4}, {22, 28, 10}, {2, 12, 6}},
		conf:  0.95,
		po:    0.70, pe: 0.475, kappa: 0.4285714286,
		se: 0.05371100487, se0: 0.05551245494, z: 7.720275,
		lower: 0.3232997935, upper: 0.5338430637, tol: 5e-7,
		// The table of Fleiss, Cohen & Everitt (1969), also the example of
		// R's psych::cohen.kappa help (published κ = .429). SE and CI:
		// psych::cohen.kappa(fleiss, n.obs=200), vcd::Kappa (ASE
		// 0.05371100487) and statsmodels cohens_kappa (std_kappa 0.053711,
		// std_kappa0 0.055512) agree; /work/i13refs/issue13-refs.md §6.
		src: "FCE 1969 via psych::cohen.kappa = vcd::Kappa = statsmodels cohens_kappa",
	},
	{
		name:  "epiR IFAT 2×2",
		table: [][]int{{19, 10}, {6, 256}},
		conf:  0.95,
		po:    275.0 / 291, pe: (29*25 + 262*266) / (291.0 * 291), kappa: 0.6735838474,
		se: 0.07622389286, se0: 0.05842552698, z: 11.52893,
		lower: 0.5241877627, upper: 0.8229799322, tol: 5e-7,
		// The example of R's epiR::epi.kappa help (two laboratories'
		// IFAT results on 291 salmon). epi.kappa(method="fleiss") prints
		// the null SE 0.0584255 as "se"; the non-null SE is psych's, vcd's
		// and statsmodels'; issue13-refs.md §6.
		src: "epiR::epi.kappa help example; SE from psych = vcd = statsmodels",
	},
	{
		name:  "a 3×3 verdict table (retained, lost, contradicted)",
		table: [][]int{{40, 5, 1}, {3, 30, 2}, {0, 2, 7}},
		conf:  0.95,
		po:    77.0 / 90, pe: (46*43 + 35*37 + 9*10) / (90.0 * 90), kappa: 0.7530082330589,
		se: 0.0625531127094, se0: 0.08373732562245843, z: 8.992503969543305,
		lower: 0.630406385028, upper: 0.875610081090, tol: 5e-12,
		// Run here, 2026-12-01:
		//   t3 <- matrix(c(40,5,1, 3,30,2, 0,2,7), ncol=3, byrow=TRUE)
		//   vcd::Kappa(t3)$Unweighted        → value 0.7530082330589, ASE 0.0625531127094
		//   psych::cohen.kappa(t3)$confid    → lower 0.630406385028, upper 0.875610081090
		//   statsmodels cohens_kappa(t3)     → std_kappa0 0.08373732562245843,
		//                                      z_value 8.992503969543305
		src: "R vcd::Kappa and psych::cohen.kappa, statsmodels cohens_kappa (run here)",
	},
	{
		name:  "2×2 whose interval vcd clips at 1",
		table: [][]int{{10, 0}, {1, 10}},
		conf:  0.95,
		po:    20.0 / 21, pe: (10*11 + 11*10) / (21.0 * 21), kappa: 0.9049773755656109,
		se: 0.09231298165521215, se0: 0.21723047896795625, z: 4.165977904505309,
		lower: 0.7240472562158883, upper: 1, tol: 5e-12,
		// Run here: vcd::Kappa(matrix(c(10,0,1,10),2,byrow=TRUE)) → value
		// 0.9049773755656, ASE 0.0923129816552; confint → 0.724047256216, 1
		// (statsmodels: kappa_upp 1.0859, unclipped); std_kappa0 and
		// z_value from statsmodels cohens_kappa.
		src: "R vcd::Kappa + confint, statsmodels cohens_kappa (run here)",
	},
}

func TestReferenceCohenKappa(t *testing.T) {
	for _, c := range refKappa {
		got, err := CohenKappa(c.table, c.conf)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		n := 0
		for _, row := range c.table {
			for _, x := range row {
				n += x
			}
		}
		if got.N != n {
			t.Errorf("%s: N = %d, want %d", c.name, got.N, n)
		}
		for _, f := range []struct {
			what      string
			got, want float64
		}{
			{"Observed", got.Observed, c.po}, {"Expected", got.Expected, c.pe},
			{"Kappa", got.Kappa, c.kappa}, {"StandardError", got.StandardError, c.se},
			{"NullStandardError", got.NullStandardError, c.se0},
			{"Interval.Lower", got.Interval.Lower, c.lower}, {"Interval.Upper", got.Interval.Upper, c.upper},
		} {
			if !(math.Abs(f.got-f.want) <= c.tol) {
				t.Errorf("%s: %s = %.12g, want %.12g ± %g (%s)", c.name, f.what, f.got, f.want, c.tol, c.src)
			}
		}
		// z is quoted to fewer digits in the refs for the first two.
		if !(math.Abs(got.Z-c.z) <= 5e-6*math.Max(1, math.Abs(c.z))) {
			t.Errorf("%s: Z = %.12g, want %.12g (%s)", c.name, got.Z, c.z, c.src)
		}
		if wantP := math.Erfc(math.Abs(got.Z) / math.Sqrt2); !(math.Abs(got.P-wantP) <= 1e-12) {
			t.Errorf("%s: P = %g, want %g", c.name, got.P, wantP)
		}
		if got.Interval.Method != KappaMethod {
			t.Errorf("%s: interval method %q", c.name, got.Interval.Method)
		}
	}
}

// TestCohenKappaPValue: the p-value of statsmodels' cohens_kappa
// (pvalue_two_sided 2.416607819058787e-19) on the third reference table,
// where the P computed from Z by hand above loses its digits.
func TestCohenKappaPValue(t *testing.T) {
	got, err := CohenKappa([][]int{{40, 5, 1}, {3, 30, 2}, {0, 2, 7}}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2.416607819058787e-19; !(math.Abs(got.P-want) <= 1e-9*want) {
		t.Errorf("P = %.16g, want %.16g (statsmodels cohens_kappa pvalue_two_sided)", got.P, want)
	}
}

// TestCohenKappaDegenerate: the documented degenerate tables, by hand.
func TestCohenKappaDegenerate(t *testing.T) {
	// Both raters put all 12 items in category 2: p_o = p_e = 1, κ = 0/0.
	got, err := CohenKappa([][]int{{0, 0}, {0, 12}}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 12 || got.Observed != 1 || got.Expected != 1 {
		t.Errorf("all in one category: N, p_o, p_e = %d, %v, %v; want 12, 1, 1", got.N, got.Observed, got.Expected)
	}
	for _, f := range []float64{got.Kappa, got.StandardError, got.NullStandardError, got.Z, got.P, got.Interval.Lower, got.Interval.Upper} {
		if !math.IsNaN(f) {
			t.Errorf("all in one category: want every statistic NaN, got %+v", got)
			break
		}
	}

	// Rater one says category 1 for all 10 items; rater two splits 6/4:
	// p_o = 0.6 = p_e, κ = 0 exactly, no variance, no test.
	for _, table := range [][][]int{{{6, 4}, {0, 0}}, {{6, 0}, {4, 0}}, {{0, 0, 0}, {3, 5, 2}, {0, 0, 0}}} {
		got, err = CohenKappa(table, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		if got.Kappa != 0 || got.StandardError != 0 || got.NullStandardError != 0 ||
			!math.IsNaN(got.Z) || !math.IsNaN(got.P) || got.Interval.Lower != 0 || got.Interval.Upper != 0 ||
			got.Observed != got.Expected {
			t.Errorf("%v (one rater, one category): got %+v; want κ 0, SEs 0, Z and P NaN, interval [0, 0]", table, got)
		}
	}

	// Perfect agreement over two used categories: κ = 1, SE 0 (FCE's
	// variance vanishes), interval [1, 1]; by hand p_o = 1, p_e = 0.5.
	got, err = CohenKappa([][]int{{5, 0}, {0, 5}}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if got.Kappa != 1 || got.Expected != 0.5 || math.Abs(got.StandardError) > 1e-9 || got.Interval.Upper != 1 || math.Abs(got.Interval.Lower-1) > 1e-8 {
		t.Errorf("perfect agreement: got %+v", got)
	}
	// Null SE by hand: p_e = 0.5, Σ r c (r+c) = 2·0.25·1 = 0.5,
	// Var0 = (0.5 + 0.25 − 0.5)/(10·0.25) = 0.1.
	if math.Abs(got.NullStandardError-math.Sqrt(0.1)) > 1e-12 {
		t.Errorf("perfect agreement: NullStandardError %v, want sqrt(0.1)", got.NullStandardError)
	}
}

func TestCohenKappaErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		table [][]int
		conf  float64
	}{
		{"nil", nil, 0.95},
		{"empty", [][]int{}, 0.95},
		{"not square", [][]int{{1, 2}, {3}}, 0.95},
		{"not square, wide", [][]int{{1, 2, 3}, {3, 4, 5}}, 0.95},
		{"empty row", [][]int{{}}, 0.95},
		{"negative", [][]int{{1, -2}, {3, 4}}, 0.95},
		{"no items", [][]int{{0, 0}, {0, 0}}, 0.95},
		{"overflow", [][]int{{math.MaxInt, 1}, {0, 0}}, 0.95},
		{"confidence 1", [][]int{{1, 0}, {0, 1}}, 1},
		{"confidence NaN", [][]int{{1, 0}, {0, 1}}, math.NaN()},
	} {
		_, err := CohenKappa(c.table, c.conf)
		if err == nil || !errorsIsInput(err) {
			t.Errorf("%s: err = %v, want an ErrInput", c.name, err)
		}
	}
}
