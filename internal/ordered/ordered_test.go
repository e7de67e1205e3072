package ordered

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunOrder: items come back in the order emitted whatever order their
// work ends in, work runs on several goroutines at once, and items that
// need none pass straight through.
func TestRunOrder(t *testing.T) {
	var inFlight, most atomic.Int32
	var got []int
	err := Run(4, func(emit func(int, bool) bool) error {
		for i := range 20 {
			if !emit(i, i%5 != 0) {
				return nil
			}
		}
		return nil
	}, func(i int) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Duration(20-i) * time.Millisecond) // later items finish first
		inFlight.Add(-1)
	}, func(i int) error {
		got = append(got, i)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, 20)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Errorf("consumed %v, want %v", got, want)
	}
	if most.Load() < 2 {
		t.Errorf("at most %d items worked on at once, want several", most.Load())
	}
}

// TestRunErrors: produce's error comes after the items emitted before it;
// consume's error stops the run, and produce is told to stop.
func TestRunErrors(t *testing.T) {
	bad := errors.New("bad file")
	var got []int
	err := Run(2, func(emit func(int, bool) bool) error {
		emit(1, true)
		emit(2, true)
		return bad
	}, func(int) {}, func(i int) error {
		got = append(got, i)
		return nil
	})
	if !errors.Is(err, bad) || !slices.Equal(got, []int{1, 2}) {
		t.Errorf("err %v, consumed %v; want bad file after 1 and 2", err, got)
	}
	stopped := false
	err = Run(2, func(emit func(int, bool) bool) error {
		for i := 0; ; i++ {
			if !emit(i, true) {
				stopped = true
				return nil
			}
		}
	}, func(int) {}, func(i int) error {
		if i == 3 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) || !stopped {
		t.Errorf("err %v, produce stopped %v; want bad file and a stop", err, stopped)
	}
}
