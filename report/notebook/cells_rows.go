package notebook

import (
	"fmt"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
)

func cellTitle(cx *cellCtx) error {
	r, h := cx.r, cx.out
	h.Raw("<header class=\"title\">\n<h1>")
	h.Text(markup.Title(r), 400)
	h.Raw("</h1>\n")
	if r.Period != "" {
		h.Raw(`<p class="period">`)
		h.Text(r.Period, 400)
		h.Raw("</p>\n")
	}
	h.Raw(`<p class="meta">Comparing `)
	writeWho(h, "candidate", r.Candidate)
	h.Raw(" against ")
	writeWho(h, "incumbent", r.Incumbent)
	if markup.Finite(r.Confidence) && r.Confidence > 0 {
		h.Rawf(" · intervals at %s confidence", markup.GatePct(r.Confidence))
	}
	if !r.Generated.IsZero() {
		h.Raw(" · generated ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if r.Provenance.Version != "" {
		h.Raw(" · tally ")
		h.Text(r.Provenance.Version, 80)
	}
	h.Raw("</p>\n</header>\n")
	return nil
}

// writeNames writes a list of row names (classes, "contradictions", …).
func writeNames(h *markup.Buffer, list []string) {
	for i, s := range list {
		if i > 0 {
			h.Raw(", ")
		}
		h.Raw("<em>")
		h.Text(markup.ClassLabel(fixture.Class(s)), markup.CapShort)
		h.Raw("</em>")
	}
}

func cellDecision(cx *cellCtx) error {
	d, h := cx.r.Decision, cx.out
	// Green only for a change that gives nothing up: a gate the
	// incumbent meets and the candidate does not keeps the box neutral
	// (a stakeholder's trial read a green box beside "fails a gate").
	switch {
	case d.Blocks:
		h.Raw("<section class=\"decision\">\n")
	case len(d.NewlyUnmet) > 0:
		h.Raw("<section class=\"decision unmet\">\n")
	default:
		h.Raw("<section class=\"decision clear\">\n")
	}
	// The decision's own words (report.Decision.Headline), the ones every
	// output gives it.
	h.Raw("<p class=\"verdict\"><strong>Verdict:</strong> ", d.HeadlineWith(func(name string) string {
		return "<em>" + markup.Escape(name, markup.CapShort) + "</em>"
	}), ".</p>\n")
	if d.Blocks {
		writeUnpaired(h, cx.r)
	}
	if len(d.Backlog) > 0 {
		h.Rawf("<p><strong>Backlog, not a merge decision:</strong> %d gate%s unmet by the incumbent as well — ", len(d.Backlog), plural(len(d.Backlog)))
		writeNames(h, d.Backlog)
		h.Raw(". A gate the system in production does not meet either is a standard not yet met; it does not make this change unsafe.</p>\n")
	} else {
		// No backlog says only that no gate is unmet by both systems;
		// the incumbent may still miss one the candidate meets.
		h.Raw("<p>No backlog: no gate is unmet by both systems.</p>\n")
	}
	if len(d.CandidateUnmet) > 0 {
		h.Raw("<p>Gates the candidate does not meet: ")
		writeNames(h, d.CandidateUnmet)
		h.Raw(".</p>\n")
	} else {
		h.Raw("<p>The candidate meets every gate.</p>\n")
	}
	if d.Rule != "" {
		// The rule is a paragraph of its own: it opens with its subject
		// ("The change blocks when …"), so it needs no lead-in.
		h.Raw(`<p class="sub rule">`)
		h.Text(d.Rule, 2000)
		h.Raw("</p>\n")
	}
	if er := cx.r.ErrorRates; er != nil && er.Sentence != "" {
		h.Raw(`<p class="sub rates">`)
		h.Text(er.Sentence, 4000)
		h.Raw("</p>\n")
	}
	h.Raw("</section>\n")
	// The report's warnings follow the verdict, so the first screen says
	// what got worse (a stakeholder's trial found five warnings pushing
	// the verdict below the fold).
	ReportWarnings(h, cx.r)
	return nil
}

// ReportWarnings writes the report's own warnings as the page's
// warnings box, nothing when there are none: after the verdict in a
// notebook with a decision cell (HasDecision), else by the page at its
// top.
func ReportWarnings(h *markup.Buffer, r *report.Report) {
	if len(r.Warnings) == 0 {
		return
	}
	h.Raw("<aside class=\"warnings report-warnings\">\n<p><strong>Warnings</strong></p>\n")
	h.List(r.Warnings)
	h.Raw("</aside>\n")
}

// HasDecision reports whether the notebook has a decision cell, which
// writes the report's warnings after the verdict (ReportWarnings).
func (nb *Notebook) HasDecision() bool {
	for _, c := range nb.cells {
		if c.Name == "decision" {
			return true
		}
	}
	return false
}

// writeUnpaired names the item-compactions checked by one system only: how
// many per class and system, and the first few of each.
func writeUnpaired(h *markup.Buffer, r *report.Report) {
	k := r.Contradictions
	if k.OnlyIncumbent+k.OnlyCandidate == 0 {
		return
	}
	h.Rawf("<div class=\"unpaired\">\n<p><strong>Not compared item by item:</strong> %s item-compaction%s checked by the incumbent only and %s by the candidate only. Each row is decided on the item-compactions both systems checked; a row with one checked by one system only is undecided until both have checked it.</p>\n<ul>\n",
		markup.Int(k.OnlyIncumbent), plural(k.OnlyIncumbent), markup.Int(k.OnlyCandidate))
	for _, row := range r.Classes {
		for _, s := range []struct {
			role string
			keys []report.ItemKey
		}{{"incumbent", row.OnlyIncumbent}, {"candidate", row.OnlyCandidate}} {
			if len(s.keys) == 0 {
				continue
			}
			h.Raw("<li><em>")
			h.Text(markup.ClassLabel(row.Class), markup.CapShort)
			h.Rawf("</em>: %s checked by the %s only — ", markup.Int(len(s.keys)), s.role)
			for i, key := range s.keys[:min(len(s.keys), report.MaxNamed)] {
				if i > 0 {
					h.Raw(", ")
				}
				h.Raw("<code>")
				h.Text(key.ConversationID, markup.CapShort)
				h.Raw("</code> · compaction ", fmt.Sprint(key.Compaction), " · <code>")
				h.Text(key.ItemID, markup.CapShort)
				h.Raw("</code>")
			}
			if n := len(s.keys) - report.MaxNamed; n > 0 {
				h.Rawf(" and %s more", markup.Int(n))
			}
			h.Raw("</li>\n")
		}
	}
	h.Raw("</ul>\n</div>\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeShare writes a system's class result as a table cell: badge, counts,
// share and Wilson interval, then whatever more adds.
func writeShare(h *markup.Buffer, sc report.SystemClass, gate bool, more func(*markup.Buffer, report.SystemClass)) {
	h.Raw("<td>")
	if gate {
		h.Raw(markup.Gate(sc.Gate), " ")
	}
	if sc.Counts.Items == 0 {
		h.Raw(`<span class="none">no items</span></td>`)
		return
	}
	// The share's words come from the model (report.Share): a point and
	// its Wilson interval, or with errors a range and no interval.
	h.Raw(sc.Retained.Count(), " · <strong>", sc.Retained.Percent(), "</strong>")
	if iv := sc.Retained.IntervalText(); iv != "" {
		h.Rawf(`<span class="sub">Wilson %s</span>`, iv)
	}
	if sc.Counts.Errors > 0 {
		h.Rawf(`<span class="sub">%d judge error%s, not counted as absent: no interval</span>`, sc.Counts.Errors, plural(sc.Counts.Errors))
	}
	if gate && sc.Decided != nil {
		// gates.use: corrected: the status beside it was decided on this.
		h.Raw(`<span class="sub"><strong>`, markup.Escape(sc.Decided.String(), markup.CapShort), `</strong> (the gate's figure)</span>`)
	}
	if more != nil {
		more(h, sc)
	}
	h.Raw("</td>")
}

func cellGates(cx *cellCtx) error {
	r, h := cx.r, cx.out
	h.Raw("<div class=\"scroll\"><table class=\"wide gates\">\n<thead><tr><th>gate</th><th>standard</th>")
	systemHeads(h, r)
	h.Raw("<th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		writeClassRow(h, row.Class)
		if row.Incumbent.Gate == report.NoGate { // gates.retained names no share for it
			h.Raw("<td>none</td>")
		} else {
			h.Rawf("<td>at least %s retained</td>", markup.GatePct(row.MinShare))
		}
		writeShare(h, row.Incumbent, true, nil)
		writeShare(h, row.Candidate, true, nil)
		h.Raw("<td>", markup.ClassChange(row), "</td></tr>\n")
		for _, s := range []struct {
			role string
			sc   report.SystemClass
		}{{"incumbent", row.Incumbent}, {"candidate", row.Candidate}} {
			if s.sc.Counts.Items == 0 {
				cx.warnings = append(cx.warnings, fmt.Sprintf("gates: the %s has no %s items; its share is undefined", s.role, markup.ClassLabel(row.Class)))
			}
		}
	}
	c := r.Contradictions
	h.Rawf(`<tr><th scope="row">contradictions</th><td>at most %d</td>`, c.Max)
	h.Rawf("<td>%s %d</td><td>%s %d</td><td>%s</td></tr>\n", markup.Gate(c.IncumbentGate), c.Incumbent, markup.Gate(c.CandidateGate), c.Candidate, markup.Change(c.Change))
	pr := r.Prompt
	h.Raw(`<tr><th scope="row">prompt size</th>`)
	if markup.Finite(pr.MaxMean) && pr.MaxMean > 0 {
		h.Rawf("<td>mean at most %s tokens</td>", markup.Tokens(pr.MaxMean))
	} else {
		h.Raw("<td>reported, no gate</td>")
	}
	h.Rawf("<td>%s mean %s</td><td>%s mean %s</td><td>%s</td></tr>\n",
		markup.Gate(pr.IncumbentGate), markup.Tokens(pr.Incumbent.Mean), markup.Gate(pr.CandidateGate), markup.Tokens(pr.Candidate.Mean), markup.Change(pr.Change))
	h.Raw("</tbody>\n</table></div>\n")
	h.Raw("<p class=\"sub\">Retained means verbatim or supported by the judge. Each system is held to each gate on its own; the change column is the regression rule, incumbent against candidate.</p>\n")
	return nil
}

// writeClassRow opens a table row headed by a class's name.
func writeClassRow(h *markup.Buffer, cl fixture.Class) {
	h.Raw(`<tr><th scope="row">`)
	h.Text(markup.ClassLabel(cl), markup.CapShort)
	h.Raw("</th>")
}

// writeClusterNote writes a system's cluster-robust interval and design
// effect.
func writeClusterNote(h *markup.Buffer, sc report.SystemClass) {
	if sc.Counts.Items == 0 || sc.Clustered.N == 0 {
		return
	}
	h.Rawf(`<span class="sub">cluster-robust %s`, markup.Interval(sc.Robust.Lower, sc.Robust.Upper))
	if markup.Finite(sc.Clustered.DesignEffect) {
		h.Rawf(", design effect %s", markup.Num(sc.Clustered.DesignEffect, 3))
	}
	h.Rawf(" over %d conversation%s</span>", sc.Clustered.Clusters, plural(sc.Clustered.Clusters))
}

func cellComparison(cx *cellCtx) error {
	r, h := cx.r, cx.out
	h.Raw("<div class=\"scroll\"><table class=\"wide comparison\">\n<caption>Retention, incumbent against candidate</caption>\n<thead><tr><th>class</th>")
	systemHeads(h, r)
	h.Raw("<th class=\"num\">lost</th><th class=\"num\">gained</th><th>the rule's test</th><th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		writeClassRow(h, row.Class)
		for _, sc := range []report.SystemClass{row.Incumbent, row.Candidate} {
			writeShare(h, sc, false, writeClusterNote)
		}
		// The p the verdict used, as Markdown and tally gate give it (a
		// stakeholder's trial found the exact test's p here and the
		// rule's there); the exact test on the items is context.
		h.Rawf(`<td class="num">%d</td><td class="num">%d</td><td>`, len(row.Lost), len(row.Gained))
		if t := r.RowTest(row); t != "" {
			h.Text(t, 200)
		} else {
			h.Raw("—")
		}
		if row.McNemar.Method != "" && !strings.HasPrefix(r.RowTest(row), "exact McNemar") {
			h.Rawf(`<span class="sub">exact McNemar %s on the items, context`, markup.PIs(row.McNemar.PValue))
			if m := row.McNemar.Method; m != string(power.TestExact) {
				h.Raw(" (")
				h.Text(m, 40)
				h.Raw(")")
			}
			h.Raw("</span>")
		}
		h.Raw("</td><td>", markup.ClassChange(row), "</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	writeUnpaired(h, r)
	h.Raw("<p class=\"sub\">Lost: retained by the incumbent, not by the candidate; gained: the reverse; both over the item-compactions both systems checked. The rule's test is the one the verdict used, at the level it was held to; McNemar's exact test on the paired items is context, not the rule. The cluster-robust interval allows for items of one conversation failing together.</p>\n")

	h.Raw("<div class=\"scroll\"><table class=\"wide verdicts\">\n<caption>Verdicts</caption>\n<thead><tr><th>class</th><th>system</th><th class=\"num\">checked</th><th class=\"num\">verbatim</th><th class=\"num\">supported</th><th class=\"num\">absent</th><th class=\"num\">contradicted</th><th class=\"num\">error</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		for i, sc := range []report.SystemClass{row.Incumbent, row.Candidate} {
			h.Raw("<tr>")
			if i == 0 {
				h.Raw(`<th scope="rowgroup" rowspan="2">`)
				h.Text(markup.ClassLabel(row.Class), markup.CapShort)
				h.Raw("</th><td>incumbent</td>")
			} else {
				h.Raw("<td>candidate</td>")
			}
			c := sc.Counts
			h.Rawf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr>`+"\n",
				c.Items, c.Verbatim, c.Supported, c.Absent, c.Contradicted, c.Errors)
		}
	}
	h.Raw("</tbody>\n</table></div>\n")

	pr := r.Prompt
	h.Raw("<div class=\"scroll\"><table class=\"wide prompt\">\n<caption>Prompt size after compaction, in tokens</caption>\n<thead><tr><th>system</th><th class=\"num\">contexts</th><th class=\"num\">mean</th><th class=\"num\">median</th><th class=\"num\">95th percentile</th><th class=\"num\">largest</th><th>gate</th></tr></thead>\n<tbody>\n")
	for _, s := range []struct {
		role, name string
		st         report.PromptStats
		gate       report.GateStatus
	}{{"incumbent", r.Incumbent, pr.Incumbent, pr.IncumbentGate}, {"candidate", r.Candidate, pr.Candidate, pr.CandidateGate}} {
		h.Raw("<tr>")
		systemHead(h, s.role, s.name)
		h.Rawf(`<td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td></tr>`+"\n",
			markup.Int(s.st.Contexts), markup.Tokens(s.st.Mean), markup.Tokens(s.st.Median), markup.Tokens(s.st.P95), markup.Int(s.st.Max), markup.Gate(s.gate))
	}
	h.Raw("</tbody>\n</table></div>\n")
	return nil
}

// pickItems returns the item rows for keys, in keys' order, from one
// pass over r.Items; a key without a row gives a row with the key only.
func pickItems(r *report.Report, keys []report.ItemKey) []report.ItemRow {
	at := make(map[report.ItemKey]int, len(keys))
	for i, k := range keys {
		if _, dup := at[k]; !dup {
			at[k] = i
		}
	}
	out := make([]report.ItemRow, len(keys))
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
				out[i] = report.ItemRow{ItemKey: k}
			}
		}
	}
	return out
}

// writeVerdict writes a record's verdict, answer and reason.
// writeReviewed notes a reviewer's verdict on system's record of k when
// it is not the judge's v.
func writeReviewed(h *markup.Buffer, r *report.Report, k report.ItemKey, system string, v fixture.Verdict) {
	if rv, ok := r.Reviewed(k, system); ok && rv != v {
		h.Raw(`<span class="sub txt">a reviewer: `)
		h.Text(string(rv), 40)
		h.Raw("</span>")
	}
}

func writeVerdict(h *markup.Buffer, rec fixture.Record) {
	v := string(rec.Verdict)
	if v == "" {
		h.Raw(`<span class="badge v-none">no record</span>`)
		return
	}
	switch rec.Verdict {
	case fixture.Verbatim, fixture.Supported, fixture.Absent, fixture.Contradicted, fixture.Error:
		h.Raw(`<span class="badge v-`, v, `">`, v, "</span>")
	default:
		h.Raw(`<span class="badge v-error">`)
		h.Text(v, 40)
		h.Raw("</span>")
	}
	if rec.Answer != "" {
		h.Raw(`<span class="sub txt">answer: `)
		h.Text(rec.Answer, markup.CapCell)
		h.Raw("</span>")
	}
	if rec.Reason != "" {
		h.Raw(`<span class="sub txt">reason: `)
		h.Text(rec.Reason, markup.CapCell)
		h.Raw("</span>")
	}
}

// writeItemTable writes item rows with both systems' verdicts.
func writeItemTable(h *markup.Buffer, r *report.Report, rows []report.ItemRow) {
	h.Raw("<div class=\"scroll\"><table class=\"items\">\n<colgroup><col class=\"c-item\"><col class=\"c-stated\"><col class=\"c-probe\"><col class=\"c-inc\"><col class=\"c-cand\"></colgroup>\n<thead><tr><th>item</th><th>stated</th><th>probe and expected answer</th>")
	systemHeads(h, r)
	h.Raw("</tr></thead>\n<tbody>\n")
	for _, it := range rows {
		h.Raw(`<tr><td class="txt"><code>`)
		h.Text(it.ConversationID, markup.CapShort)
		h.Rawf("</code> · compaction %d · <code>", it.Compaction)
		h.Text(it.ItemID, markup.CapShort)
		h.Raw("</code>")
		if it.Class != "" {
			h.Raw(`<span class="sub">`)
			h.Text(markup.ClassLabel(it.Class), markup.CapShort)
			h.Raw("</span>")
		}
		h.Raw(`</td><td class="txt">`)
		h.Text(it.Literal, markup.CapCell)
		h.Raw(`</td><td class="txt">`)
		h.Text(it.Probe, markup.CapCell)
		if it.Expect != "" {
			h.Raw(`<span class="sub">expected: `)
			h.Text(it.Expect, markup.CapCell)
			h.Raw("</span>")
		}
		h.Raw("</td><td>")
		writeVerdict(h, it.Incumbent)
		writeReviewed(h, r, it.ItemKey, r.Incumbent, it.Incumbent.Verdict)
		h.Raw("</td><td>")
		writeVerdict(h, it.Candidate)
		writeReviewed(h, r, it.ItemKey, r.Candidate, it.Candidate.Verdict)
		h.Raw("</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
}

// writeMore writes how many rows were left out.
func writeMore(h *markup.Buffer, shown, total int, what string) {
	if total > shown {
		h.Rawf("<p class=\"more\">%s more %s in report.xlsx (this page shows the first %s).</p>\n", markup.Int(total-shown), what, markup.Int(shown))
	}
}

func cellLostItems(cx *cellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var keys []report.ItemKey
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
		h.Raw("<p class=\"none\">No item was lost: every item the incumbent retained, the candidate retained too.</p>\n")
		return nil
	}
	h.Rawf("<p>%s item-compaction%s the incumbent retained and the candidate did not.</p>\n", markup.Int(total), plural(total))
	writeItemTable(h, r, pickItems(r, keys))
	writeMore(h, len(keys), total, "lost items")
	return nil
}

func cellChangedItems(cx *cellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var rows []report.ItemRow
	for i := range r.Items {
		if r.Items[i].Changed {
			total++
			if len(rows) < limit {
				rows = append(rows, r.Items[i])
			}
		}
	}
	if total == 0 {
		h.Raw("<p class=\"none\">No verdict changed between the two systems.</p>\n")
		return nil
	}
	h.Rawf("<p>%s item-compaction%s with a different verdict in the two systems.</p>\n", markup.Int(total), plural(total))
	writeItemTable(h, r, rows)
	writeMore(h, len(rows), total, "changed items")
	return nil
}

func cellContradictions(cx *cellCtx, limit int) error {
	r, h := cx.r, cx.out
	c := r.Contradictions
	h.Rawf("<p>Contradicted items: the incumbent %s %d, the candidate %s %d, against a gate of at most %d; change: %s. On the item-compactions both systems checked, the candidate newly contradicts %s and no longer contradicts %s.</p>\n",
		markup.Gate(c.IncumbentGate), c.Incumbent, markup.Gate(c.CandidateGate), c.Candidate, c.Max, markup.Change(c.Change), markup.Int(len(c.New)), markup.Int(c.Resolved))
	if e := c.JudgeErrors; e[0]+e[1] > 0 {
		h.Rawf("<p>A reviewer overruled %s of the incumbent's and %s of the candidate's contradictions (reviews: in report.yaml): judge errors, counted in neither system nor gate.</p>\n", markup.Int(e[0]), markup.Int(e[1]))
	}
	if f := c.ReviewerFound; f[0]+f[1] > 0 {
		h.Rawf("<p>A reviewer found %s of the incumbent's and %s of the candidate's contradictions where the judge saw none (reviews: in report.yaml): counted, in the systems, their gates and the new contradictions below (%s of them).</p>\n",
			markup.Int(f[0]), markup.Int(f[1]), markup.Int(len(c.Found)))
	}
	if len(c.New) == 0 {
		h.Raw("<p class=\"none\">The candidate contradicts no item the incumbent did not.</p>\n")
		return nil
	}
	keys := c.New[:min(len(c.New), limit)]
	h.Rawf("<p>%s item-compaction%s the candidate contradicts and the incumbent does not:</p>\n", markup.Int(len(c.New)), plural(len(c.New)))
	writeItemTable(h, r, pickItems(r, keys))
	writeMore(h, len(keys), len(c.New), "contradicted items")
	return nil
}
