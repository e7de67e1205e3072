package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/fixture"
)

// Re-ask settings for Model.Reasks.
const (
	// DefaultReasks is how many times a Model re-asks after a reply it
	// cannot parse, unless told otherwise.
	DefaultReasks = 2
	// NoReasks makes a Model record error at the first unusable reply.
	NoReasks = -1
)

// Model is the model judge: it renders the prompt, consults the cache,
// asks the backend, parses the reply (re-asking, with a short corrective
// instruction, after an unusable one), and checks a supported answer
// against the fixture's expected answer with the agreement question.
// A Model is safe for concurrent use.
type Model struct {
	// Backend answers prompts; required.
	Backend Backend
	// Cache keeps parsed replies (nil: no cache).
	Cache *Cache
	// Template renders verdict prompts (nil: DefaultTemplate()).
	Template *Template
	// Reasks is how many times to re-ask after an unusable reply, for the
	// verdict and the agreement question each (0: DefaultReasks;
	// NoReasks: none).
	Reasks int
	// NoAgree switches the agreement question off: a supported verdict
	// is kept as supported whatever its answer, without comparing it with
	// the expected answer, so a supported answer that inverts the
	// expected one is not caught as contradicted. For a judge that can
	// answer only the verdict question.
	NoAgree bool

	// inflight makes one call per cache key at a time (keyLocks).
	inflight keyLocks
}

// AgreementPlan is what a dry run knows about a question's agreement
// call.
type AgreementPlan string

// What a dry run can know about the agreement call.
const (
	// AgreementUnknown: the verdict is not cached, so whether an agreement
	// call follows depends on it (at most one).
	AgreementUnknown AgreementPlan = "unknown"
	// AgreementNone: the cached verdict needs no agreement call (it is not
	// supported, the fixture has no expected answer, or the two answers
	// are equal as written).
	AgreementNone AgreementPlan = "none"
	// AgreementCached: the agreement reply is cached too.
	AgreementCached AgreementPlan = "cached"
	// AgreementNeeded: the cached verdict is supported and its agreement
	// call is not cached.
	AgreementNeeded AgreementPlan = "needed"
)

// Plan is what judging a question would cost, as far as the cache can
// tell before any call.
type Plan struct {
	// VerdictCached: the verdict reply is cached, so no verdict call.
	VerdictCached bool
	Agreement     AgreementPlan
}

// Judge judges q. See the Judge interface for what an error means.
func (m *Model) Judge(ctx context.Context, q Question) (Answer, error) {
	if err := ctx.Err(); err != nil {
		if _, err := m.check(q); err != nil {
			return Answer{}, err
		}
		return Answer{}, fmt.Errorf("judge %s: %w", describe(q), err)
	}
	a, _, err := m.judge(ctx, q, false)
	return a, err
}

// Recall answers q from the cache alone, making no call: ok is false when
// the cache cannot settle it — its verdict is not cached, or the verdict
// is supported and the agreement it needs is not — and then a holds the
// cache hits so far. The lookups count as hits and misses. Check uses it
// once its deadline has passed or its breaker opened, so a cached verdict
// is never thrown away.
func (m *Model) Recall(q Question) (a Answer, ok bool, err error) {
	return m.judge(context.Background(), q, true)
}

