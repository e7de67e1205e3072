package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("content = %q", got)
	}
	if info, _ := os.Stat(path); runtime.GOOS != "windows" && info.Mode().Perm() != 0o644 {
		t.Errorf("mode of a new file = %v, want 0644", info.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v, want only report.html", names)
	}

	// Replacing keeps the old file's permissions.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "newer"); return err }); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode after replacing = %v, want 0600", info.Mode().Perm())
	}
}

// TestWriteFailure: when write fails or panics half-way, the old file is
// untouched and no temporary file is left behind.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "verdicts.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("judge failed")
	err := Write(path, func(w io.Writer) error {
		fmt.Fprint(w, "half of the new")
		return boom
	})
	if !errors.Is(err, boom) || err.Error() != "writing "+path+": judge failed" {
		t.Errorf("Write = %v", err)
	}
	func() {
		defer func() { recover() }()
		Write(path, func(w io.Writer) error {
			fmt.Fprint(w, "half")
			panic("bug")
		})
	}()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content after failures = %q, want the old content", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v, want only verdicts.jsonl", names)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "x.json"), func(io.Writer) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write into a missing folder = %v", err)
	}
	if err := Write(dir, func(io.Writer) error { return nil }); err == nil {
		t.Error("Write over a folder succeeded")
	}
}
