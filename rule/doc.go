// Package rule holds the regression rules that decide, class by class,
// whether a candidate summariser retains fewer items than the incumbent,
// and their operating characteristics: the probability that a rule
// blocks a change that is exactly as good as the incumbent (its false
// block rate) and the probability that it blocks a given drop in a
// class's retention (its power), under the noise measured by two runs of
// one system (`tally noise`).
//
// A Rule is a small value, in the manner of gonum's distuv:
//
//	r := rule.Rule{Kind: rule.McNemar, Alpha: 0.05, Clustered: true}
//	oc, err := r.Characteristics(classes, rule.Scenario{}, rule.SimOptions{})
//
// Three kinds of rule decide a class row:
//
//   - Count blocks when the candidate loses more than Tolerance items of a
//     class net (lost less gained): the rule tally had before it stated
//     error rates, kept for comparison.
//   - McNemar blocks a class when a one-sided McNemar test (exact or
//     mid-p; the clustered test of Obuchowski 1998 as modified by Yang,
//     Sun & Hardin 2010 where items share conversations) rejects "the
//     candidate loses no more than it gains" at level Alpha, with Holm's
//     step-down procedure across classes, so that a harmless change
//     blocks with probability at most Alpha when the test is valid.
//   - NonInferiority blocks a class unless a one-sided paired score test
//     shows the candidate's retention is no more than Margin below the
//     incumbent's (Tango 1998; the clustered Wald test of Durkalski et al.
//     2003 where items share conversations), at level Alpha per class: an
//     intersection-union test, which needs no multiplicity correction.
//
// The operating characteristics are computed under a stated model of the
// paired item verdicts (Model), exactly where the model allows and by a
// seeded simulation, with its Monte-Carlo standard error, where it does
// not. Contradictions are not part of a rule's error rates: any item the
// candidate newly contradicts blocks until a reviewer marks it a judge
// error, and the expected number of such review tasks under noise is
// reported beside the rates.
//
// Nothing here prints; errors caused by a user's values match
// stats.ErrInput under errors.Is.
package rule
