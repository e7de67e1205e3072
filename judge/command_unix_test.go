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
	c, err := NewCommand(CommandConfig{Argv: []string{"sh", "testdata/grandchild.sh", dir}, Timeout: 500 * time.Millisecond})
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
