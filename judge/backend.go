package judge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backend turns a prompt into a model's reply text.
//
// Complete returns an error when no reply could be had (after the
// backend's own retries); the error names the backend. It returns ctx's
// error when ctx ends. Implementations are safe for concurrent use.
type Backend interface {
	// Name is "backend/model", for example "openai/qwen2.5-7b-instruct".
	// It is part of every cache key and fills Answer.Judge.
	Name() string
	Complete(ctx context.Context, prompt string) (string, error)
}

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
