package stats_test

import (
	"fmt"

	"github.com/tally-eval/tally/stats"
)

// Five conversations whose summaries keep or drop their items together:
// the correlation within a conversation, and how much it inflates the
// variance of the pooled retention rate (R: a one-way aov of the 18 0/1
// outcomes on conversation gives the same ρ, 0.567286888793).
func ExampleClusterICC() {
	icc, err := stats.ClusterICC([]stats.Cluster{{K: 4, N: 4}, {K: 0, N: 3}, {K: 5, N: 6}, {K: 1, N: 2}, {K: 3, N: 3}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d items in %d conversations: ρ %.3f, design effect %.2f\n", icc.N, icc.Clusters, icc.Rho, icc.DesignEffect)

	one, _ := stats.ClusterICC([]stats.Cluster{{K: 2, N: 5}})
	fmt.Printf("one conversation: ρ %v (%s)\n", one.Rho, one.Undefined)
	// Output:
	// 18 items in 5 conversations: ρ 0.567, design effect 2.76
	// one conversation: ρ NaN (fewer than two clusters: no between-cluster variation to measure)
}
