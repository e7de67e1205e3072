package main

import (
	"fmt"
	"io"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/stats"
)

// replayKindJSON is one reference kind's paired table.
type replayKindJSON struct {
	Kind  string `json:"kind"`
	Pairs int    `json:"pairs"`
	Table [4]int `json:"table"`
}

// queueJSON is one conversation of the review queue.
type queueJSON struct {
	ConversationID string `json:"conversation_id"`
	Change         string `json:"change"` // lost | gained
	Reference      string `json:"reference"`
	Candidate      string `json:"candidate"`
	ReferenceKind  string `json:"reference_kind"`
}

// replayJSON is the JSON contract of `tally replay`: the McNemar output
// of `tally mcnemar` plus the reference kinds, the review queue and the
// sentence saying what the difference is worth.
type replayJSON struct {
	mcnemarJSON
	ReferenceKinds []replayKindJSON `json:"reference_kinds"`
	Queue          []queueJSON      `json:"review_queue"`
	QueueFile      string           `json:"queue_file,omitempty"`
	Sentence       string           `json:"sentence"`
	// Grade is the sentence's grade: "significant", "inconclusive" or
	// "no change", under Rule, against Drop (a fraction).
	Grade string  `json:"grade"`
	Rule  string  `json:"rule"`
	Drop  float64 `json:"drop"`
}

func newReplayJSON(rp *report.Replay, queueFile string) replayJSON {
	out := replayJSON{mcnemarJSON: newMcNemarJSON(rp.Result), QueueFile: queueFile, Sentence: rp.Sentence,
		Grade: rp.Grade, Rule: rp.Rule, Drop: rp.Drop,
		ReferenceKinds: []replayKindJSON{}, Queue: []queueJSON{}}
	for _, k := range rp.ByKind {
		out.ReferenceKinds = append(out.ReferenceKinds, replayKindJSON{Kind: k.Kind, Pairs: k.Table.Pairs(),
			Table: [4]int{k.Table.A, k.Table.B, k.Table.C, k.Table.D}})
	}
	for _, p := range rp.Discordant {
		out.Queue = append(out.Queue, queueJSON{ConversationID: p.ConversationID, Change: queueChange(p),
			Reference: p.Reference, Candidate: p.Candidate, ReferenceKind: p.ReferenceKind})
	}
	return out
}

func queueChange(p report.ReplayPair) string {
	if p.Reference == report.Success {
		return "lost"
	}
	return "gained"
}

func newReplayCmd(opts *options) *cobra.Command {
	var (
		confidence, drop float64
		output           string
		lim              limitFlags
	)
	cmd := &cobra.Command{
		Use:   "replay PAIRS.jsonl [-o queue.csv] [--confidence 0.95] [--drop 0.05]",
		Short: "Paired task success of a replay: McNemar tests, paired intervals, the review queue",
		Long: `replay analyses a behavioural replay: each recorded conversation run twice
from the same prefix, once as the reference (an uncompacted run, or for
conversations too long for that a recorded run a person accepted) and once
with the compaction under test. Each line of PAIRS.jsonl is
{"conversation_id","reference":"success"|"failure","candidate":"success"|"failure",
"reference_kind":"uncompacted"|"accepted_trace"}.

It prints the paired table, the McNemar tests and the paired-difference
intervals (as tally mcnemar), how many references were uncompacted runs and
how many accepted traces, and the review queue: the discordant conversations,
lost before gained, the only ones carrying information about the change.
With -o it writes the queue as CSV for reviewers, atomically, with empty
reviewer, caused_by_compaction and notes columns; a cell starting with
= + - @ tab CR or NUL is prefixed with ' so that no spreadsheet runs it.

Its last line grades the difference by a rule it prints with it:
significant when the exact McNemar p is below α (1 − confidence);
otherwise inconclusive when the interval's lower end is below −d, a drop of
d (--drop, default 0.05: five points) not being ruled out; otherwise
consistent with no change.`,
		Example: "  tally replay examples/quarterly/replay.jsonl -o queue.csv",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if err := stats.ValidateConfidence(confidence); err != nil {
				return usagef("--confidence: %w", err)
			}
			if !(drop > 0 && drop < 1) {
				return usagef("--drop %v: want a drop in task success strictly between 0 and 1, such as 0.05 for five points", drop)
			}
			pairs, err := report.LoadReplay(args[0], lim.Limits)
			if err != nil {
				return err
			}
			rp, err := report.AnalyzeReplay(pairs, confidence, drop)
			if err != nil {
				return fmt.Errorf("--confidence %v: %w", confidence, err)
			}
			if output != "" {
				if err := writeCreatingFolder(output, func(w io.Writer) error { return report.WriteQueue(w, rp) }); err != nil {
					return err
				}
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newReplayJSON(rp, output))
			}
			return writeReplayText(cmd, rp, output)
		}),
	}
	cmd.Flags().Float64Var(&confidence, "confidence", 0.95, "confidence level of the intervals, strictly between 0 and 1")
	cmd.Flags().Float64Var(&drop, "drop", report.DefaultReplayDrop, "the drop in task success of interest, as a fraction: an interval reaching below −drop is inconclusive")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the review queue as CSV to this file, atomically; its folder is created if need be")
	lim.register(cmd)
	return cmd
}

