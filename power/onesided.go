package power

// OneSidedP is the p-value of the one-sided McNemar test of H1 "the
// candidate loses more than it gains" against H0 "a discordant pair is
// as likely lost as gained", given lost and gained discordant pairs.
// Given D = lost + gained, the number lost is X ~ Bin(D, ½) under H0,
// and
//
//	exact (midP false): P(X ≥ lost)                 (R's binom.test(lost, D, alternative = "greater"))
//	mid-p (midP true):  P(X ≥ lost) − ½·P(X = lost)  (Fagerland, Lydersen & Laake 2013's mid-p, one-sided)
//
// The same formulas hold at lost = gained (exact ½ + ½·P(X = lost), mid-p
// exactly ½): no special case. With no discordant pair (D = 0) both are
// 1 by definition: the runs agree everywhere and there is no evidence of
// a loss (the mid-p formula would give ½, which would read as half-way
// to evidence).
//
// It allocates nothing and is meant for simulation loops: 0.3–0.6 µs
// up to D = 10,000, about twice one gonum Binomial.CDF
// (BenchmarkOneSidedP). Negative counts are a programmer's error and
// panic; beyond MaxPairs discordant pairs it loses accuracy (Table's
// limit).
func OneSidedP(lost, gained int, midP bool) float64 {
	if lost < 0 || gained < 0 {
		panic("power: OneSidedP with a negative count")
	}
	d := lost + gained
	if d == 0 {
		return 1
	}
	// By symmetry X ≥ lost ⇔ D − X ≤ gained, with D − X ~ Bin(D, ½) too:
	// the upper tail is a lower tail, which halfBinomialCDF computes
	// without cancellation in both of its ends.
	if !midP {
		return halfBinomialCDF(d, gained)
	}
	return halfBinomialCDF(d, gained-1) + halfBinomialProb(d, gained)/2
}
