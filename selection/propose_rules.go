package selection

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposal rules for constraints, commitments and
// open questions (the references are in propose_references.go).

// propRule is one rule of the proposer's table: a name (the rule a
// candidate carries), the class it proposes, the pattern it looks for in
// a normalised sentence (lower case, straight apostrophes), and a test
// case: an example it must fire on and a near miss it must not
// (TestProposeRuleTable runs both).
type propRule struct {
	name     string
	class    fixture.Class
	re       *regexp.Regexp
	example  string
	nearMiss string
	// not, when set, vetoes a match: the sentence matches it too.
	not *regexp.Regexp
}

// propFires reports whether any of rules matches the normalised sentence
// low, and the first that does.
func propFires(rules []propRule, low string) (propRule, bool) {
	for _, r := range rules {
		if r.re.MatchString(low) && (r.not == nil || !r.not.MatchString(low)) {
			return r, true
		}
	}
	return propRule{}, false
}

// The constraint rules, read on a person's sentence that is not a
// question, after its lead-in and list marker. A prohibition forbids; an
// obligation binds from now on. A one-off request ("we need to add a
// test", "fix the build") is neither.
var (
	propProhibitions = []propRule{
		// "never" or "don't" opening a clause (an imperative), or a
		// negative modal; "the hook never writes to stdout" and "I don't
		// see it" describe and are no prohibition.
		{"prohibition/never", fixture.Constraint, regexp.MustCompile(`(^|[,;:(] ?|\b(please|also|and|so|just|then|oh|pls|plz) )(never|don't|do not)\b|\b(must not|mustn't|must never|should not|shouldn't|should never|(you|we|it|they) may not|(you|we) (cannot|can't|can not)|not allowed to)\b`),
			"never commit to main", "the stop hook currently never writes to stdout",
			// Not a negative modal inside a condition ("if we can't
			// determine the shell, print a warning"), nor a permission
			// ("don't worry about linting for now").
			regexp.MustCompile(`\bshould(n't| not) be (too|that|so|very|much|a problem|an issue|hard|difficult)\b|\b(don't|do not) (we|you|i|they)\b|\b(if|when|whenever|unless|whether|in case) (we|you) (cannot|can't|can not)\b|\b(don't|do not) worry\b`)},
		{"prohibition/no", fixture.Constraint, regexp.MustCompile(`(^|[,;] )no [\w-]+( [\w-]+)? (in|to|on|into|for|until|before|without|anywhere|ever|allowed|please)\b`),
			"no force-pushes to develop", "I've still got a shadow, no condensation commit", nil},
		{"prohibition/avoid", fixture.Constraint, regexp.MustCompile(`^(avoid|skip|stop \w+ing)\b|[,;] (avoid|skip)\b`),
			"skip 5, 7, 8 and do the rest", "stop hook says nothing", nil},
		{"prohibition/not-wanted", fixture.Constraint, regexp.MustCompile(`\b(is|are|'s|'re) not (great|good|helpful|useful|needed|necessary|wanted|ideal|expected)\b|\bnot a good idea\b|\bdoesn't make sense to\b|\b(we|you) don't need\b|\bno need to\b|\b(is|are|'s|'re) no good\b|\b(we|i|you) (might|may|probably|really|just) (not|don't|do not) want\b|\b(we|i) (don't|do not) want (to|it|this|that|the|any)\b`),
			"panics in code are not great either", "is the test not failing", nil},
		// A person setting work aside: skipping, ignoring, deferring, or
		// moving it to another PR, commit or task ("let's do this as a
		// separate PR"): the agent must not do it here.
		{"prohibition/defer", fixture.Constraint, regexp.MustCompile(`(^|[,;] )(ignore|hold off|defer|postpone|leave out|set aside) (the|this|that|it|for|on|until|[\w-]+ing)\b|\b(let's|we can|we'll|we should|i'd|let us) (skip|ignore|defer|postpone|hold off|leave (that|this|it) (for|out))\b|\b(in|as|into|for|to|with) (a |an )?(separate|another|different|its own|follow-?up|later) (pr|pull request|mr|commit|task|issue|ticket|branch|change|session|step|iteration)\b`),
			"let's do this as a separate PR", "I merged another PR yesterday", nil},
		// A dislike or preference stated by the person: a standing
		// judgement on how the work should look.
		{"prohibition/dislike", fixture.Constraint, regexp.MustCompile(`\bi (really |just )?(don't|do not)( really| quite| particularly| much)? (like|love|want)\b|\bi (hate|dislike)\b|\bi('d| would) (rather|prefer)( not)?\b|\bi prefer\b`),
			"I don't like turn as a label", "do you like it?", nil},
	}
	propObligations = []propRule{
		{"obligation/always", fixture.Constraint, regexp.MustCompile(`^(always|only)\b|\balways (run|use|check|keep|ask|test|push|commit|make|write|add)\b|([,;:] |\b(and|but|then|so|please|just) )always [a-z]*[a-rt-z]\b`),
			"always run specs locally before push", "it always fails on CI", nil},
		{"obligation/keep", fixture.Constraint, regexp.MustCompile(`^(keep|leave|stick to|pin|limit|target|preserve|make sure|ensure)\b|\b(i'd|i would|let's|we should|we'll|we will|please) (keep|leave|stick to|preserve)\b|(^|[,;:] |\b(and|also|please|but|always|need to|let's|lets) )make sure\b|\b(keep|leave) (it|this|that|them|these|those|the [\w.-]+)( [\w.-]+)? (as is|as-is|unchanged|alone|the same|untouched|in place)\b`),
			"keep all the color changes we made", "update the documentation make sure it reads well", nil},
		{"obligation/use", fixture.Constraint, regexp.MustCompile(`^use \S+(, not|,? instead of|,? rather than)\b|^use \S+ (for|to|when|with)\b`),
			"use pnpm, not npm, for installs", "use it", nil},
		{"obligation/scope", fixture.Constraint, regexp.MustCompile(`\bonly (for|in|on|to|when|if|touch|change|modify|use)\b|\b(we|you) should (always|at least|never|not|only|still|keep)\b`),
			"make a plan to fix that path only for gemini sessions", "it only took a minute", nil},
		{"obligation/test-first", fixture.Constraint, regexp.MustCompile(`\b(write|add) (a |the )?(failing )?tests? first\b|\btests? first\b|\btdd\b|\b(which|that) should fail\b|\bshould fail (right )?now\b|\b(tests?|specs?) (that|which) [^.]*\bfails?\b[^.]*\b(before|first|without)\b|\bfails? (first|before (the |you |we )?(fix|fixing|chang|implement))|\breproduc\w* (it|this|the (bug|issue|problem)) (in|with) a (failing )?test\b|\bred[- ]green\b`),
			"create a test that checks it and fails before fixing it", "the first test failed", nil},
		// The person reserving work for themself ("I'll do it.", "I'll
		// handle it over there"): the agent must leave it.
		{"obligation/person-does", fixture.Constraint, regexp.MustCompile(`(^|[,;] )(i'll|i will|i'm going to|i can) (do|handle|take care of|push|merge|deal with|release|deploy) (it|that|this|them|those|the rest)\b`),
			"write a comment in #172, I'll handle it over there", "I'll be back in an hour", nil},
		// The person's stated intent for a behaviour ("the idea is that
		// …"): it fixes what the change must do.
		{"obligation/intent", fixture.Constraint, regexp.MustCompile(`^(so |but |and )?the (whole )?(idea|point|goal|intent|intention|purpose) (is|was|here is) (that|to|for)\b`),
			"the idea is that I continue a prior session from another device", "what is the idea behind it", nil},
		// An order of work the person sets ("the standalone skill first,
		// then …").
		{"obligation/order", fixture.Constraint, regexp.MustCompile(`\bfirst, (then|and then|after that|later)\b|\b(before|only after) (we|you) (merge|ship|release|push|wire|integrate)\b`),
			"maybe the standalone skill first, then we can figure out how to wire it in", "first I looked at the logs", nil},
		{"obligation/must", fixture.Constraint, regexp.MustCompile(`\b(must|has to|have to|is required|are required|required to)\b|\b(we|i) (do |really |still |also )?need to (use|keep|support|preserve|follow|stay|go through)\b`),
			"tests must not hit the network", "mustard on the side", nil},
		{"obligation/should", fixture.Constraint, regexp.MustCompile(`^((yes|yeah|yep|no|nope|ok|okay|right|sure|correct|exactly|agreed)[,.!]? )?(the|all|every|each|our|these|those|this|that|it|they|for [^,]+, (the|all|every|our))\b[^?]*\bshould (be|check|use|go|stay|show|only|always|never|not|follow|still|remain|keep)\b`),
			"the test should check the content of CLIVersion", "I think it should work", nil},
		{"obligation/norm", fixture.Constraint, regexp.MustCompile(`\b(follow|follows|go through|goes through) [a-z]+ [a-z]+`),
			"commit messages follow Conventional Commits", "I can go through that list",
			regexp.MustCompile(`\b(i|we|you|let's|can|could|will|would|to|'ll|'d) (follow|go through)\b|\bfollows? up\b`)},
	}
	// propObjections are a person's questions that state a constraint:
	// an objection the agent is then held to ("should we dry-run by
	// default?", "… so we would need to add it just for that?"), an
	// order of work proposed as a question. Read only on questions
	// (objection); 0.7, above an open question's 0.65 for one sign of a
	// pending decision and below its 0.8 for two, except for a default.
	propObjections = []propRule{
		{"objection/default", fixture.Constraint, regexp.MustCompile(`\b(should|shouldn't|shall|can|could|would) (we|it|this|that|the [\w-]+) [^?]*\bby default\b|\bdefault(s)? to\b[^?]*\binstead\b`),
			"should we dry-run by default?", "what is the default timeout?", nil},
		{"objection/just-for", fixture.Constraint, regexp.MustCompile(`\bjust (for|to do) (that|this|it)\?$|\b(do|would|should) we (really|even|actually) (need|want)\b|\bdo we need\b[^?]*\b(at all|to be duplicated|twice)\b|\b(copied|duplicated|repeated) (multiple|several|many) times\b|^(shouldn't|wouldn't|isn't|aren't|doesn't|don't) (we|it|this|that|you)\b[^?]*\b(instead|rather|better|enough)\b`),
			"we don't have an option to skip the hooks, so we would need to add it just for that?", "can you do it just for me?", nil},
		{"objection/order", fixture.Constraint, regexp.MustCompile(`\bfirst, (then|and then|after that|later)\b`),
			"maybe the standalone skill first, then we can figure out how to wire it in?", "what did you do first?", nil},
		// A question that objects by its form: a negative auxiliary
		// ("doesn't git know if it's a binary file?"), a lapse put as a
		// question ("we didn't write any tests?"), a problem stated and
		// checked ("the issue is that …, right?").
		{"objection/negative", fixture.Constraint, regexp.MustCompile(`^((question|hmm+|but|so|and|also|ok|okay|wait|hm)[:,]? )*(doesn't|isn't|aren't|don't|didn't|shouldn't|wouldn't|can't|won't) (we|it|this|that|you|git|the|there|they)\b`),
			"doesn't git know if it's a binary file?", "does git know if it's a binary file?", nil},
		{"objection/lapse", fixture.Constraint, regexp.MustCompile(`^((but|so|and|hmm+|wait)[:,]? )*(we|you) (didn't|haven't|never|did not|have not|forgot to) \w+`),
			"we didn't write or change any tests?", "did we write tests?", nil},
		{"objection/problem", fixture.Constraint, regexp.MustCompile(`^((but|so|and|hmm+)[:,]? )*(the|one|my) (issue|problem|catch|concern) (is|here is|was)\b`),
			"the issue is that this only works if the user has access to the upstream repo, right?", "what is the issue?", nil},
		// A belief checked with a tag question ("but while that test
		// runs my git config is messed up, right?") is mostly a worry
		// the agent answers: 0.4 (propObjectionConfidence).
		{"objection/right", fixture.Constraint, regexp.MustCompile(`\b(only|not|no|still|but) [^?]*, right\?$`),
			"but that would now still just make the hook visibly fail, right?", "that's right?", nil},
		// A request that sets a lasting property of the work ("can we
		// fix it that it keeps using the old state file?", "… so we are
		// always using the latest code?", "can we rebase onto X instead
		// of main?"): the property binds later work; 0.55
		// (propObjectionConfidence).
		{"objection/lasting-request", fixture.Constraint, regexp.MustCompile(`^(can|could) (we|you) [^?]*\b(keeps? (using|working|reading|writing)|always|only|limit|never|without|instead of|rather than)\b`),
			"can you limit that more to have only access to that specific branch somehow?", "can you check the logs?",
			// Asking the agent to find something out sets nothing
			// ("can you check if … a https url instead of a git url?").
			regexp.MustCompile(`^(can|could) (you|we) (please )?(check|verify|confirm|see|look|find out|investigate|search|test)\b`)},
	}
	// propObjectionConfidence is an objection rule's confidence where it
	// is not objection()'s 0.7.
	propObjectionConfidence = map[string]float64{"objection/default": 0.85, "objection/lasting-request": 0.55, "objection/right": 0.4}
	propRestatement         = regexp.MustCompile(`^(i said|i've said|i have said|again[:,]|(don't|do not) forget[:,]|as i (mentioned|said|told you)|reminder[:,]|i already (told|said)|like i said|once more[:,]|please remember|remember[:,]|to repeat|i told you)`)
	propTransient           = regexp.MustCompile(`^(keep (going|at it|it up|me (posted|updated|in the loop)|on)|leave it (there|for now|as is))\b|^no (wait|worries|problem|idea|thanks|need)\b`)
	propRuleLead            = regexp.MustCompile(`\b(rule|rules|requirement|constraint|policy|important|before you start|keep (this )?in mind|non-negotiable|heads up|must)\b`)
	propListMarker          = regexp.MustCompile(`^(?:[-*•] |\d+[.)] )\s*`)
)

