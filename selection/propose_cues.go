package selection

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposer's cue rules for constraints: what a
// person types when deciding, preferring, objecting or correcting, read
// when no rule of propProhibitions or propObligations fires. On real
// sessions most of what binds the agent's later work is said that way —
// "I'd go with option 4", "ideally just rebase onto main", "no, we
// removed the session commands on purpose", "the test isn't really
// checking the metadata" — and not as "never …" or "always …". Each cue
// is a propRule row with its own confidence (propCueConfidence): a cue that on the labelled
// sessions marked a constraint more often than not is at or above
// DefaultMinConfidence, a weaker one below it, so `tally propose
// --min-confidence 0.4` shows those too.

// propCues are the cue rules, read on a person's sentence that is prose
// (propProseSentence) and not a request for information (propAsk); on
// one that is not prose only propPick is. The first that fires gives the
// candidate its rule and confidence.
var propCues = []propRule{
	{name: "cue/dont", class: fixture.Constraint,
		re: regexp.MustCompile(`(^|[,;:(] ?|\b(also|and|but|so|just|please|then|pls|plz|ok|okay) )(don't|do not|never)\b`),
		// "… but never called anywhere" describes: a participle or a
		// verb in the third person after "never" is no imperative.
		not:     regexp.MustCompile(`\b(don't|do not) (we|you|i|they|know|think|see|understand|get|remember|worry)\b|\bnever (\w+ed|been|gets?|happens?|shows?|run|seen|shown|set|made|done|written|read|hit|works?|fires?|reaches?)\b`),
		example: "Also don't give it a number", nearMiss: "I don't think it matters"},
	{name: "cue/judgement", class: fixture.Constraint,
		re:      regexp.MustCompile(`\b(is|are|'s|'re|was|seems?|feels?) not (really |fully |quite |very |that |so )?(great|good|correct|right|ideal|needed|necessary|wanted|enough|what|helpful|useful|nice|clean|safe|worth)\b|\b(isn't|aren't|wasn't|doesn't seem) (really |fully |quite |very |that |so )?(great|good|correct|right|ideal|needed|necessary|wanted|enough|helpful|useful|nice|clean|safe|worth|checking|testing|covering|doing|handling)\b|\b(is|are|'s|'re|seems?|sounds?|feels?) (a bit |too |way |rather |kind of )?(overkill|hacky|ugly|confusing|wrong|misleading|too (much|complex|complicated|big|broad|noisy|verbose))\b|\bdoesn't make (any )?sense\b|\bno good\b|\bon purpose\b|\bby design\b|\bi (would have|'d have|had) expected\b|\bi like (that|how|the way)\b`),
		example: "doing this in general is not really helpful either", nearMiss: "the test is checking the metadata"},
	{name: "cue/preference", class: fixture.Constraint,
		re:      regexp.MustCompile(`\bi'?d (go with|prefer|prefere|rather|keep|vote for|use|say we)\b|\bi'?d like (it|this|that|us|you|them|the) \w+|\bi would (keep|prefer|rather|even|go with|use)\b|\bideally\b|\bi prefer\b|\b(a |the )?(better|best|cleaner|simpler|safer) (idea|approach|way|option|place)\b|\bit's better to\b|\binstead of\b|\bi (still )?feel (like |that )?(it|this|we|the|getting|having|using|[a-z]+ing)\b`),
		example: "ideally just rebase onto main", nearMiss: "I'd like to do two things"},
	// A want the person words for how the work must be ("I want the
	// notification that the reviewer is sent", "I do want this command
	// to behave like:"), not a task to start ("I want to add …"), a wish
	// to learn or be sure of something ("I want to see if …", "I want to
	// be sure …") nor a thing to hand over now ("I want a summary").
	{name: "cue/want", class: fixture.Constraint,
		re:      regexp.MustCompile(`\bi (do |really |also |just |still )?(want|would like) (it|this|that|these|those|them|the|a|an|to (be|have|see|get|keep|use|show|call|only|always|never))\b`),
		not:     regexp.MustCompile(`\b(want|would like) to (see|get) (if|whether|what|how|why|where|which|the (logs?|output|diff|error|stack))\b|\b(want|would like) to be (sure|certain|clear)\b|\b(want|would like) (a|an) (pr|pull request|summary|explanation|review|list|overview|report|quick look|look)\b`),
		example: "Then on stop hook I want a notification if a review is still pending", nearMiss: "I want to see if the tests pass"},
	{name: "cue/correction", class: fixture.Constraint,
		re:      regexp.MustCompile(`^(no|nope|nah)[,.!]? (revert|ignore|don't|do not|we|that's|it's|that|this|it|i|keep|leave|use|not|undo|remove|drop|stop|just|rather|instead)\b`),
		example: "no revert those changes", nearMiss: "No matching commits found"},
	{name: "cue/from-now-on", class: fixture.Constraint,
		re:      regexp.MustCompile(`\bfrom now on\b|\bgoing forward\b|\bfrom here on\b|\bevery time\b|\bwhenever (you|we)\b`),
		example: "from now on, run gofmt before every commit", nearMiss: "run gofmt now"},
	{name: "cue/for-now", class: fixture.Constraint,
		re:      regexp.MustCompile(`\bfor now\b|\bfor the moment\b|\bat least\b|\bregardless of\b`),
		example: "let's do 2 for now", nearMiss: "it works now"},
	{name: "cue/keep", class: fixture.Constraint,
		re:      regexp.MustCompile(`(^|[,;] |\b(and|but|also|please|just|then|to) )(keep|leave|make sure|ensure|skip|ignore|avoid|revert|limit|preserve)\b`),
		example: "but keep it in the repo", nearMiss: "it keeps failing"},
	{name: "cue/choice", class: fixture.Constraint,
		re:      regexp.MustCompile(`\b(go with|do|take|pick|use) ((option |approach |variant )\w|\d|[b-e])\b|^(yes|yeah|ok|okay|sure)[,.!]? go with |\b(go with|take|pick|use|prefer) the (first|second|third|last|other|former|latter)\b|^(the )?(first|second|third|last|other) (one|approach|option|way)\b|^(let's|let us|please) (use|go with|stick with|stick to)\b`),
		example: "yes do option 1", nearMiss: "do a git log to have a look around"},
	{name: "cue/scope", class: fixture.Constraint,
		re:      regexp.MustCompile(`\bonly (for|in|on|to|when|if|use|access|the|have|touch)\b|\bjust (validate|check|keep|use|rebase|limit|read|report)\b|\bwithout (changing|touching|breaking|modifying|removing)\b`),
		example: "have only access to that specific branch", nearMiss: "it only took a minute"},
	{name: "cue/should", class: fixture.Constraint,
		re:      regexp.MustCompile(`\b(we|it|this|that|they|you|code|test|tests|one) (should|must|has to|have to|needs to) \w+|\b(we|you) need to (then |also |still |always |only |not |never )?(be|use|reuse|keep|show|stay|check|go|belong|reflect|point|work|run|read|write|ensure|make sure|bail|return|handle)\b|\b(we|you) (would|will) need (this|that|it|to)\b[^?]*\b(later|too|also|as well|every|any other|future)\b`),
		example: "if we fail to open the repository we should bail out and return an error", nearMiss: "we need to add unit tests"},
	{name: "cue/spec", class: fixture.Constraint,
		re:      regexp.MustCompile(`^(order|sort|group|limit|filter) (by|to)\b|^using \S+ (and|with|to|for|directly)\b`),
		example: "order by latest timestamp desc", nearMiss: "ordering is broken"},
	propPick,
}

