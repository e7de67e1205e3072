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
	// NonInferiority is the --margin test; absent without --margin.
	NonInferiority *niJSON  `json:"noninferiority,omitempty"`
	Warnings       []string `json:"warnings,omitempty"`
}

// niJSON is a non-inferiority test in JSON output: H0 difference ≤
// −margin, one-sided.
type niJSON struct {
	Method string  `json:"method"`
	Margin float64 `json:"margin"`
	Z      float64 `json:"z"`
	PValue float64 `json:"p_value"`
}

func newNIJSON(t *power.NITest) *niJSON {
	if t == nil {
		return nil
	}
	return &niJSON{Method: t.Method, Margin: t.Margin, Z: t.Z, PValue: t.PValue}
}

// mcnemarModel is what `tally mcnemar` computed, for the renderers.
type mcnemarModel struct {
	power.Result
	NI *power.NITest // nil without --margin
}

// newMcNemarModelJSON is newMcNemarJSON with the --margin test.
func newMcNemarModelJSON(m mcnemarModel) mcnemarJSON {
	out := newMcNemarJSON(m.Result)
	out.NonInferiority = newNIJSON(m.NI)
	return out
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
		margin     float64
	)
	cmd := &cobra.Command{
		Use:   "mcnemar --table A,B,C,D [--confidence 0.95] [--margin D]",
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
wald; newcombe (Newcombe 1998's square-and-add, method 10, whose correlation
of the two runs has a continuity correction); newcombe-uncorrected (the same
with the plain correlation, "method 8" in the ratesci package's numbering);
and tango (Tango 1998's score interval).

--margin D adds the non-inferiority test of H0: candidate − reference ≤ −D
against H1: it is above −D (the candidate is at most D worse), one-sided,
by Tango's score statistic (Tango 1998, Stat Med 17:891): Z and
p = 1 − Φ(Z). D is a difference of rates in [0, 1), e.g. 0.05 for
5 points; at 0 it is McNemar's signed statistic.`,
		Example: "  tally mcnemar --table 157,9,11,23\n  tally mcnemar --table 157,9,11,23 --margin 0.05",
		Args:    cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			t, err := power.ParseTable(tableStr)
			if err != nil {
				return fmt.Errorf("--table: %w", err)
			}
			r, err := power.McNemarWith(t, confidence, power.AllIntervalMethods)
			if err != nil {
				return fmt.Errorf("--table %s --confidence %v: %w", tableStr, confidence, err)
			}
			m := mcnemarModel{Result: r}
			if cmd.Flags().Changed("margin") {
				ni, err := power.NonInferiority(t, margin)
				if err != nil {
					return fmt.Errorf("--margin %v: %w", margin, err)
				}
				m.NI = &ni
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newMcNemarModelJSON(m))
			}
			return writeMcNemarModel(cmd, m)
		}),
	}
	cmd.Flags().StringVar(&tableStr, "table", "", "the paired 2×2 table A,B,C,D (B lost, C gained)")
	cmd.Flags().Float64Var(&confidence, "confidence", 0.95, "confidence level of the intervals, strictly between 0 and 1")
	cmd.Flags().Float64Var(&margin, "margin", 0, "non-inferiority margin D in [0, 1): test H0 candidate − reference ≤ −D (Tango's score test, one-sided)")
	_ = cmd.MarkFlagRequired("table")
	return cmd
}

// writeMcNemarText writes a McNemar result as text (also replay's).
func writeMcNemarText(cmd *cobra.Command, r power.Result) error {
	return writeMcNemarModel(cmd, mcnemarModel{Result: r})
}

// writeMcNemarModel writes `tally mcnemar`'s text output.
func writeMcNemarModel(cmd *cobra.Command, m mcnemarModel) error {
	r := m.Result
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
	if ni := m.NI; ni != nil {
		fmt.Fprintf(w, "\nnon-inferiority at margin %.4g (%s score test, H0: candidate − reference ≤ %.4g): Z = %.4f, one-sided p = %.4f\n",
			ni.Margin, ni.Method, -ni.Margin, ni.Z, ni.PValue)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, r.Warnings)
	}
	return nil
}
