package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

func newProposeCmd(opts *options) *cobra.Command {
	var (
		session, output string
		logFormat       agentlog.Format
		proposer        string
		minConfidence   float64
		skipBad         bool
		lim             limitFlags
		jf              judgeFlags
	)
	cmd := &cobra.Command{
		Use:   "propose LOG [--session ID] [--log-format F] [--proposer rules|llm|hybrid] [--min-confidence C] [-o CANDIDATES.json]",
		Short: "Propose candidate fixture items from an agent session, for review",
		Long: `propose runs the arrival-time classifier over an agent session and
proposes the items that bind later turns — constraints the person set,
commitments the assistant made ("I won't …", "I'll keep … until …"),
questions the person left open, and references that look like identifiers
(paths, file:line, URLs, tickets, commit hashes, branch names) — each with
its turn, its literal text, a drafted probe and expected answer, a
confidence and the rule that proposed it. It reads what a person typed
(never injected text: compaction summaries, system reminders, command
output) and the assistant's text. A person then confirms or rejects them
with tally review.

LOG is an agent log, gzipped or not: a Claude Code session, a Codex CLI
rollout, the generic chat-messages format or tally's own event log, its
format sniffed from the first line or given with --log-format. It may hold
one session or many; with many, --session chooses one. A malformed line is
an error naming its file, line and column; --skip-bad skips such lines
instead, reporting each on stderr.

--proposer rules (the default) runs the rules, offline. --proposer llm asks
a model instead, through the judge backends (--judge openai, anthropic or
command, with --model, --base-url, --command and the other judge flags):
the prompt is selection.LLMPrompt followed by the session's lines; the
reply must hold one JSON object {"items": [...]} (prose around it is
passed over) whose every item names a class, a turn of the session, a
literal copied from that turn, a probe, an expected answer and a
confidence; a reply that does not is asked again with its problem said
(--reasks times), and then the command fails saying what was wrong. The
model's constraints and open questions found in an accepted plan
("Implement the following plan: …", the agent's words) are left out.
Replies that parsed are kept in the judge cache (--cache), so the
same session is not asked twice. (--template, --recorded and --no-agree
are check's: given here, they are checked as there, then not used.)
--proposer hybrid asks the
model the same way and keeps its constraints, commitments and open
questions, with the rules' references, constraints and commitments (an
item both propose, once): on real sessions the rules found references
best, and each found constraints and commitments the other missed.

-o writes the candidates file (atomically). --format json prints the
candidates file itself; text prints them as a table.`,
		Example: `  tally propose ~/.claude/projects/myrepo/0276a600.jsonl -o cands.json
  tally propose examples/quarterly/events/week-01.jsonl.gz --session sess_2026_01_06_75ad -o cands.json
  tally review cands.json -o fixtures/sess_2026_01_06_75ad.json`,
		Args: cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if math.IsNaN(minConfidence) || minConfidence < 0 || minConfidence > 1 {
				return fmt.Errorf("--min-confidence must be between 0 and 1, got %v", minConfidence)
			}
			path := args[0]
			skipped := 0
			o := skippedLines(logFormat, lim.Limits, skipBad, cmd.ErrOrStderr(), &skipped)
			propose, _, err := sessionProposer(cmd.Context(), proposer, &jf, lim.Limits, selection.ProposeOptions{MinConfidence: minConfidence})
			if err != nil {
				return err
			}
			s, err := pickSession(path, session, o, lim.Limits)
			if err != nil {
				return err
			}
			if err := proposable(path, s); err != nil {
				return err
			}
			p, err := propose(s)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if err := p.Validate(); err != nil {
				return fmt.Errorf("%s: the proposal is not a valid candidates file: %w", path, err)
			}
			if output != "" {
				if err := writeCreatingFolder(output, func(w io.Writer) error { return selection.WriteCandidates(w, p) }); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return selection.WriteCandidates(w, p)
			}
			writeProposal(w, p, minConfidence, skipped)
			if proposer == "rules" && !selection.ReadsEnglish(s) {
				fmt.Fprintf(w, "\nnote: %s\n", notEnglishNote)
			}
			if output != "" {
				fmt.Fprintf(w, "\nwrote %s; next: tally review %s -o FIXTURE.json\n", output, shellWord(output))
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&session, "session", "", "the session to propose from, when the log holds several")
	registerLogFormat(cmd, &logFormat)
	fl.StringVarP(&output, "output", "o", "", "candidates file to write (JSON), atomically; its folder is created if need be")
	fl.Float64Var(&minConfidence, "min-confidence", selection.DefaultMinConfidence, "leave out candidates below this confidence (0 keeps all)")
	fl.BoolVar(&skipBad, "skip-bad", false, "skip malformed lines (each reported on stderr) instead of failing")
	fl.StringVar(&proposer, "proposer", "rules", "rules (offline), llm (a model through the judge flags: --judge, --model, --command, --cache, …) or hybrid (the model's items and the rules' references, constraints and commitments)")
	lim.register(cmd)
	jf.register(cmd)
	return cmd
}

// proposable says why s, read from path, is no session to propose
// from, as signals and fixtures draft say it (a new user's trial got
// "the proposal is not a valid candidates file: turns: must be at least
// 1" for a sub-agent's transcript): nil when it is one.
func proposable(path string, s *agentlog.Session) error {
	switch {
	case s.SubAgentOnly():
		return fmt.Errorf("%s: a sub-agent's own transcript (every record isSidechain), not a session: propose from its parent's log, which holds the sub-agent's call and result", path)
	case s.Unread():
		return fmt.Errorf("%s: no record read (every line skipped, as malformed or by its type): not a session", path)
	case len(s.Turns) == 0:
		return fmt.Errorf("%s: session %+q has no prompt a person typed: nothing to propose items from", path, s.ID)
	}
	return nil
}

// pickSession reads the log at path one session at a time and returns
// the one the command works on: the only one, or the one named id.
// Only that session is kept in memory.
func pickSession(path, id string, o agentlog.Options, lim input.Limits) (*agentlog.Session, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, err := agentlog.NewReader(f, path, o)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var (
		picked *agentlog.Session
		ids    []string
		n      int
	)
	for {
		s, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		if len(ids) < 3 {
			ids = append(ids, s.ID)
		}
		if id == "" || s.ID == id {
			if picked == nil {
				picked = s
			}
		}
	}
	switch {
	case id != "" && picked == nil:
		return nil, fmt.Errorf("%s: no session %q", path, id)
	case id == "" && n > 1:
		if n > 3 {
			ids = append(ids, "…")
		}
		return nil, fmt.Errorf("%s holds %d sessions (%s); choose one with --session ID", path, n, strings.Join(ids, ", "))
	case picked == nil:
		return nil, fmt.Errorf("%s: no sessions", path)
	}
	return picked, nil
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
