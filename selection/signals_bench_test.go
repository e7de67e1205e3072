package selection

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/tally-eval/tally/internal/benchraw"
	"github.com/tally-eval/tally/internal/input"
)

// signalsBenchLogs returns the Claude Code logs the signals benchmark
// reads, uncompressed: the dev set's sessions when TALLY_REAL_LOGS names
// their folder, else this package's small real-format test sessions
// (testdata/repeats and testdata/restate), each repeated 200 times,
// every copy with sessionIds of its own.
func signalsBenchLogs(b *testing.B) (logs [][]byte, what string) {
	if dir := os.Getenv("TALLY_REAL_LOGS"); dir != "" {
		files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
		if err != nil || len(files) == 0 {
			b.Fatalf("TALLY_REAL_LOGS=%s holds no *.jsonl.gz files (%v)", dir, err)
		}
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			zr, err := gzip.NewReader(f)
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(zr)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			logs = append(logs, data)
		}
		return logs, "the dev set (TALLY_REAL_LOGS)"
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "re*", "*.jsonl"))
	for k := range 200 {
		for i, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			// Each file, each time, is another session: a log holds each
			// session's records together, and two files may use one id.
			id := []byte(`"sessionId":"t` + strconv.Itoa(k) + "-" + strconv.Itoa(i) + "-")
			logs = append(logs, bytes.ReplaceAll(data, []byte(`"sessionId":"`), id))
		}
	}
	return logs, "testdata's real-format sessions ×200 (set TALLY_REAL_LOGS for the dev set)"
}

// BenchmarkSignalsRealLogs: `tally signals` (Scan, one worker: one core)
// over real Claude Code logs joined into one file, as `cat` joins them,
// plain and gzipped, and the plain file four times over (each copy's
// sessionIds made its own); against reading
// the same file's bytes raw (io.Copy to io.Discard, through the gzip
// reader tally uses, klauspost/compress, for the gzipped file; through
// compress/gzip too, raw-stdgzip-MB/s) and line by line (input.Lines),
// timed in the same run.
// MB/s is of uncompressed bytes, per second of wall time; cpu-MB/s per
// second of the process's CPU time (steadier on a busy machine); of-raw
// is signals' speed as a share of the raw read's; peak-live-MB is the live heap at its highest, which
// stays flat from the plain file to the one four times its size because
// Scan holds one session at a time.
func BenchmarkSignalsRealLogs(b *testing.B) {
	logs, what := signalsBenchLogs(b)
	b.Logf("reading %s", what)
	dir := b.TempDir()
	write := func(name string, copies int, gzipped bool) (string, int64) {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		var w io.Writer = f
		var zw *stdgzip.Writer
		if gzipped {
			zw = stdgzip.NewWriter(f)
			w = zw
		}
		var size int64
		for k := range copies {
			for _, l := range logs {
				if k > 0 {
					// Another copy is other sessions: a log holds each
					// session's records together.
					l = bytes.ReplaceAll(l, []byte(`"sessionId":"`), []byte(`"sessionId":"copy`+strconv.Itoa(k)+`-`))
				}
				if _, err := w.Write(l); err != nil {
					b.Fatal(err)
				}
				size += int64(len(l))
			}
		}
		if zw != nil {
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		return path, size
	}
	cases := []struct {
		name    string
		copies  int
		gzipped bool
		path    string
		size    int64
	}{{name: "plain", copies: 1}, {name: "gzip", copies: 1, gzipped: true}, {name: "plain-x4", copies: 4}}
	for i := range cases {
		c := &cases[i]
		c.path, c.size = write(c.name+".jsonl", c.copies, c.gzipped)
	}
	logs = nil // so that the peaks measure the scan, not the logs held here
	for _, c := range cases {
		path, size := c.path, c.size
		raw := benchraw.Read(b, size, c.gzipped, path)
		lines := benchraw.Best(b, c.gzipped, []string{path}, func(r io.Reader) {
			l := input.NewLines(r, path, 0)
			for {
				if _, err := l.Next(); err != nil {
					if err != io.EOF {
						b.Fatal(err)
					}
					return
				}
			}
		})
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultSignalConfig()
			cfg.Workers = 1
			stop := raw.Start(b)
			flagged := 0
			for b.Loop() {
				flagged = 0
				rep, err := ScanFiles(context.Background(), []string{path}, cfg, func(*Flagged) error {
					flagged++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Bytes != size {
					b.Fatalf("read %d bytes of %d", rep.Bytes, size)
				}
			}
			stop()
			b.ReportMetric(float64(size)/lines.Seconds()/1e6, "lines-MB/s")
			b.ReportMetric(float64(lines)/(float64(b.Elapsed())/float64(b.N)), "of-lines")
			b.ReportMetric(float64(flagged), "flagged")
		})
	}
}
