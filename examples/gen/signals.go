package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math/rand/v2"
	"slices"

	"github.com/tally-eval/tally/fixture"
)

// The production signals and their look-alikes, as truth.jsonl names
// them.
const (
	SignalRepeatedToolCall     = "repeated_tool_call"
	SignalRestatedInstruction  = "restated_instruction"
	LookalikeRereadOtherArgs   = "reread_different_args"
	LookalikeIdenticalNoCompac = "identical_no_compaction"
	LookalikeRestateBefore     = "restatement_before_compaction"
)

// SignalWindow is the number of turns after a compaction within which a
// repeated identical tool call is the repeated_tool_call signal. Every
// injected repeat lies at 1..4 turns after its compaction (strictly after
// the compaction's turn), so that "within 5 turns" read as t−c ≤ 5 or
// t−c < 5 finds the same set.
const SignalWindow = 5

// truthLine is one line of events/truth.jsonl: an injected signal
// (Signal set) or a look-alike that must not be flagged (Lookalike set).
// Turn is where it shows; EvidenceTurn the earlier call or instruction
// it repeats; CompactionTurn the compaction between them (signals and
// reread_different_args only).
//
// In Claude Code's format a line also names the records: UUID is the
// record holding the repeated call (its tool_use) or the restating
// prompt, EvidenceUUID the earlier call's or the stated instruction's,
// CompactionUUID the compact_boundary record's; ClaudeCodeTool is the
// tool as the log names it (Read, Grep, Bash).
type truthLine struct {
	SessionID      string `json:"session_id"`
	Signal         string `json:"signal,omitempty"`
	Lookalike      string `json:"lookalike,omitempty"`
	Turn           int    `json:"turn"`
	CompactionTurn int    `json:"compaction_turn,omitempty"`
	EvidenceTurn   int    `json:"evidence_turn"`
	Tool           string `json:"tool,omitempty"`
	ClaudeCodeTool string `json:"claude_code_tool,omitempty"`
	UUID           string `json:"uuid,omitempty"`
	EvidenceUUID   string `json:"evidence_uuid,omitempty"`
	CompactionUUID string `json:"compaction_uuid,omitempty"`
	// ChangeTurn and ChangeUUID are where the edit between the two calls
	// of a work look-alike is (reread_after_edit, rerun_after_change).
	ChangeTurn int    `json:"change_turn,omitempty"`
	ChangeUUID string `json:"change_uuid,omitempty"`

	// call and evidence are the two calls (tool-call lines only); change
	// the edit between them (work look-alikes only).
	call, evidence, change toolCall
}

// taken reports whether turn t already shows a signal or a look-alike:
// each (session, turn) of truth.jsonl is one line, so a detector's flags
// can be scored turn by turn.
func (l *sessionLog) taken(t int) bool {
	for _, x := range l.truth {
		if x.Turn == t {
			return true
		}
	}
	return false
}

// freshCall draws a call of one of the given tools that the session has
// not made, and marks it made. In Claude Code's format the call is also
// the same call (ccSame) as none made, and ok, when not nil, accepts it.
func (l *sessionLog) freshCall(r *rand.Rand, ok func(toolCall) bool, tools ...string) (toolCall, bool) {
	for range 60 {
		c := l.drawCall(r)
		if slices.Contains(tools, c.Tool) && !l.seen[c.key()] && (!l.cc || l.ccFresh(c) && (ok == nil || ok(c))) {
			l.seen[c.key()] = true
			return c, true
		}
	}
	return toolCall{}, false
}

// windowAfter returns the turns 1..4 after compaction c that come before
// the next compaction and the session's end.
func (l *sessionLog) windowAfter(c int) (lo, hi int) {
	return c + 1, min(c+SignalWindow-1, l.s.Turns, l.s.nextCompaction(c)-1)
}

