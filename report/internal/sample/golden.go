package sample

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata/ instead of comparing
// against them: go test ./report/NAME -update. Declared once for the package;
// every golden test reuses it.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Golden compares got with the file testdata/PATH, or rewrites the file
// under -update. A difference names its first line.
func Golden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join("testdata", filepath.FromSlash(path))
	if *update {
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
		t.Fatalf("%v (run go test ./report/... -run '%s' -update to create it)", err, t.Name())
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
			t.Fatalf("%s differs at line %d (%d lines, want %d):\n got: %q\nwant: %q\n(run go test ./report/... -run '%s' -update and review the diff)",
				path, i+1, len(gl), len(wl), g, w, t.Name())
		}
	}
}
