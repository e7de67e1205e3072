// Package power holds the statistics of paired designs and of planning an
// evaluation before it runs: McNemar's tests on a paired 2×2 table (and
// the one-sided p-value a gate uses, OneSidedP), Tango's non-inferiority
// test (TangoNI), the clustered paired tests for items that share
// conversations (ClusteredMcNemar, ClusteredNI, read from a clusters file
// by LoadClusters), intervals for the paired difference of two rates,
// power and sample size
// for paired and for independent designs, minimum detectable effects, and
// the resolution check behind `tally plan` ("can the aggregate even see K
// failures?").
//
// The types are small values in the manner of gonum's distuv:
//
//	r, err := power.McNemar(power.Table{A: 1, B: 1, C: 7, D: 12}, 0.95)
//	ss, err := power.Paired{PLost: 0.02, PGained: 0.06, Alpha: 0.05, Method: power.Exact}.SampleSize(0.8)
//
// A paired table counts conversations run twice, once by the reference and
// once by the candidate: A both succeeded, B lost (the reference succeeded
// and the candidate failed), C gained, D both failed. Differences are
// always candidate minus reference.
//
// Every error caused by a user's values matches stats.ErrInput (ErrInput
// here is the same value) under errors.Is. Nothing here prints.
// Distributions and special functions come from gonum.
package power
