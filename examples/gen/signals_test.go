package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sessionEvents indexes one session's log.
type sessionEvents struct {
	compactions []int
	calls       []eventRec
	user        map[int]string // the user's message at a turn
	assistant   map[int]string
}

func indexEvents(evs []eventRec) *sessionEvents {
	x := &sessionEvents{user: map[int]string{}, assistant: map[int]string{}}
	for _, e := range evs {
		switch {
		case e.Kind == "compaction":
			x.compactions = append(x.compactions, e.Turn)
		case e.Kind == "tool_call":
			x.calls = append(x.calls, e)
		case e.Role == "user":
			x.user[e.Turn] = e.Text
		case e.Role == "assistant":
			x.assistant[e.Turn] = e.Text
		}
	}
	return x
}

func callKey(e eventRec) string { return e.Tool + " " + string(e.Args) }

func (x *sessionEvents) callsAt(t int) []eventRec {
	var out []eventRec
	for _, c := range x.calls {
		if c.Turn == t {
			out = append(out, c)
		}
	}
	return out
}

// latestCompaction is the latest compaction at a turn ≤ t (< t when
// strict), or 0.
func (x *sessionEvents) latestCompaction(t int, strict bool) int {
	last := 0
	for _, c := range x.compactions {
		if c < t || c == t && !strict {
			last = c
		}
	}
	return last
}

// detectRepeats is a reference detector of repeated_tool_call: a call
// within window turns after the latest compaction (t−c ≤ window, or
// < window when exclusive; the compaction's own turn counted unless
// strict) with the same tool and arguments as a call before that
// compaction.
func detectRepeats(x *sessionEvents, window int, exclusive, strict bool) []int {
	var flagged []int
	for _, c := range x.calls {
		comp := x.latestCompaction(c.Turn, strict)
		if comp == 0 || c.Turn-comp > window || exclusive && c.Turn-comp == window {
			continue
		}
		for _, e := range x.calls {
			if e.Turn < comp && callKey(e) == callKey(c) && !slices.Contains(flagged, c.Turn) {
				flagged = append(flagged, c.Turn)
			}
		}
	}
	return flagged
}

