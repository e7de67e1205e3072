package main

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/report"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/rule"
	"github.com/tally-eval/tally/stats"
)

// planFixturesFlags are `tally plan fixtures`'s flags.
type planFixturesFlags struct {
	config                       string
	items, baseline, discordance string
	conversations                int
	correlation, flipRate        float64
	ruleName                     string
	alpha, margin                float64
	tolerance, ctol              int
	midP, clustered              bool
	drops                        []float64
	power, falseBlock, width     float64
	confidence                   float64
	replicates                   int
	seed                         uint64
	lim                          limitFlags
}

func newPlanFixturesCmd(opts *options) *cobra.Command {
	var fl planFixturesFlags
	cmd := &cobra.Command{
		Use:   "fixtures (--config report.yaml | --items constraint=N,... --conversations N --baseline P --discordance D) [--rule mcnemar] [--drop 0.03,0.10]",
		Short: "On paper first: what a fixture set and its gate can see, and what they need",
		Long: `plan fixtures sizes a fixture set for its gate. Given the item-compactions of
each class and how they fall into conversations, the incumbent's retention
per class, the noise (how often two runs of one system disagree on an item:
` + "`tally noise`" + ` measures it) and the regression rule, it gives:

  - the false-block rate: how often the rule blocks a change exactly as good
    as the incumbent, differing from it by noise alone;
  - the power: how often it blocks a drop of each --drop in one class;
  - the size each class needs to catch each drop with probability --power
    while a harmless change is blocked at most --false-block of the time
    (each class gets 1 − (1 − budget)^(1/k) of it);
  - with --width, the items each class needs for a retention interval of that
    half-width (Wilson, at --confidence).

The inputs come from a report's configuration (--config: its fixtures and
verdicts give the sizes and baselines, its noise: pair the noise, its
regression: the rule), or from flags. Flags override the configuration.
Classes are given as class=value lists (constraint=80,reference=61), or one
value for every class. The model and its assumptions are README's "Sizing a
fixture set"; figures are exact where items are independent and the test is
not clustered, else simulated (seeded; the Monte-Carlo error is printed).`,
		Example: "  tally plan fixtures --config examples/quarterly/report.yaml\n" +
			"  tally plan fixtures --config examples/quarterly/report.yaml --rule count --tolerance 1\n" +
			"  tally plan fixtures --items constraint=80,reference=60 --conversations 40 --baseline 0.9 --discordance 0.15 --correlation 0.1",
		Args: cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			in, source, err := fl.input(cmd, opts)
			if err != nil {
				return err
			}
			res, err := rule.Plan(in)
			if err != nil {
				return err
			}
			widths, err := fl.widths(in.Classes)
			if err != nil {
				return err
			}
			var ct *rule.Contradictions
			if fl.flipRate >= 0 {
				items := 0
				for _, c := range in.Classes {
					items += c.Items()
				}
				c, err := in.Rule.NoiseContradictions(fl.flipRate, items)
				if err != nil {
					return err
				}
				ct = &c
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newPlanFixturesJSON(res, widths, ct, source))
			}
			return writePlanFixturesText(cmd.OutOrStdout(), res, widths, ct, source)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&fl.config, "config", "", "a report's configuration: sizes, baselines, noise and rule from its fixtures, verdicts, noise and regression")
	f.StringVar(&fl.items, "items", "", "item-compactions per class (constraint=80,commitment=51) when there is no --config")
	f.IntVar(&fl.conversations, "conversations", 0, "conversations (fixtures) the items fall into, spread evenly (with --items)")
	f.StringVar(&fl.baseline, "baseline", "", "the incumbent's retention per class, or one share for all")
	f.StringVar(&fl.discordance, "discordance", "", "the noise: share of item-compactions two runs of one system disagree on, per class or one share for all (tally noise measures it)")
	f.Float64Var(&fl.correlation, "correlation", -1, "within-conversation correlation of losses and gains, in [0,1): the figure report and plan fixtures print by that name, estimated from a noise pair by the method of moments — not tally noise's ICC of discordance (default: the configuration's noise pair's, else 0)")
	f.Float64Var(&fl.flipRate, "flip-rate", -1, "share of item-compactions contradicted in one run of two and not the other (default: the noise pair's)")
	f.StringVar(&fl.ruleName, "rule", "", "mcnemar, noninferiority or count (default: the configuration's, else mcnemar)")
	f.Float64Var(&fl.alpha, "alpha", 0, "one-sided level of mcnemar (family-wise, Holm) and noninferiority (per class); default 0.05")
	f.Float64Var(&fl.margin, "margin", 0, "noninferiority margin, a share (default 0.05)")
	f.IntVar(&fl.tolerance, "tolerance", 0, "count rule: items of a class the candidate may lose net")
	f.IntVar(&fl.ctol, "contradiction-tolerance", 0, "count rule: items the candidate may newly contradict net")
	f.BoolVar(&fl.midP, "mid-p", false, "mcnemar: the mid-p test (needs --clustered=false)")
	f.BoolVar(&fl.clustered, "clustered", true, "mcnemar, noninferiority: the clustered test (conversations are the clusters)")
	f.Float64SliceVar(&fl.drops, "drop", nil, "drops in one class's retention to give the power for (default: the configuration's, else 0.03,0.10)")
	f.Float64Var(&fl.power, "power", 0.8, "target power for the sizes needed")
	f.Float64Var(&fl.falseBlock, "false-block", 0.05, "the most a harmless change may be blocked, for the sizes needed (default: the rule's alpha for mcnemar, else 0.05)")
	f.Float64Var(&fl.width, "width", 0, "also give the items each class needs for a retention interval of this half-width (Wilson)")
	f.Float64Var(&fl.confidence, "confidence", 0.95, "confidence of the --width interval")
	f.IntVar(&fl.replicates, "replicates", rule.DefaultReplicates, "fixture sets simulated where the figures are not exact")
	f.Uint64Var(&fl.seed, "seed", rule.DefaultSeed, "seed of the simulation")
	fl.lim.register(cmd)
	cmd.MarkFlagsMutuallyExclusive("config", "items")
	return cmd
}

