package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixturesValidateAgentLog: an agent log given to fixtures validate
// is one error line saying what the file is and which command drafts
// fixtures from it — not a problem for every field of every record (a
// new user got 328 lines for a 24-line log) — while a real fixture set
// still validates.
func TestFixturesValidateAgentLog(t *testing.T) {
	for _, log := range []string{
		filepath.Join("testdata", "select-logs", "sessions.jsonl"),
		filepath.Join("..", "..", "agentlog", "testdata", "codex-rollout.jsonl"),
	} {
		stdout, stderr, code := cli(t, "fixtures", "validate", log)
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, log+": looks like an agent log (") || !strings.Contains(stderr, "tally fixtures draft "+log) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", log, code, stdout, stderr)
		}
	}
	if _, stderr, code := cli(t, "fixtures", "validate", exampleFixtures); code != 0 {
		t.Errorf("the example's fixtures: exit %d: %s", code, stderr)
	}
}

// TestFixturesValidateChecksNothing: a fixture with no item, or one that
// expects no compaction, is valid but checks nothing, and validate says
// so under its ok line (a new user's trial got "ok: 1 fixtures, 0 items"
// for a review quit before any decision, and "ok" for a session that
// never compacted, and learned it only from check).
func TestFixturesValidateChecksNothing(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty.json": `{"conversation_id": "s_empty", "turns": 4, "compactions_expected": 1, "must_survive": []}`,
		"none.json": `{"conversation_id": "s_none", "turns": 4, "compactions_expected": 0, "must_survive": [
  {"id": "c1", "class": "reference", "turn": 1, "literal": "x.go", "probe": "Which file?", "expect": "x.go"}]}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := cli(t, "fixtures", "validate", dir)
	want := "ok: 2 fixtures, 1 items, 0 constraint, 0 commitment, 0 open_question, 1 reference\n" +
		"note: 1 fixture has no item, so it checks nothing: s_empty\n" +
		"note: 1 fixture expects no compaction (compactions_expected 0), so no compacted context can be checked against it: s_none\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %q", code, stdout, want, stderr)
	}
}
