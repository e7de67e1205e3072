package agentlog

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tally-eval/tally/internal/benchraw"
)

// BenchmarkReaderRealLogs reads the dev set's sessions (TALLY_REAL_LOGS)
// the way tally reads a file: NewReader over the dev set's logs joined
// into one file as `cat` joins them, plain and gzipped (the .gz files
// joined, a multi-member gzip), every session through Next. Against it,
// in the same run, the raw read of the same file: io.Copy to io.Discard,
// through the gzip reader tally uses (klauspost/compress) for the
// gzipped file, and through compress/gzip too (raw-stdgzip-MB/s: the
// limit before tally switched). MB/s is of uncompressed bytes per second
// of wall time; cpu-MB/s per second of the process's CPU time (steadier
// on a busy machine); of-raw is the read's speed as a share of the raw
// read's (wall time, best of three for the raw read); peak-live-MB the
// live heap at its highest, which does not grow with the file: one
// session is held at a time.
func BenchmarkReaderRealLogs(b *testing.B) {
	files := realLogs(b)
	dir := b.TempDir()
	plain, gz := filepath.Join(dir, "plain.jsonl"), filepath.Join(dir, "all.jsonl.gz")
	var size int64
	{
		pf, err := os.Create(plain)
		if err != nil {
			b.Fatal(err)
		}
		zf, err := os.Create(gz)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range files {
			raw := gunzip(b, p)
			size += int64(len(raw))
			if _, err := pf.Write(raw); err != nil {
				b.Fatal(err)
			}
			z, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := zf.Write(z); err != nil {
				b.Fatal(err)
			}
		}
		if err := pf.Close(); err != nil {
			b.Fatal(err)
		}
		if err := zf.Close(); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, path string
		gzipped    bool
	}{{"plain", plain, false}, {"gzip", gz, true}} {
		raw := benchraw.Read(b, size, c.gzipped, c.path)
		b.Run(c.name, func(b *testing.B) {
			stop := raw.Start(b)
			sessions := 0
			for b.Loop() {
				f, err := os.Open(c.path)
				if err != nil {
					b.Fatal(err)
				}
				r, err := NewReader(f, c.path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				sessions = 0
				for {
					if _, err := r.Next(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					sessions++
				}
				if r.Bytes() != size {
					b.Fatalf("read %d bytes of %d", r.Bytes(), size)
				}
				r.Close()
				f.Close()
			}
			stop()
			b.ReportMetric(float64(sessions), "sessions")
		})
	}
}
