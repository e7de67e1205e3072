package power

// Reference tests. Every expected number here was computed outside this
// package and never copied from its output:
//
//	Rscript power/testdata/refgen/reference.R
//	    R 4.2: mcnemar.test, binom.test, prop.test's Wilson intervals,
//	    power.prop.test; and, from their published formulas in base R,
//	    the paired Wald, Tango and Newcombe intervals, Connor's and
//	    Miettinen's power and sample size, and the exact McNemar power by
//	    brute force over every table with binom.test
//	/usr/bin/python3 power/testdata/refgen/reference.py
//	    statsmodels 0.13.5: statsmodels.stats.contingency_tables.mcnemar
//
// plus published values quoted to the digits their source prints:
// Fagerland, Lydersen & Laake (2014, Stat Med 33:2850) on the Bentur et
// al. (2009) table; the exact2x2 vignette ("exactMcNemar") for b = 2,
// c = 9; PropCIs' scoreci.mp example; MESS's power_mcnemar_test; and
// exact2x2's powerPaired2x2. (exact2x2, MESS and PropCIs are not
// installable on this machine, so their printed values are used.)
//
// Floats from R and statsmodels are printed with 17 digits and compared
// to an absolute refTol; published values to half a unit of their last
// printed digit. Conventions where a reference and tally differ:
//
//   - B+C = 0: R's mcnemar.test returns NaN and binom.test refuses
//     n = 0; tally defines p = 1 and statistic 0 (the DESIGN contract).
//   - mid-p at B = C: tally follows Fagerland et al. (2013), 1 − ½·P(X = B);
//     R's 2*pbinom(m-1) + dbinom(m) gives 1 there, so those rows use
//     1 - 0.5*dbinom(B, 2B, .5) (TestMidP).
//   - statsmodels' corrected statistic subtracts 1 even at B = C; R and
//     tally do not, so reference.py lists no table with B = C.
//   - exact power counts rejections in either direction; exact2x2's
//     default (strict = FALSE) counts the direction of the effect only,
//     and truncates its sums at 1e-6.
//   - Fagerland et al. orient the Bentur table with the difference
//     before − after = B − C; tally reports candidate − reference
//     = C − B, so their interval (−0.5172, −0.0260) is ours negated.
//     PropCIs' scoreci.mp(b, c, n) estimates (c − b)/n with b the cell
//     whose restricted estimate enters the variance, our B: its b, c are
//     our B, C with the same sign.

import (
	"math"
	"testing"

	"github.com/tally-eval/tally/stats"
)

// refTol is the absolute tolerance for agreement with R and statsmodels.
const refTol = 1e-9

type refTestCase struct {
	t                               Table
	exact, midp, chi, chiP, cc, ccP float64
	src                             string
}

// refTests: R mcnemar.test(correct = FALSE | TRUE), binom.test(B, B+C),
// and mid-p computed in R as 2*pbinom(m-1, B+C, .5) + dbinom(m, B+C, .5),
// at B = C as 1 - 0.5*dbinom(B, 2*B, .5) (Fagerland et al. 2013).
var refTests = []refTestCase{
	{t: Table{1, 1, 7, 12}, exact: 0.070312500000000028, midp: 0.039062500000000014, chi: 4.5, chiP: 0.033894853524689267, cc: 3.125, ccP: 0.077099871743541964, src: "R mcnemar.test(matrix(c(1,7,1,12),2), correct=FALSE|TRUE), binom.test(1, 8), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{0, 0, 0, 10}, exact: 1, midp: 1, chi: 0, chiP: 1, cc: 0, ccP: 1, src: "B+C = 0: R's mcnemar.test gives NaN and binom.test refuses n = 0; p = 1, statistic 0 by definition"},
	{t: Table{5, 3, 3, 9}, exact: 1, midp: 0.84375, chi: 0, chiP: 1, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(5,3,3,9),2), correct=FALSE|TRUE), binom.test(3, 6), mid-p 1-0.5*dbinom(3,6,.5)"},
	{t: Table{10, 0, 6, 4}, exact: 0.031250000000000007, midp: 0.015625000000000007, chi: 6, chiP: 0.014305878435429647, cc: 4.166666666666667, ccP: 0.041226833337163572, src: "R mcnemar.test(matrix(c(10,6,0,4),2), correct=FALSE|TRUE), binom.test(0, 6), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{10, 6, 0, 4}, exact: 0.031250000000000007, midp: 0.015625000000000007, chi: 6, chiP: 0.014305878435429647, cc: 4.166666666666667, ccP: 0.041226833337163572, src: "R mcnemar.test(matrix(c(10,0,6,4),2), correct=FALSE|TRUE), binom.test(6, 6), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{23, 15, 19, 31}, exact: 0.60759136127307989, midp: 0.49955983320251079, chi: 0.47058823529411764, chiP: 0.49271667722708773, cc: 0.26470588235294118, ccP: 0.60690542721795082, src: "R mcnemar.test(matrix(c(23,19,15,31),2), correct=FALSE|TRUE), binom.test(15, 34), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{50, 2, 9, 39}, exact: 0.065429687500000042, midp: 0.038574218750000007, chi: 4.4545454545454541, chiP: 0.034808478811867077, cc: 3.2727272727272729, ccP: 0.070440429272088212, src: "R mcnemar.test(matrix(c(50,9,2,39),2), correct=FALSE|TRUE), binom.test(2, 11), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{50, 40, 20, 50}, exact: 0.013489293731191905, midp: 0.0098534481952593182, chi: 6.666666666666667, chiP: 0.0098232745075192644, cc: 6.0166666666666666, ccP: 0.014171388254012368, src: "R mcnemar.test(matrix(c(50,20,40,50),2), correct=FALSE|TRUE), binom.test(40, 60), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{100, 25, 40, 300}, exact: 0.081681533941540332, midp: 0.064017504137225803, chi: 3.4615384615384617, chiP: 0.06281184751609882, cc: 3.0153846153846153, ccP: 0.082477887473209971, src: "R mcnemar.test(matrix(c(100,40,25,300),2), correct=FALSE|TRUE), binom.test(25, 65), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{3, 1, 0, 2}, exact: 1, midp: 0.5, chi: 1, chiP: 0.31731050786291415, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(3,0,1,2),2), correct=FALSE|TRUE), binom.test(1, 1), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{0, 120, 95, 0}, exact: 0.10145232764870653, midp: 0.088702907425861982, chi: 2.9069767441860463, chiP: 0.088197063728865807, cc: 2.6790697674418604, ccP: 0.10167510531668496, src: "R mcnemar.test(matrix(c(0,95,120,0),2), correct=FALSE|TRUE), binom.test(120, 215), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{1000, 512, 603, 2000}, exact: 0.0070061421186714693, midp: 0.0064238668495303474, chi: 7.4269058295964125, chiP: 0.0064255733691205305, cc: 7.2645739910313898, ccP: 0.0070327948606997452, src: "R mcnemar.test(matrix(c(1000,603,512,2000),2), correct=FALSE|TRUE), binom.test(512, 1115), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{0, 1, 0, 0}, exact: 1, midp: 0.5, chi: 1, chiP: 0.31731050786291415, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(0,0,1,0),2), correct=FALSE|TRUE), binom.test(1, 1), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{7, 0, 1, 7}, exact: 1, midp: 0.5, chi: 1, chiP: 0.31731050786291415, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(7,1,0,7),2), correct=FALSE|TRUE), binom.test(0, 1), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{166, 3, 0, 31}, exact: 0.25000000000000006, midp: 0.12500000000000003, chi: 3, chiP: 0.083264516663550558, cc: 1.3333333333333333, ccP: 0.24821307898992362, src: "R mcnemar.test(matrix(c(166,0,3,31),2), correct=FALSE|TRUE), binom.test(3, 3), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{5, 10, 9, 6}, exact: 1, midp: 0.82380294799804721, chi: 0.052631578947368418, chiP: 0.81854580838204338, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(5,9,10,6),2), correct=FALSE|TRUE), binom.test(10, 19), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{5, 9, 10, 6}, exact: 1, midp: 0.82380294799804721, chi: 0.052631578947368418, chiP: 0.81854580838204338, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(5,10,9,6),2), correct=FALSE|TRUE), binom.test(9, 19), mid-p 2*pbinom(m-1)+dbinom(m)"},
	{t: Table{2, 10, 10, 3}, exact: 1, midp: 0.91190147399902344, chi: 0, chiP: 1, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(2,10,10,3),2), correct=FALSE|TRUE), binom.test(10, 20), mid-p 1-0.5*dbinom(10,20,.5)"},
	{t: Table{0, 501, 500, 0}, exact: 1, midp: 0.97480015649047991, chi: 0.000999000999000999, chiP: 0.97478547928031967, cc: 0, ccP: 1, src: "R mcnemar.test(matrix(c(0,500,501,0),2), correct=FALSE|TRUE), binom.test(501, 1001), mid-p 2*pbinom(m-1)+dbinom(m)"},
}

