package selection

import (
	"regexp"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the agent's decisions that bind its later work without
// an "I'll": on real sessions an agent answering review comments or a
// person's suggestion mostly says what it leaves alone as a verdict —
// "Keep the current implementation as-is", "`cmd.Dir` skipped
// intentionally", "the suggestion for a custom UnmarshalJSON is
// overkill", "per the instructions I should create a new commit, not
// amend". A summary that drops one lets the agent redo what it decided
// against. Read on an assistant's sentence that is not a question, when
// propIWill finds no promise.

// propVerdict is a decision rule: the rule, the confidence of what it
// finds and the question it drafts: 0.55 unless said, a verdict that
// on the labelled sessions was an item about one time in two.
type propVerdict struct {
	propRule
	confidence float64
	probe      string
}

// The probes the decision rules draft.
const (
	propProbeKept    = "What did the assistant decide to keep as it is?"
	propProbeNotDone = "What did the assistant decide not to do?"
)

// propDecisions are the decision rules; the first that fires gives the
// candidate its rule, confidence and probe.
var propDecisions = []propVerdict{
	{propRule{name: "commitment/keep-decision", class: fixture.Commitment,
		re:      regexp.MustCompile(`^([^,;—–]{1,30}(, | - | — | – ))?(so |then |i think )?(leaving|keeping) (it|this|that|them|these|those|the [\w.-]+)( [\w.-]+)? (in place|as is|as-is|unchanged|alone|untouched|where (it|they) (is|are))\b`),
		example: "Leaving it in place is correct", nearMiss: "Leaving the office now"}, 0.7, propProbeKept},
	// A verdict to keep, leave or let something remain as it is, said
	// as an imperative or a decision ("**Leave as-is** - harmless",
	// "those should remain as-is since …"). Below the default cut: an
	// agent mostly says it of one option among those it offers the
	// person ("- **Keep as-is:** `checkpoint/` …", "or keep as-is for
	// accessibility") or of what a test checks ("… without our marker
	// left alone"), and over the labelled sets (each reader counted) it
	// was an item 4 times in 18.
	{propRule{name: "commitment/as-is", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(keep|leave|left|kept|remain|remains|stay|stays)\b( [^.?!]{0,40}?)? (as[- ]is|in place|alone|untouched)\b`),
		not:     regexp.MustCompile(`\b(is|are|was|were) (already )?(left )?in place\b|\breturns? [^.]{0,30}as[- ]is\b|\bused as[- ]is\b`),
		example: "Keep the current implementation as-is.", nearMiss: "Returns the string as-is if less than 3 chars."}, 0.45, propProbeKept},
	// Something not done on purpose: the agent decided against it.
	{propRule{name: "commitment/intentional", class: fixture.Commitment,
		re: regexp.MustCompile(`\b(intentionally|deliberately) (left|kept|skipped|not|omitted|unchanged)\b|\b(skipped|left|kept|omitted|unchanged|not changed|not fixed|not addressed) (intentionally|deliberately|on purpose)\b|\backnowledged as intentional\b`),
		// "let me reply to the intentionally skipped items" narrates
		// answering decisions made before.
		not:     regexp.MustCompile(`\b(reply|replies|respond|responding|answer)\b`),
		example: "`cmd.Dir` skipped intentionally", nearMiss: "I see there's an intentional difference"}, 0.55, propProbeNotDone},
	// A verdict that something needs no change: "the comment is fine
	// as-is", "the remaining usages are legitimate", "an intentional
	// trade-off", "not part of this change. Skip.", "Deferred — no
	// current callers", "so the existing `fileExists` is fine".
	{propRule{name: "commitment/no-change", class: fixture.Commitment,
		re: regexp.MustCompile(`\b(fine|ok|okay|correct|good) (as[- ]is|to keep|to leave)\b|\b(are|is) (all )?legitimate\b|\bintentional (trade-?off|design|choice|decision)\b|\bintentionally (correct|so|that way)\b|\bnot part of (this|the) (change|pr|task|scope|fix)\b|\b(current|existing) (\S+ ){1,3}(is|are) (already )?(fine|correct)\b|^(\*\*)?(deferred|won't fix|skipped|out of scope)(\*\*)? ?(—|–|-|:)`),
		// A verdict still to reach decides nothing: "let me check
		// whether the existing code is correct".
		not:     regexp.MustCompile(`\b(whether|check|verify|confirm)\b`),
		example: "Pre-existing code, not part of this change. Skip.", nearMiss: "The test is part of this change"}, 0.55, "What did the assistant decide needs no change?"},
	// A recommendation to keep what exists.
	{propRule{name: "commitment/keep-current", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(recommend|suggest|i'd go with) keeping\b|\bkeep(ing)? the (current|existing) (implementation|approach|behaviou?r|code|design|naming|pattern|structure|signature)\b`),
		example: "But I'd recommend keeping it", nearMiss: "keeping the current directory clean"}, 0.6, propProbeKept},
	// A suggestion declined as too much.
	{propRule{name: "commitment/declined", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(is|would be|seems|feels) (like )?(an? )?(overkill|not worth (it|the)|unnecessary complexity)\b`),
		example: "The Copilot suggestion for a custom `UnmarshalJSON` is overkill", nearMiss: "the overkill warning fired"}, 0.55, propProbeNotDone},
	// A standing rule the agent states for itself.
	{propRule{name: "commitment/self-rule", class: fixture.Commitment,
		re:      regexp.MustCompile(`\bper (the|your) instructions,? (i|we) (should|must|will|won't|need to)\b|^per your (dev |development )?(philosophy|workflow|conventions|preferences?)\b|\b(i|we) (should|must|will|won't|will not|shouldn't)\b[^.]{0,60}\b(going forward|from now on)\b`),
		example: "Actually wait — per the instructions I should create a new commit, not amend.", nearMiss: "the cleanup should handle this going forward"}, 0.6, "What rule did the assistant set itself for its later work?"},
	// A verdict that something needs no fix, or a change the agent
	// declines to make ("don't need fixing because they immediately
	// overwrite", "I wouldn't change it now that it's there").
	{propRule{name: "commitment/no-fix", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(don't|doesn't|do not|does not|won't|wouldn't) need (fixing|to be fixed|changing|to be changed|to change|a fix|any changes?)\b|\b(i|we) (wouldn't|won't|will not) (change|touch|fix) (it|this|that|them|these|those)\b|\bno (change|fix) (is )?needed\b`),
		not:     regexp.MustCompile(`\b(if|whether|unless)\b`),
		example: "The other two occurrences of this pattern (lines 228 and 331) don't need fixing", nearMiss: "Check whether the other two don't need fixing"}, 0.55, propProbeNotDone},
	// Work set aside for later: "But that's a separate PR.", "Future
	// tasks deferred to follow-up".
	{propRule{name: "commitment/defer", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(that's|that is|this is|it's|it is|belongs in|save (it|that|this) for|leave (it|that|this) for|deferred to|defer (it|that|this) to) (a |an )?(separate|follow-?up|future|later|another) (pr|pull request|change|task|ticket|issue|commit|branch)\b|\bdeferred to (a )?(follow-?up|later|a later)\b`),
		not:     regexp.MustCompile(`\b(in|from|on) (a|the) separate (pr|branch|commit)\b`),
		example: "But that's a separate PR.", nearMiss: "The fix landed in a separate PR."}, 0.55, propProbeNotDone},
	// Changes left out of the commit at hand on purpose.
	{propRule{name: "commitment/left-out", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(left|kept|leaving|keeping|leave|keep) (them |it |those |these |this |that )?out of (the|this) (commit|pr|change)\b|\b(were|was|are|is) not (included|committed|staged) (in|with) (the|this) (commit|pr)\b`),
		example: "are unrelated and were left out of the commit", nearMiss: "I left out a step in the commit message"}, 0.55, propProbeNotDone},
	// A decision to keep something, said with "I'll" when the reason
	// comes before: "Both functions are also used in `runSessionRaw`,
	// so I'll keep them."
	{propRule{name: "commitment/keep", class: fixture.Commitment,
		re:      regexp.MustCompile(`\b(so|therefore|then),? (i'll|i will|we'll|we will) keep (it|them|this|that|these|those|both)( as[- ]is| unchanged| in place)?$`),
		example: "Both functions are also used in `runSessionRaw`, so I'll keep them", nearMiss: "I'll keep them in mind"}, 0.6, propProbeKept},
	// A scope the agent sets for the change at hand.
	{propRule{name: "commitment/scope", class: fixture.Commitment,
		re:      regexp.MustCompile(`^(so |but )?(for|in) (this|the current) (pr|change|branch|commit),? (let me|i'll|i will|we'll|i'm going to) (\w+ )?(only|just)\b`),
		example: "For this PR, let me fix only the references in `mid_session_rebase_test.go`", nearMiss: "In this PR, the tests only cover the happy path"}, 0.55, "What scope did the assistant set for the change?"},
}

// propAgentDecision classifies an assistant sentence with no "I'll" in it: a
// decision of propDecisions, or nil. A question ("Should I leave it as
// is?") decides nothing.
func propAgentDecision(lit string) *propGuess {
	if strings.HasSuffix(strings.TrimSpace(lit), "?") {
		return nil
	}
	low := propNormalize(lit)
	for _, d := range propDecisions {
		if _, ok := propFires([]propRule{d.propRule}, low); ok {
			return &propGuess{class: fixture.Commitment, literal: lit, expect: lit, confidence: d.confidence, rule: d.name, probe: d.probe}
		}
	}
	return nil
}
