package judge

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backend turns a prompt into a model's reply text.
//
// Complete returns an error when no reply could be had (after the
// backend's own retries); the error names the backend, and wraps
// ErrUnavailable when the failure says the judge itself cannot be had
// rather than that it refused or failed this prompt. It returns ctx's
// error when ctx ends. Implementations are safe for concurrent use.
type Backend interface {
	// Name is "backend/model", for example "openai/qwen2.5-7b-instruct".
	// It is part of every cache key and fills Answer.Judge.
	Name() string
	Complete(ctx context.Context, prompt string) (string, error)
}

// ErrUnavailable is wrapped by a Backend's error when the judge itself
// could not be had, whatever the prompt: a transport error or a timeout,
// a refused connection, HTTP 5xx, 408 or 429 (or an unusable 2xx) still
// failing after the retries, a command that could not be started or was
// killed by its timeout. Check's circuit breaker counts only these
// failures (and, once per context, a command's non-zero exit): an HTTP
// 4xx such as 413, or a reply with no usable verdict, is the question's
// failure, not the judge's. Test it with errors.Is; the error's message
// is the backend's own.
var ErrUnavailable = errors.New("judge unavailable")

// errExited is wrapped by the command backend's error when the program
// ran and exited non-zero (or was killed by a signal it did not get
// from us): the judge may be broken, or may have refused this prompt —
// a context too long for it — so the breaker counts it once per context.
var errExited = errors.New("the command exited non-zero")

// marked is err with a mark (ErrUnavailable, errExited) that errors.Is
// finds, and err's message unchanged.
type marked struct{ err, mark error }

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return []error{e.err, e.mark} }

// unavailable marks err as ErrUnavailable.
func unavailable(err error) error { return &marked{err: err, mark: ErrUnavailable} }

// Identifier is implemented by a Backend whose replies depend on more
// than its Name — the command backend's program and the files its
// arguments name. Identity then stands for the backend in every cache
// key, in place of Name, so a changed program is a cache miss; Name still
// fills Answer.Judge and the cache entries' judge field.
type Identifier interface {
	Identity() string
}

// identity is what stands for b in cache keys: its Identity when it has
// one, else its Name.
func identity(b Backend) string {
	if id, ok := b.(Identifier); ok {
		return id.Identity()
	}
	return b.Name()
}

// Defaults for HTTP backends.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultMaxAttempts   = 5
	DefaultBackoffBase   = 500 * time.Millisecond
	DefaultBackoffCap    = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// Retry configures how an HTTP backend retries: on a timeout, a
// connection error, HTTP 408, 429 and 5xx; never on another 4xx. Between
// attempts it sleeps for the server's Retry-After (seconds or an
// HTTP-date, at most MaxRetryAfter) if one came, or else for a uniformly
// random time in [0, min(Cap, Base·2^(n−1))] after the n-th failure
// ("full jitter"). The zero value is the defaults.
type Retry struct {
	// MaxAttempts is the number of attempts, the first included
	// (0: DefaultMaxAttempts; 1: no retry).
	MaxAttempts int
	// Base and Cap bound the backoff (0: DefaultBackoffBase,
	// DefaultBackoffCap).
	Base, Cap time.Duration
	// MaxRetryAfter caps a server's Retry-After (0: DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Sleep waits between attempts; it must return ctx's error if ctx
	// ends first (nil: a timer). Tests inject one that records and
	// returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter draws the backoff uniformly from [0, max] (nil: math/rand/v2).
	Jitter func(max time.Duration) time.Duration
}

// withDefaults fills in the zero fields and validates the rest.
func (r Retry) withDefaults() (Retry, error) {
	if r.MaxAttempts < 0 || r.Base < 0 || r.Cap < 0 || r.MaxRetryAfter < 0 {
		return r, fmt.Errorf("judge: retry settings must not be negative (attempts %d, base %v, cap %v, max Retry-After %v)",
			r.MaxAttempts, r.Base, r.Cap, r.MaxRetryAfter)
	}
	if r.MaxAttempts == 0 {
		r.MaxAttempts = DefaultMaxAttempts
	}
	if r.Base == 0 {
		r.Base = DefaultBackoffBase
	}
	if r.Cap == 0 {
		r.Cap = DefaultBackoffCap
	}
	if r.MaxRetryAfter == 0 {
		r.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if r.Sleep == nil {
		r.Sleep = sleepCtx
	}
	if r.Jitter == nil {
		r.Jitter = func(max time.Duration) time.Duration {
			if max <= 0 {
				return 0
			}
			return rand.N(max + 1)
		}
	}
	return r, nil
}

// backoff is the jittered wait after the n-th failed attempt (n ≥ 1).
func (r Retry) backoff(n int) time.Duration {
	ceiling := r.Base
	for i := 1; i < n && ceiling < r.Cap; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, r.Cap)
	return min(max(r.Jitter(ceiling), 0), ceiling)
}
