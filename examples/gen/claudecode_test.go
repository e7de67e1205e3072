package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

// ccRun is the default quarter with its logs written in Claude Code's
// format to week files in a temporary folder and read back with
// agentlog, as tally reads real logs.
type ccRun struct {
	q        *Quarter
	logs     map[string]*ccSession
	sessions map[string]*agentlog.Session
	plans    map[string]*sessionLog
}

var (
	ccOnce sync.Once
	ccData *ccRun
	ccErr  error
)

func loadCC(t *testing.T) *ccRun {
	t.Helper()
	ccOnce.Do(func() { ccData, ccErr = buildCC() })
	if ccErr != nil {
		t.Fatal(ccErr)
	}
	return ccData
}

func buildCC() (*ccRun, error) {
	q, err := generate(DefaultSeed, true)
	if err != nil {
		return nil, err
	}
	logs := q.ccLogs
	weeks := make(map[string][]byte)
	for _, f := range q.Files {
		weeks[f.Path] = f.Data
	}
	dir, err := os.MkdirTemp("", "tally-gen-cc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	run := &ccRun{q: q, logs: logs, sessions: map[string]*agentlog.Session{}, plans: map[string]*sessionLog{}}
	for _, l := range q.Logs {
		run.plans[l.s.ID] = l
	}
	for w := 1; w <= Weeks; w++ {
		p := filepath.Join(dir, filepath.Base(q.WeekFile(w)))
		if err := os.WriteFile(p, weeks[q.WeekFile(w)], 0o644); err != nil {
			return nil, err
		}
		ss, err := agentlog.OpenAll(p, "")
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			if s.Format != agentlog.ClaudeCode {
				return nil, fmt.Errorf("%s: %s read as %s", p, s.ID, s.Format)
			}
			if run.sessions[s.ID] != nil {
				return nil, fmt.Errorf("%s: session %s read twice", p, s.ID)
			}
			run.sessions[s.ID] = s
		}
	}
	return run, nil
}

// TestClaudeCodeLogsRead: agentlog reads every session back with the
// plan's shape: one typed turn per plan turn with the plan's prompt,
// the compactions at their turns with a summary, every call with its
// result, nothing skipped or orphaned.
func TestClaudeCodeLogsRead(t *testing.T) {
	run := loadCC(t)
	if len(run.sessions) != NumLogged {
		t.Fatalf("%d sessions read from the week files, want %d", len(run.sessions), NumLogged)
	}
	kinds := map[agentlog.Kind]int{}
	for id, l := range run.plans {
		s := run.sessions[id]
		if s == nil {
			t.Errorf("%s: not read", id)
			continue
		}
		if len(s.Turns) != l.s.Turns {
			t.Errorf("%s: %d turns read, plan has %d", id, len(s.Turns), l.s.Turns)
			continue
		}
		for i, tn := range s.Turns {
			m := s.Messages[tn.Message]
			if p := l.turn(i + 1); p.User != "" && m.Text != p.User {
				t.Errorf("%s turn %d: prompt %q, plan says %q", id, i+1, m.Text, p.User)
			}
		}
		var comps []int
		for _, c := range s.Compactions {
			comps = append(comps, c.Turn+1)
			if c.Trigger != "auto" || c.PreTokens < CompactionThreshold || c.Summary == "" || c.UUID == "" || c.SummaryUUID == "" {
				t.Errorf("%s: compaction %+v", id, c)
			}
		}
		if !slices.Equal(comps, l.s.Compactions) {
			t.Errorf("%s: compactions at turns %v, plan has %v", id, comps, l.s.Compactions)
		}
		calls := 0
		for _, st := range s.Steps {
			for _, c := range st.Calls {
				calls++
				if !c.HasResult || c.UUID == "" || c.ResultUUID == "" {
					t.Errorf("%s: call %s %s has no result", id, c.Name, c.ID)
				}
			}
		}
		planned := 0
		for i := range l.turns {
			planned += len(l.turns[i].Calls)
		}
		if calls != planned || calls != len(run.logs[id].Calls) {
			t.Errorf("%s: %d calls read, %d planned, %d written", id, calls, planned, len(run.logs[id].Calls))
		}
		skipped := 0
		for _, n := range s.Records.Skipped {
			skipped += n
		}
		if s.OrphanResults != 0 || skipped != run.logs[id].Stats.Skipped || s.Records.Lines() != run.logs[id].Stats.Records {
			t.Errorf("%s: %d orphan results; %d lines read, skipped %v; written: %d records, %d to skip", id, s.OrphanResults,
				s.Records.Lines(), s.Records.Skipped, run.logs[id].Stats.Records, run.logs[id].Stats.Skipped)
		}
		for _, m := range s.Messages {
			kinds[m.Kind]++
		}
	}
	for _, k := range []agentlog.Kind{agentlog.Typed, agentlog.CompactSummary, agentlog.ToolResult, agentlog.Interrupted} {
		if kinds[k] == 0 {
			t.Errorf("no user message of kind %s", k)
		}
	}
	t.Logf("user messages by kind: %v", kinds)
}

