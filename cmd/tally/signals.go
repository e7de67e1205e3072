package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/selection"
)

// signalsJSON is the JSON report of `tally signals` (the flagged
// sessions themselves are JSONL, one selection.Flagged per line).
type signalsJSON struct {
	Files            int        `json:"files"`
	Events           int64      `json:"events"`
	Bytes            int64      `json:"bytes"`
	Sessions         int        `json:"sessions"`
	Compacted        int        `json:"compacted"`
	Flagged          int        `json:"flagged"`
	Window           int        `json:"window"`
	RestateThreshold float64    `json:"restate_threshold"`
	SampleSize       int        `json:"sample_size"`
	Seed             uint64     `json:"seed"`
	Signals          []kindJSON `json:"signals"`
	Weeks            []weekJSON `json:"weeks"`
	SkippedLines     int        `json:"skipped_lines"`
	Warnings         []string   `json:"warnings"`
}

type kindJSON struct {
	Signal      selection.SignalKind `json:"signal"`
	Sessions    int                  `json:"sessions"`
	Occurrences int                  `json:"occurrences"`
}

type weekJSON struct {
	Week     string              `json:"week"`
	Sessions int                 `json:"sessions"`
	Flagged  int                 `json:"flagged"`
	Signals  []kindJSON          `json:"signals"`
	Sample   []selection.Flagged `json:"sample"`
}

