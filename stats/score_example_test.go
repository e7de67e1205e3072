package stats_test

import (
	"fmt"

	"github.com/tally-eval/tally/stats"
)

// Newcombe's (1998) example (d): 5 of 56 against 0 of 29, where the
// simple intervals struggle with the zero.
func ExampleScoreInterval() {
	a, b := stats.Proportion{K: 5, N: 56}, stats.Proportion{K: 0, N: 29}
	for _, m := range []stats.DiffMethod{stats.DiffMiettinenNurminen, stats.DiffMee} {
		iv, err := stats.ScoreInterval(a, b, m, 0.95)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-18s %+.4f to %+.4f\n", m, iv.Lower, iv.Upper)
	}
	// Output:
	// miettinen-nurminen -0.0326 to +0.1933
	// mee                -0.0313 to +0.1926
}