func checkTests(t *testing.T, r Result, exact, midp, chi, chiP, cc, ccP float64, src string) {
	t.Helper()
	// Exact and mid-p have no statistic (NaN here), except with no
	// discordant pair, where every test has statistic 0 (the DESIGN
	// contract).
	none := math.NaN()
	if r.Table.Discordant() == 0 {
		none = 0
	}
	want := map[TestMethod][2]float64{
		TestExact: {none, exact}, TestMidP: {none, midp},
		TestAsymptotic: {chi, chiP}, TestAsymptoticCC: {cc, ccP},
	}
	for _, m := range TestMethods {
		got, ok := r.Test(m)
		if !ok {
			t.Fatalf("%v: no %s test", r.Table, m)
		}
		w := want[m]
		if math.IsNaN(w[0]) != !got.HasStatistic {
			t.Errorf("%v %s: HasStatistic = %v", r.Table, m, got.HasStatistic)
		}
		if got.HasStatistic {
			check(t, r.Table.String()+" "+string(m)+" statistic", got.Statistic, w[0], refTol, src)
		}
		check(t, r.Table.String()+" "+string(m)+" p", got.PValue, w[1], refTol, src)
	}
}

func TestReferenceMcNemarR(t *testing.T) {
	if len(refTests) < 8 {
		t.Fatalf("only %d tables", len(refTests))
	}
	for _, c := range refTests {
		r := mustMcNemar(t, c.t, 0.95)
		checkTests(t, r, c.exact, c.midp, c.chi, c.chiP, c.cc, c.ccP, c.src)
	}
}

// refStatsmodels: statsmodels mcnemar(table, exact=True) and
// (exact=False, correction=True|False), from reference.py.
var refStatsmodels = []struct {
	t                         Table
	exact, chi, chiP, cc, ccP float64
}{
	{t: Table{23, 15, 19, 31}, exact: 0.6075913612730801, chi: 0.47058823529411764, chiP: 0.4927166772270877, cc: 0.2647058823529412, ccP: 0.6069054272179508},
	{t: Table{1, 1, 7, 12}, exact: 0.0703125, chi: 4.5, chiP: 0.033894853524689295, cc: 3.125, ccP: 0.07709987174354202},
	{t: Table{50, 2, 9, 39}, exact: 0.0654296875, chi: 4.454545454545454, chiP: 0.03480847881186725, cc: 3.272727272727273, ccP: 0.070440429272088},
	{t: Table{50, 40, 20, 50}, exact: 0.01348929373119186, chi: 6.666666666666667, chiP: 0.009823274507519235, cc: 6.016666666666667, ccP: 0.014171388254012323},
	{t: Table{1000, 512, 603, 2000}, exact: 0.007006142118671443, chi: 7.4269058295964125, chiP: 0.006425573369120529, cc: 7.26457399103139, ccP: 0.007032794860699744},
}

func TestReferenceMcNemarStatsmodels(t *testing.T) {
	for _, c := range refStatsmodels {
		r := mustMcNemar(t, c.t, 0.95)
		src := "statsmodels mcnemar(" + c.t.String() + ")"
		ex, _ := r.Test(TestExact)
		check(t, src+" exact p", ex.PValue, c.exact, refTol, src)
		a, _ := r.Test(TestAsymptotic)
		check(t, src+" chi2", a.Statistic, c.chi, refTol, src)
		check(t, src+" chi2 p", a.PValue, c.chiP, refTol, src)
		cc, _ := r.Test(TestAsymptoticCC)
		check(t, src+" corrected chi2", cc.Statistic, c.cc, refTol, src)
		check(t, src+" corrected p", cc.PValue, c.ccP, refTol, src)
	}
	// The example in the brief and statsmodels' documentation:
	// [[23,15],[19,31]] has exact p 0.60759136127308 (14 digits).
	r := mustMcNemar(t, Table{23, 15, 19, 31}, 0.95)
	ex, _ := r.Test(TestExact)
	check(t, "statsmodels documented exact p", ex.PValue, 0.60759136127308, 5e-15, "statsmodels mcnemar([[23,15],[19,31]]).pvalue")
}

type refIntervalCase struct {
	t                     Table
	conf                  float64
	wald, newcombe, tango [2]float64
	phi                   float64
}