// judge is Judge, or with cacheOnly Recall.
func (m *Model) judge(ctx context.Context, q Question, cacheOnly bool) (Answer, bool, error) {
	tmpl, err := m.check(q)
	if err != nil {
		return Answer{}, false, err
	}
	a := Answer{Judge: m.Backend.Name()}

	var reply Reply
	key := m.verdictKey(q, tmpl)
	if !cacheOnly && m.Cache != nil {
		defer m.inflight.lock(key)()
	}
	if e, ok := m.get(key); ok {
		reply = *e.Reply
		a.CacheHits++
	} else if cacheOnly {
		return a, false, nil
	} else {
		prompt, err := tmpl.Render(q.Probe, q.Context)
		if err != nil {
			return Answer{}, false, fmt.Errorf("judge %s: %w", describe(q), err)
		}
		calls, failure, cause, err := m.ask(ctx, prompt, reaskVerdict, func(s string) error {
			var err error
			reply, err = ParseReply(s)
			return err
		})
		a.Calls += calls
		if err != nil {
			return Answer{Calls: a.Calls}, false, fmt.Errorf("judge %s: %w", describe(q), err)
		}
		if failure != "" {
			a.Verdict, a.Reason, a.Err = fixture.Error, failure, cause
			return a, true, nil
		}
		m.put(key, Entry{Kind: KindVerdict, Judge: a.Judge, Reply: &reply})
	}
	a.Verdict, a.Answer, a.Reasoning = reply.Verdict, reply.Answer, reply.Reasoning
	if m.NoAgree || !needsAgreement(reply, q.Expect) {
		if !m.NoAgree && unanswered(reply, q.Expect) {
			a.Reason = noAnswerReason
		}
		return a, true, nil
	}

	var agree bool
	akey := m.agreementKey(q, reply.Answer)
	if !cacheOnly && m.Cache != nil && akey != key {
		defer m.inflight.lock(akey)()
	}
	if e, ok := m.get(akey); ok {
		agree = *e.Agree
		a.CacheHits++
	} else if cacheOnly {
		return Answer{Judge: a.Judge, CacheHits: a.CacheHits}, false, nil
	} else {
		prompt, err := renderAgreement(q.Probe, q.Expect, reply.Answer)
		if err != nil {
			return Answer{}, false, fmt.Errorf("judge %s: %w", describe(q), err)
		}
		calls, failure, cause, err := m.ask(ctx, prompt, reaskAgreement, func(s string) error {
			var err error
			agree, err = ParseAgreement(s)
			return err
		})
		a.Calls += calls
		if err != nil {
			return Answer{Calls: a.Calls}, false, fmt.Errorf("judge %s: %w", describe(q), err)
		}
		if failure != "" {
			a.Verdict, a.Expect, a.Err = fixture.Error, q.Expect, cause
			a.Reason = "the judge found the answer supported, but the agreement check failed: " + failure
			return a, true, nil
		}
		m.put(akey, Entry{Kind: KindAgreement, Judge: a.Judge, Agree: &agree})
	}
	if !agree {
		a.Verdict, a.Expect = fixture.Contradicted, q.Expect
		a.Reason = "the judge found the answer supported, but its answer disagrees with the expected answer"
	}
	return a, true, nil
}

// Cached reports whether q's verdict reply is cached, so judging it makes
// no verdict call. It makes no call and counts no cache hit or miss.
func (m *Model) Cached(q Question) (bool, error) {
	p, err := m.Plan(q)
	return p.VerdictCached, err
}

// Plan says what judging q would need from the backend, from the cache
// alone: no call is made and no hit or miss is counted.
func (m *Model) Plan(q Question) (Plan, error) {
	tmpl, err := m.check(q)
	if err != nil {
		return Plan{}, err
	}
	unknown := AgreementUnknown
	if m.NoAgree {
		unknown = AgreementNone
	}
	if m.Cache == nil {
		return Plan{Agreement: unknown}, nil
	}
	e, ok := m.Cache.Lookup(m.verdictKey(q, tmpl))
	if !ok {
		return Plan{Agreement: unknown}, nil
	}
	if m.NoAgree || !needsAgreement(*e.Reply, q.Expect) {
		return Plan{VerdictCached: true, Agreement: AgreementNone}, nil
	}
	if m.Cache.Has(m.agreementKey(q, e.Reply.Answer)) {
		return Plan{VerdictCached: true, Agreement: AgreementCached}, nil
	}
	return Plan{VerdictCached: true, Agreement: AgreementNeeded}, nil
}

