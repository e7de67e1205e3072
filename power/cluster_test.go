package power

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// thyroid is Obuchowski's PET/SPECT data (21 patients, 51 glands;
// success = a true negative) as the clust.bin.pair package prints it
// (docs/reference/thyroids.html, columns ak, bk, ck, dk). With PET as the
// candidate and SPECT as the reference, bk (PET+, SPECT−) are the gains
// and ck (PET−, SPECT+) the losses: ΣLost 7, ΣGained 1.
func thyroid() []ClusterCounts {
	ak := []int{0, 2, 3, 1, 2, 4, 3, 2, 1, 1, 2, 2, 3, 2, 0, 2, 2, 2, 2, 1, 2}
	bk := []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	ck := []int{2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0}
	dk := []int{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0}
	cs := make([]ClusterCounts, len(ak))
	for i := range ak {
		cs[i] = ClusterCounts{N: ak[i] + bk[i] + ck[i] + dk[i], Lost: ck[i], Gained: bk[i]}
	}
	return cs
}

// mixed is a made-up set of 8 clusters of varied sizes with changes both
// ways (power/testdata/refgen/clustered.R's second set).
var mixed = []ClusterCounts{{5, 2, 0}, {8, 1, 1}, {3, 0, 1}, {12, 4, 1}, {6, 1, 0}, {4, 0, 2}, {9, 3, 0}, {7, 2, 1}}

// TestClusteredMcNemarPublished pins the clustered tests to the
// clust.bin.pair documentation's example on the thyroid data
// (clust.bin.pair, docs/reference/clust.bin.pair.html, run on thyroids):
// Obuchowski "chi-square = 2.8571, df = 1, p-value = 0.09097" and Yang's
// modified Obuchowski "chi-square = 3.1317, p-value = 0.07679"
// (issue13-refs.md §5). The same package ignores the direction; tally's
// Z is positive here because PET loses more than it gains.
func TestClusteredMcNemarPublished(t *testing.T) {
	const src = "clust.bin.pair documentation, thyroids example"
	for _, c := range []struct {
		m       ClusterMethod
		chi2, p float64
	}{{ClusterObuchowski, 2.8571, 0.09097}, {ClusterYang, 3.1317, 0.07679}} {
		r, err := ClusteredMcNemar(thyroid(), c.m)
		if err != nil {
			t.Fatal(err)
		}
		check(t, string(c.m)+" chi-square", r.ChiSquare, c.chi2, 5e-5, src)
		check(t, string(c.m)+" p", r.P, c.p, 5e-6, src)
		if r.Clusters != 21 || r.Pairs != 51 || r.Z <= 0 {
			t.Errorf("%s: %d clusters, %d pairs, Z %v; want 21, 51, Z > 0", c.m, r.Clusters, r.Pairs, r.Z)
		}
	}
}

// TestClusteredMcNemarR pins every statistic to full precision against
// power/testdata/refgen/clustered.R (R 4.2). The Durkalski values and
// everything on the mixed set are RUN-ONLY: the formulas as Yang, Sun &
// Hardin (2010) write them, transcribed in base R, not a published
// number; the script reproduces the two published thyroid values above.
func TestClusteredMcNemarR(t *testing.T) {
	const src = "RUN-ONLY: power/testdata/refgen/clustered.R"
	for _, c := range []struct {
		name                 string
		cs                   []ClusterCounts
		m                    ClusterMethod
		chi2, p, z, oneSided float64
	}{
		{"thyroid", thyroid(), ClusterObuchowski, 2.8571428571428572, 0.090968947975357636, 1.6903085094570331, 0.045484473987678874},
		{"thyroid", thyroid(), ClusterDurkalski, 2.3150684931506849, 0.12812565674429549, 1.5215349135496974, 0.064062828372147163},
		{"thyroid", thyroid(), ClusterYang, 3.1316597435434352, 0.076785528962993677, 1.7696496103871622, 0.038392764481496942},
		{"mixed", mixed, ClusterObuchowski, 1.478448275862069, 0.22401746183374904, 1.2159145841143897, 0.11200873091687444},
		{"mixed", mixed, ClusterDurkalski, 0.28423719372143247, 0.59393736353037097, 0.53313900037554229, 0.29696868176518543},
		{"mixed", mixed, ClusterYang, 1.8771733581574126, 0.17065576208982391, 1.3700997621185886, 0.085327881044911916},
	} {
		r, err := ClusteredMcNemar(c.cs, c.m)
		if err != nil {
			t.Fatal(err)
		}
		what := c.name + " " + string(c.m)
		check(t, what+" chi-square", r.ChiSquare, c.chi2, 1e-12, src)
		check(t, what+" p", r.P, c.p, 1e-12, src)
		check(t, what+" z", r.Z, c.z, 1e-12, src)
		check(t, what+" one-sided p", r.OneSidedP, c.oneSided, 1e-12, src)
		// Mirrored (every loss a gain): the same χ², Z negated.
		mir := make([]ClusterCounts, len(c.cs))
		for i, k := range c.cs {
			mir[i] = ClusterCounts{N: k.N, Lost: k.Gained, Gained: k.Lost}
		}
		rm, _ := ClusteredMcNemar(mir, c.m)
		check(t, what+" mirrored chi-square", rm.ChiSquare, c.chi2, 1e-12, "symmetry")
		check(t, what+" mirrored z", rm.Z, -c.z, 1e-12, "symmetry")
	}
}

