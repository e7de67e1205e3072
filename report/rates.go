package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/noise"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/rule"
)

// ErrorRates is what the report says of its regression rule's error
// rates: the probability that it blocks a change exactly as good as the
// incumbent (false block) and a drop of each of Regression.Drops in one
// class (power), under the noise measured by two runs of one system.
type ErrorRates struct {
	Rule rule.Rule
	// Known is false when the report names no noise measurement (or the
	// rates could not be computed); Why then says why and how to measure.
	Known bool
	Why   string
	// Noise is the A/A measurement (nil without one); First and Second
	// name its files as the configuration gives them.
	Noise         *noise.Measure
	First, Second string
	// Classes are the model's inputs, one per class the rule tests: this
	// report's paired item-compactions by conversation, the incumbent's
	// retention, and the noise's discordance and correlation.
	Classes []rule.Class
	// FalseBlock is the probability of blocking a harmless change;
	// Power[i][j] that of blocking a drop of Drops[j] in Classes[i].
	FalseBlock rule.Characteristics
	Drops      []float64
	// Skipped says which of Regression.Drops got no power, and why.
	Skipped []string
	Power   [][]rule.Characteristics
	// Needed[i][j] is the size Classes[i] needs to catch Drops[j] with
	// power TargetPower while a harmless change is blocked at most
	// MaxFalseBlock of the time (ClassBudget per class): `tally plan
	// fixtures` on this report.
	Needed                                  [][]rule.Need
	TargetPower, MaxFalseBlock, ClassBudget float64
	// Contradictions is what noise alone does to the contradiction row.
	Contradictions rule.Contradictions
	// Sentence states all of it in words, the same in every output.
	Sentence string
}

