package power

import (
	"math"
	"testing"
)

// FuzzParseTable: any string either fails with an input error or parses
// to a valid table that round-trips through String.
func FuzzParseTable(f *testing.F) {
	for _, s := range []string{"1,1,7,12", "0,0,0,10", "0,0,0,0", " 3 , 4 , 5 , 6 ", "1,2,3", "a,b,c,d", "-1,2,3,4",
		"99999999999999999999,0,0,0", "9999999,1,0,0", "1,,2,3", ",,,", "1,2,3,4,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tb, err := ParseTable(s)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("ParseTable(%q): error %q does not match ErrInput", s, err)
			}
			return
		}
		if tb.Validate() != nil {
			t.Fatalf("ParseTable(%q) = %v, which does not validate", s, tb)
		}
		if back, err := ParseTable(tb.String()); err != nil || back != tb {
			t.Fatalf("round trip of %v: %v, %v", tb, back, err)
		}
	})
}

// FuzzMcNemar: any four counts and confidence either fail with an input
// error or give p-values in [0,1] and ordered intervals in [−1,1],
// never NaN.
func FuzzMcNemar(f *testing.F) {
	f.Add(1, 1, 7, 12, 0.95)
	f.Add(0, 0, 0, 1, 0.5)
	f.Add(0, 9_999_999, 0, 1, 0.999999)
	f.Add(-1, 0, 0, 0, math.NaN())
	f.Add(3, 4_000_000, 5_000_000, 0, 1e-9)
	f.Fuzz(func(t *testing.T, a, b, c, d int, conf float64) {
		tb := Table{A: a, B: b, C: c, D: d}
		r, err := McNemar(tb, conf)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%v at %v: error %q does not match ErrInput", tb, conf, err)
			}
			return
		}
		for _, ts := range r.Tests {
			if !(ts.PValue >= 0 && ts.PValue <= 1) || math.IsNaN(ts.Statistic) {
				t.Fatalf("%v: %+v", tb, ts)
			}
		}
		for _, iv := range r.Intervals {
			if !(-1 <= iv.Lower && iv.Lower <= iv.Upper && iv.Upper <= 1) {
				t.Fatalf("%v at %v: %+v", tb, conf, iv)
			}
		}
	})
}

// FuzzPower: for any probabilities, levels and sizes the CLI passes on,
// the power, sample-size, MDE and plan functions return an input error
// or finite values in range; never a panic or NaN. Exact sample sizes
// are only searched where Connor's n is below 20,000, to keep each fuzz
// input fast.
func FuzzPower(f *testing.F) {
	f.Add(0.02, 0.06, 0.05, 0.8, 200, uint8(0))
	f.Add(0.5, 0.3, 0.05, 0.8, 100, uint8(2))
	f.Add(0.0, 0.0, 0.05, 0.8, 1, uint8(1))
	f.Add(1.0, 0.0, 0.5, 0.5, 3, uint8(2))
	f.Add(math.NaN(), 0.1, 0.05, 0.8, 10, uint8(0))
	f.Add(0.3, 0.7, 1e-12, 1-1e-12, 1<<40, uint8(1))
	f.Add(0.83, 0.015, 0.05, 0.8, 200, uint8(3))
	f.Fuzz(func(t *testing.T, p1, p2, alpha, target float64, n int, which uint8) {
		finite01 := func(what string, v float64) {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("%s = %v for p1=%v p2=%v alpha=%v power=%v n=%d", what, v, p1, p2, alpha, target, n)
			}
		}
		isInput := func(err error) bool {
			if err != nil && !errorsIsInput(err) {
				t.Fatalf("error %q does not match ErrInput", err)
			}
			return err != nil
		}
		m := PairedMethods[int(which)%len(PairedMethods)]
		d := Paired{PLost: p1, PGained: p2, Alpha: alpha, Method: m}
		nn := n
		if m == Exact && nn > 20000 {
			nn = 1 + nn%20000
		}
		if pw, err := d.Power(nn); !isInput(err) {
			finite01("paired power", pw)
		}
		skip := false
		if m == Exact {
			c, err := Paired{PLost: p1, PGained: p2, Alpha: alpha, Method: Connor}.SampleSize(target)
			skip = err != nil || c.Unrounded > 20000
		}
		if !skip {
			if ss, err := d.SampleSize(target); !isInput(err) {
				finite01("paired sample size power", ss.Power)
				if ss.N < 1 || math.IsNaN(ss.Unrounded) || ss.Unrounded < 0 {
					t.Fatalf("paired sample size %+v", ss)
				}
			}
		}
		ind := Independent{P1: p1, P2: p2, Alpha: alpha}
		if pw, err := ind.Power(n); !isInput(err) {
			finite01("independent power", pw)
		}
		if ss, err := ind.SampleSize(target); !isInput(err) {
			finite01("independent sample size power", ss.Power)
			if ss.N < 1 || math.IsNaN(ss.Unrounded) {
				t.Fatalf("independent sample size %+v", ss)
			}
		}
		if mde, err := IndependentMDE(p1, n, alpha, target); !isInput(err) {
			finite01("independent MDE", mde.Effect)
		}
		if mde, err := PairedMDE(n, alpha, target); !isInput(err) {
			finite01("paired MDE", mde.Effect)
		}
		k := int(p2 * 1000)
		if pl, err := Plan(p1, n, k, alpha, target); !isInput(err) {
			finite01("plan standard error", pl.StandardError)
			finite01("plan lower", pl.Interval.Lower)
			finite01("plan upper", pl.Interval.Upper)
			if c := pl.Catastrophic; c != nil {
				finite01("plan drop", c.Drop)
				finite01("plan catastrophic power", c.Power)
				if math.IsNaN(c.InStandardErrors) || math.IsInf(c.InStandardErrors, 0) {
					t.Fatalf("plan in standard errors %v", c.InStandardErrors)
				}
			}
		}
		if sz, err := ExactSize(min(max(n, -1), MaxExactPairs+1)%5000, p1, alpha); !isInput(err) {
			finite01("exact size", sz)
		}
	})
}

