package noise_test

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/noise"
)

// Two runs of one summariser over the same two conversations: the second
// run loses one constraint the first kept and keeps one the first lost.
// By hand: the verdicts pair as V/V, S/A, A/S, V/S, A/A; 2 of 5 are
// discordant; agreement p_o = 2/5, chance p_e = (2·1 + 1·2 + 2·2)/25 =
// 8/25, κ = (0.40 − 0.32)/0.68 = 0.118.
func Example() {
	rec := func(conv string, comp int, item, verdict string) string {
		return fmt.Sprintf(`{"system":"summariser","conversation_id":%q,"compaction":%d,"item_id":%q,"class":"constraint","verdict":%q}`+"\n",
			conv, comp, item, verdict)
	}
	a := rec("s1", 1, "c1", "verbatim") + rec("s1", 1, "c2", "supported") + rec("s1", 2, "c1", "absent") +
		rec("s2", 1, "c1", "verbatim") + rec("s2", 1, "c2", "absent")
	b := rec("s1", 1, "c1", "verbatim") + rec("s1", 1, "c2", "absent") + rec("s1", 2, "c1", "supported") +
		rec("s2", 1, "c1", "supported") + rec("s2", 1, "c2", "absent")
	m, err := noise.Compare(strings.NewReader(a), strings.NewReader(b), "run1.jsonl", "run2.jsonl", 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range m.Classes {
		fmt.Printf("%s: %d pairs in %d conversations, %d lost, %d gained: discordance %.2f (95%% Wilson %.2f–%.2f)\n",
			c.Class, c.Pairs, c.Conversations, c.Lost, c.Gained, c.Discordance(), c.DiscordanceInterval.Lower, c.DiscordanceInterval.Upper)
	}
	fmt.Printf("verdict agreement: κ = %.3f over %d pairs\n", m.Agreement.Kappa, m.Agreement.N)
	// Output:
	// constraint: 5 pairs in 2 conversations, 1 lost, 1 gained: discordance 0.40 (95% Wilson 0.12–0.77)
	// verdict agreement: κ = 0.118 over 5 pairs
}
