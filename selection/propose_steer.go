package selection

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposer's rule for a person steering the work.
// On real sessions the first prompt states the task, and what binds the
// agent's later work comes after it, in the person's follow-up messages:
// a correction, a choice among the agent's options, a design decision, a
// scope, an objection phrased as a question ("can't we get a hash from
// git instead of the content?"). Each session words them its own way, so
// cue words find few of them (propCues); what they share is their place.
// A follow-up message (turn 2 on, or at any turn a refusal's words or an
// answer to the agent's question) that no rule drew a constraint from,
// and that is not an acknowledgement, a request for information or
// pasted output, is proposed as one constraint: its first sentence that
// steers.
//
// On the labelled sessions about one typed message in five or six holds
// a constraint, and readers label about one in five of those this rule
// proposes (testdata/real/labels/README.md, "Blind set 6" and "After the
// blind sets"). Two kinds were right about two times in five or more and
// are proposed at DefaultMinConfidence: a sentence that words a standing
// want (propSteerStanding) and a refusal's words that direct
// (propRefusalDirects). The rest is below it, so `tally propose
// --min-confidence 0.4` trades precision for recall.

// propSteerConfidence is the steer rule's confidence.
const propSteerConfidence = 0.4

// propSteerStandingConfidence is the steer rule's confidence for a
// sentence that words a standing want (propSteerStanding) and for a
// refusal's words that direct (propRefusalDirects).
const propSteerStandingConfidence = 0.5

var (
	// propSteerAck is a sentence that only assents or hands back: no
	// constraint in it.
	propSteerAck = regexp.MustCompile(`^((yes|yep|yeah|yup|ok|okay|sure|great|thanks|thank you|ty|perfect|nice|cool|good|awesome|excellent|lgtm|got it|makes sense|sounds good|looks good|agreed|right|correct|exactly|alright|go ahead|continue|proceed|do it|go on|carry on|keep going|please|pls|let's continue|let's do it|let's go|go for it|ship it)[\s.!,:;)]*)+$`)
	// propSteerChore is a short request for a routine step (commit,
	// push, run the tests, review) or a report of a failure ("tests are
	// failing", "we have merge conflicts"): the work at hand, not a way
	// of doing it.
	propSteerChore = regexp.MustCompile(`^((and|now|then|ok|okay|so|please|yes|yeah|let's|lets|can you|could you|pls)[,]? )*(commit|push|merge|pull|rebase|fix|run|review|build|deploy|test|retry|try again|redo|check|show|give me|create a pr|open a pr|raise a pr)\b[^,;]{0,30}$|^[^,;]{0,40}\b(is|are|still|keeps?)? ?(failing|fails|failed|broken|red|conflicts?|conflix|failz)( now| again| on ci| on the pr)?$`)
	// propSteerDirective marks a sentence that asks for or decides
	// something ("I'd like all those assertions replaced …", "do we need
	// all that logic duplicated?"): the message's sentence to propose
	// over an opening remark ("OK, that's part of it").
	propSteerDirective = regexp.MustCompile(`\b(i|we) (want|need|would like|prefer|don't want)\b|\b(i|we)'d (like|prefer|rather)\b|\b(should|shouldn't|must|instead|rather|let's|please|make sure|don't|do not|never|always|only)\b|^(can|could|would) (we|you)\b|^do we (need|want|have to|really)\b|\b(why not|can't we|couldn't we)\b`)
	// propSteerStanding marks a sentence that words a want or a rule
	// that outlasts the step at hand: the person's wish ("I do also
	// want to send the flags"), a rule's modal or adverb ("there should
	// be only one way", "we always want a valid id"), a contrast
	// ("instead of linked if-else", "not you adding that"), or an
	// objection put as a question ("why not add it to .gitignore?", "is
	// there any way to not repeat the whole error?").
	propSteerStanding = regexp.MustCompile(`\b(i|we) (really |do |do also |also |still )?(want|need|would like|prefer|don't want|expect)\b|\b(i|we)'d (like|prefer|rather|expect)\b|\b(should|shouldn't|must|mustn't|always|never|only|instead|rather than|make sure|not just|no need|careful|why not|can't we|couldn't we|not you|any (chance|way) (we|to))\b`)
	// propSteerAsks marks what reads as a standing want but is not one:
	// a question that asks the agent's view ("should we move it too?",
	// "what do I need to test manually?", "why do you think …?"), a
	// regret ("I should have mentioned this earlier").
	propSteerAsks = regexp.MustCompile(`^(should|shouldn't) (we|i|it|this|that|these|those|there|all)\b.*\?$|\b(what|how much|how many) (do|does|should|would)\b|\bwhy do you think\b|\b(should|shouldn't|must) have\b`)
	// propSteerContrast is a standing want's contrast, which holds in a
	// question too: "should it be for all tests, not just integration
	// tests?".
	propSteerContrast = regexp.MustCompile(`\b(instead|rather than|not just|why not|can't we|couldn't we)\b`)
	// propSteerSuggest marks a question that proposes rather than asks:
	// "why not …?", "can't we …?", "shouldn't it …?", "… instead?".
	propSteerSuggest = regexp.MustCompile(`\b(should|shouldn't|instead|rather|why not|can't we|couldn't we|wouldn't it|isn't it better|better|prefer|only|just|not|no need|don't|without|needed|necessary|really)\b`)
	// propSteerInfo opens a question asking for information.
	propSteerInfo = regexp.MustCompile(`^(what|what's|whats|where|where's|when|who|which|how|how's|is|are|does|did|do|was|were|has|have|had|am|any idea|why (is|are|does|did|was|were|do|has))\b|^(can|could|would) (you|u) (please )?(explain|tell|show|check|look|confirm|verify|summari[sz]e|list|find|see|describe|clarify|remind)\b`)
)

