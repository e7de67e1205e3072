package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

func newSelectCmd(opts *options) *cobra.Command {
	var (
		budget        int
		budgetHours   float64
		minutes       float64
		compareRandom int
		seed          int64
		output        string
		incidents     string
		skipBad       bool
		logFormat     agentlog.Format
		lim           limitFlags
	)
	cmd := &cobra.Command{
		Use:   "select SESSIONS.jsonl | LOG|FOLDER… [--budget N | --budget-hours H] [--minutes-per-fixture 2] [--compare-random N] [--seed S] [--log-format F] [--incidents FLAGGED.jsonl] [-o selected.jsonl]",
		Short: "Choose the sessions that exercise the most compaction decisions, against a random baseline",
		Long: `select reads session summaries (JSONL; "-" reads stdin), or agent logs (Claude
Code session files, Codex rollouts, the generic format or tally's event log,
gzipped or not; told apart by the first line, or --log-format), and chooses
fixtures by compaction decisions. Logs list no items: a log's items are those
the proposer's rules find in it (tally propose), unreviewed, for every session
alike, and the output says so; a compaction during typed turn t meets the
items of turns 1 to t. The decisions: for each compaction, one decision per
item stated before it, at least one per compaction (counts only: compactions
× max(1, items)). Every incident is selected; when the incidents alone exceed the
budget, those with the most decisions (ties by session_id). The rest of the
budget goes to the sessions with the most decisions — per annotation minute
under --budget-hours — ties by session_id. Sessions that never compact are
never chosen: they exercise nothing.

Annotation time grows with turns: m × (1/2 + 1/2 × turns/63) minutes a
conversation, m being the minutes for a 63-turn conversation (the source
text's example fixture): --minutes-per-fixture for the budget, 15 (authoring)
and 2 (confirming proposed items) in the report.

The selection is compared with as many sessions drawn at random (or
--compare-random N), 1,000 seeded draws, all in one pass over the input in
bounded memory: mean and 95% range of each total, so totals are set
against totals of the same number of sessions, then decisions per session
and per annotation hour. -o writes the selected sessions as JSONL,
atomically. A malformed line is an error naming file, line, column and field,
or with --skip-bad is skipped and reported.

--incidents FLAGGED.jsonl takes the sessions it names as incidents: the
flagged sessions tally signals -o writes, or any JSON Lines file of
{"session_id": …} objects. A session it names that select does not read is
said in the warnings.`,
		Example: `  tally select examples/quarterly/sessions.jsonl --budget 40
  tally select sessions.jsonl --budget-hours 6 --minutes-per-fixture 2 -o selected.jsonl --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			cfg := selection.Config{Budget: budget, MinutesPerFixture: minutes, CompareRandom: compareRandom,
				Draws: selection.DefaultDraws, Seed: seed, SkipBad: skipBad, Limits: lim.Limits}
			if cmd.Flags().Changed("budget-hours") {
				cfg.Budget, cfg.BudgetHours = 0, budgetHours
				if !(budgetHours > 0) {
					return fmt.Errorf("--budget-hours must be positive, got %v", budgetHours)
				}
			} else if budget < 1 {
				return fmt.Errorf("--budget must be at least 1, got %d", budget)
			}
			if !(minutes > 0) {
				return fmt.Errorf("--minutes-per-fixture must be positive, got %v", minutes)
			}
			if compareRandom < 0 {
				return fmt.Errorf("--compare-random must not be negative, got %d", compareRandom)
			}
			if !cmd.Flags().Changed("compare-random") {
				cfg.CompareRandom = selection.SameSize
			}
			if incidents != "" {
				named, err := readIncidents(incidents, lim.Limits)
				if err != nil {
					return err
				}
				cfg.Incidents = named
			}
			var res *selection.Result
			args, note, err := expandLogArgs(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			name := args[0]
			summaries, err := isSummaryFile(name, lim.Limits)
			if err != nil {
				return err
			}
			if len(args) > 1 || !summaries {
				if name == "-" {
					return usagef("agent logs are read from files, not from stdin")
				}
				name = fmt.Sprintf("%d agent log files", len(args))
				if len(args) == 1 {
					name = args[0]
				}
				res, err = selection.SelectLogs(args, logFormat, cfg, nil)
			} else {
				in := io.Reader(cmd.InOrStdin())
				if name != "-" {
					f, err := input.Open(name, lim.Limits)
					if err != nil {
						return err
					}
					defer f.Close()
					in = f
				}
				res, err = selection.Select(in, name, cfg)
			}
			if err != nil {
				return err
			}
			if output != "" {
				if err := writeCreatingFolder(output, func(w io.Writer) error { return writePickedJSONL(w, res.Selected) }); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				// The folder's note on stderr is in the summary too, for
				// a reader of the JSON alone (a re-check trial).
				if note != "" {
					res.Warnings = append([]string{note}, res.Warnings...)
				}
				return writeJSON(w, res.Summary())
			}
			return writeSelectText(w, name, res)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&budget, "budget", 40, "the most sessions to select")
	f.Float64Var(&budgetHours, "budget-hours", 0, "or: the most annotation hours to select (at --minutes-per-fixture)")
	f.Float64Var(&minutes, "minutes-per-fixture", selection.DefaultMinutesPerFixture, "annotation minutes for a 63-turn conversation, for --budget-hours")
	f.IntVar(&compareRandom, "compare-random", 0, "size of the random samples to compare with (0: none; default: as many as were selected)")
	f.Int64Var(&seed, "seed", 1, "seed of the random comparison (any int64)")
	f.StringVarP(&output, "output", "o", "", "write the selected sessions as JSONL to this file (its folder created if need be)")
	f.StringVar(&incidents, "incidents", "", "take the sessions this JSONL file names (tally signals -o) as incidents")
	f.BoolVar(&skipBad, "skip-bad", false, "skip malformed lines (counted and reported) instead of failing")
	registerLogFormat(cmd, &logFormat)
	lim.register(cmd)
	cmd.MarkFlagsMutuallyExclusive("budget", "budget-hours")
	return cmd
}

// isSummaryFile reports whether name ("-": stdin) holds session
// summaries rather than agent logs, from its first line (a gzipped file
// is a log).
func isSummaryFile(name string, lim input.Limits) (bool, error) {
	if name == "-" {
		return true, nil
	}
	head, gzipped, err := firstLine(name, lim)
	if err != nil || gzipped {
		return false, err
	}
	return len(head) == 0 || selection.IsSummaryLine(head), nil
}

// writePickedJSONL writes one selected session per line.
func writePickedJSONL(w io.Writer, ps []selection.Picked) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range ps {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}

func writeSelectText(w io.Writer, name string, r *selection.Result) error {
	cfg := r.Config
	fmt.Fprintf(w, "%s: %s, %s, %d never compact (%.1f%%).\n",
		name, plural(r.Read, "session"), plural(r.Incidents, "incident"), r.NeverCompact, 100*float64(r.NeverCompact)/float64(max(1, r.Read)))
	if r.Items == selection.ItemsProposed {
		fmt.Fprintf(w, "Items: the logs list none, so decisions count the %d items the proposer's rules found (%.1f a session), not reviewed; every session, selected or random, is counted the same way.\n",
			r.ProposedItems, float64(r.ProposedItems)/float64(max(1, r.Read)))
	}
	if cfg.Budget > 0 {
		fmt.Fprintf(w, "Budget: %s", plural(cfg.Budget, "session"))
	} else {
		fmt.Fprintf(w, "Budget: %v annotation hours at %v minutes per 63-turn conversation", cfg.BudgetHours, cfg.MinutesPerFixture)
	}
	if r.IncidentsExceedBudget {
		fmt.Fprintf(w, "; the incidents alone exceed it, so the selection is the %d incidents with the most decisions.\n\n", len(r.Selected))
	} else {
		fmt.Fprintf(w, "; every incident is in, the rest by decisions%s.\n\n", map[bool]string{true: "", false: " per annotation minute"}[cfg.Budget > 0])
	}

	t := table(w)
	c := r.Random
	tot := r.Totals
	// Totals against totals of samples as large as the selection; against
	// samples of another size (--compare-random N), per session.
	perSession := c != nil && c.Sessions.Mean != float64(tot.Sessions)
	switch {
	case c == nil:
		fmt.Fprintf(t, "\tselected\n")
	case perSession:
		fmt.Fprintf(t, "per session\tselected\trandom %d: mean\t95%% range (%d draws, seed %d)\n", c.Size, c.Draws, cfg.Seed)
	default:
		fmt.Fprintf(t, "\tselected\trandom %d: mean\t95%% range (%d draws, seed %d)\n", c.Size, c.Draws, cfg.Seed)
	}
	// row writes one measure: the selection's with selDec decimals, the
	// random samples' with rndDec (per session, two each).
	row := func(label string, sel float64, sp func(*selection.Comparison) selection.Spread, selDec, rndDec int) {
		if perSession {
			sel /= float64(max(1, tot.Sessions))
			selDec, rndDec = 2, 2
		}
		if c == nil {
			fmt.Fprintf(t, "%s\t%s\n", label, formatFixed(sel, selDec))
			return
		}
		s := sp(c)
		if n := c.Sessions.Mean; perSession {
			s = selection.Spread{Mean: s.Mean / n, Low: s.Low / n, High: s.High / n}
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s–%s\n", label, formatFixed(sel, selDec), formatFixed(s.Mean, rndDec), formatFixed(s.Low, rndDec), formatFixed(s.High, rndDec))
	}
	if !perSession {
		row("sessions", float64(tot.Sessions), func(c *selection.Comparison) selection.Spread { return c.Sessions }, 0, 0)
	}
	row("never compact", float64(tot.NeverCompact), func(c *selection.Comparison) selection.Spread { return c.NeverCompact }, 0, 1)
	row("compactions", float64(tot.Compactions), func(c *selection.Comparison) selection.Spread { return c.Compactions }, 0, 1)
	row("decisions", float64(tot.Decisions), func(c *selection.Comparison) selection.Spread { return c.Decisions }, 0, 1)
	row("items", float64(tot.Items), func(c *selection.Comparison) selection.Spread { return c.Items }, 0, 1)
	hours := func(label string, sel float64, sp func(*selection.Comparison) selection.Spread) {
		vals := []float64{sel}
		if c != nil {
			s := sp(c)
			vals = append(vals, s.Mean, s.Low, s.High)
		}
		d := hourDecimals(vals...)
		row(label, sel, sp, d, d)
	}
	hours("annotation hours at 15 min", tot.HoursAuthoring, func(c *selection.Comparison) selection.Spread { return c.HoursAuthoring })
	hours("annotation hours at 2 min", tot.HoursReview, func(c *selection.Comparison) selection.Spread { return c.HoursReview })
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if v, ok := r.VersusRandom(); ok {
		what, sel, mean, low, high, f := "decisions", fmt.Sprint(v.Selected), v.RandomMean, v.RandomLow, v.RandomHigh, "%.0f"
		if !v.SameSize { // samples of another size: compare per session
			what, sel, mean, low, high, f = "decisions per session", formatFixed(v.SelectedPerSession, 1),
				v.RandomPerSession, v.RandomPerSessionLow, v.RandomPerSessionHigh, "%.1f"
		}
		rng := fmt.Sprintf(f+" (95%% range "+f+"–"+f+")", mean, low, high)
		switch {
		case v.Above:
			fmt.Fprintf(w, "The %d selected sessions carry more %s than %d random ones: %s against a mean of %s.\n",
				tot.Sessions, what, c.Size, sel, rng)
		case v.Below:
			fmt.Fprintf(w, "The %d selected sessions carry fewer %s than %d random ones: %s against a mean of %s.\n",
				tot.Sessions, what, c.Size, sel, rng)
		default:
			fmt.Fprintf(w, "The %d selected sessions carry %s %s, inside the range of %d random ones (mean %s): not more.\n",
				tot.Sessions, sel, what, c.Size, rng)
		}
		fmt.Fprintf(w, "Per session: %.1f decisions against %.1f. Per annotation hour at %v minutes: %.0f against %.0f.\n",
			v.SelectedPerSession, v.RandomPerSession, cfg.MinutesPerFixture, v.PerHourSelected, v.PerHourRandom)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Annotation time per conversation: m × (1/2 + 1/2 × turns/%d) minutes, m = 15 authoring, 2 confirming proposals.\n\n", selection.ReferenceTurns)

	t = table(w)
	fmt.Fprintln(t, "rank\tsession_id\tturns\tcompactions\titems\tdecisions\treason")
	for i, p := range r.Selected {
		reason := string(p.Reason)
		if p.Incident && p.Reason != selection.ReasonIncident && p.Reason != selection.ReasonIncidentMostDecisions {
			reason += " (incident)"
		}
		fmt.Fprintf(t, "%d\t%s\t%d\t%d\t%d\t%d\t%s\n", i+1, p.ID, p.Turns, p.Compactions, p.Items, p.Decisions, reason)
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

// hourDecimals is how many decimals show annotation hours vals: one,
// unless the smallest that is not zero would then read 0.0; then enough
// for its first two significant digits (0.044 hours, 2.6 minutes, is
// "0.044"), at most three.
func hourDecimals(vals ...float64) int {
	low := math.Inf(1)
	for _, v := range vals {
		if v > 0 && v < low {
			low = v
		}
	}
	if low >= 0.05 {
		return 1
	}
	return min(3, int(math.Ceil(-math.Log10(low)))+1)
}

// readIncidents reads the sessions an --incidents file names.
func readIncidents(path string, lim input.Limits) (map[string]bool, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return selection.ReadIncidents(f, path, lim.Line())
}
