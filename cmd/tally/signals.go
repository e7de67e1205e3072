package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/selection"
)

// signalsJSON is the JSON report of `tally signals` (the flagged
// sessions themselves are JSONL, one selection.Flagged per line).
type signalsJSON struct {
	Files     int                     `json:"files"`
	Lines     int64                   `json:"lines"`
	Bytes     int64                   `json:"bytes"`
	Sessions  int                     `json:"sessions"`
	Formats   map[agentlog.Format]int `json:"formats"`
	Compacted int                     `json:"compacted"`
	Flagged   int                     `json:"flagged"`
	// RepeatedSessions counts sessions read again from a later file (the
	// same session id), read once from the first; SubagentTranscripts
	// the files of a sub-agent alone. Neither is in sessions.
	RepeatedSessions    int `json:"repeated_sessions"`
	SubagentTranscripts int `json:"subagent_transcripts"`
	Window              struct {
		Turns int `json:"turns"`
		Steps int `json:"steps"`
	} `json:"window"`
	SampleSize   int            `json:"sample_size"`
	Seed         uint64         `json:"seed"`
	Signals      []kindJSON     `json:"signals"`
	Weeks        []weekJSON     `json:"weeks"`
	SkippedLines int            `json:"skipped_lines"`
	NotRead      map[string]int `json:"records_not_read"`
	Warnings     []string       `json:"warnings"`
}

