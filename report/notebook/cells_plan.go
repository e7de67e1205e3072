package notebook

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/markup"
	"github.com/tally-eval/tally/stats"
)

// fromReplay is the one source --from names: the report's replay.
const fromReplay = "replay"

// useReport reports whether a planning cell takes its numbers from
// the report: --from replay, or no argument at all. Any argument in
// own (those that state the numbers by hand) alongside --from is an
// error.
func useReport(set map[string]bool, from string, own []string) (bool, error) {
	if !set["from"] {
		for _, f := range own {
			if set[f] {
				return false, nil
			}
		}
		return len(set) == 0, nil
	}
	if from != fromReplay {
		return false, fmt.Errorf("--from %q: the one source is %s (the report's replayed conversations)", preview(from), fromReplay)
	}
	for _, f := range own {
		if set[f] {
			dash := "--"
			if len(f) == 1 {
				dash = "-"
			}
			return false, fmt.Errorf("%s%s: --from %s takes the numbers from the report; give one or the other", dash, f, fromReplay)
		}
	}
	return true, nil
}

// noReplay is the note a planning cell shows without a replay.
func noReplay(h *markup.Buffer, what string) {
	h.Raw(`<p class="none">No replay: configure <code>replay:</code> in report.yaml to get `, what, ".</p>\n")
}

// setupPlan makes a plan cell. With --from replay, or no argument, it
// shows the report's Paper (computed by Build from the replay and the
// item rows); with --rate and --conversations, power.Plan runs at parse
// time on the numbers given.
func setupPlan(fs *flag.FlagSet) func(map[string]bool) (cellRun, error) {
	from := fs.String("from", "", "")
	rate := fs.Float64("rate", 0, "")
	conv := fs.Int("conversations", 0, "")
	cat := fs.Int("catastrophic", 0, "")
	alpha := fs.Float64("alpha", 0.05, "")
	pw := fs.Float64("power", 0.8, "")
	return func(set map[string]bool) (cellRun, error) {
		fromReport, err := useReport(set, *from, []string{"rate", "conversations", "catastrophic", "alpha", "power"})
		if err != nil {
			return nil, err
		}
		if fromReport {
			return cellPlanFromReport, nil
		}
		for _, f := range []string{"rate", "conversations"} {
			if !set[f] {
				return nil, fmt.Errorf("--%s is required (or --from %s, the default with no argument, for the report's own numbers)", f, fromReplay)
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"rate", *rate}, {"alpha", *alpha}, {"power", *pw}} {
			if !markup.Finite(f.v) {
				return nil, fmt.Errorf("--%s must be a finite number, got %v", f.name, f.v)
			}
		}
		p, err := power.Plan(*rate, *conv, *cat, *alpha, *pw)
		if err != nil {
			return nil, err
		}
		return func(cx *cellCtx) error { planTable(cx, p); return nil }, nil
	}
}

// cellPlanFromReport shows the report's on-paper argument.
func cellPlanFromReport(cx *cellCtx) error {
	r, h := cx.r, cx.out
	pp := r.Paper
	if pp == nil {
		noReplay(h, "the on-paper argument for your own replayed conversations: their number and the reference's success rate")
		return nil
	}
	rate := pp.Rate
	h.Rawf("<p class=\"sub\">From this report: %s replayed conversations, on which the reference succeeded %s times (a rate of %s)",
		markup.Int(rate.N), markup.Int(rate.K), markup.Num(rate.Estimate, 4))
	if pp.Catastrophic > 0 {
		h.Rawf("; the catastrophic count is the %s fixture conversation%s in which the candidate lost a constraint item or newly contradicted an item (",
			markup.Int(pp.Catastrophic), plural(pp.Catastrophic))
		for i, id := range pp.CatastrophicConversations {
			if i > 0 {
				h.Raw(", ")
			}
			h.Raw("<code>")
			h.Text(id, markup.CapShort)
			h.Raw("</code>")
		}
		if n := pp.Catastrophic - len(pp.CatastrophicConversations); n > 0 {
			h.Rawf(" and %s more", markup.Int(n))
		}
		h.Raw("), supposing each failed outright: the most an item-level failure could cost task success")
	}
	h.Raw(".</p>\n")
	for _, n := range pp.Notes {
		h.Raw(`<p class="none">`)
		h.Text(n, markup.CapCell)
		h.Raw("</p>\n")
	}
	if pp.Plan != nil {
		planTable(cx, *pp.Plan)
	}
	return nil
}

