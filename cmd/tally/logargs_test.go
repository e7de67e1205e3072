package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLogArgs: a folder is the agent logs under it at any depth, in
// lexical order, other files counted and left out, links inside not
// followed but named, a prompt history left out and named, a folder
// given through a link walked;
// a file stays itself; a folder with no log is an error.
func TestLogArgs(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := write("sessions/2026/01/27/rollout-b.jsonl")
	a := write("sessions/2025/09/22/rollout-a.jsonl.GZ")
	write("sessions/history.json")
	write("sessions/notes.txt")
	write("sessions/.backup/rollout-a.jsonl")
	single := write("one.jsonl")
	history := filepath.Join(dir, "sessions", "history.jsonl")
	if err := os.WriteFile(history, []byte(`{"display":"fix the test","pastedContents":{},"timestamp":1759000000000,"project":"/src"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sessions"), filepath.Join(dir, "sessions", "loop")); err != nil {
		t.Fatal(err)
	}
	got, note, err := logArgs([]string{single, filepath.Join(dir, "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{single, a, b}; !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	loop := filepath.Join(dir, "sessions", "loop")
	if want := "read 3 log files from 1 folder; 2 other files not named *.jsonl or *.jsonl.gz, or hidden, left out; 1 hidden folder (named .*) not read; 1 prompt history file (" + history + ") left out: the prompts typed, not sessions; 1 symbolic link not followed (" + loop + "): give what it names as an argument to read it"; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	// A folder given through a link (a dotfiles-managed ~/.claude) is
	// walked: a new user's trial was told it held no log.
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(filepath.Join(dir, "sessions"), linked); err != nil {
		t.Fatal(err)
	}
	got, _, err = logArgs([]string{linked})
	if want := []string{filepath.Join(linked, "2025/09/22/rollout-a.jsonl.GZ"), filepath.Join(linked, "2026/01/27/rollout-b.jsonl")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("a folder through a link: %q, %v; want %q", got, err, want)
	}
	if got, note, err := logArgs([]string{single}); err != nil || note != "" || !slices.Equal(got, []string{single}) {
		t.Errorf("a file alone: %q %q %v", got, note, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := logArgs([]string{empty}); err == nil || !strings.Contains(err.Error(), "holds no agent log") {
		t.Errorf("an empty folder: %v", err)
	}
	// A folder of a prompt history alone, and one whose logs are all in
	// hidden folders (tally signals ~): each says so (a re-check trial
	// was told there was no *.jsonl in them).
	onlyHist := filepath.Join(dir, "onlyhist")
	if err := os.MkdirAll(onlyHist, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(onlyHist, "history.jsonl"), []byte(`{"display":"fix it","pastedContents":{},"timestamp":1759000000000,"project":"/src"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := logArgs([]string{onlyHist}); err == nil || err.Error() != onlyHist+": the folder holds no session log, only Claude Code's prompt history (~/.claude/history.jsonl), the prompts typed: "+filepath.Join(onlyHist, "history.jsonl") {
		t.Errorf("a prompt history alone: %v", err)
	}
	home := filepath.Join(dir, "home")
	write("home/.claude/projects/p/s.jsonl")
	if _, _, err := logArgs([]string{home}); err == nil || !strings.Contains(err.Error(), "outside its 1 hidden folder (named .*), not read: give one, such as "+filepath.Join(home, ".claude")) {
		t.Errorf("logs in hidden folders only: %v", err)
	}
	// Last, since there are no named pipes to make on every system: a
	// named pipe called a log, in a folder: the walk, which peeks at a
	// log's first line for a prompt history, must not open it (it would
	// wait for a writer); it is passed on for its reader to refuse.
	pipes := filepath.Join(dir, "pipes")
	if err := os.Mkdir(pipes, 0o755); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(pipes, "in-folder.jsonl")
	mkfifo(t, pipe)
	if got, _, err := logArgs([]string{pipes}); err != nil || !slices.Equal(got, []string{pipe}) {
		t.Errorf("a named pipe in a folder: %q, %v", got, err)
	}
}

// TestLogArgsNoteInJSON: the folder's note, printed on stderr, is in the
// JSON output's warnings too, for a reader of the JSON alone (a re-check
// trial found it only on the terminal).
func TestLogArgsNoteInJSON(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(exampleLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, "week-01.jsonl.gz"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, "README.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "read 1 log file from 1 folder; 1 other file not named *.jsonl or *.jsonl.gz, or hidden, left out"
	for _, args := range [][]string{
		{"signals", logs, "-o", filepath.Join(dir, "flagged.jsonl"), "--format", "json"},
		{"select", logs, "--budget", "5", "--format", "json"},
	} {
		out, errOut, code := cli(t, args...)
		var j struct{ Warnings []string }
		if code != 0 || json.Unmarshal([]byte(out), &j) != nil {
			t.Fatalf("%s: exit %d: %s", args[0], code, errOut)
		}
		if len(j.Warnings) == 0 || j.Warnings[0] != note {
			t.Errorf("%s: warnings %q, want %q first", args[0], j.Warnings, note)
		}
	}
}
