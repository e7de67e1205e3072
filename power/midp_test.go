package power

import (
	"fmt"
	"testing"
)

// TestMidPFagerland pins the two-sided mid-p McNemar test to the definition of
// Fagerland, Lydersen & Laake (2013), "The McNemar test for binary
// matched-pairs data: mid-p and asymptotic are better than exact
// conditional", BMC Med Res Methodol 13:91, and its supplement "How to
// calculate the McNemar mid-p test": with X ~ Bin(B+C, ½),
// mid-p = 2·P(X < m) + P(X = m), m = min(B, C), when B ≠ C, and
// "If n12 = n21, the mid-p-value equals 1 − 0.5 · binompdf(n12, n, 0.5)".
// Before issue 13 tally gave 1 at B = C.
//
// The Cavo et al. (2012) table is the worked example of Fagerland,
// Lydersen & Laake, Statistical Analysis of Contingency Tables (2017),
// ch. 8, as pinned in its companion package's tests
// (ocbe-uio/contingencytables, tests/testthat/test-ch8.R: "mid-P test:
// P = 0.034690", "exact conditional: P = 0.052479"). There b = 6 and
// c = 16 discordant pairs; the two-sided tests do not depend on which is
// lost, so both orientations are checked.
func TestMidPFagerland(t *testing.T) {
	const (
		fll   = "Fagerland, Lydersen & Laake 2013 supplement: 1 − 0.5·binompdf(n12, n, 0.5) at n12 = n21"
		cavo  = "contingencytables test-ch8.R, Cavo et al. 2012 (FLL 2017 ch. 8)"
		rcalc = "R 4.2: 1 - 0.5*dbinom(B, 2*B, .5)"
	)
	tests := []struct {
		t           Table
		midp, exact float64
		tol         float64
		src         string
	}{
		{Table{A: 10, B: 3, C: 3, D: 10}, 0.84375, 1, 1e-15, fll + "; issue 13: 1 − ½·20/64"},
		{Table{A: 1, B: 5, C: 5, D: 1}, 0.876953125, 1, 1e-15, fll + "; 1 − ½·252/1024"},
		{Table{A: 0, B: 1, C: 1, D: 0}, 0.75, 1, 1e-15, fll + "; 1 − ½·½"},
		{Table{A: 2, B: 10, C: 10, D: 3}, 0.91190147399902344, 1, 1e-15, rcalc},
		{Table{A: 0, B: 500, C: 500, D: 0}, 0.98738749091081957, 1, 1e-14, rcalc},
		{Table{A: 59, B: 16, C: 6, D: 80}, 0.034690, 0.052479, 5e-7, cavo},
		{Table{A: 59, B: 6, C: 16, D: 80}, 0.034690, 0.052479, 5e-7, cavo},
		{Table{A: 59, B: 16, C: 6, D: 80}, 0.034689664840698256, 0.05247879028320316, 1e-15, "R 4.2: 2*pbinom(5, 22, .5) + dbinom(6, 22, .5); binom.test(6, 22)"},
	}
	for _, tt := range tests {
		r := mustMcNemar(t, tt.t, 0.95)
		mid, _ := r.Test(TestMidP)
		ex, _ := r.Test(TestExact)
		check(t, tt.t.String()+" mid-p", mid.PValue, tt.midp, tt.tol, tt.src)
		check(t, tt.t.String()+" exact", ex.PValue, tt.exact, tt.tol, tt.src)
	}
}

// TestOneSidedP pins the one-sided McNemar p-values of H1 "lost > gained"
// to R 4.2:
//
//	binom.test(lost, lost+gained, alternative = "greater")$p.value             # exact
//	pbinom(lost-1, n, .5, lower.tail = FALSE) - 0.5*dbinom(lost, n, .5)        # mid-p
//
// and checks that the one-sided mid-p is half the two-sided one where
// the two-sided test's smaller tail is the lost side (Cavo: 0.034690/2).
func TestOneSidedP(t *testing.T) {
	tests := []struct {
		lost, gained int
		exact, midp  float64
	}{
		{7, 1, 0.035156250000000014, 0.019531250000000007},
		{1, 7, 0.99609375, 0.98046875},
		{3, 3, 0.65625, 0.5},
		{16, 6, 0.026239395141601580, 0.017344832420349142},
		{6, 16, 0.99154973030090332, 0.98265516757965088},
		{10, 0, 9.7656250000000022e-04, 4.8828125000000022e-04},
		{0, 10, 1, 0.99951171875},
		{1, 0, 0.5, 0.25},
		{0, 1, 1, 0.75},
		{12, 7, 0.17964172363281258, 0.13158798217773438},
		{60, 40, 0.028443966820490434, 0.023022033464671451},
		{520, 480, 0.10872414660207072, 0.10305365541647686},
		{5000, 4800, 2.2202074399923142e-02, 2.1678474447311670e-02},
	}
	const src = `R 4.2 binom.test(lost, n, alternative="greater"); pbinom(lost-1, n, .5, lower.tail=FALSE) - 0.5*dbinom(lost, n, .5)`
	for _, tt := range tests {
		what := func(m string) string { return fmt.Sprintf("%s lost %d gained %d", m, tt.lost, tt.gained) }
		// Relative tolerance: the far tails are gonum's incomplete beta,
		// good to about D·1e−15 (MaxPairs).
		rel := max(1e-12, float64(tt.lost+tt.gained)*1e-15)
		check(t, what("exact"), OneSidedP(tt.lost, tt.gained, false), tt.exact, rel*tt.exact, src)
		check(t, what("mid-p"), OneSidedP(tt.lost, tt.gained, true), tt.midp, rel*tt.midp, src)
	}
	if OneSidedP(0, 0, false) != 1 || OneSidedP(0, 0, true) != 1 {
		t.Error("no discordant pair: want p = 1 for both (documented)")
	}
	r := mustMcNemar(t, Table{A: 59, B: 16, C: 6, D: 80}, 0.95)
	mid, _ := r.Test(TestMidP)
	check(t, "Cavo one-sided mid-p = two-sided/2", OneSidedP(16, 6, true), mid.PValue/2, 1e-15, "symmetry of Bin(D, ½)")
	defer func() {
		if recover() == nil {
			t.Error("OneSidedP(-1, 3) did not panic")
		}
	}()
	OneSidedP(-1, 3, false)
}

// TestOneSidedPAllocs: the gate calls OneSidedP in simulation loops.
func TestOneSidedPAllocs(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() { OneSidedP(5200, 4800, true) }); a != 0 {
		t.Errorf("OneSidedP allocates %v times per call", a)
	}
}