// TestClusteredNI pins the clustered non-inferiority Wald statistic on
// the thyroid data to power/testdata/refgen/clustered.R (RUN-ONLY: the
// formula of issue13-refs.md §5, not checked against Durkalski et al.'s
// own numbers, which were not available).
func TestClusteredNI(t *testing.T) {
	const src = "RUN-ONLY: power/testdata/refgen/clustered.R"
	for _, c := range []struct {
		name   string
		cs     []ClusterCounts
		margin float64
		z, p   float64
	}{
		{"thyroid", thyroid(), 0.05, -1.0702626023374067, 0.8577494386059521},
		{"thyroid", thyroid(), 0.10, -0.27919893974019294, 0.60995392136774473},
		{"thyroid", thyroid(), 0.15, 0.51186472285702056, 0.30437284450285645},
		{"thyroid", thyroid(), 0.20, 1.3029283854542344, 0.096299606012409958},
		{"mixed", mixed, 0.10, -0.36645528197067972, 0.64298731244600427},
		{"mixed", mixed, 0.20, 0.87033129468036496, 0.1920596907234747},
	} {
		z, p, err := ClusteredNI(c.cs, c.margin)
		if err != nil {
			t.Fatal(err)
		}
		what := c.name + " margin " + fmtG(c.margin)
		check(t, what+" z", z, c.z, 1e-12, src)
		check(t, what+" p", p, c.p, 1e-12, src)
	}
}

// TestClusteredDegenerate: the documented values where a formula is 0/0
// or has no variance to estimate.
func TestClusteredDegenerate(t *testing.T) {
	// No discordant pair: χ² 0, P 1, Z 0, one-sided 1, for every method.
	quiet := []ClusterCounts{{3, 0, 0}, {5, 0, 0}, {2, 0, 0}}
	// Discordant, but every cluster's changes cancel: 0/0 → 0, one-sided ½.
	cancel := []ClusterCounts{{3, 1, 1}, {5, 2, 2}, {2, 0, 0}}
	// One cluster: the unclustered asymptotic McNemar, (7−1)²/8 = 4.5.
	one := []ClusterCounts{{51, 7, 1}}
	for _, m := range ClusterMethods {
		r, err := ClusteredMcNemar(quiet, m)
		if err != nil || r != (ClusteredTest{Method: m, Clusters: 3, Pairs: 10, ChiSquare: 0, P: 1, Z: 0, OneSidedP: 1}) {
			t.Errorf("%s, no discordant pair: %+v %v", m, r, err)
		}
		r, err = ClusteredMcNemar(cancel, m)
		if err != nil || r != (ClusteredTest{Method: m, Clusters: 3, Pairs: 10, ChiSquare: 0, P: 1, Z: 0, OneSidedP: 0.5}) {
			t.Errorf("%s, changes cancel in each cluster: %+v %v", m, r, err)
		}
		r, err = ClusteredMcNemar(one, m)
		if err != nil {
			t.Fatal(err)
		}
		check(t, string(m)+" one cluster chi-square", r.ChiSquare, 4.5, 1e-12, "R mcnemar.test(matrix(c(43,7,1,0),2), correct=FALSE): 4.5")
		check(t, string(m)+" one cluster p", r.P, 0.033894853524689267, 1e-12, "R mcnemar.test(matrix(c(43,7,1,0),2), correct=FALSE)")
	}
	// ClusteredNI falls back to Tango where the clustered SE is 0: one
	// cluster, no discordant pair, or the same net change per pair
	// everywhere.
	for _, c := range []struct {
		name string
		cs   []ClusterCounts
		tb   Table
	}{
		{"one cluster", one, Table{A: 43, B: 7, C: 1}},
		{"no discordant pair", quiet, Table{A: 10}},
		{"same net change per pair", []ClusterCounts{{4, 1, 0}, {8, 3, 1}}, Table{A: 7, B: 4, C: 1}},
	} {
		for _, margin := range []float64{0, 0.05, 0.2} {
			z, p, err := ClusteredNI(c.cs, margin)
			wz, wp, _ := TangoNI(c.tb, margin)
			if err != nil || z != wz || p != wp || math.IsNaN(z) || math.IsInf(z, 0) {
				t.Errorf("%s margin %v: ClusteredNI %v, %v (%v); Tango %v, %v", c.name, margin, z, p, err, wz, wp)
			}
		}
	}
	r, err := Clustered(one, 0.1, true)
	if err != nil || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "one conversation") {
		t.Errorf("one cluster: warnings %q (%v)", r.Warnings, err)
	}
	r, _ = Clustered([]ClusterCounts{{4, 1, 0}, {8, 3, 1}}, 0.1, true)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "Tango's") {
		t.Errorf("same net change per pair: warnings %q lack the Tango fallback", r.Warnings)
	}
}

