package judge

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

const (
	replySupported = `{"reasoning": "The summary says develop.", "answer": "the develop branch", "verdict": "supported"}`
	replyAbsent    = `{"reasoning": "Nothing about branches.", "answer": "unknown", "verdict": "absent"}`
	agreeYes       = `{"agree": "yes"}`
	agreeNo        = `{"agree": "no"}`
)

func TestModelVerdicts(t *testing.T) {
	tests := []struct {
		reason      string
		reply       func(int, string) (string, error)
		reasks      int
		want        fixture.Verdict
		wantCalls   int
		wantAnswer  string
		wantExpect  string
		reasonHas   string
		checkPrompt func(t *testing.T, b *scripted)
	}{
		{
			reason: "supported, and the answers agree",
			reply:  brain(replySupported, agreeYes), want: fixture.Supported, wantCalls: 2, wantAnswer: "the develop branch",
			checkPrompt: func(t *testing.T, b *scripted) {
				if isAgreement(b.prompt(0)) || !isAgreement(b.prompt(1)) {
					t.Fatal("verdict question not asked first")
				}
				if !strings.Contains(b.prompt(1), "<first_answer>\ndevelop\n") || !strings.Contains(b.prompt(1), "<second_answer>\nthe develop branch\n") {
					t.Fatalf("agreement prompt lacks the answers:\n%s", b.prompt(1))
				}
			},
		},
		{
			reason: "supported, but the answers disagree: contradicted, both answers kept",
			reply:  brain(replySupported, agreeNo), want: fixture.Contradicted, wantCalls: 2,
			wantAnswer: "the develop branch", wantExpect: "develop", reasonHas: "disagrees with the expected answer",
		},
		{
			reason: "supported with the expected answer as written: no agreement call",
			reply:  brain(`{"answer": " Develop. ", "verdict": "supported"}`, "unused"), want: fixture.Supported, wantCalls: 1, wantAnswer: "Develop.",
		},
		{
			reason: "absent needs no agreement",
			reply:  brain(replyAbsent, "unused"), want: fixture.Absent, wantCalls: 1, wantAnswer: "unknown",
		},
		{
			reason: "contradicted by the judge needs no agreement",
			reply:  brain(`{"answer": "main", "verdict": "contradicted"}`, "unused"), want: fixture.Contradicted, wantCalls: 1, wantAnswer: "main",
		},
		{
			reason: "an invalid verdict is re-asked, then recorded as error after the limit",
			reply:  brain(`{"answer": "develop", "verdict": "probably"}`, "unused"), want: fixture.Error, wantCalls: 3,
			reasonHas: `no usable reply in 3 attempts; the last: verdict "probably" is not one of`,
			checkPrompt: func(t *testing.T, b *scripted) {
				first := b.prompt(0)
				for i := 1; i < 3; i++ {
					p := b.prompt(i)
					if !strings.HasPrefix(p, first) || !strings.Contains(p[len(first):], "Your previous reply could not be used") {
						t.Fatalf("re-ask %d is not the prompt plus a correction:\n%s", i, p[len(first):])
					}
				}
			},
		},
		{
			reason: "prose first, then valid JSON on the re-ask",
			reply: func(n int, p string) (string, error) {
				if isAgreement(p) {
					return agreeYes, nil
				}
				if n == 0 {
					return "It is supported.", nil
				}
				return "Sorry! ```json\n" + replySupported + "\n```", nil
			},
			want: fixture.Supported, wantCalls: 3, wantAnswer: "the develop branch",
		},
		{
			reason: "a larger re-ask budget",
			reply:  brain("no json", "unused"), reasks: 4, want: fixture.Error, wantCalls: 5, reasonHas: "in 5 attempts",
		},
		{
			reason: "no re-asks",
			reply:  brain("no json", "unused"), reasks: NoReasks, want: fixture.Error, wantCalls: 1, reasonHas: "in 1 attempts",
		},
		{
			reason: "a failing backend is an error verdict, never absent",
			reply: func(int, string) (string, error) {
				return "", errors.New("fake/model: HTTP 503 Service Unavailable")
			},
			want: fixture.Error, wantCalls: 1, reasonHas: "judge call failed: fake/model: HTTP 503",
		},
		{
			reason: "an unparsable agreement is an error verdict after the re-asks",
			reply:  brain(replySupported, `{"agree": "mostly"}`), want: fixture.Error, wantCalls: 4,
			wantAnswer: "the develop branch", wantExpect: "develop", reasonHas: "agreement check failed",
		},
		{
			reason: "a failing agreement call is an error verdict",
			reply: func(_ int, p string) (string, error) {
				if isAgreement(p) {
					return "", errors.New("boom")
				}
				return replySupported, nil
			},
			want: fixture.Error, wantCalls: 2, wantAnswer: "the develop branch", wantExpect: "develop",
			reasonHas: "agreement check failed: judge call failed: boom",
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			b := &scripted{name: "fake/model", reply: tt.reply}
			m := &Model{Backend: b, Reasks: tt.reasks, Cache: openCache(t)}
			a, err := m.Judge(context.Background(), sampleQuestion())
			if err != nil {
				t.Fatal(err)
			}
			if a.Verdict != tt.want || a.Calls != tt.wantCalls || b.calls() != tt.wantCalls || a.Judge != "fake/model" {
				t.Fatalf("got %+v (backend saw %d calls); want verdict %s in %d calls", a, b.calls(), tt.want, tt.wantCalls)
			}
			if a.Answer != tt.wantAnswer || a.Expect != tt.wantExpect {
				t.Fatalf("answer %q, expect %q; want %q, %q", a.Answer, a.Expect, tt.wantAnswer, tt.wantExpect)
			}
			if !strings.Contains(a.Reason, tt.reasonHas) || (tt.reasonHas == "" && a.Reason != "") {
				t.Fatalf("reason %q, want one containing %q", a.Reason, tt.reasonHas)
			}
			if tt.checkPrompt != nil {
				tt.checkPrompt(t, b)
			}
		})
	}
}

