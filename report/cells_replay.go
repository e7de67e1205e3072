package report

import (
	"sort"
	"strings"

	"github.com/tally-eval/tally/power"
)

func nbCellReplay(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	rp := r.Replay
	if rp == nil {
		h.raw("<p class=\"none\">No replay data: the conversations were not replayed this time.</p>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	h.rawf("<p>%s conversations run twice from the same prefix, once as the reference and once with the candidate; the two runs disagree on %s, the only conversations that carry information about the change.</p>\n",
		hInt(res.Pairs), hInt(res.Discordant))
	h.raw("<div class=\"scroll\"><table class=\"paired\">\n<thead><tr><th></th><th class=\"num\">candidate succeeded</th><th class=\"num\">candidate failed</th></tr></thead>\n<tbody>\n")
	h.rawf("<tr><th scope=\"row\">reference succeeded</th><td class=\"num\">%s</td><td class=\"num\">%s <span class=\"sub\">lost</span></td></tr>\n", hInt(t.A), hInt(t.B))
	h.rawf("<tr><th scope=\"row\">reference failed</th><td class=\"num\">%s <span class=\"sub\">gained</span></td><td class=\"num\">%s</td></tr>\n", hInt(t.C), hInt(t.D))
	h.raw("</tbody>\n</table></div>\n")
	if len(rp.ReferenceKinds) > 0 {
		kinds := make([]string, 0, len(rp.ReferenceKinds))
		for k := range rp.ReferenceKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		h.raw("<p>References: ")
		for i, k := range kinds {
			if i > 0 {
				h.raw(", ")
			}
			h.raw(hInt(rp.ReferenceKinds[k]), " ")
			h.text(strings.ReplaceAll(k, "_", " "), hCapShort)
		}
		h.raw(".")
		if rp.ReferenceKinds["accepted_trace"] > 0 {
			h.raw(" Where a conversation does not fit the window uncompacted, the reference is a recorded run a person accepted: a regression test against a known-good trace, not against ground truth.")
		}
		h.raw("</p>\n")
	}
	h.raw("<div class=\"scroll\"><table class=\"tests\">\n<caption>McNemar's tests on the discordant pairs</caption>\n<thead><tr><th>test</th><th class=\"num\">statistic</th><th class=\"num\">p</th></tr></thead>\n<tbody>\n")
	for _, ts := range res.Tests {
		h.raw("<tr><td>")
		h.text(ts.Method, 40)
		h.raw(`</td><td class="num">`)
		if ts.HasStatistic {
			h.raw(hNum(ts.Statistic, 4))
		} else {
			h.raw("—")
		}
		h.raw(`</td><td class="num">`, hP(ts.PValue), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	h.rawf("<div class=\"scroll\"><table class=\"intervals\">\n<caption>The difference, candidate − reference: %s (%s against %s), %s intervals</caption>\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th></tr></thead>\n<tbody>\n",
		hPoints(res.Difference, true), hProb(res.CandidateRate), hProb(res.ReferenceRate), hGatePct(res.Confidence))
	for _, iv := range res.Intervals {
		h.raw("<tr><td>")
		h.text(iv.Method, 40)
		h.raw(`</td><td class="num">`, hPoints(iv.Lower, true), `</td><td class="num">`, hPoints(iv.Upper, true), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	// The replay's caveats (Replay.Warnings) are shown with task success,
	// at the bottom of the page.
	if len(rp.Discordant) == 0 {
		return nil
	}
	rows := rp.Discordant[:min(len(rp.Discordant), limit)]
	h.rawf("<h3>Review queue: %s discordant conversation%s</h3>\n", hInt(len(rp.Discordant)), hPlural(len(rp.Discordant)))
	h.raw("<div class=\"scroll\"><table class=\"discordant\">\n<thead><tr><th>conversation</th><th>reference</th><th>candidate</th><th>reference kind</th></tr></thead>\n<tbody>\n")
	for _, d := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(d.ConversationID, hCapShort)
		h.raw("</code></td><td>")
		h.text(d.Reference, 40)
		h.raw("</td><td>")
		h.text(d.Candidate, 40)
		h.raw("</td><td>")
		h.text(strings.ReplaceAll(d.ReferenceKind, "_", " "), 40)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	hMore(h, len(rows), len(rp.Discordant), "discordant conversations")
	return nil
}

func nbCellTaskSuccess(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<section class=\"task-success\">\n")
	rp := r.Replay
	if rp == nil {
		h.raw("<p class=\"line\"><strong>Task success — reported, not gated:</strong> not measured; the report has no replay data.</p>\n</section>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	// The caveats and the grading rule come first, so that the line
	// itself is the page's last.
	if len(rp.Warnings) > 0 {
		h.raw("<div class=\"warnings\">\n")
		h.list(rp.Warnings)
		h.raw("</div>\n")
	}
	if rp.Rule != "" {
		h.raw(`<p class="sub rule">`)
		h.text(rp.Rule, 2000)
		h.raw("</p>\n")
	}
	h.rawf("<p class=\"line\"><strong>Task success — reported, not gated:</strong> the reference %s/%s = %s, the candidate %s/%s = %s, over the same %s paired conversations; %s lost and %s gained",
		hInt(t.A+t.B), hInt(res.Pairs), hPct(res.ReferenceRate), hInt(t.A+t.C), hInt(res.Pairs), hPct(res.CandidateRate), hInt(res.Pairs), hInt(t.B), hInt(t.C))
	if ts, ok := res.Test(power.TestExact); ok {
		h.rawf(", exact McNemar p = %s", hP(ts.PValue))
	}
	h.raw(".")
	if rp.Sentence != "" {
		h.raw(" ")
		h.text(rp.Sentence, 2000)
	} else {
		h.rawf(" A difference of %s", hPoints(res.Difference, true))
		if iv, ok := res.Interval(power.IntervalNewcombe); ok {
			h.rawf(" (%s Newcombe interval %s to %s)", hGatePct(res.Confidence), hPoints(iv.Lower, true), hPoints(iv.Upper, true))
		}
		h.raw(".")
	}
	h.raw("</p>\n")
	h.raw("</section>\n")
	return nil
}
