package sample

import (
	"bytes"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// HeapSizes are sizes of the heap, in bytes, from runtime/metrics.
type HeapSizes struct {
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
func (h HeapSizes) Above(base HeapSizes) HeapSizes {
	sub := func(a, b uint64) uint64 {
		if a > b {
			return a - b
		}
		return 0
	}
	return HeapSizes{Live: sub(h.Live, base.Live), Objects: sub(h.Objects, base.Objects), InUse: sub(h.InUse, base.InUse)}
}

// Heap collects the garbage, then samples the heap every
// millisecond until stop is called; stop returns the sizes at the start
// and the peak of each size (not necessarily at the same moment).
func Heap() (stop func() (start, peak HeapSizes)) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func(s []metrics.Sample) HeapSizes {
		metrics.Read(s)
		objects := s[1].Value.Uint64()
		return HeapSizes{Live: s[0].Value.Uint64(), Objects: objects, InUse: objects + s[2].Value.Uint64()}
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
	return func() (HeapSizes, HeapSizes) {
		close(done)
		wg.Wait()
		return start, HeapSizes{Live: live.Load(), Objects: objects.Load(), InUse: inUse.Load()}
	}
}

// CountWriter counts the bytes written to it, and keeps them if keep.
type CountWriter struct {
	N    int64        // bytes written
	Keep bool         // keep the bytes in Buf
	Buf  bytes.Buffer // the bytes, if Keep
}

func (w *CountWriter) Write(p []byte) (int, error) {
	w.N += int64(len(p))
	if w.Keep {
		w.Buf.Write(p)
	}
	return len(p), nil
}
