package judge

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// coinBackend answers like a model sampled above temperature 0: each
// call's verdict differs from the last, slowly enough that calls overlap.
type coinBackend struct{ calls atomic.Int64 }

func (b *coinBackend) Name() string { return "coin/test" }

func (b *coinBackend) Complete(ctx context.Context, _ string) (string, error) {
	n := b.calls.Add(1)
	time.Sleep(5 * time.Millisecond)
	v := [...]fixture.Verdict{fixture.Absent, fixture.Contradicted}[n%2]
	return fmt.Sprintf(`{"reasoning": "r", "answer": "x", "verdict": %q}`, v), nil
}

// TestSameKeyOneCall: the same question asked by many goroutines at once
// is one call, and every answer is the verdict cached, so a re-run from
// the cache writes the same verdicts (a CI user's trial: at --concurrency
// 8, 16 of 420 records differed between a run and its re-run).
func TestSameKeyOneCall(t *testing.T) {
	b := &coinBackend{}
	m := &Model{Backend: b, Cache: openCache(t)}
	q := sampleQuestion()
	q.Expect = "" // no agreement question
	var wg sync.WaitGroup
	got := make([]fixture.Verdict, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := m.Judge(context.Background(), q)
			if err != nil {
				t.Error(err)
			}
			got[i] = a.Verdict
		}()
	}
	wg.Wait()
	if b.calls.Load() != 1 {
		t.Errorf("%d calls for one question, want 1", b.calls.Load())
	}
	again, err := m.Judge(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != again.Verdict {
			t.Errorf("answer %d: %s, the cache's: %s", i, v, again.Verdict)
		}
	}
}
