package draft

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/selection"
)

// realLogs returns the folder TALLY_REAL_LOGS names, or skips the test.
func realLogs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Skip("TALLY_REAL_LOGS is not set: it names the folder of real Claude Code sessions (../shared/real/claude-code)")
	}
	return dir
}

// checkDraft checks what must hold of every draft: the candidates file
// and every context are valid and read back; contexts' turns rise inside
// 1..turns; every candidate is live at the context it was first proposed
// for and not at the one before (with a proposer that proposes the same
// utterances from every prefix, as echo does); every context starts with
// the summary.
func checkDraft(t *testing.T, s *agentlog.Session, d *Draft) {
	t.Helper()
	if err := d.Candidates.Validate(); err != nil {
		t.Errorf("%s: candidates: %v", s.Name, err)
	}
	if len(d.Contexts) != d.Candidates.CompactionsExpected || len(d.FirstProposed) != len(d.Candidates.Candidates) {
		t.Fatalf("%s: %d contexts, %d expected; %d first-proposed for %d candidates", s.Name, len(d.Contexts), d.Candidates.CompactionsExpected, len(d.FirstProposed), len(d.Candidates.Candidates))
	}
	prev := 0
	for i, c := range d.Contexts {
		if c.Compaction != i+1 || c.Turn <= prev || c.Turn > d.Candidates.Turns {
			t.Errorf("%s: context %d (compaction %d) at turn %d after %d, of %d turns", s.Name, i+1, c.Compaction, c.Turn, prev, d.Candidates.Turns)
		}
		prev = c.Turn
		var b bytes.Buffer
		if err := WriteContext(&b, c); err != nil {
			t.Fatal(err)
		}
		if _, err := fixture.ParseContext("ctx", b.Bytes()); err != nil {
			t.Errorf("%s: context %d: %v", s.Name, i+1, err)
		}
		if len(c.Messages) == 0 || c.Messages[0].Role != "user" {
			t.Errorf("%s: context %d has no summary first: %+v", s.Name, i+1, c.Messages)
		}
	}
	for i, it := range d.Candidates.Candidates {
		n := d.FirstProposed[i]
		if !it.Item().LiveAt(d.Contexts[n-1]) {
			t.Errorf("%s: %s (turn %d) proposed before compaction %d is not live at its context (turn %d)", s.Name, it.ID, it.Turn, n, d.Contexts[n-1].Turn)
		}
		if n > 1 && it.Item().LiveAt(d.Contexts[n-2]) {
			t.Errorf("%s: %s (turn %d), first proposed before compaction %d, is live at context %d (turn %d)", s.Name, it.ID, it.Turn, n, n-1, d.Contexts[n-2].Turn)
		}
	}
}

// TestRealSessions drafts every dev-set session with a compaction, with
// the echo proposer, and checks the invariants on each.
func TestRealSessions(t *testing.T) {
	dir := realLogs(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions in %s: %v", dir, err)
	}
	var drafted, none, contexts, split, notes int
	var cands, early, rulesNotes int
	rules := func(p *agentlog.Session) (selection.Proposal, error) {
		return selection.Propose(p, selection.ProposeOptions{MinConfidence: selection.DefaultMinConfidence}), nil
	}
	for _, f := range files {
		s, err := agentlog.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Build(s, echo)
		if len(s.Compactions) == 0 {
			none++
			continue
		}
		if err != nil {
			t.Error(err)
			continue
		}
		drafted++
		contexts += len(d.Contexts)
		split += d.Candidates.Turns - d.TypedTurns
		notes += len(d.Notes)
		checkDraft(t, s, d)
		// With the proposer's rules: how many candidates, and how many are
		// live before the compaction whose prefix first proposed them
		// (stated earlier, proposed once later turns raised them).
		r, err := Build(s, rules)
		if err != nil {
			t.Error(err)
			continue
		}
		cands += len(r.Candidates.Candidates)
		rulesNotes += len(r.Notes)
		for i, it := range r.Candidates.Candidates {
			if n := r.FirstProposed[i]; n > 1 && it.Item().LiveAt(r.Contexts[n-2]) {
				early++
			}
		}
	}
	t.Logf("%d sessions drafted (%d contexts; %d typed turns split by a compaction), %d without a compaction; %d notes", drafted, contexts, split, none, notes)
	t.Logf("with the rules: %d candidates, %d of them live before the compaction that first proposed them; %d notes", cands, early, rulesNotes)
}
