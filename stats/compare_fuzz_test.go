package stats

import (
	"math"
	"testing"
)

// FuzzCompare: for any two rates and confidence, Compare either returns an
// input error (exactly when one of its inputs is invalid) or a comparison
// with every method of DiffMethods, each interval ordered inside [−1, 1]
// with no NaN bound, and the score intervals around the difference.
func FuzzCompare(f *testing.F) {
	f.Add(5, 56, 0, 29, 0.95)
	f.Add(0, 16, 15, 72, 0.95)
	f.Add(0, 10, 0, 10, 0.95)
	f.Add(10, 10, 0, 20, 0.999999)
	f.Add(1, 1, 0, 1, 1e-9)
	f.Add(281, 281, 318711, 318711, 0.875)
	f.Add(-1, 0, 3, 2, math.NaN())
	f.Fuzz(func(t *testing.T, k1, n1, k2, n2 int, conf float64) {
		a, b := Proportion{K: k1, N: n1}, Proportion{K: k2, N: n2}
		c, err := Compare(a, b, conf)
		bad := a.Validate() != nil || b.Validate() != nil || ValidateConfidence(conf) != nil
		if (err != nil) != bad {
			t.Fatalf("Compare(%v, %v, %v): err %v, inputs bad %v", a, b, conf, err, bad)
		}
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("Compare(%v, %v, %v): %v is not an ErrInput", a, b, conf, err)
			}
			return
		}
		if len(c.Intervals) != len(DiffMethods) {
			t.Fatalf("Compare(%v, %v, %v): %d intervals, want %d", a, b, conf, len(c.Intervals), len(DiffMethods))
		}
		for i, m := range DiffMethods {
			iv := c.Intervals[i]
			if iv.Method != string(m) || math.IsNaN(iv.Lower) || math.IsNaN(iv.Upper) || iv.Lower < -1 || iv.Upper > 1 || iv.Lower > iv.Upper {
				t.Fatalf("Compare(%v, %v, %v): interval %d %+v", a, b, conf, i, iv)
			}
			if (m == DiffMiettinenNurminen || m == DiffMee) && !iv.Contains(c.Difference) {
				t.Fatalf("Compare(%v, %v, %v): %s %+v excludes %v", a, b, conf, m, iv, c.Difference)
			}
		}
	})
}
