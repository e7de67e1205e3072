// Package stats holds one- and two-sample binomial statistics: confidence
// intervals for a rate, its standard error, the comparison of two
// independent rates, and the sample size needed for a target precision.
//
// The types are small values in the manner of gonum's distuv:
//
//	p := stats.Proportion{K: 166, N: 200}
//	ci, err := p.Interval(stats.Wilson, 0.95)
//
// Every function that can receive a user's data validates it and returns
// an error; nothing here prints. Distributions and special functions come
// from gonum (distuv.Normal, distuv.Beta); nothing is hand-rolled.
package stats
