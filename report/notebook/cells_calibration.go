package notebook

import (
	"strconv"

	"github.com/tally-eval/tally/calibration"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
)

// cellCalibration is the "calibration" cell: how far to trust the judge.
// With reviewers' verdicts (report.Calibration), the sentence, each
// class and system's retained share as the judge gives it beside the
// share corrected for the judge's errors, which of the two the gates
// used, and per system the judge against the reviewers; without, a note
// saying how to add reviews.
func cellCalibration(cx *cellCtx) error {
	r, h := cx.r, cx.out
	c := r.Calibration
	if c == nil {
		h.Raw(`<p class="none">No reviews are configured, so the judge is taken at its word: the shares above are the judge's. To measure it, draw a review queue with <code>tally calibrate queue --config report.yaml -o queue.csv</code> (every contradiction and a random sample of the rest); have reviewers fill in its reviewer columns; read them back with <code>tally calibrate queue.csv -o reviews.jsonl --config report.yaml</code> (rows filled in on the workbook's Items sheet work too, but carry no mark of a random draw, and the report warns that it takes them for one); and name the file in report.yaml as <code>reviews: reviews.jsonl</code> (with <code>gates.use: corrected</code> to gate on the corrected shares).</p>`, "\n")
		return nil
	}
	h.Raw(`<p class="calibration">`)
	h.Text(c.Sentence, 4000)
	h.Raw("</p>\n")
	judge, corrected := "judge", "corrected"
	gated := ` <span class="badge nogate">the gates use this</span>`
	if c.Use == report.UseCorrected {
		corrected += gated
	} else {
		judge += gated
	}
	h.Raw("<div class=\"scroll\"><table class=\"wide calibration\">\n<caption>Retained share: the judge's against the one corrected by the reviewers</caption>\n<thead><tr><th>class</th><th>system</th>")
	h.Raw("<th>", judge, "</th><th>", corrected, "</th><th class=\"num\">reviews used</th><th class=\"num\">κ</th></tr></thead>\n<tbody>\n")
	for i := range c.Retention {
		rt := &c.Retention[i]
		s := i % 2
		h.Raw("<tr>")
		if s == 0 {
			h.Raw(`<th scope="rowgroup" rowspan="2">`)
			h.Text(markup.ClassLabel(rt.Class), markup.CapShort)
			h.Raw("</th>")
		}
		h.Raw("<td>", roles[s], "</td>")
		if sc, ok := systemClass(r, rt, s); ok {
			writeShare(h, sc, false, nil)
		} else {
			h.Raw("<td>", markup.Pct(rt.JudgeShare), "</td>")
		}
		writeCorrected(h, rt)
		h.Rawf(`<td class="num">%s<span class="sub">of %s judged</span></td><td class="num">%s</td></tr>`+"\n",
			markup.Int(rt.Reviewed), markup.Int(rt.Judged()), kappaInterval(rt.Agreement))
	}
	h.Raw("</tbody>\n</table></div>\n")
	conf := "the report's"
	if x := r.Confidence; markup.Finite(x) && x > 0 && x < 1 {
		conf = markup.GatePct(x)
	}
	h.Rawf("<p class=\"sub\">Judge: the share of the class's items the judge called verbatim or supported, with its Wilson interval. Corrected: the same share with the judge's verdicts corrected by the reviewers' (prediction-powered inference, stratified by the judge's verdict; verbatim items count as they are), with its %s interval. Reviews used: the reviews of judged items. κ: Cohen's κ of the judge against the reviewers on the class's reviews of judged items (an item found verbatim was never put to the judge).</p>\n", conf)
	names := [2]string{r.Incumbent, r.Candidate}
	for s, a := range c.Agreement {
		writeAgreement(h, roles[s], names[s], a, conf)
	}
	return nil
}

// roles names the systems by their role, incumbent then candidate.
var roles = [2]string{"incumbent", "candidate"}

