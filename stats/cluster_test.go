package stats

import (
	"math"
	"testing"
)

// TestClusterRate pins the cluster-robust standard error to R's survey
// package (survey 4.1, svymean(~y, svydesign(ids = ~g)) on item-level
// 0/1 data; testdata/refgen/cluster.R) and the design effect to
// SE²/(p(1−p)/N) computed from R's SE.
func TestClusterRate(t *testing.T) {
	tests := []struct {
		clusters []Cluster
		se, deff float64
	}{
		{[]Cluster{{3, 4}, {5, 5}, {2, 4}, {4, 6}}, 0.10185471640360241, 1.0165413533834586},
		{[]Cluster{{10, 10}, {0, 3}, {7, 8}, {9, 12}, {1, 2}}, 0.10892683887165855, 2.3551587301587311},
		{[]Cluster{{1, 1}, {1, 2}, {1, 3}}, 0.14433756729740643, 0.5},
		{[]Cluster{{11, 20}, {20, 20}, {20, 20}, {20, 20}}, 0.11249999999999998, 10.140845070422527},
		{[]Cluster{{0, 5}, {5, 5}}, 0.5, 10},
	}
	for _, tt := range tests {
		r, err := ClusterRate(tt.clusters)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.RobustStandardError-tt.se) > 1e-12 || math.Abs(r.DesignEffect-tt.deff) > 1e-9 {
			t.Errorf("%v: robust SE %v, design effect %v; want %v, %v (R survey)", tt.clusters, r.RobustStandardError, r.DesignEffect, tt.se, tt.deff)
		}
	}
}

func TestClusterRateEdges(t *testing.T) {
	r, err := ClusterRate([]Cluster{{3, 4}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Clusters != 1 || !math.IsNaN(r.RobustStandardError) {
		t.Errorf("one non-empty cluster: %+v; want 1 cluster and an undefined robust SE", r)
	}
	iv, err := r.RobustInterval(0.95)
	if err != nil || iv.Method != string(Wilson) {
		t.Errorf("one cluster falls back to Wilson, got %+v, %v", iv, err)
	}
	if r.EffectiveN() != 4 {
		t.Errorf("effective n %v, want 4", r.EffectiveN())
	}
	for _, bad := range [][]Cluster{nil, {{0, 0}}, {{5, 4}}, {{-1, 3}}, {{1, -3}}} {
		if _, err := ClusterRate(bad); err == nil {
			t.Errorf("ClusterRate(%v): no error", bad)
		}
	}
	// All items retained: both standard errors are 0, the design effect undefined.
	r, _ = ClusterRate([]Cluster{{4, 4}, {6, 6}})
	if r.RobustStandardError != 0 || !math.IsNaN(r.DesignEffect) {
		t.Errorf("all retained: %+v", r)
	}
	iv, _ = r.RobustInterval(0.95)
	if iv.Lower != 1 || iv.Upper != 1 {
		t.Errorf("all retained: interval %+v", iv)
	}
}
