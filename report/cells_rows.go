package report

import (
	"fmt"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
)

func nbCellTitle(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<header class=\"title\">\n<h1>")
	h.text(nbReportTitle(r), 400)
	h.raw("</h1>\n")
	if r.Period != "" {
		h.raw(`<p class="period">`)
		h.text(r.Period, 400)
		h.raw("</p>\n")
	}
	h.raw(`<p class="meta">Comparing `)
	hWho(h, "candidate", r.Candidate)
	h.raw(" against ")
	hWho(h, "incumbent", r.Incumbent)
	if hFinite(r.Confidence) && r.Confidence > 0 {
		h.rawf(" · intervals at %s confidence", hGatePct(r.Confidence))
	}
	if !r.Generated.IsZero() {
		h.raw(" · generated ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if r.Provenance.Version != "" {
		h.raw(" · tally ")
		h.text(r.Provenance.Version, 80)
	}
	h.raw("</p>\n</header>\n")
	return nil
}

// hNames writes a list of row names (classes, "contradictions", …).
func hNames(h *hbuf, list []string) {
	for i, s := range list {
		if i > 0 {
			h.raw(", ")
		}
		h.raw("<em>")
		h.text(nbClassLabel(fixture.Class(s)), hCapShort)
		h.raw("</em>")
	}
}

func nbCellDecision(cx *nbCellCtx) error {
	d, h := cx.r.Decision, cx.out
	if d.Blocks {
		h.raw("<section class=\"decision\">\n<p class=\"verdict\"><strong>This change blocks.</strong> ")
		if len(d.Worse) > 0 {
			h.raw("The rows that got worse under it: ")
			hNames(h, d.Worse)
			h.raw(".")
		}
		if len(d.Undecided) > 0 {
			if len(d.Worse) > 0 {
				h.raw(" ")
			}
			h.raw("Undecided rows, which block until they can be compared: ")
			hNames(h, d.Undecided)
			h.raw(".")
		}
		h.raw("</p>\n")
		hUnpaired(h, cx.r)
	} else {
		h.raw("<section class=\"decision clear\">\n<p class=\"verdict\"><strong>This change does not block:</strong> no row got worse under it.</p>\n")
	}
	if len(d.Backlog) > 0 {
		h.rawf("<p><strong>Backlog, not a merge decision:</strong> %d gate%s unmet by the incumbent as well — ", len(d.Backlog), hPlural(len(d.Backlog)))
		hNames(h, d.Backlog)
		h.raw(". A gate the system in production does not meet either is a standard not yet met; it does not make this change unsafe.</p>\n")
	} else {
		h.raw("<p>No backlog: the incumbent meets every gate.</p>\n")
	}
	if len(d.CandidateUnmet) > 0 {
		h.raw("<p>Gates the candidate does not meet: ")
		hNames(h, d.CandidateUnmet)
		h.raw(".</p>\n")
	} else {
		h.raw("<p>The candidate meets every gate.</p>\n")
	}
	if d.Rule != "" {
		// The rule is a paragraph of its own: it opens with its subject
		// ("The change blocks when …"), so it needs no lead-in.
		h.raw(`<p class="sub rule">`)
		h.text(d.Rule, 2000)
		h.raw("</p>\n")
	}
	h.raw("</section>\n")
	return nil
}

// hUnpaired names the item-compactions checked by one system only: how
// many per class and system, and the first few of each.
func hUnpaired(h *hbuf, r *Report) {
	k := r.Contradictions
	if k.OnlyIncumbent+k.OnlyCandidate == 0 {
		return
	}
	h.rawf("<div class=\"unpaired\">\n<p><strong>Not compared item by item:</strong> %s item-compaction%s checked by the incumbent only and %s by the candidate only. Each row is decided on the item-compactions both systems checked; a row with one checked by one system only is undecided until both have checked it.</p>\n<ul>\n",
		hInt(k.OnlyIncumbent), hPlural(k.OnlyIncumbent), hInt(k.OnlyCandidate))
	for _, row := range r.Classes {
		for _, s := range []struct {
			role string
			keys []ItemKey
		}{{"incumbent", row.OnlyIncumbent}, {"candidate", row.OnlyCandidate}} {
			if len(s.keys) == 0 {
				continue
			}
			h.raw("<li><em>")
			h.text(nbClassLabel(row.Class), hCapShort)
			h.rawf("</em>: %s checked by the %s only — ", hInt(len(s.keys)), s.role)
			for i, key := range s.keys[:min(len(s.keys), MaxNamed)] {
				if i > 0 {
					h.raw(", ")
				}
				h.raw("<code>")
				h.text(key.ConversationID, hCapShort)
				h.raw("</code> · compaction ", fmt.Sprint(key.Compaction), " · <code>")
				h.text(key.ItemID, hCapShort)
				h.raw("</code>")
			}
			if n := len(s.keys) - MaxNamed; n > 0 {
				h.rawf(" and %s more", hInt(n))
			}
			h.raw("</li>\n")
		}
	}
	h.raw("</ul>\n</div>\n")
}

func hPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// hShare writes a system's class result as a table cell: badge, counts,
// share and Wilson interval, then whatever more adds.
func hShare(h *hbuf, sc SystemClass, gate bool, more func(*hbuf, SystemClass)) {
	h.raw("<td>")
	if gate {
		h.raw(hGate(sc.Gate), " ")
	}
	if sc.Counts.Items == 0 {
		h.raw(`<span class="none">no items</span></td>`)
		return
	}
	h.rawf("%d/%d · <strong>%s</strong>", sc.Counts.Retained(), sc.Counts.Items, hPct(sc.Share))
	h.rawf(`<span class="sub">Wilson %s</span>`, hRange(sc.Wilson.Lower, sc.Wilson.Upper))
	if sc.Counts.Errors > 0 {
		h.rawf(`<span class="sub">%d judge error%s, not counted as absent</span>`, sc.Counts.Errors, hPlural(sc.Counts.Errors))
	}
	if more != nil {
		more(h, sc)
	}
	h.raw("</td>")
}

func nbCellGates(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<div class=\"scroll\"><table class=\"wide gates\">\n<thead><tr><th>gate</th><th>standard</th>")
	hSystemHeads(h, r)
	h.raw("<th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		hClassRow(h, row.Class)
		h.rawf("<td>at least %s retained</td>", hGatePct(row.MinShare))
		hShare(h, row.Incumbent, true, nil)
		hShare(h, row.Candidate, true, nil)
		h.raw("<td>", hChange(row.Change), "</td></tr>\n")
		for _, s := range []struct {
			role string
			sc   SystemClass
		}{{"incumbent", row.Incumbent}, {"candidate", row.Candidate}} {
			if s.sc.Counts.Items == 0 {
				cx.warnings = append(cx.warnings, fmt.Sprintf("gates: the %s has no %s items; its share is undefined", s.role, nbClassLabel(row.Class)))
			}
		}
	}
	c := r.Contradictions
	h.rawf(`<tr><th scope="row">contradictions</th><td>at most %d</td>`, c.Max)
	h.rawf("<td>%s %d</td><td>%s %d</td><td>%s</td></tr>\n", hGate(c.IncumbentGate), c.Incumbent, hGate(c.CandidateGate), c.Candidate, hChange(c.Change))
	pr := r.Prompt
	h.raw(`<tr><th scope="row">prompt size</th>`)
	if hFinite(pr.MaxMean) && pr.MaxMean > 0 {
		h.rawf("<td>mean at most %s tokens</td>", hTokens(pr.MaxMean))
	} else {
		h.raw("<td>reported, no gate</td>")
	}
	h.rawf("<td>%s mean %s</td><td>%s mean %s</td><td>%s</td></tr>\n",
		hGate(pr.IncumbentGate), hTokens(pr.Incumbent.Mean), hGate(pr.CandidateGate), hTokens(pr.Candidate.Mean), hChange(pr.Change))
	h.raw("</tbody>\n</table></div>\n")
	h.raw("<p class=\"sub\">Retained means verbatim or supported by the judge. Each system is held to each gate on its own; the change column is the regression rule, incumbent against candidate.</p>\n")
	return nil
}

// hClassRow opens a table row headed by a class's name.
func hClassRow(h *hbuf, cl fixture.Class) {
	h.raw(`<tr><th scope="row">`)
	h.text(nbClassLabel(cl), hCapShort)
	h.raw("</th>")
}

// hClusterNote writes a system's cluster-robust interval and design
// effect.
func hClusterNote(h *hbuf, sc SystemClass) {
	if sc.Counts.Items == 0 || sc.Clustered.N == 0 {
		return
	}
	h.rawf(`<span class="sub">cluster-robust %s`, hRange(sc.Robust.Lower, sc.Robust.Upper))
	if hFinite(sc.Clustered.DesignEffect) {
		h.rawf(", design effect %s", hNum(sc.Clustered.DesignEffect, 3))
	}
	h.rawf(" over %d conversation%s</span>", sc.Clustered.Clusters, hPlural(sc.Clustered.Clusters))
}

