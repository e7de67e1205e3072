package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// planJSON is the JSON contract of `tally plan`.
type planJSON struct {
	Rate          float64        `json:"rate"`
	Conversations int            `json:"conversations"`
	Alpha         float64        `json:"alpha"`
	Power         float64        `json:"power"`
	StandardError float64        `json:"standard_error"`
	Interval      stats.Interval `json:"interval"`
	// PairedDesign is what every paired figure below assumes, and how
	// it is computed.
	PairedDesign pairedDesignJSON `json:"paired_design"`
	// MinimumDetectableEffect is the smallest drop each design detects;
	// the paired one under paired_design's assumption.
	MinimumDetectableEffect       mdeJSON           `json:"minimum_detectable_effect"`
	HalveUncertaintyConversations int               `json:"halve_uncertainty_conversations"`
	Catastrophic                  *catastrophicJSON `json:"catastrophic,omitempty"`
	Warnings                      []string          `json:"warnings,omitempty"`
}

// pairedDesignJSON is the paired design's assumption: "assumption" is
// "none" (the runs disagree on no conversation but those the change
// loses: no noise, no gained pairs), "p_gained" (p_gained stated, p_lost
// = p_gained + drop) or "discordance" (p_lost + p_gained stated); the
// stated value is p_gained or discordance, present only for its
// assumption. "method" is the paired power method ("connor").
type pairedDesignJSON struct {
	Method      string   `json:"method"`
	Assumption  string   `json:"assumption"`
	PGained     *float64 `json:"p_gained,omitempty"`
	Discordance *float64 `json:"discordance,omitempty"`
}

// mdeJSON holds one minimum detectable effect per design; null when the
// design cannot detect any drop at this size.
type mdeJSON struct {
	Independent *float64 `json:"independent"`
	Paired      *float64 `json:"paired"`
}

// catastrophicJSON is the check for K conversations failing outright.
// power and resolvable are the aggregate's: two independent runs of N;
// paired is a paired run of the same N under paired_design's assumption.
type catastrophicJSON struct {
	Count               int             `json:"count"`
	Drop                float64         `json:"drop"`
	InStandardErrors    *float64        `json:"in_standard_errors"`
	Power               float64         `json:"power"`
	Resolvable          bool            `json:"resolvable"`
	Paired              pairedCheckJSON `json:"paired"`
	ConversationsNeeded needJSON        `json:"conversations_needed"`
}

// pairedCheckJSON is a paired run of N facing the drop: the discordant
// probabilities assumed (p_lost − p_gained = drop; discordance is their
// sum), its power and whether that reaches the target, and
// max_discordance, the largest discordance (the lost included) at which
// N pairs still reach the target — null when they fall short even with
// no noise; max_discordance_at_rate_limit is true when that is the most
// the success rate allows rather than a limit of the test.
type pairedCheckJSON struct {
	PLost                 float64  `json:"p_lost"`
	PGained               float64  `json:"p_gained"`
	Discordance           float64  `json:"discordance"`
	Power                 float64  `json:"power"`
	Resolvable            bool     `json:"resolvable"`
	MaxDiscordance        *float64 `json:"max_discordance"`
	MaxDiscordanceAtLimit bool     `json:"max_discordance_at_rate_limit"`
}

// needJSON is the conversations each design needs: per run for two
// independent runs, pairs for the paired design (under its assumption).
type needJSON struct {
	// Independent and Paired are null when the count is more than
	// MoreThan (power.MaxSampleSize), which is given only then.
	Independent *int   `json:"independent"`
	Paired      *int   `json:"paired"`
	MoreThan    *int64 `json:"more_than,omitempty"`
}

// newNeedJSON is c as JSON.
func newNeedJSON(c power.DesignCounts) needJSON {
	var out needJSON
	if !c.IndependentBeyond {
		out.Independent = &c.Independent
	}
	if !c.PairedBeyond {
		out.Paired = &c.Paired
	}
	if c.IndependentBeyond || c.PairedBeyond {
		n := power.MaxSampleSize
		out.MoreThan = &n
	}
	return out
}