// propPick is the cue rule for a pick among the options the agent
// listed, by number, letter or count ("do 1,2 and 5", "Option A", "all
// four", "let's fix 3 too"). It is the last cue, and the only one read
// on a sentence too short or too numeric to be prose. A bare "1" is not
// read: readers of the labelled sessions left every one unlabelled.
var propPick = propRule{name: "cue/pick", class: fixture.Constraint,
	re:      regexp.MustCompile(`^((let's|lets|please|ok|okay|yes|yeah|sure|then|and|i think)[,.]? )*(do|fix|go with|take|pick|implement|address|apply|handle|tackle|use) (the )?((option|approach|variant|item|point|number) ?)?#?(\d{1,2}|[a-f])\b((, ?| and | & |/| \+ )#?(\d{1,2}|[a-f]))*( too| as well| first| only| then| for now)?( please)?[.!]?$|^(option|approach|variant|plan) [a-f\d][.!]?$|^(all|both) (two|three|four|five|six|of (them|those|these))[.!]?$|^(i like|i prefer|i'd pick|i'd take|i'd go with) (option|approach|variant) [a-f\d]\b`),
	example: "do 1,2 and 5", nearMiss: "do a git log to have a look around"}

// propCueConfidence is each cue rule's confidence.
var propCueConfidence = map[string]float64{
	"cue/pick":        0.5,
	"cue/dont":        0.75,
	"cue/judgement":   0.7,
	"cue/preference":  0.65,
	"cue/correction":  0.6,
	"cue/want":        0.55,
	"cue/from-now-on": 0.65,
	"cue/for-now":     0.55,
	"cue/keep":        0.55,
	"cue/choice":      0.5,
	"cue/scope":       0.5,
	"cue/should":      0.5,
	"cue/spec":        0.5,
}

// propEpistemic is "should" said of what is likely rather than of what
// must be: an expectation ("it should be fine", "we should be seeing
// some come through now") or a counterfactual ("it should have
// failed"). The cue rules read a sentence without it, so "it should
// have failed but we should definitely have one" still binds by its
// second clause. Linguists call the two senses of the modal epistemic
// and deontic (Palmer, Mood and Modality, 2nd ed., 2001, ch. 1).
var propEpistemic = regexp.MustCompile(`\bshould(n't| not)? (now |still |already |probably |definitely |really )?(be (fine|ok|okay|good|enough|easy|simple|straightforward|trivial|quick|possible|seeing|getting|showing|working|running|coming)|have (been|gotten|got|had|\w+ed|seen|shown|run|done|made|known|written))\b`)

