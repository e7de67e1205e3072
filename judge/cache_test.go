package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

func verdictEntry(answer string) Entry {
	return Entry{Kind: KindVerdict, Judge: "fake/model", Reply: &Reply{Answer: answer, Verdict: fixture.Absent}}
}

func TestCacheLayoutAndRoundTrip(t *testing.T) {
	c := openCache(t)
	k := KeyParts{Kind: KindVerdict, Backend: "openai/m", Template: "t", Probe: "p", Expect: "e", Context: "c"}.Key()
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Put(k, verdictEntry("develop")); err != nil {
		t.Fatal(err)
	}
	hex := k.String()
	path := filepath.Join(c.Dir(), hex[:2], hex+".json")
	if c.Path(k) != path {
		t.Fatalf("Path = %s, want %s", c.Path(k), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil || raw["key"] != hex || raw["kind"] != "verdict" || raw["version"] != 2.0 {
		t.Fatalf("entry file %s: %v", b, err)
	}
	e, ok := c.Get(k)
	if !ok || e.Reply.Answer != "develop" || e.Reply.Verdict != fixture.Absent || e.Created.IsZero() {
		t.Fatalf("Get = %+v, %v", e, ok)
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 1 || s.Writes != 1 {
		t.Fatalf("stats %+v", s)
	}
	shard, _ := os.ReadDir(filepath.Dir(path))
	if len(shard) != 1 {
		t.Fatalf("shard holds %d files, want only the entry", len(shard))
	}
}

// Length-prefixed fields: moving bytes from one field to the next makes a
// different key.
func TestKeyFieldBoundaries(t *testing.T) {
	a := KeyParts{Kind: KindVerdict, Probe: "ab", Expect: "c"}.Key()
	b := KeyParts{Kind: KindVerdict, Probe: "a", Expect: "bc"}.Key()
	c := KeyParts{Kind: KindAgreement, Probe: "ab", Expect: "c"}.Key()
	d := KeyParts{Kind: KindVerdict, Probe: "ab", Expect: "c", Answer: "x"}.Key()
	if a == b || a == c || a == d || a != (KeyParts{Kind: KindVerdict, Probe: "ab", Expect: "c"}).Key() {
		t.Fatal("keys collide or are unstable")
	}
}

func TestCacheRejectsBadEntries(t *testing.T) {
	c := openCache(t)
	k := KeyParts{Probe: "x"}.Key()
	for _, e := range []Entry{
		{Kind: KindVerdict},
		{Kind: KindVerdict, Reply: &Reply{Verdict: fixture.Error}},
		{Kind: KindAgreement},
		{Kind: "other"},
	} {
		if err := c.Put(k, e); err == nil {
			t.Errorf("Put(%+v) succeeded", e)
		}
	}
	if s := c.Stats(); s.WriteErrors != 4 || s.LastWriteError == "" || s.Writes != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// A damaged or misplaced entry is a miss, counted, and replaced by the
// next write.
func TestCacheUnreadableEntries(t *testing.T) {
	c := openCache(t)
	k1, k2 := KeyParts{Probe: "1"}.Key(), KeyParts{Probe: "2"}.Key()
	if err := c.Put(k1, verdictEntry("a")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(c.Path(k2)), 0o700)
	b, _ := os.ReadFile(c.Path(k1))
	os.WriteFile(c.Path(k2), b, 0o600) // k1's entry under k2's name
	if _, ok := c.Get(k2); ok {
		t.Fatal("a misplaced entry was a hit")
	}
	os.WriteFile(c.Path(k1), b[:len(b)/2], 0o600) // truncated by hand
	if _, ok := c.Get(k1); ok {
		t.Fatal("a truncated entry was a hit")
	}
	if s := c.Stats(); s.Damaged != 2 || s.Misses != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := c.Put(k1, verdictEntry("b")); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get(k1); !ok || e.Reply.Answer != "b" {
		t.Fatalf("after rewrite: %+v, %v", e, ok)
	}
}

// Many goroutines writing and reading one key: every read is a miss or a
// complete entry, and one complete entry is left with no temporary files.
func TestCacheConcurrentWriters(t *testing.T) {
	c := openCache(t)
	k := KeyParts{Kind: KindVerdict, Probe: "shared"}.Key()
	big := strings.Repeat("z", 16<<10) // big enough that a torn write would show
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 8 {
				answer := fmt.Sprintf("%d-%d-%s", g, i, big)
				if err := c.Put(k, verdictEntry(answer)); err != nil {
					t.Error(err)
					return
				}
				if e, ok := c.Get(k); ok && (!strings.HasSuffix(e.Reply.Answer, big) || e.Reply.Verdict != fixture.Absent) {
					t.Errorf("torn entry: %d bytes", len(e.Reply.Answer))
					return
				}
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Damaged != 0 || s.Misses != 0 || s.Writes != 128 {
		t.Fatalf("stats %+v", s)
	}
	files, _ := os.ReadDir(filepath.Dir(c.Path(k)))
	if len(files) != 1 || files[0].Name() != k.String()+".json" {
		t.Fatalf("shard holds %v", files)
	}
}

// Stray temporary files are never read, and old ones are swept on open.
func TestCacheTempFiles(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := KeyParts{Probe: "t"}.Key()
	shard := filepath.Dir(c.Path(k))
	os.MkdirAll(shard, 0o700)
	stale := filepath.Join(shard, tempPrefix+k.String()+"-111")
	fresh := filepath.Join(shard, tempPrefix+k.String()+"-222")
	// A complete-looking entry in a temp file is still not an entry.
	entry, _ := json.Marshal(Entry{Version: cacheVersion, Key: k.String(), Kind: KindVerdict, Reply: &Reply{Verdict: fixture.Absent}})
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, entry, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	if _, ok := c.Get(k); ok {
		t.Fatal("a temporary file was read as an entry")
	}
	if err := c.Put(k, verdictEntry("real")); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get(k); !ok || e.Reply.Answer != "real" {
		t.Fatalf("Get = %+v, %v", e, ok)
	}
	if _, err := OpenCache(dir); err != nil { // sweeps
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file survived the sweep: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a fresh temp file (maybe being written) was removed: %v", err)
	}
	if n, err := c.Sweep(0); err != nil || n != 1 {
		t.Fatalf("Sweep(0) = %d, %v", n, err)
	}
	if _, ok := c.Get(k); !ok {
		t.Fatal("the sweep removed an entry")
	}
}

const killWriterEnv = "TALLY_JUDGE_KILL_WRITER_DIR"

// TestCacheKillWriter is the child of TestCacheKill: it writes large
// entries until it is killed.
func TestCacheKillWriter(t *testing.T) {
	dir := os.Getenv(killWriterEnv)
	if dir == "" {
		t.Skip("only run as TestCacheKill's child")
	}
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("k", 1<<20)
	for i := 0; ; i++ {
		k := KeyParts{Probe: strconv.Itoa(i % 16)}.Key()
		if err := c.Put(k, verdictEntry(big)); err != nil {
			t.Fatal(err)
		}
	}
}

// kill -9 a process in the middle of writing entries: every entry left is
// complete; the temporary files it leaves are ignored.
func TestCacheKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheKillWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), killWriterEnv+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for countEntries(t, dir) < 4+round && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(round*7) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range 16 {
		k := KeyParts{Probe: strconv.Itoa(i)}.Key()
		if _, err := os.Stat(c.Path(k)); err != nil {
			continue
		}
		n++
		if e, ok := c.Get(k); !ok || len(e.Reply.Answer) != 1<<20 {
			t.Fatalf("entry %d is incomplete after kill -9", i)
		}
	}
	if n == 0 || c.Stats().Damaged != 0 {
		t.Fatalf("%d entries, stats %+v", n, c.Stats())
	}
}

func countEntries(t *testing.T, dir string) int {
	matches, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	return len(matches)
}

// TestCacheDamagedEntryIsAMiss is the case: one changed byte
// inside a cached reply ("off" became "ofd") turned a supported item into
// a contradicted one, since the damaged answer no longer matched the
// expected answer and the agreement question said no. With the checksum
// the damaged entry is a miss, counted, and the result is a fresh call's.
func TestCacheDamagedEntryIsAMiss(t *testing.T) {
	q := sampleQuestion()
	q.Probe, q.Expect = "Is the feature flag on or off?", "off"
	// The judge answers "off" (equal to the expected answer: no agreement
	// question), and would say the two answers disagree if asked.
	verdict := `{"reasoning": "the flag is off", "answer": "off", "verdict": "supported"}`
	tests := []struct {
		reason    string
		from, to  string // the damage: the first from in the entry file becomes to
		damaged   int64
		oldFormat int64
	}{
		{"a flipped byte in the answer", `"answer": "off"`, `"answer": "ofd"`, 1, 0},
		{"a flipped byte in the verdict", `"verdict": "supported"`, `"verdict": "absent"`, 1, 0},
		{"a hand-edited checksum", `"sum": "`, `"sum": "0`, 1, 0},
		{"an old entry without a checksum", `"version": 2`, `"version": 1`, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			dir := t.TempDir()
			c1, err := OpenCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := (&Model{Backend: &scripted{name: "fake/model", reply: brain(verdict, agreeNo)}, Cache: c1}).Judge(context.Background(), q)
			if err != nil || fresh.Verdict != fixture.Supported || fresh.Answer != "off" || fresh.Calls != 1 {
				t.Fatalf("fresh call: %+v, %v", fresh, err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "??", "*.json"))
			if len(files) != 1 {
				t.Fatalf("%d entries, want 1", len(files))
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.from) {
				t.Fatalf("entry has no %q:\n%s", tt.from, b)
			}
			if err := os.WriteFile(files[0], []byte(strings.Replace(string(b), tt.from, tt.to, 1)), 0o600); err != nil {
				t.Fatal(err)
			}

			c2, err := OpenCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			backend := &scripted{name: "fake/model", reply: brain(verdict, agreeNo)}
			again, err := (&Model{Backend: backend, Cache: c2}).Judge(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if again.Verdict != fresh.Verdict || again.Answer != fresh.Answer || again.Reason != fresh.Reason || backend.calls() != 1 {
				t.Errorf("after the damage: %+v with %d calls; want a fresh call's %+v", again, backend.calls(), fresh)
			}
			if s := c2.Stats(); s.Damaged != tt.damaged || s.OldFormat != tt.oldFormat || s.Hits != 0 || s.Misses != 1 || s.Writes != 1 {
				t.Errorf("stats %+v; want %d damaged, %d old format, 0 hits, 1 miss, 1 write (the entry replaced)", s, tt.damaged, tt.oldFormat)
			}
			// The replaced entry is good again.
			c3, _ := OpenCache(dir)
			if _, ok := c3.Get(KeyParts{Kind: KindVerdict, Backend: "fake/model", Template: DefaultTemplateText, Probe: q.Probe, Expect: q.Expect, Context: q.Context}.Key()); !ok {
				t.Errorf("the rewritten entry is not a hit: %+v", c3.Stats())
			}
		})
	}
}

// TestCacheUnusableEntryCountedOnce: a damaged or old-format entry is
// counted once however often it is looked up — a dry run's Has and Lookup
// and then the run's Get used to count the same entry three times.
func TestCacheUnusableEntryCountedOnce(t *testing.T) {
	for _, tt := range []struct {
		reason             string
		from, to           string
		damaged, oldFormat int64
	}{
		{"a damaged entry", `"answer": "off"`, `"answer": "ofd"`, 1, 0},
		{"an old-format entry", `"version": 2`, `"version": 1`, 0, 1},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			c := openCache(t)
			k := KeyParts{Kind: KindVerdict, Backend: "fake/model", Probe: "p"}.Key()
			other := KeyParts{Kind: KindVerdict, Backend: "fake/model", Probe: "q"}.Key()
			for _, key := range []Key{k, other} {
				if err := c.Put(key, Entry{Kind: KindVerdict, Judge: "fake/model", Reply: &Reply{Answer: "off", Verdict: "supported"}}); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(c.Path(key))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.Path(key), []byte(strings.Replace(string(b), tt.from, tt.to, 1)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if c.Has(k) {
				t.Fatal("Has: the unusable entry is usable")
			}
			if _, ok := c.Lookup(k); ok {
				t.Fatal("Lookup: the unusable entry is usable")
			}
			for range 2 {
				if _, ok := c.Get(k); ok {
					t.Fatal("Get: the unusable entry is a hit")
				}
			}
			c.Get(other) // another unusable entry counts on its own
			if s := c.Stats(); s.Damaged != 2*tt.damaged || s.OldFormat != 2*tt.oldFormat || s.Misses != 3 {
				t.Errorf("stats %+v; want %d damaged, %d old format (each entry once), 3 misses", s, 2*tt.damaged, 2*tt.oldFormat)
			}
		})
	}
}
