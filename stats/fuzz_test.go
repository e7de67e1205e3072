package stats

import (
	"math"
	"testing"
)

func FuzzParseProportion(f *testing.F) {
	for _, s := range []string{"166/200", "0/1", "1/0", "a/b", "-1/3", "9999999999999999999/1", " 3 / 4 ", "/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProportion(s)
		if err != nil {
			return
		}
		if p.Validate() != nil {
			t.Fatalf("ParseProportion(%q) = %v, which does not validate", s, p)
		}
	})
}

// FuzzInterval: for any integers and any confidence, every method either
// returns an input error or an ordered interval inside [0,1], never a
// panic or a NaN bound.
func FuzzInterval(f *testing.F) {
	f.Add(166, 200, 0.95)
	f.Add(0, 1, 0.5)
	f.Add(1, 1, 0.999999)
	f.Add(-1, 0, math.NaN())
	f.Add(3, 1<<40, 0.9)
	f.Fuzz(func(t *testing.T, k, n int, c float64) {
		p := Proportion{K: k, N: n}
		for _, m := range Methods {
			iv, err := p.Interval(m, c)
			if err != nil {
				continue
			}
			if math.IsNaN(iv.Lower) || math.IsNaN(iv.Upper) || iv.Lower < 0 || iv.Upper > 1 || iv.Lower > iv.Upper {
				t.Fatalf("%s(%d, %d, %v) = [%v, %v]", m, k, n, c, iv.Lower, iv.Upper)
			}
		}
		if _, err := Compare(p, Proportion{K: n / 2, N: n}, c); err == nil && p.Validate() != nil {
			t.Fatalf("Compare accepted %v", p)
		}
	})
}
