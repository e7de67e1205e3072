package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

func newProposeCmd(opts *options) *cobra.Command {
	var (
		session, output string
		minConfidence   float64
		skipBad         bool
		lim             limitFlags
	)
	cmd := &cobra.Command{
		Use:   "propose TRANSCRIPT.jsonl",
		Short: "Propose candidate fixture items from a transcript, for review",
		Long: `propose runs the arrival-time classifier over a session's event log and
proposes the items that bind later turns — constraints the user set,
commitments the assistant made ("I'll …"), questions the user left open,
and references to files, revisions, commits, tickets and the like — each
with its turn, its literal text, a drafted probe and expected answer, a
confidence and the rule that proposed it. A person then confirms or rejects
them with tally review.

TRANSCRIPT.jsonl is an event log (one JSON event per line). It may hold one
session or many; with many, --session chooses one. A malformed line is an
error naming its file, line and column; --skip-bad skips such lines instead,
reporting each on stderr.

-o writes the candidates file (atomically). --format json prints the
candidates file itself; text prints them as a table.`,
		Example: `  tally propose examples/quarterly/events/week-01.jsonl --session sess_2026_01_06_75ad -o cands.json
  tally review cands.json -o fixtures/sess_2026_01_06_75ad.json`,
		Args: cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if math.IsNaN(minConfidence) || minConfidence < 0 || minConfidence > 1 {
				return fmt.Errorf("--min-confidence must be between 0 and 1, got %v", minConfidence)
			}
			path := args[0]
			f, err := input.Open(path, lim.Limits)
			if err != nil {
				return err
			}
			log, err := selection.ReadTranscripts(path, f, selection.TranscriptOptions{Session: session, SkipBad: skipBad, Limits: lim.Limits})
			f.Close()
			if err != nil {
				return err
			}
			for _, p := range log.Skipped {
				fmt.Fprintf(cmd.ErrOrStderr(), "tally: %s (line skipped)\n", p.Error())
			}
			t, err := pickTranscript(path, session, log.Sessions)
			if err != nil {
				return err
			}
			p := selection.Propose(t.Session(), selection.ProposeOptions{MinConfidence: minConfidence})
			if err := p.Validate(); err != nil {
				return fmt.Errorf("%s: the proposal is not a valid candidates file: %w", path, err)
			}
			if output != "" {
				if err := atomicfile.Write(output, func(w io.Writer) error { return selection.WriteCandidates(w, p) }); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return selection.WriteCandidates(w, p)
			}
			writeProposal(w, p, minConfidence, len(log.Skipped))
			if output != "" {
				fmt.Fprintf(w, "\nwrote %s; next: tally review %s -o FIXTURE.json\n", output, output)
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&session, "session", "", "the session to propose from, when the log holds several")
	fl.StringVarP(&output, "output", "o", "", "candidates file to write (JSON), atomically")
	fl.Float64Var(&minConfidence, "min-confidence", selection.DefaultMinConfidence, "leave out candidates below this confidence (0 keeps all)")
	fl.BoolVar(&skipBad, "skip-bad", false, "skip malformed lines (each reported on stderr) instead of failing")
	lim.register(cmd)
	return cmd
}

// pickTranscript returns the one session the command works on.
func pickTranscript(path, session string, sessions []selection.Transcript) (selection.Transcript, error) {
	switch {
	case len(sessions) == 1:
		return sessions[0], nil
	case len(sessions) == 0 && session != "":
		return selection.Transcript{}, fmt.Errorf("%s: no events of session %q", path, session)
	case len(sessions) == 0:
		return selection.Transcript{}, fmt.Errorf("%s: no events", path)
	}
	ids := make([]string, 0, 4)
	for _, s := range sessions[:min(3, len(sessions))] {
		ids = append(ids, s.SessionID)
	}
	if len(sessions) > 3 {
		ids = append(ids, "…")
	}
	return selection.Transcript{}, fmt.Errorf("%s holds %d sessions (%s); choose one with --session ID", path, len(sessions), strings.Join(ids, ", "))
}

// writeProposal prints the candidates as an aligned table.
func writeProposal(w io.Writer, p selection.Proposal, minConfidence float64, skipped int) {
	by := map[fixture.Class]int{}
	for _, c := range p.Candidates {
		by[c.Class]++
	}
	parts := make([]string, 0, len(fixture.Classes))
	for _, c := range fixture.Classes {
		parts = append(parts, fmt.Sprintf("%d %s", by[c], c))
	}
	fmt.Fprintf(w, "%s: %s, %s; %s at confidence ≥ %s (%s)\n",
		review.Printable(p.ConversationID), countOf(p.Turns, "turn"), countOf(p.CompactionsExpected, "compaction"),
		countOf(len(p.Candidates), "candidate"), formatFixed(minConfidence, 2), strings.Join(parts, ", "))
	if skipped > 0 {
		fmt.Fprintf(w, "note: %d malformed lines skipped (listed on stderr)\n", skipped)
	}
	if len(p.Candidates) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := table(w)
	fmt.Fprintln(tw, "id\tclass\tturn\tconfidence\trule\tliteral")
	for _, c := range p.Candidates {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", review.Printable(c.ID), c.Class, c.Turn, formatFixed(c.Confidence, 2), review.Printable(c.Rule), clip(review.Printable(c.Literal), 72))
	}
	tw.Flush()
}

// countOf writes n and the noun, in the plural unless n is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
