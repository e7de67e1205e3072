package report

import (
	"fmt"
	"strconv"
)

func nbCellSelection(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	s := r.Selection
	if s == nil {
		h.raw("<p class=\"none\">No fixture selection in this report.</p>\n")
		return nil
	}
	if s.Budget == 0 && s.BudgetHours > 0 {
		h.rawf("<p>A budget of %s annotation hours (at %s minutes a 63-turn conversation; seed %d), selected adversarially; %s session%s reported a compaction incident",
			strconv.FormatFloat(s.BudgetHours, 'f', -1, 64), strconv.FormatFloat(s.MinutesPerFixture, 'f', -1, 64), s.Seed, hInt(s.Incidents), hPlural(s.Incidents))
	} else {
		h.rawf("<p>A budget of %s sessions (seed %d), selected adversarially; %s session%s reported a compaction incident",
			hInt(s.Budget), s.Seed, hInt(s.Incidents), hPlural(s.Incidents))
	}
	if s.IncidentsExceedBudget {
		h.raw(", more than the budget: every selected session is an incident")
	}
	h.raw(".</p>\n")
	if !s.Compared {
		h.raw("<p class=\"none\">No random comparison: <code>tally select</code> was run with <code>--compare-random 0</code> or selected nothing.</p>\n")
	} else {
		rnd := s.Random
		caption := fmt.Sprintf("Selected against random samples of %s sessions (mean and 95%% range over %s draws)", hInt(rnd.Size), hInt(rnd.Draws))
		if s.PerSession {
			caption = fmt.Sprintf("Per session: the %s selected against random samples of %s sessions (mean and 95%% range over %s draws)",
				hInt(s.Selected.Sessions), hInt(rnd.Size), hInt(rnd.Draws))
		}
		h.rawf("<div class=\"scroll\"><table class=\"selection\">\n<caption>%s</caption>\n<thead><tr><th></th><th class=\"num\">selected</th><th class=\"num\">random</th></tr></thead>\n<tbody>\n", caption)
		for _, row := range s.Rows {
			digits := 0
			if row.Hours || s.PerSession {
				digits = 1
			}
			num := func(x float64) string {
				if digits == 0 {
					return hTokens(x)
				}
				return strconv.FormatFloat(x, 'f', digits, 64)
			}
			sel := num(row.Selected)
			if digits == 0 {
				sel = hInt(int(row.Selected))
			}
			h.raw(`<tr><th scope="row">`, row.Measure, `</th><td class="num">`, sel, `</td><td class="num">`,
				fmt.Sprintf("%s <span class=\"sub\">%s–%s</span>", num(row.Random.Mean), num(row.Random.Low), num(row.Random.High)), "</td></tr>\n")
		}
		h.raw("</tbody>\n</table></div>\n")
	}
	cx.warnUnlessReported(s.Warnings)
	if len(s.Sessions) == 0 {
		return nil
	}
	rows := s.Sessions[:min(len(s.Sessions), limit)]
	h.raw("<div class=\"scroll\"><table class=\"sessions\">\n<caption>Selected sessions</caption>\n<thead><tr><th>session</th><th class=\"num\">turns</th><th class=\"num\">compactions</th><th class=\"num\">items</th><th class=\"num\">decisions</th><th>incident</th><th>why</th></tr></thead>\n<tbody>\n")
	for _, ss := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(ss.SessionID, hCapShort)
		h.rawf(`</code></td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>`,
			hInt(ss.Turns), hInt(ss.Compactions), hInt(ss.Items), hInt(ss.Decisions))
		if ss.Incident {
			h.raw("yes")
		}
		h.raw(`</td><td class="txt">`)
		h.text(ss.Reason, hCapCell)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	hMore(h, len(rows), len(s.Sessions), "selected sessions")
	return nil
}

func nbCellProvenance(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	pv := r.Provenance
	h.raw("<p>Made by tally")
	if pv.Version != "" {
		h.raw(" ")
		h.text(pv.Version, 80)
	}
	if !r.Generated.IsZero() {
		h.raw(" at ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	h.raw(".</p>\n")
	if len(pv.Inputs) > 0 {
		h.raw("<div class=\"scroll\"><table class=\"inputs\">\n<thead><tr><th>input</th><th>path</th><th class=\"num\">bytes</th><th>SHA-256</th></tr></thead>\n<tbody>\n")
		for _, in := range pv.Inputs {
			h.raw(`<tr><td>`)
			h.text(in.Role, hCapShort)
			h.raw(`</td><td class="txt"><code>`)
			h.text(in.Path, hCapCell)
			h.raw(`</code></td><td class="num">`, hInt(int(in.Bytes)), `</td><td class="txt"><code>`)
			h.text(in.SHA256, 80)
			h.raw("</code></td></tr>\n")
		}
		h.raw("</tbody>\n</table></div>\n")
	}
	if pv.Config != "" {
		h.raw("<p>The configuration:</p>\n<pre><code>")
		h.text(pv.Config, hCapLong)
		h.raw("</code></pre>\n")
	}
	return nil
}