func nbCellComparison(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<div class=\"scroll\"><table class=\"wide comparison\">\n<caption>Retention, incumbent against candidate</caption>\n<thead><tr><th>class</th>")
	hSystemHeads(h, r)
	h.raw("<th class=\"num\">lost</th><th class=\"num\">gained</th><th class=\"num\">McNemar p</th><th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		hClassRow(h, row.Class)
		for _, sc := range []SystemClass{row.Incumbent, row.Candidate} {
			hShare(h, sc, false, hClusterNote)
		}
		h.rawf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%s`, len(row.Lost), len(row.Gained), hP(row.McNemar.PValue))
		if m := row.McNemar.Method; m != "" && m != string(power.TestExact) {
			h.raw(`<span class="sub">`)
			h.text(m, 40)
			h.raw("</span>")
		}
		h.raw("</td><td>", hChange(row.Change), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	hUnpaired(h, r)
	h.raw("<p class=\"sub\">Lost: retained by the incumbent, not by the candidate; gained: the reverse; both over the item-compactions both systems checked. McNemar's exact test on the paired items is context, not the rule. The cluster-robust interval allows for items of one conversation failing together.</p>\n")

	h.raw("<div class=\"scroll\"><table class=\"wide verdicts\">\n<caption>Verdicts</caption>\n<thead><tr><th>class</th><th>system</th><th class=\"num\">checked</th><th class=\"num\">verbatim</th><th class=\"num\">supported</th><th class=\"num\">absent</th><th class=\"num\">contradicted</th><th class=\"num\">error</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		for i, sc := range []SystemClass{row.Incumbent, row.Candidate} {
			h.raw("<tr>")
			if i == 0 {
				h.raw(`<th scope="rowgroup" rowspan="2">`)
				h.text(nbClassLabel(row.Class), hCapShort)
				h.raw("</th><td>incumbent</td>")
			} else {
				h.raw("<td>candidate</td>")
			}
			c := sc.Counts
			h.rawf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr>`+"\n",
				c.Items, c.Verbatim, c.Supported, c.Absent, c.Contradicted, c.Errors)
		}
	}
	h.raw("</tbody>\n</table></div>\n")

	pr := r.Prompt
	h.raw("<div class=\"scroll\"><table class=\"wide prompt\">\n<caption>Prompt size after compaction, in tokens</caption>\n<thead><tr><th>system</th><th class=\"num\">contexts</th><th class=\"num\">mean</th><th class=\"num\">median</th><th class=\"num\">95th percentile</th><th class=\"num\">largest</th><th>gate</th></tr></thead>\n<tbody>\n")
	for _, s := range []struct {
		role, name string
		st         PromptStats
		gate       GateStatus
	}{{"incumbent", r.Incumbent, pr.Incumbent, pr.IncumbentGate}, {"candidate", r.Candidate, pr.Candidate, pr.CandidateGate}} {
		h.raw("<tr>")
		hSystemHead(h, s.role, s.name)
		h.rawf(`<td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td></tr>`+"\n",
			hInt(s.st.Contexts), hTokens(s.st.Mean), hTokens(s.st.Median), hTokens(s.st.P95), hInt(s.st.Max), hGate(s.gate))
	}
	h.raw("</tbody>\n</table></div>\n")
	return nil
}

// nbPickItems returns the item rows for keys, in keys' order, from one
// pass over r.Items; a key without a row gives a row with the key only.
func nbPickItems(r *Report, keys []ItemKey) []ItemRow {
	at := make(map[ItemKey]int, len(keys))
	for i, k := range keys {
		if _, dup := at[k]; !dup {
			at[k] = i
		}
	}
	out := make([]ItemRow, len(keys))
	found := make([]bool, len(keys))
	left := len(at)
	for i := range r.Items {
		if left == 0 {
			break
		}
		if j, ok := at[r.Items[i].ItemKey]; ok && !found[j] {
			out[j], found[j] = r.Items[i], true
			left--
		}
	}
	for i, k := range keys {
		if !found[i] {
			if j := at[k]; j != i && found[j] {
				out[i] = out[j]
			} else {
				out[i] = ItemRow{ItemKey: k}
			}
		}
	}
	return out
}