// constraint classifies a person's sentence that is not a question.
func (p *propProposer) constraint(s, lead, body string) *propGuess {
	if propRestatement.MatchString(propNormalize(s)) {
		return nil
	}
	lit := strings.TrimRight(propListMarker.ReplaceAllString(body, ""), ". ")
	if lead != "" && propPasted(lit) {
		// "ignore this error: cmd/hooks.go:332:2: missing cases …":
		// before pasted output the lead-in is what the person said.
		lit, lead = lead, ""
	}
	low := propNormalize(lit)
	if utf8.RuneCountInString(lit) < 8 || propTransient.MatchString(low) {
		return nil
	}
	if propWhStatement.MatchString(low) {
		return nil // a question without its "?"
	}
	words := propContentWords(lit)
	if len(words) >= 2 && !propReversal.MatchString(low) && p.restated(words, 0.6) {
		return nil // a restatement in other words
	}
	// The restatement signal's cues (cueOf): "you forgot", "I told you",
	// "as I said" … restate; "don't forget" and "remember to" restate
	// only what an earlier constraint said (half its words), else they
	// state a rule for the first time.
	if cue := cueOf(normaliseText(s)); cue != "" {
		if cue != "don't forget" && cue != "remember to" {
			return nil
		}
		if p.restated(words, 0.5) {
			return nil
		}
	}
	pr, prohibition := propFires(propProhibitions, low)
	ob, obligation := propFires(propObligations, low)
	ruleLead := lead != "" && propRuleLead.MatchString(propNormalize(lead))
	g := &propGuess{class: fixture.Constraint, literal: lit}
	kind := "obligation"
	if prohibition {
		kind = "prohibition"
	}
	switch {
	case (prohibition || obligation) && ruleLead:
		g.confidence, g.rule = 0.9, "constraint/lead-in+"+kind
	case (prohibition || obligation) && lead != "":
		g.confidence, g.rule = 0.8, "constraint/connective+"+kind
	case prohibition:
		g.confidence, g.rule = 0.7, "constraint/"+pr.name
	case obligation:
		g.confidence, g.rule = 0.6, "constraint/"+ob.name
	case ruleLead:
		g.confidence, g.rule = 0.6, "constraint/lead-in"
	default:
		c := propCue(lit)
		if c == nil {
			return nil
		}
		g.confidence, g.rule = c.confidence, c.rule
	}
	g.probe, g.expect = propConstraintProbe(lit, prohibition, propImperative.MatchString(low))
	if g.rule == "constraint/cue/want" {
		// "I want a notification if a review is pending" says how the
		// work must be: a requirement, not a rule.
		g.probe = "Does this requirement from the user still hold: " + propQuote(lit) + "?"
	}
	return g
}

