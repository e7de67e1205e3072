package report

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// nbFromReplay is the one source --from names: the report's replay.
const nbFromReplay = "replay"

// nbFromReport reports whether a planning cell takes its numbers from
// the report: --from replay, or no argument at all. Any argument in
// own (those that state the numbers by hand) alongside --from is an
// error.
func nbFromReport(set map[string]bool, from string, own []string) (bool, error) {
	if !set["from"] {
		for _, f := range own {
			if set[f] {
				return false, nil
			}
		}
		return len(set) == 0, nil
	}
	if from != nbFromReplay {
		return false, fmt.Errorf("--from %q: the one source is %s (the report's replayed conversations)", nbPreview(from), nbFromReplay)
	}
	for _, f := range own {
		if set[f] {
			dash := "--"
			if len(f) == 1 {
				dash = "-"
			}
			return false, fmt.Errorf("%s%s: --from %s takes the numbers from the report; give one or the other", dash, f, nbFromReplay)
		}
	}
	return true, nil
}

// nbNoReplay is the note a planning cell shows without a replay.
func nbNoReplay(h *hbuf, what string) {
	h.raw(`<p class="none">No replay: configure <code>replay:</code> in report.yaml to get `, what, ".</p>\n")
}

// nbSetupPlan makes a plan cell. With --from replay, or no argument, it
// shows the report's Paper (computed by Build from the replay and the
// item rows); with --rate and --conversations, power.Plan runs at parse
// time on the numbers given.
func nbSetupPlan(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	from := fs.String("from", "", "")
	rate := fs.Float64("rate", 0, "")
	conv := fs.Int("conversations", 0, "")
	cat := fs.Int("catastrophic", 0, "")
	alpha := fs.Float64("alpha", 0.05, "")
	pw := fs.Float64("power", 0.8, "")
	return func(set map[string]bool) (nbCellRun, error) {
		fromReport, err := nbFromReport(set, *from, []string{"rate", "conversations", "catastrophic", "alpha", "power"})
		if err != nil {
			return nil, err
		}
		if fromReport {
			return nbCellPlanFromReport, nil
		}
		for _, f := range []string{"rate", "conversations"} {
			if !set[f] {
				return nil, fmt.Errorf("--%s is required (or --from %s, the default with no argument, for the report's own numbers)", f, nbFromReplay)
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"rate", *rate}, {"alpha", *alpha}, {"power", *pw}} {
			if !hFinite(f.v) {
				return nil, fmt.Errorf("--%s must be a finite number, got %v", f.name, f.v)
			}
		}
		p, err := power.Plan(*rate, *conv, *cat, *alpha, *pw)
		if err != nil {
			return nil, err
		}
		return func(cx *nbCellCtx) error { hPlan(cx, p); return nil }, nil
	}
}

// nbCellPlanFromReport shows the report's on-paper argument.
func nbCellPlanFromReport(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	pp := r.Paper
	if pp == nil {
		nbNoReplay(h, "the on-paper argument for your own replayed conversations: their number and the reference's success rate")
		return nil
	}
	rate := pp.Rate
	h.rawf("<p class=\"sub\">From this report: %s replayed conversations, on which the reference succeeded %s times (a rate of %s)",
		hInt(rate.N), hInt(rate.K), hNum(rate.Estimate, 4))
	if pp.Catastrophic > 0 {
		h.rawf("; the catastrophic count is the %s fixture conversation%s in which the candidate lost a constraint item or newly contradicted an item (",
			hInt(pp.Catastrophic), hPlural(pp.Catastrophic))
		for i, id := range pp.CatastrophicConversations {
			if i > 0 {
				h.raw(", ")
			}
			h.raw("<code>")
			h.text(id, hCapShort)
			h.raw("</code>")
		}
		if n := pp.Catastrophic - len(pp.CatastrophicConversations); n > 0 {
			h.rawf(" and %s more", hInt(n))
		}
		h.raw("), supposing each failed outright: the most an item-level failure could cost task success")
	}
	h.raw(".</p>\n")
	for _, n := range pp.Notes {
		h.raw(`<p class="none">`)
		h.text(n, hCapCell)
		h.raw("</p>\n")
	}
	if pp.Plan != nil {
		hPlan(cx, *pp.Plan)
	}
	return nil
}