// FuzzOneSidedNI: OneSidedP is a p-value (in [0,1], mid-p ≤ exact, not
// larger with one more loss), and TangoNI either refuses the table or
// margin with an input error or gives a finite z and p = 1 − Φ(z).
func FuzzOneSidedNI(f *testing.F) {
	f.Add(16, 6, 59, 0.1)
	f.Add(0, 0, 10, 0.0)
	f.Add(1, 0, 43, 0.1)
	f.Add(5_000_000, 4_999_999, 1, 0.999)
	f.Add(3, 9, 0, -0.5)
	f.Fuzz(func(t *testing.T, lost, gained, concordant int, margin float64) {
		if lost >= 0 && gained >= 0 && lost <= MaxPairs && gained <= MaxPairs-lost {
			ex, mid := OneSidedP(lost, gained, false), OneSidedP(lost, gained, true)
			if !(ex >= 0 && ex <= 1 && mid >= 0 && mid <= ex+1e-15) {
				t.Fatalf("lost %d gained %d: exact %v mid-p %v", lost, gained, ex, mid)
			}
			if lost < MaxPairs-gained {
				if more := OneSidedP(lost+1, gained, false); more > ex+1e-12 {
					t.Fatalf("lost %d gained %d: one more loss raises p from %v to %v", lost, gained, ex, more)
				}
			}
		}
		tb := Table{A: concordant, B: lost, C: gained}
		z, p, err := TangoNI(tb, margin)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%v margin %v: %v does not match ErrInput", tb, margin, err)
			}
			return
		}
		if math.IsNaN(z) || math.IsInf(z, 0) || !(p >= 0 && p <= 1) {
			t.Fatalf("%v margin %v: z %v p %v", tb, margin, z, p)
		}
	})
}

// FuzzClustered: clusters built from fuzzed bytes (three a cluster) give
// an input error or, for every method, χ² = Z², P in [0,1] and
// OneSidedP = 1 − Φ(Z) (1 with nothing discordant), and a finite
// non-inferiority z; never NaN.
func FuzzClustered(f *testing.F) {
	f.Add([]byte{3, 2, 0, 3, 1, 0, 3, 0, 0}, 0.1)
	f.Add([]byte{10, 0, 0}, 0.0)
	f.Add([]byte{4, 1, 1, 8, 3, 3}, 0.5)
	f.Add([]byte{0, 0, 0, 5, 1, 1}, 0.2)
	f.Fuzz(func(t *testing.T, b []byte, margin float64) {
		var cs []ClusterCounts
		for i := 0; i+2 < len(b); i += 3 {
			cs = append(cs, ClusterCounts{N: int(b[i]), Lost: int(b[i+1]), Gained: int(b[i+2])})
		}
		discordant := false
		for _, c := range cs {
			discordant = discordant || c.Lost+c.Gained > 0
		}
		for _, m := range ClusterMethods {
			r, err := ClusteredMcNemar(cs, m)
			if err != nil {
				if !errorsIsInput(err) {
					t.Fatalf("%v: %v does not match ErrInput", cs, err)
				}
				return
			}
			want := 1.0
			if discordant {
				want = unitNormal.Survival(r.Z)
			}
			if math.IsNaN(r.Z) || math.Abs(r.ChiSquare-r.Z*r.Z) > 1e-9*(1+r.ChiSquare) || !(r.P >= 0 && r.P <= 1) || math.Abs(r.OneSidedP-want) > 1e-15 {
				t.Fatalf("%v %s: %+v", cs, m, r)
			}
		}
		z, p, err := ClusteredNI(cs, margin)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%v margin %v: %v does not match ErrInput", cs, margin, err)
			}
			return
		}
		if math.IsNaN(z) || math.IsInf(z, 0) || !(p >= 0 && p <= 1) {
			t.Fatalf("%v margin %v: z %v p %v", cs, margin, z, p)
		}
	})
}