// hVerdict writes a record's verdict, answer and reason.
func hVerdict(h *hbuf, rec fixture.Record) {
	v := string(rec.Verdict)
	if v == "" {
		h.raw(`<span class="badge v-none">no record</span>`)
		return
	}
	switch rec.Verdict {
	case fixture.Verbatim, fixture.Supported, fixture.Absent, fixture.Contradicted, fixture.Error:
		h.raw(`<span class="badge v-`, v, `">`, v, "</span>")
	default:
		h.raw(`<span class="badge v-error">`)
		h.text(v, 40)
		h.raw("</span>")
	}
	if rec.Answer != "" {
		h.raw(`<span class="sub txt">answer: `)
		h.text(rec.Answer, hCapCell)
		h.raw("</span>")
	}
	if rec.Reason != "" {
		h.raw(`<span class="sub txt">reason: `)
		h.text(rec.Reason, hCapCell)
		h.raw("</span>")
	}
}

// hItemTable writes item rows with both systems' verdicts.
func hItemTable(h *hbuf, r *Report, rows []ItemRow) {
	h.raw("<div class=\"scroll\"><table class=\"items\">\n<colgroup><col class=\"c-item\"><col class=\"c-stated\"><col class=\"c-probe\"><col class=\"c-inc\"><col class=\"c-cand\"></colgroup>\n<thead><tr><th>item</th><th>stated</th><th>probe and expected answer</th>")
	hSystemHeads(h, r)
	h.raw("</tr></thead>\n<tbody>\n")
	for _, it := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(it.ConversationID, hCapShort)
		h.rawf("</code> · compaction %d · <code>", it.Compaction)
		h.text(it.ItemID, hCapShort)
		h.raw("</code>")
		if it.Class != "" {
			h.raw(`<span class="sub">`)
			h.text(nbClassLabel(it.Class), hCapShort)
			h.raw("</span>")
		}
		h.raw(`</td><td class="txt">`)
		h.text(it.Literal, hCapCell)
		h.raw(`</td><td class="txt">`)
		h.text(it.Probe, hCapCell)
		if it.Expect != "" {
			h.raw(`<span class="sub">expected: `)
			h.text(it.Expect, hCapCell)
			h.raw("</span>")
		}
		h.raw("</td><td>")
		hVerdict(h, it.Incumbent)
		h.raw("</td><td>")
		hVerdict(h, it.Candidate)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
}

// hMore writes how many rows were left out.
func hMore(h *hbuf, shown, total int, what string) {
	if total > shown {
		h.rawf("<p class=\"more\">%s more %s in report.xlsx (this page shows the first %s).</p>\n", hInt(total-shown), what, hInt(shown))
	}
}

func nbCellLostItems(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var keys []ItemKey
	for _, row := range r.Classes {
		total += len(row.Lost)
		for _, k := range row.Lost {
			if len(keys) == limit {
				break
			}
			keys = append(keys, k)
		}
	}
	if total == 0 {
		h.raw("<p class=\"none\">No item was lost: every item the incumbent retained, the candidate retained too.</p>\n")
		return nil
	}
	h.rawf("<p>%s item-compaction%s the incumbent retained and the candidate did not.</p>\n", hInt(total), hPlural(total))
	hItemTable(h, r, nbPickItems(r, keys))
	hMore(h, len(keys), total, "lost items")
	return nil
}

func nbCellChangedItems(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var rows []ItemRow
	for i := range r.Items {
		if r.Items[i].Changed {
			total++
			if len(rows) < limit {
				rows = append(rows, r.Items[i])
			}
		}
	}
	if total == 0 {
		h.raw("<p class=\"none\">No verdict changed between the two systems.</p>\n")
		return nil
	}
	h.rawf("<p>%s item-compaction%s with a different verdict in the two systems.</p>\n", hInt(total), hPlural(total))
	hItemTable(h, r, rows)
	hMore(h, len(rows), total, "changed items")
	return nil
}

func nbCellContradictions(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	c := r.Contradictions
	h.rawf("<p>Contradicted items: the incumbent %s %d, the candidate %s %d, against a gate of at most %d; change: %s. On the item-compactions both systems checked, the candidate newly contradicts %s and no longer contradicts %s.</p>\n",
		hGate(c.IncumbentGate), c.Incumbent, hGate(c.CandidateGate), c.Candidate, c.Max, hChange(c.Change), hInt(len(c.New)), hInt(c.Resolved))
	if len(c.New) == 0 {
		h.raw("<p class=\"none\">The candidate contradicts no item the incumbent did not.</p>\n")
		return nil
	}
	keys := c.New[:min(len(c.New), limit)]
	h.rawf("<p>%s item-compaction%s the candidate contradicts and the incumbent does not:</p>\n", hInt(len(c.New)), hPlural(len(c.New)))
	hItemTable(h, r, nbPickItems(r, keys))
	hMore(h, len(keys), len(c.New), "contradicted items")
	return nil
}