// errorRates computes the report's ErrorRates. A noise measurement that
// cannot be read is an error (the configuration names it); a model that
// cannot be computed on this report's data makes the rates unknown, with
// the reason.
func (b *builder) errorRates() error {
	cfg, r := b.cfg, b.r
	reg := cfg.Regression
	er := &ErrorRates{Rule: reg.Rule, Drops: reg.Drops, First: cfg.Noise.First, Second: cfg.Noise.Second}
	r.ErrorRates = er
	if cfg.Noise.First == "" {
		er.Why = "the configuration names no noise measurement"
		er.Sentence = "Error rates of this rule: unknown, because " + er.Why + ". To measure them, run the same summariser twice on the fixtures (or judge the same contexts twice), `tally check` each run, look at the two with `tally noise FIRST SECOND`, and name them in report.yaml as noise: {first: FIRST, second: SECOND}."
		return nil
	}
	if filepath.Clean(cfg.Resolve(cfg.Noise.First)) == filepath.Clean(cfg.Resolve(cfg.Noise.Second)) {
		er.Why = "noise.first and noise.second name one file, and a run compared with itself measures no noise"
		er.Sentence = "Error rates of this rule: unknown, because " + er.Why + ". Name two check runs of one system."
		return nil
	}
	m, err := b.readNoise()
	if err != nil {
		return err
	}
	er.Noise = m
	for _, w := range m.Warnings {
		// Naming the pair under noise: says it is two runs of one
		// system; that the runs carry two names needs no note then.
		if strings.HasPrefix(w, "A names its system") {
			continue
		}
		r.Warnings = append(r.Warnings, "noise: "+w)
	}
	if m.A.System != cfg.Incumbent.Name && m.B.System != cfg.Incumbent.Name {
		r.Warnings = append(r.Warnings, fmt.Sprintf("noise: the noise pair's runs are of %q and %q, not of the incumbent %q: the rule's error rates are computed as if the incumbent's noise were theirs",
			m.A.System, m.B.System, cfg.Incumbent.Name))
	}
	byClass := map[fixture.Class]noise.Class{}
	for _, c := range m.Classes {
		byClass[c.Class] = c
	}
	for _, row := range r.Classes {
		if len(row.Clusters) == 0 {
			continue
		}
		nc, ok := byClass[row.Class]
		if !ok || nc.Pairs == 0 {
			er.Why = fmt.Sprintf("the noise measurement has no %s pair", row.Class)
			er.Sentence = "Error rates of this rule: unknown, because " + er.Why + ". Measure the noise on the same fixtures as the report."
			return nil
		}
		sizes := make([]int, len(row.Clusters))
		for i, c := range row.Clusters {
			sizes[i] = c.N
		}
		rho, _, err := rule.EstimateCorrelation(noiseClusters(nc))
		if err != nil {
			return fmt.Errorf("noise: %s: %w", row.Class, err)
		}
		c := row.Incumbent.Counts
		er.Classes = append(er.Classes, rule.Class{Name: string(row.Class), Sizes: sizes,
			Baseline: float64(c.Retained()) / float64(max(c.Items-c.Errors, 1)), Discordance: nc.Discordance(), Correlation: rho})
	}
	if len(er.Classes) == 0 {
		er.Why = "no class has an item-compaction both systems checked"
		er.Sentence = "Error rates of this rule: unknown, because " + er.Why + "."
		return nil
	}
	unknown := func(err error) error {
		er.Why = fmt.Sprintf("the model of noise does not fit this data (%v)", err)
		er.Sentence = "Error rates of this rule: unknown, because " + er.Why + "."
		return nil
	}
	// A class whose retention cannot pay for a drop (its losses would
	// exceed the items it retains) gets no power for it, and the
	// sentence says which; the other classes' figures for that drop
	// stand (a new user's trial: a commitment class at 0% had taken the
	// power of every class, and the verdict's warning, with it). A drop
	// no class can pay for is left out.
	// Drops the same classes cannot pay for are said in one sentence,
	// in increasing order.
	er.Drops = nil
	var groups []string               // the class lists, in first-seen order
	skipped := map[string][]float64{} // the drops of each
	for _, d := range reg.Drops {
		var cannot []string
		for _, c := range er.Classes {
			if !c.CanDrop(d) {
				cannot = append(cannot, fmt.Sprintf("%s (it retains %s at baseline)", c.Name, pct(c.Baseline)))
			}
		}
		if len(cannot) > 0 {
			k := strings.Join(cannot, ", ")
			if _, ok := skipped[k]; !ok {
				groups = append(groups, k)
			}
			skipped[k] = append(skipped[k], d)
		}
		if len(cannot) < len(er.Classes) {
			er.Drops = append(er.Drops, d)
		}
	}
	for _, k := range groups {
		ds := skipped[k]
		slices.Sort(ds)
		words := make([]string, len(ds))
		for i, d := range ds {
			words[i] = strconvNum(100 * d)
		}
		er.Skipped = append(er.Skipped, fmt.Sprintf("no power is given for a drop of %s points in %s", joinAnd(words), k))
	}
	plan, err := rule.Plan(rule.PlanInput{Rule: reg.Rule, Classes: er.Classes, Drops: er.Drops})
	if err != nil {
		return unknown(err)
	}
	er.FalseBlock, er.Power, er.Needed, er.ClassBudget = plan.FalseBlock, plan.Power, plan.Needed, plan.ClassBudget
	er.TargetPower, er.MaxFalseBlock = plan.Input.TargetPower, plan.Input.MaxFalseBlock
	items := 0
	for _, c := range er.Classes {
		items += c.Items()
	}
	if er.Contradictions, err = reg.Rule.NoiseContradictions(m.ContradictionFlipRate, items); err != nil {
		return unknown(err)
	}
	er.Known = true
	er.Sentence = er.sentence()
	return nil
}

// joinAnd joins words as a list: "3", "3 and 10", "3, 10 and 50".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// readNoise measures the noise between the configuration's two runs.
func (b *builder) readNoise() (*noise.Measure, error) {
	paths := [2]string{b.cfg.Resolve(b.cfg.Noise.First), b.cfg.Resolve(b.cfg.Noise.Second)}
	first, err := input.Open(paths[0], b.lim)
	if err != nil {
		return nil, fmt.Errorf("noise (noise.first): %w", err)
	}
	defer first.Close()
	second, err := input.Open(paths[1], b.lim)
	if err != nil {
		return nil, fmt.Errorf("noise (noise.second): %w", err)
	}
	defer second.Close()
	ha, hb := newHashReader(first), newHashReader(second)
	m, err := noise.CompareSize(ha, hb, paths[0], paths[1], b.cfg.Confidence, b.lim.MaxLine)
	if err != nil {
		return nil, fmt.Errorf("noise: %w", err)
	}
	for i, h := range []*hashReader{ha, hb} {
		in, err := h.input(RoleNoise+" ("+[]string{"first", "second"}[i]+")", []string{b.cfg.Noise.First, b.cfg.Noise.Second}[i])
		if err != nil {
			return nil, fmt.Errorf("noise: %w", err)
		}
		b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	}
	return m, nil
}

