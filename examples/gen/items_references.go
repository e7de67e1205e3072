package main

import (
	"fmt"
	"strings"
)

// This file holds the templates of references, and bumpKey, which
// draws a wrong ticket key for an inverted reference.

// referenceTemplates are the templates of class reference.
var referenceTemplates = []func(p picker) itemText{
	func(p picker) itemText {
		doc, rev := p.pick(docFiles), between(p.r, 3, 40)
		lit := fmt.Sprintf("%s rev %d", doc, rev)
		return itemText{Topic: "doc:" + doc, Literal: lit,
			Probe: "Where is the write-up being kept, and at what revision?", Expect: fmt.Sprintf("%s, rev %d", doc, rev),
			Say:  pick(p.r, []string{"I'm keeping the write-up in " + lit + ".", "Latest draft is " + lit + ".", "Numbers are going into " + lit + "."}),
			Role: pick(p.r, []string{"user", "assistant"}),
			Para: [2]string{
				fmt.Sprintf("Write-up: %s, revision %d.", doc, rev),
				fmt.Sprintf("The write-up lives in %s, now at revision %d.", doc, rev)},
			Inverted:       fmt.Sprintf("The write-up is in %s at revision %d.", doc, rev-2),
			InvertedAnswer: fmt.Sprintf("%s, rev %d", doc, rev-2),
			Subject:        "the write-up"}
	},
	func(p picker) itemText {
		key := fmt.Sprintf("%s-%d", p.pick(ticketKey), between(p.r, 120, 4800))
		lit := "ticket " + key
		return itemText{Topic: "ticket", Literal: lit,
			Probe: "Which ticket tracks this work?", Expect: key,
			Say:  pick(p.r, []string{"This is " + lit + ", for the record.", "Link everything to " + lit + ".", "Context is in " + lit + "."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Tracked under %s.", key),
				fmt.Sprintf("The work is tracked as %s.", key)},
			Inverted:       fmt.Sprintf("The work is tracked under %s.", bumpKey(key)),
			InvertedAnswer: bumpKey(key),
			Subject:        "a tracking ticket"}
	},
	func(p picker) itemText {
		n := between(p.r, 180, 9800)
		lit := fmt.Sprintf("PR #%d", n)
		return itemText{Topic: "priorpr", Literal: lit,
			Probe: "Which pull request holds the earlier attempt?", Expect: fmt.Sprintf("#%d", n),
			Say:  pick(p.r, []string{"The earlier attempt was " + lit + "; it got reverted.", "See " + lit + " for the first try.", lit + " tried this before and was closed."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Earlier attempt: pull request %d (reverted).", n),
				fmt.Sprintf("A previous attempt exists as pull request %d.", n)},
			Inverted:       fmt.Sprintf("The earlier attempt is pull request %d.", n+17),
			InvertedAnswer: fmt.Sprintf("#%d", n+17),
			Subject:        "the earlier pull request"}
	},
	func(p picker) itemText {
		n, ci := between(p.r, 1200, 99000), p.pick(ciNames)
		lit := fmt.Sprintf("build %d on %s", n, ci)
		return itemText{Topic: "build", Literal: lit,
			Probe: "Which CI build showed the flaky failure?", Expect: fmt.Sprintf("build %d (%s)", n, ci),
			Say:  pick(p.r, []string{"It failed in " + lit + ".", "The flake shows up in " + lit + ".", "Look at " + lit + " for the failure."}),
			Role: pick(p.r, []string{"user", "assistant"}),
			Para: [2]string{
				fmt.Sprintf("Flaky failure seen in %s run %d.", ci, n),
				fmt.Sprintf("The flaky failure appeared in %s, run number %d.", ci, n)},
			Inverted:       fmt.Sprintf("The flaky failure appeared in %s run %d.", ci, n-1),
			InvertedAnswer: fmt.Sprintf("build %d (%s)", n-1, ci),
			Subject:        "the failing CI build"}
	},
	func(p picker) itemText {
		sha := fmt.Sprintf("%07x", p.r.Uint32()&0xfffffff)
		lit := "commit " + sha
		return itemText{Topic: "commit", Literal: lit,
			Probe: "Which commit introduced the regression?", Expect: sha,
			Say:  pick(p.r, []string{"Bisect points at " + lit + ".", "The regression came in with " + lit + ".", "git bisect says " + lit + " is the first bad one."}),
			Role: "assistant",
			Para: [2]string{
				fmt.Sprintf("Regression bisected to %s.", sha),
				fmt.Sprintf("Bisecting blamed %s for the regression.", sha)},
			Inverted:       "The regression predates the last release and was not bisected.",
			InvertedAnswer: "none — the context says it was not bisected",
			Subject:        "the bisected commit"}
	},
	func(p picker) itemText {
		f, line := p.file(), between(p.r, 40, 900)
		lit := fmt.Sprintf("%s:%d", f, line)
		return itemText{Topic: "line:" + f, Literal: lit,
			Probe: "Where is the off-by-one?", Expect: fmt.Sprintf("%s, line %d", f, line),
			Say:  pick(p.r, []string{"Found the off-by-one at " + lit + ".", "The off-by-one is at " + lit + "."}),
			Role: "assistant",
			Para: [2]string{
				fmt.Sprintf("Off-by-one located: line %d of %s.", line, f),
				fmt.Sprintf("The off-by-one sits at line %d in %s.", line, f)},
			Inverted:       fmt.Sprintf("The off-by-one is at line %d of %s.", line+12, f),
			InvertedAnswer: fmt.Sprintf("%s, line %d", f, line+12),
			Subject:        "the location of the off-by-one"}
	},
	func(p picker) itemText {
		d, n := p.pick(dashboard), between(p.r, 2, 14)
		lit := fmt.Sprintf("the %s dashboard, panel %d", d, n)
		return itemText{Topic: "dashboard", Literal: lit,
			Probe: "Which dashboard panel shows the latency spike?", Expect: fmt.Sprintf("%s dashboard, panel %d", d, n),
			Say:  pick(p.r, []string{"The spike is visible on " + lit + ".", "Watch " + lit + " while it deploys."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Spike visible on %s (panel %d).", d, n),
				fmt.Sprintf("Panel %d of the %s board shows the spike.", n, d)},
			Inverted:       fmt.Sprintf("The spike is on the %s dashboard, panel %d.", d, n+3),
			InvertedAnswer: fmt.Sprintf("%s dashboard, panel %d", d, n+3),
			Subject:        "where the spike is visible"}
	},
	func(p picker) itemText {
		a, b := between(p.r, 2, 9), between(p.r, 1, 12)
		lit := fmt.Sprintf("runbook section %d.%d", a, b)
		return itemText{Topic: "runbook", Literal: lit,
			Probe: "Which runbook section covers the rollback?", Expect: fmt.Sprintf("section %d.%d", a, b),
			Say:  pick(p.r, []string{"Rollback steps are in " + lit + ".", "If it goes wrong, follow " + lit + "."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Rollback: see §%d.%d of the runbook.", a, b),
				fmt.Sprintf("The rollback procedure is §%d.%d in the runbook.", a, b)},
			Inverted:       fmt.Sprintf("The rollback procedure is §%d.%d in the runbook.", a+1, b),
			InvertedAnswer: fmt.Sprintf("section %d.%d", a+1, b),
			Subject:        "the rollback procedure"}
	},
	func(p picker) itemText {
		snap := fmt.Sprintf("stg-2026-%02d-%02d", between(p.r, 1, 3), between(p.r, 1, 28))
		lit := "snapshot " + snap
		return itemText{Topic: "snapshot", Literal: lit,
			Probe: "Which database snapshot are the tests seeded from?", Expect: snap,
			Say:  pick(p.r, []string{"Seed the test database from " + lit + ".", "Use " + lit + " for the fixtures."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Test DB seeded from %s.", snap),
				fmt.Sprintf("Tests load the %s staging copy.", snap)},
			Inverted:       "Tests seed from the latest nightly dump.",
			InvertedAnswer: "the latest nightly dump",
			Subject:        "the test data source"}
	},
	func(p picker) itemText {
		n := between(p.r, 1000, 9999)
		lit := fmt.Sprintf("bench baseline run %d", n)
		return itemText{Topic: "bench", Literal: lit,
			Probe: "Which benchmark run is the baseline?", Expect: fmt.Sprintf("run %d", n),
			Say:  pick(p.r, []string{"Compare against " + lit + ".", "Use " + lit + " as the reference."}),
			Role: pick(p.r, []string{"user", "assistant"}),
			Para: [2]string{
				fmt.Sprintf("Benchmarks compare with baseline %d.", n),
				fmt.Sprintf("Benchmark comparisons use run %d as the baseline.", n)},
			Inverted:       fmt.Sprintf("Benchmarks compare with baseline %d.", n+40),
			InvertedAnswer: fmt.Sprintf("run %d", n+40),
			Subject:        "the benchmark baseline"}
	},
	func(p picker) itemText {
		doc, sec := p.pick(docFiles), between(p.r, 2, 11)
		lit := fmt.Sprintf("%s §%d", doc, sec)
		return itemText{Topic: "doc:" + doc, Literal: lit,
			Probe: "Which section of which document specifies the behaviour?", Expect: fmt.Sprintf("%s, section %d", doc, sec),
			Say:  pick(p.r, []string{"The behaviour is specified in " + lit + ".", "Spec is " + lit + "; follow it."}),
			Role: "user",
			Para: [2]string{
				fmt.Sprintf("Spec: section %d of %s.", sec, doc),
				fmt.Sprintf("Section %d of %s defines the expected behaviour.", sec, doc)},
			Inverted:       fmt.Sprintf("Section %d of %s defines the expected behaviour.", sec+1, doc),
			InvertedAnswer: fmt.Sprintf("%s, section %d", doc, sec+1),
			Subject:        "the specification"}
	},
}

// bumpKey returns another ticket key of the same project.
func bumpKey(key string) string {
	i := strings.LastIndexByte(key, '-')
	var n int
	fmt.Sscanf(key[i+1:], "%d", &n)
	return fmt.Sprintf("%s-%d", key[:i], n+1)
}
