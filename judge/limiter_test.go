package judge

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestLimiterConcurrency(t *testing.T) {
	l, err := NewLimiter(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	release, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Acquire with the slot taken: %v", err)
	}
	release()
	release() // idempotent: must not free a slot twice
	r1, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := l.Acquire(ctx2); err == nil {
		t.Fatal("a double release freed a second slot")
	}
	r1()
}

func TestLimiterRate(t *testing.T) {
	l, _ := NewLimiter(0, 200)
	start := time.Now()
	for range 6 {
		release, err := l.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if el := time.Since(start); el < 24*time.Millisecond {
		t.Fatalf("6 starts at 200/s took %v, want ≥ 25ms", el)
	}
}

func TestLimiterUnlimitedAndInvalid(t *testing.T) {
	var nilLimiter *Limiter
	if r, err := nilLimiter.Acquire(context.Background()); err != nil || r == nil {
		t.Fatal("a nil Limiter limits")
	}
	for _, rate := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := NewLimiter(0, rate); err == nil {
			t.Errorf("rate %v accepted", rate)
		}
	}
}
