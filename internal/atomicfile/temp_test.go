package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// resetInterrupt undoes Interrupt for the tests that follow.
func resetInterrupt(t *testing.T) {
	t.Cleanup(func() {
		mu.Lock()
		interrupted = false
		mu.Unlock()
	})
}

// TestInterrupt: a Write in progress when Interrupt is called leaves no
// temporary file and does not replace its target, and no Write starts
// after it.
func TestInterrupt(t *testing.T) {
	resetInterrupt(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "verdicts.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- Write(path, func(w io.Writer) error {
			io.WriteString(w, "half of the new")
			close(started)
			<-release // a judge call that takes long
			return nil
		})
	}()
	<-started
	names := entries(t, dir)
	if len(names) != 2 || !strings.HasPrefix(names[0], ".verdicts.jsonl.tmp-tally"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("folder holds %q during the write, want verdicts.jsonl and .verdicts.jsonl.tmp-tally<pid>-<random>", names)
	}
	removed := Interrupt()
	if len(removed) != 1 || filepath.Base(removed[0]) != names[0] {
		t.Errorf("Interrupt removed %q, want the temporary file", removed)
	}
	close(release)
	if err := <-result; !errors.Is(err, ErrInterrupted) {
		t.Errorf("the interrupted Write = %v, want ErrInterrupted", err)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"verdicts.jsonl"}) {
		t.Errorf("folder holds %q after the interrupt, want only verdicts.jsonl", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("target holds %q, want the old content", b)
	}
	if err := Write(filepath.Join(dir, "late.json"), func(io.Writer) error { return nil }); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Write after Interrupt = %v, want ErrInterrupted", err)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if running(pid) {
		t.Skipf("pid %d was reused at once", pid)
	}
	return pid
}

// TestCleanStale: the first write into a folder removes the temporary
// files of dead tally processes and of any older than StaleAge, and
// keeps those of running processes (a long check elsewhere), its own and
// every other name.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	dead, alive, self := deadPID(t), os.Getppid(), os.Getpid()
	if !running(alive) {
		t.Skip("the parent process is gone")
	}
	name := func(pid int, target string) string { return "." + target + ".tmp-tally" + strconv.Itoa(pid) + "-12345" }
	files := map[string]bool{ // name → kept
		name(dead, "verdicts.jsonl"):  false,
		name(dead, "report.html"):     false,
		name(alive, "verdicts.jsonl"): true,
		name(self, "verdicts.jsonl"):  true,
		name(alive, "old.jsonl"):      false, // older than StaleAge
		".verdicts.jsonl.tmp-12345":   true,  // not ours: no pid
		"x.tmp-tally1-1":              true,  // no leading dot
		name(dead, "v.jsonl") + "x":   true,  // random part not digits
		"notes.txt":                   true,
	}
	for n := range files {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-StaleAge - time.Hour)
	if err := os.Chtimes(filepath.Join(dir, name(alive, "old.jsonl")), old, old); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "out.json"), func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
		t.Fatal(err)
	}
	got := entries(t, dir)
	for n, kept := range files {
		if slices.Contains(got, n) != kept {
			t.Errorf("%s: kept = %v, want %v", n, !kept, kept)
		}
	}
	if !slices.Contains(got, "out.json") {
		t.Error("out.json not written")
	}
	if runtime.GOOS == "windows" {
		return
	}
	// Only the first write into a folder cleans it.
	late := name(dead, "late.json")
	if err := os.WriteFile(filepath.Join(dir, late), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "out.json"), func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(entries(t, dir), late) {
		t.Error("a second write cleaned the folder again")
	}
}

func TestTempPID(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".verdicts.jsonl.tmp-tally42-123", 42, true},
		{".a.tmp-tally.tmp-tally7-9", 7, true},
		{".verdicts.jsonl.tmp-tally42-", 0, false},
		{".verdicts.jsonl.tmp-tally-1-2", 0, false},
		{".verdicts.jsonl.tmp-tally0-2", 0, false},
		{"verdicts.jsonl.tmp-tally42-123", 0, false},
		{".tmp-tally42-123", 0, false},
	} {
		pid, ok := tempPID(tc.name)
		if pid != tc.pid || ok != tc.ok {
			t.Errorf("tempPID(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}

// TestCreateTempMissingFolder: a folder that does not exist is said as
// such, not as the temporary file's name (a new user's trial got
// "open nodir/.c.json.tmp-tally…: no such file or directory").
func TestCreateTempMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nodir")
	_, err := CreateTemp(dir, "c.json")
	if err == nil || !errors.Is(err, fs.ErrNotExist) || err.Error() != "folder "+dir+" does not exist" {
		t.Errorf("got %v", err)
	}
}