func writeReplayText(cmd *cobra.Command, rp *report.Replay, output string) error {
	w := cmd.OutOrStdout()
	t := rp.Result.Table
	fmt.Fprintf(w, "task success: reference %d/%d, candidate %d/%d (reported, not gated)\n",
		t.A+t.B, rp.Result.Pairs, t.A+t.C, rp.Result.Pairs)
	if err := writeMcNemarText(cmd, rp.Result); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := table(w)
	fmt.Fprintln(tw, "reference kind\tpairs\tA both ok\tB lost\tC gained\tD both failed")
	for _, k := range rp.ByKind {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", kindLabel(k.Kind), k.Table.Pairs(), k.Table.A, k.Table.B, k.Table.C, k.Table.D)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := rp.ReferenceKinds[report.AcceptedTrace]; n > 0 {
		fmt.Fprintf(w, "note: %d references are accepted traces: for those conversations the replay is a regression test against a known-good trace, not against ground truth\n", n)
	}
	fmt.Fprintln(w)
	switch {
	case len(rp.Discordant) == 0:
		fmt.Fprintln(w, "review queue: empty (no discordant conversations)")
	case output != "":
		fmt.Fprintf(w, "review queue: %d discordant conversations (%d lost, %d gained) → %s\n", len(rp.Discordant), t.B, t.C, output)
	default:
		fmt.Fprintf(w, "review queue: %d discordant conversations (%d lost, %d gained); -o FILE writes them as CSV\n", len(rp.Discordant), t.B, t.C)
		tw := table(w)
		fmt.Fprintln(tw, "conversation\tchange\treference kind")
		for _, p := range rp.Discordant {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(p.ConversationID), queueChange(p), p.ReferenceKind)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, rp.Sentence)
	fmt.Fprintf(w, "rule: %s\n", rp.Rule)
	return nil
}

func kindLabel(k string) string {
	switch k {
	case report.Uncompacted:
		return "uncompacted run"
	case report.AcceptedTrace:
		return "accepted trace"
	}
	return k
}

// printable quotes s for a terminal when it holds anything but printable
// characters (an escape sequence, a newline, a tab that would break the
// table), or a format character (Unicode Cf: a bidirectional control, a
// zero-width one, a tag character) other than the joiners U+200C and
// U+200D, as the report's renderers show them (report/internal/format).
func printable(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == '\u2028' || r == '\u2029' ||
			(unicode.Is(unicode.Cf, r) && r != '\u200C' && r != '\u200D') {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
