// Package benchraw holds what the benchmarks of tally's readers share:
// the raw read of the same bytes they are measured against (io.Copy to
// io.Discard, best of three), the process's CPU time, and the heap's
// peaks while they run. It is for _test.go files only: it imports
// testing, and nothing in tally's commands uses it.
package benchraw

import (
	stdgzip "compress/gzip"
	"io"
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Raw is the raw read of a benchmark's input files, the baseline its
// speed is reported against.
type Raw struct {
	Size    int64         // bytes read, uncompressed
	Time    time.Duration // best of three, through klauspost/compress's gzip reader (tally's) when gzipped
	StdGzip time.Duration // when gzipped, best of three through compress/gzip; else 0
}

// Read times reading the files at paths, one after another, raw: their
// bytes copied to io.Discard, gunzipped when gzipped. It stops tb at an
// error, or when the files do not hold size bytes (uncompressed).
func Read(tb testing.TB, size int64, gzipped bool, paths ...string) Raw {
	tb.Helper()
	r := Raw{Size: size}
	var read int64 // over the three runs
	r.Time = Best(tb, gzipped, paths, func(rd io.Reader) {
		n, err := io.Copy(io.Discard, rd)
		if err != nil {
			tb.Fatal(err)
		}
		read += n
	})
	if read != 3*size {
		tb.Fatalf("three raw reads gave %d bytes, not 3 × %d", read, size)
	}
	if gzipped {
		r.StdGzip = best(tb, paths, func(f *os.File) {
			zr, err := stdgzip.NewReader(f)
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, zr); err != nil {
				tb.Fatal(err)
			}
		})
	}
	return r
}

// Best returns the shortest of three runs of read over the files at
// paths, each opened (and gunzipped, through klauspost/compress, when
// gzipped) in turn; the time counts from each open to read's return. It
// stops tb at an error.
func Best(tb testing.TB, gzipped bool, paths []string, read func(io.Reader)) time.Duration {
	tb.Helper()
	return best(tb, paths, func(f *os.File) {
		if !gzipped {
			read(f)
			return
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		read(zr)
	})
}

// best returns the shortest of three runs of read over the files at
// paths.
func best(tb testing.TB, paths []string, read func(*os.File)) time.Duration {
	tb.Helper()
	var min time.Duration
	for range 3 {
		var d time.Duration
		for _, p := range paths {
			f, err := os.Open(p)
			if err != nil {
				tb.Fatal(err)
			}
			start := time.Now()
			read(f)
			d += time.Since(start)
			f.Close()
		}
		if min == 0 || d < min {
			min = d
		}
	}
	return min
}

// Start begins measuring b's loop, which reads raw's bytes once an
// iteration: it sets b's bytes to raw.Size, reports allocations, and
// starts the CPU clock and the heap's sampling. Call stop after the
// loop: it reports cpu-MB/s (uncompressed MB per second of the process's
// CPU time, steadier than wall time on a busy machine; not where
// CPUTime is 0), raw-MB/s and raw-stdgzip-MB/s (raw's speeds, wall
// time), of-raw (raw's time as a share of an iteration's: the loop's
// speed as a share of the raw read's), peak-heap-MB and peak-live-MB (as
// PeakHeap).
func (raw Raw) Start(b *testing.B) (stop func()) {
	b.SetBytes(raw.Size)
	b.ReportAllocs()
	stopHeap := PeakHeap()
	cpu0 := CPUTime()
	return func() {
		cpu := CPUTime() - cpu0
		heap, live := stopHeap()
		op := float64(b.Elapsed()) / float64(b.N)
		if cpu > 0 {
			b.ReportMetric(float64(raw.Size)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
		b.ReportMetric(float64(raw.Size)/raw.Time.Seconds()/1e6, "raw-MB/s")
		if raw.StdGzip > 0 {
			b.ReportMetric(float64(raw.Size)/raw.StdGzip.Seconds()/1e6, "raw-stdgzip-MB/s")
		}
		b.ReportMetric(float64(raw.Time)/op, "of-raw")
		b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
		b.ReportMetric(float64(live)/1e6, "peak-live-MB")
	}
}