// steer proposes, for a person's follow-up message e that no rule drew a
// constraint from, one sentence that steers (propSteering): the first
// that asks for or decides something (propSteerDirective), else the
// first. A sentence that says again what an earlier constraint said, or
// that items from index from on already propose as an open question at
// DefaultMinConfidence or above, is passed over.
func (p *propProposer) steer(e propUtterance, from int) {
	lit := ""
	for _, s := range sentences(e.text) {
		if inReview(e.review, s) {
			continue
		}
		l, ok := propSteering(s, e.refusal)
		// An earlier constraint said again (half its content words, as
		// for a "don't forget") is no new request.
		if words := propContentWords(l); len(words) >= 2 && p.restated(words, 0.5) {
			continue
		}
		if !ok || p.covered(from, l) {
			continue
		}
		if lit == "" {
			lit = l
		}
		// A refusal's imperative ("Make the impl that works same for
		// both agents") says what to do, as a directive does; a routine
		// step ("Try again.") does not outrank what came before it.
		if low := propNormalize(l); propSteerDirective.MatchString(low) || e.refusal && propRefusalDirects(l) && !propSteerChore.MatchString(low) {
			lit = l
			break
		}
	}
	if lit != "" {
		probe := propSteerProbe(lit, e.refusal)
		// The rule names where the words were typed: a prompt, a
		// refused tool call, an answer to the agent's question.
		rule := "constraint/steer"
		switch {
		case e.refusal:
			rule += "/refusal"
		case e.reply:
			rule += "/answer"
		}
		p.add(e, propGuess{class: fixture.Constraint, literal: lit, confidence: propSteerConfidenceOf(lit, e.refusal), rule: rule, probe: probe, expect: "yes"})
	}
}

