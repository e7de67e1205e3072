package report

import (
	"bytes"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// heapSizes are sizes of the heap, in bytes, from runtime/metrics.
type heapSizes struct {
	// Live is the heap the last garbage collection marked live: what the
	// code measured holds.
	Live uint64
	// Objects is the heap's objects, live or garbage not yet collected
	// (which the collector lets grow with the live heap).
	Objects uint64
	// InUse is the heap's spans in use: Objects and the free space of
	// their spans (runtime.MemStats.HeapInuse).
	InUse uint64
}

// Above returns h less base, each size at least 0.
func (h heapSizes) Above(base heapSizes) heapSizes {
	sub := func(a, b uint64) uint64 {
		if a > b {
			return a - b
		}
		return 0
	}
	return heapSizes{Live: sub(h.Live, base.Live), Objects: sub(h.Objects, base.Objects), InUse: sub(h.InUse, base.InUse)}
}

// sampleHeap collects the garbage, then samples the heap every
// millisecond until stop is called; stop returns the sizes at the start
// and the peak of each size (not necessarily at the same moment).
func sampleHeap() (stop func() (start, peak heapSizes)) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func(s []metrics.Sample) heapSizes {
		metrics.Read(s)
		objects := s[1].Value.Uint64()
		return heapSizes{Live: s[0].Value.Uint64(), Objects: objects, InUse: objects + s[2].Value.Uint64()}
	}
	runtime.GC()
	start := read(samples)
	var live, objects, inUse atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := append([]metrics.Sample(nil), samples...)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			h := read(s)
			live.Store(max(live.Load(), h.Live))
			objects.Store(max(objects.Load(), h.Objects))
			inUse.Store(max(inUse.Load(), h.InUse))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() (heapSizes, heapSizes) {
		close(done)
		wg.Wait()
		return start, heapSizes{Live: live.Load(), Objects: objects.Load(), InUse: inUse.Load()}
	}
}

// countWriter counts the bytes written to it, and keeps them if keep.
type countWriter struct {
	n    int64
	keep bool
	buf  bytes.Buffer
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.keep {
		w.buf.Write(p)
	}
	return len(p), nil
}
