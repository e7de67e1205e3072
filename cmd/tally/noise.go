package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/noise"
	"github.com/tally-eval/tally/stats"
)

// The JSON contract of `tally noise` (README.md, "Measuring the noise:
// tally noise"). Probabilities are fractions; a figure that is undefined
// (no pairs, an ICC with nothing to correlate) is null, with the reason
// beside it where there is one.
type (
	// aaJSON is the whole output.
	aaJSON struct {
		A          aaRunJSON      `json:"a"`
		B          aaRunJSON      `json:"b"`
		Confidence float64        `json:"confidence"`
		Classes    []aaClassJSON  `json:"classes"`
		All        aaClassJSON    `json:"all"`
		Unpaired   aaUnpairedJSON `json:"unpaired"`
		Agreement  aaKappaJSON    `json:"agreement"`
		// ContradictionFlips and ContradictionFlipRate are over every
		// pair; ICC and DesignEffect pool every class (all.icc).
		ContradictionFlips    int      `json:"contradiction_flips"`
		ContradictionFlipRate float64  `json:"contradiction_flip_rate"`
		Warnings              []string `json:"warnings"`
		Sentence              string   `json:"sentence"`
	}
	aaRunJSON struct {
		File    string `json:"file"`
		System  string `json:"system"`
		Records int    `json:"records"`
	}
	aaUnpairedJSON struct {
		OnlyA int `json:"only_a"`
		OnlyB int `json:"only_b"`
	}
	// aaClassJSON is one class, or every class pooled ("class":"all").
	aaClassJSON struct {
		Class               string         `json:"class"`
		Pairs               int            `json:"pairs"`
		BothRetained        int            `json:"both_retained"`
		Lost                int            `json:"lost"`
		Gained              int            `json:"gained"`
		NeitherRetained     int            `json:"neither_retained"`
		Discordant          int            `json:"discordant"`
		Discordance         *float64       `json:"discordance"`
		DiscordanceInterval aaIntervalJSON `json:"discordance_interval"`
		ContradictionFlips  int            `json:"contradiction_flips"`
		Conversations       int            `json:"conversations"`
		Errors              int            `json:"errors"`
		ICC                 aaICCJSON      `json:"icc"`
	}
	aaIntervalJSON struct {
		Method string   `json:"method"`
		Lower  *float64 `json:"lower"`
		Upper  *float64 `json:"upper"`
	}
	// aaICCJSON is the within-conversation correlation of discordance.
	aaICCJSON struct {
		Outcome      string   `json:"outcome"` // always "discordant"
		Clusters     int      `json:"clusters"`
		Items        int      `json:"items"`
		Rho          *float64 `json:"rho"`
		DesignEffect *float64 `json:"design_effect"`
		Undefined    string   `json:"undefined,omitempty"`
	}
	aaKappaJSON struct {
		Labels            []string       `json:"labels"`
		Table             [][]int        `json:"table"`
		Pairs             int            `json:"pairs"`
		Observed          float64        `json:"observed"`
		Expected          float64        `json:"expected"`
		Kappa             *float64       `json:"kappa"`
		StandardError     *float64       `json:"standard_error"`
		NullStandardError *float64       `json:"null_standard_error"`
		Z                 *float64       `json:"z"`
		PValue            *float64       `json:"p_value"`
		Interval          aaIntervalJSON `json:"interval"`
	}
)

func newAAJSON(m *noise.Measure) aaJSON {
	out := aaJSON{
		A: aaRunJSON(m.A), B: aaRunJSON(m.B), Confidence: m.Confidence,
		Classes: []aaClassJSON{}, All: newAAClassJSON(m.All, "all"),
		Unpaired:           aaUnpairedJSON{OnlyA: m.Unpaired.OnlyA, OnlyB: m.Unpaired.OnlyB},
		ContradictionFlips: m.ContradictionFlips, ContradictionFlipRate: m.ContradictionFlipRate,
		Warnings: nonNilStrings(m.Warnings), Sentence: aaSentence(m),
	}
	for _, c := range m.Classes {
		out.Classes = append(out.Classes, newAAClassJSON(c, string(c.Class)))
	}
	k := m.Agreement
	out.Agreement = aaKappaJSON{
		Labels: m.Labels, Table: m.Table, Pairs: k.N, Observed: k.Observed, Expected: k.Expected,
		Kappa: num(k.Kappa), StandardError: num(k.StandardError), NullStandardError: num(k.NullStandardError),
		Z: num(k.Z), PValue: num(k.P), Interval: newAAInterval(k.Interval),
	}
	if k.StandardError == 0 { // no interval, as the report says
		out.Agreement.Interval.Lower, out.Agreement.Interval.Upper = nil, nil
	}
	return out
}