// needText is a count of conversations or pairs needed, "more than …"
// beyond power.MaxSampleSize.
func needText(n int, beyond bool) string {
	if beyond {
		return fmt.Sprintf("more than %d", power.MaxSampleSize)
	}
	return strconv.Itoa(n)
}

func newPlanJSON(p power.PlanResult) planJSON {
	a := p.PairedAssumption
	out := planJSON{
		Rate: p.Rate, Conversations: p.Conversations, Alpha: p.Alpha, Power: p.Power,
		StandardError: p.StandardError, Interval: p.Interval,
		PairedDesign: pairedDesignJSON{
			Method: string(p.PairedMethod), Assumption: string(a.Basis),
			PGained:     optional(a.PGained, a.Basis == power.StatedGained),
			Discordance: optional(a.Discordance, a.Basis == power.StatedDiscordance),
		},
		MinimumDetectableEffect: mdeJSON{
			Independent: optional(p.MinimumDetectable.Independent.Effect, p.MinimumDetectable.Independent.Detectable),
			Paired:      optional(p.MinimumDetectable.Paired.Effect, p.MinimumDetectable.Paired.Detectable),
		},
		HalveUncertaintyConversations: p.HalveUncertaintyConversations,
		Warnings:                      p.Warnings,
	}
	if c := p.Catastrophic; c != nil {
		pc := c.Paired
		out.Catastrophic = &catastrophicJSON{
			Count: c.Count, Drop: c.Drop, InStandardErrors: optional(c.InStandardErrors, c.InStandardErrorsDefined),
			Power: c.Power, Resolvable: c.Resolvable,
			Paired: pairedCheckJSON{
				PLost: pc.PLost, PGained: pc.PGained, Discordance: pc.PLost + pc.PGained,
				Power: pc.Power, Resolvable: pc.Resolvable,
				MaxDiscordance:        optional(pc.MaxDiscordance, pc.MaxDiscordanceDefined),
				MaxDiscordanceAtLimit: pc.AtRateLimit,
			},
			ConversationsNeeded: newNeedJSON(c.ConversationsNeeded),
		}
	}
	return out
}