// restated reports whether share or more of the content words words are
// those of a constraint proposed before: a restatement in other words.
func (p *propProposer) restated(words map[string]bool, share float64) bool {
	for _, c := range p.constraints {
		if propOverlap(words, c.words) >= share {
			return true
		}
	}
	return false
}

// propInterrogative opens a question proper: an auxiliary or a wh-word.
var propInterrogative = regexp.MustCompile(`^(can|could|would|will|should|shall|do|does|did|is|are|was|were|am|have|has|had|may|might|must|what|what's|why|how|how's|when|where|who|which|whose|isn't|aren't|don't|doesn't|didn't|shouldn't|wouldn't|can't|won't|any|anything|or|and)\b`)

// propDeclarative reports whether a sentence ending in "?" is a
// statement said with a rising tone: it opens with no auxiliary or
// wh-word ("I don't like turn, any other suggestions?"), after a list
// marker and a short interjection.
func propDeclarative(body string) bool {
	low := propNormalize(strings.TrimSpace(propListMarker.ReplaceAllString(body, "")))
	low = propInterjection.ReplaceAllString(low, "")
	return low != "" && !propInterrogative.MatchString(low) && !propRequest.MatchString(low)
}

// propInterjection is a short opening word of assent or hesitation.
var propInterjection = regexp.MustCompile(`^((yes|yeah|yep|no|nope|ok|okay|right|sure|hmm+|so|well|but|also|then|maybe|i mean)[,.!]? )+`)