// maxPlanReplicates bounds --replicates: a million fixture sets give a
// Monte-Carlo standard error of 0.0005 at most.
const maxPlanReplicates = 1_000_000

// planSource says where the inputs came from, for the output.
type planSource struct {
	Config        string   `json:"config,omitempty"`
	Noise         []string `json:"noise,omitempty"`
	FlipRateKnown bool     `json:"-"`
	// Notes say what the flags' figures became: a class with fewer
	// items than --conversations spread one item to a conversation.
	Notes []string `json:"notes,omitempty"`
}

// input assembles the plan's input from the configuration and flags.
func (fl *planFixturesFlags) input(cmd *cobra.Command, opts *options) (rule.PlanInput, planSource, error) {
	var (
		in  rule.PlanInput
		src planSource
	)
	changed := cmd.Flags().Changed
	in.Rule = rule.Default
	in.Drops = []float64{0.03, 0.10}
	var classes []rule.Class
	if fl.config != "" {
		r, cfg, _, err := buildReport(fl.config, "", fl.lim.Limits, nil)
		if err != nil {
			return in, src, err
		}
		src.Config = fl.config
		in.Rule, in.Drops = cfg.Regression.Rule, cfg.Regression.Drops
		er := r.ErrorRates
		if er != nil && er.Noise != nil {
			src.Noise = []string{er.First, er.Second}
			if fl.flipRate < 0 {
				fl.flipRate = er.Noise.ContradictionFlipRate
			}
		}
		if er != nil && er.Known {
			classes = append(classes, er.Classes...)
		} else {
			// The report could not compute its rates (no noise pair, or
			// one lacking a class): each class takes what the noise
			// pair has of it, and flags give the rest.
			measured := map[fixture.Class]rule.Class{}
			if er != nil && er.Noise != nil {
				for _, nc := range er.Noise.Classes {
					if nc.Pairs == 0 {
						continue
					}
					cs := make([]power.ClusterCounts, len(nc.Clusters))
					for i, cl := range nc.Clusters {
						cs[i] = power.ClusterCounts{N: cl.N, Lost: cl.Lost, Gained: cl.Gained}
					}
					rho, _, err := rule.EstimateCorrelation(cs)
					if err != nil {
						return in, src, err
					}
					measured[nc.Class] = rule.Class{Discordance: nc.Discordance(), Correlation: rho}
				}
			}
			for _, row := range r.Classes {
				if len(row.Clusters) == 0 {
					continue
				}
				c := rule.Class{Name: string(row.Class), Discordance: math.NaN()}
				if m, ok := measured[row.Class]; ok {
					c.Discordance, c.Correlation = m.Discordance, m.Correlation
				}
				for _, cl := range row.Clusters {
					c.Sizes = append(c.Sizes, cl.N)
				}
				n := row.Incumbent.Counts
				c.Baseline = float64(n.Retained()) / float64(max(n.Items-n.Errors, 1))
				classes = append(classes, c)
			}
		}
	} else {
		switch {
		case fl.items == "":
			return in, src, usagef("plan fixtures: give --config, or --items with --conversations")
		case fl.conversations <= 0:
			return in, src, usagef("--conversations: want the number of conversations (fixtures) the items fall into, at least 1, got %d", fl.conversations)
		}
		items, err := classValues("--items", fl.items, false)
		if err != nil {
			return in, src, err
		}
		for _, cl := range fixture.Classes {
			n, ok := items[cl]
			if !ok {
				continue
			}
			sizes, err := rule.EvenSizes(int(n), fl.conversations)
			if err != nil {
				return in, src, usagef("--items %s: %v", cl, err)
			}
			if len(sizes) < fl.conversations {
				src.Notes = append(src.Notes, fmt.Sprintf("%s: %d items fall into %d of the %d conversations, one each (a conversation is counted in a class only with an item of it)",
					cl, int(n), len(sizes), fl.conversations))
			}
			classes = append(classes, rule.Class{Name: string(cl), Sizes: sizes, Baseline: math.NaN(), Discordance: math.NaN()})
		}
	}
	set := func(flag, value string, dst func(*rule.Class) *float64) error {
		if value == "" {
			return nil
		}
		vals, err := classValues(flag, value, true)
		if err != nil {
			return err
		}
		for i := range classes {
			v, ok := vals[fixture.Class(classes[i].Name)]
			if !ok {
				v, ok = vals[""]
			}
			if ok {
				*dst(&classes[i]) = v
			}
		}
		return nil
	}
	if err := set("--baseline", fl.baseline, func(c *rule.Class) *float64 { return &c.Baseline }); err != nil {
		return in, src, err
	}
	if err := set("--discordance", fl.discordance, func(c *rule.Class) *float64 { return &c.Discordance }); err != nil {
		return in, src, err
	}
	if changed("correlation") && !(fl.correlation >= 0 && fl.correlation < 1) {
		return in, src, usagef("--correlation: %v is not in [0, 1)", fl.correlation)
	}
	for i := range classes {
		if changed("correlation") {
			classes[i].Correlation = fl.correlation
		}
		switch {
		case math.IsNaN(classes[i].Baseline):
			return in, src, usagef("plan fixtures: no baseline retention for %s: give --baseline", classes[i].Name)
		case math.IsNaN(classes[i].Discordance):
			return in, src, usagef("plan fixtures: no noise for %s: give --discordance (tally noise measures it), or name a noise pair in the configuration", classes[i].Name)
		}
	}
	if changed("discordance") {
		src.Noise = nil
	}
	in.Classes = classes
	if changed("rule") {
		k, err := rule.ParseKind(fl.ruleName)
		if err != nil {
			return in, src, usageError{err}
		}
		in.Rule = rule.Rule{Kind: k}
		if k != rule.Count {
			in.Rule.Clustered = fl.clustered
		}
	}
	r := &in.Rule
	if changed("alpha") {
		r.Alpha = fl.alpha
	}
	if changed("margin") {
		if r.Kind != rule.NonInferiority {
			return in, src, usagef("--margin belongs to --rule noninferiority; the rule here is %s", r.Kind)
		}
		r.Margin = fl.margin
	}
	if changed("tolerance") {
		r.Tolerance = fl.tolerance
	}
	if changed("contradiction-tolerance") {
		r.ContradictionTolerance = fl.ctol
	}
	if changed("mid-p") {
		r.MidP = fl.midP
	}
	if changed("clustered") && r.Kind != rule.Count {
		r.Clustered = fl.clustered
	}
	if r.Kind != rule.NonInferiority && r.Kind != rule.Count {
		r.Margin = 0
	}
	if err := r.Validate(); err != nil {
		return in, src, usageError{err}
	}
	*r = r.Normalized()
	if changed("drop") {
		for i, d := range fl.drops {
			if !(d > 0 && d < 1) {
				comma := ""
				if d == 0 && i+1 < len(fl.drops) {
					// "--drop 0,05": a decimal comma, split as a list.
					comma = "; --drop is a list split at commas, so write decimals with a point (0.05, not 0,05)"
				}
				return in, src, usagef("--drop: %v is not a drop strictly between 0 and 1 (0.03 is 3 points)%s", d, comma)
			}
		}
		in.Drops = fl.drops
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"power", fl.power}, {"false-block", fl.falseBlock}} {
		if !(f.v > 0 && f.v < 1) {
			return in, src, usagef("--%s: %v is not a probability strictly between 0 and 1", f.name, f.v)
		}
	}
	if fl.width != 0 && !(fl.width > 0 && fl.width <= 0.5) {
		return in, src, usagef("--width: %v is not a half-width in (0, 0.5]", fl.width)
	}
	if fl.replicates < 100 || fl.replicates > maxPlanReplicates {
		return in, src, usagef("--replicates: %d is not from 100 to %d", fl.replicates, maxPlanReplicates)
	}
	if !changed("false-block") && in.Rule.Kind == rule.McNemar {
		// The family-wise level of McNemar is its false-block budget.
		fl.falseBlock = in.Rule.Alpha
	}
	in.TargetPower, in.MaxFalseBlock = fl.power, fl.falseBlock
	in.Sim = rule.SimOptions{Replicates: fl.replicates, Seed: fl.seed}
	_ = opts
	return in, src, nil
}

