package judge

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// CheckConfig configures Check: one system's compacted contexts checked
// item by item against a fixture set.
type CheckConfig struct {
	// Fixtures is a fixture file, a .jsonl of fixtures or a folder.
	Fixtures string
	// Contexts is the folder holding CONTEXTS/<conversation_id>/<n>.json.
	Contexts string
	// System names the summariser in every record.
	System string
	// Judge answers the items not found verbatim. Nil makes a dry run
	// possible only with Plan. A *Recorded judge, which looks verdicts up
	// by the item's identity, gets its questions without the context's
	// text (Question.Context empty), and every context is read once.
	Judge Judge
	// Concurrency is the number of judge questions in flight (default 8).
	Concurrency int
	// Progress, when set, is called after each context's records are
	// written, from one goroutine at a time.
	Progress func(Progress)
	// AllowMissing accepts a fixture's missing context files. A missing
	// compaction's turn is unknown, but it lies strictly between the
	// turns of the present contexts around it (turns increase with the
	// compaction, one at least per compaction): its items stated before
	// the earliest turn it can have served are certainly live and are
	// recorded as error with the reason ReasonNoContext; those stated
	// from then on, but before the latest turn it can have served, may
	// or may not be live and are recorded as error with the reason
	// ReasonLivenessUnknown; later items, which cannot have been live,
	// are not recorded. So every item that may be live is counted, never
	// silently absent, and none that cannot be is. Without AllowMissing
	// a missing file is an input error like the other mismatches between
	// contexts and fixtures.
	AllowMissing bool
	// SkipOrphans leaves unchecked the context folders of conversations
	// no fixture names (an error otherwise: fixture.OrphanContexts), and
	// counts them in OrphansSkipped: a check of the fixtures reviewed so
	// far, from a folder drafted for more (tally fixtures draft).
	SkipOrphans bool
	// Deadline bounds the judging (0: none): once it has passed since
	// Check began, no judge call is made and every item not yet judged
	// is answered from the cache alone (a *Model judge's), or recorded
	// as error with the reason ReasonDeadline when it is not cached.
	Deadline time.Duration
	// Breaker is the number of consecutive questions failed for want of
	// the judge after which the judge is not called again: every item
	// not yet judged is answered from the cache alone, or recorded as
	// error with the reason ReasonUnavailable (0: DefaultBreaker;
	// negative: never). A question is one item at one compaction — its
	// verdict call, the re-asks after unusable replies, and the
	// agreement call. It counts when a call failed with an error that
	// wraps ErrUnavailable (a transport error or timeout, a refused
	// connection, HTTP 5xx or 429 after the retries, a command that could
	// not start or was killed by its timeout), each question once; and
	// when a command judge exited non-zero, once per context, since a
	// context too long for the judge fails every question of it while a
	// crashing judge fails context after context. Any other question
	// that called the judge — a verdict, a reply with no usable verdict
	// after the re-asks, an HTTP 4xx such as 413 — resets the count: the
	// judge is there. A question answered from the cache neither counts
	// nor resets it.
	Breaker int
	// JudgeVerbatim puts the items found verbatim to the judge too, and
	// takes only its contradiction: a context that holds an item's words
	// and states the opposite is contradicted, not verbatim (Claude Code's
	// summaries quote every message the person typed, so a body that
	// inverts a constraint still holds its words). Any other answer
	// leaves the item verbatim; a failure (an error verdict) is recorded
	// as the error, since whether the item was contradicted is not
	// known. It costs a question per verbatim item.
	JudgeVerbatim bool
	// Limits bounds the fixtures and the compacted contexts read: only
	// regular files, a JSONL line or a file read whole of at most
	// Limits.MaxLine bytes, a file of at most Limits.MaxFile (zero
	// fields: package input's defaults).
	Limits input.Limits
}