func planTable(cx *cellCtx, p power.PlanResult) {
	h := cx.out
	h.Raw("<div class=\"plan\">\n")
	h.Rawf("<p>%s conversations at a success rate of %s: the standard error is √(%s × %s / %s) = %s, that is %s; the %s interval is %s–%s (%s), about %s wide.</p>\n",
		markup.Int(p.Conversations), markup.Num(p.Rate, 4), markup.Num(p.Rate, 4), markup.Num(1-p.Rate, 4), markup.Int(p.Conversations),
		strconv.FormatFloat(p.StandardError, 'f', 4, 64), markup.Points(p.StandardError, false),
		markup.GatePct(1-p.Alpha), markup.Prob(p.Interval.Lower), markup.Prob(p.Interval.Upper), p.Interval.Method, markup.Points(p.Interval.Width(), false))
	h.Rawf("<p>Halving that uncertainty takes %s conversations: four times as many, because the number of conversations sits under a square root.</p>\n", markup.Int(p.HalveUncertaintyConversations))
	mde := func(m power.MDE) string {
		if !m.Detectable {
			return "no drop at all"
		}
		return markup.Points(m.Effect, false)
	}
	h.Rawf("<p>The smallest drop detectable (two-sided α %s, power %s): %s comparing two independent runs, %s with a paired run, %s.</p>\n",
		markup.Num(p.Alpha, 4), markup.Num(p.Power, 4), mde(p.MinimumDetectable.Independent), mde(p.MinimumDetectable.Paired), pairedAssumption(p))
	if c := p.Catastrophic; c != nil {
		se := "an undefined number of"
		if c.InStandardErrorsDefined {
			se = strconv.FormatFloat(c.InStandardErrors, 'f', 2, 64)
		}
		h.Rawf("<p><strong>%s conversation%s failing outright</strong> (lost, none gained) is a drop of %d/%s = %s: %s standard errors, where one standard error is %s. ",
			markup.Int(c.Count), plural(c.Count), c.Count, markup.Int(p.Conversations), markup.Points(c.Drop, false), se, markup.Points(p.StandardError, false))
		if c.Resolvable {
			h.Rawf("The aggregate of two independent runs can resolve it: runs of %s detect it with power %s.", markup.Int(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64))
		} else {
			h.Rawf("<strong>The aggregate of two independent runs cannot resolve it:</strong> runs of %s detect it with power %s (target %s), and no care in running them changes that.",
				markup.Int(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64), markup.Num(p.Power, 4))
		}
		verb := "cannot resolve it"
		if c.Paired.Resolvable {
			verb = "resolves it"
		}
		h.Rawf(" A paired run of the same %s detects it with power %s, %s: it %s.", markup.Int(p.Conversations), strconv.FormatFloat(c.Paired.Power, 'f', 2, 64), pairedAssumption(p), verb)
		h.Rawf(" To detect it would take %s conversations per run comparing two independent runs, or %s pairs in a paired design under that assumption; counting items instead of conversations sees it directly.</p>\n",
			markup.Int(c.ConversationsNeeded.Independent), markup.Int(c.ConversationsNeeded.Paired))
	}
	h.Raw("</div>\n")
	cx.warnings = append(cx.warnings, p.Warnings...)
}

// setupInterval makes an interval cell. With --from replay, or no
// argument but --method, it shows the reference's success rate over the
// report's replay (computed by Build); with -k and -n, stats.Summarize
// runs at parse time on the numbers given.
func setupInterval(fs *flag.FlagSet) func(map[string]bool) (cellRun, error) {
	var k, n int
	from := fs.String("from", "", "")
	fs.IntVar(&k, "k", 0, "")
	fs.IntVar(&k, "successes", 0, "")
	fs.IntVar(&n, "n", 0, "")
	fs.IntVar(&n, "trials", 0, "")
	conf := fs.Float64("confidence", 0.95, "")
	method := fs.String("method", "all", "")
	return func(set map[string]bool) (cellRun, error) {
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
		fromReport, err := useReport(given, *from, []string{"k", "n", "confidence"})
		if err != nil {
			return nil, err
		}
		if fromReport {
			return func(cx *cellCtx) error { return cellIntervalFromReport(cx, methods) }, nil
		}
		if !set["k"] && !set["successes"] {
			return nil, errors.New("-k is required (or --from replay for the report's own numbers)")
		}
		if !set["n"] && !set["trials"] {
			return nil, errors.New("-n is required (or --from replay for the report's own numbers)")
		}
		if !markup.Finite(*conf) {
			return nil, fmt.Errorf("--confidence must be a finite number, got %v", *conf)
		}
		s, err := stats.Summarize(stats.Proportion{K: k, N: n}, *conf, methods...)
		if err != nil {
			return nil, err
		}
		return func(cx *cellCtx) error { intervalTable(cx, s); return nil }, nil
	}
}

// cellIntervalFromReport shows the reference's success rate over the
// report's replay, by the methods given (all when none).
func cellIntervalFromReport(cx *cellCtx, methods []stats.Method) error {
	pp := cx.r.Paper
	if pp == nil {
		noReplay(cx.out, "the interval of your own replay's success rate")
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
	cx.out.Raw(`<p class="sub">From this report: the reference's successes over the replayed conversations.</p>`, "\n")
	intervalTable(cx, s)
	return nil
}

func intervalTable(cx *cellCtx, s stats.RateSummary) {
	h := cx.out
	h.Rawf("<p>%s/%s successes: a rate of %s, standard error %s (%s); %s intervals:</p>\n",
		markup.Int(s.K), markup.Int(s.N), markup.Prob(s.Estimate), strconv.FormatFloat(s.StandardError, 'f', 4, 64), markup.Points(s.StandardError, false), markup.GatePct(s.Confidence))
	h.Raw("<div class=\"scroll\"><table class=\"interval\">\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th><th class=\"num\">width</th></tr></thead>\n<tbody>\n")
	for _, iv := range s.Intervals {
		h.Raw("<tr><td>")
		h.Text(iv.Method, 40)
		h.Raw(`</td><td class="num">`, markup.Prob(iv.Lower), `</td><td class="num">`, markup.Prob(iv.Upper), `</td><td class="num">`, markup.Prob(iv.Width()), "</td></tr>\n")
	}
	h.Raw("</tbody>\n</table></div>\n")
	cx.warnings = append(cx.warnings, s.Warnings...)
}

// pairedAssumption says what a plan's paired figures assume.
func pairedAssumption(p power.PlanResult) string {
	a := p.PairedAssumption
	switch a.Basis {
	case power.StatedDiscordance:
		return fmt.Sprintf("assuming the runs disagree on %s of the conversations, as the replay's did", markup.Pct(a.Discordance))
	case power.StatedGained:
		return fmt.Sprintf("assuming the candidate gains %s of the conversations besides", markup.Pct(a.PGained))
	}
	return "assuming the runs disagree on no conversation but those the change loses (no noise, no gained pairs: pairing's best case)"
}
