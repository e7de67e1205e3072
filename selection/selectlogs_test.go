package selection

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// TestIsSummaryLine: a session summary is told from the first line of
// each agent log format agentlog reads, and of tally's own event log.
func TestIsSummaryLine(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{`{"session_id":"s1","turns":6,"compactions":[],"items":[]}`, true},
		{` {"turns": 3, "session_id": "s1", "compactions": 2, "items": 4}`, true},
		{`{"session_id":"s1","turn":1,"kind":"message","role":"user","text":"hi"}`, false},
		{`{"type":"user","sessionId":"abc","message":{"role":"user","content":"turns"}}`, false},
		{`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{}}`, false},
		{`{"session_id":"g-1","messages":[{"role":"user","content":"\"turns\": 3"}]}`, false},
		{`{"text":"\"session_id\": \"x\", \"turns\": 2"}`, false},
	}
	for _, c := range cases {
		if got := IsSummaryLine([]byte(c.line)); got != c.want {
			t.Errorf("IsSummaryLine(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestSelectLogs selects from generic-format logs: the session whose
// compaction has two stated items live at it outranks the one whose
// compaction comes before anything is stated, and the one that never
// compacts is never chosen.
func TestSelectLogs(t *testing.T) {
	dir := t.TempDir()
	log := strings.Join([]string{
		`{"session_id":"rich","messages":[{"role":"user","content":"Never push to main."},{"role":"assistant","content":"ok"},{"role":"user","content":"Always run go vet before committing."},{"role":"assistant","content":"ok"},{"role":"user","content":"go on"}],"compactions":[{"after_message":4,"summary":"s"}]}`,
		`{"session_id":"early","messages":[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"},{"role":"user","content":"Never push to main."}],"compactions":[{"after_message":0,"summary":"s"}]}`,
		`{"session_id":"flat","messages":[{"role":"user","content":"Never push to main."},{"role":"assistant","content":"ok"}]}`,
	}, "\n") + "\n"
	p := filepath.Join(dir, "logs.jsonl")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(3)
	cfg.CompareRandom = 0
	stub := func(s *agentlog.Session) ([]ProposedItem, error) {
		// One constraint per typed message that says "Never" or "Always":
		// the proposer itself is tested elsewhere.
		var out []ProposedItem
		for _, m := range s.Messages {
			if m.Typed() && (strings.HasPrefix(m.Text, "Never") || strings.HasPrefix(m.Text, "Always")) {
				out = append(out, ProposedItem{Class: fixture.Constraint, Turn: m.Turn + 1})
			}
		}
		return out, nil
	}
	res, err := SelectLogs([]string{p}, "", cfg, stub)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 3 || res.NeverCompact != 1 || res.Items != ItemsProposed || res.ProposedItems != 4 {
		t.Fatalf("read %d, never compact %d, items %q, proposed %d; want 3, 1, proposed, 4", res.Read, res.NeverCompact, res.Items, res.ProposedItems)
	}
	var got []string
	for _, p := range res.Selected {
		got = append(got, p.ID)
	}
	if strings.Join(got, ",") != "rich,early" {
		t.Errorf("selected %v, want rich (2 decisions) then early (1: a compaction with nothing live); flat never compacts", got)
	}
	if res.Selected[0].Decisions != 2 || res.Selected[1].Decisions != 1 {
		t.Errorf("decisions %d and %d, want 2 and 1", res.Selected[0].Decisions, res.Selected[1].Decisions)
	}

	// The same sessions in a second file are read once, from the first,
	// counted and named with both files (as Scan does).
	res, err = SelectLogs([]string{p, p}, "", cfg, stub)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Warnings, "\n")
	if res.Read != 3 || res.Repeated != 3 || !strings.Contains(all, p+":2: session early was read from "+p+" already") ||
		!strings.Contains(all, "\n3 sessions read again from a later file") {
		t.Errorf("the same sessions twice: read %d, repeated %d, warnings %q; want 3, 3, each named", res.Read, res.Repeated, res.Warnings)
	}
}

// TestSelectLogsParallel: sessions are proposed on several workers but
// offered in the order read, so the selection is the same whatever the
// workers' timing; an error of the proposer, or of a later file, stops
// the run with that error, without hanging.
func TestSelectLogsParallel(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf(`{"session_id":"s%02d","messages":[{"role":"user","content":"Never push to main."},{"role":"assistant","content":"ok"},{"role":"user","content":"go on"}],"compactions":[{"after_message":2,"summary":"s"}]}`, i))
	}
	p := filepath.Join(dir, "logs.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Session i gets i%7 items, after a delay that makes later sessions
	// finish first.
	stub := func(fail string) LogProposer {
		return func(s *agentlog.Session) ([]ProposedItem, error) {
			var i int
			fmt.Sscanf(s.ID, "s%d", &i)
			time.Sleep(time.Duration(60-i) * 50 * time.Microsecond)
			if s.ID == fail {
				return nil, errors.New("model unreachable")
			}
			out := make([]ProposedItem, i%7)
			for k := range out {
				out[k] = ProposedItem{Class: fixture.Constraint, Turn: 1}
			}
			return out, nil
		}
	}
	cfg := DefaultConfig(5)
	cfg.CompareRandom = 0
	res, err := SelectLogs([]string{p}, "", cfg, stub(""))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Selected {
		got = append(got, s.ID)
	}
	// Six items at i%7 == 6: s06, s13, s20, s27, s34 (ties by id).
	if strings.Join(got, " ") != "s06 s13 s20 s27 s34" || res.Read != 60 || res.ProposedItems != 174 {
		t.Errorf("selected %v, read %d, proposed %d; want s06 s13 s20 s27 s34, 60, 174 (8 cycles of 0+…+6, then 0+1+2+3)", got, res.Read, res.ProposedItems)
	}
	if _, err := SelectLogs([]string{p}, "", cfg, stub("s31")); err == nil || !strings.Contains(err.Error(), "session s31: proposing items: model unreachable") {
		t.Errorf("a proposer's error: %v", err)
	}
	if _, err := SelectLogs([]string{p, filepath.Join(dir, "missing.jsonl")}, "", cfg, stub("")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("a missing second file: %v", err)
	}
}
