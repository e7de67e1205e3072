package judge

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// DefaultBreaker is the number of consecutive questions failed for want
// of the judge after which Check stops calling it (CheckConfig.Breaker 0).
const DefaultBreaker = 20

// The reasons of the error verdicts Check records without asking the
// judge.
const (
	// ReasonDeadline: CheckConfig.Deadline passed before the item was
	// judged, and the cache has no verdict for it.
	ReasonDeadline = "deadline"
	// ReasonUnavailable: the circuit breaker opened (CheckConfig.Breaker
	// consecutive questions failed for want of the judge) before the item
	// was judged, and the cache has no verdict for it.
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
// once either trips, no question is put to the judge any more. Every one
// still to be judged, and every one in flight, is answered at once: from
// the judge's cache alone when it has one (a *Model: Recall), so a cached
// verdict is never thrown away, and otherwise error with the reason.
//
// The breaker counts the questions that failed because the judge itself
// could not be had (Answer.Err wraps ErrUnavailable), each one; and the
// questions whose command judge exited non-zero (errExited) once per
// context: a context too long for the judge fails all its questions back
// to back, so it costs one, while a judge script that crashes on every
// prompt fails context after context and trips the breaker after Breaker
// contexts. Any other answer that called the judge — a verdict, a reply
// with no usable verdict, an HTTP 4xx such as 413 — shows the judge is
// there and resets the count; an answer from the cache alone neither
// counts nor resets.
type bounds struct {
	judge   Judge
	breaker int // failures that open the breaker; ≤ 0: never

	stop    context.Context // done when the deadline passes or the breaker opens
	trip    context.CancelCauseFunc
	release func()

	mu       sync.Mutex
	failures int                 // consecutive failed questions, as counted above
	exited   map[contextKey]bool // the contexts whose non-zero exits are counted in failures
}

// contextKey names one compacted context.
type contextKey struct {
	system, conversation string
	compaction           int
}

// recaller is a judge that can answer from its cache alone (*Model).
type recaller interface {
	Recall(q Question) (Answer, bool, error)
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
	return &bounds{judge: j, breaker: breaker, stop: stop, trip: trip, release: release, exited: map[contextKey]bool{}}
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
		return b.recall(q, reason)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	unhook := context.AfterFunc(b.stop, func() { cancel(context.Cause(b.stop)) })
	defer unhook()
	a, err := b.judge.Judge(cctx, q)
	if err != nil {
		if reason := b.stopped(); reason != "" && ctx.Err() == nil {
			// Cut short: its cache lookups were made before the call,
			// and the calls it made are counted.
			return Answer{Verdict: fixture.Error, Reason: reason, Calls: a.Calls}, nil
		}
		return a, err
	}
	if a.Calls > 0 { // a judge that called out; cached and recorded answers say nothing of its health
		if b.count(q, a) {
			b.trip(errBreaker)
		}
	}
	return a, nil
}

// recall answers q once the bounds have tripped: from the judge's cache
// when it can, else error with the reason.
func (b *bounds) recall(q Question, reason string) (Answer, error) {
	r, ok := b.judge.(recaller)
	if !ok {
		return Answer{Verdict: fixture.Error, Reason: reason}, nil
	}
	a, ok, err := r.Recall(q)
	if err != nil || ok {
		return a, err
	}
	return Answer{Verdict: fixture.Error, Judge: a.Judge, Reason: reason, CacheHits: a.CacheHits}, nil
}

// count adds an answer that called the judge to the breaker's count and
// reports whether the breaker is to open.
func (b *bounds) count(q Question, a Answer) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	failed := a.Verdict == fixture.Error && a.Err != nil
	switch {
	case failed && errors.Is(a.Err, ErrUnavailable):
		b.failures++
	case failed && errors.Is(a.Err, errExited):
		k := contextKey{q.System, q.ConversationID, q.Compaction}
		if !b.exited[k] {
			b.exited[k] = true
			b.failures++
		}
	default:
		b.failures = 0
		clear(b.exited)
	}
	return b.breaker > 0 && b.failures >= b.breaker
}