// refIntervals: reference.R's paired intervals (Wald formula; Tango by
// uniroot on the score with tol 1e-14; Newcombe's method 10 from
// prop.test(correct = FALSE) Wilson intervals and his φ rule).
var refIntervals = []refIntervalCase{
	{t: Table{1, 1, 7, 12}, conf: 0.94999999999999996, wald: [2]float64{0.051719535171290687, 0.51970903625728071}, newcombe: [2]float64{0.025559124164859892, 0.5069202266861409}, phi: 0, tango: [2]float64{0.026003032480868438, 0.51723227642137726}},
	{t: Table{0, 0, 0, 10}, conf: 0.94999999999999996, wald: [2]float64{0, 0}, newcombe: [2]float64{-0.27753279986288915, 0.27753279986288915}, phi: 0, tango: [2]float64{-0.27753279986288931, 0.2775327998628892}},
	{t: Table{5, 3, 3, 9}, conf: 0.94999999999999996, wald: [2]float64{-0.24004558381776542, 0.24004558381776542}, newcombe: [2]float64{-0.23965028266369437, 0.23965028266369437}, phi: 0.27083333333333331, tango: [2]float64{-0.2578962368979586, 0.2578962368979586}},
	{t: Table{10, 0, 6, 4}, conf: 0.94999999999999996, wald: [2]float64{0.099163455473640694, 0.50083654452635928}, newcombe: [2]float64{0.066700891852842309, 0.49120590836644012}, phi: 0.375, tango: [2]float64{0.090537294531334828, 0.51897281835352338}},
	{t: Table{10, 6, 0, 4}, conf: 0.94999999999999996, wald: [2]float64{-0.50083654452635928, -0.099163455473640694}, newcombe: [2]float64{-0.49120590836644012, -0.066700891852842309}, phi: 0.375, tango: [2]float64{-0.51897281835352349, -0.090537294531334939}},
	{t: Table{23, 15, 19, 31}, conf: 0.94999999999999996, wald: [2]float64{-0.084066561131613801, 0.1749756520407047}, newcombe: [2]float64{-0.084438966540239718, 0.17297333129314901}, phi: 0.20042452492864613, tango: [2]float64{-0.086024343939495984, 0.17585832320516981}},
	{t: Table{50, 2, 9, 39}, conf: 0.94999999999999996, wald: [2]float64{0.0064596724862900634, 0.13354032751370995}, newcombe: [2]float64{0.0038089855633161446, 0.13458064917031454}, phi: 0.76591291790259808, tango: [2]float64{0.0059557149689083615, 0.14588916464010329}},
	{t: Table{50, 40, 20, 50}, conf: 0.94999999999999996, wald: [2]float64{-0.21788851730996378, -0.032111482690036205}, newcombe: [2]float64{-0.21581894630415291, -0.030608736299668093}, phi: 0.25714285714285712, tango: [2]float64{-0.21806424416682479, -0.030864533133086763}},
	{t: Table{100, 25, 40, 300}, conf: 0.94999999999999996, wald: [2]float64{-0.0015974399211898804, 0.066113568953447943}, newcombe: [2]float64{-0.0018926730661322153, 0.066425539813096929}, phi: 0.65418707356073802, tango: [2]float64{-0.0017686305270613145, 0.067305874650352204}},
	{t: Table{3, 1, 0, 2}, conf: 0.94999999999999996, wald: [2]float64{-0.4648656906195261, 0.13153235728619281}, newcombe: [2]float64{-0.48492957148175747, 0.22197062586532468}, phi: 0.35355339059327379, tango: [2]float64{-0.56350282218646952, 0.28872333588585974}},
	{t: Table{0, 120, 95, 0}, conf: 0.94999999999999996, wald: [2]float64{-0.24904077515083051, 0.016482635615946803}, newcombe: [2]float64{-0.24584510323391623, 0.017369199858737805}, phi: -1, tango: [2]float64{-0.2458451032339162, 0.01736919985873776}},
	{t: Table{1000, 512, 603, 2000}, conf: 0.94999999999999996, wald: [2]float64{0.0062242339026820567, 0.038004198661108955}, newcombe: [2]float64{0.0062135446310812824, 0.037996194203397241}, phi: 0.42431969044541129, tango: [2]float64{0.0062188298342955054, 0.038023755750166831}},
	{t: Table{0, 1, 0, 0}, conf: 0.94999999999999996, wald: [2]float64{-1, -1}, newcombe: [2]float64{-1, 0.12210872068194178}, phi: 0, tango: [2]float64{-1, 0.58690137124552499}},
	{t: Table{7, 0, 1, 7}, conf: 0.94999999999999996, wald: [2]float64{-0.05956700670636679, 0.19290034003970014}, newcombe: [2]float64{-0.10040353225813267, 0.22395559253511316}, phi: 0.7410714285714286, tango: [2]float64{-0.15080885443823597, 0.29816529873780012}},
	{t: Table{166, 3, 0, 31}, conf: 0.94999999999999996, wald: [2]float64{-0.031846001613996672, 0.0018460016139966694}, newcombe: [2]float64{-0.039025582307537027, 0.0071674940726116528}, phi: 0.92796061577936562, tango: [2]float64{-0.043165728792690254, 0.0041280062729255589}},
	{t: Table{5, 10, 9, 6}, conf: 0.94999999999999996, wald: [2]float64{-0.31785958474049825, 0.25119291807383159}, newcombe: [2]float64{-0.29825811502536209, 0.23761163564755788}, phi: -0.2672612419124244, tango: [2]float64{-0.30705217976092242, 0.24612813575573772}},
	{t: Table{5, 9, 10, 6}, conf: 0.94999999999999996, wald: [2]float64{-0.25119291807383159, 0.31785958474049825}, newcombe: [2]float64{-0.23761163564755788, 0.29825811502536209}, phi: -0.2672612419124244, tango: [2]float64{-0.24612813575573769, 0.30705217976092242}},
	{t: Table{2, 10, 10, 3}, conf: 0.94999999999999996, wald: [2]float64{-0.35060901623063256, 0.35060901623063256}, newcombe: [2]float64{-0.32646927119160091, 0.32646927119160091}, phi: -0.60256410256410253, tango: [2]float64{-0.33181596690527243, 0.33181596690527243}},
	{t: Table{0, 501, 500, 0}, conf: 0.94999999999999996, wald: [2]float64{-0.062947506788383636, 0.060949504790381644}, newcombe: [2]float64{-0.062825161361472148, 0.060834797625537951}, phi: -1, tango: [2]float64{-0.062825161361472162, 0.060834797625537881}},
	{t: Table{1, 1, 7, 12}, conf: 0.90000000000000002, wald: [2]float64{0.08933970069425945, 0.48208887073431195}, newcombe: [2]float64{0.068870034765353, 0.47479832210209227}, phi: 0, tango: [2]float64{0.074630768475722226, 0.4816224918440189}},
	{t: Table{0, 0, 0, 10}, conf: 0.90000000000000002, wald: [2]float64{0, 0}, newcombe: [2]float64{-0.21294197008340682, 0.21294197008340682}, phi: 0, tango: [2]float64{-0.21294197008340685, 0.21294197008340779}},
	{t: Table{5, 3, 3, 9}, conf: 0.90000000000000002, wald: [2]float64{-0.20145260437986687, 0.20145260437986687}, newcombe: [2]float64{-0.20560444227817462, 0.20560444227817462}, phi: 0.27083333333333331, tango: [2]float64{-0.21374368844826447, 0.21374368844826447}},
	{t: Table{10, 0, 6, 4}, conf: 0.90000000000000002, wald: [2]float64{0.13145265867418193, 0.46854734132581805}, newcombe: [2]float64{0.1037416409790089, 0.46546192010699095}, phi: 0.375, tango: [2]float64{0.14509481143074632, 0.48380371959244223}},
	{t: Table{10, 6, 0, 4}, conf: 0.90000000000000002, wald: [2]float64{-0.46854734132581805, -0.13145265867418193}, newcombe: [2]float64{-0.46546192010699095, -0.1037416409790089}, phi: 0.375, tango: [2]float64{-0.48380371959244217, -0.14509481143074623}},
	{t: Table{23, 15, 19, 31}, conf: 0.90000000000000002, wald: [2]float64{-0.063242993691821681, 0.15415208460091259}, newcombe: [2]float64{-0.064064965194995355, 0.15328072198261661}, phi: 0.20042452492864613, tango: [2]float64{-0.06447742425879012, 0.15468012074683712}},
	{t: Table{50, 2, 9, 39}, conf: 0.90000000000000002, wald: [2]float64{0.016675276182109712, 0.12332472381789031}, newcombe: [2]float64{0.014283106801127557, 0.12457086938221025}, phi: 0.76591291790259808, tango: [2]float64{0.017586961119792313, 0.13180333365795618}},
	{t: Table{50, 40, 20, 50}, conf: 0.90000000000000002, wald: [2]float64{-0.20295450110543403, -0.047045498894565968}, newcombe: [2]float64{-0.20171647398996834, -0.045749973986598372}, phi: 0.25714285714285712, tango: [2]float64{-0.20303480292103779, -0.046267244356606486}},
	{t: Table{100, 25, 40, 300}, conf: 0.90000000000000002, wald: [2]float64{0.0038456295401547921, 0.060670499492103271}, newcombe: [2]float64{0.0036071563811908985, 0.060921301156381308}, phi: 0.65418707356073802, tango: [2]float64{0.003809265155381443, 0.061445688761180894}},
	{t: Table{3, 1, 0, 2}, conf: 0.90000000000000002, wald: [2]float64{-0.41692317646541899, 0.0835898431320857}, newcombe: [2]float64{-0.45265979612365853, 0.17519628426865796}, phi: 0.35355339059327379, tango: [2]float64{-0.50241708412459973, 0.19591464485689972}},
	{t: Table{0, 120, 95, 0}, conf: 0.90000000000000002, wald: [2]float64{-0.22769620515494515, -0.0048619343799385789}, newcombe: [2]float64{-0.225566087678989, -0.0041019272309885668}, phi: -1, tango: [2]float64{-0.22556608767898903, -0.0041019272309887576}},
	{t: Table{1000, 512, 603, 2000}, conf: 0.90000000000000002, wald: [2]float64{0.0087789226975199062, 0.035449509866271108}, newcombe: [2]float64{0.0087697740659110953, 0.035445489280787779}, phi: 0.42431969044541129, tango: [2]float64{0.0087765449471104741, 0.035461897953002662}},
	{t: Table{0, 1, 0, 0}, conf: 0.90000000000000002, wald: [2]float64{-1, -1}, newcombe: [2]float64{-1, 0.032565477580002389}, phi: 0, tango: [2]float64{-1, 0.4602681024318902}},
	{t: Table{7, 0, 1, 7}, conf: 0.90000000000000002, wald: [2]float64{-0.039271971557732946, 0.17260530489106629}, newcombe: [2]float64{-0.077386300147053277, 0.20338870507029833}, phi: 0.7410714285714286, tango: [2]float64{-0.096328218250816167, 0.2507505631331769}},
	{t: Table{166, 3, 0, 31}, conf: 0.90000000000000002, wald: [2]float64{-0.029137610217830255, -0.00086238978216974377}, newcombe: [2]float64{-0.034256635228320023, 0.0028670098338576325}, phi: 0.92796061577936562, tango: [2]float64{-0.036936517992361681, -0.0014526319354027512}},
	{t: Table{5, 10, 9, 6}, conf: 0.90000000000000002, wald: [2]float64{-0.27211529069660007, 0.20544862402993341}, newcombe: [2]float64{-0.25985914204377453, 0.19757971860851958}, phi: -0.2672612419124244, tango: [2]float64{-0.26540276762680554, 0.202851413074221}},
	{t: Table{5, 9, 10, 6}, conf: 0.90000000000000002, wald: [2]float64{-0.20544862402993341, 0.27211529069660007}, newcombe: [2]float64{-0.19757971860851958, 0.25985914204377447}, phi: -0.2672612419124244, tango: [2]float64{-0.20285141307422097, 0.26540276762680554}},
	{t: Table{2, 10, 10, 3}, conf: 0.90000000000000002, wald: [2]float64{-0.29424036183204566, 0.29424036183204566}, newcombe: [2]float64{-0.27953186354406384, 0.27953186354406384}, phi: -0.60256410256410253, tango: [2]float64{-0.28289582225952942, 0.28289582225952947}},
	{t: Table{0, 501, 500, 0}, conf: 0.90000000000000002, wald: [2]float64{-0.052987825913966127, 0.050989823915964128}, newcombe: [2]float64{-0.052915016471617782, 0.050922400197807804}, phi: -1, tango: [2]float64{-0.052915016471617851, 0.050922400197807811}},
	{t: Table{1, 1, 7, 12}, conf: 0.98999999999999999, wald: [2]float64{-0.021806944308063236, 0.59323551573663469}, newcombe: [2]float64{-0.057604796929180579, 0.56462649855379365}, phi: 0, tango: [2]float64{-0.075807398746558133, 0.5824406790587644}},
	{t: Table{0, 0, 0, 10}, conf: 0.98999999999999999, wald: [2]float64{0, 0}, newcombe: [2]float64{-0.39885409330490795, 0.39885409330490795}, phi: 0, tango: [2]float64{-0.39885409330490795, 0.39885409330490806}},
	{t: Table{5, 3, 3, 9}, conf: 0.98999999999999999, wald: [2]float64{-0.31547337291016836, 0.31547337291016836}, newcombe: [2]float64{-0.29944787596312411, 0.29944787596312411}, phi: 0.27083333333333331, tango: [2]float64{-0.3437572849107719, 0.34375728491077184}},
	{t: Table{10, 0, 6, 4}, conf: 0.98999999999999999, wald: [2]float64{0.036056039450184207, 0.56394396054981577}, newcombe: [2]float64{-0.0021241792215702104, 0.53564989222318993}, phi: 0.375, tango: [2]float64{-0.023837021428379634, 0.58390284855082131}},
	{t: Table{10, 6, 0, 4}, conf: 0.98999999999999999, wald: [2]float64{-0.56394396054981577, -0.036056039450184207}, newcombe: [2]float64{-0.53564989222318993, 0.0021241792215702104}, phi: 0.375, tango: [2]float64{-0.58390284855082142, 0.023837021428379578}},
	{t: Table{23, 15, 19, 31}, conf: 0.98999999999999999, wald: [2]float64{-0.12476504245844434, 0.21567413336753527}, newcombe: [2]float64{-0.12322362049832442, 0.210151461707139}, phi: 0.20042452492864613, tango: [2]float64{-0.12868246347884243, 0.21747449683011577}},
	{t: Table{50, 2, 9, 39}, conf: 0.98999999999999999, wald: [2]float64{-0.013506145448543436, 0.15350614544854346}, newcombe: [2]float64{-0.016272050465972174, 0.15355959807092584}, phi: 0.76591291790259808, tango: [2]float64{-0.02019892343282096, 0.1754773944271425}},
	{t: Table{50, 40, 20, 50}, conf: 0.98999999999999999, wald: [2]float64{-0.24707620483718351, -0.0029237951628164893}, newcombe: [2]float64{-0.2426616856651278, -0.001271707284825313}, phi: 0.25714285714285712, tango: [2]float64{-0.24752812184333439, -0.00030889272315626388}},
	{t: Table{100, 25, 40, 300}, conf: 0.98999999999999999, wald: [2]float64{-0.012235610420729855, 0.07675173945298791}, newcombe: [2]float64{-0.012659074152084206, 0.077200926871500847}, phi: 0.65418707356073802, tango: [2]float64{-0.012931097898129065, 0.079098724629049655}},
	{t: Table{3, 1, 0, 2}, conf: 0.98999999999999999, wald: [2]float64{-0.55856661495459847, 0.22523328162126513}, newcombe: [2]float64{-0.5322408066907508, 0.29404044329177009}, phi: 0.35355339059327379, tango: [2]float64{-0.66353667808526162, 0.44597884564926094}},
	{t: Table{0, 120, 95, 0}, conf: 0.98999999999999999, wald: [2]float64{-0.29075752641924046, 0.05819938688435676}, newcombe: [2]float64{-0.28468037918486683, 0.059084136143735533}, phi: -1, tango: [2]float64{-0.28468037918486683, 0.05908413614373545}},
	{t: Table{1000, 512, 603, 2000}, conf: 0.98999999999999999, wald: [2]float64{0.0012312395700256086, 0.042997192993765407}, newcombe: [2]float64{0.0012188741972977667, 0.042977290210235247}, phi: 0.42431969044541129, tango: [2]float64{0.0012150621360060843, 0.043037560937632419}},
	{t: Table{0, 1, 0, 0}, conf: 0.98999999999999999, wald: [2]float64{-1, -1}, newcombe: [2]float64{-1, 0.22898334429994716}, phi: 0, tango: [2]float64{-1, 0.73804491343962808}},
	{t: Table{7, 0, 1, 7}, conf: 0.98999999999999999, wald: [2]float64{-0.099232501651563845, 0.23256583498489719}, newcombe: [2]float64{-0.1396399488342768, 0.25826055906127371}, phi: 0.7410714285714286, tango: [2]float64{-0.26045405739333327, 0.39124288986941991}},
	{t: Table{166, 3, 0, 31}, conf: 0.98999999999999999, wald: [2]float64{-0.037139398962041451, 0.0071393989620414482}, newcombe: [2]float64{-0.049608776933935603, 0.016791601275605576}, phi: 0.92796061577936562, tango: [2]float64{-0.057348598918633475, 0.017590913542738191}},
	{t: Table{5, 10, 9, 6}, conf: 0.98999999999999999, wald: [2]float64{-0.40726421256603768, 0.34059754589937102}, newcombe: [2]float64{-0.36699854198623905, 0.30993718969950224}, phi: -0.2672612419124244, tango: [2]float64{-0.38434483193788255, 0.32715809156146347}},
	{t: Table{5, 9, 10, 6}, conf: 0.98999999999999999, wald: [2]float64{-0.34059754589937102, 0.40726421256603768}, newcombe: [2]float64{-0.30993718969950224, 0.36699854198623905}, phi: -0.2672612419124244, tango: [2]float64{-0.32715809156146347, 0.38434483193788255}},
	{t: Table{2, 10, 10, 3}, conf: 0.98999999999999999, wald: [2]float64{-0.46077835369370246, 0.46077835369370246}, newcombe: [2]float64{-0.40970374185407865, 0.40970374185407865}, phi: -0.60256410256410253, tango: [2]float64{-0.42021946727411735, 0.4202194672741173}},
	{t: Table{0, 501, 500, 0}, conf: 0.98999999999999999, wald: [2]float64{-0.082413138086222332, 0.080415136088220346}, newcombe: [2]float64{-0.082138076884207489, 0.080153230977474177}, phi: -1, tango: [2]float64{-0.082138076884207406, 0.080153230977474274}},
}