// classValues parses "class=value,…" (or, with one allowed, a single
// value for every class, keyed ""). Values are shares in [0,1] when
// share is true, else whole counts.
func classValues(flag, s string, share bool) (map[fixture.Class]float64, error) {
	out := map[fixture.Class]float64{}
	parse := func(v string) (float64, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		switch {
		case err != nil || math.IsNaN(x):
			return 0, numberError(flag, v, usagef("%s: %q is not a number", flag, v))
		case share && (x < 0 || x > 1):
			return 0, usagef("%s: %v is not a share in [0, 1]", flag, x)
		case !share && (x < 1 || x != math.Trunc(x) || x > rule.MaxPlanItems):
			return 0, usagef("%s: %v is not a whole number of items from 1 to %d", flag, x, rule.MaxPlanItems)
		}
		return x, nil
	}
	if share && !strings.Contains(s, "=") {
		x, err := parse(s)
		if err != nil {
			return nil, err
		}
		out[""] = x
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(part, "=")
		cl := fixture.Class(strings.TrimSpace(name))
		if !ok && decimalCommaTail.MatchString(part) {
			// "commitment=0,5": the list split a decimal comma.
			return nil, usagef("%s: %q is not class=value: a decimal comma? The list is split at commas, so write decimals with a point (0.5, not 0,5)", flag, part)
		}
		if !ok || !cl.Valid() {
			return nil, usagef("%s: %q is not class=value with a class of %s", flag, part, joinClasses())
		}
		if _, dup := out[cl]; dup {
			return nil, usagef("%s: %s is given twice", flag, cl)
		}
		x, err := parse(v)
		if err != nil {
			return nil, err
		}
		out[cl] = x
	}
	return out, nil
}

