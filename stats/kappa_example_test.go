package stats_test

import (
	"fmt"

	"github.com/tally-eval/tally/stats"
)

// Two runs of a judge over the same 90 items, each verdict retained,
// lost or contradicted: how far beyond chance they agree.
func ExampleCohenKappa() {
	k, err := stats.CohenKappa([][]int{
		{40, 5, 1}, // run one: retained; run two: retained, lost, contradicted
		{3, 30, 2}, // run one: lost
		{0, 2, 7},  // run one: contradicted
	}, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("agreement %.3f, by chance %.3f, κ %.3f ± %.3f (95%% %.3f–%.3f), z %.1f\n",
		k.Observed, k.Expected, k.Kappa, k.StandardError, k.Interval.Lower, k.Interval.Upper, k.Z)
	// Output: agreement 0.856, by chance 0.415, κ 0.753 ± 0.063 (95% 0.630–0.876), z 9.0
}
