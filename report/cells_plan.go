package report

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// nbSetupPlan makes a plan cell; power.Plan runs at parse time.
func nbSetupPlan(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	rate := fs.Float64("rate", 0, "")
	conv := fs.Int("conversations", 0, "")
	cat := fs.Int("catastrophic", 0, "")
	alpha := fs.Float64("alpha", 0.05, "")
	pw := fs.Float64("power", 0.8, "")
	return func(set map[string]bool) (nbCellRun, error) {
		for _, f := range []string{"rate", "conversations"} {
			if !set[f] {
				return nil, fmt.Errorf("--%s is required", f)
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

// nbSetupInterval makes an interval cell; stats.Summarize runs at parse
// time.
func nbSetupInterval(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	var k, n int
	fs.IntVar(&k, "k", 0, "")
	fs.IntVar(&k, "successes", 0, "")
	fs.IntVar(&n, "n", 0, "")
	fs.IntVar(&n, "trials", 0, "")
	conf := fs.Float64("confidence", 0.95, "")
	method := fs.String("method", "all", "")
	return func(set map[string]bool) (nbCellRun, error) {
		if !set["k"] && !set["successes"] {
			return nil, errors.New("-k is required")
		}
		if !set["n"] && !set["trials"] {
			return nil, errors.New("-n is required")
		}
		if !hFinite(*conf) {
			return nil, fmt.Errorf("--confidence must be a finite number, got %v", *conf)
		}
		var methods []stats.Method
		if *method != "all" {
			m, err := stats.ParseMethod(*method)
			if err != nil {
				return nil, fmt.Errorf("--method: %w", err)
			}
			methods = []stats.Method{m}
		}
		s, err := stats.Summarize(stats.Proportion{K: k, N: n}, *conf, methods...)
		if err != nil {
			return nil, err
		}
		return func(cx *nbCellCtx) error { hInterval(cx, s); return nil }, nil
	}
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