// afterCompaction picks a compaction c at turn 3 or later with a window
// after it, and a turn t in that window: where a call made before c is
// made again. ok is false when the session has no such compaction.
func (l *sessionLog) afterCompaction(r *rand.Rand) (c, t int, ok bool) {
	var cs []int
	for _, c := range l.s.Compactions {
		if lo, hi := l.windowAfter(c); lo <= hi && c >= 3 {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return 0, 0, false
	}
	c = pick(r, cs)
	lo, hi := l.windowAfter(c)
	return c, between(r, lo, hi), true
}

// injectRepeat re-issues, within the window after a compaction, a call
// made before it with identical arguments.
func (l *sessionLog) injectRepeat(r *rand.Rand) bool {
	c, t, ok := l.afterCompaction(r)
	if !ok || l.taken(t) {
		return false
	}
	lo := max(2, l.s.lastCompactionAtOrBefore(c-1)+1)
	if lo > c-1 {
		lo = 2
	}
	e := between(r, lo, c-1)
	// Nothing the call looks at changes between the two (checked in
	// Claude Code's format, whose reader classifies repeats): the repeat
	// asks again for a result the compaction lost.
	call, ok := l.freshCall(r, func(c toolCall) bool { return l.unchangedBetween(c, e, t) }, "read_file", "read_file", "grep", "run_tests")
	if !ok {
		return false
	}
	l.turn(e).Calls = append(l.turn(e).Calls, call)
	l.turn(t).Calls = append([]toolCall{call}, l.turn(t).Calls...)
	l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Signal: SignalRepeatedToolCall, Turn: t, CompactionTurn: c, EvidenceTurn: e, Tool: call.Tool, call: call, evidence: call})
	return true
}

// injectReread issues, within the window after a compaction, a call of a
// tool used before it on the same path but with other arguments.
func (l *sessionLog) injectReread(r *rand.Rand) bool {
	c, t, ok := l.afterCompaction(r)
	if !ok {
		return false
	}
	e := between(r, 2, c-1)
	if l.taken(t) {
		return false
	}
	f := pick(r, l.th.Files)
	for range 20 {
		var a, b toolCall
		if chance(r, 0.7) {
			s := 1 + r.IntN(300)
			a = readFile(f, s, s+40+r.IntN(80))
			s2 := s + 60 + r.IntN(200)
			if l.cc { // other lines of the file: ranges that do not overlap
				s2 = a.End + 1 + r.IntN(200)
			}
			b = readFile(f, s2, s2+40+r.IntN(80))
		} else {
			pat := pick(r, l.th.Funcs)
			a, b = grepCall(pat, l.th.Dir), grepCall(pat, pick(r, []string{"cmd", "tests", "scripts", "."}))
		}
		if l.seen[a.key()] || l.seen[b.key()] || l.cc && (ccSame(a, b) || !l.ccFresh(a) || !l.ccFresh(b) || l.ccConflict(a, e) || l.ccConflict(b, t)) {
			continue
		}
		l.seen[a.key()], l.seen[b.key()] = true, true
		l.turn(e).Calls = append(l.turn(e).Calls, a)
		l.turn(t).Calls = append([]toolCall{b}, l.turn(t).Calls...)
		l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Lookalike: LookalikeRereadOtherArgs, Turn: t, CompactionTurn: c, EvidenceTurn: e, Tool: a.Tool, call: b, evidence: a})
		return true
	}
	return false
}

// injectIdentical repeats a call identically a few turns later with no
// compaction between (running the same tests twice, say).
func (l *sessionLog) injectIdentical(r *rand.Rand) bool {
	for range 20 {
		e1 := between(r, 2, l.s.Turns-1)
		e2 := min(e1+between(r, 1, 4), l.s.Turns)
		if e2 <= e1 || l.s.nextCompaction(e1-1) <= e2 || l.taken(e2) {
			continue // a compaction at a turn in e1..e2
		}
		call, ok := l.freshCall(r, nil, "run_tests", "run_tests", "read_file", "grep")
		if !ok {
			return false
		}
		l.turn(e1).Calls = append(l.turn(e1).Calls, call)
		l.turn(e2).Calls = append(l.turn(e2).Calls, call)
		l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Lookalike: LookalikeIdenticalNoCompac, Turn: e2, EvidenceTurn: e1, Tool: call.Tool, call: call, evidence: call})
		return true
	}
	return false
}

// constraints lists the indexes of the session's constraint items.
func (l *sessionLog) constraints() []int {
	var out []int
	for i, it := range l.s.Items {
		if it.Class == fixture.Constraint {
			out = append(out, i)
		}
	}
	return out
}

