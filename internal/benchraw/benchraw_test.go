package benchraw

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRead reads a file of 100,000 bytes raw, plain and gzipped: Read
// and Best see its bytes, and the compress/gzip time is taken only for
// the gzipped file.
func TestRead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10_000)
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.jsonl.gz")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		gzipped bool
	}{{plain, false}, {gz, true}} {
		r := Read(t, 2*int64(len(data)), c.gzipped, c.path, c.path)
		if r.Size != 2*int64(len(data)) || r.Time <= 0 || (r.StdGzip > 0) != c.gzipped {
			t.Errorf("%s: %+v", c.path, r)
		}
		runs := 0
		Best(t, c.gzipped, []string{c.path}, func(rd io.Reader) {
			got, err := io.ReadAll(rd)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: read %d bytes, %v", c.path, len(got), err)
			}
			runs++
		})
		if runs != 3 {
			t.Errorf("%s: %d runs, want 3", c.path, runs)
		}
	}
}