func newPlanCmd(opts *options) *cobra.Command {
	var (
		in                   power.PlanInput
		pGained, discordance float64
	)
	cmd := &cobra.Command{
		Use:   "plan --rate P --conversations N [--catastrophic K] [--p-gained G | --discordance D] [--alpha 0.05] [--power 0.8]",
		Short: "On paper first: what an aggregate over N conversations can resolve",
		Long: `plan works the source text's argument before any run: the standard error and
interval of a success rate over N conversations, the conversations needed to
halve that uncertainty, the smallest drop each design (two independent runs,
or one paired run) can detect, and — for K conversations failing outright —
whether the aggregate of two independent runs can resolve them at all, what
a paired run of the same N can, and what each design would need.

A paired run replays each conversation with both systems; only the
conversations they disagree on carry information, so its figures depend on
how many that is besides the K lost, which the aggregate cannot tell. The
paired figures (Connor 1987's approximation to McNemar's test, as in
` + "`tally power paired --method connor`" + `) take one assumption:

  (none)           the runs disagree on no conversation but those the change
                   loses: no noise, no gained pairs. Pairing's best case; the
                   output says so.
  --p-gained G     the share of conversations the candidate wins where the
                   reference failed, from noise or real gains; p_lost is then
                   G + K/N (the --p-gained and --p-lost of tally power paired).
  --discordance D  the share of conversations the two runs disagree on, lost
                   and gained, noise included (p_lost + p_gained); K/N of it is
                   the drop, the rest splits evenly between lost and gained.

Measure the noise before trusting a paired figure: replay the same system
twice (A/A) and count the conversations the two replays disagree on, a share
d; for a change that only loses conversations, --p-gained d/2 or
--discordance d + K/N. ` + "`tally noise`" + ` measures the same A/A discordance on item
verdicts.`,
		Example: "  tally plan --rate 0.83 --conversations 200 --catastrophic 3\n" +
			"  tally plan --rate 0.80 --conversations 300 --catastrophic 9 --p-gained 0.04",
		Args: cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			switch {
			case cmd.Flags().Changed("p-gained"):
				in.Paired = power.PairedAssumption{Basis: power.StatedGained, PGained: pGained}
			case cmd.Flags().Changed("discordance"):
				in.Paired = power.PairedAssumption{Basis: power.StatedDiscordance, Discordance: discordance}
			}
			p, err := power.PlanFor(in)
			if err != nil {
				return err
			}
			if c := p.Catastrophic; c != nil {
				d := power.Paired{PLost: c.Paired.PLost, PGained: c.Paired.PGained, Alpha: p.Alpha, Method: p.PairedMethod}
				p.Warnings = append(p.Warnings, fewDiscordant(d, p.Conversations, p.Alpha)...)
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newPlanJSON(p))
			}
			writePlanText(cmd.OutOrStdout(), p)
			return nil
		}),
	}
	f := cmd.Flags()
	f.Float64Var(&in.Rate, "rate", 0, "the expected success rate, in [0,1]")
	f.IntVar(&in.Conversations, "conversations", 0, "conversations in the aggregate")
	f.IntVar(&in.Catastrophic, "catastrophic", 0, "conversations failing outright under the change (lost where the reference succeeded)")
	f.Float64Var(&pGained, "p-gained", 0, "paired design: share of conversations the candidate wins where the reference failed (noise or gains); p_lost = G + K/N (default: none, the output says so)")
	f.Float64Var(&discordance, "discordance", 0, "paired design: share of conversations the two runs disagree on, lost and gained, noise included (default: only the K lost)")
	f.Float64Var(&in.Alpha, "alpha", 0.05, "two-sided significance level")
	f.Float64Var(&in.Power, "power", 0.8, "target power")
	_ = cmd.MarkFlagRequired("rate")
	_ = cmd.MarkFlagRequired("conversations")
	cmd.MarkFlagsMutuallyExclusive("p-gained", "discordance")
	cmd.AddCommand(newPlanFixturesCmd(opts))
	return cmd
}

func writePlanText(w io.Writer, p power.PlanResult) {
	fmt.Fprintf(w, "%s at a rate of %.6g:\n", plural(p.Conversations, "conversation"), p.Rate)
	fmt.Fprintf(w, "  standard error sqrt(%.6g × %.6g / %d) = %s, that is %s\n",
		p.Rate, 1-p.Rate, p.Conversations, fixedSig(p.StandardError, 4), points(p.StandardError))
	// The bounds get the decimals their distance needs: at a billion
	// conversations 0.829977–0.830023, not 0.830–0.830.
	d := len(fixedSig(p.Interval.Width(), 3)) - 2
	fmt.Fprintf(w, "  %s interval %s–%s (%s): about %s wide\n",
		pct(1-p.Alpha), formatFixed(p.Interval.Lower, d), formatFixed(p.Interval.Upper, d), p.Interval.Method, points(p.Interval.Width()))
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
	a := p.PairedAssumption
	switch a.Basis {
	case power.StatedGained:
		fmt.Fprintf(w, "  the paired figures (%s) assume p_gained %.4g: besides the conversations the change loses, the runs disagree on %s of them each way (noise, or conversations the change fixes)\n",
			p.PairedMethod, a.PGained, pctShare(a.PGained))
	case power.StatedDiscordance:
		fmt.Fprintf(w, "  the paired figures (%s) assume discordance %.4g: the runs disagree on %s of the conversations, those the change loses included, the rest split evenly between lost and gained\n",
			p.PairedMethod, a.Discordance, pctShare(a.Discordance))
	default:
		fmt.Fprintf(w, "  the paired figures (%s) assume the runs disagree on no conversation but those the change loses: no noise, no gained pairs, pairing's best case (--p-gained or --discordance state another)\n",
			p.PairedMethod)
	}
	if c := p.Catastrophic; c != nil {
		writeCatastrophicText(w, p, c)
	}
	writeWarnings(w, p.Warnings)
}

