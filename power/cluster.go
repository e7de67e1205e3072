package power

import (
	"fmt"
	"math"
)

// ClusterCounts is one cluster's (one conversation's) paired items: N
// item pairs, Lost and Gained of them discordant (Lost: the reference
// kept the item and the candidate did not; Gained: the other way).
type ClusterCounts struct{ N, Lost, Gained int }

// ClusterMethod names a clustered paired test.
type ClusterMethod string

// The clustered McNemar-type tests, for items that share clusters (a
// summary that drops one item of a conversation tends to drop others).
// With x_k = Lost_k − Gained_k, n_k = N_k, K clusters, N = Σn_k and
// Δ̂ = Σx_k/N, each statistic is referred to χ²(1):
//
//	obuchowski  χ² = ((K−1)/K)·(Σx_k)² / Σx_k²
//	durkalski   χ² = (Σx_k/n_k)² / Σ(x_k/n_k)²
//	yang        χ² = ((K−1)/K)·(Σx_k)² / (½·Σ[(x_k − n_kΔ̂)² + x_k²])
//
// as Yang, Sun & Hardin (2010, "A note on the tests for clustered
// matched-pair binary data", Biometrical Journal 52:638) write them and
// the clust.bin.pair R package computes them. Their names are part of
// the CLI and JSON contract.
const (
	// ClusterObuchowski is Obuchowski's (1998, Stat Med 17:1495) test,
	// whose cluster variance is centred at H0; Yang et al. find it the
	// most conservative of the three.
	ClusterObuchowski ClusterMethod = "obuchowski"
	// ClusterDurkalski is the test of Durkalski, Palesch, Lipsitz & Rust
	// (2003, Stat Med 22:2417), which weights every cluster equally
	// whatever its size.
	ClusterDurkalski ClusterMethod = "durkalski"
	// ClusterYang is Yang, Sun & Hardin's (2010) modified Obuchowski
	// test: the average of the H0-centred and the estimate-centred
	// cluster variances.
	ClusterYang ClusterMethod = "yang"
)

// ClusterMethods lists the clustered tests in the order reports show
// them.
var ClusterMethods = []ClusterMethod{ClusterObuchowski, ClusterDurkalski, ClusterYang}

// ClusteredTest is one clustered McNemar-type test.
type ClusteredTest struct {
	Method ClusterMethod
	// Clusters is K, Pairs is N = Σn_k.
	Clusters, Pairs int
	// ChiSquare is the statistic and P its two-sided p-value against
	// χ²(1).
	ChiSquare, P float64
	// Z is the signed root of ChiSquare, positive when more items were
	// lost than gained; OneSidedP = 1 − Φ(Z) is the p-value of H1 "the
	// candidate loses more than it gains", except with no discordant
	// pair at all, where it is 1 (OneSidedP's convention).
	Z, OneSidedP float64
}