// check reports misuse and returns the template to use.
func (m *Model) check(q Question) (*Template, error) {
	if m == nil || m.Backend == nil {
		return nil, errors.New("judge: the model judge has no backend")
	}
	if strings.TrimSpace(q.Probe) == "" {
		return nil, fmt.Errorf("judge %s: the question has no probe", describe(q))
	}
	if m.Template != nil {
		return m.Template, nil
	}
	return DefaultTemplate(), nil
}

// ask asks prompt, re-asking after unusable replies. failure is the
// Reason for an error verdict, and cause the backend's error when a call
// failed (nil when the replies were unusable); err is set only when ctx
// ended or the backend is misconfigured (ErrMisconfigured: the run
// stops rather than record the same failure for every question).
func (m *Model) ask(ctx context.Context, prompt, instruction string, parse func(string) error) (calls int, failure string, cause, err error) {
	attempts := 1 + DefaultReasks
	switch {
	case m.Reasks < 0:
		attempts = 1
	case m.Reasks > 0:
		attempts = 1 + m.Reasks
	}
	p := prompt
	var lastErr error
	for range attempts {
		reply, err := m.Backend.Complete(ctx, p)
		calls++
		if ctx.Err() != nil {
			return calls, "", nil, ctx.Err()
		}
		if errors.Is(err, ErrMisconfigured) {
			return calls, "", nil, err // every question would fail so: the run stops
		}
		if err != nil {
			return calls, "judge call failed: " + err.Error(), err, nil
		}
		if lastErr = parse(reply); lastErr == nil {
			return calls, "", nil, nil
		}
		p = reask(prompt, lastErr, instruction)
	}
	return calls, fmt.Sprintf("no usable reply in %d attempts; the last: %v", attempts, lastErr), nil, nil
}

func (m *Model) get(k Key) (Entry, bool) {
	if m.Cache == nil {
		return Entry{}, false
	}
	return m.Cache.Get(k)
}

// put caches an entry; a failed write is counted in the cache's Stats and
// costs only a repeated call next time.
func (m *Model) put(k Key, e Entry) {
	if m.Cache != nil {
		_ = m.Cache.Put(k, e)
	}
}

func (m *Model) verdictKey(q Question, tmpl *Template) Key {
	return KeyParts{
		Kind: KindVerdict, Backend: identity(m.Backend), Template: tmpl.Text(),
		Probe: q.Probe, Expect: q.Expect, Context: q.Context,
	}.Key()
}

func (m *Model) agreementKey(q Question, answer string) Key {
	return KeyParts{
		Kind: KindAgreement, Backend: identity(m.Backend), Template: agreementTemplateText,
		Probe: q.Probe, Expect: q.Expect, Answer: answer,
	}.Key()
}

// needsAgreement reports whether a verdict reply needs the agreement
// question: it is supported, the fixture has an expected answer, and the
// two are not equal as written (ignoring case, spacing and surrounding
// punctuation).
func needsAgreement(r Reply, expect string) bool {
	if r.Verdict != fixture.Supported || strings.TrimSpace(expect) == "" || unanswered(r, expect) {
		return false
	}
	n := normalise(expect)
	return n == "" || normalise(r.Answer) != n
}

// noAnswerReason is the reason of a supported verdict whose reply gave
// no answer to compare with the expected one.
const noAnswerReason = "the reply gave no answer, so whether it agrees with the expected answer was not checked (as with --no-agree)"

// unanswered reports whether a supported reply to a question with an
// expected answer gave no answer of its own ("answer" missing or empty:
// a template that asks for the verdict alone). The agreement question
// would then compare the expected answer with nothing, and a model
// answers that with "no": a new user's trial saw every supported item
// of such a template recorded as contradicted.
func unanswered(r Reply, expect string) bool {
	return r.Verdict == fixture.Supported && strings.TrimSpace(expect) != "" && strings.TrimSpace(r.Answer) == ""
}

// normalise folds case, collapses spaces and trims punctuation at the
// ends, so "Yes." and "yes" compare equal.
func normalise(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// describe names a question in messages.
func describe(q Question) string {
	return fmt.Sprintf("%s/%s/%d/%s", q.System, q.ConversationID, q.Compaction, q.ItemID)
}
