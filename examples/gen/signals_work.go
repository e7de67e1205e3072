package main

import "math/rand/v2"

// Repeats that are work, not forgetting: after a compaction the agent
// reads again a file it edited since the first read, or runs the tests
// again after an edit. Real sessions are full of them (issue 12: most
// repeats of a call across a compaction are re-reads after the agent's
// own edit), and the repeated-tool-call signal must not flag them. They
// are look-alikes named after the kinds selection gives them, injected in
// the logs in Claude Code's format only, and not in the fixture sessions
// (whose contexts quote their recent turns).
const (
	LookalikeRereadAfterEdit  = "reread_after_edit"
	LookalikeRerunAfterChange = "rerun_after_change"
)

// injectWorkRepeats injects the work look-alikes, from a stream of their
// own so that the other signals stay where they were.
func injectWorkRepeats(seed uint64, logs []*sessionLog) {
	r := stream(seed, "signals/work")
	for _, l := range logs {
		if !l.cc || l.s.Fixture || len(l.s.Compactions) == 0 {
			continue
		}
		if chance(r, 0.1) {
			l.injectWork(r, LookalikeRereadAfterEdit)
		}
		if chance(r, 0.1) {
			l.injectWork(r, LookalikeRerunAfterChange)
		}
	}
}

// injectWork repeats, within the window after a compaction, a call made
// before it — a read, or a test run — with an edit that succeeds between
// the two: of the file read, or of any file before the tests.
func (l *sessionLog) injectWork(r *rand.Rand, kind string) bool {
	c, t, ok := l.afterCompaction(r)
	if !ok || l.taken(t) {
		return false
	}
	e := between(r, max(2, l.s.lastCompactionAtOrBefore(c-1)+1), c-1)
	u := between(r, e+1, t-1) // the edit's turn, either side of the compaction
	tool := "read_file"
	if kind == LookalikeRerunAfterChange {
		tool = "run_tests"
	}
	call, ok := l.freshCall(r, nil, tool)
	if !ok {
		return false
	}
	var edit toolCall
	ok = false
	for range 20 {
		f := call.Path // the file read, or any file before tests
		if kind == LookalikeRerunAfterChange {
			f = pick(r, l.th.Files)
		}
		x := toolCall{Tool: "edit_file", Args: orderedArgs("path", f, "old", editLine(r, l.th), "new", editLine(r, l.th)), Path: f}
		if !l.seen[x.key()] && l.ccFresh(x) && !l.ccConflict(x, u) && !l.breaksRepeat(x, u) {
			edit, ok = x, true
			break
		}
	}
	if !ok {
		return false
	}
	edit.Sure = true
	l.seen[edit.key()] = true
	l.turn(e).Calls = append(l.turn(e).Calls, call)
	l.turn(u).Calls = append(l.turn(u).Calls, edit)
	l.turn(t).Calls = append([]toolCall{call}, l.turn(t).Calls...)
	l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Lookalike: kind, Turn: t, CompactionTurn: c, EvidenceTurn: e, ChangeTurn: u,
		Tool: call.Tool, call: call, evidence: call, change: edit})
	return true
}

// breaksRepeat is whether an edit at turn u would change what an injected
// repeated_tool_call looks at between its two calls, making it work
// rather than a lost result.
func (l *sessionLog) breaksRepeat(edit toolCall, u int) bool {
	for _, tr := range l.truth {
		if tr.Signal != SignalRepeatedToolCall || u < tr.EvidenceTurn || u > tr.Turn {
			continue
		}
		switch c := tr.call; c.Tool {
		case "read_file":
			if edit.Path == c.Path {
				return true
			}
		case "grep":
			if d := grepDir(c); d == "" || edit.Path == d || len(edit.Path) > len(d) && edit.Path[:len(d)+1] == d+"/" {
				return true
			}
		default:
			return true
		}
	}
	return false
}
