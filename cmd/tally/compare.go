package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/stats"
)

// rateJSON is one rate in JSON output.
type rateJSON struct {
	Successes int     `json:"successes"`
	Trials    int     `json:"trials"`
	Estimate  float64 `json:"estimate"`
}

func newRateJSON(p stats.Proportion) rateJSON {
	return rateJSON{Successes: p.K, Trials: p.N, Estimate: p.Estimate()}
}

// compareJSON is the JSON contract of `tally compare`.
type compareJSON struct {
	A             rateJSON         `json:"a"`
	B             rateJSON         `json:"b"`
	Confidence    float64          `json:"confidence"`
	Difference    float64          `json:"difference"`
	StandardError float64          `json:"standard_error"`
	Z             *float64         `json:"z"`
	PValue        *float64         `json:"p_value"`
	Intervals     []stats.Interval `json:"intervals"`
	Noise         noiseJSON        `json:"noise"`
	Warnings      []string         `json:"warnings,omitempty"`
}

type noiseJSON struct {
	InStandardErrors *float64 `json:"in_standard_errors"`
	Distinguishable  bool     `json:"distinguishable"`
}

func newCompareCmd(opts *options) *cobra.Command {
	var (
		a, b       string
		confidence float64
	)
	cmd := &cobra.Command{
		Use:   "compare --a K/N --b K/N [--confidence 0.95]",
		Short: "Compare two independent rates: difference, intervals, z-test, noise",
		Long: `compare reports the difference a−b of two independent rates (two runs, two
systems) with its unpooled standard error, five intervals, the pooled
two-sided z-test, and whether the difference can be told apart from
run-to-run noise at this sample size.

Intervals for a−b:
  newcombe            Newcombe's hybrid score interval (1998, method 10),
                      from the two Wilson intervals
  wald                a−b ± z·SE, unpooled; worst near 0 and 1
  agresti-caffo       Wald after adding one success and one failure to each
  miettinen-nurminen  the score interval of Miettinen & Nurminen (1985):
                      the δ the score test of a−b = δ does not reject, with
                      the variance at the restricted maximum likelihood
                      estimates times N/(N−1)
  mee                 Mee's (1984) score interval: the same without N/(N−1)`,
		Example: "  tally compare --a 168/200 --b 166/200",
		Args:    cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			pa, err := stats.ParseProportion(a)
			if err != nil {
				return fmt.Errorf("--a: %w", err)
			}
			pb, err := stats.ParseProportion(b)
			if err != nil {
				return fmt.Errorf("--b: %w", err)
			}
			c, err := stats.Compare(pa, pb, confidence)
			if err != nil {
				return fmt.Errorf("--confidence: %w", err)
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return writeJSON(w, compareJSON{
					A: newRateJSON(c.A), B: newRateJSON(c.B), Confidence: c.Confidence,
					Difference: c.Difference, StandardError: c.StandardError,
					Z: optional(c.Z, c.ZDefined), PValue: optional(c.PValue, c.ZDefined),
					Intervals: c.Intervals,
					Noise: noiseJSON{
						InStandardErrors: optional(c.InStandardErrors, c.InStandardErrorsDefined),
						Distinguishable:  c.Distinguishable,
					},
					Warnings: c.Warnings,
				})
			}
			return writeCompareText(cmd, c)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&a, "a", "", "first rate as K/N, e.g. 168/200")
	f.StringVar(&b, "b", "", "second rate as K/N, e.g. 166/200")
	f.Float64Var(&confidence, "confidence", 0.95, "confidence level, strictly between 0 and 1")
	_ = cmd.MarkFlagRequired("a")
	_ = cmd.MarkFlagRequired("b")
	return cmd
}

func writeCompareText(cmd *cobra.Command, c stats.Comparison) error {
	w := cmd.OutOrStdout()
	t := table(w)
	fmt.Fprintf(t, "a\t%s\trate %s\tstandard error %s\n", c.A, prob(c.A.Estimate()), prob(c.A.StandardError()))
	fmt.Fprintf(t, "b\t%s\trate %s\tstandard error %s\n", c.B, prob(c.B.Estimate()), prob(c.B.StandardError()))
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ndifference a−b %+.4f (%+.1f points), standard error %s (unpooled)\n",
		c.Difference, 100*c.Difference, prob(c.StandardError))
	if c.ZDefined {
		fmt.Fprintf(w, "pooled z-test: z = %.4f, two-sided p = %.4f\n", c.Z, c.PValue)
	} else {
		fmt.Fprintln(w, "pooled z-test: undefined (the pooled rate is 0 or 1)")
	}
	fmt.Fprintln(w)
	t = table(w)
	fmt.Fprintf(t, "%s interval\tlower\tupper\n", pct(c.Confidence))
	for _, iv := range c.Intervals {
		fmt.Fprintf(t, "%s\t%+.4f\t%+.4f\n", iv.Method, iv.Lower, iv.Upper)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, noiseSentence(c))
	writeWarnings(w, c.Warnings)
	return nil
}

// noiseSentence says in words whether the difference can be told apart
// from noise, and by how many standard errors.
func noiseSentence(c stats.Comparison) string {
	alpha := 1 - c.Confidence
	var size string
	switch {
	case c.ZDefined:
		// The p-value is the pooled test's: the count of standard errors
		// beside it is its z, not the Wald interval's unpooled ratio,
		// which is said too when it differs (3/10 against 0/10: 1.88
		// pooled, 2.07 unpooled, p = 0.0603, as R's prop.test).
		size = fmt.Sprintf("The difference is %.2f standard errors", math.Abs(c.Z))
		if c.InStandardErrorsDefined && fmt.Sprintf("%.2f", math.Abs(c.Z)) != fmt.Sprintf("%.2f", math.Abs(c.InStandardErrors)) {
			size += fmt.Sprintf(" under equal rates (the pooled z-test's; %.2f of the unpooled standard error the Wald interval uses)", math.Abs(c.InStandardErrors))
		}
	case c.InStandardErrorsDefined:
		size = fmt.Sprintf("The difference is %.2f standard errors", math.Abs(c.InStandardErrors))
	default:
		size = "The standard error is 0"
	}
	switch {
	case c.Distinguishable:
		return fmt.Sprintf("%s: distinguishable from noise at %s confidence (p = %.4f < %.4g).", size, pct(c.Confidence), c.PValue, alpha)
	case c.ZDefined:
		return fmt.Sprintf("%s: not distinguishable from noise at %s confidence (p = %.4f ≥ %.4g); a run of the same system could move this much.", size, pct(c.Confidence), c.PValue, alpha)
	default:
		return fmt.Sprintf("%s: the rates are identical at the boundary; there is nothing to distinguish.", size)
	}
}
