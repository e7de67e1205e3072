package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tally-eval/tally/agentlog"
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
