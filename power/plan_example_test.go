package power_test

import (
	"fmt"

	"github.com/tally-eval/tally/power"
)

// Nine of 300 conversations failing outright at a success rate of 0.80:
// beyond two independent runs, within a paired run when the runs
// disagree on nothing else, and beyond it again once a second replay of
// the same system is seen to disagree on 8% of the conversations
// (p_gained 0.04: half of that, the other half adding to the losses).
func ExamplePlanFor() {
	for _, a := range []power.PairedAssumption{
		{},
		{Basis: power.StatedGained, PGained: 0.04},
	} {
		p, err := power.PlanFor(power.PlanInput{Rate: 0.80, Conversations: 300, Catastrophic: 9, Alpha: 0.05, Power: 0.8, Paired: a})
		if err != nil {
			panic(err)
		}
		c := p.Catastrophic
		fmt.Printf("%s: independent power %.2f; paired (%s) p_lost %.2f p_gained %.2f power %.2f, needs %d pairs, MDE %.3f; up to discordance %.3f\n",
			p.PairedAssumption.Basis, c.Power, p.PairedMethod, c.Paired.PLost, c.Paired.PGained, c.Paired.Power,
			c.ConversationsNeeded.Paired, p.MinimumDetectable.Paired.Effect, c.Paired.MaxDiscordance)
	}
	// Output:
	// none: independent power 0.14; paired (connor) p_lost 0.03 p_gained 0.00 power 0.85, needs 260 pairs, MDE 0.026; up to discordance 0.035
	// p_gained: independent power 0.14; paired (connor) p_lost 0.07 p_gained 0.04 power 0.35, needs 957 pairs, MDE 0.060; up to discordance 0.035
}
