package noise

import (
	"math"
	"testing"
)

// TestReferenceValues pins the statistics Compare computes on the
// hand-made pair of testdata/aa_a.jsonl and aa_b.jsonl (counted by hand in
// TestCountsByHand) to R 4.2, run on the hand-counted tables:
//
//	> library(psych)
//	> tab <- matrix(c(4,1,1,0, 1,3,2,1, 1,1,2,0, 0,0,1,1), nrow=4, byrow=TRUE)
//	> ck <- cohen.kappa(tab, n.obs=19); ck$confid[1,]; sqrt(ck$var.kappa)
//	          lower        estimate           upper
//	0.0422498265137 0.3473282442748 0.6524066620359
//	[1] 0.155655114159
//	> prop.test(4, 14, correct=FALSE)$conf.int   # constraint: 4 discordant of 14
//	[1] 0.117213786446 0.546490843299
//	> prop.test(2, 5, correct=FALSE)$conf.int    # commitment: 2 of 5
//	[1] 0.117620774233 0.769275718724
//	> prop.test(6, 19, correct=FALSE)$conf.int   # all classes: 6 of 19
//	[1] 0.153643790878 0.539895923247
//
// The ICC is the one-way ANOVA estimator of /work/i13refs/final/icc.R
// (Saha, Miller & Wang 2016), on the hand-counted clusters (discordant,
// pairs) per conversation — constraint sess_a (2,5), sess_b (1,4),
// sess_c (1,3), sess_d (0,2); commitment sess_a (1,2), sess_b (0,2),
// sess_d (1,1); pooled sess_a (3,7), sess_b (1,6), sess_c (1,3),
// sess_d (1,3):
//
//	> anova_icc(c(2,1,1,0), c(5,4,3,2))
//	clusters=4 N=14 K=4 icc=-0.2581264108 deff=0.2624959690
//	> anova_icc(c(1,0,1), c(2,2,1))
//	clusters=3 N=5 K=2 icc=0.2000000000 deff=1.1600000000
//	> anova_icc(c(3,1,1,1), c(7,6,3,3))
//	clusters=4 N=19 K=6 icc=-0.1863574814 deff=0.1761037665
//
// The design effect stats.ICC reports takes a negative ρ as 0 (no
// clustering), so it is 1 where R's formula, fed the negative ρ, is
// below 1.
func TestReferenceValues(t *testing.T) {
	m := compareFiles(t, "aa_a.jsonl", "aa_b.jsonl")
	con, com := m.Classes[0], m.Classes[1]
	tests := []struct {
		name      string
		got, want float64
	}{
		{"kappa", m.Agreement.Kappa, 0.3473282442748},
		{"kappa standard error", m.Agreement.StandardError, 0.155655114159},
		{"kappa lower", m.Agreement.Interval.Lower, 0.0422498265137},
		{"kappa upper", m.Agreement.Interval.Upper, 0.6524066620359},
		{"constraint wilson lower", con.DiscordanceInterval.Lower, 0.117213786446},
		{"constraint wilson upper", con.DiscordanceInterval.Upper, 0.546490843299},
		{"commitment wilson lower", com.DiscordanceInterval.Lower, 0.117620774233},
		{"commitment wilson upper", com.DiscordanceInterval.Upper, 0.769275718724},
		{"constraint icc", con.ICC.Rho, -0.2581264108},
		{"constraint design effect", con.ICC.DesignEffect, 1},
		{"commitment icc", com.ICC.Rho, 0.2},
		{"commitment design effect", com.ICC.DesignEffect, 1.16},
		{"all wilson lower", m.All.DiscordanceInterval.Lower, 0.153643790878},
		{"all wilson upper", m.All.DiscordanceInterval.Upper, 0.539895923247},
		{"pooled icc", m.ICC.Rho, -0.1863574814},
		{"pooled design effect", m.ICC.DesignEffect, 1},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-9 {
			t.Errorf("%s: %.12f, R gives %.12f", tt.name, tt.got, tt.want)
		}
	}
	if con.ICC.Clusters != 4 || con.ICC.N != 14 || com.ICC.Clusters != 3 || m.ICC.Clusters != 4 || m.ICC.N != 19 {
		t.Errorf("clusters: constraint %d/%d, commitment %d, pooled %d/%d; want 4/14, 3, 4/19",
			con.ICC.Clusters, con.ICC.N, com.ICC.Clusters, m.ICC.Clusters, m.ICC.N)
	}
	if q := m.Classes[2]; !math.IsNaN(q.DiscordanceInterval.Lower) || !math.IsNaN(q.ICC.Rho) || q.ICC.Undefined == "" {
		t.Errorf("open_question, no pairs: interval %+v, ICC %+v; want NaN bounds and no clusters", q.DiscordanceInterval, q.ICC)
	}
}
