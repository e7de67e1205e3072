package main

import (
	"fmt"
	"io"
	"slices"

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
	NonInferiority *niJSON `json:"noninferiority,omitempty"`
	// Clustered holds the --clusters tests; absent without --clusters.
	Clustered *clusteredJSON `json:"clustered,omitempty"`
	Warnings  []string       `json:"warnings,omitempty"`
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

// clusteredJSON is the --clusters part of `tally mcnemar`'s JSON.
type clusteredJSON struct {
	File     string              `json:"file"`
	Clusters int                 `json:"clusters"`
	Pairs    int                 `json:"pairs"`
	Lost     int                 `json:"lost"`
	Gained   int                 `json:"gained"`
	Tests    []clusteredTestJSON `json:"tests"`
	// NonInferiority is the clustered --margin test.
	NonInferiority *niJSON `json:"noninferiority,omitempty"`
}

// clusteredTestJSON is one clustered test: χ² and its two-sided p; Z
// signed, positive when more items were lost than gained, and the
// one-sided p of "the candidate loses more than it gains".
type clusteredTestJSON struct {
	Method    string  `json:"method"`
	ChiSquare float64 `json:"chi_square"`
	PValue    float64 `json:"p_value"`
	Z         float64 `json:"z"`
	OneSidedP float64 `json:"one_sided_p"`
}

// mcnemarModel is what `tally mcnemar` computed, for the renderers.
type mcnemarModel struct {
	power.Result
	NI           *power.NITest          // nil without --margin
	Clustered    *power.ClusteredResult // nil without --clusters
	ClustersFile string
}

// newMcNemarModelJSON is newMcNemarJSON with the --margin test.
func newMcNemarModelJSON(m mcnemarModel) mcnemarJSON {
	out := newMcNemarJSON(m.Result)
	out.NonInferiority = newNIJSON(m.NI)
	if c := m.Clustered; c != nil {
		cj := &clusteredJSON{File: m.ClustersFile, Clusters: c.Clusters, Pairs: c.Pairs, Lost: c.Lost, Gained: c.Gained,
			NonInferiority: newNIJSON(c.NI)}
		for _, t := range c.Tests {
			cj.Tests = append(cj.Tests, clusteredTestJSON{Method: string(t.Method), ChiSquare: t.ChiSquare, PValue: t.P, Z: t.Z, OneSidedP: t.OneSidedP})
		}
		out.Clustered = cj
		out.Warnings = append(out.Warnings, c.Warnings...)
	}
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
		clusters   string
		lim        limitFlags
	)
	cmd := &cobra.Command{
		Use:   "mcnemar --table A,B,C,D [--confidence 0.95] [--margin D] [--clusters FILE]",
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
5 points; at 0 it is McNemar's signed statistic.

--clusters FILE adds the clustered tests, for items that share conversations
(a summary that drops one item of a conversation tends to drop others, so
the pairs are not independent). FILE is CSV with the header
conversation_id,pairs,lost,gained and one line per conversation: its item
pairs and how many of them the candidate lost and gained. The totals must
be the table's: pairs A+B+C+D, lost B, gained C. Tests, against χ²(1):
obuchowski (Obuchowski 1998), durkalski (Durkalski et al. 2003) and yang
(Yang, Sun & Hardin 2010's modified Obuchowski), as the clust.bin.pair R
package computes them, with Z signed (positive when more were lost) and the
one-sided p of "the candidate loses more than it gains". With --margin, the
clustered non-inferiority Wald test (Durkalski et al. 2003) as well.`,
		Example: "  tally mcnemar --table 157,9,11,23\n  tally mcnemar --table 157,9,11,23 --margin 0.05\n  tally mcnemar --table 39,7,1,4 --clusters glands.csv --margin 0.1",
		Args:    cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			// The table, the confidence and the margin are flags: a value
			// they cannot take is a usage error (flagWork); a clusters
			// file's problems stay bad input.
			t, err := power.ParseTable(tableStr)
			if err != nil {
				return usagef("--table: %w", err)
			}
			r, err := power.McNemarWith(t, confidence, power.AllIntervalMethods)
			if err != nil {
				return usagef("--table %s --confidence %v: %w", tableStr, confidence, err)
			}
			m := mcnemarModel{Result: r}
			if cmd.Flags().Changed("margin") {
				ni, err := power.NonInferiority(t, margin)
				if err != nil {
					return usagef("--margin %v: %w", margin, err)
				}
				m.NI = &ni
			}
			if cmd.Flags().Changed("clusters") {
				c, err := clustered(t, clusters, lim, margin, cmd.Flags().Changed("margin"))
				if err != nil {
					return err
				}
				m.Clustered, m.ClustersFile = &c, clusters
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
	cmd.Flags().StringVar(&clusters, "clusters", "", "CSV conversation_id,pairs,lost,gained (header required): add the clustered tests")
	lim.register(cmd)
	_ = cmd.MarkFlagRequired("table")
	return cmd
}

// clustered reads the --clusters file, checks that it adds up to the
// table, and runs the clustered tests.
func clustered(t power.Table, path string, lim limitFlags, margin float64, withNI bool) (power.ClusteredResult, error) {
	cs, err := power.LoadClusters(path, lim.Limits)
	if err != nil {
		return power.ClusteredResult{}, fmt.Errorf("--clusters: %w", err)
	}
	c, err := power.Clustered(cs, margin, withNI)
	if err != nil {
		return power.ClusteredResult{}, fmt.Errorf("--clusters %s: %w", path, err)
	}
	if c.Pairs != t.Pairs() || c.Lost != t.B || c.Gained != t.C {
		return power.ClusteredResult{}, fmt.Errorf("--clusters %s: its %d conversations add up to %d pairs, %d lost, %d gained, but --table %s has %d pairs, %d lost (B), %d gained (C)",
			path, c.Clusters, c.Pairs, c.Lost, c.Gained, t, t.Pairs(), t.B, t.C)
	}
	return c, nil
}

// writeMcNemarText writes a McNemar result as text (also replay's).
func writeMcNemarText(cmd *cobra.Command, r power.Result) error {
	return writeMcNemarModel(cmd, mcnemarModel{Result: r})
}

// writeMcNemarModel writes `tally mcnemar`'s text output.
func writeMcNemarModel(cmd *cobra.Command, m mcnemarModel) error {
	r := m.Result
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s: reference %s, candidate %s, difference %+.4f (%+.1f points)\n",
		plural(r.Pairs, "pair"), prob(r.ReferenceRate), prob(r.CandidateRate), r.Difference, 100*r.Difference)
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
	warnings := r.Warnings
	if c := m.Clustered; c != nil {
		if err := writeClustered(w, m.ClustersFile, c); err != nil {
			return err
		}
		warnings = append(slices.Clip(warnings), c.Warnings...)
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, warnings)
	}
	return nil
}

// writeClustered writes the --clusters tests as text.
func writeClustered(w io.Writer, file string, c *power.ClusteredResult) error {
	fmt.Fprintf(w, "\nclustered by conversation (%s: %s, %s, %d lost, %d gained)\n",
		file, plural(c.Clusters, "conversation"), plural(c.Pairs, "pair"), c.Lost, c.Gained)
	t := table(w)
	fmt.Fprintln(t, "clustered test\tχ²\tp\tZ\tone-sided p (lost > gained)")
	for _, x := range c.Tests {
		fmt.Fprintf(t, "%s\t%.4f\t%.4f\t%+.4f\t%.4f\n", x.Method, x.ChiSquare, x.P, x.Z, x.OneSidedP)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if ni := c.NI; ni != nil {
		fmt.Fprintf(w, "clustered non-inferiority at margin %.4g (%s wald test, H0: candidate − reference ≤ %.4g): Z = %.4f, one-sided p = %.4f\n",
			ni.Margin, ni.Method, -ni.Margin, ni.Z, ni.PValue)
	}
	return nil
}
