package report

import (
	"fmt"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// NewPaper computes the on-paper argument from the report's own replay: the
// reference's success rate over the replayed conversations, and `tally
// plan` at that rate and number of conversations, with the catastrophic
// count taken from the item rows (see Paper.Catastrophic). It needs
// r.Replay, r.Classes and r.Contradictions.
//
// The catastrophic count is the number of fixture conversations in which
// the candidate lost a constraint item or newly contradicted an item: the
// conversations the change's item-level failures are seen to reach. A
// lost constraint and an inversion are the failures the source text says
// the aggregate cannot see; supposing each of those conversations failed
// outright is the most generous assumption available, so the plan asks
// whether even that would show in task success.
func NewPaper(r *Report, confidence float64) (*Paper, error) {
	res := r.Replay.Result
	t := res.Table
	p := &Paper{}
	var err error
	if p.Rate, err = stats.Summarize(stats.Proportion{K: t.A + t.B, N: res.Pairs}, confidence); err != nil {
		return nil, fmt.Errorf("replay: the reference's success rate: %w", err)
	}
	convs := catastrophicConversations(r)
	p.Catastrophic = len(convs)
	p.CatastrophicConversations = convs[:min(len(convs), MaxNamed)]
	cat := p.Catastrophic
	switch successes := t.A + t.B; {
	case cat == 0:
		p.Notes = append(p.Notes, "no catastrophic count: the candidate lost no constraint item and newly contradicted no item, so no conversation is known to be reached by an item-level failure")
	case cat > successes:
		p.Notes = append(p.Notes, fmt.Sprintf(
			"no catastrophic count: the %d conversations in which the candidate lost a constraint or newly contradicted an item are more than the %d the reference succeeded on, so they cannot all fail outright in this replay",
			cat, successes))
		cat = 0
	}
	// The paired figures assume the runs disagree as often as this
	// replay's did (noise and real change together): the discordance a
	// second paired run would meet. Where that is less than the drop
	// itself (or the replay has no discordant pair), they assume no
	// noise, and the cell says which.
	in := power.PlanInput{Rate: p.Rate.Estimate, Conversations: res.Pairs, Catastrophic: cat, Alpha: 1 - confidence, Power: PaperPower}
	if d := float64(t.B+t.C) / float64(res.Pairs); d > 0 && d >= float64(cat)/float64(res.Pairs) {
		in.Paired = power.PairedAssumption{Basis: power.StatedDiscordance, Discordance: d}
	}
	plan, err := power.PlanFor(in)
	if err != nil && in.Paired.Basis != power.NoNoise {
		in.Paired = power.PairedAssumption{}
		plan, err = power.PlanFor(in)
	}
	if err != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("no plan for a success rate of %.4g over %d conversations: %v", p.Rate.Estimate, res.Pairs, err))
		return p, nil
	}
	p.Plan = &plan
	return p, nil
}

// catastrophicConversations lists, in fixture order, the conversations
// with a constraint item the candidate lost or an item it newly
// contradicts (both on item-compactions both systems checked).
func catastrophicConversations(r *Report) []string {
	hit := map[string]bool{}
	for _, row := range r.Classes {
		if row.Class == fixture.Constraint {
			for _, k := range row.Lost {
				hit[k.ConversationID] = true
			}
		}
	}
	for _, k := range r.Contradictions.New {
		hit[k.ConversationID] = true
	}
	var out []string
	for i := range r.Items {
		id := r.Items[i].ConversationID
		// Items are in fixture order: a conversation's rows are together.
		if hit[id] && (len(out) == 0 || out[len(out)-1] != id) {
			out = append(out, id)
		}
	}
	return out
}
