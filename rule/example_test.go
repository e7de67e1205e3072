package rule_test

import (
	"fmt"

	"github.com/tally-eval/tally/rule"
)

// A class of 40 independent item-compactions whose noise makes two runs
// of one system disagree on 8% of them, and a candidate that drops 3
// points: each item is lost with probability 0.07 and gained with 0.04.
// The count rule with a tolerance of 1 blocks it with probability
// 0.4346, the one-sided exact McNemar test at 0.05 with 0.0394 (R's
// enumeration of the trinomial gives 0.43461729 and 0.03937651:
// rule/testdata/power.R).
func ExampleRule_Characteristics() {
	sizes, _ := rule.EvenSizes(40, 40)
	classes := []rule.Class{{Name: "constraint", Sizes: sizes, Baseline: 0.9, Discordance: 0.08}}
	drop := rule.Scenario{Drop: map[string]float64{"constraint": 0.03}}
	for _, r := range []rule.Rule{{Kind: rule.Count, Tolerance: 1}, {Kind: rule.McNemar, Alpha: 0.05}} {
		c, err := r.Characteristics(classes, drop, rule.SimOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: blocks with probability %.4f (%s)\n", r.Kind, c.Block, c.Method)
	}
	// Output:
	// count: blocks with probability 0.4346 (exact)
	// mcnemar: blocks with probability 0.0394 (exact)
}