func TestReferencePairedIntervals(t *testing.T) {
	for _, c := range refIntervals {
		r := mustMcNemar(t, c.t, c.conf)
		src := "reference.R " + c.t.String()
		for _, m := range []struct {
			m    IntervalMethod
			want [2]float64
		}{{IntervalWald, c.wald}, {IntervalNewcombe, c.newcombe}, {IntervalTango, c.tango}} {
			iv, ok := r.Interval(m.m)
			if !ok {
				t.Fatalf("%v: no %s interval", c.t, m.m)
			}
			check(t, c.t.String()+" "+string(m.m)+" lower", iv.Lower, m.want[0], refTol, src)
			check(t, c.t.String()+" "+string(m.m)+" upper", iv.Upper, m.want[1], refTol, src)
		}
		check(t, c.t.String()+" phi", newcombePhi(c.t), c.phi, 1e-12, src)
	}
}

// TestReferencePublished pins values as their sources print them.
func TestReferencePublished(t *testing.T) {
	// Fagerland, Lydersen & Laake (2014), Bentur et al. (2009): n = 21,
	// before/after SCT table rbind(c(1, 1), c(7, 12)). In our orientation
	// (before = reference) A = 1, B = 1, C = 7, D = 12.
	const fag = "Fagerland, Lydersen & Laake 2014, Bentur et al. 2009 example"
	r := mustMcNemar(t, Table{A: 1, B: 1, C: 7, D: 12}, 0.95)
	ex, _ := r.Test(TestExact)
	check(t, "Bentur exact p = 18/256", ex.PValue, 18.0/256, 1e-15, fag)
	mid, _ := r.Test(TestMidP)
	check(t, "Bentur mid-p = 10/256", mid.PValue, 10.0/256, 1e-15, fag)
	as, _ := r.Test(TestAsymptotic)
	check(t, "Bentur chi2", as.Statistic, 4.5, 1e-15, fag)
	check(t, "Bentur asymptotic p", as.PValue, 0.0339, 5e-5, fag)
	cc, _ := r.Test(TestAsymptoticCC)
	check(t, "Bentur corrected chi2", cc.Statistic, 3.125, 1e-15, fag)
	check(t, "Bentur corrected p", cc.PValue, 0.0771, 5e-5, fag)
	tango, _ := r.Interval(IntervalTango)
	check(t, "Bentur tango lower", tango.Lower, 0.0260, 5e-5, fag+" (their −0.5172 to −0.0260 negated)")
	check(t, "Bentur tango upper", tango.Upper, 0.5172, 5e-5, fag)
	wald, _ := r.Interval(IntervalWald)
	check(t, "Bentur wald lower", wald.Lower, 0.0517, 5e-5, fag)
	check(t, "Bentur wald upper", wald.Upper, 0.5197, 5e-5, fag)
	check(t, "Bentur difference", r.Difference, 6.0/21, 1e-15, fag)

	// exact2x2 vignette "Exact McNemar's test": b = 2, c = 9 gives
	// McNemar's chi-squared 3.2727 (corrected), p 0.07044, exact p 0.06543.
	const e2 = "exact2x2 vignette exactMcNemar, b = 2, c = 9"
	r = mustMcNemar(t, Table{A: 50, B: 2, C: 9, D: 39}, 0.95)
	cc, _ = r.Test(TestAsymptoticCC)
	check(t, "b=2 c=9 corrected chi2", cc.Statistic, 3.2727, 5e-5, e2)
	check(t, "b=2 c=9 corrected p", cc.PValue, 0.07044, 5e-6, e2)
	ex, _ = r.Test(TestExact)
	check(t, "b=2 c=9 exact p", ex.PValue, 0.06543, 5e-6, e2)

	// PropCIs scoreci.mp(b = 40, c = 20, n = 160, conf.level = 0.95):
	// (-0.2181, -0.0309). Tango depends on B, C and n only.
	const pc = "PropCIs scoreci.mp(b = 40, c = 20, n = 160) example"
	for _, tb := range []Table{{A: 50, B: 40, C: 20, D: 50}, {A: 100, B: 40, C: 20, D: 0}} {
		r = mustMcNemar(t, tb, 0.95)
		tango, _ = r.Interval(IntervalTango)
		check(t, tb.String()+" tango lower", tango.Lower, -0.2181, 5e-5, pc)
		check(t, tb.String()+" tango upper", tango.Upper, -0.0309, 5e-5, pc)
	}

	// MESS power_mcnemar_test(paid = 0.05, psi = 9, power = 0.8): n =
	// 22.01, so 23 pairs. paid is the smaller discordant probability and
	// psi the ratio of the larger to it: p_lost 0.05, p_gained 0.45 (the
	// normal method is Connor's formula; the direction does not matter).
	const mess = "MESS power_mcnemar_test(paid = 0.05, psi = 9, power = 0.8)"
	for _, d := range []Paired{{PLost: 0.05, PGained: 0.45, Alpha: 0.05, Method: Connor}, {PLost: 0.45, PGained: 0.05, Alpha: 0.05, Method: Connor}} {
		ss, err := d.SampleSize(0.8)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "MESS n", ss.Unrounded, 22.01, 0.005, mess)
		if ss.N != 23 {
			t.Errorf("MESS: N = %d, want 23 (%s)", ss.N, mess)
		}
	}

	// exact2x2 powerPaired2x2(pb = 0.5, pc = 0.3, npairs = 100) =
	// 0.5693122: pb and pc are the two discordant cell probabilities.
	// exact2x2 counts only rejections in the effect's direction and
	// truncates at errbound 1e-6; both tails (ours, 0.56931926 by brute
	// force in reference.R) exceed its value by 6.9e-6: the wrong-
	// direction rejections (brute force with strict = FALSE gives
	// 0.56931233, which exact2x2's truncated sum rounds to 0.5693122).
	p, err := Paired{PLost: 0.5, PGained: 0.3, Alpha: 0.05, Method: Exact}.Power(100)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "powerPaired2x2(0.5, 0.3, 100)", p, 0.5693122, 1e-5, "exact2x2 powerPaired2x2(.5, .3, 100)")
}

