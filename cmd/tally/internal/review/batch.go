package review

import (
	"fmt"
	"slices"

	"github.com/tally-eval/tally/selection"
)

// Rest, in Decide's lists, stands for every candidate the lists do not
// name and that is still pending.
const Rest = "rest"

// Decide sets the statuses of p's candidates without a terminal: those
// accept names are accepted, those reject names rejected; Rest in one of
// the lists takes the candidates still pending after that. A candidate
// decided before keeps its status unless a list names it. The position
// moves to the first candidate still pending (past the end when none
// is), where an interactive review resumes. An id p does not hold, an id
// in both lists or Rest in both is an error naming the list, and p is
// left unchanged.
func Decide(p *selection.Proposal, accept, reject []string) error {
	status := map[string]selection.ReviewStatus{}
	rest := selection.ReviewStatus("")
	for _, l := range []struct {
		flag   string
		ids    []string
		status selection.ReviewStatus
	}{{"--accept", accept, selection.ReviewAccepted}, {"--reject", reject, selection.ReviewRejected}} {
		for _, id := range l.ids {
			switch {
			case id == Rest && rest != "":
				return fmt.Errorf("%s: %q is in both lists", l.flag, Rest)
			case id == Rest:
				rest = l.status
			case !slices.ContainsFunc(p.Candidates, func(c selection.ProposedItem) bool { return c.ID == id }):
				return fmt.Errorf("%s: no candidate %q among the %d of the candidates file", l.flag, Printable(id), len(p.Candidates))
			case status[id] != "" && status[id] != l.status:
				return fmt.Errorf("%s: candidate %q is in both lists", l.flag, Printable(id))
			default:
				status[id] = l.status
			}
		}
	}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		if s, ok := status[c.ID]; ok {
			c.Status = s
		} else if rest != "" && c.Status == selection.ReviewPending {
			c.Status = rest
		}
	}
	p.Position = len(p.Candidates)
	if i := slices.IndexFunc(p.Candidates, func(c selection.ProposedItem) bool { return c.Status == selection.ReviewPending }); i >= 0 {
		p.Position = i
	}
	return nil
}
