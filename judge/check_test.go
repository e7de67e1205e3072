package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// checkSystem names the summariser in the generated check sets.
const checkSystem = "candidate"

// checkConv is one conversation of a generated check set: its fixture and
// its compacted contexts, contexts[n-1] being compaction n.
type checkConv struct {
	id       string
	items    []fixture.Item
	contexts []checkCtx
}

// checkCtx is one compacted context: the turn it serves and the items
// whose literal it keeps word for word (the others are paraphrased).
type checkCtx struct {
	turn     int
	verbatim []string
}

// newConv fills in the items' texts, each naming its conversation and id
// so that no literal, probe or answer is shared.
func newConv(id string, contexts []checkCtx, items ...fixture.Item) checkConv {
	for i := range items {
		it := &items[i]
		it.Literal = fmt.Sprintf("«%s/%s» must survive every compaction", id, it.ID)
		it.Probe = fmt.Sprintf("What does %s/%s say?", id, it.ID)
		it.Expect = "expect " + it.ID
	}
	return checkConv{id: id, items: items, contexts: contexts}
}

func item(id string, class fixture.Class, turn int) fixture.Item {
	return fixture.Item{ID: id, Class: class, Turn: turn}
}

// orderConvs is a set whose order Check must keep: conversation ids not
// sorted, eleven compactions (10.json sorts after 9.json only as a
// number), items stated at or after a compaction's turn, a context with
// every item verbatim, a conversation with no compaction and one with no
// items.
func orderConvs() []checkConv {
	convs := []checkConv{
		newConv("zulu", []checkCtx{{turn: 12, verbatim: []string{"z1"}}, {turn: 30, verbatim: []string{"z1", "z3"}}, {turn: 50}},
			item("z1", fixture.Constraint, 2), item("z2", fixture.Commitment, 10), item("z3", fixture.OpenQuestion, 25), item("z4", fixture.Reference, 40)),
		newConv("alpha", []checkCtx{{turn: 40, verbatim: []string{"a1", "a2", "a3"}}, {turn: 80, verbatim: []string{"a2"}}},
			item("a1", fixture.Reference, 5), item("a2", fixture.Constraint, 6), item("a3", fixture.Commitment, 7)),
		newConv("never-compacted", nil, item("n1", fixture.Constraint, 1)),
		// m1 is stated at the very turn its context serves: not live.
		newConv("mike", []checkCtx{{turn: 20}, {turn: 21, verbatim: []string{"m1"}}},
			item("m1", fixture.Commitment, 20), item("m2", fixture.OpenQuestion, 19)),
		newConv("no-items", []checkCtx{{turn: 5}, {turn: 9}}),
	}
	var kilo []checkCtx
	for n := 1; n <= 11; n++ {
		c := checkCtx{turn: 5 * n}
		for k := 1; k <= 5; k++ {
			if (n+k)%3 == 0 {
				c.verbatim = append(c.verbatim, fmt.Sprintf("k%d", k))
			}
		}
		kilo = append(kilo, c)
	}
	convs = append(convs, newConv("kilo", kilo,
		item("k1", fixture.Constraint, 3), item("k2", fixture.Reference, 12), item("k3", fixture.Commitment, 24),
		item("k4", fixture.OpenQuestion, 36), item("k5", fixture.Constraint, 48)))
	return append(convs, genConvs("gen", 8, 3, 6)...)
}

// genConvs returns n conversations of nCtx compactions and nItems items:
// items stated at turns 1, 8, 15, …, compactions serving turns 15, 25,
// 35, …, each keeping a different third of the items verbatim.
func genConvs(prefix string, n, nCtx, nItems int) []checkConv {
	var out []checkConv
	for i := range n {
		var items []fixture.Item
		for k := range nItems {
			items = append(items, item(fmt.Sprintf("i%d", k+1), fixture.Classes[(i+k)%len(fixture.Classes)], 1+7*k))
		}
		var ctxs []checkCtx
		for c := range nCtx {
			x := checkCtx{turn: 15 + 10*c}
			for k := range nItems {
				if (i+c+k)%3 == 0 {
					x.verbatim = append(x.verbatim, fmt.Sprintf("i%d", k+1))
				}
			}
			ctxs = append(ctxs, x)
		}
		out = append(out, newConv(fmt.Sprintf("%s-%03d", prefix, i), ctxs, items...))
	}
	return out
}

// ctxMarker is written into each context, so a judge can tell which
// context a question carries.
func ctxMarker(conv string, n int) string { return fmt.Sprintf("[ctx %s/%d]", conv, n) }