func newAAClassJSON(c noise.Class, name string) aaClassJSON {
	return aaClassJSON{
		Class: name, Pairs: c.Pairs, BothRetained: c.BothRetained, Lost: c.Lost, Gained: c.Gained,
		NeitherRetained: c.NeitherRetained, Discordant: c.Discordant(), Discordance: num(c.Discordance()),
		DiscordanceInterval: newAAInterval(c.DiscordanceInterval), ContradictionFlips: c.ContradictionFlips,
		Conversations: c.Conversations, Errors: c.Errors,
		ICC: aaICCJSON{Outcome: "discordant", Clusters: c.ICC.Clusters, Items: c.ICC.N,
			Rho: num(c.ICC.Rho), DesignEffect: num(c.ICC.DesignEffect), Undefined: c.ICC.Undefined},
	}
}

func newAAInterval(iv stats.Interval) aaIntervalJSON {
	return aaIntervalJSON{Method: iv.Method, Lower: num(iv.Lower), Upper: num(iv.Upper)}
}

// num is x, or nil (JSON null) when x is NaN or infinite.
func num(x float64) *float64 { return optional(x, true) }

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func newNoiseCmd(opts *options) *cobra.Command {
	var (
		confidence float64
		lim        limitFlags
	)
	cmd := &cobra.Command{
		Use:   "noise A.jsonl B.jsonl [--confidence 0.95]",
		Short: "The A/A floor: how much two check runs of one system disagree by chance",
		Long: `noise compares two check runs of the same system — the same summariser run
twice (at its production temperature), or the same compacted contexts judged
twice — and measures how much they disagree when nothing but chance differs:
the A/A floor. A candidate no better and no worse than the incumbent
disagrees with it about this much, so every error rate of a regression rule
(how often it blocks a harmless change, how likely it catches a drop) is
computed from these figures.

A.jsonl and B.jsonl are verdict files as tally check -o writes them, each of
one system. Records are paired by item-compaction (conversation_id,
compaction, item_id). Per class: the pairs; lost (A retained the item —
verbatim or supported — and B did not), gained (the other way round) and
their share of the pairs, the discordance, with its Wilson interval;
contradiction flips (contradicted in one run only); conversations; and the
within-conversation correlation of discordance: the intraclass correlation
(one-way ANOVA estimator) of the per-item-compaction outcome "discordant",
each conversation a cluster, with the design effect it gives (a negative
estimate counts as no clustering). Then the verdict-level agreement: the 4×4
table over verbatim, supported, absent and contradicted, and Cohen's κ with
its Fleiss–Cohen–Everitt interval.

Nothing is left out in silence: an item-compaction in one file only is
counted as unpaired, and one with an error verdict in either run (an unknown
outcome) is counted apart and left out of every figure. Bad input — a line
the record reader rejects, two systems in one file, two records for one
item-compaction in one file, a class or item that differs between the
files, an empty file, files with nothing to pair — is one line per problem,
naming file, line, column and field, and exit 1.`,
		Example: "  tally noise run1.jsonl run2.jsonl\n  tally noise run1.jsonl run2.jsonl --format json",
		Args:    cobra.ExactArgs(2),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if err := stats.ValidateConfidence(confidence); err != nil {
				return usagef("--confidence %v: %w", confidence, err)
			}
			m, err := measureNoise(args[0], args[1], confidence, lim.Limits)
			if err != nil {
				return err
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newAAJSON(m))
			}
			return writeNoiseText(cmd.OutOrStdout(), m)
		}),
	}
	cmd.Flags().Float64Var(&confidence, "confidence", 0.95, "confidence level of the intervals, strictly between 0 and 1")
	lim.register(cmd)
	return cmd
}

// measureNoise opens the two verdict files and compares them.
func measureNoise(pathA, pathB string, confidence float64, lim input.Limits) (*noise.Measure, error) {
	fa, err := input.Open(pathA, lim)
	if err != nil {
		return nil, err
	}
	defer fa.Close()
	fb, err := input.Open(pathB, lim)
	if err != nil {
		return nil, err
	}
	defer fb.Close()
	return noise.CompareSize(fa, fb, pathA, pathB, confidence, lim.MaxLine)
}