// propSteerConfidenceOf is the steer rule's confidence in literal lit,
// typed to refuse a tool call when refusal: propSteerStandingConfidence
// when lit words a standing want (propSteerStanding, read without an
// epistemic "should" or an explaining "instead") and does not only
// ask the agent's view or regret (propSteerAsks) unless it sets a
// contrast (propSteerContrast), or when a refusal's words direct
// (propRefusalDirects); else propSteerConfidence.
func propSteerConfidenceOf(lit string, refusal bool) float64 {
	low := propNormalize(lit)
	want := propWantText(low)
	if propSteerStanding.MatchString(want) && (!propSteerAsks.MatchString(low) || propSteerContrast.MatchString(want)) ||
		refusal && propRefusalDirects(lit) {
		return propSteerStandingConfidence
	}
	return propSteerConfidence
}

// propRefusalDirects reports whether lit, words a person typed to stop
// a tool call, says what to do instead — a directive
// (propSteerDirective), an imperative or a "no" first ("pull rebase
// first", "no, I did not say commit anything"), or a fragment of three
// words or fewer with no verb of state ("too slow.", "branch and PR.") —
// rather than reporting what the person sees ("main is clean", "I'm
// running it after a build"). On the labelled sessions about three in
// five of the first held a constraint, and few of the second.
func propRefusalDirects(lit string) bool {
	low := propNormalize(lit)
	if strings.HasSuffix(low, "?") {
		return false
	}
	return propSteerDirective.MatchString(low) || propRefusalImperative.MatchString(low) ||
		len(strings.Fields(low)) <= 3 && !propRefusalState.MatchString(low)
}

var (
	// propRefusalImperative opens a refusal's words that direct.
	propRefusalImperative = regexp.MustCompile(`^(no|nope|don't|do not|never|stop|skip|pull|merge|rebase|use|make|keep|leave|just|only|add|remove|revert|undo|move|rename|put|write|ask|commit|push)\b`)
	// propRefusalState is a verb of state or report: a refusal's words
	// that say what is, not what to do.
	propRefusalState = regexp.MustCompile(`\b(is|are|was|were|am|i'm|it's|we're|they're|have|has|had|i've|we've|do|does|did|see|seems?|looks?)\b`)
)

// propSteering reports whether a person's sentence s steers the work —
// prose (propProseSentence), not an acknowledgement, not a request for
// information, not a reminder of something said before (the restatement
// signal's cues) — and its literal, without list marker or final stop.
// In words typed to refuse a tool call (refusal) two words steer ("too
// slow.") and so does a routine step ("pull rebase first"): the person
// stopped the agent to say it.
func propSteering(s string, refusal bool) (string, bool) {
	_, body := propLeadIn(s)
	lit := strings.TrimRight(strings.TrimSpace(propListMarker.ReplaceAllString(body, "")), ". ")
	low := propNormalize(lit)
	minWords := 3
	if refusal {
		minWords = 2
	}
	if utf8.RuneCountInString(lit) < 6 || len(strings.Fields(lit)) < minWords || strings.HasSuffix(lit, ":") || !propProseSentence(lit) ||
		propSteerAck.MatchString(low) || propTransient.MatchString(low) || (!refusal && propSteerChore.MatchString(low)) {
		return "", false
	}
	if strings.HasSuffix(lit, "?") && propSteerInfo.MatchString(propInterjection.ReplaceAllString(low, "")) && !propSteerSuggest.MatchString(low) {
		return "", false
	}
	if cue := cueOf(normaliseText(s)); cue != "" && cue != "don't forget" && cue != "remember to" {
		return "", false
	}
	return lit, true
}

// covered reports whether an item from index from on already stands for
// lit: an open question at DefaultMinConfidence or above that is lit, or
// a reference named in lit when lit asks for and decides nothing
// ("rollback steps are in runbook section 9.4": the reference is the
// item; "rebase onto soph/one-to-one instead of main" steers).
func (p *propProposer) covered(from int, lit string) bool {
	for _, it := range p.items[from:] {
		switch {
		case it.Class == fixture.OpenQuestion && it.Confidence >= DefaultMinConfidence && (strings.Contains(it.Literal, lit) || strings.Contains(lit, it.Literal)):
			return true
		case it.Class == fixture.Reference && strings.Contains(lit, it.Literal) && !propSteerDirective.MatchString(propNormalize(lit)):
			return true
		}
	}
	return false
}

