//go:build unix

package judge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// grandchildPID waits for testdata/grandchild.sh to write its
// grandchild's PID into dir.
func grandchildPID(t *testing.T, dir string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "grandchild.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("grandchild.pid holds %q", b)
		}
		return pid
	}
	t.Fatal("the judge script never wrote its grandchild's PID")
	return 0
}

// alive reports whether pid is a running process: signal 0 reaches it
// and (where /proc tells) it is not a zombie waiting for a parent that
// does not reap.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// assertGone fails unless pid is gone within two seconds; it kills pid
// itself at the end so a failing test leaves no process behind.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("the judge's grandchild (pid %d) survived the judge", pid)
}

// A timeout kills the judge's whole process group: the grandchild the
// script started is gone too, not re-parented to init.
func TestCommandTimeoutKillsGrandchildren(t *testing.T) {
	dir := t.TempDir()
	// 3 s, not less: on a loaded machine (CI beside another test run) a
	// shorter timeout killed the script before it wrote the PID.
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "testdata/grandchild.sh", dir}, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(context.Background(), "p")
		done <- err
	}()
	pid := grandchildPID(t, dir)
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Complete did not return after the timeout")
	}
	if err == nil || !strings.Contains(err.Error(), "no reply within") {
		t.Fatalf("err = %v, want the timeout", err)
	}
	assertGone(t, pid)
}

// Cancelling the context (SIGTERM or SIGINT to tally) kills the judge's
// whole process group too.
func TestCommandCancelKillsGrandchildren(t *testing.T) {
	dir := t.TempDir()
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "testdata/grandchild.sh", dir}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, "p")
		done <- err
	}()
	pid := grandchildPID(t, dir)
	cancel()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Complete did not return after the cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertGone(t, pid)
}

// writeScript writes an executable judge script replying verdict.
func writeScript(t *testing.T, path, verdict string) {
	t.Helper()
	text := "#!/bin/sh\ncat >/dev/null\necho '{\"verdict\": \"" + verdict + "\"}'\n"
	if err := os.WriteFile(path, []byte(text), 0o700); err != nil {
		t.Fatal(err)
	}
}

// Editing the judge program — run directly, or given to an interpreter
// as an argument — makes the cached verdicts misses: the next run calls
// it again instead of answering from the old program's replies.
func TestCommandCacheKeyHasTheProgram(t *testing.T) {
	for _, tt := range []struct {
		reason string
		argv   func(script string) []string
	}{
		{"the program itself (--command judge.sh)", func(s string) []string { return []string{s} }},
		{"a file an argument names (--command sh --command-arg judge.sh)", func(s string) []string { return []string{"sh", s} }},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "judge.sh")
			cache := openCache(t)
			judgeOnce := func() Answer {
				t.Helper()
				// A label keeps Name the same however the script changes.
				c, err := NewCommand(CommandConfig{Argv: tt.argv(script), Label: "mine"})
				if err != nil {
					t.Fatal(err)
				}
				q := sampleQuestion()
				q.Expect = ""
				a, err := (&Model{Backend: c, Cache: cache}).Judge(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			writeScript(t, script, "absent")
			if a := judgeOnce(); a.Calls != 1 || a.Verdict != "absent" {
				t.Fatalf("first run: %+v", a)
			}
			if a := judgeOnce(); a.Calls != 0 || a.CacheHits != 1 {
				t.Fatalf("unchanged script: %+v, want a cache hit", a)
			}
			writeScript(t, script, "supported")
			if a := judgeOnce(); a.Calls != 1 || a.CacheHits != 0 || a.Verdict != "supported" {
				t.Fatalf("edited script: %+v, want a new call and the new verdict", a)
			}
		})
	}
}

// TestCommandBackgroundChildOnExit: a judge that leaves a process running
// in the background, holding its output open, and exits 0 has its reply
// read whole — not lost to "WaitDelay expired before I/O complete" — and
// the process it left is killed with its group, not left running.
func TestCommandBackgroundChildOnExit(t *testing.T) {
	dir := t.TempDir()
	script := `sleep 30 & echo $! > "$1/grandchild.pid"; cat >/dev/null; echo '{"verdict": "absent"}'`
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "-c", script, "sh", dir}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Complete(context.Background(), "p")
	if err != nil {
		t.Errorf("Complete: %v; want the reply the program wrote before it exited", err)
	} else if r, err := ParseReply(reply); err != nil || r.Verdict != "absent" {
		t.Errorf("reply %q: %+v, %v; want absent", reply, r, err)
	}
	assertGone(t, grandchildPID(t, dir)) // kills it, if need be, so a failure leaves nothing behind
}

// TestCommandErrorsForTheBreaker: the command backend marks its failures
// for the circuit breaker — a program that cannot be started, or is killed
// by its timeout, is ErrUnavailable; a non-zero exit is errExited and not
// ErrUnavailable (it may be the prompt's fault); a reply too long is
// neither.
func TestCommandErrorsForTheBreaker(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone.sh")
	if err := os.WriteFile(gone, []byte("#!/bin/sh\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		reason             string
		argv               []string
		timeout            time.Duration
		remove             string
		unavailable, exits bool
	}{
		{"exit 1 after reading the prompt", []string{"sh", "-c", "cat >/dev/null; echo too long >&2; exit 1"}, 0, "", false, true},
		{"killed by its timeout", []string{"sleep", "10"}, 200 * time.Millisecond, "", true, false},
		{"removed after NewCommand: cannot start", []string{gone}, 0, gone, true, false},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			c, err := NewCommand(CommandConfig{Argv: tt.argv, Timeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if tt.remove != "" {
				removeFile(t, tt.remove)
			}
			_, err = c.Complete(context.Background(), "p")
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrUnavailable) != tt.unavailable || errors.Is(err, errExited) != tt.exits {
				t.Errorf("%v: unavailable %v, exited %v; want %v, %v", err, errors.Is(err, ErrUnavailable), errors.Is(err, errExited), tt.unavailable, tt.exits)
			}
		})
	}
}