// Errors are never cached: the same question is asked again next time.
func TestModelDoesNotCacheErrors(t *testing.T) {
	cache := openCache(t)
	bad := &scripted{name: "fake/model", reply: brain("nonsense", "")}
	m := &Model{Backend: bad, Cache: cache}
	if a, _ := m.Judge(context.Background(), sampleQuestion()); a.Verdict != fixture.Error {
		t.Fatalf("verdict %s", a.Verdict)
	}
	good := &scripted{name: "fake/model", reply: brain(replySupported, agreeNo)}
	m.Backend = good
	a, err := m.Judge(context.Background(), sampleQuestion())
	if err != nil || a.Verdict != fixture.Contradicted || good.calls() != 2 {
		t.Fatalf("second run: %+v, %v, %d calls", a, err, good.calls())
	}
	// A third run is answered entirely from the cache.
	m.Backend = &scripted{name: "fake/model", reply: brain("unused", "unused")}
	a, err = m.Judge(context.Background(), sampleQuestion())
	if err != nil || a.Verdict != fixture.Contradicted || a.Calls != 0 || a.CacheHits != 2 || a.Expect != "develop" {
		t.Fatalf("third run: %+v, %v", a, err)
	}
	if s := cache.Stats(); s.Writes != 2 || s.Hits != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// The cache key covers everything the reply depends on.
func TestModelCacheKeyCoversInputs(t *testing.T) {
	cache := openCache(t)
	b := &scripted{name: "fake/model", reply: brain(replyAbsent, "")}
	m := &Model{Backend: b, Cache: cache}
	q := sampleQuestion()
	judge := func(q Question) {
		t.Helper()
		if _, err := m.Judge(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	judge(q)
	judge(q)
	if b.calls() != 1 {
		t.Fatalf("%d calls for one question twice", b.calls())
	}
	variants := []func(*Question){
		func(q *Question) { q.Probe += "?" },
		func(q *Question) { q.Expect += "!" },
		func(q *Question) { q.Context += " " },
	}
	for i, change := range variants {
		v := q
		change(&v)
		judge(v)
		if b.calls() != 2+i {
			t.Fatalf("variant %d: %d calls", i, b.calls())
		}
	}
	// The identity fields are not part of the key: the same context and
	// probe under another system is the same question.
	v := q
	v.System, v.Compaction = "incumbent", 2
	judge(v)
	if b.calls() != 4 {
		t.Fatalf("identity change caused a call")
	}
	// Another template, another backend: new keys.
	tmpl, err := ParseTemplate("t", "{{.Context}}\n{{.Probe}}")
	if err != nil {
		t.Fatal(err)
	}
	m.Template = tmpl
	judge(q)
	m.Template = nil
	b.name = "fake/other"
	judge(q)
	if b.calls() != 6 {
		t.Fatalf("%d calls, want 6", b.calls())
	}
}

func TestModelPlan(t *testing.T) {
	cache := openCache(t)
	q := sampleQuestion()
	ctx := context.Background()
	sup := &scripted{name: "fake/model", reply: brain(replySupported, agreeYes)}
	m := &Model{Backend: sup, Cache: cache}

	check := func(want Plan) {
		t.Helper()
		got, err := m.Plan(q)
		if err != nil || got != want {
			t.Fatalf("Plan = %+v, %v; want %+v", got, err, want)
		}
		cached, err := m.Cached(q)
		if err != nil || cached != want.VerdictCached {
			t.Fatalf("Cached = %v, %v", cached, err)
		}
	}
	check(Plan{Agreement: AgreementUnknown})
	// Cache the verdict only: the agreement question fails.
	m.Backend = &scripted{name: "fake/model", reply: brain(replySupported, "no json")}
	if a, _ := m.Judge(ctx, q); a.Verdict != fixture.Error {
		t.Fatalf("verdict %s", a.Verdict)
	}
	check(Plan{VerdictCached: true, Agreement: AgreementNeeded})
	m.Backend = sup
	if a, _ := m.Judge(ctx, q); a.Verdict != fixture.Supported || a.Calls != 1 || a.CacheHits != 1 {
		t.Fatalf("%+v", a)
	}
	check(Plan{VerdictCached: true, Agreement: AgreementCached})

	q.Context = "nothing here"
	m.Backend = &scripted{name: "fake/model", reply: brain(replyAbsent, "")}
	if _, err := m.Judge(ctx, q); err != nil {
		t.Fatal(err)
	}
	check(Plan{VerdictCached: true, Agreement: AgreementNone})

	// Dry runs count no hits or misses.
	before := cache.Stats()
	for range 3 {
		m.Plan(q)
	}
	if cache.Stats() != before {
		t.Fatalf("Plan changed the stats: %+v → %+v", before, cache.Stats())
	}
	// Without a cache nothing is cached.
	if p, err := (&Model{Backend: sup}).Plan(q); err != nil || p != (Plan{Agreement: AgreementUnknown}) {
		t.Fatalf("%+v, %v", p, err)
	}
}

func TestModelCancellationIsNotAVerdict(t *testing.T) {
	cache := openCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	b := &scripted{name: "fake/model", reply: func(n int, p string) (string, error) {
		cancel()
		return "", context.Canceled
	}}
	m := &Model{Backend: b, Cache: cache}
	a, err := m.Judge(ctx, sampleQuestion())
	if !errors.Is(err, context.Canceled) || a.Verdict != "" {
		t.Fatalf("got %+v, %v; want no verdict and context.Canceled", a, err)
	}
	if _, err := m.Judge(ctx, sampleQuestion()); !errors.Is(err, context.Canceled) {
		t.Fatalf("already cancelled: %v", err)
	}
	if b.calls() != 1 || cache.Stats().Writes != 0 {
		t.Fatalf("%d calls, %d writes", b.calls(), cache.Stats().Writes)
	}
}

func TestModelMisuse(t *testing.T) {
	if _, err := (&Model{}).Judge(context.Background(), sampleQuestion()); err == nil {
		t.Fatal("no backend accepted")
	}
	q := sampleQuestion()
	q.Probe = "  "
	m := &Model{Backend: &scripted{name: "x", reply: brain(replyAbsent, "")}}
	if _, err := m.Judge(context.Background(), q); err == nil || !strings.Contains(err.Error(), "candidate/sess_2026_03_11_a4f1/1/c2") {
		t.Fatalf("err = %v", err)
	}
}

func TestAnswerRecord(t *testing.T) {
	q := sampleQuestion()
	a := Answer{Verdict: fixture.Contradicted, Answer: "main", Expect: "develop", Judge: "openai/m", Reason: "r", Calls: 2}
	got := a.Record(q)
	want := fixture.Record{
		System: "candidate", ConversationID: "sess_2026_03_11_a4f1", Compaction: 1, ItemID: "c2", Class: "commitment",
		Verdict: fixture.Contradicted, Answer: "main", Judge: "openai/m", Expect: "develop", Reason: "r",
	}
	if got != want {
		t.Fatalf("Record = %+v", got)
	}
}

// A cache that cannot be written loses no verdict; the failure is counted.
func TestModelCacheWriteFailure(t *testing.T) {
	dir := t.TempDir() + "/cache"
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Make every shard path unusable: the cache root becomes a file.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &Model{Backend: &scripted{name: "fake/model", reply: brain(replyAbsent, "")}, Cache: cache}
	a, err := m.Judge(context.Background(), sampleQuestion())
	if err != nil || a.Verdict != fixture.Absent {
		t.Fatalf("%+v, %v", a, err)
	}
	if s := cache.Stats(); s.WriteErrors != 1 || s.LastWriteError == "" {
		t.Fatalf("stats %+v", s)
	}
}

// TestModelNoAgree: without the agreement question a supported answer
// stays supported whatever it says — which is what a judge that can only
// answer the verdict question needs, and what lets an inverted answer
// through.
func TestModelNoAgree(t *testing.T) {
	q := sampleQuestion() // expects "develop"
	inverted := `{"reasoning": "the summary says main", "answer": "main", "verdict": "supported"}`
	tests := []struct {
		reason  string
		reply   func(int, string) (string, error)
		noAgree bool
		want    fixture.Verdict
		calls   int
	}{
		{"agreement on: the inverted answer is caught", brain(inverted, agreeNo), false, fixture.Contradicted, 2},
		{"agreement off: the inverted answer is kept as supported", brain(inverted, agreeNo), true, fixture.Supported, 1},
		{"a verdict-only judge, agreement on: its verdict JSON is no agreement reply", brain(inverted, inverted), false, fixture.Error, 1 + 1 + DefaultReasks},
		{"a verdict-only judge, agreement off: supported", brain(inverted, inverted), true, fixture.Supported, 1},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			b := &scripted{name: "fake/model", reply: tt.reply}
			m := &Model{Backend: b, NoAgree: tt.noAgree, Cache: openCache(t)}
			a, err := m.Judge(context.Background(), q)
			if err != nil || a.Verdict != tt.want || a.Calls != tt.calls || b.calls() != tt.calls {
				t.Fatalf("%+v, %v, %d backend calls; want %s after %d calls", a, err, b.calls(), tt.want, tt.calls)
			}
			for i := range b.calls() {
				if tt.noAgree && isAgreement(b.prompt(i)) {
					t.Errorf("call %d is an agreement question, with NoAgree", i)
				}
			}
			p, err := m.Plan(q)
			if err != nil || !p.VerdictCached || (tt.noAgree && p.Agreement != AgreementNone) {
				t.Errorf("plan after the run %+v, %v", p, err)
			}
		})
	}
}
