package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/stats"
)

// intervalJSON is the JSON contract of `tally interval`.
type intervalJSON struct {
	Successes     int              `json:"successes"`
	Trials        int              `json:"trials"`
	Estimate      float64          `json:"estimate"`
	StandardError float64          `json:"standard_error"`
	Confidence    float64          `json:"confidence"`
	Intervals     []stats.Interval `json:"intervals"`
	Warnings      []string         `json:"warnings,omitempty"`
}

func newIntervalCmd(opts *options) *cobra.Command {
	var (
		k, n       int
		confidence float64
		method     string
	)
	cmd := &cobra.Command{
		Use:   "interval -k K -n N [--confidence 0.95] [--method all|NAME]",
		Short: "Confidence intervals and standard error for K successes in N trials",
		Long: `interval reports the rate K/N, its standard error sqrt(p(1-p)/N) and its
two-sided confidence interval by each method: wald, wilson, wilson-cc
(Newcombe 1998 method 4), agresti-coull, jeffreys and clopper-pearson.`,
		Example: "  tally interval -k 166 -n 200\n  tally interval -k 0 -n 40 --method clopper-pearson --confidence 0.99",
		Args:    cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			var methods []stats.Method
			if method != "all" {
				m, err := stats.ParseMethod(method)
				if err != nil {
					return usageError{fmt.Errorf("--method: %w", err)}
				}
				methods = []stats.Method{m}
			}
			s, err := stats.Summarize(stats.Proportion{K: k, N: n}, confidence, methods...)
			if err != nil {
				return fmt.Errorf("-k %d -n %d --confidence %v: %w", k, n, confidence, err)
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return writeJSON(w, intervalJSON{
					Successes: s.K, Trials: s.N, Estimate: s.Estimate,
					StandardError: s.StandardError, Confidence: s.Confidence,
					Intervals: s.Intervals, Warnings: s.Warnings,
				})
			}
			return writeIntervalText(cmd, s)
		}),
	}
	f := cmd.Flags()
	f.IntVarP(&k, "successes", "k", 0, "successes K (0 ≤ K ≤ N)")
	f.IntVarP(&n, "trials", "n", 0, "trials N (N ≥ 1)")
	f.Float64Var(&confidence, "confidence", 0.95, "confidence level, strictly between 0 and 1")
	f.StringVar(&method, "method", "all", "interval method: all, wald, wilson, wilson-cc, agresti-coull, jeffreys, clopper-pearson")
	_ = cmd.MarkFlagRequired("successes")
	_ = cmd.MarkFlagRequired("trials")
	return cmd
}

func writeIntervalText(cmd *cobra.Command, s stats.RateSummary) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s successes: rate %s, standard error %s (%s); %s intervals:\n\n",
		s.Proportion, prob(s.Estimate), prob(s.StandardError), points(s.StandardError), pct(s.Confidence))
	t := table(w)
	fmt.Fprintln(t, "method\tlower\tupper\twidth")
	for _, iv := range s.Intervals {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\n", iv.Method, prob(iv.Lower), prob(iv.Upper), prob(iv.Width()))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, s.Warnings)
	}
	return nil
}
