package stats

import "math"

// Cluster is the outcome of the items of one cluster (one conversation):
// K retained of N checked.
type Cluster struct {
	K, N int
}

// ClusteredRate is a rate over items grouped in clusters whose items are
// correlated (items from one conversation share its compactions), with
// the cluster-robust standard error beside the naive one.
type ClusteredRate struct {
	Proportion // pooled: ΣK of ΣN
	// Clusters is the number of clusters with at least one item.
	Clusters int
	// StandardError is the naive binomial standard error sqrt(p(1−p)/N).
	StandardError float64
	// RobustStandardError is the cluster-robust (linearised ratio
	// estimator) standard error:
	//
	//	Var(p̂) = G/(G−1) · Σ_g (K_g − p̂·N_g)² / N²
	//
	// (Cameron & Miller 2015, "A practitioner's guide to cluster-robust
	// inference", eq. 11 with the G/(G−1) small-sample factor; R's
	// survey::svymean with ids = ~cluster gives the same). It is NaN
	// when there is a single cluster.
	RobustStandardError float64
	// DesignEffect is (RobustStandardError / StandardError)²: how many
	// times the variance exceeds what independent items would give.
	// NaN when either standard error is 0 or undefined.
	DesignEffect float64
}

// EffectiveN is N / DesignEffect: the number of independent items the
// clustered items are worth; N itself when the design effect is undefined.
func (c ClusteredRate) EffectiveN() float64 {
	if math.IsNaN(c.DesignEffect) || c.DesignEffect <= 0 {
		return float64(c.N)
	}
	return float64(c.N) / c.DesignEffect
}

// ClusterRate pools clusters into one rate with its naive and
// cluster-robust standard errors. Clusters with N = 0 are ignored.
func ClusterRate(clusters []Cluster) (ClusteredRate, error) {
	var r ClusteredRate
	for i, c := range clusters {
		if c.N < 0 || c.K < 0 || c.K > c.N {
			return ClusteredRate{}, inputErrorf("cluster %d: %d retained of %d is not a rate", i, c.K, c.N)
		}
		if c.N == 0 {
			continue
		}
		r.K += c.K
		r.N += c.N
		r.Clusters++
	}
	if r.N == 0 {
		return ClusteredRate{}, inputErrorf("no items in any cluster")
	}
	p := r.Estimate()
	r.StandardError = r.Proportion.StandardError()
	r.RobustStandardError, r.DesignEffect = math.NaN(), math.NaN()
	if r.Clusters < 2 {
		return r, nil
	}
	var ss float64
	for _, c := range clusters {
		if c.N == 0 {
			continue
		}
		e := float64(c.K) - p*float64(c.N)
		ss += e * e
	}
	g := float64(r.Clusters)
	nf := float64(r.N)
	r.RobustStandardError = math.Sqrt(g / (g - 1) * ss / (nf * nf))
	if r.StandardError > 0 {
		r.DesignEffect = (r.RobustStandardError / r.StandardError) * (r.RobustStandardError / r.StandardError)
	}
	return r, nil
}

// RobustInterval is p̂ ± z·RobustStandardError clipped to [0,1], the
// Wald interval on the cluster-robust standard error; with fewer than two
// clusters it falls back to the Wilson interval on the pooled rate.
func (c ClusteredRate) RobustInterval(confidence float64) (Interval, error) {
	if err := ValidateConfidence(confidence); err != nil {
		return Interval{}, err
	}
	if math.IsNaN(c.RobustStandardError) {
		return c.Proportion.Interval(Wilson, confidence)
	}
	h := Z(confidence) * c.RobustStandardError
	p := c.Estimate()
	return Interval{Method: "cluster-robust", Lower: clip01(p - h), Upper: clip01(p + h)}, nil
}
