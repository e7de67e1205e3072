package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// TestCheckBreaker: after Breaker consecutive failed calls the judge is
// not called again; every item still to judge is an error verdict with
// the reason ReasonUnavailable, and the run ends at once.
func TestCheckBreaker(t *testing.T) {
	convs := genConvs("b", 30, 3, 5)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	down := func(Question) (Answer, error) {
		return Answer{Verdict: fixture.Error, Judge: "stub/model", Reason: "down", Calls: 1, Err: unavailable(errors.New("down"))}, nil
	}
	// A judge that recovers: every third call fails, whatever the order
	// the questions come in, so never breaker-many failures in a row.
	var n atomic.Int64
	flaky := func(q Question) (Answer, error) {
		if n.Add(1)%3 == 0 {
			return down(q)
		}
		return fine(q)
	}
	tests := []struct {
		reason   string
		answer   func(Question) (Answer, error)
		breaker  int
		conc     int
		maxCalls int // the judge calls at most (the breaker plus those in flight when it opens)
		tripped  bool
	}{
		{"one asker: exactly breaker calls", down, 5, 1, 5, true},
		{"four askers: at most those in flight besides", down, 5, 4, 5 + 3, true},
		{"the default breaker", down, 0, 2, DefaultBreaker + 1, true},
		{"breaker off: every item asked", down, -1, 4, -1, false},
		// One asker: with several, the breaker sees answers in the order
		// they complete, and calls 3, 6 and 9 can complete in a row.
		{"a judge that fails only now and then never trips it", flaky, 3, 1, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			want := wantChecks(convs, stubAnswer)
			judged := 0
			for _, w := range want {
				if w.judged {
					judged++
				}
			}
			j := newStub(tt.answer, nil)
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: tt.conc, Breaker: tt.breaker}
			got, res, err := runCheck(t, context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d: every item recorded", len(got), len(want))
			}
			unavailable := res.ErrorReasons[ReasonUnavailable]
			if !tt.tripped {
				if unavailable != 0 || j.calls() != judged {
					t.Errorf("%d judge unavailable, %d calls; want 0 and every judged item (%d) asked", unavailable, j.calls(), judged)
				}
				return
			}
			if j.calls() > tt.maxCalls || j.calls() < min(tt.maxCalls, max(tt.breaker, 1)) {
				t.Errorf("%d judge calls, want at most %d", j.calls(), tt.maxCalls)
			}
			if unavailable+res.ErrorReasons["down"] != judged || unavailable < judged-tt.maxCalls || res.Errors != judged {
				t.Errorf("reasons %v, errors %d; want the %d judged items all error, all but the calls made %q", res.ErrorReasons, res.Errors, judged, ReasonUnavailable)
			}
			for i, r := range got {
				if want[i].judged != (r.Verdict == fixture.Error) {
					t.Fatalf("record %d %+v: a judged item must be error, a verbatim one verbatim", i, r)
				}
			}
		})
	}
}

// TestCheckDeadline: when the deadline passes, the calls in flight are
// cancelled and every item not judged yet is an error verdict with the
// reason ReasonDeadline; the run returns promptly with every record.
func TestCheckDeadline(t *testing.T) {
	convs := genConvs("d", 10, 3, 5)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	judged := 0
	for _, w := range want {
		if w.judged {
			judged++
		}
	}
	for _, tt := range []struct {
		reason   string
		delay    time.Duration // each call's
		deadline time.Duration
		all      bool // every judged item reaches the deadline
	}{
		{"a judge that hangs: everything is the deadline's", time.Hour, 50 * time.Millisecond, true},
		{"a slow judge: some answered, the rest the deadline's", 20 * time.Millisecond, 150 * time.Millisecond, false},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			j := newStub(fine, func(Question) time.Duration { return tt.delay })
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: 2, Deadline: tt.deadline}
			start := time.Now()
			got, res, err := runCheck(t, context.Background(), cfg, nil)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if took > tt.deadline+2*time.Second {
				t.Errorf("took %v with a deadline of %v", took, tt.deadline)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			late := res.ErrorReasons[ReasonDeadline]
			if res.Errors != late || late == 0 || (tt.all && late != judged) || (!tt.all && late == judged) {
				t.Errorf("%d errors, %d of them %q, of %d judged items (all: %v)", res.Errors, late, ReasonDeadline, judged, tt.all)
			}
			for i, r := range got {
				if r.Verdict == fixture.Error && (r.Reason != ReasonDeadline || !want[i].judged) {
					t.Fatalf("record %d: %+v", i, r)
				}
			}
		})
	}
}