// checkSet is a generated fixture set on disk.
type checkSet struct {
	fixtures, contexts string
}

// ctxPath is the file of compaction n of conv.
func (s checkSet) ctxPath(conv string, n int) string {
	return filepath.Join(s.contexts, conv, strconv.Itoa(n)+".json")
}

// writeCheckSet writes convs under dir: the fixtures as one .jsonl file,
// or (folder) as a folder of .json files whose names sort in convs'
// order, and the contexts in dir/contexts.
func writeCheckSet(t testing.TB, dir string, folder bool, convs []checkConv) checkSet {
	t.Helper()
	s := checkSet{fixtures: filepath.Join(dir, "fixtures.jsonl"), contexts: filepath.Join(dir, "contexts")}
	if folder {
		s.fixtures = filepath.Join(dir, "fixtures")
		mkdir(t, s.fixtures)
	}
	var lines []byte
	for i, c := range convs {
		f := fixture.Fixture{ConversationID: c.id, Turns: 200, CompactionsExpected: len(c.contexts), MustSurvive: c.items}
		if f.MustSurvive == nil {
			f.MustSurvive = []fixture.Item{}
		}
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if folder {
			writeFile(t, filepath.Join(s.fixtures, fmt.Sprintf("%02d-%s.json", i, c.id)), data)
		} else {
			lines = append(append(lines, data...), '\n')
		}
		if len(c.contexts) > 0 {
			mkdir(t, filepath.Join(s.contexts, c.id))
		}
		for n := 1; n <= len(c.contexts); n++ {
			writeFile(t, s.ctxPath(c.id, n), contextJSON(t, c, n))
		}
	}
	if !folder {
		writeFile(t, s.fixtures, lines)
	}
	return s
}

