package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/judge"
	"github.com/tally-eval/tally/selection"
)

// sessionProposer is --proposer: it proposes a session's items with the
// rules; for "llm", with a model the judge flags name; for "hybrid", the
// model's items but references and the rules' references, constraints
// and commitments (selection.Hybrid). A
// name other than these, or llm or hybrid with a judge that is no model,
// is a usage error.
// Its stats count the model's calls (nil for the rules).
func sessionProposer(ctx context.Context, name string, jf *judgeFlags, lim input.Limits, opts selection.ProposeOptions) (func(*agentlog.Session) (selection.Proposal, error), *proposerStats, error) {
	switch name {
	case "rules":
		return func(s *agentlog.Session) (selection.Proposal, error) { return selection.Propose(s, opts), nil }, nil, nil
	case "llm", "hybrid":
		if jf.backend == "recorded" { // said before the verdicts file is read
			return nil, nil, usagef("--proposer %s asks a model: --judge openai, anthropic or command, not %s", name, jf.backend)
		}
		j, err := jf.build(lim)
		if err != nil {
			return nil, nil, err
		}
		m, ok := j.(*judge.Model)
		if !ok {
			return nil, nil, usagef("--proposer %s asks a model: --judge openai, anthropic or command, not %s", name, jf.backend)
		}
		st := &proposerStats{cache: m.Cache}
		llm := selection.LLMProposer{Backend: countingBackend{m.Backend, st}, Cache: m.Cache, Reasks: m.Reasks}
		if name == "llm" {
			return func(s *agentlog.Session) (selection.Proposal, error) { return llm.Propose(ctx, s, opts) }, st, nil
		}
		return func(s *agentlog.Session) (selection.Proposal, error) {
			p, err := llm.Propose(ctx, s, opts)
			if err != nil {
				return selection.Proposal{}, err
			}
			return selection.Hybrid(selection.Propose(s, opts), p), nil
		}, st, nil
	}
	return nil, nil, usagef("--proposer must be rules, llm or hybrid, got %q", name)
}

// proposerStats counts a model proposer's calls: the requests made (a
// re-ask is one more) and, through its cache, the proposals answered
// from it.
type proposerStats struct {
	calls atomic.Int64
	cache *judge.Cache // nil without --cache
}

// Calls is the number of requests made to the model.
func (p *proposerStats) Calls() int64 { return p.calls.Load() }

// Cached is the number of proposals the cache answered.
func (p *proposerStats) Cached() int64 {
	if p.cache == nil {
		return 0
	}
	return p.cache.Stats().Hits
}

// countingBackend is a judge.Backend that counts its calls in st; it
// keeps the wrapped backend's name and identity, so cache keys are its.
type countingBackend struct {
	judge.Backend
	st *proposerStats
}

// Complete counts the call and passes it on.
func (b countingBackend) Complete(ctx context.Context, prompt string) (string, error) {
	b.st.calls.Add(1)
	return b.Backend.Complete(ctx, prompt)
}

// Identity is the wrapped backend's identity (its Name when it has none).
func (b countingBackend) Identity() string {
	if i, ok := b.Backend.(judge.Identifier); ok {
		return i.Identity()
	}
	return b.Backend.Name()
}

// skippedLines is the agentlog options of a command reading logs: the
// format, the line limit and --skip-bad, a skipped line's error printed
// to stderr and counted in *n.
func skippedLines(f agentlog.Format, lim input.Limits, skipBad bool, stderr io.Writer, n *int) agentlog.Options {
	return agentlog.Options{Format: f, MaxLine: lim.MaxLine, SkipBad: skipBad, Bad: func(err error) {
		*n++
		fmt.Fprintf(stderr, "tally: %s (line skipped)\n", err)
	}}
}