// TestSignalTruth checks every line of events/truth.jsonl against the
// logs: each signal really is one, each look-alike really is what it
// claims and is not a signal, and the logs hold no signal the truth
// leaves out.
func TestSignalTruth(t *testing.T) {
	events, _ := loadEvents(t)
	truth := loadTruth(t)
	sessions := make(map[string]*sessionRec)
	for _, s := range loadSessions(t) {
		sessions[s.SessionID] = s
	}
	idx := make(map[string]*sessionEvents)
	for id, evs := range events {
		idx[id] = indexEvents(evs)
	}
	constraintAt := func(s *sessionRec, turn int) bool {
		return slices.ContainsFunc(s.items, func(it itemRec) bool { return it.Turn == turn && it.Class == "constraint" })
	}
	isRestatement := func(text string) bool {
		for _, m := range restateMarkers {
			if strings.HasPrefix(text, strings.SplitN(m, "%s", 2)[0]) {
				return true
			}
		}
		return false
	}

	seen := make(map[string]bool)
	wantRepeats := make(map[string][]int)
	wantRestated := make(map[string]bool) // session/turn of every restatement
	counts := make(map[string]int)
	for _, tr := range truth {
		kind := tr.Signal + tr.Lookalike
		counts[kind]++
		where := fmt.Sprintf("%s turn %d (%s)", tr.SessionID, tr.Turn, kind)
		if (tr.Signal == "") == (tr.Lookalike == "") {
			t.Errorf("%s: want exactly one of signal and lookalike", where)
			continue
		}
		if seen[fmt.Sprint(tr.SessionID, tr.Turn)] {
			t.Errorf("%s: a second truth line at this turn", where)
		}
		seen[fmt.Sprint(tr.SessionID, tr.Turn)] = true
		x, s := idx[tr.SessionID], sessions[tr.SessionID]
		if x == nil || s == nil {
			t.Errorf("%s: no event log", where)
			continue
		}
		hasCompaction := func(c int) bool { return slices.Contains(x.compactions, c) }
		// The identical pair (evidence, turn) with the same key, if any.
		identical := func() (eventRec, bool) {
			for _, c := range x.callsAt(tr.Turn) {
				for _, e := range x.callsAt(tr.EvidenceTurn) {
					if callKey(c) == callKey(e) && c.Tool == tr.Tool {
						return c, true
					}
				}
			}
			return eventRec{}, false
		}
		switch kind {
		case SignalRepeatedToolCall:
			if _, ok := identical(); !ok {
				t.Errorf("%s: no call identical to one at turn %d", where, tr.EvidenceTurn)
			}
			if !hasCompaction(tr.CompactionTurn) || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn && tr.Turn-tr.CompactionTurn <= SignalWindow-1) {
				t.Errorf("%s: evidence %d, compaction %d: not an earlier call before a compaction less than %d turns back", where, tr.EvidenceTurn, tr.CompactionTurn, SignalWindow)
			}
			if x.latestCompaction(tr.Turn, false) != tr.CompactionTurn {
				t.Errorf("%s: another compaction between %d and the repeat", where, tr.CompactionTurn)
			}
			wantRepeats[tr.SessionID] = append(wantRepeats[tr.SessionID], tr.Turn)
		case LookalikeRereadOtherArgs:
			ok := false
			for _, c := range x.callsAt(tr.Turn) {
				for _, e := range x.callsAt(tr.EvidenceTurn) {
					var a, b struct{ Path string }
					json.Unmarshal(c.Args, &a)
					json.Unmarshal(e.Args, &b)
					if c.Tool == e.Tool && c.Tool == tr.Tool && callKey(c) != callKey(e) && (a.Path == b.Path || c.Tool == "grep") {
						ok = true
					}
				}
			}
			if !ok {
				t.Errorf("%s: no call of the same tool with other arguments than at turn %d", where, tr.EvidenceTurn)
			}
			if _, same := identical(); same {
				t.Errorf("%s: the calls are identical", where)
			}
			if !hasCompaction(tr.CompactionTurn) || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn && tr.Turn-tr.CompactionTurn < SignalWindow) {
				t.Errorf("%s: not a re-read within the window after a compaction", where)
			}
		case LookalikeIdenticalNoCompac:
			if _, ok := identical(); !ok {
				t.Errorf("%s: no call identical to one at turn %d", where, tr.EvidenceTurn)
			}
			for _, c := range x.compactions {
				if c >= tr.EvidenceTurn && c <= tr.Turn {
					t.Errorf("%s: a compaction at turn %d between the two calls", where, c)
				}
			}
		case SignalRestatedInstruction, LookalikeRestateBefore:
			text := x.user[tr.Turn]
			if !isRestatement(text) {
				t.Errorf("%s: the user's message %q is not a restatement", where, text)
			}
			if !constraintAt(s, tr.EvidenceTurn) || x.user[tr.EvidenceTurn] == "" || tr.EvidenceTurn >= tr.Turn {
				t.Errorf("%s: turn %d is not an earlier constraint the user stated", where, tr.EvidenceTurn)
			}
			if text == x.user[tr.EvidenceTurn] {
				t.Errorf("%s: restated in the same words", where)
			}
			if kind == SignalRestatedInstruction {
				if !hasCompaction(tr.CompactionTurn) || !(tr.EvidenceTurn < tr.CompactionTurn && tr.CompactionTurn < tr.Turn) || x.latestCompaction(tr.Turn, true) != tr.CompactionTurn {
					t.Errorf("%s: compaction %d is not the latest between the instruction and the restatement", where, tr.CompactionTurn)
				}
			} else if len(x.compactions) > 0 && x.compactions[0] <= tr.Turn {
				t.Errorf("%s: a compaction at turn %d comes first", where, x.compactions[0])
			}
			wantRestated[fmt.Sprint(tr.SessionID, tr.Turn)] = true
		default:
			t.Errorf("%s: unknown kind", where)
		}
	}

	// No signal outside the truth: the reference detector, under every
	// reading of "within 5 turns", finds exactly the injected repeats.
	for id, x := range idx {
		want := slices.Sorted(slices.Values(wantRepeats[id]))
		for _, reading := range []struct{ exclusive, strict bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			got := detectRepeats(x, SignalWindow, reading.exclusive, reading.strict)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: detector %+v flags turns %v, truth has %v", id, reading, got, want)
			}
		}
		for t2, text := range x.user {
			if isRestatement(text) && !wantRestated[fmt.Sprint(id, t2)] {
				t.Errorf("%s turn %d: %q reads as a restatement but is not in the truth", id, t2, text)
			}
		}
	}
	for _, k := range []string{SignalRepeatedToolCall, SignalRestatedInstruction, LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRestateBefore} {
		if counts[k] < 20 {
			t.Errorf("%s: only %d lines", k, counts[k])
		}
	}
	t.Logf("truth lines: %v", counts)
}

// TestSignalsConcentrateInIncidents: signals are far more common in
// incidents than in other logged sessions that compacted, in both
// formats' truth.
func TestSignalsConcentrateInIncidents(t *testing.T) {
	t.Run(FormatTally, func(t *testing.T) {
		events, _ := loadEvents(t)
		logged := map[string]bool{}
		for id := range events {
			logged[id] = true
		}
		concentrated(t, logged, loadTruth(t))
	})
	t.Run(FormatClaudeCode, func(t *testing.T) {
		d := loadCCLogs(t)
		logged := map[string]bool{}
		for id := range d.sessions {
			logged[id] = true
		}
		concentrated(t, logged, d.truth)
	})
}

func concentrated(t *testing.T, logged map[string]bool, truth []truthRec) {
	flagged := make(map[string]bool)
	for _, tr := range truth {
		if tr.Signal != "" {
			flagged[tr.SessionID] = true
		}
	}
	var inc, incN, other, otherN int
	for _, s := range loadSessions(t) {
		if !logged[s.SessionID] || s.nCompact == 0 {
			continue
		}
		if s.Incident {
			incN++
			if flagged[s.SessionID] {
				inc++
			}
		} else {
			otherN++
			if flagged[s.SessionID] {
				other++
			}
		}
	}
	ri, ro := float64(inc)/float64(incN), float64(other)/float64(otherN)
	t.Logf("incidents: %d/%d flagged; others that compacted: %d/%d", inc, incN, other, otherN)
	if ri < 3*ro {
		t.Errorf("signal rate %.2f in incidents vs %.2f elsewhere: not concentrated", ri, ro)
	}
}
