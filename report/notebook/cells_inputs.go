package notebook

import (
	"fmt"
	"strconv"

	"github.com/tally-eval/tally/report/internal/markup"
)

func cellSelection(cx *cellCtx, limit int) error {
	r, h := cx.r, cx.out
	s := r.Selection
	if s == nil {
		h.Raw("<p class=\"none\">No fixture selection in this report.</p>\n")
		return nil
	}
	if s.Budget == 0 && s.BudgetHours > 0 {
		h.Rawf("<p>A budget of %s annotation hours (at %s minutes a 63-turn conversation; seed %d), selected adversarially; %s session%s reported a compaction incident",
			strconv.FormatFloat(s.BudgetHours, 'f', -1, 64), strconv.FormatFloat(s.MinutesPerFixture, 'f', -1, 64), s.Seed, markup.Int(s.Incidents), plural(s.Incidents))
	} else {
		h.Rawf("<p>A budget of %s sessions (seed %d), selected adversarially; %s session%s reported a compaction incident",
			markup.Int(s.Budget), s.Seed, markup.Int(s.Incidents), plural(s.Incidents))
	}
	if s.IncidentsExceedBudget {
		h.Raw(", more than the budget: every selected session is an incident")
	}
	h.Raw(".</p>\n")
	if !s.Compared {
		h.Raw("<p class=\"none\">No random comparison: <code>tally select</code> was run with <code>--compare-random 0</code> or selected nothing.</p>\n")
	} else {
		rnd := s.Random
		caption := fmt.Sprintf("Selected against random samples of %s sessions (mean and 95%% range over %s draws)", markup.Int(rnd.Size), markup.Int(rnd.Draws))
		if s.PerSession {
			caption = fmt.Sprintf("Per session: the %s selected against random samples of %s sessions (mean and 95%% range over %s draws)",
				markup.Int(s.Selected.Sessions), markup.Int(rnd.Size), markup.Int(rnd.Draws))
		}
		h.Rawf("<div class=\"scroll\"><table class=\"selection\">\n<caption>%s</caption>\n<thead><tr><th></th><th class=\"num\">selected</th><th class=\"num\">random</th></tr></thead>\n<tbody>\n", caption)
		for _, row := range s.Rows {
			digits := 0
			if row.Hours || s.PerSession {
				digits = 1
			}
			num := func(x float64) string {
				if digits == 0 {
					return markup.Tokens(x)
				}
				return strconv.FormatFloat(x, 'f', digits, 64)
			}
			sel := num(row.Selected)
			if digits == 0 {
				sel = markup.Int(int(row.Selected))
			}
			h.Raw(`<tr><th scope="row">`, row.Measure, `</th><td class="num">`, sel, `</td><td class="num">`,
				fmt.Sprintf("%s <span class=\"sub\">%s–%s</span>", num(row.Random.Mean), num(row.Random.Low), num(row.Random.High)), "</td></tr>\n")
		}
		h.Raw("</tbody>\n</table></div>\n")
	}
	cx.warnUnlessReported(s.Warnings)
	if len(s.Sessions) == 0 {
		return nil
	}
	rows := s.Sessions[:min(len(s.Sessions), limit)]
	h.Raw("<div class=\"scroll\"><table class=\"sessions\">\n<caption>Selected sessions</caption>\n<thead><tr><th>session</th><th class=\"num\">turns</th><th class=\"num\">compactions</th><th class=\"num\">items</th><th class=\"num\">decisions</th><th>incident</th><th>why</th></tr></thead>\n<tbody>\n")
	for _, ss := range rows {
		h.Raw(`<tr><td class="txt"><code>`)
		h.Text(ss.SessionID, markup.CapShort)
		h.Rawf(`</code></td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>`,
			markup.Int(ss.Turns), markup.Int(ss.Compactions), markup.Int(ss.Items), markup.Int(ss.Decisions))
		if ss.Incident {
			h.Raw("yes")
		}
		h.Raw(`</td><td class="txt">`)
		h.Text(ss.Reason, markup.CapCell)
		h.Raw("</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	writeMore(h, len(rows), len(s.Sessions), "selected sessions")
	return nil
}

func cellProvenance(cx *cellCtx) error {
	r, h := cx.r, cx.out
	pv := r.Provenance
	h.Raw("<p>Made by tally")
	if pv.Version != "" {
		h.Raw(" ")
		h.Text(pv.Version, 80)
	}
	if !r.Generated.IsZero() {
		h.Raw(" at ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	h.Raw(".</p>\n")
	if len(pv.Inputs) > 0 {
		h.Raw("<div class=\"scroll\"><table class=\"inputs\">\n<thead><tr><th>input</th><th>path</th><th class=\"num\">bytes</th><th>SHA-256</th></tr></thead>\n<tbody>\n")
		for _, in := range pv.Inputs {
			h.Raw(`<tr><td>`)
			h.Text(in.Role, markup.CapShort)
			h.Raw(`</td><td class="txt"><code>`)
			h.Text(in.Path, markup.CapCell)
			h.Raw(`</code></td><td class="num">`, markup.Int(int(in.Bytes)), `</td><td class="txt"><code>`)
			h.Text(in.SHA256, 80)
			h.Raw("</code></td></tr>\n")
		}
		h.Raw("</tbody>\n</table></div>\n")
	}
	if pv.Config != "" {
		h.Raw("<p>The configuration:</p>\n<pre><code>")
		h.Text(pv.Config, markup.CapLong)
		h.Raw("</code></pre>\n")
	}
	return nil
}
