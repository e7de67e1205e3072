package notebook

import (
	"sort"
	"strings"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/markup"
)

func cellReplay(cx *cellCtx, limit int) error {
	r, h := cx.r, cx.out
	rp := r.Replay
	if rp == nil {
		h.Raw("<p class=\"none\">No replay data: the conversations were not replayed this time.</p>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	h.Rawf("<p>%s conversations run twice from the same prefix, once as the reference and once with the candidate; the two runs disagree on %s, the only conversations that carry information about the change.</p>\n",
		markup.Int(res.Pairs), markup.Int(res.Discordant))
	h.Raw("<div class=\"scroll\"><table class=\"paired\">\n<thead><tr><th></th><th class=\"num\">candidate succeeded</th><th class=\"num\">candidate failed</th></tr></thead>\n<tbody>\n")
	h.Rawf("<tr><th scope=\"row\">reference succeeded</th><td class=\"num\">%s</td><td class=\"num\">%s <span class=\"sub\">lost</span></td></tr>\n", markup.Int(t.A), markup.Int(t.B))
	h.Rawf("<tr><th scope=\"row\">reference failed</th><td class=\"num\">%s <span class=\"sub\">gained</span></td><td class=\"num\">%s</td></tr>\n", markup.Int(t.C), markup.Int(t.D))
	h.Raw("</tbody>\n</table></div>\n")
	if len(rp.ReferenceKinds) > 0 {
		kinds := make([]string, 0, len(rp.ReferenceKinds))
		for k := range rp.ReferenceKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		h.Raw("<p>References: ")
		for i, k := range kinds {
			if i > 0 {
				h.Raw(", ")
			}
			h.Raw(markup.Int(rp.ReferenceKinds[k]), " ")
			h.Text(strings.ReplaceAll(k, "_", " "), markup.CapShort)
		}
		h.Raw(".")
		if rp.ReferenceKinds["accepted_trace"] > 0 {
			h.Raw(" Where a conversation does not fit the window uncompacted, the reference is a recorded run a person accepted: a regression test against a known-good trace, not against ground truth.")
		}
		h.Raw("</p>\n")
	}
	h.Raw("<div class=\"scroll\"><table class=\"tests\">\n<caption>McNemar's tests on the discordant pairs</caption>\n<thead><tr><th>test</th><th class=\"num\">statistic</th><th class=\"num\">p</th></tr></thead>\n<tbody>\n")
	for _, ts := range res.Tests {
		h.Raw("<tr><td>")
		h.Text(ts.Method, 40)
		h.Raw(`</td><td class="num">`)
		if ts.HasStatistic {
			h.Raw(markup.Num(ts.Statistic, 4))
		} else {
			h.Raw("—")
		}
		h.Raw(`</td><td class="num">`, markup.P(ts.PValue), "</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	h.Rawf("<div class=\"scroll\"><table class=\"intervals\">\n<caption>The difference, candidate − reference: %s (%s against %s), %s intervals</caption>\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th></tr></thead>\n<tbody>\n",
		markup.Points(res.Difference, true), markup.Prob(res.CandidateRate), markup.Prob(res.ReferenceRate), markup.GatePct(res.Confidence))
	for _, iv := range res.Intervals {
		h.Raw("<tr><td>")
		h.Text(iv.Method, 40)
		h.Raw(`</td><td class="num">`, markup.Points(iv.Lower, true), `</td><td class="num">`, markup.Points(iv.Upper, true), "</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	// The replay's caveats (Replay.Warnings) are shown with task success,
	// at the bottom of the page.
	if len(rp.Discordant) == 0 {
		return nil
	}
	rows := rp.Discordant[:min(len(rp.Discordant), limit)]
	h.Rawf("<h3>Review queue: %s discordant conversation%s</h3>\n", markup.Int(len(rp.Discordant)), plural(len(rp.Discordant)))
	h.Raw("<div class=\"scroll\"><table class=\"discordant\">\n<thead><tr><th>conversation</th><th>reference</th><th>candidate</th><th>reference kind</th></tr></thead>\n<tbody>\n")
	for _, d := range rows {
		h.Raw(`<tr><td class="txt"><code>`)
		h.Text(d.ConversationID, markup.CapShort)
		h.Raw("</code></td><td>")
		h.Text(d.Reference, 40)
		h.Raw("</td><td>")
		h.Text(d.Candidate, 40)
		h.Raw("</td><td>")
		h.Text(strings.ReplaceAll(d.ReferenceKind, "_", " "), 40)
		h.Raw("</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	writeMore(h, len(rows), len(rp.Discordant), "discordant conversations")
	return nil
}

func cellTaskSuccess(cx *cellCtx) error {
	r, h := cx.r, cx.out
	h.Raw("<section class=\"task-success\">\n")
	rp := r.Replay
	if rp == nil {
		h.Raw("<p class=\"line\"><strong>Task success — reported, not gated:</strong> not measured; the report has no replay data.</p>\n</section>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	// The caveats and the grading rule come first, so that the line
	// itself is the page's last.
	if len(rp.Warnings) > 0 {
		h.Raw("<div class=\"warnings\">\n")
		h.List(rp.Warnings)
		h.Raw("</div>\n")
	}
	if rp.Rule != "" {
		h.Raw(`<p class="sub rule">`)
		h.Text(rp.Rule, 2000)
		h.Raw("</p>\n")
	}
	h.Rawf("<p class=\"line\"><strong>Task success — reported, not gated:</strong> the reference %s/%s = %s, the candidate %s/%s = %s, over the same %s paired conversations; %s lost and %s gained",
		markup.Int(t.A+t.B), markup.Int(res.Pairs), markup.Pct(res.ReferenceRate), markup.Int(t.A+t.C), markup.Int(res.Pairs), markup.Pct(res.CandidateRate), markup.Int(res.Pairs), markup.Int(t.B), markup.Int(t.C))
	if ts, ok := res.Test(power.TestExact); ok {
		h.Rawf(", exact McNemar %s", markup.PIs(ts.PValue))
	}
	h.Raw(".")
	if rp.Sentence != "" {
		h.Raw(" ")
		h.Text(rp.Sentence, 2000)
	} else {
		h.Rawf(" A difference of %s", markup.Points(res.Difference, true))
		if iv, ok := res.Interval(power.IntervalNewcombe); ok {
			h.Rawf(" (%s Newcombe interval %s to %s)", markup.GatePct(res.Confidence), markup.Points(iv.Lower, true), markup.Points(iv.Upper, true))
		}
		h.Raw(".")
	}
	h.Raw("</p>\n")
	h.Raw("</section>\n")
	return nil
}