// TestClaudeCodeLogsDeterministic: writing the logs twice gives the same
// bytes.
func TestClaudeCodeLogsDeterministic(t *testing.T) {
	run := loadCC(t)
	again, weeks, err := run.q.claudeCodeLogs()
	if err != nil {
		t.Fatal(err)
	}
	for id, cs := range run.logs {
		if string(again[id].Data) != string(cs.Data) {
			t.Fatalf("%s: two writes differ", id)
		}
	}
	for w := 1; w <= Weeks; w++ {
		if len(weeks[w]) == 0 {
			t.Errorf("week %d: no sessions", w)
		}
	}
}

// repeatScore is the repeated-tool-call signal scored against the truth.
type repeatScore struct {
	tp, fp, fn        int
	wrongEvidence     int // flagged at the truth's turn, but naming other records
	lookalikesFlagged int
	workFound         int // work look-alikes found with their kind, unflagged
	lookalikes        int
	missed            map[string]int // why a truth signal was not flagged
	extra             map[string]int // what an unexpected flag was
	missedEx, extraEx map[string]string
}

// orNone is s, or "turn with no truth line".
func orNone(s string) string {
	if s == "" {
		return "turn with no truth line"
	}
	return s
}

// scoreRepeats runs selection.FindToolRepeats on every session and
// compares its flagged repeats, by (session, turn), with the truth's
// repeated_tool_call lines and tool-call look-alikes.
func scoreRepeats(sessions map[string]*agentlog.Session, truth []truthRec) repeatScore {
	sc := repeatScore{missed: map[string]int{}, extra: map[string]int{}, missedEx: map[string]string{}, extraEx: map[string]string{}}
	want := map[string]truthRec{}
	look := map[string]string{}
	for _, tr := range truth {
		k := fmt.Sprint(tr.SessionID, "/", tr.Turn)
		switch tr.Signal + tr.Lookalike {
		case SignalRepeatedToolCall:
			want[k] = tr
		case LookalikeRereadOtherArgs, LookalikeIdenticalNoCompac, LookalikeRereadAfterEdit, LookalikeRerunAfterChange:
			look[k] = tr.Lookalike
			sc.lookalikes++
		}
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	found := map[string]bool{}
	for _, id := range ids {
		unflagged := map[string]selection.ToolRepeat{}
		for _, r := range selection.FindToolRepeats(sessions[id], selection.DefaultRepeatWindow) {
			k := fmt.Sprint(id, "/", r.Repeat.Turn+1)
			if !r.Kind.Flagged() {
				if _, ok := unflagged[k]; !ok {
					unflagged[k] = r
				}
				// A work look-alike is found with its own kind; any other
				// repeat the signal does not flag is still not in the plan.
				if l := look[k]; l != string(r.Kind) || r.Repeat.UUID == "" {
					sc.extra["unflagged "+string(r.Kind)+" "+r.Repeat.Tool+" at a "+orNone(l)]++
					sc.extraEx["unflagged "+string(r.Kind)+" "+r.Repeat.Tool+" at a "+orNone(l)] = k
				} else {
					sc.workFound++
				}
				continue
			}
			if found[k] {
				continue // two repeats in one turn: one truth line
			}
			found[k] = true
			if tr, ok := want[k]; ok {
				sc.tp++
				if r.Repeat.UUID != tr.UUID || r.First.UUID != tr.EvidenceUUID || r.CompactionUUID != tr.CompactionUUID {
					sc.wrongEvidence++
				}
				continue
			}
			sc.fp++
			why := string(r.Kind) + " " + r.Repeat.Tool
			if look[k] != "" {
				sc.lookalikesFlagged++
				why = "look-alike " + why
			}
			sc.extra[why]++
			sc.extraEx[why] = fmt.Sprintf("%s: %s %s", k, r.Repeat.Tool, r.Repeat.Input)
		}
		for k := range want {
			if !strings.HasPrefix(k, id+"/") || found[k] {
				continue
			}
			sc.fn++
			why := "not found as a repeat"
			if r, ok := unflagged[k]; ok {
				why = string(r.Kind) + " " + r.Repeat.Tool + ": " + r.Reason
			}
			sc.missed[why]++
			sc.missedEx[why] = k
		}
	}
	return sc
}
