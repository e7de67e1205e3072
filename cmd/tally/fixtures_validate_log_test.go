package main

import (
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