// Progress is the state of a running check.
type Progress struct {
	// Contexts is the number of compacted contexts read in the run;
	// ContextsDone of them are written. MissingContexts counts the
	// context files missing and accepted by CheckConfig.AllowMissing (not
	// in Contexts): their items are error records.
	Contexts, ContextsDone, MissingContexts int
	// OrphansSkipped counts the context folders of conversations no
	// fixture names, left unchecked under CheckConfig.SkipOrphans.
	OrphansSkipped int
	// Checks counts the records written; Verbatim of them by substring.
	// VerbatimContradicted counts the items found verbatim that the judge
	// then found contradicted (CheckConfig.JudgeVerbatim): recorded as
	// contradicted, and not in Verbatim. VerbatimUnjudged counts those the
	// judge failed on (an error verdict: a command that exited non-zero,
	// a recorded judge with no line for them): recorded as errors, in
	// Errors and not in Verbatim.
	Checks, Verbatim, VerbatimContradicted, VerbatimUnjudged int
	// Calls and CacheHits count judge backend calls made and replies
	// taken from the cache; Errors counts error verdicts.
	Calls, CacheHits, Errors int
}

// CheckResult sums a finished check.
type CheckResult struct {
	Progress
	// Fixtures is the number of fixtures checked.
	Fixtures int
	// ByClass tallies the verdicts per item class.
	ByClass fixture.ByClass
	// ErrorReasons counts the error verdicts by their reason.
	ErrorReasons map[string]int
	// Unanswered counts the supported verdicts whose reply gave no answer,
	// so that the agreement with the expected answer was not checked.
	Unanswered int
}

// PlanResult is what a check would cost: Questions are the items that
// go to the judge (those not verbatim, and under
// CheckConfig.JudgeVerbatim the verbatim ones too); VerdictsCached of them are already
// answered in the cache; AgreementCalls are the agreement calls known to
// be needed, and AgreementUnknown those that depend on uncached verdicts
// (at most one each).
type PlanResult struct {
	Fixtures, Contexts, MissingContexts, Checks, Verbatim int
	OrphansSkipped                                        int
	Questions, VerdictsCached                             int
	AgreementCalls, AgreementUnknown                      int
}

// Check runs every must-survive item of every fixture against each
// compacted context of cfg.System in which it is live (stated before the
// compaction's turn): verbatim by exact substring of the rendered context,
// otherwise by cfg.Judge. It calls emit with each record in a fixed order —
// fixtures as fixture.Walk gives them, compactions in order, items in
// fixture order — whatever the concurrency, so the same inputs give the
// same output.
//
// Memory stays bounded: fixtures stream, and at most a few contexts per
// worker are held at once. Every context is read, decoded and searched
// for its items in the pass that validates it; only a judge that reads
// the context's text (any but a *Recorded) has each read again, as the
// check reaches it, to be given it. The fixture set, and every context against its
// fixture (fixture.CheckContexts: missing, extra and orphan contexts,
// turns out of range or out of order, malformed files), are validated
// completely before the first record, so bad input gives all its problems
// at once and no records.
//
// Judging is bounded by cfg.Deadline and cfg.Breaker: once either trips,
// the items not judged yet are answered from the cache alone, and those
// not cached are error records with the reason ReasonDeadline or
// ReasonUnavailable, so a run against a judge that is down ends promptly
// with every item recorded and no cached verdict lost. CheckResult.ErrorReasons
// counts the error records by reason. A misconfigured judge
// (ErrMisconfigured) is returned at once, with every worker stopped; any
// other error of a question after every record before it is emitted.
func Check(ctx context.Context, cfg CheckConfig, emit func(fixture.Record) error) (CheckResult, error) {
	if cfg.Judge == nil {
		return CheckResult{}, errors.New("judge: Check needs a judge")
	}
	res := CheckResult{ByClass: fixture.ByClass{}, ErrorReasons: map[string]int{}}
	b := newBounds(cfg.Judge, cfg.Deadline, cfg.Breaker)
	defer b.close()
	_, recorded := cfg.Judge.(*Recorded)
	var n setCounts
	counted := func() {
		res.Fixtures, res.Progress.Contexts, res.MissingContexts, res.OrphansSkipped = n.fixtures, n.contexts, n.missing, n.orphans
	}
	err := run(ctx, cfg, !recorded, &n, func(s *slot) error {
		counted() // known once the set is validated, before the first record
		for _, r := range s.records {
			if err := emit(r); err != nil {
				return err
			}
			res.ByClass.Add(r) // counted once written, so a failed emit leaves the counts true
			if r.Verdict == fixture.Error {
				res.Errors++
				res.ErrorReasons[r.Reason]++
			}
			if r.Verdict == fixture.Supported && r.Reason == noAnswerReason {
				res.Unanswered++
			}
		}
		if s.path != "" {
			res.ContextsDone++
		}
		res.Checks += len(s.records)
		res.Verbatim += s.verbatim
		res.VerbatimContradicted += s.verbatimContradicted
		res.VerbatimUnjudged += s.verbatimUnjudged
		res.Calls += s.calls
		res.CacheHits += s.cacheHits
		if cfg.Progress != nil {
			cfg.Progress(res.Progress)
		}
		return nil
	}, b.ask)
	counted()
	return res, err
}