// objection classifies a person's question that states a constraint
// (propObjections), 0.7 — 0.85 for a default the person proposes.
// propObjectionProbe drafts an objection's probe. It asks whether the
// person raised it, not whether it still holds: the agent mostly acts on
// an objection, and a summary that records the fix ("now one shared
// helper") would read as contradicting "does this objection still
// hold?" (a new user's trial found 8 such probes in 29 constraints).
func propObjectionProbe(lit string) string {
	return "Did the user raise this objection, which later work must respect: " + propQuote(lit) + "?"
}

func (p *propProposer) objection(s, body string) *propGuess {
	low := propNormalize(strings.TrimSpace(propListMarker.ReplaceAllString(body, "")))
	r, ok := propFires(propObjections, low)
	if !ok || propRestatement.MatchString(propNormalize(s)) {
		return nil
	}
	lit := strings.TrimSpace(propListMarker.ReplaceAllString(body, ""))
	g := &propGuess{class: fixture.Constraint, literal: lit, confidence: 0.7, rule: "constraint/" + r.name,
		probe: propObjectionProbe(lit), expect: "yes"}
	if c, ok := propObjectionConfidence[r.name]; ok {
		g.confidence = c
	}
	return g
}

// propWhStatement is a question typed without its "?" ("what happens
// currently when I have to …"): no rule.
var propWhStatement = regexp.MustCompile(`^(what|why|how|when|where|who|which) (happens|happened|is|are|was|were|do|does|did|would|should|can|could|will)\b`)

