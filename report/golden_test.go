package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updating reports whether -update was given: rewrite the golden files
// under testdata/ instead of comparing against them. The flag is the one
// package sample declares (bench_test.go links it in).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with the file testdata/PATH, or rewrites the file
// under -update. A difference names its first line.
func golden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join("testdata", filepath.FromSlash(path))
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run '%s' -update to create it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d (%d lines, want %d):\n got: %q\nwant: %q\n(run go test ./report -run '%s' -update and review the diff)",
				path, i+1, len(gl), len(wl), g, w, t.Name())
		}
	}
}