// PlanCheck walks the same items as Check without judging: it counts the
// questions a run would send to the judge and, with a *Model judge, how
// many the cache already answers.
func PlanCheck(ctx context.Context, cfg CheckConfig) (PlanResult, error) {
	var pr PlanResult
	model, _ := cfg.Judge.(*Model)
	var mu sync.Mutex
	var n setCounts
	err := run(ctx, cfg, model != nil, &n, func(s *slot) error {
		pr.Checks += len(s.records)
		pr.Verbatim += s.verbatim
		return nil
	}, func(_ context.Context, q Question) (Answer, error) {
		var p Plan
		if model != nil {
			var err error
			if p, err = model.Plan(q); err != nil {
				return Answer{}, err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		pr.Questions++
		if p.VerdictCached {
			pr.VerdictsCached++
		}
		switch p.Agreement {
		case AgreementNeeded:
			pr.AgreementCalls++
		case AgreementUnknown:
			if model != nil {
				pr.AgreementUnknown++
			}
		}
		return Answer{Verdict: fixture.Error}, nil
	})
	pr.Fixtures, pr.Contexts, pr.MissingContexts, pr.OrphansSkipped = n.fixtures, n.contexts, n.missing, n.orphans
	return pr, err
}

// slot is one compacted context on its way through the pipeline. A slot
// of a missing context (path "") is complete when made.
type slot struct {
	fix  *fixture.Fixture
	path string
	// n is the compaction, turn its turn as first read; prints are the
	// fingerprints of fix's items. When searched is set, found says which
	// items the context holds verbatim (contextPlan) and it is not read
	// again.
	n, turn  int
	prints   []string
	searched bool
	found    []bool

	records  []fixture.Record
	verbatim int
	// verbatimContradicted counts the verbatim items the judge found
	// contradicted (CheckConfig.JudgeVerbatim).
	verbatimContradicted int
	// verbatimUnjudged counts those the judge answered with an error,
	// recorded as the error.
	verbatimUnjudged int
	calls            int
	cacheHits        int
	err              error

	mu      sync.Mutex
	pending int
	done    chan struct{}
}

// finish marks one of the slot's outstanding pieces of work done.
func (s *slot) finish() {
	s.mu.Lock()
	s.pending--
	last := s.pending == 0
	s.mu.Unlock()
	if last {
		close(s.done)
	}
}

type task struct {
	s   *slot
	i   int
	q   Question
	ctx context.Context
	// verbatim marks an item found verbatim, put to the judge for its
	// contradiction only (CheckConfig.JudgeVerbatim).
	verbatim bool
}

// run is the pipeline shared by Check and PlanCheck: a producer walks the
// fixtures and their context files in order; loaders parse and render
// contexts and settle the verbatim items; askers put the rest to ask; the
// caller's goroutine writes each slot, in order, once it is complete.
//
// Every context is read first to validate it (planContexts). When ask
// needs no context text (needContext false: the recorded judge, or a
// plan without a model), that reading also settles the verbatim items
// and the contexts are not read again: each is read, decoded and searched
// once. Otherwise the loaders read each context again, to give its text
// to the judge, and settle the verbatim items on that reading.
// setCounts is what planContexts counted of the fixture set and its
// contexts.
type setCounts struct{ fixtures, contexts, missing, orphans int }

func run(parent context.Context, cfg CheckConfig, needContext bool, n *setCounts, write func(*slot) error,
	ask func(context.Context, Question) (Answer, error)) error {
	if cfg.System == "" {
		return errors.New("judge: Check needs a system name")
	}
	// Validate the whole fixture set and every context against its
	// fixture before any record is written.
	plans, err := planContexts(cfg, !needContext, n)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	conc := cfg.Concurrency
	if conc <= 0 {
		conc = 8
	}
	loaders := max(1, runtime.GOMAXPROCS(0))
	ordered := make(chan *slot, 2*(conc+loaders))
	loadq := make(chan *slot, loaders)
	askq := make(chan task, conc)

	var walkErr error
	go func() {
		defer close(ordered)
		defer close(loadq)
		walkErr = fixture.Loader{Limits: cfg.Limits}.Walk(func(f fixture.Fixture) error {
			plan := plans[f.ConversationID]
			set := plan.set
			fp := &f
			prints := make([]string, len(f.MustSurvive))
			for k, it := range f.MustSurvive {
				prints[k] = it.Fingerprint()
			}
			k := len(f.MustSurvive)
			for i, path := range set.Files {
				s := &slot{fix: fp, path: path, n: i + 1, turn: set.Turns[i], prints: prints, pending: 1, done: make(chan struct{})}
				if !needContext {
					s.searched = true
					if plan.found != nil {
						s.found = plan.found[i*k : (i+1)*k]
					}
				}
				if path == "" {
					s.records = missingRecords(cfg.System, f, set, i+1)
					s.finish()
				}
				select {
				case ordered <- s:
				case <-ctx.Done():
					return ctx.Err()
				}
				if path == "" {
					continue
				}
				select {
				case loadq <- s:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		}, cfg.Fixtures)
	}()

	var loadWG sync.WaitGroup
	for range loaders {
		loadWG.Add(1)
		go func() {
			defer loadWG.Done()
			var buf []byte
			for s := range loadq {
				buf = load(ctx, cfg, s, askq, buf)
			}
		}()
	}
	// A misconfigured judge (ErrMisconfigured) stops every worker at once,
	// not when the writer reaches its question's place in order: until
	// then the others would keep sending the same failing request. Other
	// errors stop the run there, after every record before it is written.
	var stopMu sync.Mutex
	var stopErr error
	stop := func(err error) {
		stopMu.Lock()
		if stopErr == nil {
			stopErr = err
		}
		stopMu.Unlock()
		cancel()
	}
	stopped := func(ctxErr error) error {
		stopMu.Lock()
		defer stopMu.Unlock()
		if stopErr != nil && parent.Err() == nil {
			return stopErr
		}
		return ctxErr
	}
	var askWG sync.WaitGroup
	for range conc {
		askWG.Add(1)
		go func() {
			defer askWG.Done()
			for t := range askq {
				a, err := ask(t.ctx, t.q)
				if errors.Is(err, ErrMisconfigured) && ctx.Err() == nil {
					stop(err)
				}
				t.s.mu.Lock()
				if err != nil && t.s.err == nil {
					t.s.err = err
				}
				if err == nil {
					switch {
					case !t.verbatim:
						t.s.records[t.i] = a.Record(t.q)
					case a.Verdict == fixture.Error:
						// The contradiction the run asked for went
						// unchecked: the item's state is not known,
						// and an error verdict says so everywhere
						// (--max-errors, the report's ranges).
						t.s.records[t.i] = a.Record(t.q)
						t.s.verbatim--
						t.s.verbatimUnjudged++
					case a.Verdict == fixture.Contradicted:
						rec := a.Record(t.q)
						rec.Reason = strings.TrimSuffix("its words are in the context, and the context contradicts them; "+rec.Reason, "; ")
						t.s.records[t.i] = rec
						t.s.verbatim--
						t.s.verbatimContradicted++
					}
					t.s.calls += a.Calls
					t.s.cacheHits += a.CacheHits
				}
				t.s.mu.Unlock()
				t.s.finish()
			}
		}()
	}
	go func() {
		loadWG.Wait()
		close(askq)
	}()

	var firstErr error
	for s := range ordered {
		if firstErr != nil {
			continue // drain so the producer can finish
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			firstErr = stopped(ctx.Err())
			cancel()
			continue
		}
		if s.err != nil {
			firstErr = s.err
			cancel()
			continue
		}
		if err := write(s); err != nil {
			firstErr = err
			cancel()
		}
	}
	askWG.Wait()
	if firstErr != nil {
		return firstErr
	}
	if walkErr != nil {
		return walkErr
	}
	return parent.Err()
}

// load settles s's verbatim items, from its context plan or by reading
// and rendering its context (into buf, returned for reuse), and queues
// the rest on askq (and, under cfg.JudgeVerbatim, the verbatim ones for
// their contradiction).
func load(ctx context.Context, cfg CheckConfig, s *slot, askq chan<- task, buf []byte) []byte {
	system, lim := cfg.System, cfg.Limits
	defer s.finish()
	if ctx.Err() != nil {
		s.err = ctx.Err()
		return buf
	}
	c := fixture.Context{ConversationID: s.fix.ConversationID, Compaction: s.n, Turn: s.turn}
	found := s.found
	rendered := ""
	if !s.searched {
		var err error
		c, buf, err = fixture.Loader{Limits: lim}.RenderContext(s.path, buf[:0])
		if err != nil {
			s.err = err
			return buf
		}
		if c.ConversationID != s.fix.ConversationID {
			s.err = fmt.Errorf("%s: conversation_id %q does not match the fixture's %q", s.path, c.ConversationID, s.fix.ConversationID)
			return buf
		}
		found = make([]bool, len(s.fix.MustSurvive))
		searchContext(literalsOf(*s.fix), *s.fix, c, buf, found)
		rendered = string(buf)
	}
	live := 0
	for _, it := range s.fix.MustSurvive {
		if it.LiveAt(c) {
			live++
		}
	}
	// Sized once; the questions go to the askers only after this loop, so
	// they never see the slice grow.
	s.records = make([]fixture.Record, 0, live)
	var questions []task
	for k, it := range s.fix.MustSurvive {
		if !it.LiveAt(c) {
			continue
		}
		rec := fixture.Record{
			System: system, ConversationID: c.ConversationID, Compaction: c.Compaction,
			ItemID: it.ID, Class: it.Class, Item: s.prints[k],
		}
		if found[k] {
			rec.Verdict = fixture.Verbatim
			s.verbatim++
		}
		if !found[k] || cfg.JudgeVerbatim {
			questions = append(questions, task{s: s, i: len(s.records), ctx: ctx, verbatim: found[k], q: Question{
				System: system, ConversationID: c.ConversationID, Compaction: c.Compaction,
				ItemID: it.ID, Class: it.Class, Probe: it.Probe, Expect: it.Expect, Context: rendered, Item: rec.Item,
			}})
		}
		s.records = append(s.records, rec)
	}
	s.mu.Lock()
	s.pending += len(questions)
	s.mu.Unlock()
	for i, t := range questions {
		select {
		case askq <- t:
		case <-ctx.Done():
			s.mu.Lock()
			if s.err == nil {
				s.err = ctx.Err()
			}
			s.mu.Unlock()
			for range questions[i:] {
				s.finish()
			}
			return buf
		}
	}
	return buf
}

// literalsOf is the search for f's items' literals, in f's order.
func literalsOf(f fixture.Fixture) *fixture.Literals {
	lits := make([]string, len(f.MustSurvive))
	for k, it := range f.MustSurvive {
		lits[k] = it.Literal
	}
	return fixture.NewLiterals(lits)
}

// searchContext sets found[k] to whether item k of f is live at c and
// its literal occurs in c's rendered text (fixture.IsVerbatim's rule).
func searchContext(ls *fixture.Literals, f fixture.Fixture, c fixture.Context, rendered []byte, found []bool) {
	live := make([]bool, len(f.MustSurvive))
	for k, it := range f.MustSurvive {
		live[k] = it.LiveAt(c)
	}
	ls.Find(rendered, found, live)
}
