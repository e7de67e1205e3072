package selection

import (
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/ordered"
)

// A session summary line has "session_id" and "turns" members and no
// "kind" (an event of tally's own log) or "sessionId" (a Claude Code
// record).
var (
	summaryID    = regexp.MustCompile(`(^|[^\\])"session_id"\s*:`)
	summaryTurns = regexp.MustCompile(`(^|[^\\])"turns"\s*:`)
	eventKind    = regexp.MustCompile(`(^|[^\\])"(kind|sessionId|type|messages)"\s*:`)
)

// IsSummaryLine reports whether a file's first line is a session summary
// (DESIGN.md, "Session summary") rather than a line of an agent log: it
// has "session_id" and "turns" and none of the keys that start an agent
// log's line ("kind", "sessionId", "type", "messages").
func IsSummaryLine(first []byte) bool {
	return summaryID.Match(first) && summaryTurns.Match(first) && !eventKind.Match(first)
}

// LogProposer proposes the items of a session read from an agent log, for
// the decisions FromLog counts.
type LogProposer func(*agentlog.Session) ([]ProposedItem, error)

// RuleProposer is the offline proposer: Propose's rules at
// DefaultMinConfidence, every candidate kept as an item.
func RuleProposer(s *agentlog.Session) ([]ProposedItem, error) {
	return Propose(s, ProposeOptions{MinConfidence: DefaultMinConfidence}).Candidates, nil
}

// SelectLogs selects from agent logs (any format agentlog reads, format
// "" to sniff each file): every session of every file is summarised by
// FromLog with the items propose finds in it (RuleProposer when nil), and
// offered to the selection as Select does with summaries. The result's
// Items is ItemsProposed and ProposedItems counts the items proposed.
// Files are read one session at a time (agentlog.NewReader) and proposed
// on GOMAXPROCS workers (propose must be safe for concurrent use), the
// sessions offered in the order read, so memory holds a few sessions
// per worker besides the selection. cfg.Limits bounds each file and line,
// and cfg.SkipBad skips malformed lines, counted in the result's warnings.
func SelectLogs(paths []string, format agentlog.Format, cfg Config, propose LogProposer) (*Result, error) {
	if propose == nil {
		propose = RuleProposer
	}
	sel, err := NewSelector(cfg)
	if err != nil {
		return nil, err
	}
	st := logsState{paths: paths, seen: map[uint64]copyAt{}}
	var bad BadLines
	var proposed, bytes int64
	notEnglish := 0
	var notEnglishIDs []string
	err = ordered.Run(runtime.GOMAXPROCS(0), func(emit func(*logJob, bool) bool) error {
		for i, p := range paths { // in order, one session at a time
			st.file = i
			if err := readLog(p, format, cfg, &st, &bad, emit); err != nil {
				return err
			}
		}
		return nil
	}, func(j *logJob) {
		j.items, j.err = propose(j.s)
		j.english = ReadsEnglish(j.s)
		if j.err != nil {
			j.err = fmt.Errorf("%s: session %s: proposing items: %w", j.path, j.s.ID, j.err)
		}
	}, func(j *logJob) error {
		switch {
		case j.err != nil:
			return j.err
		case j.s == nil: // the end of a file
			bytes += j.bytes
			return nil
		}
		proposed += int64(len(j.items))
		if !j.english {
			if notEnglish++; notEnglish <= MaxReported {
				notEnglishIDs = append(notEnglishIDs, j.s.ID)
			}
		}
		sum := FromLog(j.s, j.items)
		sum.Started = j.s.Start
		st.n++
		return sel.add(&sum, nil, st.n)
	})
	if err != nil {
		return nil, err
	}
	res := sel.Result()
	res.Items, res.ProposedItems, res.Bytes, res.Skipped = ItemsProposed, proposed, bytes, bad
	res.Repeated, res.SubAgents, res.Unread = st.repeated, st.subagents, st.unread
	res.Warnings = append(res.Warnings, st.notes...)
	res.Warnings = append(res.Warnings, copyNotes(st.repeated, st.subagents, st.unread)...)
	res.Warnings = append(res.Warnings, bad.Warnings()...)
	if notEnglish > 0 {
		res.NotEnglish = notEnglish
		named := strings.Join(notEnglishIDs, ", ")
		if notEnglish > len(notEnglishIDs) {
			named += fmt.Sprintf(" and %d more", notEnglish-len(notEnglishIDs))
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s typed in a language other than English (%s): the rules find their references but hardly their constraints and commitments, so their decisions are undercounted and they rank low; rank them among themselves, or draft their items with `fixtures draft --proposer llm`",
			plural(notEnglish, "session was", "sessions were"), named))
	}
	return res, nil
}

// logJob is one session on its way through SelectLogs: proposed by a
// worker, offered in the order read. A job without a session marks the
// end of a file (bytes).
type logJob struct {
	s       *agentlog.Session
	path    string
	items   []ProposedItem
	english bool // ReadsEnglish
	bytes   int64
	err     error
}

// logsState is what SelectLogs keeps across files: the file being read,
// the first file of each session id (by hash), and the sessions read
// again or not sessions at all, as Scan counts them.
type logsState struct {
	paths                       []string
	file                        int
	seen                        map[uint64]copyAt
	n                           int
	repeated, subagents, unread int
	notes                       []string
}

// readLog emits the sessions of one log to be proposed and offered, then
// a job with the bytes read; it returns early, with nil, when emit says
// the run is stopping.
func readLog(path string, format agentlog.Format, cfg Config, st *logsState, bad *BadLines, emit func(*logJob, bool) bool) error {
	f, err := input.Open(path, cfg.Limits)
	if err != nil {
		return err
	}
	defer f.Close()
	o := agentlog.Options{Format: format, MaxLine: cfg.Limits.MaxLine, SkipBad: cfg.SkipBad,
		Bad: func(err error) {
			if isProblem(err) {
				bad.add(asProblem(err))
			} else {
				bad.add(fixture.Problem{Msg: err.Error()}) // the error names file and line
			}
		}}
	rd, err := agentlog.NewReader(f, path, o)
	if err != nil {
		return err
	}
	defer rd.Close()
	for {
		s, err := rd.Next()
		if err == io.EOF {
			emit(&logJob{bytes: rd.Bytes()}, false)
			return nil
		}
		if err != nil {
			return err
		}
		if s.SubAgentOnly() {
			st.subagents++
			continue
		}
		if s.Unread() {
			st.unread++
			continue
		}
		if s.ID != "" {
			h := fnv1a(s.ID)
			if first, ok := st.seen[h]; ok && first.input != st.file {
				if st.repeated++; st.repeated <= MaxReported {
					st.notes = append(st.notes, repeatNote(path, firstLine(s), s.ID, st.paths[first.input], first.lines, s.Records.Lines()))
				}
				continue
			}
			st.seen[h] = copyAt{input: st.file, lines: s.Records.Lines()}
		}
		if !emit(&logJob{s: s, path: path}, true) {
			return nil
		}
	}
}