// decimalCommaTail is what a class=value list leaves of a value written
// with a decimal comma after splitting at it: digits alone.
var decimalCommaTail = regexp.MustCompile(`^\s*[0-9]+\s*$`)

func joinClasses() string {
	names := make([]string, len(fixture.Classes))
	for i, c := range fixture.Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// planWidth is the items one class needs for a retention interval of
// the given half-width.
type planWidth struct {
	HalfWidth     float64 `json:"half_width"`
	Confidence    float64 `json:"confidence"`
	Class         string  `json:"class"`
	Items         int     `json:"items"`
	Conversations int     `json:"conversations"`
}

// widths computes the --width sizes (nil without --width).
func (fl *planFixturesFlags) widths(classes []rule.Class) ([]planWidth, error) {
	if fl.width == 0 {
		return nil, nil
	}
	var out []planWidth
	for _, c := range classes {
		n, err := stats.SampleSizeWilson(c.Baseline, fl.width, fl.confidence)
		if err != nil {
			return nil, usagef("--width: %v", err)
		}
		per := float64(c.Items()) / float64(len(c.Sizes))
		out = append(out, planWidth{HalfWidth: fl.width, Confidence: fl.confidence, Class: c.Name, Items: n, Conversations: int(math.Ceil(float64(n) / per))})
	}
	return out, nil
}

func writePlanFixturesText(w io.Writer, res rule.PlanResult, widths []planWidth, ct *rule.Contradictions, src planSource) error {
	in := res.Input
	if src.Config != "" {
		fmt.Fprintf(w, "fixture set of %s\n", printable(src.Config))
	}
	t := table(w)
	fmt.Fprintf(t, "class\titem-compactions\tconversations\tper conversation\tbaseline\tdiscordance\tcorrelation\n")
	for _, c := range in.Classes {
		fmt.Fprintf(t, "%s\t%d\t%d\t%.1f\t%s\t%s\t%.2f\n", c.Name, c.Items(), len(c.Sizes), float64(c.Items())/float64(len(c.Sizes)), pctShare(c.Baseline), pctShare(c.Discordance), c.Correlation)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	writeWarnings(w, src.Notes)
	switch {
	case len(src.Noise) == 2:
		fmt.Fprintf(w, "noise measured by %s against %s\n", printable(src.Noise[0]), printable(src.Noise[1]))
	default:
		fmt.Fprintln(w, "noise as stated by --discordance and --correlation")
	}
	fmt.Fprintf(w, "rule: %s\n\n", in.Rule.Text())
	fb := res.FalseBlock
	fmt.Fprintf(w, "a harmless change (as good as the incumbent, differing by noise alone) is blocked with probability %s%s\n", pctShare(fb.Block), mcText(fb))
	if ct != nil {
		if in.Rule.Kind == rule.Count {
			fmt.Fprintf(w, "  with the contradiction row (flip rate %s): %s — the row alone blocks it with probability %s\n",
				pctShare(ct.FlipRate), pctShare(1-(1-fb.Block)*(1-ct.CountBlock)), pctShare(ct.CountBlock))
		} else {
			fmt.Fprintf(w, "  besides, noise alone makes it newly contradict %.1f items on average (at least one with probability %s): each blocks until a reviewer marks it a judge error\n",
				ct.ExpectedNew, pctShare(ct.AtLeastOne))
		}
	}
	fmt.Fprintf(w, "\nprobability that the change is blocked when one class drops:\n")
	if err := classByDrop(w, in, func(i, j int) string {
		if !res.Power[i][j].Given() {
			return "— (retains " + pctShare(in.Classes[i].Baseline) + ")"
		}
		return pctShare(res.Power[i][j].Block)
	}); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsize each class needs to catch a drop with power %.4g, a harmless change blocked at most %s of the time (%s per class):\n",
		in.TargetPower, pctShare(in.MaxFalseBlock), pctShare(res.ClassBudget))
	need := func(i, j int) string {
		n := res.Needed[i][j]
		switch {
		case n.Limit == "within margin":
			return "never: within the margin, which the rule lets pass"
		case n.Limit == rule.LimitBaseline:
			return "— (the class cannot lose that much)"
		case !n.Reachable:
			return fmt.Sprintf("not reachable (%s, at %d items)", n.Limit, n.Items)
		}
		return fmt.Sprintf("%d items in %s", n.Items, plural(n.Conversations, "conversation"))
	}
	if err := classByDrop(w, in, need); err != nil {
		return err
	}
	if len(widths) > 0 {
		fmt.Fprintf(w, "\nfor a %s retention interval of ±%s points (Wilson) at the baseline:", pctShare(widths[0].Confidence), strconv.FormatFloat(100*widths[0].HalfWidth, 'f', -1, 64))
		for i, x := range widths {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s %d items (%d conversations)", sep, x.Class, x.Items, x.Conversations)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// mcText says how a probability was computed.
func mcText(c rule.Characteristics) string {
	if c.Method == rule.MethodExact {
		return " (exact; items independent)"
	}
	if bound, ok := report.ExtremeBound(c); ok {
		return fmt.Sprintf(" (simulated: %d fixture sets, seed %d; %s with 95%% confidence, by the rule of three)", c.Replicates, c.Seed, bound)
	}
	return fmt.Sprintf(" (simulated: %d fixture sets, seed %d, Monte-Carlo standard error %.1f points)", c.Replicates, c.Seed, 100*c.MonteCarloError())
}

// planFixturesJSON is the JSON contract of `tally plan fixtures`.
type planFixturesJSON struct {
	Config string   `json:"config,omitempty"`
	Noise  []string `json:"noise,omitempty"`
	// Notes are the text's "note:" lines.
	Notes []string `json:"notes,omitempty"`
	Rule  struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"rule"`
	Classes []planClassJSON `json:"classes"`
	Drops   []float64       `json:"drops"`
	// FalseBlock is the probability of blocking a harmless change, with
	// its Monte-Carlo standard error (0 when exact).
	FalseBlock    float64 `json:"false_block"`
	StandardError float64 `json:"standard_error"`
	Method        string  `json:"method"`
	Replicates    int     `json:"replicates,omitempty"`
	Seed          uint64  `json:"seed,omitempty"`
	TargetPower   float64 `json:"target_power"`
	MaxFalseBlock float64 `json:"max_false_block"`
	ClassBudget   float64 `json:"class_budget"`
	// ContradictionsExpected and ContradictionsAtLeastOne are what noise
	// alone does to the contradiction row; CountContradictionBlock the
	// count rule's contradiction row's false-block rate.
	ContradictionsExpected   *float64    `json:"contradictions_expected,omitempty"`
	ContradictionsAtLeastOne *float64    `json:"contradictions_at_least_one,omitempty"`
	CountContradictionBlock  *float64    `json:"count_contradiction_block,omitempty"`
	Width                    []planWidth `json:"width,omitempty"`
}

// planClassJSON is one class: its inputs, its power per drop and the
// size it needs per drop.
type planClassJSON struct {
	Class         string         `json:"class"`
	Items         int            `json:"items"`
	Conversations int            `json:"conversations"`
	Baseline      float64        `json:"baseline"`
	Discordance   float64        `json:"discordance"`
	Correlation   float64        `json:"correlation"`
	Block         float64        `json:"false_block"`
	Power         []*float64     `json:"power"`
	Needed        []planNeedJSON `json:"needed"`
}

// planNeedJSON is rule.Need.
type planNeedJSON struct {
	Reachable     bool    `json:"reachable"`
	Items         int     `json:"items"`
	Conversations int     `json:"conversations"`
	Power         float64 `json:"power"`
	FalseBlock    float64 `json:"false_block"`
	Limit         string  `json:"limit,omitempty"`
}

func newPlanFixturesJSON(res rule.PlanResult, widths []planWidth, ct *rule.Contradictions, src planSource) planFixturesJSON {
	in := res.Input
	out := planFixturesJSON{Config: src.Config, Noise: src.Noise, Notes: src.Notes, Drops: in.Drops, FalseBlock: res.FalseBlock.Block,
		StandardError: res.FalseBlock.StandardError, Method: res.FalseBlock.Method, Replicates: res.FalseBlock.Replicates,
		Seed: res.FalseBlock.Seed, TargetPower: in.TargetPower, MaxFalseBlock: in.MaxFalseBlock, ClassBudget: res.ClassBudget, Width: widths}
	out.Rule.Kind, out.Rule.Text = string(in.Rule.Kind), in.Rule.Text()
	if ct != nil {
		out.ContradictionsExpected, out.ContradictionsAtLeastOne = ptr(ct.ExpectedNew), ptr(ct.AtLeastOne)
		if in.Rule.Kind == rule.Count {
			out.CountContradictionBlock = ptr(ct.CountBlock)
		}
	}
	for i, c := range in.Classes {
		pc := planClassJSON{Class: c.Name, Items: c.Items(), Conversations: len(c.Sizes), Baseline: c.Baseline,
			Discordance: c.Discordance, Correlation: c.Correlation, Block: res.FalseBlock.Classes[i].Block}
		for j := range in.Drops {
			var p *float64 // null: the class cannot lose that much
			if res.Power[i][j].Given() {
				p = ptr(res.Power[i][j].Block)
			}
			pc.Power = append(pc.Power, p)
			n := res.Needed[i][j]
			pc.Needed = append(pc.Needed, planNeedJSON{Reachable: n.Reachable, Items: n.Items, Conversations: n.Conversations,
				Power: n.Power, FalseBlock: n.FalseBlock, Limit: n.Limit})
		}
		out.Classes = append(out.Classes, pc)
	}
	return out
}

// classByDrop writes a table of one cell per class and drop.
func classByDrop(w io.Writer, in rule.PlanInput, cell func(class, drop int) string) error {
	t := table(w)
	fmt.Fprintf(t, "class")
	for _, d := range in.Drops {
		fmt.Fprintf(t, "\t%s points", strconv.FormatFloat(100*d, 'f', -1, 64))
	}
	fmt.Fprintln(t)
	for i, c := range in.Classes {
		fmt.Fprint(t, c.Name)
		for j := range in.Drops {
			fmt.Fprintf(t, "\t%s", cell(i, j))
		}
		fmt.Fprintln(t)
	}
	return t.Flush()
}