// contextJSON is compaction n of c as a context file: the marker in the
// system prompt, a summary message keeping the verbatim items' literals
// and paraphrasing the others, and an assistant message in parts.
func contextJSON(t testing.TB, c checkConv, n int) []byte {
	t.Helper()
	x := c.contexts[n-1]
	var summary strings.Builder
	fmt.Fprintf(&summary, "Summary of turns 1-%d.", x.turn-1)
	for _, it := range c.items {
		if slices.Contains(x.verbatim, it.ID) {
			summary.WriteString("\nPinned: " + it.Literal)
		} else {
			fmt.Fprintf(&summary, "\nParaphrase of %s: it was said once and should hold.", it.ID)
		}
	}
	type msg struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	data, err := json.Marshal(struct {
		ConversationID string `json:"conversation_id"`
		Compaction     int    `json:"compaction"`
		Turn           int    `json:"turn"`
		System         string `json:"system"`
		Messages       []msg  `json:"messages"`
	}{
		ConversationID: c.id, Compaction: n, Turn: x.turn,
		System: "You are a coding agent. " + ctxMarker(c.id, n),
		Messages: []msg{
			{Role: "user", Content: summary.String()},
			{Role: "assistant", Content: []map[string]any{
				{"type": "text", "text": "Understood."},
				{"type": "image", "source": map[string]string{"type": "base64", "data": "iVBORw0KGgo="}},
				{"type": "text", "text": "I will go on from here."},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// questionKey names one check.
func questionKey(conv string, n int, item string) string {
	return fmt.Sprintf("%s/%d/%s", conv, n, item)
}

// wantCheck is one record Check must emit, worked out from the set's
// description alone.
type wantCheck struct {
	rec fixture.Record
	// judged: not verbatim, so the judge is asked, and a is its answer.
	judged bool
	a      Answer
}

// wantChecks lists, in the documented order (fixtures as given,
// compactions in order, items in fixture order), the checks of convs
// that are live, with the answers of answer for the judged ones.
func wantChecks(convs []checkConv, answer func(Question) (Answer, error)) []wantCheck {
	var out []wantCheck
	for _, c := range convs {
		for n, x := range c.contexts {
			for _, it := range c.items {
				if it.Turn >= x.turn {
					continue
				}
				rec := fixture.Record{System: checkSystem, ConversationID: c.id, Compaction: n + 1, ItemID: it.ID, Class: it.Class, Item: it.Fingerprint()}
				w := wantCheck{rec: rec}
				if slices.Contains(x.verbatim, it.ID) {
					w.rec.Verdict = fixture.Verbatim
				} else {
					w.judged = true
					w.a, _ = answer(Question{System: checkSystem, ConversationID: c.id, Compaction: n + 1,
						ItemID: it.ID, Class: it.Class, Probe: it.Probe, Expect: it.Expect})
					w.rec.Verdict, w.rec.Answer, w.rec.Judge, w.rec.Expect, w.rec.Reason = w.a.Verdict, w.a.Answer, w.a.Judge, w.a.Expect, w.a.Reason
				}
				out = append(out, w)
			}
		}
	}
	return out
}

func records(ws []wantCheck) []fixture.Record {
	out := make([]fixture.Record, len(ws))
	for i, w := range ws {
		out[i] = w.rec
	}
	return out
}

// firstOf is the index in ws of the first record of compaction n of conv.
func firstOf(t *testing.T, ws []wantCheck, conv string, n int) int {
	t.Helper()
	i := slices.IndexFunc(ws, func(w wantCheck) bool { return w.rec.ConversationID == conv && w.rec.Compaction == n })
	if i < 0 {
		t.Fatalf("no live item at %s/%d", conv, n)
	}
	return i
}

func countContexts(convs []checkConv) int {
	n := 0
	for _, c := range convs {
		n += len(c.contexts)
	}
	return n
}

// hash32 is a stable hash of s, to draw verdicts and delays from.
func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// stubAnswer is a deterministic mix of every judge verdict, with varying
// call and cache-hit counts.
func stubAnswer(q Question) (Answer, error) {
	h := hash32(questionKey(q.ConversationID, q.Compaction, q.ItemID))
	a := Answer{Judge: "stub/model", Answer: "answer to " + q.ItemID, Calls: 1 + int(h>>8)%3, CacheHits: int(h>>16) % 2}
	switch h % 4 {
	case 0:
		a.Verdict = fixture.Supported
	case 1:
		a.Verdict = fixture.Absent
	case 2:
		a.Verdict, a.Expect, a.Reason = fixture.Contradicted, q.Expect, "the answers disagree"
	case 3:
		a.Verdict, a.Answer, a.Reason = fixture.Error, "", "the backend stayed down"
	}
	return a, nil
}

// stubJudge is a Judge that answers with answer after delay(q) (or
// returns ctx's error if ctx ends first), and counts the questions put
// to it.
type stubJudge struct {
	answer func(Question) (Answer, error)
	delay  func(Question) time.Duration

	mu       sync.Mutex
	asked    map[string]int
	wrong    []string // questions that did not carry their own context
	inFlight int
	peak     int
}

func newStub(answer func(Question) (Answer, error), delay func(Question) time.Duration) *stubJudge {
	return &stubJudge{answer: answer, delay: delay, asked: map[string]int{}}
}

// randomDelay draws each call's delay uniformly from [0, max).
func randomDelay(max time.Duration) func(Question) time.Duration {
	return func(Question) time.Duration { return rand.N(max) }
}

func (j *stubJudge) Judge(ctx context.Context, q Question) (Answer, error) {
	j.mu.Lock()
	j.asked[questionKey(q.ConversationID, q.Compaction, q.ItemID)]++
	if !strings.Contains(q.Context, ctxMarker(q.ConversationID, q.Compaction)) || q.System != checkSystem {
		j.wrong = append(j.wrong, describe(q))
	}
	j.inFlight++
	j.peak = max(j.peak, j.inFlight)
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		j.inFlight--
		j.mu.Unlock()
	}()
	if j.delay != nil {
		if d := j.delay(q); d > 0 {
			tm := time.NewTimer(d)
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-ctx.Done():
				return Answer{}, fmt.Errorf("stub judge %s: %w", describe(q), ctx.Err())
			}
		}
	}
	return j.answer(q)
}

func (j *stubJudge) calls() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, k := range j.asked {
		n += k
	}
	return n
}

// runCheck runs Check, collecting the records, and fails the test if it
// does not return within 20 seconds (a deadlock).
func runCheck(t *testing.T, ctx context.Context, cfg CheckConfig, emit func(fixture.Record) error) ([]fixture.Record, CheckResult, error) {
	t.Helper()
	type result struct {
		recs []fixture.Record
		res  CheckResult
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.res, r.err = Check(ctx, cfg, func(rec fixture.Record) error {
			r.recs = append(r.recs, rec)
			if emit != nil {
				return emit(rec)
			}
			return nil
		})
		done <- r
	}()
	select {
	case r := <-done:
		return r.recs, r.res, r.err
	case <-time.After(20 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("Check did not return within 20 seconds; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
		return nil, CheckResult{}, nil
	}
}

// sameRecords reports the first difference between got and want.
func sameRecords(t *testing.T, got, want []fixture.Record) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("record %d of %d:\n got  %+v\n want %+v", i, len(want), got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
}

// noLeak waits (up to two seconds, the slack for goroutines that are
// returning) until no more goroutines run than before, and dumps them if
// some stay.
func noLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Check, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCheckOrder(t *testing.T) {
	convs := orderConvs()
	want := wantChecks(convs, stubAnswer)
	wantAsked := map[string]int{}
	for _, w := range want {
		if w.judged {
			wantAsked[questionKey(w.rec.ConversationID, w.rec.Compaction, w.rec.ItemID)] = 1
		}
	}
	if len(wantAsked) < 50 || len(wantAsked) == len(want) {
		t.Fatalf("the set has %d checks, %d judged: too few to show anything", len(want), len(wantAsked))
	}
	tests := []struct {
		reason string
		conc   int
	}{
		{"one asker: questions answered one by one", 1},
		{"three askers: answers arrive out of order", 3},
		{"more askers than questions in flight", 32},
	}
	for _, layout := range []string{"jsonl", "folder"} {
		set := writeCheckSet(t, t.TempDir(), layout == "folder", convs)
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/concurrency=%d", layout, tt.conc), func(t *testing.T) {
				j := newStub(stubAnswer, randomDelay(time.Millisecond))
				cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: tt.conc}
				got, _, err := runCheck(t, context.Background(), cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				sameRecords(t, got, records(want))
				if len(j.wrong) > 0 {
					t.Errorf("questions without their own context or system: %v", j.wrong)
				}
				for k, n := range j.asked {
					if wantAsked[k] != n {
						t.Errorf("judge asked %d times about %s, want %d (verbatim items are not asked)", n, k, wantAsked[k])
					}
				}
				if j.calls() != len(wantAsked) {
					t.Errorf("judge called %d times, want %d", j.calls(), len(wantAsked))
				}
				if j.peak > tt.conc {
					t.Errorf("%d judge calls in flight, Concurrency is %d", j.peak, tt.conc)
				}
			})
		}
	}
}

func TestCheckCounts(t *testing.T) {
	convs := orderConvs()
	set := writeCheckSet(t, t.TempDir(), false, convs)
	tests := []struct {
		reason string
		answer func(Question) (Answer, error)
	}{
		{"every verdict, with calls and cache hits", stubAnswer},
		{"every judged item an error verdict: counted as error, never absent", func(q Question) (Answer, error) {
			return Answer{Verdict: fixture.Error, Judge: "stub/model", Reason: "down", Calls: 3}, nil
		}},
		{"every judged item answered from the cache", func(q Question) (Answer, error) {
			return Answer{Verdict: fixture.Supported, Judge: "stub/model", Answer: "yes", CacheHits: 2}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			want := wantChecks(convs, tt.answer)
			wantRes := CheckResult{Fixtures: len(convs), ByClass: fixture.ByClass{}}
			wantRes.Contexts = countContexts(convs)
			wantRes.ContextsDone = wantRes.Contexts
			wantRes.Checks = len(want)
			for _, w := range want {
				wantRes.ByClass.Add(w.rec)
				switch {
				case !w.judged:
					wantRes.Verbatim++
				case w.a.Verdict == fixture.Error:
					wantRes.Errors++
				}
				wantRes.Calls += w.a.Calls
				wantRes.CacheHits += w.a.CacheHits
			}

			var progress []Progress
			j := newStub(tt.answer, randomDelay(200*time.Microsecond))
			// Breaker off: here every call fails on purpose, and the
			// breaker has tests of its own.
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: 4,
				Breaker: -1, Progress: func(p Progress) { progress = append(progress, p) }}
			got, res, err := runCheck(t, context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameRecords(t, got, records(want))
			if res.Progress != wantRes.Progress || res.Fixtures != wantRes.Fixtures {
				t.Errorf("result %+v, fixtures %d\nwant   %+v, fixtures %d", res.Progress, res.Fixtures, wantRes.Progress, wantRes.Fixtures)
			}
			for _, cl := range fixture.Classes {
				if g, w := res.ByClass.Get(cl), wantRes.ByClass.Get(cl); g != w {
					t.Errorf("class %s: %+v, want %+v", cl, g, w)
				}
			}
			if len(res.ByClass) != len(wantRes.ByClass) {
				t.Errorf("ByClass has %d classes, want %d", len(res.ByClass), len(wantRes.ByClass))
			}
			if tot := res.ByClass.Total(); tot.Items != res.Checks || tot.Verbatim != res.Verbatim || tot.Errors != res.Errors {
				t.Errorf("ByClass total %+v disagrees with the result %+v", tot, res.Progress)
			}
			wantAbsent := 0
			for _, w := range want {
				if w.rec.Verdict == fixture.Absent {
					wantAbsent++
				}
			}
			if tot := res.ByClass.Total(); tot.Absent != wantAbsent || tot.Errors != wantRes.Errors {
				t.Errorf("%d absent and %d errors, want %d and %d: an error verdict is not absent", tot.Absent, tot.Errors, wantAbsent, wantRes.Errors)
			}

			if len(progress) != wantRes.Contexts {
				t.Fatalf("Progress called %d times, want once per context (%d)", len(progress), wantRes.Contexts)
			}
			for i, p := range progress {
				if p.ContextsDone != i+1 || p.Contexts != wantRes.Contexts || (i > 0 && p.Checks < progress[i-1].Checks) {
					t.Fatalf("Progress call %d: %+v (previous %+v)", i, p, progress[max(i-1, 0)])
				}
			}
			if last := progress[len(progress)-1]; last != res.Progress {
				t.Errorf("last Progress %+v, result %+v", last, res.Progress)
			}
		})
	}
}

func TestCheckBadFixtures(t *testing.T) {
	convs := genConvs("ok", 3, 2, 4)
	line := func(f fixture.Fixture) string {
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	good := fixture.Fixture{ConversationID: "late", Turns: 10, MustSurvive: []fixture.Item{{ID: "x", Class: fixture.Constraint, Turn: 1, Literal: "l", Probe: "p?", Expect: "e"}}}
	bad := good
	bad.MustSurvive = []fixture.Item{good.MustSurvive[0]}
	bad.MustSurvive[0].Class = "wish"
	appendLine := func(s string) func(*testing.T, checkSet) {
		return func(t *testing.T, set checkSet) {
			f, err := os.OpenFile(set.fixtures, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(s + "\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		reason string
		damage func(*testing.T, checkSet)
		cfg    func(*CheckConfig)
		// wantErr is in the message; problem, when set, is the one
		// fixture.Problem expected.
		wantErr string
		problem *fixture.Problem
		is      error
	}{
		{
			reason: "an unknown class in the last fixture: the valid ones before it are not checked",
			damage: appendLine(line(bad)), wantErr: `"wish" is not a class`,
			problem: &fixture.Problem{Line: 4, Field: "must_survive[0].class"},
		},
		{
			reason: "a conversation_id used twice",
			damage: appendLine(line(fixture.Fixture{ConversationID: "ok-000", Turns: 1, MustSurvive: []fixture.Item{}})), wantErr: "duplicate conversation_id",
			problem: &fixture.Problem{Line: 4, Field: "conversation_id"},
		},
		{
			reason: "a malformed line",
			damage: appendLine(`{"conversation_id": "late", "turns": 3,`), wantErr: "fixtures.jsonl:4:",
			problem: &fixture.Problem{Line: 4},
		},
		{
			reason: "a stray .json file in a conversation's contexts folder",
			damage: func(t *testing.T, s checkSet) {
				writeFile(t, filepath.Join(s.contexts, "ok-002", "final.json"), []byte("{}"))
			},
			wantErr: "final.json: not a context file",
		},
		{
			reason: "two files for one compaction",
			damage: func(t *testing.T, s checkSet) {
				writeFile(t, filepath.Join(s.contexts, "ok-002", "01.json"), contextJSON(t, convs[2], 1))
			},
			wantErr: "both hold compaction 1",
		},
		{
			reason:  "no context for any fixture: a wrong --contexts folder, not a run of zero checks",
			damage:  func(t *testing.T, s checkSet) { os.RemoveAll(s.contexts) },
			wantErr: "no compacted contexts for any of the 3 fixtures",
		},
		{
			reason: "an empty fixture file",
			damage: func(t *testing.T, s checkSet) { writeFile(t, s.fixtures, nil) },
			is:     fixture.ErrNoFixtures,
		},
		{
			reason: "no fixture file",
			damage: func(t *testing.T, s checkSet) { os.Remove(s.fixtures) },
			is:     os.ErrNotExist,
		},
		{
			reason: "no system name",
			cfg:    func(c *CheckConfig) { c.System = "" }, wantErr: "needs a system name",
		},
		{
			reason: "no judge",
			cfg:    func(c *CheckConfig) { c.Judge = nil }, wantErr: "needs a judge",
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			set := writeCheckSet(t, t.TempDir(), false, convs)
			if tt.damage != nil {
				tt.damage(t, set)
			}
			j := newStub(stubAnswer, nil)
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			before := runtime.NumGoroutine()
			got, _, err := runCheck(t, context.Background(), cfg, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error %q, want one containing %q (is %v)", err, tt.wantErr, tt.is)
			}
			if tt.problem != nil {
				ps := fixture.AsProblems(err)
				if len(ps) != 1 || ps[0].File != set.fixtures || ps[0].Line != tt.problem.Line || ps[0].Col < 1 || ps[0].Field != tt.problem.Field {
					t.Errorf("problems %#v, want one at %s:%d, field %q", ps, set.fixtures, tt.problem.Line, tt.problem.Field)
				}
			}
			if len(got) > 0 || j.calls() > 0 {
				t.Errorf("%d records emitted, %d judge calls made before the error; want none", len(got), j.calls())
			}
			noLeak(t, before)
		})
	}
}

func TestCheckBadContext(t *testing.T) {
	convs := genConvs("c", 4, 3, 5)
	const conv, n = "c-002", 2
	tests := []struct {
		reason    string
		content   string
		line, col int
		wantErr   string
	}{
		{
			reason: "a conversation_id of another conversation",
			content: `{
  "conversation_id": "c-003",
  "compaction": 2,
  "turn": 25,
  "messages": []
}`,
			line: 2, col: 22, wantErr: `"c-003" does not match the folder name "c-002"`,
		},
		{
			reason: "a JSON syntax error: a missing comma",
			content: `{
  "conversation_id": "c-002",
  "compaction": 2,
  "turn": 25
  "messages": []
}`,
			line: 5, col: 3,
		},
		{
			reason: "a compaction that is not the file's",
			content: `{"conversation_id": "c-002", "compaction": 3, "turn": 25,
 "messages": []}`,
			line: 1, col: 44, wantErr: `3 does not match the file name "2.json"`,
		},
		{
			reason: "a message without content",
			content: `{"conversation_id": "c-002", "compaction": 2, "turn": 25, "messages": [
  {"role": "user", "content": "fine"},
  {"role": "assistant"}
]}`,
			line: 3, col: 3, wantErr: "messages[1].content",
		},
	}
	for _, tt := range tests {
		for _, conc := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s/concurrency=%d", tt.reason, conc), func(t *testing.T) {
				set := writeCheckSet(t, t.TempDir(), false, convs)
				path := set.ctxPath(conv, n)
				writeFile(t, path, []byte(tt.content))
				j := newStub(stubAnswer, randomDelay(time.Millisecond))
				cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: conc}
				before := runtime.NumGoroutine()
				got, _, err := runCheck(t, context.Background(), cfg, nil)
				if err == nil {
					t.Fatal("no error")
				}
				at := fmt.Sprintf("%s:%d:%d: ", path, tt.line, tt.col)
				if !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q, want one at %s containing %q", err, at, tt.wantErr)
				}
				// Every context is read before the first record, so a bad
				// one leaves no record at all and no judge call.
				if len(got) != 0 || j.calls() != 0 {
					t.Errorf("%d records emitted and %d judge calls before the error, want none", len(got), j.calls())
				}
				noLeak(t, before)
			})
		}
	}
}

