package stats

import (
	"math"
	"testing"
)

// FuzzClusterICC: any three clusters either are an input error or give a
// ρ ≤ 1 with a design effect ≥ 1, or NaN for both with a reason; never a
// panic.
func FuzzClusterICC(f *testing.F) {
	f.Add(0, 2, 2, 2, 1, 3)
	f.Add(1, 1, 0, 1, 1, 1)
	f.Add(0, 0, 0, 0, 0, 0)
	f.Add(-1, 2, 3, 2, 0, 1)
	f.Add(1, 2, 1, 2, 2, 4)
	f.Fuzz(func(t *testing.T, k1, n1, k2, n2, k3, n3 int) {
		cs := []Cluster{{k1, n1}, {k2, n2}, {k3, n3}}
		r, err := ClusterICC(cs)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("%v: %v is not an ErrInput", cs, err)
			}
			return
		}
		if math.IsNaN(r.Rho) != (r.Undefined != "") || math.IsNaN(r.Rho) != math.IsNaN(r.DesignEffect) {
			t.Fatalf("%v: %+v", cs, r)
		}
		if !math.IsNaN(r.Rho) && (r.Rho > 1+1e-9 || r.DesignEffect < 1 || math.IsInf(r.DesignEffect, 0)) {
			t.Fatalf("%v: %+v", cs, r)
		}
	})
}