// propImperative is an opening obligation verb: its probe asks "Must the
// agent …?".
var propImperative = regexp.MustCompile(`^(always|only|keep|leave|use|target|stick to|make sure|ensure|pin|limit|preserve)\b`)

// propQuote is a person's words quoted in a probe, as said: first person
// stays theirs inside the quotes.
func propQuote(s string) string {
	return "“" + strings.TrimSpace(s) + "”"
}

var (
	propMustNot = regexp.MustCompile(`^(.+?) (must not|mustn't|may not|cannot|can't|should not|shouldn't) (.+)$`)
	propUserMe  = strings.NewReplacer(" me ", " the user ", " my ", " the user's ", " I ", " the user ", " I'm ", " the user is ", " mine ", " the user's ")
)

// propConstraintProbe drafts a constraint's probe and expected answer;
// imperative reports an opening obligation verb.
func propConstraintProbe(lit string, prohibition, imperative bool) (probe, expect string) {
	text := propLowerFirst(lit)
	low := propNormalize(text)
	clause := text
	if i := strings.IndexByte(text, ';'); i > 0 {
		clause = strings.TrimSpace(text[:i])
	}
	switch {
	case propPermission.MatchString(low):
		// "don't worry about linting for now": a leave, not a ban.
		return "Does this rule from the user still hold: " + propQuote(lit) + "?", "yes"
	case propNegativeOpen.MatchString(low) && propAndDo.MatchString(low):
		// "Don't touch the public API and keep using sqlx": "forbidden
		// to … and keep using sqlx?" would forbid what it asks for (a
		// new user's trial). Quoted as said, both halves hold.
		return "Does this rule from the user still hold: " + propQuote(lit) + "?", "yes"
	case strings.HasPrefix(low, "never "):
		probe, expect = "Is the agent forbidden to "+text[len("never "):]+"?", "yes"
	case strings.HasPrefix(low, "don't ") || strings.HasPrefix(low, "don’t "):
		_, rest, _ := strings.Cut(text, " ")
		probe, expect = "Is the agent forbidden to "+rest+"?", "yes"
	case strings.HasPrefix(low, "do not "):
		probe, expect = "Is the agent forbidden to "+text[len("do not "):]+"?", "yes"
	case prohibition && strings.HasPrefix(low, "no "):
		// Only a prohibition's "no": "no revert those changes" is "no,
		// revert them".
		probe, expect = "Does the user forbid "+text[len("no "):]+"?", "yes"
	case prohibition && propMustNot.MatchString(clause):
		m := propMustNot.FindStringSubmatch(clause)
		probe, expect = "May "+m[1]+" "+m[3]+"?", "no"
	case imperative:
		probe, expect = "Must the agent "+text+"?", "yes"
	default:
		// The person's words, quoted as said: a rewrite to "the user"
		// would leave "the user think" and "I'd" behind.
		return "Does this rule from the user still hold: " + propQuote(lit) + "?", "yes"
	}
	return strings.TrimSpace(propUserMe.Replace(" " + probe)), expect
}

