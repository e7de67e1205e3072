package selection

import (
	"fmt"
	"io"
	"regexp"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
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
// Files are read one session at a time (agentlog.NewReader), so memory
// holds the largest session besides the selection. cfg.Limits bounds each
// file and line, and cfg.SkipBad skips malformed lines, counted in the
// result's warnings.
func SelectLogs(paths []string, format agentlog.Format, cfg Config, propose LogProposer) (*Result, error) {
	if propose == nil {
		propose = RuleProposer
	}
	sel, err := NewSelector(cfg)
	if err != nil {
		return nil, err
	}
	seen := map[uint64]int{} // each session id's (hash) first file
	st := logsState{paths: paths, seen: seen}
	var proposed, bytes int64
	var bad BadLines
	for i, p := range paths {
		st.file = i
		b, err := selectLog(sel, p, format, cfg, propose, &st, &proposed, &bad)
		bytes += b
		if err != nil {
			return nil, err
		}
	}
	res := sel.Result()
	res.Items, res.ProposedItems, res.Bytes, res.Skipped = ItemsProposed, proposed, bytes, bad
	res.Repeated, res.SubAgents = st.repeated, st.subagents
	res.Warnings = append(res.Warnings, st.notes...)
	if st.repeated > MaxReported {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d more sessions were read again from a later file, and read once", st.repeated-MaxReported))
	}
	if st.repeated > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s read again from a later file (the same sessionId; a resumed session's log copies its parent's records) counted once, from the first file",
			plural(st.repeated, "session", "sessions")))
	}
	if st.subagents > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s (files whose records are all isSidechain: a sub-agent's own conversation, under its parent's sessionId) not counted as sessions; the parent's log holds the sub-agent's call and result",
			plural(st.subagents, "sub-agent transcript", "sub-agent transcripts")))
	}
	res.Warnings = append(res.Warnings, bad.Warnings()...)
	return res, nil
}

// logsState is what SelectLogs keeps across files: the file being read,
// the first file of each session id (by hash), and the sessions read
// again or not sessions at all, as Scan counts them.
type logsState struct {
	paths               []string
	file                int
	seen                map[uint64]int
	n                   int
	repeated, subagents int
	notes               []string
}

// selectLog offers the sessions of one log to sel, returning the bytes
// read.
func selectLog(sel *Selector, path string, format agentlog.Format, cfg Config, propose LogProposer,
	st *logsState, proposed *int64, bad *BadLines) (int64, error) {
	f, err := input.Open(path, cfg.Limits)
	if err != nil {
		return 0, err
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
		return 0, err
	}
	defer rd.Close()
	for {
		s, err := rd.Next()
		if err == io.EOF {
			return rd.Bytes(), nil
		}
		if err != nil {
			return rd.Bytes(), err
		}
		if s.SubAgentOnly() {
			st.subagents++
			continue
		}
		if s.ID != "" {
			h := fnv1a(s.ID)
			if first, ok := st.seen[h]; ok && first != st.file {
				if st.repeated++; st.repeated <= MaxReported {
					st.notes = append(st.notes, fmt.Sprintf("%s:%d: session %s was read from %s already; it is read once, from the first file that has it",
						path, lastLine(s), s.ID, st.paths[first]))
				}
				continue
			}
			st.seen[h] = st.file
		}
		items, err := propose(s)
		if err != nil {
			return rd.Bytes(), fmt.Errorf("%s: session %s: proposing items: %w", path, s.ID, err)
		}
		*proposed += int64(len(items))
		sum := FromLog(s, items)
		sum.Started = s.Start
		st.n++
		if err := sel.add(&sum, nil, st.n); err != nil {
			return rd.Bytes(), err
		}
	}
}