// TestCheckAllowMissing: a missing context is an error unless
// AllowMissing, and then its items are error verdicts "no context" in
// their place among the records, counted, never silently absent.
func TestCheckAllowMissing(t *testing.T) {
	// One conversation, three contexts (turns 15, 25, 35), items stated
	// at turns 1, 8, 15, 22, 29; compaction 2 is removed.
	convs := genConvs("m", 1, 3, 5)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	missing := set.ctxPath("m-000", 2)
	removeFile(t, missing)

	_, _, err := runCheck(t, context.Background(), CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: newStub(stubAnswer, nil)}, nil)
	if ps := fixture.AsProblems(err); len(ps) != 1 || ps[0].File != missing {
		t.Fatalf("without AllowMissing: %v; want one problem naming %s", err, missing)
	}

	got, res, err := runCheck(t, context.Background(), CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem,
		Judge: newStub(stubAnswer, nil), AllowMissing: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var at2 []string
	for _, r := range got {
		if r.Compaction == 2 {
			if r.Verdict != fixture.Error {
				t.Errorf("compaction 2: %+v, want error", r)
			}
			at2 = append(at2, r.ItemID+" "+r.Reason)
		}
	}
	// Compaction 2 served a turn in 16..34 (after compaction 1's 15,
	// before compaction 3's 35): the items of turns 1, 8 and 15 were
	// certainly live, those of 22 and 29 perhaps.
	if want := "[i1 no context i2 no context i3 no context i4 no context (liveness unknown) i5 no context (liveness unknown)]"; fmt.Sprint(at2) != want {
		t.Errorf("compaction 2's records are\n%v, want\n%v", at2, want)
	}
	if res.ErrorReasons[ReasonNoContext] != 3 || res.ErrorReasons[ReasonLivenessUnknown] != 2 || res.Errors != 5 ||
		res.Contexts != 2 || res.MissingContexts != 1 || res.ContextsDone != 2 {
		t.Errorf("result %+v, reasons %v; want 2 contexts read, 1 missing", res.Progress, res.ErrorReasons)
	}
	// The records are in compaction order.
	for i := 1; i < len(got); i++ {
		if got[i].Compaction < got[i-1].Compaction {
			t.Fatalf("record %d (compaction %d) after compaction %d", i, got[i].Compaction, got[i-1].Compaction)
		}
	}
}

func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// fine answers every question supported, with one call.
func fine(Question) (Answer, error) {
	return Answer{Verdict: fixture.Supported, Judge: "stub/model", Answer: "yes", Calls: 1}, nil
}

// TestCheckBreakerCountsQuestions pins what the breaker counts: questions
// — one item at one compaction, its verdict call with its re-asks and any
// agreement call — that failed for want of the judge (ErrUnavailable),
// each once, and those whose command judge exited non-zero, once per
// context; not the calls, and not the questions the judge answered
// without a usable verdict or refused (an HTTP 4xx): those show it is
// there and reset the count.
func TestCheckBreakerCountsQuestions(t *testing.T) {
	convs := genConvs("q", 10, 3, 5)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	judged := 0
	for _, w := range want {
		if w.judged {
			judged++
		}
	}
	attempts := 1 + DefaultReasks
	exited := &marked{err: errors.New("command/judge: exit status 1: \"prompt too long\""), mark: errExited}
	for _, tt := range []struct {
		reason      string
		reply       func(n int, prompt string) (string, error)
		wantCalls   int // -1: the questions of failedContexts contexts, those asked before the breaker opened
		unavailable int // the questions recorded "judge unavailable" (-1: all those not asked)

		failedContexts int // the contexts of the questions that failed with calls (0: not checked)
	}{
		{"garbage every time: the judge is there, every question asked 1+reasks times, never tripped",
			func(int, string) (string, error) { return "I cannot help with that.", nil }, judged * attempts, 0, 0},
		{"each question's last re-ask is usable: never tripped",
			func(n int, _ string) (string, error) {
				if n%attempts == attempts-1 {
					return `{"verdict": "absent"}`, nil
				}
				return "garbage", nil
			}, judged * attempts, 0, 0},
		{"unavailable at every call: 5 questions of one call each, then the breaker",
			func(int, string) (string, error) { return "", unavailable(errors.New("connection refused")) }, 5, judged - 5, 0},
		{"refused (an HTTP 413) at every call: not the judge's failure, never tripped",
			func(int, string) (string, error) { return "", errors.New(`HTTP 413 Payload Too Large: ""`) }, judged, 0, 0},
		{"a command that exits 1 at every call: counted once per context, tripped after 5 contexts",
			func(int, string) (string, error) { return "", exited }, -1, -1, 5},
		{"a command that exits 1 on one conversation's 3 contexts (too long for it): never tripped",
			func(_ int, prompt string) (string, error) {
				if strings.Contains(prompt, "[ctx q-004/") {
					return "", exited
				}
				return `{"verdict": "absent"}`, nil
			}, judged, 0, 0},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			b := &scripted{name: "test/judge", reply: tt.reply}
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem,
				Judge: &Model{Backend: b, NoAgree: true}, Concurrency: 1, Breaker: 5}
			got, res, err := runCheck(t, context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			wantCalls, unavailable := tt.wantCalls, tt.unavailable
			if tt.failedContexts > 0 {
				// The loaders hand the contexts' questions over in an order
				// of their own: count the contexts that failed, not the calls.
				failed := map[string]bool{}
				for _, r := range got {
					if r.Verdict == fixture.Error && r.Reason != ReasonUnavailable {
						failed[fmt.Sprint(r.ConversationID, r.Compaction)] = true
					}
				}
				if len(failed) != tt.failedContexts {
					t.Errorf("the failed questions span %d contexts, want %d", len(failed), tt.failedContexts)
				}
				wantCalls, unavailable = b.calls(), judged-b.calls()
			}
			if b.calls() != wantCalls || res.Calls != wantCalls {
				t.Errorf("%d backend calls (%d counted), want %d", b.calls(), res.Calls, wantCalls)
			}
			if n := res.ErrorReasons[ReasonUnavailable]; n != unavailable {
				t.Errorf("reasons %v; want %d %q", res.ErrorReasons, unavailable, ReasonUnavailable)
			}
		})
	}
}