var (
	// propNegativeOpen opens a ban the probe turns into "forbidden to".
	propNegativeOpen = regexp.MustCompile(`^(never|don't|don’t|do not) `)
	// propAndDo joins a positive instruction to a ban: "… and keep
	// using sqlx", "…, but use the helper".
	propAndDo = regexp.MustCompile(`(,| and| but|;) (please |just |instead |also )?(keep|use|make|add|run|write|leave|stick|follow|prefer|put|always|do|call|rely)\b`)
)

// propPermission opens a person's sentence that relieves the agent of
// something rather than forbids it.
var propPermission = regexp.MustCompile(`^(don't|don’t|do not) (worry|bother|stress|sweat)\b`)

var (
	// propNegatedWill is a refusal's auxiliary in propIWill's opening.
	propNegatedWill = regexp.MustCompile(`won't|won’t|will not`)
	propIWill       = regexp.MustCompile(`^(?:(?:[^,]{1,60})(?:, | - | — | – ))?(I'll|I’ll|I will not|I will|I won't|I won’t|I'm going to|I’m going to|I am going to|I plan to) (.+)$`)
	// propCommitments bind the assistant beyond the next step: a refusal
	// from now on, a condition or a later moment, a wait for the person.
	// "I'll read the file now", "Let me …" and "I'll start with …" narrate
	// the next step and match none.
	propCommitments = []propRule{
		{"commitment/refusal", fixture.Commitment, regexp.MustCompile(`\bi (won't|will not|will never|'ll never)\b`),
			"I won't amend commits going forward", "I'll fix what won't compile", nil},
		{"commitment/until", fixture.Commitment, regexp.MustCompile(`\b(until|unless|as soon as|once|only after|only (if|when) (you|we|it'?s? (approved|merged|green|reviewed)|the tests?|ci)|from now on|going forward|in (the )?future|next time|for now)\b`),
			"I'll keep the old /v1/orders endpoint until the mobile app ships 4.2", "I'll look at the file now", nil},
		{"commitment/ask-first", fixture.Commitment, regexp.MustCompile(`\b(ask|check with you|wait for (you|your)|confirm with you)\b.*\b(before|first)\b|\bbefore (\w+ing|you|we)\b`),
			"I'll ask before deleting any S3 objects", "I'll add logging before the multi-session success return", nil},
		{"commitment/keep", fixture.Commitment, regexp.MustCompile(`\bi('ll| will) (keep|leave|hold)\b|\bonly (in|on|for)\b`),
			"I'll keep httpx pinned at v5.11.8", "I'll look at what keeps failing", nil},
		{"commitment/instead-of", fixture.Commitment, regexp.MustCompile(`, not [\w./-]+$|\b(never|not) (touch|change|modify|push|merge|commit|delete)\b|\bagainst [\w./-]+\b`),
			"I'll open the PR against develop, not main", "I'll add a new function to query only a specific branch", nil},
	}
	// propNarration marks a sentence that announces the next step, cue
	// or not: it ends in a colon, or says "I'll start/begin/first" or
	// opens "First, I'll", "Now, I'll", "Next, I'll", "Then, I'll".
	propNarration = regexp.MustCompile(`:$|\bi('ll| will) (start|begin|first)\b|^(first|now|next|then), i('ll| will)\b`)
	// propNarrationVerb opens what the agent is about to do to find
	// things out ("I'll explore the codebase … before we dive in"): no
	// commitment but a refusal.
	propNarrationVerb = regexp.MustCompile(`\bi('ll| will) (explore|review|look|read|investigate|examine|search|analy[sz]e|dig|inspect|fetch|get|invoke|follow|categori[sz]e|continue|dispatch|check(?: (?:the|if|whether|what|how|for)\b)|take a look|start|begin|first)\b`)
	// propSequence orders the next steps ("I'll write the migration
	// first and run it on a copy …"): in a step that calls a tool, the
	// sentence narrates them.
	propSequence = regexp.MustCompile(`\b(first|then|now|next)\b`)
	// propIdiom is a manner of working, not a promise: "I'll keep it
	// simple".
	propIdiom      = regexp.MustCompile(`\bkeep (it|this|things) (simple|short|brief|minimal|focused)\b`)
	propObjectStop = map[string]bool{"in": true, "into": true, "to": true, "against": true, "until": true, "before": true, "after": true, "once": true, "for": true,
		"at": true, "on": true, "with": true, "from": true, "by": true, "so": true, "and": true, "but": true, "because": true, "when": true, "while": true,
		"if": true, "unless": true, "only": true, "behind": true, "pinned": true, "as": true, "then": true, "first": true, "now": true}
)