func TestCheckEmitError(t *testing.T) {
	convs := genConvs("e", 40, 5, 4)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := records(wantChecks(convs, stubAnswer))
	judged := 0
	for _, r := range want {
		if r.Verdict != fixture.Verbatim {
			judged++
		}
	}
	errFull := errors.New("disk full")
	tests := []struct {
		reason string
		failAt int
		// stops: the run must end long before every question is asked.
		stops bool
	}{
		{"the first record", 0, true},
		{"a record in the middle of a context", len(want)/2 + 1, false},
		{"the last record", len(want) - 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			j := newStub(stubAnswer, randomDelay(100*time.Microsecond))
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: 4}
			before := runtime.NumGoroutine()
			calls := 0
			got, _, err := runCheck(t, context.Background(), cfg, func(fixture.Record) error {
				calls++
				if calls-1 == tt.failAt {
					return errFull
				}
				return nil
			})
			if !errors.Is(err, errFull) {
				t.Fatalf("error %v, want %v", err, errFull)
			}
			if calls != tt.failAt+1 {
				t.Errorf("emit called %d times, want %d: not again after its error", calls, tt.failAt+1)
			}
			sameRecords(t, got, want[:tt.failAt+1])
			if tt.stops && j.calls() > judged/2 {
				t.Errorf("the judge was asked %d of %d questions after the first record failed", j.calls(), judged)
			}
			noLeak(t, before)
		})
	}
}