// pct formats a probability as a percentage with one decimal, or "<0.1%".
func pct(p float64) string {
	switch {
	case p > 0 && p < 0.0005:
		return "<0.1%"
	case p < 1 && p > 0.9995:
		return ">99.9%"
	}
	return fmt.Sprintf("%.1f%%", 100*p)
}

// sentence states the known rates in words.
func (er *ErrorRates) sentence() string {
	var b strings.Builder
	fb := er.FalseBlock
	fmt.Fprintf(&b, "Error rates of this rule (%s): it blocks a harmless change — one exactly as good as the incumbent, differing by noise alone — with probability %s%s",
		er.method(), pct(fb.Block), er.mcse(fb))
	for j, d := range er.Drops {
		fmt.Fprintf(&b, "; %s %s-point drop in one class's retention with probability ", article(100*d), strconvNum(100*d))
		var parts []string
		for i, c := range er.Classes {
			if er.Power[i][j].Given() {
				parts = append(parts, fmt.Sprintf("%s (%s)", pct(er.Power[i][j].Block), c.Name))
			}
		}
		b.WriteString(strings.Join(parts, ", "))
	}
	for _, sk := range er.Skipped {
		b.WriteString("; " + sk)
	}
	b.WriteString(". Given noise measured by ")
	fmt.Fprintf(&b, "%s against %s: ", er.First, er.Second)
	parts := make([]string, len(er.Classes))
	for i, c := range er.Classes {
		parts[i] = fmt.Sprintf("%s %s of %d pairs discordant", c.Name, pct(c.Discordance), er.noisePairs(c.Name))
	}
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString("; within-conversation correlation of losses and gains ")
	for i, c := range er.Classes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.2f", c.Correlation)
	}
	b.WriteString(". ")
	if er.Noise != nil && er.Noise.Agrees() {
		// A deterministic judge on one set of contexts: the rates rest
		// on no measured noise (a new user's trial on a real quarter,
		// whose incumbent had compacted once).
		b.WriteString("The noise pair disagrees on no item-compaction, so these rates assume the summariser and the judge have no noise at all: a measurement only if two compaction runs were each judged afresh; see the notes. ")
	}
	ct := er.Contradictions
	if er.Rule.Kind == rule.Count {
		fmt.Fprintf(&b, "Those rates count the class rows; the contradiction row alone, by noise alone, blocks a harmless change with probability %s (%.1f new contradictions expected), so the rule as a whole blocks one with probability %s.",
			pct(ct.CountBlock), ct.ExpectedNew, pct(1-(1-er.FalseBlock.Block)*(1-ct.CountBlock)))
	} else {
		fmt.Fprintf(&b, "Contradictions are outside those rates: noise alone makes a harmless candidate newly contradict %.1f items on average (at least one with probability %s), and each blocks until a reviewer marks it a judge error.",
			ct.ExpectedNew, pct(ct.AtLeastOne))
	}
	return b.String()
}

func (er *ErrorRates) method() string {
	if er.FalseBlock.Method == rule.MethodExact {
		return "exact, items independent"
	}
	return fmt.Sprintf("simulated, %d fixture sets, seed %d", er.FalseBlock.Replicates, er.FalseBlock.Seed)
}

func (er *ErrorRates) mcse(c rule.Characteristics) string {
	if c.Method != rule.MethodSimulation {
		return ""
	}
	if bound, ok := ExtremeBound(c); ok {
		return fmt.Sprintf(" (in %d simulated fixture sets; %s with 95%% confidence, by the rule of three)", c.Replicates, bound)
	}
	return fmt.Sprintf(" (Monte-Carlo standard error %.1f points)", 100*c.MonteCarloError())
}

// noisePairs is the noise measurement's pairs of the named class.
func (er *ErrorRates) noisePairs(name string) int {
	for _, c := range er.Noise.Classes {
		if string(c.Class) == name {
			return c.Pairs
		}
	}
	return 0
}

// strconvNum formats x with no trailing zeros ("3", "2.5").
func strconvNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// noiseClusters is a noise class's pairs by conversation.
func noiseClusters(c noise.Class) []power.ClusterCounts {
	out := make([]power.ClusterCounts, len(c.Clusters))
	for i, cl := range c.Clusters {
		out[i] = power.ClusterCounts{N: cl.N, Lost: cl.Lost, Gained: cl.Gained}
	}
	return out
}