// writeCatastrophicText is plan's paragraph on K conversations failing
// outright: the aggregate of two independent runs, then a paired run of
// the same N under the stated assumption.
func writeCatastrophicText(w io.Writer, p power.PlanResult, c *power.Catastrophic) {
	n := p.Conversations
	fmt.Fprintf(w, "\n%s failing outright:\n", plural(c.Count, "conversation"))
	se := "an undefined number of"
	if c.InStandardErrorsDefined {
		se = fixedSig(c.InStandardErrors, 2)
	}
	fmt.Fprintf(w, "  a drop of %d/%d = %s, which is %s standard errors (one standard error is %s)\n",
		c.Count, n, points(c.Drop), se, points(p.StandardError))
	if c.Resolvable {
		fmt.Fprintf(w, "  can be resolved by the aggregate: two independent runs of %d detect it with power %.2f\n", n, c.Power)
	} else {
		fmt.Fprintf(w, "  cannot be resolved by the aggregate of two independent runs: runs of %d detect it with power %.2f (target %.2g);\n",
			n, c.Power, p.Power)
		fmt.Fprintln(w, "  no care in running them changes that — pair the runs, or count items instead of conversations")
	}
	pc := c.Paired
	assume := fmt.Sprintf("assuming the runs disagree on no conversation but the %d lost: no noise, no gained pairs", c.Count)
	if p.PairedAssumption.Basis != power.NoNoise {
		assume = fmt.Sprintf("assuming p_lost %.4g and p_gained %.4g: the runs disagree on %s of the conversations, the %d lost included",
			pc.PLost, pc.PGained, pctShare(pc.PLost+pc.PGained), c.Count)
	}
	fmt.Fprintf(w, "  a paired run of the same %d detects it with power %.2f (%s), %s;\n", n, pc.Power, p.PairedMethod, assume)
	conv := func(d float64) string {
		return fmt.Sprintf("%s of the conversations (%.1f of %d: the %d lost and %.1f more)", pctShare(d), d*float64(n), n, c.Count, d*float64(n)-float64(c.Count))
	}
	switch {
	case pc.Resolvable && pc.AtRateLimit:
		fmt.Fprintf(w, "  it does at every discordance a rate of %.6g allows, up to %s\n", p.Rate, conv(pc.MaxDiscordance))
	case pc.Resolvable && pc.MaxDiscordanceDefined:
		fmt.Fprintf(w, "  it no longer does once the runs disagree on more than %s; replay the same system twice to measure that before relying on it\n", conv(pc.MaxDiscordance))
	case pc.Resolvable:
		fmt.Fprintln(w, "  it reaches the target")
	case pc.MaxDiscordanceDefined:
		fmt.Fprintf(w, "  so it cannot resolve it; it would only if the runs disagreed on at most %s\n", conv(pc.MaxDiscordance))
	case p.Power >= 0.5:
		fmt.Fprintf(w, "  so it cannot resolve it, not even with no noise: %s are too few for a drop of %s\n", plural(n, "pair"), points(c.Drop))
	default:
		fmt.Fprintf(w, "  so it falls short of the target %.2g\n", p.Power)
	}
	need := c.ConversationsNeeded
	fmt.Fprintf(w, "  to detect it: %s conversations per run comparing two independent runs, or %s pairs in a paired design under that assumption\n",
		needText(need.Independent, need.IndependentBeyond), needText(need.Paired, need.PairedBeyond))
}
