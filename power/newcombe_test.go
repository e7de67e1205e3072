package power

import (
	"errors"
	"strings"
	"testing"
)

// TestNewcombeUncorrected pins Newcombe's paired square-and-add interval
// with and without the correlation correction.
//
// Published: Newcombe (1998, Stat Med 17:2635)'s example a,b,c,d =
// 20,12,2,16 as ratesci's tests/testthat/test3.R pins it — method 10
// (0.0562, 0.3292) and, with corc = FALSE, "Newcombe's method 8"
// (0.0618, 0.3242); the numbering is ratesci's. There b (12) counts pairs
// the first condition gets right and the second wrong: the candidate's
// gains, so in tally's orientation the table is Table{A: 20, B: 2 (lost),
// C: 12 (gained), D: 16}. Also Cavo et al. (2012) a,b,c,d = 59,6,16,80,
// tally's Table{59, 16, 6, 80}: "Newcombe square-and-add … −0.0621 (95%
// CI −0.1186 to −0.0046)" (contingencytables tests/testthat/test-ch8.R).
//
// Full precision: the formula transcribed in base R (Wilson limits
// combined with φ; a script like /work/i13refs/final/all.R's
// newc_paired, in tally's orientation), R 4.2, for more tables and levels.
func TestNewcombeUncorrected(t *testing.T) {
	const (
		ratesci = "ratesci test3.R, Newcombe 1998b example (methods 10 and, per ratesci, 8)"
		cavo    = "contingencytables test-ch8.R, Cavo et al. 2012"
	)
	published := []struct {
		t      Table
		m      IntervalMethod
		lo, hi float64
		src    string
	}{
		{Table{A: 20, B: 2, C: 12, D: 16}, IntervalNewcombe, 0.0562, 0.3292, ratesci},
		{Table{A: 20, B: 2, C: 12, D: 16}, IntervalNewcombeUncorrected, 0.0618, 0.3242, ratesci},
		{Table{A: 59, B: 16, C: 6, D: 80}, IntervalNewcombe, -0.1186, -0.0046, cavo},
	}
	for _, p := range published {
		iv, err := PairedInterval(p.t, p.m, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		check(t, p.t.String()+" "+string(p.m)+" lower", iv.Lower, p.lo, 5e-5, p.src)
		check(t, p.t.String()+" "+string(p.m)+" upper", iv.Upper, p.hi, 5e-5, p.src)
	}

	rRef := []struct {
		t          Table
		conf       float64
		plain, m10 [2]float64
		phi        float64
	}{
		{t: Table{20, 2, 12, 16}, conf: 0.95, plain: [2]float64{0.061804758234899532, 0.3241622931390557}, phi: 0.49692416114898452, m10: [2]float64{0.05615642484174832, 0.32920699540014053}},
		{t: Table{20, 2, 12, 16}, conf: 0.90, plain: [2]float64{0.083760839005675894, 0.30614502633620183}, phi: 0.49692416114898452, m10: [2]float64{0.079009352741848865, 0.31046205605550947}},
		{t: Table{59, 16, 6, 80}, conf: 0.95, plain: [2]float64{-0.1173509276063391, -0.0059235054318085428}, phi: 0.72886261230275806, m10: [2]float64{-0.11862119563870993, -0.0046251139330500748}},
		{t: Table{59, 16, 6, 80}, conf: 0.90, plain: [2]float64{-0.1086728021860931, -0.014877987595523424}, phi: 0.72886261230275806, m10: [2]float64{-0.10974484287179012, -0.01378599079316848}},
		{t: Table{1, 7, 1, 12}, conf: 0.95, plain: [2]float64{-0.50166254030151325, -0.036052553488836625}, phi: 0.079535595371972218, m10: [2]float64{-0.5069202266861409, -0.025559124164859892}},
		{t: Table{1, 7, 1, 12}, conf: 0.90, plain: [2]float64{-0.46999956917715502, -0.077668117866100117}, phi: 0.079535595371972218, m10: [2]float64{-0.47479832210209227, -0.068870034765353}},
		{t: Table{7, 2, 25, 68}, conf: 0.95, plain: [2]float64{0.13531965951719366, 0.3168900178357747}, phi: 0.31111636854602448, m10: [2]float64{0.13294870725828564, 0.31847514966552604}},
		{t: Table{7, 2, 25, 68}, conf: 0.90, plain: [2]float64{0.15004849442972384, 0.30195665554389017}, phi: 0.31111636854602448, m10: [2]float64{0.14809016398682606, 0.30334600914938037}},
		{t: Table{8, 1, 3, 2}, conf: 0.95, plain: [2]float64{-0.12503760998861918, 0.38877345998775881}, phi: 0.33734954246999332, m10: [2]float64{-0.15743724954009325, 0.41363941708556229}},
		{t: Table{8, 1, 3, 2}, conf: 0.90, plain: [2]float64{-0.084195313755205087, 0.35394422397956649}, phi: 0.33734954246999332, m10: [2]float64{-0.11226496665690866, 0.3761924051918486}},
		{t: Table{157, 9, 11, 23}, conf: 0.95, plain: [2]float64{-0.034989996328752243, 0.05538690254297076}, phi: 0.6375751396147652, m10: [2]float64{-0.036032122873294381, 0.056406592236462945}},
		{t: Table{157, 9, 11, 23}, conf: 0.90, plain: [2]float64{-0.027450182036158878, 0.047737889117800997}, phi: 0.6375751396147652, m10: [2]float64{-0.028335728003631315, 0.048607124761137141}},
		{t: Table{5, 0, 0, 5}, conf: 0.95, plain: [2]float64{0, 0}, phi: 1, m10: [2]float64{-0.16659315708122255, 0.16659315708122255}},
		{t: Table{0, 1, 0, 0}, conf: 0.95, plain: [2]float64{-1, 0.12210872068194178}, phi: 0, m10: [2]float64{-1, 0.12210872068194178}},
		{t: Table{10, 0, 6, 4}, conf: 0.95, plain: [2]float64{0.091218555343049013, 0.47484747120735438}, phi: 0.5, m10: [2]float64{0.066700891852842309, 0.49120590836644012}},
		{t: Table{10, 0, 6, 4}, conf: 0.90, plain: [2]float64{0.12444215335812298, 0.45088336588481581}, phi: 0.5, m10: [2]float64{0.1037416409790089, 0.46546192010699095}},
	}
	const src = "R 4.2, Newcombe square-and-add from Wilson limits (plain φ̂ and method-10 φ)"
	for _, c := range rRef {
		r, err := McNemarWith(c.t, c.conf, AllIntervalMethods)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			m    IntervalMethod
			want [2]float64
		}{{IntervalNewcombeUncorrected, c.plain}, {IntervalNewcombe, c.m10}} {
			iv, ok := r.Interval(m.m)
			if !ok {
				t.Fatalf("%v: no %s interval", c.t, m.m)
			}
			check(t, c.t.String()+" "+string(m.m)+" lower", iv.Lower, m.want[0], refTol, src)
			check(t, c.t.String()+" "+string(m.m)+" upper", iv.Upper, m.want[1], refTol, src)
		}
		check(t, c.t.String()+" plain phi", plainPhi(c.t), c.phi, 1e-12, src)
	}
}

