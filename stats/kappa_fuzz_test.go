package stats

import (
	"math"
	"testing"
)

// FuzzCohenKappa: any 2×2 or 3×3 table and confidence either is an input
// error or gives p_o and p_e in [0, 1], κ ≤ 1 and NaN only in the
// documented degenerate case p_e = 1, an ordered interval inside
// [−1, 1] around κ, and never a panic.
func FuzzCohenKappa(f *testing.F) {
	f.Add(106, 10, 4, 22, 28, 10, 2, 12, 6, true, 0.95)
	f.Add(19, 10, 6, 256, 0, 0, 0, 0, 0, false, 0.95)
	f.Add(0, 0, 0, 12, 0, 0, 0, 0, 0, false, 0.5)
	f.Add(6, 4, 0, 0, 0, 0, 0, 0, 0, false, 0.9)
	f.Add(-1, 0, 0, 0, 0, 0, 0, 0, 0, true, math.NaN())
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h, i, j int, three bool, conf float64) {
		table := [][]int{{a, b}, {c, d}}
		if three {
			table = [][]int{{a, b, c}, {d, e, g}, {h, i, j}}
		}
		k, err := CohenKappa(table, conf)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%v: error %v is not an ErrInput", table, err)
			}
			return
		}
		if k.N <= 0 || k.Observed < 0 || k.Observed > 1+1e-12 || k.Expected < 0 || k.Expected > 1+1e-12 {
			t.Fatalf("%v: %+v", table, k)
		}
		if math.IsNaN(k.Kappa) {
			if k.Expected != 1 {
				t.Fatalf("%v: κ NaN with p_e %v < 1", table, k.Expected)
			}
			return
		}
		iv := k.Interval
		if k.Kappa > 1+1e-12 || math.IsNaN(k.StandardError) || math.IsNaN(k.NullStandardError) ||
			k.StandardError < 0 || !(iv.Lower <= iv.Upper) || iv.Lower < -1 || iv.Upper > 1 ||
			!(iv.Lower <= k.Kappa+1e-12 && k.Kappa-1e-12 <= iv.Upper) {
			t.Fatalf("%v conf %v: %+v", table, conf, k)
		}
	})
}
