package notebook

import (
	"github.com/tally-eval/tally/rule"
	"strconv"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report/internal/markup"
)

// cellPlanFixtures is the "plan fixtures" cell: the rule's error rates on
// this report's fixture set, as `tally plan fixtures --config` gives them
// — the false-block rate, the probability of blocking each drop in each
// class, and the size each class needs to catch it — or, without a noise
// measurement, why they are unknown.
func cellPlanFixtures(cx *cellCtx) error {
	h, er := cx.out, cx.r.ErrorRates
	if er == nil {
		return nil
	}
	h.Raw(`<p class="rates">`)
	h.Text(er.Sentence, 4000)
	h.Raw("</p>\n")
	if !er.Known {
		return nil
	}
	h.Raw("<div class=\"scroll\"><table class=\"wide plan-fixtures\">\n<caption>What this gate can see: the probability that the change is blocked when one class drops, and the size each class needs to catch the drop</caption>\n<thead><tr><th>class</th><th class=\"num\">items</th><th class=\"num\">conv.</th><th class=\"num\">noise</th><th class=\"num\">ρ</th>")
	for _, d := range er.Drops {
		pts := strconv.FormatFloat(100*d, 'f', -1, 64)
		h.Rawf("<th class=\"num\">−%s pts: blocked</th><th class=\"num\">−%s pts: needs</th>", pts, pts)
	}
	h.Raw("</tr></thead>\n<tbody>\n")
	for i, c := range er.Classes {
		writeClassRow(h, fixture.Class(c.Name))
		h.Rawf("<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>",
			markup.Int(c.Items()), markup.Int(len(c.Sizes)), markup.Pct(c.Discordance), strconv.FormatFloat(c.Correlation, 'f', 2, 64))
		for j := range er.Drops {
			n := er.Needed[i][j]
			need := "unreachable (" + n.Limit + ")"
			switch {
			case n.Limit == "within margin":
				need = "never (within the margin)"
			case n.Limit == rule.LimitBaseline:
				need = "— (retains " + markup.Pct(c.Baseline) + ")"
			case n.Reachable:
				need = markup.Int(n.Items) + " / " + markup.Int(n.Conversations)
			}
			power := "—"
			if p := er.Power[i][j]; p.Given() {
				power = markup.Pct(p.Block)
			}
			h.Rawf("<td class=\"num\">%s</td><td class=\"num\">%s</td>", power, need)
		}
		h.Raw("</tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	h.Rawf("<p class=\"sub\">Items are item-compactions; noise is the share two runs of the incumbent disagree on, ρ their within-conversation correlation; “needs” is items / conversations. Each size is the fewest conversations, at the class's items per conversation, at which the class alone blocks the drop with probability %s, at the level the rule holds one of the classes to; reachable when a harmless change is then blocked at most %s of the time (%s per class). As <code>tally plan fixtures --config report.yaml</code>, which also takes other rules, drops and noise.</p>\n",
		markup.Num(er.TargetPower, 4), markup.Pct(er.MaxFalseBlock), markup.Pct(er.ClassBudget))
	return nil
}