// propCommitment classifies an assistant sentence: an "I'll …" (or
// "I won't …", "I'm going to …") that one of propCommitments binds to a
// later moment or a condition, 0.9. A plain "I'll …" in a step that calls
// a tool narrates what the call does and is no commitment; in a step
// that calls none — said to the person, handing back — it is a promise
// about later work, 0.7 (commitment/plain).
func propCommitment(s string, acts bool) *propGuess {
	lit := strings.TrimRight(s, ". ")
	m := propIWill.FindStringSubmatch(lit)
	if m == nil {
		return propAgentDecision(lit)
	}
	if propNarration.MatchString(propNormalize(lit)) || propIdiom.MatchString(propNormalize(lit)) {
		return nil
	}
	rest := strings.TrimSpace(m[2])
	if utf8.RuneCountInString(rest) < 6 {
		return nil
	}
	g := &propGuess{class: fixture.Commitment, literal: lit, expect: rest, confidence: 0.9}
	if neg := propNegatedWill.FindString(m[1]); neg != "" {
		// "I won't delete the old files": what it committed to is not
		// to; the expected answer keeps the negation.
		g.expect = strings.TrimPrefix(strings.TrimPrefix(neg, "I "), "I") + " " + rest
	}
	low := propNormalize(lit)
	r, cued := propFires(propCommitments, low)
	refusal := cued && r.name == "commitment/refusal"
	if !refusal && (propNarrationVerb.MatchString(low) || (acts && propSequence.MatchString(low))) {
		return nil
	}
	switch {
	case cued:
		g.rule = r.name
	case acts:
		return nil
	default:
		g.confidence, g.rule = 0.7, "commitment/plain"
	}
	words := strings.Fields(rest)
	var object []string
	for _, w := range words[1:] {
		if propObjectStop[strings.ToLower(strings.Trim(w, ",;"))] || len(object) == 6 {
			break
		}
		object = append(object, strings.TrimRight(w, ",;"))
		if strings.HasSuffix(w, ",") || strings.HasSuffix(w, ";") {
			break
		}
	}
	if len(object) > 0 {
		g.probe = "What did the assistant commit to about " + strings.Join(object, " ") + "?"
	} else {
		n := min(len(words), 4)
		g.probe = "What did the assistant commit to (“" + m[1] + " " + strings.Join(words[:n], " ") + " …”)?"
	}
	return g
}

