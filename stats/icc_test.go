package stats

import (
	"math"
	"testing"
)

// liang1992 is the example data set of R's ratesci::clusterpci (Liang
// 1992; used by Saha, Miller & Wang 2016 and Short et al. 2020): 100
// clusters, 203 units, 60 events, as transcribed in
// /work/i13refs/final/icc.R:
//
//	x <- c(rep(c(0,1), c(36,12)), rep(c(0,1,2), c(15,7,1)), rep(c(0,1,2,3), c(5,7,3,2)),
//	       rep(c(0,1,2), c(3,3,1)), c(0,2,3,4,6))
//	n <- c(rep(1,48), rep(2,23), rep(3,17), rep(4,7), rep(6,5))
func liang1992() []Cluster {
	var cs []Cluster
	add := func(n int, counts ...int) { // counts[x] clusters of size n with x events
		for x, m := range counts {
			for range m {
				cs = append(cs, Cluster{K: x, N: n})
			}
		}
	}
	add(1, 36, 12)
	add(2, 15, 7, 1)
	add(3, 5, 7, 3, 2)
	add(4, 3, 3, 1)
	add(6, 1, 0, 1, 1, 1, 0, 1)
	return cs
}

// TestReferenceClusterICC pins ClusterICC to the Liang (1992) example
// (ANOVA ρ 0.1855 as Short et al. 2020 report it, quoted in ratesci's
// source; issue13-refs.md §5) and to R's one-way ANOVA run here.
func TestReferenceClusterICC(t *testing.T) {
	for _, c := range []struct {
		name     string
		clusters []Cluster
		k, n     int
		rho, de  float64
		src      string
	}{
		{
			name: "Liang 1992", clusters: liang1992(), k: 100, n: 203,
			rho: 0.185534247574988, de: 1.349133411692835,
			// Short et al. 2020 (SMMR 29:111) ρ = 0.1855 via ratesci's
			// clusterpci; the full digits are icc.R's formula run here,
			// and R's summary(aov(y ~ cluster)) on the 203 0/1 outcomes
			// gives BMS 0.249319964837206, WMS 0.170711974110032 and the
			// same ρ.
			src: "Short et al. 2020 via ratesci; R icc.R and aov (run here)",
		},
		{
			name:     "four clusters by hand",
			clusters: []Cluster{{0, 2}, {2, 2}, {1, 3}, {3, 3}}, k: 4, n: 10,
			// By hand: X = 6, Σx²/n = 0 + 2 + 1/3 + 3 = 16/3, BMS =
			// (16/3 − 3.6)/3 = 0.57778, WMS = (6 − 16/3)/6 = 1/9, n* =
			// (100 − 26)/30 = 2.46667, ρ = 0.46667/0.74074 = 0.63, ξ =
			// (2·1.63·2 + 3·2.26·2)/10 = 2.008. R aov: mean squares
			// 0.577777777777778, 0.111111111111111.
			rho: 0.63, de: 2.008,
			src: "by hand; R aov (run here)",
		},
		{
			name:     "negative by hand, design effect floored at 1",
			clusters: []Cluster{{1, 2}, {1, 2}, {1, 2}, {2, 4}}, k: 4, n: 10,
			// Every cluster at rate 1/2: BMS = 0 (R aov: 2.2e-32), WMS =
			// 5/12, n* = (100 − 28)/30 = 2.4, ρ = −1/(n* − 1) = −0.714286.
			// The formula's ξ would be −0.285714; ρ counts as 0, ξ = 1.
			rho: -1 / 1.4, de: 1,
			src: "by hand; R aov (run here)",
		},
	} {
		got, err := ClusterICC(c.clusters)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.Clusters != c.k || got.N != c.n || got.Undefined != "" {
			t.Errorf("%s: clusters %d, N %d, undefined %q; want %d, %d, \"\"", c.name, got.Clusters, got.N, got.Undefined, c.k, c.n)
		}
		if math.Abs(got.Rho-c.rho) > 1e-12 || math.Abs(got.DesignEffect-c.de) > 1e-12 {
			t.Errorf("%s: ρ %.15g, ξ %.15g; want %.15g, %.15g (%s)", c.name, got.Rho, got.DesignEffect, c.rho, c.de, c.src)
		}
	}
	// The 4-decimal published value itself.
	got, _ := ClusterICC(liang1992())
	if math.Round(got.Rho*1e4)/1e4 != 0.1855 {
		t.Errorf("Liang 1992: ρ %.6f does not round to Short et al.'s 0.1855", got.Rho)
	}
}

// TestClusterICCIgnoresEmpty: clusters with no items change nothing, and
// the order of clusters does not matter.
func TestClusterICCIgnoresEmpty(t *testing.T) {
	base := []Cluster{{0, 2}, {2, 2}, {1, 3}, {3, 3}}
	want, _ := ClusterICC(base)
	got, err := ClusterICC([]Cluster{{0, 0}, {3, 3}, {0, 0}, {1, 3}, {2, 2}, {0, 2}})
	if err != nil || got.Clusters != want.Clusters || got.N != want.N || math.Abs(got.Rho-want.Rho) > 1e-14 {
		t.Errorf("with empty clusters and reordered: %+v, %v; want %+v", got, err, want)
	}
}

func TestClusterICCUndefined(t *testing.T) {
	for _, c := range []struct {
		clusters []Cluster
		why      string
	}{
		{[]Cluster{{3, 7}}, ICCOneCluster},
		{[]Cluster{{3, 7}, {0, 0}}, ICCOneCluster},
		{[]Cluster{{1, 1}, {0, 1}, {1, 1}}, ICCSingletons},
		{[]Cluster{{0, 3}, {0, 2}, {0, 5}}, ICCNoVariance},
		{[]Cluster{{3, 3}, {2, 2}}, ICCNoVariance},
	} {
		got, err := ClusterICC(c.clusters)
		if err != nil {
			t.Errorf("%v: %v", c.clusters, err)
			continue
		}
		if !math.IsNaN(got.Rho) || !math.IsNaN(got.DesignEffect) || got.Undefined != c.why {
			t.Errorf("%v: %+v; want NaN with %q", c.clusters, got, c.why)
		}
	}
}

func TestClusterICCErrors(t *testing.T) {
	for _, cs := range [][]Cluster{nil, {}, {{0, 0}}, {{-1, 2}}, {{3, 2}}, {{0, -1}}, {{0, math.MaxInt}, {0, 1}}} {
		if _, err := ClusterICC(cs); err == nil || !errorsIsInput(err) {
			t.Errorf("%v: err %v, want an ErrInput", cs, err)
		}
	}
}

// TestClusterICCEqualSizes: with equal cluster sizes m the design effect
// is 1 + (m − 1)ρ (Kish), and perfectly homogeneous clusters give ρ = 1.
func TestClusterICCEqualSizes(t *testing.T) {
	got, err := ClusterICC([]Cluster{{3, 3}, {0, 3}, {3, 3}, {0, 3}})
	if err != nil || math.Abs(got.Rho-1) > 1e-12 || math.Abs(got.DesignEffect-3) > 1e-12 {
		t.Errorf("homogeneous clusters: %+v, %v; want ρ 1, ξ 3", got, err)
	}
	got, err = ClusterICC([]Cluster{{1, 4}, {2, 4}, {4, 4}, {0, 4}, {2, 4}})
	if err != nil || math.Abs(got.DesignEffect-(1+3*got.Rho)) > 1e-12 {
		t.Errorf("equal sizes: %+v, %v; want ξ = 1 + 3ρ", got, err)
	}
}