func TestCheckJudgeError(t *testing.T) {
	convs := genConvs("j", 40, 5, 4)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	// The first judged item of j-003's compaction 2 fails.
	i := firstOf(t, want, "j-003", 2)
	for !want[i].judged {
		i++
	}
	bad := want[i].rec
	errMisuse := errors.New("the judge was misused")
	answer := func(q Question) (Answer, error) {
		if q.ConversationID == bad.ConversationID && q.Compaction == bad.Compaction && q.ItemID == bad.ItemID {
			return Answer{}, fmt.Errorf("judge %s: %w", describe(q), errMisuse)
		}
		return stubAnswer(q)
	}
	judged := 0
	for _, w := range want {
		if w.judged {
			judged++
		}
	}
	for _, conc := range []int{1, 8} {
		t.Run(fmt.Sprintf("concurrency=%d", conc), func(t *testing.T) {
			j := newStub(answer, randomDelay(100*time.Microsecond))
			cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: conc}
			before := runtime.NumGoroutine()
			got, _, err := runCheck(t, context.Background(), cfg, nil)
			if !errors.Is(err, errMisuse) {
				t.Fatalf("error %v, want %v", err, errMisuse)
			}
			sameRecords(t, got, records(want[:firstOf(t, want, bad.ConversationID, bad.Compaction)]))
			if j.calls() > judged/2 {
				t.Errorf("the judge was asked %d of %d questions: the run went on after the error", j.calls(), judged)
			}
			noLeak(t, before)
		})
	}
}