func hPlan(cx *nbCellCtx, p power.PlanResult) {
	h := cx.out
	h.raw("<div class=\"plan\">\n")
	h.rawf("<p>%s conversations at a success rate of %s: the standard error is √(%s × %s / %s) = %s, that is %s; the %s interval is %s–%s (%s), about %s wide.</p>\n",
		hInt(p.Conversations), hNum(p.Rate, 4), hNum(p.Rate, 4), hNum(1-p.Rate, 4), hInt(p.Conversations),
		strconv.FormatFloat(p.StandardError, 'f', 4, 64), hPoints(p.StandardError, false),
		hGatePct(1-p.Alpha), hProb(p.Interval.Lower), hProb(p.Interval.Upper), p.Interval.Method, hPoints(p.Interval.Width(), false))
	h.rawf("<p>Halving that uncertainty takes %s conversations: four times as many, because the number of conversations sits under a square root.</p>\n", hInt(p.HalveUncertaintyConversations))
	mde := func(m power.MDE) string {
		if !m.Detectable {
			return "no drop at all"
		}
		return hPoints(m.Effect, false)
	}
	h.rawf("<p>The smallest drop detectable (two-sided α %s, power %s): %s comparing two independent runs, %s with a paired run.</p>\n",
		hNum(p.Alpha, 4), hNum(p.Power, 4), mde(p.MinimumDetectable.Independent), mde(p.MinimumDetectable.Paired))
	if c := p.Catastrophic; c != nil {
		se := "an undefined number of"
		if c.InStandardErrorsDefined {
			se = strconv.FormatFloat(c.InStandardErrors, 'f', 2, 64)
		}
		h.rawf("<p><strong>%s conversation%s failing outright</strong> (lost, none gained) is a drop of %d/%s = %s: %s standard errors, where one standard error is %s. ",
			hInt(c.Count), hPlural(c.Count), c.Count, hInt(p.Conversations), hPoints(c.Drop, false), se, hPoints(p.StandardError, false))
		if c.Resolvable {
			h.rawf("The aggregate can resolve it: two independent runs of %s detect it with power %s.", hInt(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64))
		} else {
			h.rawf("<strong>The aggregate cannot resolve it:</strong> two independent runs of %s detect it with power %s (target %s). No care in running the eval changes that; count items instead of conversations.",
				hInt(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64), hNum(p.Power, 4))
		}
		h.rawf(" To detect it would take %s conversations per run comparing two independent runs, or %s in a paired design.</p>\n",
			hInt(c.ConversationsNeeded.Independent), hInt(c.ConversationsNeeded.Paired))
	}
	h.raw("</div>\n")
	cx.warnings = append(cx.warnings, p.Warnings...)
}

// nbSetupInterval makes an interval cell. With --from replay, or no
// argument but --method, it shows the reference's success rate over the
// report's replay (computed by Build); with -k and -n, stats.Summarize
// runs at parse time on the numbers given.
func nbSetupInterval(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	var k, n int
	from := fs.String("from", "", "")
	fs.IntVar(&k, "k", 0, "")
	fs.IntVar(&k, "successes", 0, "")
	fs.IntVar(&n, "n", 0, "")
	fs.IntVar(&n, "trials", 0, "")
	conf := fs.Float64("confidence", 0.95, "")
	method := fs.String("method", "all", "")
	return func(set map[string]bool) (nbCellRun, error) {
		var methods []stats.Method
		if *method != "all" {
			m, err := stats.ParseMethod(*method)
			if err != nil {
				return nil, fmt.Errorf("--method: %w", err)
			}
			methods = []stats.Method{m}
		}
		given := map[string]bool{} // the arguments, aliases folded, --method aside
		for f := range set {
			switch f {
			case "method":
			case "successes":
				given["k"] = true
			case "trials":
				given["n"] = true
			default:
				given[f] = true
			}
		}
		fromReport, err := nbFromReport(given, *from, []string{"k", "n", "confidence"})
		if err != nil {
			return nil, err
		}
		if fromReport {
			return func(cx *nbCellCtx) error { return nbCellIntervalFromReport(cx, methods) }, nil
		}
		if !set["k"] && !set["successes"] {
			return nil, errors.New("-k is required (or --from replay for the report's own numbers)")
		}
		if !set["n"] && !set["trials"] {
			return nil, errors.New("-n is required (or --from replay for the report's own numbers)")
		}
		if !hFinite(*conf) {
			return nil, fmt.Errorf("--confidence must be a finite number, got %v", *conf)
		}
		s, err := stats.Summarize(stats.Proportion{K: k, N: n}, *conf, methods...)
		if err != nil {
			return nil, err
		}
		return func(cx *nbCellCtx) error { hInterval(cx, s); return nil }, nil
	}
}

// nbCellIntervalFromReport shows the reference's success rate over the
// report's replay, by the methods given (all when none).
func nbCellIntervalFromReport(cx *nbCellCtx, methods []stats.Method) error {
	pp := cx.r.Paper
	if pp == nil {
		nbNoReplay(cx.out, "the interval of your own replay's success rate")
		return nil
	}
	s := pp.Rate
	if len(methods) > 0 {
		s.Intervals = nil
		for _, iv := range pp.Rate.Intervals {
			if iv.Method == string(methods[0]) {
				s.Intervals = append(s.Intervals, iv)
			}
		}
	}
	cx.out.raw(`<p class="sub">From this report: the reference's successes over the replayed conversations.</p>`, "\n")
	hInterval(cx, s)
	return nil
}

func hInterval(cx *nbCellCtx, s stats.RateSummary) {
	h := cx.out
	h.rawf("<p>%s/%s successes: a rate of %s, standard error %s (%s); %s intervals:</p>\n",
		hInt(s.K), hInt(s.N), hProb(s.Estimate), strconv.FormatFloat(s.StandardError, 'f', 4, 64), hPoints(s.StandardError, false), hGatePct(s.Confidence))
	h.raw("<div class=\"scroll\"><table class=\"interval\">\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th><th class=\"num\">width</th></tr></thead>\n<tbody>\n")
	for _, iv := range s.Intervals {
		h.raw("<tr><td>")
		h.text(iv.Method, 40)
		h.raw(`</td><td class="num">`, hProb(iv.Lower), `</td><td class="num">`, hProb(iv.Upper), `</td><td class="num">`, hProb(iv.Width()), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	cx.warnings = append(cx.warnings, s.Warnings...)
}
