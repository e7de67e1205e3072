package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/text/unicode/norm"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/draft"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/ordered"
	"github.com/tally-eval/tally/selection"
)

// draftJSON is the JSON output of `tally fixtures draft`.
type draftJSON struct {
	Sessions []draftSessionJSON `json:"sessions"`
	Drafted  int                `json:"drafted"`
	Skipped  int                `json:"skipped"`
	// Repeated counts sessions read again from a later log (the same
	// session id), drafted once from the first; SubAgents the logs of a
	// sub-agent alone, which are not sessions; Unread the logs of which
	// no record was read (every line skipped), which are not either.
	// All are listed in sessions with their reason, not drafted.
	Repeated  int `json:"repeated"`
	SubAgents int `json:"subagent_transcripts"`
	Unread    int `json:"unread_logs"`
	// BadLines counts the malformed lines skipped under --skip-bad.
	BadLines int `json:"skipped_lines"`
	// Model counts a model proposer's requests and the proposals its
	// cache answered (absent for the rules).
	Model *draftModelJSON `json:"model,omitempty"`
}

// draftModelJSON is what a model proposer did: requests made (a re-ask
// is one more) and proposals answered from the cache.
type draftModelJSON struct {
	Calls  int64 `json:"calls"`
	Cached int64 `json:"cached"`
}

type draftSessionJSON struct {
	Source         string             `json:"source"`
	SessionID      string             `json:"session_id"`
	ConversationID string             `json:"conversation_id,omitempty"`
	Drafted        bool               `json:"drafted"`
	Reason         string             `json:"reason,omitempty"`
	TypedTurns     int                `json:"typed_turns"`
	Turns          int                `json:"turns,omitempty"`
	Candidates     int                `json:"candidates"`
	ByClass        map[string]int     `json:"by_class,omitempty"`
	CandidatesFile string             `json:"candidates_file,omitempty"`
	Compactions    []draftCompactJSON `json:"compactions"`
	Notes          []string           `json:"notes"`
}

type draftCompactJSON struct {
	Line         int    `json:"line"`
	Trigger      string `json:"trigger"`
	PreTokens    int64  `json:"pre_tokens"`
	TypedTurn    int    `json:"typed_turn"`
	Context      int    `json:"context"`
	Turn         int    `json:"turn,omitempty"`
	Messages     int    `json:"messages"`
	SummaryChars int    `json:"summary_chars"`
	Proposed     int    `json:"proposed"`
	Live         int    `json:"live"`
	File         string `json:"file,omitempty"`
}

