package power_test

import (
	"fmt"

	"github.com/tally-eval/tally/power"
)

// The Bentur et al. (2009) table analysed by Fagerland, Lydersen & Laake
// (2014): 21 patients, one lost and seven gained.
func ExampleMcNemar() {
	r, err := power.McNemar(power.Table{A: 1, B: 1, C: 7, D: 12}, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d pairs, %d discordant, difference %+.4f\n", r.Pairs, r.Discordant, r.Difference)
	for _, t := range r.Tests {
		if t.HasStatistic {
			fmt.Printf("%-13s χ² = %.3f  p = %.4f\n", t.Method, t.Statistic, t.PValue)
		} else {
			fmt.Printf("%-13s          p = %.4f\n", t.Method, t.PValue)
		}
	}
	for _, iv := range r.Intervals {
		fmt.Printf("%-9s %+.4f to %+.4f\n", iv.Method, iv.Lower, iv.Upper)
	}
	// Output:
	// 21 pairs, 8 discordant, difference +0.2857
	// exact                  p = 0.0703
	// mid-p                  p = 0.0391
	// asymptotic    χ² = 4.500  p = 0.0339
	// asymptotic-cc χ² = 3.125  p = 0.0771
	// wald      +0.0517 to +0.5197
	// newcombe  +0.0256 to +0.5069
	// tango     +0.0260 to +0.5172
}

// The seed's objection on paper: 0.83 over 200 conversations, and three
// of them failing outright.
func ExamplePlan() {
	p, err := power.Plan(0.83, 200, 3, 0.05, 0.8)
	if err != nil {
		panic(err)
	}
	c := p.Catastrophic
	fmt.Printf("standard error %.3f, %s interval %.2f–%.2f\n", p.StandardError, p.Interval.Method, p.Interval.Lower, p.Interval.Upper)
	fmt.Printf("halving it takes %d conversations\n", p.HalveUncertaintyConversations)
	fmt.Printf("detectable drop: %.3f independent, %.3f paired\n", p.MinimumDetectable.Independent.Effect, p.MinimumDetectable.Paired.Effect)
	fmt.Printf("%d failures: drop %.3f = %.2f standard errors, power %.2f, resolvable %v\n", c.Count, c.Drop, c.InStandardErrors, c.Power, c.Resolvable)
	fmt.Printf("to see them: %d conversations per run, or %d paired\n", c.ConversationsNeeded.Independent, c.ConversationsNeeded.Paired)
	// Output:
	// standard error 0.027, wald interval 0.78–0.88
	// halving it takes 800 conversations
	// detectable drop: 0.117 independent, 0.039 paired
	// 3 failures: drop 0.015 = 0.56 standard errors, power 0.06, resolvable false
	// to see them: 10185 conversations per run, or 521 paired
}

// How many conversations, each run by both systems, an exact McNemar
// test needs to see a candidate that loses 2% and gains 6%.
func ExamplePaired_SampleSize() {
	d := power.Paired{PLost: 0.02, PGained: 0.06, Alpha: 0.05, Method: power.Exact}
	ss, err := d.SampleSize(0.8)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d pairs, power %.3f, actual size %.4f\n", ss.N, ss.Power, ss.ActualSize)
	// Output: 421 pairs, power 0.800, actual size 0.0322
}

// The gate's one-sided McNemar test: 16 items lost and 6 gained (the
// Cavo et al. table's discordant pairs). The mid-p is half the two-sided
// mid-p of Fagerland, Lydersen & Laake's worked example, 0.034690.
func ExampleOneSidedP() {
	fmt.Printf("exact %.6f, mid-p %.6f\n", power.OneSidedP(16, 6, false), power.OneSidedP(16, 6, true))
	// Output:
	// exact 0.026239, mid-p 0.017345
}

// Tango's (1998) example: 44 pairs, one lost and none gained. Is the
// candidate at most 10 points worse?
func ExampleTangoNI() {
	z, p, err := power.TangoNI(power.Table{A: 43, B: 1, C: 0, D: 0}, 0.1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("Z = %.4f, one-sided p = %.4f\n", z, p)
	// Output:
	// Z = 1.7086, one-sided p = 0.0438
}

// Four conversations' items, where losses come in clumps: the clustered
// tests weigh the evidence by conversation, not by item. (Checked in R
// with the formulas of power/testdata/refgen/clustered.R and
// binom.test(5, 6, alternative = "greater").)
func ExampleClusteredMcNemar() {
	cs := []power.ClusterCounts{{N: 10, Lost: 4, Gained: 0}, {N: 12, Lost: 0, Gained: 1}, {N: 8, Lost: 1, Gained: 0}, {N: 9, Lost: 0, Gained: 0}}
	for _, m := range power.ClusterMethods {
		t, err := power.ClusteredMcNemar(cs, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-10s χ² = %.4f  p = %.4f  one-sided p = %.4f\n", t.Method, t.ChiSquare, t.P, t.OneSidedP)
	}
	fmt.Printf("unclustered one-sided exact p = %.4f\n", power.OneSidedP(5, 1, false))
	// Output:
	// obuchowski χ² = 0.6667  p = 0.4142  one-sided p = 0.2071
	// durkalski  χ² = 1.0685  p = 0.3013  one-sided p = 0.1506
	// yang       χ² = 0.7338  p = 0.3917  one-sided p = 0.1958
	// unclustered one-sided exact p = 0.1094
}
