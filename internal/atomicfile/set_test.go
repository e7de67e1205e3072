package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contents maps each name in dir to its text ("<folder>" for a folder).
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range list {
		if e.IsDir() {
			m[e.Name()] = "<folder>"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// TestWriteSet: a set of files is written all or none — a failing or
// panicking writer leaves the folder exactly as it was, with no temporary
// file — and a complete set replaces its files (keeping their modes),
// adds new ones at 0644 and removes the stale ones.
func TestWriteSet(t *testing.T) {
	put := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	setup := func(t *testing.T) (string, map[string]string) {
		dir := t.TempDir()
		for name, text := range map[string]string{"a.md": "old a", "b.html": "old b", "c.xlsx": "old c", "queue.csv": "old queue"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir, contents(t, dir)
	}
	boom := errors.New("a cell failed")
	for _, tt := range []struct {
		reason string
		second func(io.Writer) error
	}{
		{"the second file's writer fails after writing part of it", func(w io.Writer) error { io.WriteString(w, "half"); return boom }},
		{"the second file's writer panics", func(w io.Writer) error { io.WriteString(w, "half"); panic(boom) }},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			dir, before := setup(t)
			set := []File{
				{filepath.Join(dir, "a.md"), put("new a")},
				{filepath.Join(dir, "b.html"), tt.second},
				{filepath.Join(dir, "c.xlsx"), put("new c")},
			}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = p.(error)
					}
				}()
				err = WriteSet(set, []string{filepath.Join(dir, "queue.csv")})
			}()
			if err == nil || !strings.Contains(err.Error(), "a cell failed") {
				t.Errorf("error %v", err)
			}
			if after := contents(t, dir); !maps.Equal(after, before) {
				t.Errorf("the folder changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}

	dir, _ := setup(t)
	err := WriteSet([]File{
		{filepath.Join(dir, "a.md"), put("new a")},
		{filepath.Join(dir, "new.txt"), put("new")},
	}, []string{filepath.Join(dir, "queue.csv"), filepath.Join(dir, "never.csv")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.md": "new a", "b.html": "old b", "c.xlsx": "old c", "new.txt": "new"}
	if got := contents(t, dir); !maps.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for name, mode := range map[string]fs.FileMode{"a.md": 0o600, "new.txt": 0o644} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: mode %v (%v), want %v", name, info.Mode().Perm(), err, mode)
		}
	}

	// A folder where a file of the set or a stale file should be: an
	// error before anything is written.
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := contents(t, dir)
	for _, tc := range []struct {
		set    []File
		remove []string
		want   string
	}{
		{[]File{{filepath.Join(dir, "a.md"), put("x")}, {filepath.Join(dir, "sub.md"), put("x")}}, nil, "writing " + filepath.Join(dir, "sub.md") + ": not a regular file"},
		{[]File{{filepath.Join(dir, "a.md"), put("x")}}, []string{filepath.Join(dir, "sub.md")}, "removing " + filepath.Join(dir, "sub.md") + ": not a regular file"},
	} {
		if err := WriteSet(tc.set, tc.remove); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
		if after := contents(t, dir); !maps.Equal(after, before) {
			t.Errorf("the folder changed: %q", after)
		}
	}
}

// TestWriteSetSameFile: two entries naming one file (written twice, or
// written and removed) would silently lose one of them; the set is
// refused before anything is written.
func TestWriteSetSameFile(t *testing.T) {
	dir := t.TempDir()
	put := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	a := filepath.Join(dir, "a.jsonl")
	for _, tc := range []struct {
		reason string
		set    []File
		remove []string
	}{
		{"one path twice", []File{{a, put("flagged")}, {a, put("sample")}}, nil},
		{"the same path spelt two ways", []File{{a, put("flagged")}, {filepath.Join(dir, ".", "a.jsonl"), put("sample")}}, nil},
		{"written and removed", []File{{a, put("flagged")}}, []string{a}},
	} {
		err := WriteSet(tc.set, tc.remove)
		if err == nil || !strings.Contains(err.Error(), "the same file as") {
			t.Errorf("%s: %v, want a refusal", tc.reason, err)
		}
		if got := contents(t, dir); len(got) != 0 {
			t.Errorf("%s: the folder holds %q", tc.reason, got)
		}
	}
	// A link to an existing file is the same file too.
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Link(a, link); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := WriteSet([]File{{a, put("x")}, {link, put("y")}}, nil); err == nil {
		t.Error("two names of one file: written")
	}
}

// TestWriteSetAfterInterrupt: once interrupted, a set renames nothing and
// leaves no temporary file: the old files stay whole.
func TestWriteSetAfterInterrupt(t *testing.T) {
	resetInterrupt(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	Interrupt()
	err := WriteSet([]File{{a, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }}}, nil)
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("err %v, want ErrInterrupted", err)
	}
	if got := contents(t, dir); !maps.Equal(got, map[string]string{"a.md": "old"}) {
		t.Errorf("the folder holds %q", got)
	}
}
