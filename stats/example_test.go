package stats_test

import (
	"fmt"

	"github.com/tally-eval/tally/stats"
)

// The seed text's first objection: 200 conversations at 0.83.
func ExampleProportion_Interval() {
	p := stats.Proportion{K: 166, N: 200}
	iv, err := p.Interval(stats.Wilson, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("rate %.2f, standard error %.3f, wilson %.3f–%.3f\n", p.Estimate(), p.StandardError(), iv.Lower, iv.Upper)
	// Output: rate 0.83, standard error 0.027, wilson 0.772–0.876
}

// A move from 0.83 to 0.84 over 200 conversations is noise.
func ExampleCompare() {
	c, err := stats.Compare(stats.Proportion{K: 168, N: 200}, stats.Proportion{K: 166, N: 200}, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("difference %+.2f = %.2f standard errors, p = %.2f, distinguishable: %v\n",
		c.Difference, c.InStandardErrors, c.PValue, c.Distinguishable)
	// Output: difference +0.01 = 0.27 standard errors, p = 0.79, distinguishable: false
}

// How many conversations give a ±0.027 Wilson interval at 0.83, and four
// times fewer for twice the width.
func ExampleSampleSizeWilson() {
	for _, h := range []float64{0.052, 0.026} {
		n, _ := stats.SampleSizeWilson(0.83, h, 0.95)
		fmt.Printf("half-width %.3f: %d trials\n", h, n)
	}
	// Output:
	// half-width 0.052: 200 trials
	// half-width 0.026: 801 trials
}
