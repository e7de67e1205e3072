//go:build unix

package judge

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCacheNamedPipeEntry: a named pipe where an entry should be is a
// damaged entry — a miss, counted, at once (opening it would wait for a
// writer) — and the next write replaces it.
func TestCacheNamedPipeEntry(t *testing.T) {
	c := openCache(t)
	k := KeyParts{Probe: "pipe"}.Key()
	if err := os.MkdirAll(filepath.Dir(c.Path(k)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(c.Path(k), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := c.Get(k)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a named pipe was a hit")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe entry blocked")
	}
	if s := c.Stats(); s.Damaged != 1 || s.Misses != 1 {
		t.Fatalf("stats %+v, want one damaged entry, one miss", s)
	}
	if err := c.Put(k, verdictEntry("a")); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get(k); !ok || e.Reply.Answer != "a" {
		t.Fatalf("after the write: %+v, %v", e, ok)
	}
}
