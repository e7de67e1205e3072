package main

import (
	"fmt"
	"strings"
)

// This file holds the templates of commitments: what the assistant says
// it will do.

// commitmentTemplates are the templates of class commitment.
var commitmentTemplates = []func(p picker) itemText{
	func(p picker) itemText {
		br := p.pick(branches)
		return itemText{Topic: "prbranch",
			Literal: "I'll open the PR against " + br + ", not main",
			Probe:   "Which branch should the PR target?", Expect: br,
			Para: [2]string{
				fmt.Sprintf("PR to target %s (not main).", br),
				fmt.Sprintf("The pull request will go to %s rather than main.", br)},
			Inverted:       "The PR will be opened against main.",
			InvertedAnswer: "main",
			Subject:        "which branch the PR targets"}
	},
	func(p picker) itemText {
		bug, f := p.pick(bugs), p.file()
		return itemText{Topic: "regression:" + f,
			Literal: "I'll add a regression test for " + bug + " before touching " + f,
			Probe:   fmt.Sprintf("What will the agent do before changing %s?", f), Expect: "add a regression test for " + bug,
			Para: [2]string{
				fmt.Sprintf("Plan: regression test for %s first, then edit %s.", bug, f),
				fmt.Sprintf("Before %s changes, a test reproducing %s gets written.", f, bug)},
			Inverted:       fmt.Sprintf("The agent will edit %s straight away and skip the regression test.", f),
			InvertedAnswer: fmt.Sprintf("nothing — it edits %s directly, no test first", f),
			Subject:        "any plan for a regression test"}
	},
	func(p picker) itemText {
		ep, ver := p.pick(endpoints), p.pick([]string{"4.2", "5.0", "3.18", "6.1", "2.9"})
		return itemText{Topic: "keepold:" + ep, Hedge: true,
			Literal: "I'll keep the old " + ep + " endpoint until the mobile app ships " + ver,
			Probe:   fmt.Sprintf("When will the old %s endpoint be removed?", ep), Expect: "not before the mobile app ships " + ver,
			Para: [2]string{
				fmt.Sprintf("Old %s stays up until mobile %s is out.", ep, ver),
				fmt.Sprintf("Removal of the old %s endpoint waits for the %s mobile release.", ep, ver)},
			Inverted:       fmt.Sprintf("The old %s endpoint is to be removed in this PR.", ep),
			InvertedAnswer: "now, in this PR",
			Subject:        "the fate of the old " + ep + " endpoint"}
	},
	func(p picker) itemText {
		return itemText{Topic: "migration-pr",
			Literal: "I'll put the schema migration in a separate PR",
			Probe:   "Will the schema migration ship in this PR?", Expect: "no — in a separate PR",
			Para: [2]string{
				"Schema migration to go out on its own PR.",
				"The migration is being kept out of this change and will follow separately."},
			Inverted:       "The schema migration is bundled into this PR.",
			InvertedAnswer: "yes — it ships in this PR",
			Subject:        "where the migration ships"}
	},
	func(p picker) itemText {
		doc := p.pick(docFiles)
		return itemText{Topic: "doc:" + doc,
			Literal: "I'll update " + doc + " once the benchmarks are in",
			Probe:   fmt.Sprintf("When will %s be updated?", doc), Expect: "after the benchmarks are in",
			Para: [2]string{
				fmt.Sprintf("%s gets updated after benchmarking.", doc),
				fmt.Sprintf("The %s update waits on the benchmark results.", doc)},
			Inverted:       fmt.Sprintf("%s has already been updated; no further change is planned.", doc),
			InvertedAnswer: "it is already done",
			Subject:        "updating " + doc}
	},
	func(p picker) itemText {
		th := p.pick(things)
		return itemText{Topic: "delete:" + th, Hedge: true,
			Literal: "I'll ask before deleting any " + th,
			Probe:   fmt.Sprintf("May the agent delete %s without asking?", th), Expect: "no — it will ask first",
			Para: [2]string{
				fmt.Sprintf("Deleting %s requires the user's confirmation.", th),
				fmt.Sprintf("The agent checks with the user before removing %s.", th)},
			Inverted:       fmt.Sprintf("The agent is cleared to delete stale %s on its own.", th),
			InvertedAnswer: fmt.Sprintf("yes — the context says it may delete %s", th),
			Subject:        "deleting " + th}
	},
	func(p picker) itemText {
		f := p.file()
		base := strings.TrimSuffix(lastElem(f), p.th.Lang.Ext)
		a, b := base+"_read"+p.th.Lang.Ext, base+"_write"+p.th.Lang.Ext
		return itemText{Topic: "split:" + f,
			Literal: "I'll split " + f + " into " + a + " and " + b,
			Probe:   fmt.Sprintf("How will %s be restructured?", f), Expect: "split into " + a + " and " + b,
			Para: [2]string{
				fmt.Sprintf("%s to become two files: %s (reads) and %s (writes).", f, a, b),
				fmt.Sprintf("The plan divides %s into a reading half, %s, and a writing half, %s.", f, a, b)},
			Inverted:       fmt.Sprintf("%s stays as a single file.", f),
			InvertedAnswer: "it is not restructured",
			Subject:        "restructuring " + f}
	},
	func(p picker) itemText {
		ver := fmt.Sprintf("%d.%d.0", between(p.r, 1, 7), between(p.r, 0, 19))
		return itemText{Topic: "version",
			Literal: "I'll bump the version to " + ver + " only in the release commit",
			Probe:   fmt.Sprintf("Where does the version bump to %s go?", ver), Expect: "only in the release commit",
			Para: [2]string{
				fmt.Sprintf("Version %s lands in the release commit, nowhere else.", ver),
				fmt.Sprintf("The %s version change is reserved for the release commit.", ver)},
			Inverted:       fmt.Sprintf("The version is bumped to %s in every commit of the branch.", ver),
			InvertedAnswer: "in every commit",
			Subject:        "the version bump"}
	},
	func(p picker) itemText {
		suite := p.pick(suites)
		return itemText{Topic: "suite",
			Literal: "I'll run the full " + suite + " suite before pushing",
			Probe:   "What will the agent run before pushing?", Expect: "the full " + suite + " suite",
			Para: [2]string{
				fmt.Sprintf("Run all %s tests prior to any push.", suite),
				fmt.Sprintf("Nothing is pushed until the complete %s tests have passed.", suite)},
			Inverted:       fmt.Sprintf("Pushing without the %s tests is fine; CI will run them.", suite),
			InvertedAnswer: "nothing — CI runs them",
			Subject:        "tests to run before pushing"}
	},
	func(p picker) itemText {
		fl := p.pick(flags)
		return itemText{Topic: "flag:" + fl, Hedge: true,
			Literal: "I'll leave " + fl + " behind the flag until QA signs off",
			Probe:   fmt.Sprintf("Will %s be enabled before QA signs off?", fl), Expect: "no",
			Para: [2]string{
				fmt.Sprintf("%s stays flagged off pending QA sign-off.", fl),
				fmt.Sprintf("Until QA approves, %s remains dark behind its flag.", fl)},
			Inverted:       fmt.Sprintf("%s ships enabled; QA sign-off is not needed.", fl),
			InvertedAnswer: "yes — it ships enabled",
			Subject:        "when " + fl + " is enabled"}
	},
	func(p picker) itemText {
		return itemText{Topic: "squash",
			Literal: "I'll squash the fixup commits before requesting review",
			Probe:   "What happens to the fixup commits before review?", Expect: "they get squashed",
			Para: [2]string{
				"Fixups to be folded into their parent commits before review.",
				"The branch will be tidied, fixups squashed, ahead of review."},
			Inverted:       "The fixup commits stay as they are for review.",
			InvertedAnswer: "they stay",
			Subject:        "the fixup commits"}
	},
	func(p picker) itemText {
		doc := p.pick(docFiles)
		return itemText{Topic: "p95:" + doc,
			Literal: "I'll post the p95 numbers in " + doc,
			Probe:   "Where will the p95 latency numbers be reported?", Expect: doc,
			Para: [2]string{
				fmt.Sprintf("p95 results go into %s.", doc),
				fmt.Sprintf("Latency percentiles (p95) are to be written up in %s.", doc)},
			Inverted:       "The p95 numbers will only be posted in the PR description.",
			InvertedAnswer: "the PR description",
			Subject:        "where latency numbers go"}
	},
	func(p picker) itemText {
		lib := p.pick(libs)
		ver := fmt.Sprintf("v%d.%d.%d", between(p.r, 1, 9), between(p.r, 0, 30), between(p.r, 0, 9))
		return itemText{Topic: "pin:" + lib,
			Literal: "I'll keep " + lib + " pinned at " + ver,
			Probe:   fmt.Sprintf("Which %s version will the change use?", lib), Expect: ver + ", pinned",
			Para: [2]string{
				fmt.Sprintf("%s stays locked to %s.", lib, ver),
				fmt.Sprintf("The %s dependency is held at %s.", lib, ver)},
			Inverted:       fmt.Sprintf("%s will be upgraded to its latest release.", lib),
			InvertedAnswer: "the latest release",
			Subject:        "the " + lib + " version"}
	},
}
