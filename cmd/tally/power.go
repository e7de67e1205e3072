package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/power"
)

// powerJSON is the JSON contract of `tally power`.
type powerJSON struct {
	Design      string   `json:"design"`
	Method      string   `json:"method"`
	Alpha       float64  `json:"alpha"`
	N           int      `json:"n"`
	Power       float64  `json:"power"`
	PLost       *float64 `json:"p_lost,omitempty"`
	PGained     *float64 `json:"p_gained,omitempty"`
	P1          *float64 `json:"p1,omitempty"`
	P2          *float64 `json:"p2,omitempty"`
	UnroundedN  *float64 `json:"unrounded_n,omitempty"`
	FirstN      *int     `json:"first_n,omitempty"`
	ActualSize  *float64 `json:"actual_size,omitempty"`
	TargetPower *float64 `json:"target_power,omitempty"`
	// SolvedFor is "alpha" when --n and --power were both given: Alpha
	// is then the smallest two-sided level at which N reaches
	// TargetPower, and Power the power at it.
	SolvedFor string   `json:"solved_for,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// sizeFlags are --n, --power and --alpha: given --n, the power; given
// --power, the n; given both, the smallest α.
type sizeFlags struct {
	n     int
	power float64
	alpha float64
}

func (s *sizeFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&s.n, "n", 0, "sample size (pairs, or conversations per group): report the power")
	cmd.Flags().Float64Var(&s.power, "power", 0, "target power: report the smallest n reaching it (with --n: the smallest α)")
	cmd.Flags().Float64Var(&s.alpha, "alpha", 0.05, "two-sided significance level (solved for when --n and --power are both given)")
	cmd.MarkFlagsOneRequired("n", "power")
}

// solvesAlpha reports whether --n and --power are both given, so that α
// is solved for; --alpha then is a usage error.
func (s *sizeFlags) solvesAlpha(cmd *cobra.Command) (bool, error) {
	f := cmd.Flags()
	if !f.Changed("n") || !f.Changed("power") {
		return false, nil
	}
	if f.Changed("alpha") {
		return false, usagef("--n, --power and --alpha: give two of them, and the third is computed")
	}
	return true, nil
}

// solve fills out.N and out.Power from the design's Power or SampleSize,
// or out.Alpha from solveAlpha when --n and --power are both given
// (powerAtAlpha is then the power of n at a level).
func (s *sizeFlags) solve(cmd *cobra.Command, out *powerJSON,
	powerAt func(int) (float64, error), sampleSize func(float64) (power.SampleSize, error),
	solveAlpha func(int, float64) (float64, error), powerAtAlpha func(int, float64) (float64, error)) error {
	both, err := s.solvesAlpha(cmd)
	if err != nil {
		return err
	}
	if both {
		a, err := solveAlpha(s.n, s.power)
		if err != nil {
			return fmt.Errorf("--n %d --power %v: %w", s.n, s.power, err)
		}
		p, err := powerAtAlpha(s.n, a)
		if err != nil {
			return fmt.Errorf("--n %d at α %v: %w", s.n, a, err)
		}
		target := s.power
		out.N, out.Alpha, out.Power, out.TargetPower, out.SolvedFor = s.n, a, p, &target, "alpha"
		return nil
	}
	if cmd.Flags().Changed("n") {
		p, err := powerAt(s.n)
		if err != nil {
			return fmt.Errorf("--n %d: %w", s.n, err)
		}
		out.N, out.Power = s.n, p
		return nil
	}
	ss, err := sampleSize(s.power)
	if err != nil {
		return fmt.Errorf("--power %v: %w", s.power, err)
	}
	target := s.power
	out.TargetPower = &target
	out.N, out.Power, out.Warnings = ss.N, ss.Power, ss.Warnings
	if ss.Unrounded > 0 {
		u := ss.Unrounded
		out.UnroundedN = &u
	}
	if ss.FirstN != ss.N {
		f := ss.FirstN
		out.FirstN = &f
	}
	if ss.HasActualSize {
		a := ss.ActualSize
		out.ActualSize = &a
	}
	return nil
}

func newPowerCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "power paired|independent …",
		Short: "Power and sample size of the paired and independent designs",
		Args:  cobra.NoArgs,
		RunE:  needSubcommand,
	}
	cmd.AddCommand(newPowerPairedCmd(opts), newPowerIndependentCmd(opts))
	return cmd
}

func newPowerPairedCmd(opts *options) *cobra.Command {
	var (
		s              sizeFlags
		pLost, pGained float64
		method         string
	)
	cmd := &cobra.Command{
		Use:   "paired --p-lost PL --p-gained PG (--n N | --power P) [--alpha 0.05] [--method connor|miettinen|exact]",
		Short: "McNemar power and pairs needed, from the discordant probabilities",
		Long: `paired computes the power of McNemar's test over N pairs, or the pairs needed
for a target power, given the probability that a pair is lost (reference
succeeds, candidate fails) and gained. Methods: connor (Connor 1987),
miettinen (Miettinen 1968) and exact — the exact conditional test's power
summed over the number of discordant pairs. Exact power is saw-toothed in n,
so its sample size is the smallest n from which every n up to 1.1× also
reaches the power.

Given both --n and --power, paired reports the smallest two-sided α at which
N pairs reach that power (closed form for connor and miettinen; for exact,
whose power steps up with α, by bisection on ln α). --alpha is then what is
computed and may not be given; levels below 1e-8 are not reported.`,
		Example: "  tally power paired --p-lost 0.45 --p-gained 0.05 --power 0.8\n  tally power paired --p-lost 0.02 --p-gained 0.06 --n 400 --method exact",
		Args:    cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			m, err := power.ParsePairedMethod(method)
			if err != nil {
				return usageError{fmt.Errorf("--method: %w", err)}
			}
			d := power.Paired{PLost: pLost, PGained: pGained, Alpha: s.alpha, Method: m}
			if err := d.Validate(); err != nil {
				return err
			}
			out := powerJSON{Design: "paired", Method: string(m), Alpha: s.alpha, PLost: &pLost, PGained: &pGained}
			powerAtAlpha := func(n int, a float64) (float64, error) { d := d; d.Alpha = a; return d.Power(n) }
			if err := s.solve(cmd, &out, d.Power, d.SampleSize, d.SolveAlpha, powerAtAlpha); err != nil {
				return err
			}
			out.Warnings = append(out.Warnings, fewDiscordant(d, out.N, out.Alpha)...)
			return writePower(cmd.OutOrStdout(), opts, out)
		}),
	}
	s.register(cmd)
	cmd.Flags().Float64Var(&pLost, "p-lost", 0, "probability that a pair is lost (reference success, candidate failure)")
	cmd.Flags().Float64Var(&pGained, "p-gained", 0, "probability that a pair is gained (reference failure, candidate success)")
	cmd.Flags().StringVar(&method, "method", "connor", "connor, miettinen or exact")
	_ = cmd.MarkFlagRequired("p-lost")
	_ = cmd.MarkFlagRequired("p-gained")
	return cmd
}

// minDiscordant is the expected count of discordant pairs below which a
// normal approximation to McNemar's test is said to be rough (the
// rule of thumb the mcnemar command's caveat uses for b + c).
const minDiscordant = 10

// fewDiscordant warns when Connor's or Miettinen's approximation rests
// on fewer than minDiscordant expected discordant pairs, and gives the
// exact test's power at those n pairs: at p_lost 1 Connor says 4 pairs
// reach power 0.8, where the exact test cannot reject at all (it needs
// 6, since 2·0.5⁵ = 0.0625 > 0.05 and 2·0.5⁶ = 0.03125).
func fewDiscordant(d power.Paired, n int, alpha float64) []string {
	psi := d.PLost + d.PGained
	if d.Method == power.Exact || n < 1 || float64(n)*psi >= minDiscordant {
		return nil
	}
	e := d
	e.Method, e.Alpha = power.Exact, alpha
	p, err := e.Power(n)
	if err != nil {
		return []string{fmt.Sprintf("%s: %s expect %.3g discordant ones (n · (p_lost + p_gained)); below about %d the normal approximation is rough, and the exact test's power is not computed here (%v)",
			d.Method, plural(n, "pair"), float64(n)*psi, minDiscordant, err)}
	}
	return []string{fmt.Sprintf("%s: %s expect %.3g discordant ones (n · (p_lost + p_gained)); below about %d the normal approximation is rough: the exact test's power at %s is %.4f (--method exact)",
		d.Method, plural(n, "pair"), float64(n)*psi, minDiscordant, plural(n, "pair"), p)}
}

func newPowerIndependentCmd(opts *options) *cobra.Command {
	var (
		s      sizeFlags
		p1, p2 float64
	)
	cmd := &cobra.Command{
		Use:   "independent --p1 P1 --p2 P2 (--n N | --power P) [--alpha 0.05]",
		Short: "Power and n per group for two independent rates (R's power.prop.test)",
		Long: `independent computes the power of comparing two independent rates with n
conversations per group, or the n per group for a target power, two-sided,
exactly as R's power.prop.test (strict = FALSE). Given both --n and --power,
it reports the smallest two-sided α at which n per group reach that power
(R's power.prop.test(n, p1, p2, power, sig.level = NULL), in closed form);
--alpha may not be given then, and levels below 1e-8 are not reported.`,
		Example: "  tally power independent --p1 0.83 --p2 0.815 --power 0.8",
		Args:    cobra.NoArgs,
		RunE: flagWork(func(cmd *cobra.Command, _ []string) error {
			d := power.Independent{P1: p1, P2: p2, Alpha: s.alpha}
			if err := d.Validate(); err != nil {
				return err
			}
			out := powerJSON{Design: "independent", Method: "power.prop.test", Alpha: s.alpha, P1: &p1, P2: &p2}
			powerAtAlpha := func(n int, a float64) (float64, error) { d := d; d.Alpha = a; return d.Power(n) }
			if err := s.solve(cmd, &out, d.Power, d.SampleSize, d.SolveAlpha, powerAtAlpha); err != nil {
				return err
			}
			return writePower(cmd.OutOrStdout(), opts, out)
		}),
	}
	s.register(cmd)
	cmd.Flags().Float64Var(&p1, "p1", 0, "rate of the first group")
	cmd.Flags().Float64Var(&p2, "p2", 0, "rate of the second group")
	_ = cmd.MarkFlagRequired("p1")
	_ = cmd.MarkFlagRequired("p2")
	return cmd
}

func writePower(w io.Writer, opts *options, out powerJSON) error {
	if opts.format == "json" {
		return writeJSON(w, out)
	}
	level := fmt.Sprintf(", two-sided α %.4g", out.Alpha)
	if out.SolvedFor == "alpha" {
		level = ""
	}
	switch out.Design {
	case "paired":
		fmt.Fprintf(w, "paired design (%s), p_lost %.4g, p_gained %.4g%s\n", out.Method, *out.PLost, *out.PGained, level)
	case "independent":
		fmt.Fprintf(w, "two independent groups (power.prop.test), p1 %.4g, p2 %.4g%s\n", *out.P1, *out.P2, level)
	default:
		return errors.New("unknown design " + out.Design)
	}
	unit := "pairs"
	if out.Design == "independent" {
		unit = "per group"
	}
	switch {
	case out.SolvedFor == "alpha":
		fmt.Fprintf(w, "n = %d %s reach power %.4g at a two-sided α of %.4g or more (the smallest such α; power at it %.4f)\n",
			out.N, unit, *out.TargetPower, out.Alpha, out.Power)
	case out.TargetPower == nil:
		fmt.Fprintf(w, "n = %d %s: power %.4f\n", out.N, unit, out.Power)
	default:
		fmt.Fprintf(w, "power %.4g needs n = %d %s (power at n: %.4f)", *out.TargetPower, out.N, unit, out.Power)
		if out.UnroundedN != nil && out.Method != string(power.Exact) {
			fmt.Fprintf(w, "; unrounded n = %.4f", *out.UnroundedN)
		}
		fmt.Fprintln(w)
		if out.FirstN != nil {
			fmt.Fprintf(w, "the power first reaches the target at n = %d, then dips below it again\n", *out.FirstN)
		}
	}
	writeWarnings(w, out.Warnings)
	return nil
}