// RowTest states a class row's test under the report's rule, for the
// row's change cell: "exact McNemar p = 0.134" under the count rule (the
// two-sided exact test on the pairs, context: the count decides), and the
// rule's own p-value with the level it was held to under the others,
// "rule p = 0.067 (one-sided exact McNemar; Holm level 0.0125)". "" for a
// row with no discordant pair under the count rule.
func (r *Report) RowTest(c ClassRow) string {
	ru := rule.Default
	if r.ErrorRates != nil {
		ru = r.ErrorRates.Rule
	}
	if ru.Kind == rule.Count {
		if c.Pairs.Discordant() == 0 {
			return ""
		}
		return "exact McNemar " + format.PIs(c.McNemar.PValue)
	}
	o := c.Rule
	if !o.Tested || math.IsNaN(o.P) {
		return ""
	}
	var test string
	switch {
	case ru.Kind == rule.McNemar && ru.Clustered && o.Conversations == 1:
		// With one conversation no variance between conversations can
		// be estimated: the clustered test is the unclustered asymptotic
		// one (power.Clustered's fallback), and the row says so.
		test = "one-sided McNemar (asymptotic, unclustered: one conversation)"
	case ru.Kind == rule.McNemar && ru.Clustered:
		test = "one-sided clustered McNemar"
	case ru.Kind == rule.McNemar && ru.MidP:
		test = "one-sided mid-p McNemar"
	case ru.Kind == rule.McNemar:
		test = "one-sided exact McNemar"
	case ru.Clustered:
		test = fmt.Sprintf("clustered non-inferiority (%s points)", strconvNum(100*ru.Margin))
	default:
		test = fmt.Sprintf("Tango non-inferiority (%s points)", strconvNum(100*ru.Margin))
	}
	level := "level"
	if ru.Kind == rule.McNemar {
		level = "Holm level"
	}
	out := fmt.Sprintf("%s %s, %s %s", test, format.PIs(o.P), level, strconv.FormatFloat(o.Level, 'g', 3, 64))
	if o.HolmStopped {
		out += " (not reached: Holm stopped at a class with a smaller p)"
	}
	return out
}

// article is "an" before a number said with a vowel sound (8, 11, 18,
// 80…), else "a".
func article(x float64) string {
	n := strconvNum(x)
	if strings.HasPrefix(n, "8") || n == "11" || n == "18" || strings.HasPrefix(n, "11.") || strings.HasPrefix(n, "18.") {
		return "an"
	}
	return "a"
}

// blindSpot is the largest drop of er.Drops that some class's gate
// blocks with probability under one half, with every class's
// probability of blocking it; nil when the rates are unknown or every
// class blocks every drop at least half the time.
func blindSpot(er *ErrorRates) *BlindSpot {
	if er == nil || !er.Known || len(er.Classes) == 0 {
		return nil
	}
	best := -1
	for j, d := range er.Drops {
		for i := range er.Classes {
			if p := er.Power[i][j]; p.Given() && p.Block < 0.5 && (best < 0 || d > er.Drops[best]) {
				best = j
			}
		}
	}
	if best < 0 {
		return nil
	}
	bs := &BlindSpot{Drop: er.Drops[best]}
	for i, c := range er.Classes {
		if p := er.Power[i][best]; p.Given() {
			bs.Classes = append(bs.Classes, c.Name)
			bs.Power = append(bs.Power, p.Block)
		}
	}
	return bs
}

// ExtremeBound words the rule of three's bound on a simulated rate of 0
// or 1 (rule.Characteristics.Extreme): "below 0.15%", "above 99.85%",
// with three significant digits of 3/R, never rounded across it.
func ExtremeBound(c rule.Characteristics) (string, bool) {
	if _, ok := c.Extreme(); !ok {
		return "", false
	}
	x := 300 / float64(c.Replicates) // the bound's distance from 0 or 100, in points
	d := max(0, 2-int(math.Floor(math.Log10(x))))
	scale := math.Pow(10, float64(d))
	if c.Block == 0 {
		return "below " + strconv.FormatFloat(math.Ceil(x*scale)/scale, 'f', -1, 64) + "%", true
	}
	return "above " + strconv.FormatFloat(math.Floor((100-x)*scale)/scale, 'f', -1, 64) + "%", true
}
