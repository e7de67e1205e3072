package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// testJSON is one McNemar test in JSON output.
type testJSON struct {
	Method    string   `json:"method"`
	Statistic *float64 `json:"statistic,omitempty"`
	PValue    float64  `json:"p_value"`
}

// mcnemarJSON is the JSON contract of `tally mcnemar`.
type mcnemarJSON struct {
	Table         [4]int           `json:"table"`
	Confidence    float64          `json:"confidence"`
	Pairs         int              `json:"pairs"`
	Discordant    int              `json:"discordant"`
	ReferenceRate float64          `json:"reference_rate"`
	CandidateRate float64          `json:"candidate_rate"`
	Difference    float64          `json:"difference"`
	Tests         []testJSON       `json:"tests"`
	Intervals     []stats.Interval `json:"intervals"`
	Warnings      []string         `json:"warnings,omitempty"`
}

func newMcNemarJSON(r power.Result) mcnemarJSON {
	out := mcnemarJSON{
		Table:      [4]int{r.Table.A, r.Table.B, r.Table.C, r.Table.D},
		Confidence: r.Confidence, Pairs: r.Pairs, Discordant: r.Discordant,
		ReferenceRate: r.ReferenceRate, CandidateRate: r.CandidateRate, Difference: r.Difference,
		Intervals: r.Intervals, Warnings: r.Warnings,
	}
	for _, t := range r.Tests {
		out.Tests = append(out.Tests, testJSON{Method: t.Method, Statistic: optional(t.Statistic, t.HasStatistic), PValue: t.PValue})
	}
	return out
}

func newMcNemarCmd(opts *options) *cobra.Command {
	var (
		tableStr   string
		confidence float64
	)
	cmd := &cobra.Command{
		Use:   "mcnemar --table A,B,C,D [--confidence 0.95]",
		Short: "Paired outcomes: McNemar tests and paired-difference intervals",
		Long: `mcnemar analyses paired outcomes: each conversation run by the reference and
by the candidate. The table's rows are reference success, reference failure;
its columns candidate success, candidate failure. So B counts conversations
lost (reference succeeded, candidate failed) and C those gained. Only the
B + C discordant pairs carry information about the change.

Tests: exact (conditional binomial), mid-p, asymptotic and asymptotic-cc
(R's mcnemar.test). The mid-p is Fagerland, Lydersen & Laake's (2013,
BMC Med Res Methodol 13:91): with X ~ Bin(B+C, ½) and m = min(B, C),
2·P(X < m) + P(X = m) when B ≠ C, and 1 − ½·P(X = B) when B = C
(0.84375 for 10,3,3,10), where the exact p is 1.
Intervals for the difference candidate − reference:
wald, newcombe (Newcombe 1998 paired method 10) and tango (Tango 1998).`,
		Example: "  tally mcnemar --table 157,9,11,23",
		Args:    cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			t, err := power.ParseTable(tableStr)
			if err != nil {
				return fmt.Errorf("--table: %w", err)
			}
			r, err := power.McNemar(t, confidence)
			if err != nil {
				return fmt.Errorf("--table %s --confidence %v: %w", tableStr, confidence, err)
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newMcNemarJSON(r))
			}
			return writeMcNemarText(cmd, r)
		}),
	}
	cmd.Flags().StringVar(&tableStr, "table", "", "the paired 2×2 table A,B,C,D (B lost, C gained)")
	cmd.Flags().Float64Var(&confidence, "confidence", 0.95, "confidence level of the intervals, strictly between 0 and 1")
	_ = cmd.MarkFlagRequired("table")
	return cmd
}

func writeMcNemarText(cmd *cobra.Command, r power.Result) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%d pairs: reference %s, candidate %s, difference %+.4f (%+.1f points)\n",
		r.Pairs, prob(r.ReferenceRate), prob(r.CandidateRate), r.Difference, 100*r.Difference)
	fmt.Fprintf(w, "discordant pairs: %d (%d lost, %d gained); the %d concordant pairs carry no information about the change\n\n",
		r.Discordant, r.Table.B, r.Table.C, r.Pairs-r.Discordant)
	t := table(w)
	fmt.Fprintln(t, "test\tstatistic\tp")
	for _, x := range r.Tests {
		st := "—"
		if x.HasStatistic {
			st = fmt.Sprintf("%.4f", x.Statistic)
		}
		fmt.Fprintf(t, "%s\t%s\t%.4f\n", x.Method, st, x.PValue)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	t = table(w)
	fmt.Fprintf(t, "%s interval (candidate − reference)\tlower\tupper\n", pct(r.Confidence))
	for _, iv := range r.Intervals {
		fmt.Fprintf(t, "%s\t%+.4f\t%+.4f\n", iv.Method, iv.Lower, iv.Upper)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, r.Warnings)
	}
	return nil
}
