package main

import (
	"context"
	"fmt"
	"io"

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
func sessionProposer(ctx context.Context, name string, jf *judgeFlags, lim input.Limits, opts selection.ProposeOptions) (func(*agentlog.Session) (selection.Proposal, error), error) {
	switch name {
	case "rules":
		return func(s *agentlog.Session) (selection.Proposal, error) { return selection.Propose(s, opts), nil }, nil
	case "llm", "hybrid":
		if jf.backend == "recorded" { // said before the verdicts file is read
			return nil, usagef("--proposer %s asks a model: --judge openai, anthropic or command, not %s", name, jf.backend)
		}
		j, err := jf.build(lim)
		if err != nil {
			return nil, err
		}
		m, ok := j.(*judge.Model)
		if !ok {
			return nil, usagef("--proposer %s asks a model: --judge openai, anthropic or command, not %s", name, jf.backend)
		}
		llm := selection.LLMProposer{Backend: m.Backend, Cache: m.Cache, Reasks: m.Reasks}
		if name == "llm" {
			return func(s *agentlog.Session) (selection.Proposal, error) { return llm.Propose(ctx, s, opts) }, nil
		}
		return func(s *agentlog.Session) (selection.Proposal, error) {
			p, err := llm.Propose(ctx, s, opts)
			if err != nil {
				return selection.Proposal{}, err
			}
			return selection.Hybrid(selection.Propose(s, opts), p), nil
		}, nil
	}
	return nil, usagef("--proposer must be rules, llm or hybrid, got %q", name)
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
