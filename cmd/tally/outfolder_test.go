package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFolderCreated: every command that writes one output file
// creates its missing folder, as check, review, calibrate and report
// do (a new user's trial: signals -o out/flagged.jsonl failed with
// "folder out does not exist" where check -o out/… made it); a run that
// fails leaves no folder behind.
func TestOutputFolderCreated(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"signals", []string{"signals", exampleLog, "-o"}},
		{"select", []string{"select", exampleSessions, "--budget", "40", "-o"}},
		{"propose", []string{"propose", exampleLog, "--session", exampleSession, "-o"}},
		{"replay", []string{"replay", filepath.Join(quarterly, "replay.jsonl"), "-o"}},
		{"calibrate queue", []string{"calibrate", "queue", "--config", exampleConfig, "-o"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"), "new", "out")
		if _, errOut, code := cli(t, append(c.args, out)...); code != exitOK {
			t.Errorf("%s -o into a missing folder: exit %d: %s", c.name, code, errOut)
		} else if _, err := os.Stat(out); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"type\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "failed", "new", "flagged.jsonl")
	if _, _, code := cli(t, "signals", bad, "-o", out); code != exitInput {
		t.Errorf("signals on a malformed log: exit %d, want %d", code, exitInput)
	}
	if _, err := os.Stat(filepath.Join(dir, "failed")); !os.IsNotExist(err) {
		t.Errorf("a failed signals run left its output folder (%v)", err)
	}
}