// TestMcNemarWith: McNemar is McNemarWith(IntervalMethods), the intervals
// come in the order asked, PairedInterval gives the same numbers, and an
// unknown method is an input error. With no discordant pair and both
// concordant cells filled the uncorrected interval says why it is narrow.
func TestMcNemarWith(t *testing.T) {
	tb := Table{A: 157, B: 9, C: 11, D: 23}
	r := mustMcNemar(t, tb, 0.95)
	all, err := McNemarWith(tb, 0.95, AllIntervalMethods)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) != len(IntervalMethods) || len(all.Intervals) != len(AllIntervalMethods) {
		t.Fatalf("%d and %d intervals", len(r.Intervals), len(all.Intervals))
	}
	for i, m := range AllIntervalMethods {
		iv, err := PairedInterval(tb, m, 0.95)
		if err != nil || all.Intervals[i] != iv {
			t.Errorf("%s: McNemarWith %+v, PairedInterval %+v (%v)", m, all.Intervals[i], iv, err)
		}
		if got, ok := r.Interval(m); ok && got != iv {
			t.Errorf("%s: McNemar %+v, PairedInterval %+v", m, got, iv)
		}
	}
	if _, err := McNemarWith(tb, 0.95, []IntervalMethod{"newcombe-8"}); !errors.Is(err, ErrInput) {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := PairedInterval(tb, "wilson", 0.95); !errors.Is(err, ErrInput) {
		t.Errorf("unknown method: %v", err)
	}
	e, _ := McNemarWith(Table{A: 8, D: 2}, 0.95, AllIntervalMethods)
	if !strings.Contains(strings.Join(e.Warnings, "\n"), "newcombe-uncorrected: only") {
		t.Errorf("8,0,0,2: no warning about the uncorrected interval's width: %q", e.Warnings)
	}
	if e, _ := McNemar(Table{A: 8, D: 2}, 0.95); strings.Contains(strings.Join(e.Warnings, "\n"), "uncorrected") {
		t.Errorf("McNemar warns about an interval it did not compute: %q", e.Warnings)
	}
}
