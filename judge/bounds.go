package judge

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// DefaultBreaker is the number of consecutive failed questions after
// which Check stops calling the judge (CheckConfig.Breaker 0).
const DefaultBreaker = 20

// The reasons of the error verdicts Check records without asking the
// judge.
const (
	// ReasonDeadline: CheckConfig.Deadline passed before the item was
	// judged.
	ReasonDeadline = "deadline"
	// ReasonUnavailable: the circuit breaker opened (CheckConfig.Breaker
	// consecutive questions failed) before the item was judged.
	ReasonUnavailable = "judge unavailable"
	// ReasonNoContext: the compaction's context file is missing and
	// CheckConfig.AllowMissing recorded its items instead of failing;
	// the item was certainly live at the compaction.
	ReasonNoContext = "no context"
	// ReasonLivenessUnknown: like ReasonNoContext, for an item that may
	// or may not have been live at the missing compaction: it was stated
	// within the turns the compaction can have served.
	ReasonLivenessUnknown = "no context (liveness unknown)"
)

var (
	errDeadline = errors.New(ReasonDeadline)
	errBreaker  = errors.New(ReasonUnavailable)
)

// bounds puts an overall deadline and a circuit breaker around a judge:
// once either trips, every question still to be judged, and every one in
// flight, is answered error at once with the reason, without a call.
type bounds struct {
	judge   Judge
	breaker int // consecutive failed questions that open the breaker; ≤ 0: never

	stop    context.Context // done when the deadline passes or the breaker opens
	trip    context.CancelCauseFunc
	release func()

	mu       sync.Mutex
	failures int // consecutive failed questions: answers with calls that were error
}

// newBounds wraps j; deadline 0 is none. Call close when done.
func newBounds(j Judge, deadline time.Duration, breaker int) *bounds {
	if breaker == 0 {
		breaker = DefaultBreaker
	}
	stop, trip := context.WithCancelCause(context.Background())
	release := func() {}
	if deadline > 0 {
		var cancel context.CancelFunc
		stop, cancel = context.WithDeadlineCause(stop, time.Now().Add(deadline), errDeadline)
		release = cancel
	}
	return &bounds{judge: j, breaker: breaker, stop: stop, trip: trip, release: release}
}

// close releases the deadline's timer.
func (b *bounds) close() {
	b.release()
	b.trip(nil)
}

// stopped is the reason every question is now answered error, or "".
func (b *bounds) stopped() string {
	if b.stop.Err() == nil {
		return ""
	}
	if errors.Is(context.Cause(b.stop), errBreaker) {
		return ReasonUnavailable
	}
	return ReasonDeadline
}

// ask judges q under ctx, unless the bounds have tripped.
func (b *bounds) ask(ctx context.Context, q Question) (Answer, error) {
	if reason := b.stopped(); reason != "" {
		return Answer{Verdict: fixture.Error, Reason: reason}, nil
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	unhook := context.AfterFunc(b.stop, func() { cancel(context.Cause(b.stop)) })
	defer unhook()
	a, err := b.judge.Judge(cctx, q)
	if err != nil {
		if reason := b.stopped(); reason != "" && ctx.Err() == nil {
			return Answer{Verdict: fixture.Error, Reason: reason}, nil
		}
		return a, err
	}
	if a.Calls > 0 { // a judge that called out; cached and recorded answers say nothing of its health
		b.mu.Lock()
		if a.Verdict == fixture.Error {
			b.failures++
		} else {
			b.failures = 0
		}
		open := b.breaker > 0 && b.failures >= b.breaker
		b.mu.Unlock()
		if open {
			b.trip(errBreaker)
		}
	}
	return a, nil
}