// TestNewcombePhiZeroIsIndependent: with φ forced to 0 the paired
// Newcombe interval is exactly stats.Compare's independent-groups
// Newcombe interval on the two marginal rates; the code path is shared.
func TestNewcombePhiZeroIsIndependent(t *testing.T) {
	for _, c := range refIntervals {
		n := c.t.Pairs()
		cmp, err := stats.Compare(stats.Proportion{K: c.t.A + c.t.C, N: n}, stats.Proportion{K: c.t.A + c.t.B, N: n}, c.conf)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cmp.Interval(stats.DiffNewcombe)
		lo, hi := newcombePaired(c.t, c.conf, 0)
		if lo != want.Lower || hi != want.Upper {
			t.Errorf("%v at %v: paired newcombe with phi = 0 is [%v, %v], stats.Compare gives [%v, %v]", c.t, c.conf, lo, hi, want.Lower, want.Upper)
		}
	}
}

// refPowerProp: R power.prop.test(n, p1, p2, sig.level)$power.
var refPowerProp = []struct {
	n                    int
	p1, p2, alpha, power float64
}{
	{n: 200, p1: 0.82999999999999996, p2: 0.81499999999999995, alpha: 0.050000000000000003, power: 0.05847678601624131},
	{n: 100, p1: 0.5, p2: 0.59999999999999998, alpha: 0.050000000000000003, power: 0.29412732691069843},
	{n: 50, p1: 0.10000000000000001, p2: 0.20000000000000001, alpha: 0.050000000000000003, power: 0.28595083520607234},
	{n: 500, p1: 0.90000000000000002, p2: 0.94999999999999996, alpha: 0.050000000000000003, power: 0.85227965533963235},
	{n: 1000, p1: 0.29999999999999999, p2: 0.25, alpha: 0.050000000000000003, power: 0.70705653892904885},
	{n: 300, p1: 0.02, p2: 0.050000000000000003, alpha: 0.050000000000000003, power: 0.51572511571099289},
	{n: 200, p1: 0.82999999999999996, p2: 0.71999999999999997, alpha: 0.050000000000000003, power: 0.75180241913555945},
	{n: 40, p1: 0.5, p2: 0.5, alpha: 0.050000000000000003, power: 0.025000000000000029},
	{n: 10, p1: 0, p2: 1, alpha: 0.050000000000000003, power: 1},
	{n: 25, p1: 0.98999999999999999, p2: 0.59999999999999998, alpha: 0.050000000000000003, power: 0.95178029576363299},
	{n: 200, p1: 0.82999999999999996, p2: 0.81499999999999995, alpha: 0.01, power: 0.014493117806344262},
	{n: 100, p1: 0.5, p2: 0.59999999999999998, alpha: 0.01, power: 0.12294980883464197},
	{n: 50, p1: 0.10000000000000001, p2: 0.20000000000000001, alpha: 0.01, power: 0.11756519911865455},
	{n: 500, p1: 0.90000000000000002, p2: 0.94999999999999996, alpha: 0.01, power: 0.66552966052458484},
	{n: 1000, p1: 0.29999999999999999, p2: 0.25, alpha: 0.01, power: 0.47129026698355841},
	{n: 300, p1: 0.02, p2: 0.050000000000000003, alpha: 0.01, power: 0.2814633803410645},
	{n: 200, p1: 0.82999999999999996, p2: 0.71999999999999997, alpha: 0.01, power: 0.52348207881129671},
	{n: 40, p1: 0.5, p2: 0.5, alpha: 0.01, power: 0.0050000000000000105},
	{n: 10, p1: 0, p2: 1, alpha: 0.01, power: 1},
	{n: 25, p1: 0.98999999999999999, p2: 0.59999999999999998, alpha: 0.01, power: 0.83122196061861908},
}

