package agentlog

import (
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
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
		// best times read(f) over the file, best of three.
		best := func(read func(f *os.File)) time.Duration {
			var min time.Duration
			for range 3 {
				f, err := os.Open(c.path)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				read(f)
				if d := time.Since(start); min == 0 || d < min {
					min = d
				}
				f.Close()
			}
			return min
		}
		copyAll := func(r io.Reader) {
			n, err := io.Copy(io.Discard, r)
			if err != nil {
				b.Fatal(err)
			}
			if n != size {
				b.Fatalf("raw read %d bytes of %d", n, size)
			}
		}
		raw := best(func(f *os.File) {
			if !c.gzipped {
				copyAll(f)
				return
			}
			zr, err := gzip.NewReader(f)
			if err != nil {
				b.Fatal(err)
			}
			copyAll(zr)
		})
		var rawStd time.Duration
		if c.gzipped {
			rawStd = best(func(f *os.File) {
				zr, err := stdgzip.NewReader(f)
				if err != nil {
					b.Fatal(err)
				}
				copyAll(zr)
			})
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			stop := peakHeap()
			cpu0 := cpuTime()
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
			cpu := cpuTime() - cpu0
			heap, live := stop()
			op := float64(b.Elapsed()) / float64(b.N)
			if cpu > 0 {
				b.ReportMetric(float64(size)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
			}
			b.ReportMetric(float64(size)/raw.Seconds()/1e6, "raw-MB/s")
			if rawStd > 0 {
				b.ReportMetric(float64(size)/rawStd.Seconds()/1e6, "raw-stdgzip-MB/s")
			}
			b.ReportMetric(float64(raw)/op, "of-raw")
			b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
			b.ReportMetric(float64(live)/1e6, "peak-live-MB")
			b.ReportMetric(float64(sessions), "sessions")
		})
	}
}

// peakHeap samples the heap every millisecond until stopped and returns
// its peaks: the heap's objects, and the heap live after a collection.
func peakHeap() (stop func() (heap, live uint64)) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peak, peakLive atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			if v := sample[1].Value.Uint64(); v > peakLive.Load() {
				peakLive.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return peak.Load(), peakLive.Load()
	}
}