func TestCheckCancel(t *testing.T) {
	convs := genConvs("x", 40, 5, 4)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := records(wantChecks(convs, stubAnswer))
	hang := func(Question) time.Duration { return time.Hour }
	tests := []struct {
		reason string
		// ctx returns the context to run Check in.
		ctx   func() (context.Context, context.CancelFunc)
		delay func(Question) time.Duration
		// cancelAt, if not negative, cancels from emit at that record.
		cancelAt int
		want     error
	}{
		{
			reason: "cancelled before the call",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			cancelAt: -1, want: context.Canceled,
		},
		{
			reason: "a deadline while every judge call hangs",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			delay:    hang,
			cancelAt: -1, want: context.DeadlineExceeded,
		},
		{
			reason: "a deadline in the middle of a run of slow calls",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			},
			delay:    func(Question) time.Duration { return 5 * time.Millisecond },
			cancelAt: -1, want: context.DeadlineExceeded,
		},
		{
			reason:   "cancelled by the caller from emit",
			ctx:      func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			delay:    randomDelay(time.Millisecond),
			cancelAt: 5, want: context.Canceled,
		},
	}
	for _, tt := range tests {
		for _, conc := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s/concurrency=%d", tt.reason, conc), func(t *testing.T) {
				j := newStub(stubAnswer, tt.delay)
				cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: conc}
				before := runtime.NumGoroutine()
				ctx, cancel := tt.ctx()
				defer cancel()
				n := 0
				start := time.Now()
				got, _, err := runCheck(t, ctx, cfg, func(fixture.Record) error {
					if n == tt.cancelAt {
						cancel()
					}
					n++
					return nil
				})
				if !errors.Is(err, tt.want) {
					t.Fatalf("error %v, want %v", err, tt.want)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("Check took %v to notice the end of its context", d)
				}
				if len(got) == len(want) {
					t.Errorf("every record emitted although the run was cancelled")
				}
				sameRecords(t, got, want[:len(got)])
				noLeak(t, before)
			})
		}
	}
}