// propExplains marks a sentence whose "instead of" explains or reports
// rather than prefers: a hypothetical walked through ("if the config is
// nil this can panic instead of …", "for example, …"), a count observed
// ("back to 19 instead of 26"), a lead-in to pasted text ending in a
// colon, or a fragment that is only the "instead of" phrase.
var propExplains = regexp.MustCompile(`^(if|when|for example|for instance|e\.g\.|say)\b|\binstead of \d|:$|^instead of [^,]*$`)

// propWantText is low, a lower-cased sentence, as the steer rule reads it
// for a standing want: without a "should" of what is likely
// (propEpistemic) and without an "instead" that explains (propExplains).
func propWantText(low string) string {
	want := propEpistemic.ReplaceAllString(low, "—")
	if propExplains.MatchString(low) {
		want = strings.ReplaceAll(want, "instead", "—")
	}
	return want
}

// propAsk is a request for information or for one action now: not a
// rule, whatever cue it holds ("can you check what should be shown?").
var propAsk = regexp.MustCompile(`^(can|could|would|will) (you|u) (please )?(check|show|explain|tell|look|run|print|give|summari[sz]e|help|list|find|verify|confirm)\b|^(what|how|where|when|who|which|why)\b|^(commit|push|run|check|show|explain|print|list)\b`)

// propProseSentence reports whether s reads as a sentence a person
// wrote rather than a line of pasted code, JSON or program output: two
// words at least, words (letters, with an inner apostrophe or hyphen,
// between punctuation) making up three fifths of its white-space
// separated tokens, and no opening quote, brace, bracket, banner or code
// keyword.
func propProseSentence(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t[:1], "\"{[=<>#$|") || codeLine(t) || propCodeOpen.MatchString(t) || propDiagnostic.MatchString(t) {
		return false
	}
	tokens, words := 0, 0
	for _, f := range strings.Fields(t) {
		tokens++
		if propWordToken(strings.Trim(f, ".,;:!?()\"'`*")) {
			words++
		}
	}
	return words >= 2 && 5*words >= 3*tokens
}

// propWordToken reports whether w is a word: letters, with apostrophes
// or hyphens only between them.
func propWordToken(w string) bool {
	if w == "" {
		return false
	}
	prev := '-'
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
		case (r == '\'' || r == '’' || r == '-') && prev != '-':
		default:
			return false
		}
		if unicode.IsLetter(r) {
			prev = 'a'
		} else {
			prev = '-'
		}
	}
	return prev == 'a'
}

// propDiagnostic is a compiler's, linter's or test runner's diagnostic:
// a file, its line (and column) and a message, after an optional level
// ("Error: cmd/x/y.go:87:1: NewX returns interface (ireturn)", "main.c:3:
// warning: …"), as go vet, golangci-lint, gcc, tsc and eslint print them.
var propDiagnostic = regexp.MustCompile(`(?i)^((error|warning|warn|note|info|fatal|panic)(\[[\w-]+\])?:\s*)?[\w./-]+\.\w+[:(]\d+([:,]\d+)?\)?:`)

// propCodeOpen opens a line of code or a program's banner.
var propCodeOpen = regexp.MustCompile(`^(def|func|class) \w+[(:]|^(import|package) [\w"./]+$|^(var|const|let) \w+ =|^return \S+$|^(if|for|while|elif|else)\b.*[:{]$|^\w+ :?= |:=|":|=>`)

// propCue classifies a person's sentence, its literal lit, by the cue
// rules, or returns nil.
func propCue(lit string) *propGuess {
	low := propNormalize(lit)
	if propAsk.MatchString(low) {
		return nil
	}
	cues := propCues
	if !propProseSentence(lit) {
		cues = []propRule{propPick}
	}
	// A sentence whose "instead of" explains is not read as a
	// preference, nor as anything else the cues find in it ("Instead of
	// passing the empty value, the code should either:" opens a pasted
	// review's list); the steer rule reads the same sentence without its
	// "instead" (propWantText).
	r, ok := propFires(cues, propEpistemic.ReplaceAllString(low, "—"))
	if !ok || r.name == "cue/preference" && strings.Contains(low, "instead of") && propExplains.MatchString(low) {
		return nil
	}
	return &propGuess{class: fixture.Constraint, literal: lit, confidence: propCueConfidence[r.name], rule: "constraint/" + r.name}
}

// propOutputMessage reports whether a typed message is mostly program
// output a person pasted (a test run, a listing, a tool's report): five
// lines or more that are not blank, fewer than a third of them prose
// (propProseSentence).
func propOutputMessage(text string) bool {
	lines, prose := 0, 0
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		if propProseSentence(line) {
			prose++
		}
	}
	return lines >= 5 && 3*prose < lines
}