// TestCheckStoppedAnswersFromCache: once the deadline has passed or the
// breaker has opened, the questions still to judge are answered from the
// cache alone; only a miss is recorded error with the reason. Before, a
// warm cache under --deadline 1ns gave every judged item "deadline" and
// no cache hit, and a run against a judge that was down tripped and then
// threw away every remaining cached verdict.
func TestCheckStoppedAnswersFromCache(t *testing.T) {
	convs := orderConvs()
	set := writeCheckSet(t, t.TempDir(), false, convs)
	cache := openCache(t)
	ctx := context.Background()
	up := &scripted{name: "fake/model", reply: planReply}
	cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: &Model{Backend: up, Cache: cache}, Concurrency: 1}
	first, res, err := runCheck(t, ctx, cfg, nil)
	if err != nil || res.Errors != 0 {
		t.Fatalf("warming the cache: %v, %d errors", err, res.Errors)
	}
	questions := res.Checks - res.Verbatim

	t.Run("deadline passed at once, warm cache: every verdict from the cache", func(t *testing.T) {
		down := &scripted{name: "fake/model", reply: func(int, string) (string, error) { return "", unavailable(errors.New("down")) }}
		cfg := cfg
		cfg.Judge, cfg.Deadline = &Model{Backend: down, Cache: cache}, time.Nanosecond
		got, res, err := runCheck(t, ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors != 0 || res.Calls != 0 || down.calls() != 0 || res.CacheHits < questions {
			t.Errorf("reasons %v, %d calls, %d cache hits; want no error, no call, every one of %d questions from the cache",
				res.ErrorReasons, down.calls(), res.CacheHits, questions)
		}
		sameRecords(t, got, first)
	})

	t.Run("breaker open, cache warm for one conversation: its verdicts kept, the rest unavailable", func(t *testing.T) {
		// A fresh cache holding the verdicts of the first fixture only.
		part := openCache(t)
		keep := first[0].ConversationID
		partial := &scripted{name: "fake/model", reply: func(n int, prompt string) (string, error) {
			if !strings.Contains(prompt, "[ctx "+keep+"/") && !isAgreement(prompt) {
				return "", errors.New(`HTTP 400 Bad Request: ""`) // not cached, not counted
			}
			return planReply(n, prompt)
		}}
		cfg := cfg
		cfg.Judge = &Model{Backend: partial, Cache: part}
		if _, _, err := runCheck(t, ctx, cfg, nil); err != nil {
			t.Fatal(err)
		}
		down := &scripted{name: "fake/model", reply: func(int, string) (string, error) { return "", unavailable(errors.New("down")) }}
		cfg.Judge, cfg.Breaker = &Model{Backend: down, Cache: part}, 2
		got, res, err := runCheck(t, ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		cached, missed := 0, 0
		for i, r := range got {
			if r.ConversationID == keep {
				if r != first[i] {
					t.Errorf("record %d: %+v, want the cached %+v", i, r, first[i])
				}
				if r.Verdict != fixture.Verbatim {
					cached++
				}
				continue
			}
			if r.Verdict != fixture.Verbatim {
				missed++
			}
		}
		if cached == 0 || missed <= 2 {
			t.Fatalf("the set should have cached questions and more than 2 others: %d, %d", cached, missed)
		}
		if down.calls() != 2 || res.ErrorReasons[ReasonUnavailable] != missed-2 || res.Errors != missed {
			t.Errorf("%d calls, reasons %v; want 2 calls, then %d %q", down.calls(), res.ErrorReasons, missed-2, ReasonUnavailable)
		}
	})
}

// hangingBackend answers no prompt: each call waits for its context.
type hangingBackend struct{}

func (hangingBackend) Name() string { return "hang/test" }

func (hangingBackend) Complete(ctx context.Context, _ string) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// TestCheckDeadlineCountsCalls: the calls in flight when the deadline
// passes were made, and are counted (a new user's trial read "0 judge
// calls" after 8 requests had gone out).
func TestCheckDeadlineCountsCalls(t *testing.T) {
	convs := genConvs("h", 4, 2, 3)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem,
		Judge: &Model{Backend: hangingBackend{}}, Concurrency: 2, Deadline: 50 * time.Millisecond}
	_, res, err := runCheck(t, context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 2 || res.ErrorReasons[ReasonDeadline] == 0 {
		t.Errorf("%d calls, %d deadline errors; want the 2 in flight counted", res.Calls, res.ErrorReasons[ReasonDeadline])
	}
}