// TestCheckReadAhead holds the first question until the rest of the run
// has had every chance to load contexts, and counts the contexts loaded
// meanwhile: the pipeline reads ahead a bounded number of contexts, not
// the whole set, so memory does not grow with the number of fixtures.
func TestCheckReadAhead(t *testing.T) {
	convs := genConvs("r", 100, 3, 3)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	head := slices.IndexFunc(want, func(w wantCheck) bool { return w.judged })
	release := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	seen := map[string]bool{} // contexts of questions asked while the head was held
	answer := func(q Question) (Answer, error) {
		h := want[head].rec
		if q.ConversationID == h.ConversationID && q.Compaction == h.Compaction && q.ItemID == h.ItemID {
			select {
			case <-release:
			case <-time.After(300 * time.Millisecond):
			}
			once.Do(func() { close(release) })
		}
		mu.Lock()
		select {
		case <-release:
		default:
			seen[fmt.Sprintf("%s/%d", q.ConversationID, q.Compaction)] = true
		}
		mu.Unlock()
		return stubAnswer(q)
	}
	const conc = 4
	j := newStub(answer, nil)
	cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: conc}
	got, _, err := runCheck(t, context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, got, records(want))
	// The ordered queue holds 2·(conc+loaders) contexts; allow as much
	// again for the loaders and askers holding one each.
	bound := 4 * (conc + runtime.GOMAXPROCS(0))
	if len(seen) > bound || len(seen) >= countContexts(convs)/2 {
		t.Errorf("%d of %d contexts were loaded and judged while the first was waiting; want at most %d", len(seen), countContexts(convs), bound)
	}
}