// ClusteredMcNemar runs the clustered test m on cs, one entry per
// cluster. It allocates nothing.
//
// Defined values where a formula is 0/0 or has no variance to estimate:
//
//   - No discordant pair in any cluster: ChiSquare 0, P 1, Z 0 and
//     OneSidedP 1, as the unclustered tests (nothing changed).
//   - Discordant pairs, but Lost_k = Gained_k in every cluster: every
//     statistic is 0/0; it is ChiSquare 0, P 1, Z 0, OneSidedP ½ (the
//     changes cancel within each cluster: no evidence either way).
//   - One cluster: the between-cluster variance cannot be estimated (the
//     (K−1)/K factor is 0 and Durkalski's statistic is 1 whatever the
//     data), so every method gives the unclustered asymptotic McNemar
//     test on the cluster's counts, (L−G)²/(L+G), which assumes its items
//     independent.
//
// An empty cs, a cluster with N < 1, a negative count, Lost + Gained > N,
// more than MaxPairs pairs in all or an unknown method is an error
// matching ErrInput that names the cluster (from 1).
func ClusteredMcNemar(cs []ClusterCounts, m ClusterMethod) (ClusteredTest, error) {
	switch m {
	case ClusterObuchowski, ClusterDurkalski, ClusterYang:
	default:
		return ClusteredTest{}, inputErrorf("unknown clustered test %q (want %s)", m, joinNames(ClusterMethods))
	}
	tot, err := clusterTotals(cs)
	if err != nil {
		return ClusteredTest{}, err
	}
	t := ClusteredTest{Method: m, Clusters: len(cs), Pairs: tot.n, P: 1, OneSidedP: 1}
	if tot.lost+tot.gained == 0 {
		return t, nil
	}
	t.OneSidedP = 0.5
	var z float64
	switch {
	case len(cs) == 1:
		z = float64(tot.lost-tot.gained) / math.Sqrt(float64(tot.lost+tot.gained))
	case m == ClusterDurkalski:
		var num, den float64
		for _, c := range cs {
			r := float64(c.Lost-c.Gained) / float64(c.N)
			num += r
			den += r * r
		}
		z = ratio(num, math.Sqrt(den))
	default:
		k := float64(len(cs))
		x := float64(tot.lost - tot.gained)
		var v float64
		for _, c := range cs {
			xk := float64(c.Lost - c.Gained)
			if m == ClusterYang {
				// x_k − n_kΔ̂ = (N·x_k − n_k·X)/N, from integers so
				// that it is 0 exactly where it should be.
				d := float64(tot.n*(c.Lost-c.Gained)-c.N*(tot.lost-tot.gained)) / float64(tot.n)
				v += (d*d + xk*xk) / 2
			} else {
				v += xk * xk
			}
		}
		z = ratio(x, math.Sqrt(k/(k-1)*v))
	}
	t.Z = z
	t.ChiSquare = z * z
	t.P = math.Erfc(math.Abs(z) / math.Sqrt2) // χ²(1) survival at z², without the incomplete gamma
	t.OneSidedP = unitNormal.Survival(z)
	return t, nil
}

// ratio is num/den, and 0 when both are 0 (every cluster's changes
// cancel: ClusteredMcNemar's 0/0). The denominators here are 0 only
// when every x_k is 0, and then so is num.
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

// ClusteredNI is the clustered non-inferiority Wald test (Durkalski,
// Palesch, Lipsitz & Rust 2003, "Analysis of clustered matched-pair data
// for a non-inferiority study design", Stat Med 22:279) of H0:
// Δ ≤ −margin against H1: Δ > −margin, with Δ = candidate − reference:
//
//	Δ̂ = Σ(G_k − L_k)/N,  SE² = K/((K−1)·N²) · Σ((G_k − L_k) − n_k·Δ̂)²,
//	z = (Δ̂ + margin)/SE,  p = 1 − Φ(z).
//
// margin must be in [0, 1). Where SE cannot be estimated or is 0 — one
// cluster, or every cluster with the same net change per pair (no
// discordant pair at all, for one) — the Wald statistic is undefined or
// infinite, and ClusteredNI returns TangoNI's score statistic on the
// pooled counts instead (n = N, lost ΣL_k, gained ΣG_k), which assumes
// the items independent but stays finite and sensible: an unchanged
// candidate over many items is shown non-inferior, over a handful not.
// It allocates nothing; errors as ClusteredMcNemar's.
func ClusteredNI(cs []ClusterCounts, margin float64) (z, p float64, err error) {
	if err := validateMargin(margin); err != nil {
		return 0, 0, err
	}
	tot, err := clusterTotals(cs)
	if err != nil {
		return 0, 0, err
	}
	var ss float64
	if len(cs) > 1 {
		for _, c := range cs {
			// (G_k − L_k) − n_kΔ̂ = (N·(G_k − L_k) − n_k·(G − L))/N:
			// d is exact, and ss is 0 exactly when every d is.
			d := float64(tot.n*(c.Gained-c.Lost) - c.N*(tot.gained-tot.lost))
			ss += d * d
		}
	}
	if ss == 0 {
		return tangoScoreNI(tot, margin)
	}
	k, n := float64(len(cs)), float64(tot.n)
	se := math.Sqrt(k/(k-1)*ss) / (n * n)
	z = (float64(tot.gained-tot.lost)/n + margin) / se
	return z, unitNormal.Survival(z), nil
}

// tangoScoreNI is TangoNI on pooled cluster counts.
func tangoScoreNI(tot clusterTotal, margin float64) (z, p float64, err error) {
	z = tangoScore(float64(tot.n), float64(tot.lost), float64(tot.gained), -margin)
	return z, unitNormal.Survival(z), nil
}