// systemClass is the gates table's share of rt's class for system s.
func systemClass(r *report.Report, rt *calibration.Retention, s int) (report.SystemClass, bool) {
	for _, row := range r.Classes {
		if row.Class == rt.Class {
			return []report.SystemClass{row.Incumbent, row.Candidate}[s], true
		}
	}
	return report.SystemClass{}, false
}

// writeCorrected writes the corrected share's cell: the share and its
// interval, or why there is none.
func writeCorrected(h *markup.Buffer, rt *calibration.Retention) {
	h.Raw("<td>")
	if markup.Finite(rt.Share) {
		h.Raw("<strong>", markup.Pct(rt.Share), "</strong>")
		if iv := markup.Interval(rt.Interval.Lower, rt.Interval.Upper); iv != "—" {
			h.Raw(`<span class="sub">`, iv, "</span>")
		}
	} else {
		h.Raw(`<span class="none">none</span>`)
	}
	if rt.Reason != "" {
		h.Raw(`<span class="sub">`)
		h.Text(rt.Reason, 2000)
		h.Raw("</span>")
	}
	h.Raw("</td>")
}

// kappaText is an agreement's κ with two decimals, a dash when undefined.
func kappaText(a calibration.Agreement) string {
	if a.Reviews == 0 || !markup.Finite(a.Kappa.Kappa) {
		return "—"
	}
	return signed2(a.Kappa.Kappa)
}

// kappaInterval is κ with its interval, "0.83 (0.62 to 1.00)", or κ
// alone when the interval is undefined or of zero width (every review
// agreeing: the large-sample standard error is then 0, which is no
// interval).
func kappaInterval(a calibration.Agreement) string {
	k := kappaText(a)
	if k == "—" || !markup.Finite(a.Kappa.Interval.Lower) || !markup.Finite(a.Kappa.Interval.Upper) || a.Kappa.Interval.Lower == a.Kappa.Interval.Upper {
		return k
	}
	return k + " (" + signed2(a.Kappa.Interval.Lower) + " to " + signed2(a.Kappa.Interval.Upper) + ")"
}

// signed2 formats x with two decimals and a true minus sign.
func signed2(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	switch {
	case s == "-0.00":
		return "0.00"
	case s[0] == '-':
		return "−" + s[1:]
	}
	return s
}

// writeAgreement writes one system's judge-against-reviewer table, κ
// with its interval, and the contradictions the reviewers confirmed.
func writeAgreement(h *markup.Buffer, role, name string, a calibration.Agreement, conf string) {
	if a.Reviews == 0 {
		h.Raw("<p class=\"none\">No review of ")
		writeWho(h, role, name)
		h.Raw("'s verdicts.</p>\n")
		return
	}
	h.Raw("<div class=\"scroll\"><table class=\"agreement\">\n<caption>The judge against the reviewers: ")
	writeWho(h, role, name)
	h.Raw("</caption>\n<thead><tr><th>judge ↓ reviewer →</th>")
	for _, l := range calibration.Labels {
		h.Raw(`<th class="num">`)
		h.Text(string(l), markup.CapShort)
		h.Raw("</th>")
	}
	h.Raw("</tr></thead>\n<tbody>\n")
	for i, row := range a.Table {
		h.Raw(`<tr><th scope="row">`)
		h.Text(string(calibration.Labels[i]), markup.CapShort)
		if i == 0 {
			h.Raw(" or verbatim")
		}
		h.Rawf("</th><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n",
			markup.Int(row[0]), markup.Int(row[1]), markup.Int(row[2]))
	}
	h.Raw("</tbody>\n</table></div>\n")
	h.Rawf("<p class=\"sub\">%s review%s, %s of them the judge's verdict; κ = %s", markup.Int(a.Reviews), plural(a.Reviews), markup.Int(a.Equal()), kappaText(a))
	if iv := a.Kappa.Interval; markup.Finite(iv.Lower) && markup.Finite(iv.Upper) {
		h.Rawf(" (%s interval %s to %s)", conf, signed2(iv.Lower), signed2(iv.Upper))
	}
	h.Rawf("; contradictions confirmed: %s of %s.</p>\n", markup.Int(a.ContradictionsConfirmed), markup.Int(a.ContradictionsJudged))
}