func TestReferencePowerPropTest(t *testing.T) {
	for _, c := range refPowerProp {
		got, err := Independent{P1: c.p1, P2: c.p2, Alpha: c.alpha}.Power(c.n)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "power.prop.test power", got, c.power, refTol, "R power.prop.test")
	}
}

// refPowerPropN: R power.prop.test(p1, p2, power, sig.level)$n, with
// tol = 1e-12 and with R's default tol = .Machine$double.eps^0.25.
var refPowerPropN = []struct {
	p1, p2, power, alpha, n, nDefaultTol float64
	ceil                                 int
}{
	{p1: 0.5, p2: 0.75, power: 0.80000000000000004, alpha: 0.050000000000000003, n: 57.673436738908357, nDefaultTol: 57.673439731261368, ceil: 58},
	{p1: 0.82999999999999996, p2: 0.81499999999999995, power: 0.80000000000000004, alpha: 0.050000000000000003, n: 10184.486634551164, nDefaultTol: 10184.486624135965, ceil: 10185},
	{p1: 0.10000000000000001, p2: 0.20000000000000001, power: 0.80000000000000004, alpha: 0.050000000000000003, n: 198.96341328433101, nDefaultTol: 198.96341328382053, ceil: 199},
	{p1: 0.90000000000000002, p2: 0.94999999999999996, power: 0.90000000000000002, alpha: 0.050000000000000003, n: 581.08205383447739, nDefaultTol: 581.08205398495193, ceil: 582},
	{p1: 0.59999999999999998, p2: 0.5, power: 0.90000000000000002, alpha: 0.050000000000000003, n: 518.03716929980715, nDefaultTol: 518.03716946101645, ceil: 519},
	{p1: 0.050000000000000003, p2: 0.01, power: 0.80000000000000004, alpha: 0.01, n: 423.38061715942837, nDefaultTol: 423.38061715937732, ceil: 424},
	{p1: 0.29999999999999999, p2: 0.34999999999999998, power: 0.94999999999999996, alpha: 0.10000000000000001, n: 1896.5849964332858, nDefaultTol: 1896.5849964332251, ceil: 1897},
	{p1: 0.82999999999999996, p2: 0.71999999999999997, power: 0.80000000000000004, alpha: 0.050000000000000003, n: 225.04033149526364, nDefaultTol: 225.04032425082019, ceil: 226},
}

