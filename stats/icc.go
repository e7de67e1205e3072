package stats

import "math"

// ICC is the intraclass correlation of a binary outcome over clusters
// (items grouped in conversations): how much more alike two items of one
// conversation are than two items of different conversations.
type ICC struct {
	// Clusters is the number of clusters with at least one item, N the
	// number of items.
	Clusters, N int
	// Rho is the ANOVA estimate of the intraclass correlation. It may be
	// negative: the estimator is not truncated, and it falls below 0 when
	// clusters vary less than independent items would (by chance, with
	// few clusters, or by a real negative correlation), down to
	// −1/(n*−1). Rho is NaN when it is undefined, and Undefined then says
	// why.
	Rho float64
	// DesignEffect is the variance inflation of the pooled rate,
	// ξ = Σ n_k (1 + (n_k − 1)ρ) / N, computed with ρ = max(Rho, 0): a
	// negative estimate counts as no clustering, so DesignEffect is at
	// least 1 (with a negative ρ and unequal cluster sizes the formula can
	// even go below 0, which no variance can). NaN when Rho is.
	DesignEffect float64
	// Undefined is empty when Rho is a number and otherwise says why it
	// is not.
	Undefined string
}

// The reasons ClusterICC gives for an undefined ICC.
const (
	ICCOneCluster = "fewer than two clusters: no between-cluster variation to measure"
	ICCSingletons = "every cluster holds one item: no within-cluster pairs to correlate"
	ICCNoVariance = "every item has the same outcome: no variance to share out"
)

// ClusterICC is the one-way ANOVA estimate of the intraclass correlation
// of a binary outcome, K events among the N items of each cluster (Saha,
// Miller & Wang 2016, "Interval estimation of the intraclass correlation
// coefficient for binary data", Int J Biostat 12:1–18, the ANOVA
// estimator, as R's ratesci::clusterpci computes it). With x_k events of n_k
// items in cluster k, X = Σx_k, N = Σn_k over K clusters:
//
//	BMS = (Σ x_k²/n_k − X²/N) / (K − 1)
//	WMS = (X − Σ x_k²/n_k) / Σ(n_k − 1)
//	n*  = (N² − Σ n_k²) / ((K − 1) N)
//	ρ   = (BMS − WMS) / (BMS + (n* − 1) WMS)
//
// BMS and WMS are the between- and within-cluster mean squares of a
// one-way ANOVA of the 0/1 outcomes (R's aov(y ~ cluster)). Clusters with
// N = 0 are ignored; a cluster with K < 0, N < 0 or K > N is an input
// error, and so is having no items at all. An undefined ICC (see the ICC*
// reasons) is not an error: Rho and DesignEffect are NaN and Undefined
// says why.
func ClusterICC(clusters []Cluster) (ICC, error) {
	var r ICC
	var x, sxn, sn2 float64
	for i, c := range clusters {
		if c.N < 0 || c.K < 0 || c.K > c.N {
			return ICC{}, inputErrorf("cluster %d: %d events of %d items is not a rate", i, c.K, c.N)
		}
		if c.N == 0 {
			continue
		}
		if r.N > math.MaxInt-c.N {
			return ICC{}, inputErrorf("cluster %d: the number of items overflows", i)
		}
		r.Clusters++
		r.N += c.N
		k, n := float64(c.K), float64(c.N)
		x += k
		sxn += k * k / n
		sn2 += n * n
	}
	if r.N == 0 {
		return ICC{}, inputErrorf("no items in any cluster")
	}
	undefined := func(why string) (ICC, error) {
		r.Rho, r.DesignEffect, r.Undefined = math.NaN(), math.NaN(), why
		return r, nil
	}
	switch {
	case r.Clusters < 2:
		return undefined(ICCOneCluster)
	case r.N == r.Clusters:
		return undefined(ICCSingletons)
	case x == 0 || x == float64(r.N):
		return undefined(ICCNoVariance)
	}
	kf, nf := float64(r.Clusters), float64(r.N)
	bms := (sxn - x*x/nf) / (kf - 1)
	wms := (x - sxn) / (nf - kf)
	nstar := (nf*nf - sn2) / ((kf - 1) * nf)
	den := bms + (nstar-1)*wms
	if !(den > 0) {
		// Unreachable: BMS = WMS = 0 only when every item has the
		// same outcome, caught above; kept against rounding.
		return undefined(ICCNoVariance)
	}
	r.Rho = (bms - wms) / den
	rho := math.Max(0, r.Rho)
	// Σ n_k(1 + (n_k − 1)ρ)/N = 1 + ρ(Σn_k² − N)/N
	r.DesignEffect = 1 + rho*(sn2-nf)/nf
	return r, nil
}