func newSignalsCmd(opts *options) *cobra.Command {
	cfg := selection.DefaultSignalConfig()
	var (
		output, sampleOut string
		lim               limitFlags
	)
	cmd := &cobra.Command{
		Use:   "signals LOG.jsonl… [--window 5] [--restate-threshold X] [--sample 20] [--seed S] [-o FLAGGED.jsonl]",
		Short: "Flag production sessions whose compaction went wrong: repeated tool calls and restated instructions",
		Long: `signals reads event logs (JSONL, a session's events together and in turn
order; logs of any size, several read in parallel) and flags two signals:

  repeated_tool_call    a tool call at most --window turns after a compaction
                        with the same tool and canonically equal JSON arguments
                        (key order and white space ignored) as a call made
                        before that compaction;
  restated_instruction  a user message after a compaction that restates an
                        instruction the user gave before it: the share of its
                        content words an earlier message has, plus 1 for a
                        restatement cue ("again", "I said", "as I told you",
                        "remember", …) and 0.25 for an instruction cue (a
                        clause opening with a negation, "always" or "only";
                        "must", "never"), at least --restate-threshold.

The flagged sessions are written as JSONL (session_id, ISO week, each signal
with its turns and evidence) to -o FILE, atomically, or to stdout. The summary
and a seeded sample of --sample flagged sessions per ISO week, spread across
both signals, go to stdout with -o, else to stderr; --sample-out writes the
sampled sessions as JSONL. A malformed line is an error naming file, line,
column and field, or with --skip-bad is skipped and reported.`,
		Example: `  tally signals examples/quarterly/events/week-*.jsonl -o flagged.jsonl
  tally signals logs/*.jsonl --sample 20 --seed 7 --sample-out sample.jsonl > flagged.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			cfg.Limits = lim.Limits
			if err := cfg.Validate(); err != nil {
				return err
			}
			if opts.format == "json" && output == "" {
				// Without -o the flagged sessions are JSON Lines on
				// stdout; a JSON summary there too would not parse.
				return usagef("--format json needs -o FLAGGED.jsonl: stdout then holds the JSON summary alone")
			}
			report := cmd.ErrOrStderr()
			var rep *selection.SignalReport
			// The flagged sessions and the weekly sample are one set of
			// files, written all or none.
			var set []atomicfile.File
			if output != "" {
				report = cmd.OutOrStdout()
				set = append(set, atomicfile.File{Path: output, Write: func(w io.Writer) error {
					var err error
					rep, err = scanTo(cmd, args, cfg, w)
					return err
				}})
			} else {
				bw := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
				var err error
				rep, err = scanTo(cmd, args, cfg, bw)
				if ferr := bw.Flush(); err == nil {
					err = ferr
				}
				if err != nil {
					return err
				}
			}
			if sampleOut != "" {
				set = append(set, atomicfile.File{Path: sampleOut, Write: func(w io.Writer) error {
					enc := flaggedEncoder(w)
					for _, wk := range rep.Weeks {
						for i := range wk.Sample {
							if err := enc.Encode(&wk.Sample[i]); err != nil {
								return err
							}
						}
					}
					return nil
				}})
			}
			if err := atomicfile.WriteSet(set, nil); err != nil {
				return err
			}
			if opts.format == "json" {
				return writeJSON(report, signalsReport(rep))
			}
			return writeSignalsText(report, rep)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Window, "window", selection.DefaultWindow, "turns after a compaction within which a repeated call counts")
	f.Float64Var(&cfg.RestateThreshold, "restate-threshold", selection.DefaultRestateThreshold, "score a restated instruction must reach")
	f.IntVar(&cfg.Sample, "sample", selection.DefaultSample, "flagged sessions to sample per ISO week")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the weekly sample")
	f.StringVarP(&output, "output", "o", "", "write the flagged sessions to this file (default stdout)")
	f.StringVar(&sampleOut, "sample-out", "", "write the weekly sample's sessions as JSONL to this file")
	f.BoolVar(&cfg.SkipBad, "skip-bad", false, "skip malformed lines (counted and reported) instead of failing")
	f.IntVar(&cfg.Workers, "workers", 0, "files read at once (0: one per CPU)")
	lim.register(cmd)
	return cmd
}

func flaggedEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// scanTo scans the logs, writing each flagged session to w as it comes.
func scanTo(cmd *cobra.Command, paths []string, cfg selection.SignalConfig, w io.Writer) (*selection.SignalReport, error) {
	enc := flaggedEncoder(w)
	return selection.ScanFiles(cmd.Context(), paths, cfg, func(f *selection.Flagged) error { return enc.Encode(f) })
}

func kindsJSON(ks []selection.KindCount) []kindJSON {
	out := make([]kindJSON, len(ks))
	for i, k := range ks {
		out[i] = kindJSON{Signal: k.Kind, Sessions: k.Sessions, Occurrences: k.Signals}
	}
	return out
}

func signalsReport(r *selection.SignalReport) signalsJSON {
	out := signalsJSON{Files: r.Files, Events: r.Events, Bytes: r.Bytes, Sessions: r.Sessions, Compacted: r.Compacted,
		Flagged: r.Flagged, Window: r.Config.Window, RestateThreshold: r.Config.RestateThreshold,
		SampleSize: r.Config.Sample, Seed: r.Config.Seed, Signals: kindsJSON(r.Kinds),
		Weeks: []weekJSON{}, SkippedLines: r.Skipped.Count, Warnings: r.Warnings}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for _, w := range r.Weeks {
		s := w.Sample
		if s == nil {
			s = []selection.Flagged{}
		}
		out.Weeks = append(out.Weeks, weekJSON{Week: w.Week, Sessions: w.Sessions, Flagged: w.Flagged, Signals: kindsJSON(w.Kinds), Sample: s})
	}
	return out
}

func writeSignalsText(w io.Writer, r *selection.SignalReport) error {
	fmt.Fprintf(w, "%d files, %d events (%.1f MB), %d sessions, %d of them compacted; %d flagged (%.1f%% of those compacted).\n\n",
		r.Files, r.Events, float64(r.Bytes)/1e6, r.Sessions, r.Compacted, r.Flagged, 100*float64(r.Flagged)/float64(max(1, r.Compacted)))
	t := table(w)
	fmt.Fprintln(t, "signal\tsessions\toccurrences")
	for _, k := range r.Kinds {
		fmt.Fprintf(t, "%s\t%d\t%d\n", k.Kind, k.Sessions, k.Signals)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nWindow %d turns; restate threshold %v. Weekly sample: up to %d flagged sessions per ISO week (seed %d), taken in turn from each signal.\n\n",
		r.Config.Window, r.Config.RestateThreshold, r.Config.Sample, r.Config.Seed)
	t = table(w)
	fmt.Fprintln(t, "week\tsessions\tflagged\trepeated\trestated\tsampled")
	for _, wk := range r.Weeks {
		fmt.Fprintf(t, "%s\t%d\t%d\t%d\t%d\t%d\n", wk.Week, wk.Sessions, wk.Flagged, wk.Kinds[0].Sessions, wk.Kinds[1].Sessions, len(wk.Sample))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if r.Config.Sample > 0 {
		fmt.Fprintln(w, "\nSampled sessions (R: repeated tool call, I: restated instruction):")
		for _, wk := range r.Weeks {
			var ids []string
			for _, f := range wk.Sample {
				tag := ""
				if f.Has(selection.RepeatedToolCall) {
					tag += "R"
				}
				if f.Has(selection.RestatedInstruction) {
					tag += "I"
				}
				ids = append(ids, f.SessionID+" "+tag)
			}
			for i := 0; i < len(ids); i += 4 {
				label := wk.Week
				if i > 0 {
					label = strings.Repeat(" ", len(wk.Week))
				}
				fmt.Fprintf(w, "  %s  %s\n", label, strings.Join(ids[i:min(i+4, len(ids))], ", "))
			}
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, r.Warnings)
	}
	return nil
}