func TestReferencePowerPropTestN(t *testing.T) {
	for _, c := range refPowerPropN {
		ss, err := Independent{P1: c.p1, P2: c.p2, Alpha: c.alpha}.SampleSize(c.power)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "n (tol 1e-12)", ss.Unrounded, c.n, 1e-6, "R power.prop.test(..., tol = 1e-12)$n")
		// R's default uniroot tolerance is 1.22e-4 in n.
		check(t, "n (default tol)", ss.Unrounded, c.nDefaultTol, math.Pow(2.220446049250313e-16, 0.25), "R power.prop.test()$n")
		if ss.N != c.ceil {
			t.Errorf("p1 %v p2 %v: N = %d, want ceiling %d", c.p1, c.p2, ss.N, c.ceil)
		}
		check(t, "power at the real n", Independent{P1: c.p1, P2: c.p2, Alpha: c.alpha}.power(ss.Unrounded), c.power, 1e-12, "definition")
	}
}

// refIndependentMDE: R power.prop.test(n, p2 = rate, power, tol =
// 1e-12)$p1, the rate below `rate` detected with that power.
var refIndependentMDE = []struct {
	n                      int
	rate, power, alpha, p2 float64
}{
	{n: 200, rate: 0.82999999999999996, power: 0.80000000000000004, alpha: 0.050000000000000003, p2: 0.71268915458469739},
	{n: 100, rate: 0.5, power: 0.80000000000000004, alpha: 0.050000000000000003, p2: 0.30677484906998803},
	{n: 1000, rate: 0.94999999999999996, power: 0.90000000000000002, alpha: 0.050000000000000003, p2: 0.91347885508968996},
	{n: 50, rate: 0.29999999999999999, power: 0.80000000000000004, alpha: 0.01, p2: 0.04537440597477671},
	{n: 2000, rate: 0.59999999999999998, power: 0.80000000000000004, alpha: 0.050000000000000003, p2: 0.55626008869789278},
}

func TestReferenceIndependentMDE(t *testing.T) {
	for _, c := range refIndependentMDE {
		m, err := IndependentMDE(c.rate, c.n, c.alpha, c.power)
		if err != nil || !m.Detectable {
			t.Fatalf("IndependentMDE(%v, %d): %+v, %v", c.rate, c.n, m, err)
		}
		check(t, "independent MDE", m.Effect, c.rate-c.p2, refTol, "R power.prop.test(n, p2, power)$p1")
	}
}

// refConnor: Connor's and Miettinen's power and n, evaluated in R from
// their formulas (reference.R).
var refConnor = []struct {
	n                                                int
	pl, pg, alpha, target                            float64
	connorPower, connorN, miettinenPower, miettinenN float64
}{
	{n: 22, pl: 0.050000000000000003, pg: 0.45000000000000001, alpha: 0.050000000000000003, target: 0.80000000000000004, connorPower: 0.7997681058350089, connorN: 22.011324427435788, miettinenPower: 0.85204469018449203, miettinenN: 19.817169339970281},
	{n: 100, pl: 0.10000000000000001, pg: 0.20000000000000001, alpha: 0.050000000000000003, target: 0.80000000000000004, connorPower: 0.4457064165786786, connorN: 233.09453820467385, miettinenPower: 0.44400131322744274, miettinenN: 228.87322733365622},
	{n: 200, pl: 0.014999999999999999, pg: 0, alpha: 0.050000000000000003, target: 0.80000000000000004, connorPower: 0.40918498399078901, connorN: 520.89454271390275, miettinenPower: 0.32301511832296725, miettinenN: 376.86754194194248},
	{n: 50, pl: 0.125, pg: 0.25, alpha: 0.050000000000000003, target: 0.90000000000000002, connorPower: 0.29885413068675876, connorN: 247.99725989933427, miettinenPower: 0.29368507679162464, miettinenN: 242.69221609217971},
	{n: 1000, pl: 0.02, pg: 0.029999999999999999, alpha: 0.050000000000000003, target: 0.80000000000000004, connorPower: 0.2924309015968774, connorN: 3922.0811679678559, miettinenPower: 0.28969756284211728, miettinenN: 3888.2875011388369},
	{n: 300, pl: 0.29999999999999999, pg: 0.20000000000000001, alpha: 0.01, target: 0.90000000000000002, connorPower: 0.44922396947692866, connorN: 739.00925353496598, miettinenPower: 0.44883301319322005, miettinenN: 735.26689973269526},
	{n: 80, pl: 0.10000000000000001, pg: 0.050000000000000003, alpha: 0.10000000000000001, target: 0.5, connorPower: 0.31055087861942643, connorN: 162.33260724572466, miettinenPower: 0.30393519331871521, miettinenN: 162.33260724572466},
}