// planReplyRE picks the conversation, compaction and item out of a
// verdict prompt.
var planReplyRE = regexp.MustCompile(`\[ctx ([^/\]]+)/(\d+)\][\s\S]*Question: What does [^/]+/(\S+) say\?`)

// planSupported says whether the fake backend finds a check supported
// (otherwise absent).
func planSupported(conv string, n int, item string) bool {
	return hash32(questionKey(conv, n, item))%3 != 0
}

// planReply is a backend that answers the verdict question by
// planSupported, with an answer naming the context (so no two agreement
// questions are the same), and agrees unless the compaction is 2.
func planReply(_ int, prompt string) (string, error) {
	if isAgreement(prompt) {
		if strings.Contains(prompt, "compaction 2") {
			return agreeNo, nil
		}
		return agreeYes, nil
	}
	m := planReplyRE.FindStringSubmatch(prompt)
	if m == nil {
		return "", fmt.Errorf("not a prompt of the check set: %.200q", prompt)
	}
	n, _ := strconv.Atoi(m[2])
	if !planSupported(m[1], n, m[3]) {
		return replyAbsent, nil
	}
	return fmt.Sprintf(`{"reasoning": "it is pinned", "answer": "%s at %s compaction %d", "verdict": "supported"}`, m[3], m[1], n), nil
}

func TestPlanCheckCache(t *testing.T) {
	convs := orderConvs()
	set := writeCheckSet(t, t.TempDir(), false, convs)
	ws := wantChecks(convs, stubAnswer)
	var wantPlan PlanResult
	wantPlan.Fixtures, wantPlan.Contexts, wantPlan.Checks = len(convs), countContexts(convs), len(ws)
	supported := 0
	for _, w := range ws {
		if !w.judged {
			wantPlan.Verbatim++
			continue
		}
		wantPlan.Questions++
		if planSupported(w.rec.ConversationID, w.rec.Compaction, w.rec.ItemID) {
			supported++
		}
	}

	backend := &scripted{name: "fake/model", reply: planReply}
	m := &Model{Backend: backend, Cache: openCache(t)}
	cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: m, Concurrency: 6}
	ctx := context.Background()

	cold := wantPlan
	cold.AgreementUnknown = wantPlan.Questions
	if p, err := PlanCheck(ctx, cfg); err != nil || p != cold {
		t.Fatalf("before any run: PlanCheck = %+v, %v\nwant %+v", p, err, cold)
	}
	if backend.calls() != 0 {
		t.Fatalf("PlanCheck made %d backend calls", backend.calls())
	}

	first, res, err := runCheck(t, ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := backend.calls(), wantPlan.Questions+supported; got != want {
		t.Errorf("the backend was called %d times, want %d questions + %d agreement questions", got, wantPlan.Questions, supported)
	}
	if res.Calls != backend.calls() || res.CacheHits != 0 || res.Errors != 0 || res.Checks != wantPlan.Checks || res.Verbatim != wantPlan.Verbatim {
		t.Errorf("first run: %+v", res.Progress)
	}
	var contradicted int
	for _, r := range first {
		if r.Verdict == fixture.Contradicted {
			contradicted++
		}
	}
	if contradicted == 0 || res.ByClass.Total().Supported == 0 || res.ByClass.Total().Absent == 0 {
		t.Errorf("the fake backend should give every verdict: %+v", res.ByClass.Total())
	}

	warm := wantPlan
	warm.VerdictsCached = wantPlan.Questions
	calls := backend.calls()
	if p, err := PlanCheck(ctx, cfg); err != nil || p != warm {
		t.Fatalf("after a run: PlanCheck = %+v, %v\nwant %+v (every verdict cached, no call to make)", p, err, warm)
	}
	if backend.calls() != calls {
		t.Fatalf("PlanCheck made %d backend calls", backend.calls()-calls)
	}

	second, res, err := runCheck(t, ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if backend.calls() != calls || res.Calls != 0 || res.CacheHits != wantPlan.Questions+supported {
		t.Errorf("second run: %d new backend calls, result %+v; want none and %d cache hits", backend.calls()-calls, res.Progress, wantPlan.Questions+supported)
	}
	sameRecords(t, second, first)
}
