package judge

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Limiter bounds the requests one backend makes: at most MaxInFlight at a
// time and at most PerSecond started per second, evenly spaced (a token
// bucket holding one token). A zero limit is no limit. Every call through
// a backend — and every retry — passes through its one Limiter, so the
// limits hold across all the goroutines sharing the backend.
type Limiter struct {
	sem      chan struct{} // nil: unlimited concurrency
	interval time.Duration // 0: unlimited rate

	mu   sync.Mutex
	next time.Time // earliest start of the next request
}

// NewLimiter returns a Limiter; maxInFlight ≤ 0 and perSecond = 0 mean
// unlimited. A negative, NaN or infinite perSecond is an error.
func NewLimiter(maxInFlight int, perSecond float64) (*Limiter, error) {
	if math.IsNaN(perSecond) || math.IsInf(perSecond, 0) || perSecond < 0 {
		return nil, fmt.Errorf("judge: requests per second must be a non-negative number, got %v", perSecond)
	}
	l := &Limiter{}
	if maxInFlight > 0 {
		l.sem = make(chan struct{}, maxInFlight)
	}
	if perSecond > 0 {
		l.interval = time.Duration(float64(time.Second) / perSecond)
	}
	return l, nil
}

// Acquire waits for a free slot and for the next start time, then returns
// the function that frees the slot. It returns ctx's error if ctx ends
// first. A nil Limiter imposes no limit.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	if l == nil {
		return func() {}, ctx.Err()
	}
	release = func() {}
	if l.sem != nil {
		select {
		case l.sem <- struct{}{}:
			var once sync.Once
			release = func() { once.Do(func() { <-l.sem }) }
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if l.interval > 0 {
		l.mu.Lock()
		now := time.Now()
		start := l.next
		if start.Before(now) {
			start = now
		}
		l.next = start.Add(l.interval)
		l.mu.Unlock()
		if err := sleepCtx(ctx, time.Until(start)); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// sleepCtx sleeps for d or until ctx ends, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
