package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// committed is the committed data, relative to this package's folder.
const committed = "../quarterly"

// readTree reads every file under root, by slash-separated relative path.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := make(map[string][]byte)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCommittedDataIsGenerated regenerates the quarter into a temporary
// folder with the command's own code path and compares it byte for byte
// with examples/quarterly, so the committed data never drifts from the
// generator. Fix a failure with: go run ./examples/gen
func TestCommittedDataIsGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "quarterly")
	start := time.Now()
	if err := run(io.Discard, io.Discard, []string{"-out", out}); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("generated in %v", elapsed)
	if elapsed > 20*time.Second {
		t.Errorf("the generator took %v; the limit is 20s", elapsed)
	}
	got, want := readTree(t, out), readTree(t, committed)
	for p, data := range got {
		w, ok := want[p]
		switch {
		case !ok:
			t.Errorf("%s: generated but not committed (run go run ./examples/gen)", p)
		case !bytes.Equal(data, w):
			t.Errorf("%s: differs from the generator's output (run go run ./examples/gen)", p)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok && !kept(p) {
			t.Errorf("%s: committed but no longer generated", p)
		}
	}
}

// kept reports whether p (slash-separated, relative) is under a Kept path.
func kept(p string) bool {
	for _, k := range Kept {
		if p == k || strings.HasPrefix(p, k+"/") {
			return true
		}
	}
	return false
}

// TestDeterministic: two runs in one process with the same seed agree
// byte for byte (no map order or clock leaks in); another seed differs.
func TestDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("two full generations")
	}
	a, err := Generate(7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(7)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) != len(b.Files) {
		t.Fatalf("%d files, then %d", len(a.Files), len(b.Files))
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
			t.Fatalf("%s: the same seed gave different bytes", a.Files[i].Path)
		}
	}
	def, err := Generate(DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(def.Files[0].Data, a.Files[0].Data) {
		t.Errorf("%s: seeds 7 and %d gave the same bytes", a.Files[0].Path, DefaultSeed)
	}
}

// TestCommittedSize keeps the committed data under 30 MB.
func TestCommittedSize(t *testing.T) {
	const limit = 30 << 20
	total := 0
	for _, data := range readTree(t, committed) {
		total += len(data)
	}
	t.Logf("examples/quarterly: %.1f MB", float64(total)/(1<<20))
	if total >= limit {
		t.Errorf("examples/quarterly holds %d bytes; the limit is %d", total, limit)
	}
}

// TestWriteAtomic: a write that fails part-way leaves the old folder as it
// was and no temporary folder behind; one that succeeds replaces it whole.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "quarterly")
	if err := writeAtomic(out, []File{{"a.txt", []byte("old")}, {"sub/b.txt", []byte("old b")}}); err != nil {
		t.Fatal(err)
	}
	// "a.txt/c.txt" cannot be written once a.txt is a file.
	err := writeAtomic(out, []File{{"a.txt", []byte("new")}, {"a.txt/c.txt", []byte("x")}})
	if err == nil {
		t.Fatal("a conflicting write succeeded")
	}
	if got := readTree(t, out); string(got["a.txt"]) != "old" || string(got["sub/b.txt"]) != "old b" || len(got) != 2 {
		t.Errorf("after a failed write the folder holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a failed write left %d entries beside the output", len(entries)-1)
	}
	if err := writeAtomic(out, []File{{"c.txt", []byte("new")}}); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, out); len(got) != 1 || string(got["c.txt"]) != "new" {
		t.Errorf("after a successful write the folder holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a successful write left %d entries beside the output", len(entries)-1)
	}
}

func TestRunRejectsArguments(t *testing.T) {
	var stderr bytes.Buffer
	if err := run(io.Discard, &stderr, []string{"-out", t.TempDir(), "extra"}); err == nil {
		t.Error("an extra argument was accepted")
	}
	if err := run(io.Discard, &stderr, []string{"-seed", "x"}); err == nil {
		t.Error("a bad seed was accepted")
	}
}

// TestRegenerationKeepsToolOutputs: files tally makes from the data
// (verdicts, report.yaml) survive a regeneration unchanged.
func TestRegenerationKeepsToolOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "quarterly")
	if err := writeAtomic(out, []File{{Path: "a.txt", Data: []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "verdicts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string]string{"report.yaml": "title: x\n", "verdicts/incumbent.jsonl": "{}\n", "stale.txt": "old"} {
		if err := os.WriteFile(filepath.Join(out, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeAtomic(out, []File{{Path: "a.txt", Data: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "2", "report.yaml": "title: x\n", "verdicts/incumbent.jsonl": "{}\n"} {
		got, err := os.ReadFile(filepath.Join(out, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", p, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "stale.txt")); err == nil {
		t.Error("a file neither generated nor kept survived the regeneration")
	}
}