type kindJSON struct {
	Signal         selection.SignalKind `json:"signal"`
	Sessions       int                  `json:"sessions"`
	Occurrences    int                  `json:"occurrences"`
	SevereSessions int                  `json:"severe_sessions"`
	Severe         int                  `json:"severe"`
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
		logFormat         agentlog.Format
		lim               limitFlags
	)
	cmd := &cobra.Command{
		Use:   "signals LOG|FOLDER… [--window 5] [--window-steps 400] [--log-format F] [--sample 20] [--seed S] [-o FLAGGED.jsonl]",
		Short: "Flag production sessions whose compaction went wrong: repeated tool calls and restated instructions",
		Long: `signals reads agent logs — Claude Code session logs, Codex CLI rollouts, the
generic chat-messages format or tally's own event log, gzipped or not, the
format sniffed from each file's first line or given with --log-format — one
session at a time (logs of any size, several read in parallel), and flags two
signals after each compaction, within --window typed turns and --window-steps
model steps:

  repeated_tool_call    the same call as one made before the compaction (a
                        Bash description or timeout ignored, paths resolved),
                        flagged only when it asks again for a result the agent
                        had (lost_result) or redoes a side effect — a push, a
                        deploy, a write to another system — (side_effect,
                        severe, listed first); re-reads after the agent's own
                        edit, re-runs after a change, orientation (ls, git
                        status) and bookkeeping are not flagged;
  restated_instruction  a message a person typed that restates an instruction
                        typed before the compaction: a cue people use when an
                        agent forgot ("you forgot", "I told you", "as I said",
                        "don't forget", "remember to", "again: …"), or the
                        instruction repeated nearly word for word; injected
                        text and pasted output are never read.

The flagged sessions are written as JSONL to -o FILE, atomically, or to stdout:
session_id, file, format, ISO week, and each signal with its evidence — both
calls or both messages with turn, step, line and uuid, the compaction, and the
distances in turns and steps. The summary and a seeded sample of --sample
flagged sessions per ISO week, spread across both signals, go to stdout with -o,
else to stderr; --sample-out writes the sampled sessions as JSONL. A malformed
line is an error naming file, line and column, or with --skip-bad is skipped,
counted and reported.`,
		Example: `  tally signals ~/.claude/projects/*/*.jsonl -o flagged.jsonl
  tally signals logs/*.jsonl.gz --window 3 --window-steps 50 --sample 20 --seed 7 --sample-out sample.jsonl > flagged.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			cfg.Limits = lim.Limits
			cfg.Format = logFormat
			if err := cfg.Validate(); err != nil {
				return err
			}
			if opts.format == "json" && output == "" {
				// Without -o the flagged sessions are JSON Lines on
				// stdout; a JSON summary there too would not parse.
				return usagef("--format json needs -o FLAGGED.jsonl: stdout then holds the JSON summary alone")
			}
			args, note, err := expandLogArgs(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			report := cmd.ErrOrStderr()
			var rep *selection.SignalReport
			// The flagged sessions and the weekly sample are one set of
			// files, written all or none.
			var set []atomicfile.File
			// An error reading the logs is said as it is, not as one
			// writing the output (a new user's trial read "writing
			// f.jsonl: g.jsonl:1: …" as a problem with f.jsonl).
			var scanErr error
			if output != "" {
				report = cmd.OutOrStdout()
				set = append(set, atomicfile.File{Path: output, Write: func(w io.Writer) error {
					rep, scanErr = scanTo(cmd, args, cfg, w)
					return scanErr
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
			var created []string
			for _, f := range set {
				made, err := createFolder(f.Path)
				created = append(created, made...)
				if err != nil {
					removeFolders(created)
					return err
				}
			}
			if err := atomicfile.WriteSet(set, nil); err != nil {
				removeFolders(created)
				if scanErr != nil {
					return scanErr
				}
				return err
			}
			if opts.format == "json" {
				out := signalsReport(rep)
				if note != "" { // as select puts it in its summary
					out.Warnings = append([]string{note}, out.Warnings...)
				}
				return writeJSON(report, out)
			}
			return writeSignalsText(report, rep)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Window.Turns, "window", selection.DefaultRepeatWindow.Turns, "typed turns after a compaction's turn within which a signal counts (0: no bound)")
	f.IntVar(&cfg.Window.Steps, "window-steps", selection.DefaultRepeatWindow.Steps, "model steps after a compaction within which a signal counts (0: no bound)")
	registerLogFormat(cmd, &logFormat)
	f.IntVar(&cfg.Sample, "sample", selection.DefaultSample, "flagged sessions to sample per ISO week")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the weekly sample")
	f.StringVarP(&output, "output", "o", "", "write the flagged sessions to this file (default stdout; its folder created if need be)")
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
		out[i] = kindJSON{Signal: k.Kind, Sessions: k.Sessions, Occurrences: k.Signals, SevereSessions: k.SevereSessions, Severe: k.Severe}
	}
	return out
}

func signalsReport(r *selection.SignalReport) signalsJSON {
	out := signalsJSON{Files: r.Files, Lines: r.Lines, Bytes: r.Bytes, Sessions: r.Sessions, Formats: r.Formats, Compacted: r.Compacted,
		RepeatedSessions: r.Repeated, SubagentTranscripts: r.SubAgents,
		Flagged: r.Flagged, SampleSize: r.Config.Sample, Seed: r.Config.Seed, Signals: kindsJSON(r.Kinds),
		Weeks: []weekJSON{}, SkippedLines: r.Skipped.Count, NotRead: r.NotRead, Warnings: r.Warnings}
	out.Window.Turns, out.Window.Steps = r.Config.Window.Turns, r.Config.Window.Steps
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

// bound words one side of the window: "5 turns", or "any number of
// turns" for 0.
func bound(n int, unit string) string {
	if n == 0 {
		return "any number of " + unit + "s"
	}
	return countOf(n, unit)
}

func writeSignalsText(w io.Writer, r *selection.SignalReport) error {
	var formats []string
	for _, f := range agentlog.Formats {
		if n := r.Formats[f]; n > 0 {
			formats = append(formats, fmt.Sprintf("%s %d", f, n))
		}
	}
	kinds := ""
	if len(formats) > 0 {
		kinds = " (" + strings.Join(formats, ", ") + ")"
	}
	fmt.Fprintf(w, "%s, %s (%s uncompressed), %s%s, %d of them compacted; %d flagged (%.1f%% of those compacted).\n\n",
		plural(r.Files, "file"), plural(int(r.Lines), "line"), byteSize(r.Bytes), plural(r.Sessions, "session"), kinds,
		r.Compacted, r.Flagged, 100*float64(r.Flagged)/float64(max(1, r.Compacted)))
	t := table(w)
	fmt.Fprintln(t, "signal\tsessions\toccurrences\tsevere")
	for _, k := range r.Kinds {
		// Severe occurrences cluster: ten duplicate replies in one
		// session are one incident, so the sessions are said too.
		severe := strconv.Itoa(k.Severe)
		if k.Severe > 0 {
			severe += " (" + plural(k.SevereSessions, "session") + ")"
		}
		fmt.Fprintf(t, "%s\t%d\t%d\t%s\n", k.Kind, k.Sessions, k.Signals, severe)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nWindow: %s and %s after each compaction. Repeated calls flagged only when a result was lost or a side effect redone (severe).\n",
		bound(r.Config.Window.Turns, "turn"), bound(r.Config.Window.Steps, "step"))
	fmt.Fprintf(w, "Weekly sample: up to %d flagged sessions per ISO week (seed %d), taken in turn from each signal.\n\n", r.Config.Sample, r.Config.Seed)
	t = table(w)
	fmt.Fprintln(t, "week\tsessions\tflagged\trepeated\trestated\tsampled")
	for _, wk := range r.Weeks {
		fmt.Fprintf(t, "%s\t%d\t%d\t%d\t%d\t%d\n", wk.Week, wk.Sessions, wk.Flagged, wk.Kinds[0].Sessions, wk.Kinds[1].Sessions, len(wk.Sample))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if r.Config.Sample > 0 && r.Flagged > 0 {
		fmt.Fprintln(w, "\nSampled sessions (R: repeated tool call, R!: a severe one, I: restated instruction):")
		for _, wk := range r.Weeks {
			var ids []string
			for _, f := range wk.Sample {
				tag := ""
				if f.Has(selection.RepeatedToolCall) {
					tag += "R"
					if f.Severe() {
						tag += "!"
					}
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
	if notRead := notReadLine(r.NotRead); notRead != "" {
		fmt.Fprintf(w, "\nNot read: %s.\n", notRead)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		writeWarnings(w, r.Warnings)
	}
	return nil
}

// notReadLine words the records skipped by type, most first: "12 progress,
// 3 file-history-snapshot", "" when none were.
func notReadLine(m map[string]int) string {
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range m {
		all = append(all, kv{k, n})
	}
	slices.SortFunc(all, func(a, b kv) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.k, b.k)
	})
	var parts []string
	for _, e := range all {
		parts = append(parts, fmt.Sprintf("%d %s", e.n, e.k))
	}
	return strings.Join(parts, ", ")
}

// byteSize is n bytes in MB with one decimal, or in kB or bytes when
// that would show 0.0 (a new user's small logs read "0.0 MB").
func byteSize(n int64) string {
	switch {
	case n >= 50_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return plural(int(n), "byte")
}