// free reports whether turn t can carry an injected user message.
func (l *sessionLog) free(t int, avoid func(int) bool) bool {
	p := l.turn(t)
	return p.Item < 0 && !p.Injected && !l.taken(t) && (avoid == nil || !avoid(t))
}

// injectRestated has the user restate, after a compaction, a constraint
// stated before it.
func (l *sessionLog) injectRestated(r *rand.Rand, avoid func(int) bool) bool {
	type option struct{ item, c, t int }
	var opts []option
	for _, i := range l.constraints() {
		e := l.s.Items[i].Turn
		for _, c := range l.s.Compactions {
			if c <= e {
				continue
			}
			last := c + 12
			if l.cc { // within the window the signal looks in
				last = c + SignalWindow - 1
			}
			for t := c + 1; t <= min(l.s.nextCompaction(c)-1, l.s.Turns, last); t++ {
				if l.free(t, avoid) {
					opts = append(opts, option{i, c, t})
				}
			}
		}
	}
	if len(opts) == 0 {
		return false
	}
	o := pick(r, opts)
	p := l.turn(o.t)
	p.User, p.Injected = restatement(r, l.items[o.item], l.markers()), true
	l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Signal: SignalRestatedInstruction, Turn: o.t, CompactionTurn: o.c, EvidenceTurn: l.s.Items[o.item].Turn})
	return true
}

// markers are the restatement markers of the session's format.
func (l *sessionLog) markers() []string {
	if l.cc {
		return ccRestateMarkers
	}
	return restateMarkers
}

// injectRestateBefore has the user restate a constraint before any
// compaction has run.
func (l *sessionLog) injectRestateBefore(r *rand.Rand, avoid func(int) bool) bool {
	type option struct{ item, t int }
	var opts []option
	first := l.s.nextCompaction(0)
	for _, i := range l.constraints() {
		for t := l.s.Items[i].Turn + 1; t < first && t <= l.s.Turns; t++ {
			if l.free(t, avoid) {
				opts = append(opts, option{i, t})
			}
		}
	}
	if len(opts) == 0 {
		return false
	}
	o := pick(r, opts)
	p := l.turn(o.t)
	p.User, p.Injected = restatement(r, l.items[o.item], l.markers()), true
	l.truth = append(l.truth, truthLine{SessionID: l.s.ID, Lookalike: LookalikeRestateBefore, Turn: o.t, EvidenceTurn: l.s.Items[o.item].Turn})
	return true
}

// injectSignals injects the two production failure shapes, concentrated
// in incidents, and the look-alikes into the logged sessions. Turns for
// which avoid reports true (the fixtures' kept recent turns) get no
// restatement, so the compacted contexts never quote one.
func injectSignals(seed uint64, logs []*sessionLog, avoid map[string]func(int) bool) {
	r := stream(seed, "signals")
	for _, l := range logs {
		av := avoid[l.s.ID]
		if len(l.s.Compactions) > 0 {
			pRepeat, pRestate := 0.10, 0.12
			if l.s.Incident {
				pRepeat, pRestate = 0.7, 0.55
			}
			if chance(r, pRepeat) && l.injectRepeat(r) && l.s.Incident && chance(r, 0.3) {
				l.injectRepeat(r)
			}
			if chance(r, pRestate) {
				l.injectRestated(r, av)
			}
			if chance(r, 0.08) {
				l.injectReread(r)
			}
		}
		if l.s.Turns >= 3 && chance(r, 0.05) {
			l.injectIdentical(r)
		}
		pBefore := 0.06
		if l.cc {
			pBefore = 0.08
		}
		if chance(r, pBefore) {
			l.injectRestateBefore(r, av)
		}
	}
}

// truthJSONL renders events/truth.jsonl, sorted by session, turn, then
// signal before look-alike.
func truthJSONL(logs []*sessionLog) ([]byte, error) {
	var all []truthLine
	for _, l := range logs {
		all = append(all, l.truth...)
	}
	slices.SortStableFunc(all, func(a, b truthLine) int {
		return cmp.Or(cmp.Compare(a.SessionID, b.SessionID), cmp.Compare(a.Turn, b.Turn),
			cmp.Compare(a.Signal+a.Lookalike, b.Signal+b.Lookalike))
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, t := range all {
		if err := enc.Encode(t); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
