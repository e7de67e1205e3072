package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// planJSON is the JSON contract of `tally plan`.
type planJSON struct {
	Rate                          float64           `json:"rate"`
	Conversations                 int               `json:"conversations"`
	Alpha                         float64           `json:"alpha"`
	Power                         float64           `json:"power"`
	StandardError                 float64           `json:"standard_error"`
	Interval                      stats.Interval    `json:"interval"`
	MinimumDetectableEffect       mdeJSON           `json:"minimum_detectable_effect"`
	HalveUncertaintyConversations int               `json:"halve_uncertainty_conversations"`
	Catastrophic                  *catastrophicJSON `json:"catastrophic,omitempty"`
	Warnings                      []string          `json:"warnings,omitempty"`
}

// mdeJSON holds one minimum detectable effect per design; null when the
// design cannot detect any drop at this size.
type mdeJSON struct {
	Independent *float64 `json:"independent"`
	Paired      *float64 `json:"paired"`
}

type catastrophicJSON struct {
	Count               int      `json:"count"`
	Drop                float64  `json:"drop"`
	InStandardErrors    *float64 `json:"in_standard_errors"`
	Power               float64  `json:"power"`
	Resolvable          bool     `json:"resolvable"`
	ConversationsNeeded needJSON `json:"conversations_needed"`
}

type needJSON struct {
	Independent int `json:"independent"`
	Paired      int `json:"paired"`
}

func newPlanJSON(p power.PlanResult) planJSON {
	out := planJSON{
		Rate: p.Rate, Conversations: p.Conversations, Alpha: p.Alpha, Power: p.Power,
		StandardError: p.StandardError, Interval: p.Interval,
		MinimumDetectableEffect: mdeJSON{
			Independent: optional(p.MinimumDetectable.Independent.Effect, p.MinimumDetectable.Independent.Detectable),
			Paired:      optional(p.MinimumDetectable.Paired.Effect, p.MinimumDetectable.Paired.Detectable),
		},
		HalveUncertaintyConversations: p.HalveUncertaintyConversations,
		Warnings:                      p.Warnings,
	}
	if c := p.Catastrophic; c != nil {
		out.Catastrophic = &catastrophicJSON{
			Count: c.Count, Drop: c.Drop, InStandardErrors: optional(c.InStandardErrors, c.InStandardErrorsDefined),
			Power: c.Power, Resolvable: c.Resolvable,
			ConversationsNeeded: needJSON{Independent: c.ConversationsNeeded.Independent, Paired: c.ConversationsNeeded.Paired},
		}
	}
	return out
}

func newPlanCmd(opts *options) *cobra.Command {
	var (
		rate                 float64
		conversations, catas int
		alpha, pow           float64
	)
	cmd := &cobra.Command{
		Use:   "plan --rate P --conversations N [--catastrophic K] [--alpha 0.05] [--power 0.8]",
		Short: "On paper first: what an aggregate over N conversations can resolve",
		Long: `plan works the source text's argument before any run: the standard error and
interval of a success rate over N conversations, the conversations needed to
halve that uncertainty, the smallest drop each design (two independent runs,
or one paired run) can detect, and — for K conversations failing outright —
whether the aggregate can resolve them at all, and what each design would
need to.`,
		Example: "  tally plan --rate 0.83 --conversations 200 --catastrophic 3",
		Args:    cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			p, err := power.Plan(rate, conversations, catas, alpha, pow)
			if err != nil {
				return err
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newPlanJSON(p))
			}
			writePlanText(cmd.OutOrStdout(), p)
			return nil
		}),
	}
	f := cmd.Flags()
	f.Float64Var(&rate, "rate", 0, "the expected success rate, in [0,1]")
	f.IntVar(&conversations, "conversations", 0, "conversations in the aggregate")
	f.IntVar(&catas, "catastrophic", 0, "conversations failing outright under the change (lost, none gained)")
	f.Float64Var(&alpha, "alpha", 0.05, "two-sided significance level")
	f.Float64Var(&pow, "power", 0.8, "target power")
	_ = cmd.MarkFlagRequired("rate")
	_ = cmd.MarkFlagRequired("conversations")
	return cmd
}

func writePlanText(w io.Writer, p power.PlanResult) {
	fmt.Fprintf(w, "%d conversations at a rate of %.4g:\n", p.Conversations, p.Rate)
	fmt.Fprintf(w, "  standard error sqrt(%.4g × %.4g / %d) = %.4f, that is %s\n",
		p.Rate, 1-p.Rate, p.Conversations, p.StandardError, points(p.StandardError))
	fmt.Fprintf(w, "  %s interval %.3f–%.3f (%s): about %s wide\n",
		pct(1-p.Alpha), p.Interval.Lower, p.Interval.Upper, p.Interval.Method, points(p.Interval.Width()))
	fmt.Fprintf(w, "  halving that uncertainty takes %d conversations: four times as many, because N sits under a square root\n",
		p.HalveUncertaintyConversations)
	mde := func(m power.MDE) string {
		if !m.Detectable {
			return "no drop at all"
		}
		return points(m.Effect)
	}
	fmt.Fprintf(w, "  the smallest drop detectable (two-sided α %.4g, power %.4g): %s comparing two independent runs, %s with a paired run\n",
		p.Alpha, p.Power, mde(p.MinimumDetectable.Independent), mde(p.MinimumDetectable.Paired))
	if c := p.Catastrophic; c != nil {
		fmt.Fprintf(w, "\n%d conversations failing outright (lost, none gained):\n", c.Count)
		se := "an undefined number of"
		if c.InStandardErrorsDefined {
			se = fmt.Sprintf("%.2f", c.InStandardErrors)
		}
		fmt.Fprintf(w, "  a drop of %d/%d = %s, which is %s standard errors (one standard error is %s)\n",
			c.Count, p.Conversations, points(c.Drop), se, points(p.StandardError))
		if c.Resolvable {
			fmt.Fprintf(w, "  can be resolved by the aggregate: two independent runs of %d detect it with power %.2f\n", p.Conversations, c.Power)
		} else {
			fmt.Fprintf(w, "  cannot be resolved by the aggregate: two independent runs of %d detect it with power %.2f (target %.2g);\n",
				p.Conversations, c.Power, p.Power)
			fmt.Fprintln(w, "  no care in running the eval changes that — count items instead of conversations")
		}
		fmt.Fprintf(w, "  to detect it: %d conversations per run comparing two independent runs, or %d conversations in a paired design\n",
			c.ConversationsNeeded.Independent, c.ConversationsNeeded.Paired)
	}
	writeWarnings(w, p.Warnings)
}