// TestClusteredErrors: what a user's data can get wrong is an ErrInput
// naming the cluster.
func TestClusteredErrors(t *testing.T) {
	for _, c := range []struct {
		cs   []ClusterCounts
		want string
	}{
		{nil, "no clusters"},
		{[]ClusterCounts{{3, 1, 0}, {0, 0, 0}}, "cluster 2 (pairs 0, lost 0, gained 0): pairs must be at least 1"},
		{[]ClusterCounts{{3, -1, 0}}, "cluster 1 (pairs 3, lost -1, gained 0): lost and gained must not be negative"},
		{[]ClusterCounts{{3, 2, 2}}, "cluster 1 (pairs 3, lost 2, gained 2): lost + gained exceeds the pairs"},
		{[]ClusterCounts{{MaxPairs, 0, 0}, {1, 0, 0}}, "more than"},
	} {
		_, err1 := ClusteredMcNemar(c.cs, ClusterYang)
		_, _, err2 := ClusteredNI(c.cs, 0.1)
		for _, err := range []error{err1, err2} {
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: error %v, want ErrInput containing %q", c.cs, err, c.want)
			}
		}
	}
	if _, err := ClusteredMcNemar(mixed, "eliasziw"); !errors.Is(err, ErrInput) {
		t.Errorf("unknown method: %v", err)
	}
	if _, _, err := ClusteredNI(mixed, 1); !errors.Is(err, ErrInput) {
		t.Errorf("margin 1: %v", err)
	}
}

// TestClusteredAllocs: the gate calls both in simulation loops.
func TestClusteredAllocs(t *testing.T) {
	cs := thyroid()
	for _, m := range ClusterMethods {
		if a := testing.AllocsPerRun(100, func() { _, _ = ClusteredMcNemar(cs, m) }); a != 0 {
			t.Errorf("ClusteredMcNemar(%s) allocates %v times", m, a)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _, _, _ = ClusteredNI(cs, 0.1) }); a != 0 {
		t.Errorf("ClusteredNI allocates %v times", a)
	}
}

// TestClusteredSingletons: with one item per cluster the clusters are
// independent pairs, and the statistics reduce to McNemar's
// (L−G)²/(L+G): Durkalski's exactly, Obuchowski's times (K−1)/K. The
// clustered NI Wald statistic's SE² becomes K/(K−1)·(ψ̂ − Δ̂²)/N, the
// unclustered Wald variance with the (K−1) correction.
func TestClusteredSingletons(t *testing.T) {
	for _, c := range []struct{ lost, gained, same int }{{7, 1, 43}, {9, 11, 180}, {3, 0, 2}} {
		var cs []ClusterCounts
		for range c.lost {
			cs = append(cs, ClusterCounts{N: 1, Lost: 1})
		}
		for range c.gained {
			cs = append(cs, ClusterCounts{N: 1, Gained: 1})
		}
		for range c.same {
			cs = append(cs, ClusterCounts{N: 1})
		}
		k := float64(len(cs))
		d := float64(c.lost - c.gained)
		mcnemar := d * d / float64(c.lost+c.gained)
		o, _ := ClusteredMcNemar(cs, ClusterObuchowski)
		du, _ := ClusteredMcNemar(cs, ClusterDurkalski)
		check(t, "durkalski singletons", du.ChiSquare, mcnemar, 1e-12, "reduces to McNemar")
		check(t, "obuchowski singletons", o.ChiSquare, mcnemar*(k-1)/k, 1e-12, "reduces to McNemar·(K−1)/K")
		z, _, _ := ClusteredNI(cs, 0.1)
		delta := -d / k
		psi := float64(c.lost+c.gained) / k
		se := math.Sqrt(k / (k - 1) * (psi - delta*delta) / k)
		check(t, "NI singletons", z, (delta+0.1)/se, 1e-12, "Wald with the (K−1) correction")
	}
}