func newFixturesDraftCmd(opts *options) *cobra.Command {
	var (
		output, proposer string
		logFormat        agentlog.Format
		minConfidence    float64
		force, skipBad   bool
		lim              limitFlags
		jf               judgeFlags
	)
	cmd := &cobra.Command{
		Use:   "draft SESSION|FOLDER... -o DIR",
		Short: "Draft fixtures from real agent sessions: candidates to review, and the real compacted contexts",
		Long: `draft reads each SESSION — a real agent log: Claude Code session JSONL, a Codex
CLI rollout or the generic chat-messages format, gzipped or not — and, for
every session with a compaction, drafts a fixture for review:

  DIR/candidates/<conversation_id>.json   the items proposed from the turns
                                           before each compaction, for tally review
  DIR/contexts/<conversation_id>/<n>.json  the compacted context the agent really
                                           continued from after compaction n (the
                                           incumbent's), for tally check --contexts

The conversation id is the session's id. Items are proposed (as tally propose
does: --proposer rules, the default, or llm or hybrid with the judge flags) from the
turns before each compaction and merged, so every item is live at the
compactions it was stated before. The llm (and hybrid) proposer is asked once per
compaction, about the turns before it. A fixture's turn is a typed turn,
except that a compaction inside a typed turn starts a new one (the agent
continuing from the compacted context): so turns counts the typed turns plus
those compactions, and each context's turn is the first that begins from it.

The context of a compaction is what it kept word for word (a Codex
compaction keeps the person's own messages, the most recent 20,000 tokens of
them; Claude Code's keeps none), then its summary, then the injected user
messages after it before the agent's next step or the next typed prompt
(Claude Code writes a manual /compact's output there), each as a user
message; the next prompt starts the turn the context serves and is not in
it. A compaction whose summary the log holds only encrypted (a Codex remote
compaction) or not at all is left out, with a note.

A malformed line is an error naming its file, line and column; --skip-bad
skips such lines instead, reporting each on stderr.

Every file is written at once or none is. An existing candidates file may hold
a review under way, so draft refuses to replace any file unless --force (which
also removes contexts beyond the new count). A session without a compaction
with a summary gives no fixture; when no SESSION does, draft exits 1.`,
		Example: `  tally fixtures draft ~/.claude/projects/-src-cli/9f1c2d3e.jsonl -o drafts
  tally review drafts/candidates/9f1c2d3e.json -o fixtures/9f1c2d3e.json
  tally check --fixtures fixtures --contexts drafts/contexts --system claude-code-compact \
    --judge command --command ./judge.sh -o verdicts/claude-code-compact.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if math.IsNaN(minConfidence) || minConfidence < 0 || minConfidence > 1 {
				return usagef("--min-confidence must be between 0 and 1, got %v", minConfidence)
			}
			if err := usableFolder("-o", output); err != nil {
				return err
			}
			propose, stats, err := sessionProposer(cmd.Context(), proposer, &jf, lim.Limits, selection.ProposeOptions{MinConfidence: minConfidence})
			if err != nil {
				return err
			}
			args, _, err = expandLogArgs(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			bad := 0
			o := skippedLines(logFormat, lim.Limits, skipBad, cmd.ErrOrStderr(), &bad)
			res, files, err := draftSessions(cmd.Context(), args, output, o, lim.Limits, propose, proposer == "rules", draftWorkers(proposer, jf.concurrency))
			if err != nil {
				return err
			}
			res.BadLines = bad
			if stats != nil {
				res.Model = &draftModelJSON{Calls: stats.Calls(), Cached: stats.Cached()}
			}
			remove, err := draftTargets(files, res, output, force)
			if err != nil {
				return err
			}
			if err := writeDraftSet(files, remove); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return writeJSON(w, res)
			}
			writeDraftText(w, res, output)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVarP(&output, "output", "o", "", "folder to write candidates/ and contexts/ into")
	registerLogFormat(cmd, &logFormat)
	fl.Float64Var(&minConfidence, "min-confidence", selection.DefaultMinConfidence, "leave out candidates below this confidence (0 keeps all)")
	fl.StringVar(&proposer, "proposer", "rules", "rules (offline), llm (a model through the judge flags: --judge, --model, --command, --cache, …) or hybrid (the model's items and the rules' references, constraints and commitments)")
	fl.BoolVar(&skipBad, "skip-bad", false, "skip malformed lines (each reported on stderr) instead of failing")
	fl.BoolVar(&force, "force", false, "replace existing candidates and contexts (a review under way in a candidates file is lost)")
	lim.register(cmd)
	jf.register(cmd)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// draftSessions drafts every session of every log, returning the output
// model and the files to write (nothing is written yet). When no session
// has a compaction with a summary, the error says so for each. Sessions
// are read in order, one file at a time, and drafted on up to workers
// goroutines (each proposing up to workers compactions at once: a model
// proposer's calls take seconds, and its backend bounds the calls in
// flight), their results taken in the order read, so the output does not
// depend on workers.
func draftSessions(ctx context.Context, paths []string, dir string, o agentlog.Options, lim input.Limits, propose draft.Proposer, rules bool, workers int) (draftJSON, []atomicfile.File, error) {
	res := draftJSON{Sessions: []draftSessionJSON{}}
	var files []atomicfile.File
	var noneErrs []error
	byID := map[string]string{}
	err := ordered.Run(workers, func(emit func(*draftJob, bool) bool) error {
		bySession := map[string]draftCopy{}
		for _, path := range paths { // in order, one session at a time
			err := eachSession(path, o, lim, func(s *agentlog.Session) error {
				if err := ctx.Err(); err != nil {
					return err // interrupted: draft no more sessions
				}
				j := &draftJob{path: path, s: s}
				j.out = draftSessionJSON{Source: path, SessionID: s.ID, TypedTurns: len(s.Turns), Compactions: []draftCompactJSON{}, Notes: []string{}}
				build := false
				switch prev, ok := bySession[s.ID]; {
				case s.SubAgentOnly():
					j.out.Reason, j.subAgent = "a sub-agent's own transcript (every record isSidechain), not a session: its parent's log holds the sub-agent's call and result", true
				case s.Unread():
					// Every line skipped (--skip-bad on a prompt history, a
					// session index): signals and select count no session
					// here either (a new user's trial saw "5 of 8 drafted").
					j.out.Reason, j.unread = "no record read (every line skipped, as malformed or by its type): not a session", true
				case ok && s.ID != "":
					j.out.Reason, j.repeated = "read from "+prev.path+" already (a resumed session's log copies its parent's records): drafted once, from the first file that has it", true
					if n := s.Records.Lines(); n > prev.lines {
						j.out.Reason += fmt.Sprintf(" — this copy is longer (%d lines, against %d there): give this file first to draft it instead", n, prev.lines)
					}
				default:
					bySession[s.ID] = draftCopy{path, s.Records.Lines()}
					build = true
				}
				if !emit(j, build) {
					return errStopped
				}
				return nil
			})
			if errors.Is(err, errStopped) {
				return nil
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, func(j *draftJob) {
		j.d, j.err = draft.BuildConcurrent(j.s, propose, workers)
		if j.err == nil && rules && !selection.ReadsEnglish(j.s) {
			j.d.Notes = append(j.d.Notes, notEnglishNote)
		}
	}, func(j *draftJob) error {
		out := j.out
		defer func() { j.s, j.d = nil, nil }() // let the session go
		switch {
		case j.subAgent:
			res.Sessions = append(res.Sessions, out)
			res.SubAgents++
		case j.repeated:
			res.Sessions = append(res.Sessions, out)
			res.Repeated++
		case j.unread:
			res.Sessions = append(res.Sessions, out)
			res.Unread++
		case errors.Is(j.err, draft.ErrNoCompaction):
			out.Reason = draft.ErrNoCompaction.Error()
			out.Notes = append(out.Notes, j.d.Notes...)
			res.Sessions = append(res.Sessions, out)
			res.Skipped++
			noneErrs = append(noneErrs, j.err)
		case j.err != nil:
			return j.err
		default:
			id := j.d.Candidates.ConversationID
			// Folders named alike but for case or Unicode normalisation
			// are one folder on Windows and macOS disks.
			key := strings.ToLower(norm.NFC.String(id))
			if prev, dup := byID[key]; dup {
				return fmt.Errorf("%s: session %+q would be drafted as conversation %+q, and %s: one folder on a disk that ignores case and Unicode normalisation (Windows, macOS); draft them apart, or change one session's id", j.path, j.s.ID, id, prev)
			}
			byID[key] = fmt.Sprintf("session %+q of %s as %+q", j.s.ID, j.path, id)
			files = append(files, draftFiles(j.d, dir)...)
			fillDraftJSON(&out, j.d, dir)
			res.Sessions = append(res.Sessions, out)
			res.Drafted++
		}
		return nil
	})
	if err != nil {
		return res, nil, err
	}
	if res.Drafted == 0 {
		if len(noneErrs) == 0 { // not one session: empty logs
			return res, nil, fmt.Errorf("%s: no session to draft (an empty log holds none)", strings.Join(paths, ", "))
		}
		if res.Repeated > 0 {
			noneErrs = append(noneErrs, fmt.Errorf("%s read again from a later file not drafted: a later copy may hold the compaction (give its file first)", countOf(res.Repeated, "session")))
		}
		return res, nil, errors.Join(noneErrs...)
	}
	return res, files, nil
}

// draftJob is one session on its way through draftSessions: skipped (a
// sub-agent's transcript, a repeated session) or drafted by a worker,
// taken in the order read.
type draftJob struct {
	path               string
	s                  *agentlog.Session
	out                draftSessionJSON
	subAgent, repeated bool
	unread             bool // no record of the log was read
	d                  *draft.Draft
	err                error
}

// draftCopy is where a session was first read: its log and its lines.
type draftCopy struct {
	path  string
	lines int
}

// errStopped stops reading the logs once a result has failed.
var errStopped = errors.New("stopped")

// eachSession calls fn with each session of the log at path, one at a
// time.
func eachSession(path string, o agentlog.Options, lim input.Limits, fn func(*agentlog.Session) error) error {
	f, err := input.Open(path, lim)
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := agentlog.NewReader(f, path, o)
	if err != nil {
		return err
	}
	defer rd.Close()
	for {
		s, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
	}
}

// draftFiles are the files of one draft: its candidates file, then its
// contexts.
func draftFiles(d *draft.Draft, dir string) []atomicfile.File {
	id := d.Candidates.ConversationID
	p := d.Candidates
	files := []atomicfile.File{{Path: filepath.Join(dir, "candidates", id+".json"),
		Write: func(w io.Writer) error { return selection.WriteCandidates(w, p) }}}
	for _, c := range d.Contexts {
		files = append(files, atomicfile.File{Path: filepath.Join(dir, "contexts", id, strconv.Itoa(c.Compaction)+".json"),
			Write: func(w io.Writer) error { return draft.WriteContext(w, c) }})
	}
	return files
}

func fillDraftJSON(out *draftSessionJSON, d *draft.Draft, dir string) {
	id := d.Candidates.ConversationID
	out.ConversationID, out.Drafted, out.Turns = id, true, d.Candidates.Turns
	out.Candidates = len(d.Candidates.Candidates)
	out.ByClass = map[string]int{}
	for _, c := range fixture.Classes {
		out.ByClass[string(c)] = 0
	}
	for _, c := range d.Candidates.Candidates {
		out.ByClass[string(c.Class)]++
	}
	out.CandidatesFile = filepath.Join(dir, "candidates", id+".json")
	for _, c := range d.Compactions {
		cj := draftCompactJSON{Line: c.Line, Trigger: c.Trigger, PreTokens: c.PreTokens, TypedTurn: c.TypedTurn, Context: c.Context,
			Turn: c.Turn, Messages: c.Messages, SummaryChars: c.SummaryChars, Proposed: c.Proposed, Live: c.Live}
		if c.Context > 0 {
			cj.File = filepath.Join(dir, "contexts", id, strconv.Itoa(c.Context)+".json")
		}
		out.Compactions = append(out.Compactions, cj)
	}
	out.Notes = append(out.Notes, d.Notes...)
}

// draftWorkers is how many sessions, and compactions of a session,
// fixtures draft works on at once: the rules' cores, or a model's
// requests in flight (--concurrency).
func draftWorkers(proposer string, concurrency int) int {
	if proposer == "rules" {
		return runtime.GOMAXPROCS(0)
	}
	return concurrency
}

// notEnglishNote is the note on a session the rules read whose typed text
// does not read as English (selection.ReadsEnglish).
const notEnglishNote = "the person typed in a language other than English (few English function words): the rules find its references but hardly its constraints and commitments; --proposer llm reads any language"

// draftTargets refuses, unless force, to replace a file that exists; with
// force it returns the numbered contexts beyond the new count, to remove.
func draftTargets(files []atomicfile.File, res draftJSON, dir string, force bool) ([]string, error) {
	var exist []string
	for _, f := range files {
		if _, err := os.Lstat(f.Path); err == nil {
			exist = append(exist, f.Path)
		}
	}
	if len(exist) > 0 && !force {
		more := ""
		if len(exist) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(exist)-1)
		}
		return nil, fmt.Errorf("%s exists%s: a candidates file may hold a review under way; use --force to replace the drafts", exist[0], more)
	}
	var remove []string
	for _, s := range res.Sessions {
		if !s.Drafted {
			continue
		}
		n := 0
		for _, c := range s.Compactions {
			n = max(n, c.Context)
		}
		paths, err := fixture.ContextFiles(filepath.Join(dir, "contexts"), s.ConversationID)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if k, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(p), ".json")); err == nil && k > n {
				if !force {
					return nil, fmt.Errorf("%s exists beyond the %d contexts drafted; use --force to remove it", p, n)
				}
				remove = append(remove, p)
			}
		}
	}
	return remove, nil
}

// writeDraftSet creates the folders and writes every file at once; on an
// error it removes the folders it created (they are empty then).
func writeDraftSet(files []atomicfile.File, remove []string) error {
	var made []string
	for _, f := range files {
		d := filepath.Dir(f.Path)
		for _, dd := range []string{filepath.Dir(d), d} {
			if _, err := os.Stat(dd); errors.Is(err, os.ErrNotExist) {
				if err := os.MkdirAll(dd, 0o755); err != nil {
					return err
				}
				made = append(made, dd)
			}
		}
	}
	if err := atomicfile.WriteSet(files, remove); err != nil {
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
		return err
	}
	return nil
}

// maxListedSkips is the most sessions without a compaction the text
// output lists one by one; beyond it, only their count (and those with a
// note) are printed.
const maxListedSkips = 5

// writeDraftText prints what was drafted, and the next steps.
func writeDraftText(w io.Writer, res draftJSON, dir string) {
	others := 0 // sessions read again and sub-agent transcripts listed
	for _, s := range res.Sessions {
		if !s.Drafted && res.Skipped > maxListedSkips && len(s.Notes) == 0 && s.Reason == draft.ErrNoCompaction.Error() {
			continue // counted below
		}
		if !s.Drafted && s.Reason != draft.ErrNoCompaction.Error() {
			if others++; others > maxListedSkips {
				continue // counted below
			}
		}
		if !s.Drafted {
			if s.SessionID == "" { // a log with no record read names none
				fmt.Fprintf(w, "%s: %s\n", review.Printable(s.Source), s.Reason)
			} else {
				fmt.Fprintf(w, "%s: session %s: %s\n", review.Printable(s.Source), review.Printable(s.SessionID), s.Reason)
			}
			for _, n := range s.Notes {
				fmt.Fprintf(w, "  note: %s\n", review.Printable(n))
			}
			continue
		}
		parts := make([]string, 0, len(fixture.Classes))
		for _, c := range fixture.Classes {
			parts = append(parts, fmt.Sprintf("%d %s", s.ByClass[string(c)], c))
		}
		kept := 0
		for _, c := range s.Compactions {
			if c.Context > 0 {
				kept++
			}
		}
		fmt.Fprintf(w, "%s: session %s: %s, %s → a fixture of %s; %s (%s)\n",
			review.Printable(s.Source), review.Printable(s.SessionID), countOf(s.TypedTurns, "typed turn"), countOf(kept, "compaction"),
			countOf(s.Turns, "turn"), countOf(s.Candidates, "candidate"), strings.Join(parts, ", "))
		tw := table(w)
		fmt.Fprintln(tw, "  context\tline\ttrigger\ttyped turn\tturn\tmessages\tsummary\tproposed\tlive")
		for _, c := range s.Compactions {
			ctx, turn := "-", "-"
			if c.Context > 0 {
				ctx, turn = strconv.Itoa(c.Context), strconv.Itoa(c.Turn)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%s\t%d\t%d chars\t%d\t%d\n", ctx, c.Line, review.Printable(orNone(c.Trigger)), c.TypedTurn, turn, c.Messages, c.SummaryChars, c.Proposed, c.Live)
		}
		tw.Flush()
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", review.Printable(n))
		}
	}
	if res.Skipped > 0 {
		listed := ""
		if res.Skipped > maxListedSkips {
			listed = " (--format json lists them)"
		}
		fmt.Fprintf(w, "%d of %d sessions drafted; %d without a compaction with a summary%s\n", res.Drafted, res.Drafted+res.Skipped, res.Skipped, listed)
	}
	if res.Repeated > 0 {
		fmt.Fprintf(w, "note: %s read again from a later file, drafted once from the first\n", countOf(res.Repeated, "session"))
	}
	if others > maxListedSkips {
		fmt.Fprintf(w, "note: %d of the sessions read again and sub-agent transcripts are listed above (--format json lists them all)\n", maxListedSkips)
	}
	if res.SubAgents > 0 {
		fmt.Fprintf(w, "note: %s not drafted: not sessions\n", countOf(res.SubAgents, "sub-agent transcript"))
	}
	if res.Unread > 0 {
		fmt.Fprintf(w, "note: %s with no record read not drafted: not sessions\n", countOf(res.Unread, "log"))
	}
	if res.BadLines > 0 {
		fmt.Fprintf(w, "note: %s skipped (listed on stderr)\n", countOf(res.BadLines, "malformed line"))
	}
	if m := res.Model; m != nil {
		fmt.Fprintf(w, "the model: %s made, %s answered from the cache\n", countOf(int(m.Calls), "request"), countOf(int(m.Cached), "proposal"))
	}
	id, each := "<conversation_id>", ", for each"
	if res.Drafted == 1 {
		for _, s := range res.Sessions {
			if s.Drafted {
				id, each = s.ConversationID, ""
			}
		}
	}
	skip := ""
	if res.Drafted > 1 {
		skip = " --skip-orphans" // the sessions not reviewed (yet) have contexts and no fixture
	}
	// The placeholder stays bare, for the reader to replace.
	candidates := shellWord(review.Printable(filepath.Join(dir, "candidates"))) + string(filepath.Separator) + review.Printable(id) + ".json"
	fixture := "FIXTURES/" + review.Printable(id) + ".json"
	if each == "" {
		candidates = shellWord(review.Printable(filepath.Join(dir, "candidates", id+".json")))
		fixture = shellWord(fixture) // a re-check trial: "team_sess 1" was two words
	}
	fmt.Fprintf(w, "\nwrote %s and %s\nnext: tally review %s -o %s%s;\n      then tally check --fixtures FIXTURES --contexts %s%s --system NAME --judge-verbatim …\n",
		review.Printable(filepath.Join(dir, "candidates")), review.Printable(filepath.Join(dir, "contexts")),
		candidates, fixture, each, shellWord(review.Printable(filepath.Join(dir, "contexts"))), skip)
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