func TestReferenceConnorMiettinen(t *testing.T) {
	for _, c := range refConnor {
		for _, m := range []struct {
			m        PairedMethod
			power, n float64
		}{{Connor, c.connorPower, c.connorN}, {Miettinen, c.miettinenPower, c.miettinenN}} {
			d := Paired{PLost: c.pl, PGained: c.pg, Alpha: c.alpha, Method: m.m}
			p, err := d.Power(c.n)
			if err != nil {
				t.Fatal(err)
			}
			check(t, string(m.m)+" power", p, m.power, refTol, "reference.R")
			ss, err := d.SampleSize(c.target)
			if err != nil {
				t.Fatal(err)
			}
			check(t, string(m.m)+" n", ss.Unrounded, m.n, 1e-9*m.n, "reference.R")
			if ss.N != int(math.Ceil(m.n)) {
				t.Errorf("%s %+v: N = %d, want %v rounded up", m.m, d, ss.N, m.n)
			}
		}
	}
}

// refPairedMDE: R uniroot of Connor's power in p_lost with p_gained = 0.
var refPairedMDE = []struct {
	n                   int
	alpha, power, pLost float64
}{
	{n: 200, alpha: 0.050000000000000003, power: 0.80000000000000004, pLost: 0.038783996659100664},
	{n: 1000, alpha: 0.050000000000000003, power: 0.90000000000000002, pLost: 0.010463885192504812},
	{n: 40, alpha: 0.01, power: 0.80000000000000004, pLost: 0.27130500363854931},
	{n: 5000, alpha: 0.10000000000000001, power: 0.5, pLost: 0.0005411086908191148},
}

func TestReferencePairedMDE(t *testing.T) {
	for _, c := range refPairedMDE {
		m, err := PairedMDE(c.n, c.alpha, c.power)
		if err != nil || !m.Detectable {
			t.Fatalf("PairedMDE(%d): %+v, %v", c.n, m, err)
		}
		check(t, "paired MDE", m.Effect, c.pLost, 1e-10, "reference.R uniroot")
	}
}

// refExactPower: the exact McNemar test's power by brute force in R:
// Σ over every (B, C) of dmultinom × [binom.test(B, B+C)$p.value ≤ α].
var refExactPower = []struct {
	pl, pg float64
	n      int
	alpha  float64
	power  float64
}{
	{pl: 0.5, pg: 0.29999999999999999, n: 100, alpha: 0.050000000000000003, power: 0.5693192607324109},
	{pl: 0.29999999999999999, pg: 0.5, n: 100, alpha: 0.050000000000000003, power: 0.56931926073240835},
	{pl: 0.050000000000000003, pg: 0.45000000000000001, n: 23, alpha: 0.050000000000000003, power: 0.77658617765978921},
	{pl: 0.10000000000000001, pg: 0.20000000000000001, n: 60, alpha: 0.050000000000000003, power: 0.22084643588780592},
	{pl: 0.02, pg: 0.059999999999999998, n: 150, alpha: 0.050000000000000003, power: 0.30747914383564556},
	{pl: 0.25, pg: 0, n: 20, alpha: 0.050000000000000003, power: 0.38282734561289455},
	{pl: 0, pg: 0.10000000000000001, n: 30, alpha: 0.050000000000000003, power: 0.073190108399880216},
	{pl: 0.20000000000000001, pg: 0.20000000000000001, n: 50, alpha: 0.050000000000000003, power: 0.029553184586829356},
	{pl: 0.29999999999999999, pg: 0.29999999999999999, n: 80, alpha: 0.01, power: 0.006761750449846172},
	{pl: 0.59999999999999998, pg: 0.40000000000000002, n: 40, alpha: 0.050000000000000003, power: 0.21156258883842052},
	{pl: 0.14999999999999999, pg: 0.050000000000000003, n: 90, alpha: 0.10000000000000001, power: 0.626704850420575},
}

func TestReferenceExactPower(t *testing.T) {
	for _, c := range refExactPower {
		got, err := Paired{PLost: c.pl, PGained: c.pg, Alpha: c.alpha, Method: Exact}.Power(c.n)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "exact power", got, c.power, refTol, "reference.R brute force")
		if c.pl == c.pg {
			size, err := ExactSize(c.n, c.pl+c.pg, c.alpha)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "exact size", size, c.power, refTol, "reference.R brute force at θ = ½")
		}
	}
}

// refExactSampleSize: reference.R scans every n, computing each power
// from binom.test rejection regions: first is the smallest n reaching
// the target, stable the smallest with every n' in [n, ⌊1.1n⌋] reaching
// it; power and size are at stable.
var refExactSampleSize = []struct {
	pl, pg, alpha, target float64
	first, stable         int
	power, size           float64
}{
	{pl: 0.050000000000000003, pg: 0.45000000000000001, alpha: 0.050000000000000003, target: 0.80000000000000004, first: 25, stable: 25, power: 0.82016206784020251, size: 0.024768337547477867},
	{pl: 0.10000000000000001, pg: 0.29999999999999999, alpha: 0.050000000000000003, target: 0.80000000000000004, first: 84, stable: 84, power: 0.80299362110786621, size: 0.032048844725512782},
	{pl: 0.40000000000000002, pg: 0.59999999999999998, alpha: 0.050000000000000003, target: 0.80000000000000004, first: 199, stable: 210, power: 0.82024843755482202, size: 0.045114087864840696},
	{pl: 0.20000000000000001, pg: 0.050000000000000003, alpha: 0.050000000000000003, target: 0.90000000000000002, first: 119, stable: 119, power: 0.90082498005598044, size: 0.03069117201905637},
	{pl: 0.02, pg: 0.059999999999999998, alpha: 0.050000000000000003, target: 0.80000000000000004, first: 421, stable: 421, power: 0.80021796909156029, size: 0.032154151745585509},
}

func TestReferenceExactSampleSize(t *testing.T) {
	for _, c := range refExactSampleSize {
		ss, err := Paired{PLost: c.pl, PGained: c.pg, Alpha: c.alpha, Method: Exact}.SampleSize(c.target)
		if err != nil {
			t.Fatal(err)
		}
		if ss.N != c.stable || ss.FirstN != c.first {
			t.Errorf("exact sample size %v/%v: N = %d, FirstN = %d; want %d, %d (reference.R scan)", c.pl, c.pg, ss.N, ss.FirstN, c.stable, c.first)
		}
		check(t, "exact power at N", ss.Power, c.power, refTol, "reference.R scan")
		if !ss.HasActualSize {
			t.Errorf("exact sample size: no actual size")
		}
		check(t, "exact size at N", ss.ActualSize, c.size, refTol, "reference.R scan at θ = ½")
	}
}