var (
	propRequest   = regexp.MustCompile(`^(can|could|would|will) (you|u)\b|^(please|mind|show me|can i|could i)\b`)
	propWh        = regexp.MustCompile(`^(why|what|what's|how|how's|where|when|who|which)\b`)
	propDecideWh  = regexp.MustCompile(`\b(should|shall|better|prefer|do we|would we)\b`)
	propDecision  = []*regexp.Regexp{regexp.MustCompile(`^(should|shall)\b|\b(should|shall) (we|i)\b`), regexp.MustCompile(`\b(we|us|our)\b`), regexp.MustCompile(` or `), regexp.MustCompile(`\b(better|acceptable|ok|okay|worth|prefer|still)\b`)}
	propDeferLead = regexp.MustCompile(`\b(later|decided|not for now|thinking ahead|open question|undecided|no rush|down the road|eventually|at some point|to think about)\b`)
)

// openQuestion classifies a user question, utterance i.
func (p *propProposer) openQuestion(i int, lead, body string) *propGuess {
	low := propNormalize(body)
	if propRequest.MatchString(low) || (propWh.MatchString(low) && !propDecideWh.MatchString(low)) {
		return nil
	}
	if utf8.RuneCountInString(body) < 8 {
		return nil
	}
	signs := 0
	for _, re := range propDecision {
		if re.MatchString(low) {
			signs++
		}
	}
	g := &propGuess{class: fixture.OpenQuestion, literal: body, expect: "no — still open",
		probe: "Has the user decided this question yet: " + propQuote(body)}
	switch {
	case lead != "" && propDeferLead.MatchString(propNormalize(lead)):
		g.confidence, g.rule = 0.9, "open_question/deferred"
	case signs >= 2:
		g.confidence, g.rule = 0.8, "open_question/decision"
	case signs == 1:
		g.confidence, g.rule = 0.65, "open_question/decision-weak"
	default:
		g.confidence, g.rule = 0.3, "open_question/plain"
	}
	switch {
	case p.answered(i, body):
		g.confidence, g.rule = 0.2, g.rule+"+answered-later"
	case g.rule != "open_question/deferred" && p.repliedInTurn(i):
		// Asked of the agent, which answered in the same turn: the
		// question was the work in hand, not a decision left open.
		g.confidence, g.rule = 0.3, g.rule+"+answered-in-turn"
	}
	return g
}

// repliedInTurn reports whether the assistant said something after
// utterance i in i's turn.
func (p *propProposer) repliedInTurn(i int) bool {
	for j := i + 1; j < len(p.utts) && p.utts[j].turn == p.utts[i].turn; j++ {
		if p.utts[j].role == "assistant" {
			return true
		}
	}
	return false
}

// answered reports whether an utterance after i that is not a
// question shares at least half, and at least two, of q's content words.
func (p *propProposer) answered(i int, q string) bool {
	words := propContentWords(q)
	need := max(2, (len(words)+1)/2)
	if len(words) < 2 {
		return false
	}
	for j := i + 1; j < len(p.utts); j++ {
		if p.question[j] {
			continue
		}
		n := 0
		for w := range words {
			if p.words[j][w] {
				n++
			}
		}
		if n >= need {
			return true
		}
	}
	return false
}