// clusterTotal holds the sums over clusters.
type clusterTotal struct{ n, lost, gained int }

// clusterTotals validates cs and sums it. Errors name the cluster from
// 1, in the order given.
func clusterTotals(cs []ClusterCounts) (clusterTotal, error) {
	var t clusterTotal
	if len(cs) == 0 {
		return t, inputErrorf("no clusters: a clustered test needs at least one cluster of item pairs")
	}
	for i, c := range cs {
		switch {
		case c.N < 1:
			return t, clusterError(i, c, "pairs must be at least 1")
		case c.Lost < 0 || c.Gained < 0:
			return t, clusterError(i, c, "lost and gained must not be negative")
		case c.Lost > c.N-c.Gained:
			return t, clusterError(i, c, "lost + gained exceeds the pairs")
		case c.N > MaxPairs-t.n:
			return t, inputErrorf("the clusters hold more than %d pairs", MaxPairs)
		}
		t.n += c.N
		t.lost += c.Lost
		t.gained += c.Gained
	}
	return t, nil
}

func clusterError(i int, c ClusterCounts, msg string) error {
	return inputErrorf("cluster %d (pairs %d, lost %d, gained %d): %s", i+1, c.N, c.Lost, c.Gained, msg)
}

// ClusteredResult is what `tally mcnemar --clusters` reports: the pooled
// counts, every test in ClusterMethods, and the clustered
// non-inferiority test when a margin was given.
type ClusteredResult struct {
	Clusters, Pairs, Lost, Gained int
	Tests                         []ClusteredTest
	// NI is ClusteredNI at the margin; nil without one.
	NI       *NITest
	Warnings []string
}

// Clustered runs every clustered test on cs, and ClusteredNI at margin
// when withNI is set.
func Clustered(cs []ClusterCounts, margin float64, withNI bool) (ClusteredResult, error) {
	tot, err := clusterTotals(cs)
	if err != nil {
		return ClusteredResult{}, err
	}
	r := ClusteredResult{Clusters: len(cs), Pairs: tot.n, Lost: tot.lost, Gained: tot.gained}
	for _, m := range ClusterMethods {
		t, err := ClusteredMcNemar(cs, m)
		if err != nil {
			return ClusteredResult{}, err
		}
		r.Tests = append(r.Tests, t)
	}
	if withNI {
		z, p, err := ClusteredNI(cs, margin)
		if err != nil {
			return ClusteredResult{}, fmt.Errorf("clustered non-inferiority: %w", err)
		}
		r.NI = &NITest{Method: "durkalski", Margin: margin, Z: z, PValue: p}
	}
	discordant := 0
	for _, c := range cs {
		if c.Lost+c.Gained > 0 {
			discordant++
		}
	}
	switch {
	case len(cs) == 1:
		r.Warnings = append(r.Warnings, "clustered: one conversation, so the variance between conversations cannot be estimated; every clustered test is the unclustered asymptotic McNemar test, and the non-inferiority test Tango's")
	case tot.lost+tot.gained == 0:
		r.Warnings = append(r.Warnings, "clustered: no discordant pairs in any conversation: every clustered test has p = 1")
	case discordant < 10 && discordant == len(cs):
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"clustered: the clustered tests' variance rests on %d conversations, each with a discordant pair; below about 10 their χ² approximation is rough", discordant))
	case discordant < 10:
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"clustered: only %d of %d conversations have a discordant pair; the clustered tests' variance rests on those few and their χ² approximation is rough", discordant, len(cs)))
	}
	if r.NI != nil && len(cs) > 1 && tangoFallback(cs, tot) {
		r.Warnings = append(r.Warnings, "clustered non-inferiority: every conversation has the same net change per pair, so the clustered variance is 0; the statistic shown is Tango's, which assumes the items independent")
	}
	return r, nil
}

// tangoFallback reports whether ClusteredNI falls back to Tango's
// statistic on cs (the clustered SE is 0).
func tangoFallback(cs []ClusterCounts, tot clusterTotal) bool {
	for _, c := range cs {
		if tot.n*(c.Gained-c.Lost) != c.N*(tot.gained-tot.lost) {
			return false
		}
	}
	return true
}
