package benchraw

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// PeakHeap collects garbage, then samples the heap every millisecond
// until stopped, and returns its peaks: heap, the heap's objects
// including garbage not yet collected (what the process holds), and
// live, the heap in use at the end of a collection (what the
// computation needs).
func PeakHeap() (stop func() (heap, live uint64)) {
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