func writeNoiseText(w io.Writer, m *noise.Measure) error {
	fmt.Fprintf(w, "A: %s, system %s, %s\n", printable(m.A.File), printable(m.A.System), plural(m.A.Records, "record"))
	fmt.Fprintf(w, "B: %s, system %s, %s\n", printable(m.B.File), printable(m.B.System), plural(m.B.Records, "record"))
	fmt.Fprintf(w, "%s in both: %s with a verdict in both runs, %d with an error verdict in either (left out); unpaired: %d only in A, %d only in B\n\n",
		plural(m.All.Pairs+m.All.Errors, "item-compaction"), plural(m.All.Pairs, "pair"), m.All.Errors, m.Unpaired.OnlyA, m.Unpaired.OnlyB)

	t := table(w)
	fmt.Fprintf(t, "class\tpairs\tboth retained\tlost\tgained\tneither\tdiscordance\t%s wilson\tcontradiction flips\tconversations\terrors\tICC\tdesign effect\n", pct(m.Confidence))
	rows := append(append([]noise.Class{}, m.Classes...), m.All)
	for i, c := range rows {
		name := string(c.Class)
		if i == len(rows)-1 {
			name = "all"
		}
		fmt.Fprintf(t, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", name, c.Pairs, c.BothRetained, c.Lost, c.Gained, c.NeitherRetained,
			percent1(c.Discordance()), intervalPercent(c.DiscordanceInterval), c.ContradictionFlips, c.Conversations, c.Errors,
			fixedOrDash(c.ICC.Rho, 3), fixedOrDash(c.ICC.DesignEffect, 2))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "discordance: (lost + gained) / pairs, the share of items the two runs disagree on (retained or not)")
	fmt.Fprintln(w, `ICC: the within-conversation correlation of the outcome "discordant", each conversation a cluster (one-way ANOVA)`)
	fmt.Fprintln(w, "design effect: how many times that correlation inflates the variance of a discordance (a negative ICC counts as none)")
	for i, c := range rows {
		if c.ICC.Undefined != "" && c.Pairs > 0 {
			name := string(c.Class)
			if i == len(rows)-1 {
				name = "all"
			}
			fmt.Fprintf(w, "%s: no ICC: %s\n", name, c.ICC.Undefined)
		}
	}

	k := m.Agreement
	fmt.Fprintf(w, "\nverdict agreement over the %s (rows A, columns B; error verdicts left out):\n", plural(k.N, "pair"))
	t = table(w)
	fmt.Fprintf(t, "A \\ B\t%s\n", strings.Join(m.Labels, "\t"))
	for i, row := range m.Table {
		cells := make([]string, len(row))
		for j, x := range row {
			cells[j] = fmt.Sprint(x)
		}
		fmt.Fprintf(t, "%s\t%s\n", m.Labels[i], strings.Join(cells, "\t"))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	switch {
	case math.IsNaN(k.Kappa):
		fmt.Fprintf(w, "Cohen's κ: undefined (both runs gave every pair the same verdict); observed agreement %s\n", prob(k.Observed))
	case k.StandardError == 0:
		// A zero-width interval reads as certainty; the report says none.
		fmt.Fprintf(w, "Cohen's κ %.3f (no interval: its standard error is 0); observed agreement %s, by chance %s\n",
			k.Kappa, prob(k.Observed), prob(k.Expected))
	default:
		fmt.Fprintf(w, "Cohen's κ %.3f, %s interval %s to %s (Fleiss–Cohen–Everitt); observed agreement %s, by chance %s\n",
			k.Kappa, pct(m.Confidence), fixedOrDash(k.Interval.Lower, 3), fixedOrDash(k.Interval.Upper, 3), prob(k.Observed), prob(k.Expected))
	}
	fmt.Fprintf(w, "contradiction flips: %d of %s (%s) contradicted in one run and not the other\n",
		m.ContradictionFlips, plural(m.All.Pairs, "pair"), percent1(m.ContradictionFlipRate))
	if len(m.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, m.Warnings)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, aaSentence(m))
	return nil
}

// aaSentence is the closing sentence: what the numbers are for.
func aaSentence(m *noise.Measure) string {
	var parts []string
	for _, c := range m.Classes {
		if c.Pairs > 0 {
			parts = append(parts, fmt.Sprintf("%s of %s items", percent1(c.Discordance()), c.Class))
		}
	}
	list := parts[0]
	if n := len(parts); n > 1 {
		list = strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	s := fmt.Sprintf("a candidate no better and no worse than the incumbent disagrees with it on about %s by noise alone; the gate's error rates are computed from these.", list)
	if m.A.System != m.B.System {
		// Two names may be two systems: then this is not noise.
		return "If A and B are two runs of one system, " + s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// percent1 is a fraction as a percentage with one decimal, "—" when
// undefined.
func percent1(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// intervalPercent is "15.8–34.2%", or "—" when undefined.
func intervalPercent(iv stats.Interval) string {
	if math.IsNaN(iv.Lower) || math.IsNaN(iv.Upper) {
		return "—"
	}
	return fmt.Sprintf("%.1f–%.1f%%", 100*iv.Lower, 100*iv.Upper)
}

// fixedOrDash is x with d decimals, or "—" when undefined.
func fixedOrDash(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return formatFixed(x, d)
}