// propSteerProbe drafts the steer rule's probe for literal lit, worded
// for what the sentence is: a question the person asked ("should we
// move it too?"), a request or decision ("can we refactor that too?",
// propSteerDirective), or
// a report of what the person sees ("running the tests shows errors").
// In words typed to refuse a tool call, words that direct
// (propRefusalDirects) are a request ("too slow.").
// A review of the drafted probes on 15 sessions found questions and
// reports drafted as requests 61 times in 361.
func propSteerProbe(lit string, refusal bool) string {
	switch low := propNormalize(lit); {
	case propSteerPolite.MatchString(low):
		return "Does this request from the user still hold: " + propQuote(lit) + "?"
	case propSteerHowAbout.MatchString(low):
		// "How about instead …?" proposes; it asks nothing (a new
		// user's trial found it probed as a question raised).
		return "Did the user suggest this, which later work must respect: " + propQuote(lit) + "?"
	case strings.HasSuffix(strings.TrimSpace(lit), "?") || propInterrogative.MatchString(low) && !strings.HasPrefix(low, "and ") && !strings.HasPrefix(low, "or "):
		// Whether it was asked, not whether it still holds: an answer
		// or a fix in the summary does not contradict it
		// (propObjectionProbe).
		return "Did the user raise this question, which later work must respect: " + propQuote(lit) + "?"
	case propSteerDirective.MatchString(low) || propImperative.MatchString(low) || propRefusalImperative.MatchString(low) || propSteerVerbFirst.MatchString(low) || refusal && propRefusalDirects(lit):
		return "Does this request from the user still hold: " + propQuote(lit) + "?"
	default:
		return "Did the user say this, which later work must respect: " + propQuote(lit) + "?"
	}
}

// propSteerHowAbout opens a suggestion put as a question: "how about …",
// "what about … instead".
var propSteerHowAbout = regexp.MustCompile(`^((yes|yeah|ok|okay|so|and|then|hmm|or)[,.]? )*(how about\b|what about\b.*\binstead\b)`)

// propSteerPolite opens a request put as a question: "can you …", "could
// we …".
var propSteerPolite = regexp.MustCompile(`^((yes|yeah|ok|okay|so|and|then|now|also)[,.]? )*(can|could|would|will) (you|we|u) `)

// propSteerVerbFirst opens an imperative: a verb of work first, after an
// assent or a connective ("yes, force push", "then commit", "create a
// new worktree").
var propSteerVerbFirst = regexp.MustCompile(`^((yes|yeah|ok|okay|sure|and|then|so|now|also|pls)[,.]? )*(lets|add|create|update|run|commit|push|fix|remove|delete|rename|move|change|make|use|write|file|open|close|check|test|try|continue|complete|do|implement|refactor|drop|revert|merge|rebase|pull|sort|group|print|show|respond|reply|address|adress|document|clean|split|extract|replace|simplify|finish|go|start|stop|wait|force)\b`)

// ruleSince reports whether a constraint was proposed at or after index
// from of items: a message a constraint rule read. (A reference in it
// does not count — "rebase onto soph/one-to-one, not main" names a
// branch and steers — nor an open question: "can't we get a hash from
// git instead?" asks and objects — nor a pick among the agent's options,
// which the words after it often explain: "I like Option 1 …; in this
// repo we want to commit the local-dev state".)
func (p *propProposer) ruleSince(from int) bool {
	for _, it := range p.items[from:] {
		if it.Class == fixture.Constraint && it.Rule != "constraint/cue/pick" {
			return true
		}
	}
	return false
}
