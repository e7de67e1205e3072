package selection

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
)

// The restated-instruction signal on real agent sessions (agentlog).
//
// A restatement is a message a person typed after a compaction, within
// a window of turns and steps, that tells the agent again what it had
// been told before: the instruction was in the context the compaction
// dropped, and the agent lost it. Two rules find one:
//
//   - a cue: the phrasings people use when an agent forgot — "you
//     forgot", "did you forget", "don't forget", "remember to", "I told
//     you", "I said don't …", "as I said", "like I said", "I already
//     said", "as mentioned", "as per my instructions", "we agreed", "just
//     a reminder", "the issue is still …", "Again: …" (restateCueRes). A
//     bare "again" is no cue: "run the simplifier again" asks for new
//     work, "remove the tests again" means undo, and "try again." is what
//     git prints.
//   - near-verbatim repetition: the message shares most of its content
//     words with one typed before the compaction (at least
//     NearVerbatimMin of them, NearVerbatimContainment of its own words
//     and NearVerbatimJaccard of both together) and is none of the
//     look-alikes below (nearVerbatim).
//
// The look-alikes of a near-verbatim restatement, each seen in real
// sessions: a request for the same work again (a bare "again" in it); the
// next of a series (each message names a number, file or identifier the
// other lacks: "handle event kind 2" after "… kind 1"); a variant (a
// short message, up to variantWords, that swaps a word: "… the auto
// commit strategy" after "… the manual commit strategy"); an edited copy
// or a quote (the two share a verbatim run of copyRun characters yet
// differ: a prompt copied and revised, or a pasted terminal screen that
// shows the earlier prompt); and a resend (the earlier prompt got no
// reply, was blocked by a hook or interrupted by the person, or is the
// prompt right before with no compaction between).
//
// Only person-typed messages count (agentlog.Message.Typed), on both
// sides: compaction summaries, system reminders, skill text and command
// output are never read; of a slash command only its arguments are
// read, a shell command (!cmd) not at all, and a plan the person
// accepted ("Implement the following plan: …", written by the agent)
// only as the earlier message. Inside a typed message, pasted text —
// code fences, quoted lines, stack traces, log lines, diff text, shell
// output, long lines with no sentence (typedProse) — is dropped before
// either rule looks at it.
//
// Each restatement carries its evidence: the message, the typed message
// before the compaction it repeats or resembles most (for a cue, when one
// shares a content word), the compaction, the distances in turns and
// steps, the cue and its sentence, the shared words and a score.

// Thresholds of the near-verbatim rule.
const (
	// NearVerbatimMin is the number of content words the two messages
	// must share.
	NearVerbatimMin = 3
	// NearVerbatimContainment is the share of the later message's
	// content words that the earlier one must have.
	NearVerbatimContainment = 0.7
	// NearVerbatimJaccard is the Jaccard index of the two messages'
	// content words that the pair must reach, so that a short message
	// is not matched inside a long one.
	NearVerbatimJaccard = 0.4
)

// MessageRef is the evidence for one typed message: its text and where
// it is.
type MessageRef struct {
	Text string
	// Index indexes Session.Messages; Turn and Step are the message's
	// (Step: the number of steps before it); Line is its line in the log.
	Index, Turn, Step, Line int
	// UUID is the record's uuid ("" in formats without record uuids).
	UUID string
}

// Restatement is one typed message after a compaction that restates an
// earlier instruction, with its evidence.
type Restatement struct {
	Message MessageRef
	// Earlier is the typed message before the compaction that Message
	// repeats or resembles most; HasEarlier is false when a cue alone
	// flagged the message and no earlier message shares a content word
	// with it (the instruction may have come from a file or a skill).
	Earlier    MessageRef
	HasEarlier bool
	// Compaction indexes Session.Compactions, -1 when the message
	// follows none (only when the compaction condition is relaxed, in
	// the tests); CompactionTurn, CompactionStep, CompactionLine and
	// CompactionUUID are that compaction's.
	Compaction                                     int
	CompactionTurn, CompactionStep, CompactionLine int
	CompactionUUID                                 string
	// TurnsAfter is the message's turn minus the compaction's (1: the
	// first prompt after it); StepsAfter is the number of model steps
	// between the compaction and the message.
	TurnsAfter, StepsAfter int
	// Cue is the phrase that fired, as normalised ("you forgot"), ""
	// when the near-verbatim rule fired; Sentence is the sentence
	// holding it.
	Cue, Sentence string
	// Similarity is the share of Message's content words that Earlier
	// has, Jaccard the index of both sets, Common the shared words
	// (stemmed).
	Similarity, Jaccard float64
	Common              []string
	// Score orders restatements: 1 + Similarity for a cue, Similarity
	// for a near-verbatim repeat.
	Score float64
}

// restateCueRes are the cue patterns, matched against one normalised
// sentence of typed prose (normaliseText: lower case, ASCII
// apostrophes). Each names the cue it reports; a sentence that also
// matches the cue's not pattern does not fire it ("what if you forgot
// your password", a feature's wording, not a reminder).
var restateCueRes = []struct {
	cue     string
	re, not *regexp.Regexp
}{
	{"you forgot", regexp.MustCompile(`\b(you|u|claude|we)( have|'ve| had|'d)?( already| totally| completely| again)? (forgot|forgotten)\b`),
		regexp.MustCompile(`\b(if|when|whenever|in case|once|unless|whether|users?|people|someone) (you|u|we)( have|'ve| had|'d)? forgo`)},
	{"did you forget", regexp.MustCompile(`\b(did|have) (you|u|we) (forget|forgotten)\b`), nil},
	{"don't forget", regexp.MustCompile(`(^|[.,;:!?(—–-] ?|\b(please|pls|and|also|but|so|just|oh|again|now|ok|okay) )(don'?t|do not|never) forget\b`), nil},
	{"remember to", regexp.MustCompile(`(^|[.,;:!?(—–-] ?|\b(please|pls|and|also|always|just|but|so|again|now) )remember (to|that)\b|^remember[:,]`), nil},
	{"I told you", regexp.MustCompile(`\bi( have|'ve| had|'d)?( already| just| literally)? (told|asked) you\b|\b(you were|you've been|you have been|i have|i've) (told|asked|instructed) (to|not|before|already|earlier)\b`), nil},
	{"I said", regexp.MustCompile(`^((but|no|and|hey|ok|okay|look|again|so),? )?i (said|wrote)(:| (to|not|no|don'?t|never|always|only|use|keep|do|please|that we|you should|you must)\b)`), nil},
	{"as I said", regexp.MustCompile(`\b(as|like) i (said|mentioned|wrote|explained|told you|asked|stated|noted)\b`), nil},
	{"I already said", regexp.MustCompile(`\bi( have|'ve| had)? (already|explicitly|specifically|clearly|literally) (said|mentioned|wrote|written|explained|asked|stated|told you)\b|\bi said (this |that |it )?(before|earlier|already|previously)\b`), nil},
	{"as mentioned", regexp.MustCompile(`\bas (previously |already |we |i )?(mentioned|discussed|stated|instructed|agreed)( before| earlier| previously)?\b`), nil},
	{"as per my instructions", regexp.MustCompile(`\b(as )?per (my|our) (earlier |previous |last |original )?(instructions?|message|request|comment|rules?)\b|\byou (didn'?t|did not|don'?t|do not|never) (follow|read|respect|stick to) (my|the|our) (instructions?|rules?|guidelines|conventions)\b|\byou (ignored|disregarded) (my|the|our) (instructions?|rules?|request)\b`), nil},
	{"we agreed", regexp.MustCompile(`\bwe (already |had )?(agreed|decided) (on|that|to|not to)\b`), nil},
	{"reminder", regexp.MustCompile(`^((just|quick|friendly|gentle) )?(a )?reminder\b|\bas a reminder\b|\b(just|quick|friendly|gentle) (a )?reminder\b`), nil},
	{"again:", regexp.MustCompile(`^(and |so |but )?(once again|yet again|again) ?[:—–-]`), nil},
	{"the issue is still", regexp.MustCompile(`\b(the|my) (issue|problem|point|concern|question) (is|was) still\b|\b(the|my) (issue|problem|point|concern) (still stands|remains that)\b`), nil},
	{"I repeat", regexp.MustCompile(`\b(i repeat|repeat myself|for the last time|how many times|say it again|saying it again|(keep|keeps|kept) forgetting)\b`), nil},
}

// restateCueNeed lists, for each cue of restateCueRes, words one of
// which every sentence its pattern matches holds, as its alternatives
// spell them: cueOf does not run the pattern on a sentence that has
// none of them (for speed only; TestRestateCueNeed checks the lists).
var restateCueNeed = map[string][]string{
	"you forgot":             {"forgot"},
	"did you forget":         {"forget", "forgotten"},
	"don't forget":           {"forget"},
	"remember to":            {"remember"},
	"I told you":             {"told", "asked", "instructed"},
	"I said":                 {"said", "wrote"},
	"as I said":              {"as i ", "like i "},
	"I already said":         {"said", "mentioned", "wrote", "written", "explained", "asked", "stated", "told"},
	"as mentioned":           {"mentioned", "discussed", "stated", "instructed", "agreed"},
	"as per my instructions": {"per my ", "per our ", "follow", "read", "respect", "stick to", "ignored", "disregarded"},
	"we agreed":              {"agreed", "decided"},
	"reminder":               {"reminder"},
	"again:":                 {"again"},
	"the issue is still":     {"still", "remains that"},
	"I repeat":               {"repeat", "for the last time", "how many times", "again", "forgetting"},
}

// containsAny reports whether s holds one of subs.
func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// cueOf returns the cue a normalised sentence fires, "" for none.
func cueOf(n string) string {
	for _, c := range restateCueRes {
		if !containsAny(n, restateCueNeed[c.cue]) {
			continue // the pattern cannot match
		}
		if c.re.MatchString(n) && (c.not == nil || !c.not.MatchString(n)) {
			return c.cue
		}
	}
	return ""
}

// restateCueStop are words of the cues, which are not content.
var restateCueStop = map[string]bool{
	"forgot": true, "forget": true, "forgotten": true, "told": true, "tell": true, "said": true, "say": true,
	"remember": true, "mentioned": true, "mention": true, "reminder": true, "asked": true, "ask": true,
	"again": true, "already": true, "earlier": true, "before": true, "previously": true, "repeat": true,
	"stated": true, "discussed": true, "agreed": true, "instructed": true, "last": true, "time": true,
}

// bareAgain matches "again" as a word.
var bareAgain = regexp.MustCompile(`\bagain\b`)

// typedText is a typed message prepared for both rules.
type typedText struct {
	index   int
	prose   string
	norm    string   // the prose's words (textWords), joined by spaces
	words   []string // content words of the prose, cue words left out
	cue     string
	cueSent string
	again   bool // a bare "again" outside the cue
	plan    bool // a plan the agent wrote, accepted by the person (acceptedPlan)
}

// planPrefix opens the prompt Claude Code sends when the person accepts
// a plan the agent wrote in plan mode: the text after it is the agent's.
const planPrefix = "Implement the following plan:"

// acceptedPlan reports whether a typed message is an accepted plan: its
// words are the agent's, so it carries no cue of the person's and
// restates nothing, though it may hold the instruction a later message
// restates.
func acceptedPlan(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), planPrefix)
}

// prepareTyped reads message i of s.
func prepareTyped(s *agentlog.Session, i int) typedText {
	m := &s.Messages[i]
	text := m.Text
	switch m.Kind {
	case agentlog.SlashCommand:
		text = slashArgs(text)
	case agentlog.ShellCommand:
		text = "" // a shell command, not an instruction
	}
	prose, _ := typedProse(text)
	// The words of the prose are those of its sentences: sentences
	// splits only at white space or after a stop, and drops only white
	// space.
	words := textWords(prose)
	t := typedText{index: i, prose: prose, norm: strings.Join(textRunWords(prose), " "), plan: acceptedPlan(text)}
	for _, sent := range sentences(prose) {
		n := normaliseText(sent)
		if t.cue == "" {
			if c := cueOf(n); c != "" {
				t.cue, t.cueSent = c, sent
			}
		}
		if t.cue == "" || t.cueSent != sent {
			if strings.Contains(n, "again") && bareAgain.MatchString(n) {
				t.again = true
			}
		}
	}
	for _, w := range contentOf(words) {
		if !restateCueStop[w] {
			t.words = append(t.words, w)
		}
	}
	return t
}

// slashArgs returns the arguments typed after a slash command (the
// text of <command-args>), "" when there are none: the command's name
// is not prose, and running it again asks for its work again.
func slashArgs(text string) string {
	const open, end = "<command-args>", "</command-args>"
	i := strings.Index(text, open)
	if i < 0 {
		return ""
	}
	rest := text[i+len(open):]
	if j := strings.Index(rest, end); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// FindRestatements returns every message a person typed after a
// compaction of s (a prompt, or one queued while the agent worked:
// agentlog.Message.Person), within w, that restates an instruction typed
// before the compaction, in
// the order of the messages: a message with a cue ("you forgot", "don't
// forget", "remember to", "I told you", "as I said", "Again: …", …) or
// one that repeats an earlier typed message near-verbatim and is no
// resend, revision, quote, variant or next of a series. Only the
// person's own prose counts: injected messages and text pasted into a
// prompt are not read (the rules are at the top of restatements.go).
// The window (turns after the compaction's turn, steps after the
// compaction) stops at the next compaction; the earlier message is
// looked for in the whole session before the compaction.
func FindRestatements(s *agentlog.Session, w RepeatWindow) []Restatement {
	return findRestatements(s, w, false)
}

// findRestatements is FindRestatements; with anywhere, the compaction
// condition is relaxed: every typed message is checked against all typed
// messages before it, and a message after a compaction still names the
// latest one.
func findRestatements(s *agentlog.Session, w RepeatWindow, anywhere bool) []Restatement {
	var typed []int
	for i := range s.Messages {
		if s.Messages[i].Person() {
			typed = append(typed, i)
		}
	}
	if len(typed) == 0 || (!anywhere && len(s.Compactions) == 0) {
		return nil
	}
	prepared := make(map[int]*typedText, len(typed))
	prep := func(i int) *typedText {
		if t, ok := prepared[i]; ok {
			return t
		}
		t := prepareTyped(s, i)
		prepared[i] = &t
		return &t
	}
	var out []Restatement
	for k, mi := range typed {
		m := &s.Messages[mi]
		ci := -1
		for j := range s.Compactions {
			if s.Compactions[j].Message <= mi { // the message comes after it
				ci = j
			}
		}
		if !anywhere {
			if ci < 0 {
				continue
			}
			c := &s.Compactions[ci]
			if (w.Turns > 0 && m.Turn-c.Turn > w.Turns) || (w.Steps > 0 && m.Step-c.Step > w.Steps) {
				continue
			}
		}
		later := prep(mi)
		// earlier messages: those before the compaction, or, relaxed, all
		// typed messages before this one.
		var before []int
		for _, ei := range typed[:k] {
			if !anywhere && ei >= s.Compactions[ci].Message {
				break
			}
			before = append(before, ei)
		}
		r, ok := judgeRestatement(s, mi, later, before, prep)
		if !ok {
			continue
		}
		r.Message = messageRef(s, mi)
		r.Compaction = ci
		if ci >= 0 {
			c := &s.Compactions[ci]
			r.CompactionTurn, r.CompactionStep, r.CompactionLine, r.CompactionUUID = c.Turn, c.Step, c.Line, c.UUID
			r.TurnsAfter, r.StepsAfter = m.Turn-c.Turn, m.Step-c.Step
		}
		out = append(out, r)
	}
	return out
}

// judgeRestatement applies the two rules to a later message (typed
// message li) against the earlier typed messages before.
func judgeRestatement(s *agentlog.Session, li int, later *typedText, before []int, prep func(int) *typedText) (Restatement, bool) {
	var r Restatement
	if later.plan || len(later.words) == 0 && later.cue == "" {
		return r, false
	}
	// The cue rule names the earlier message most like the later one;
	// the near-verbatim rule needs one that passes every test.
	best, bestSim, bestJac := -1, 0.0, 0.0
	var bestCommon []string
	for _, ei := range before {
		e := prep(ei)
		common := commonWords(later.words, e.words)
		if len(common) == 0 {
			continue
		}
		sim := float64(len(common)) / float64(len(later.words))
		jac := float64(len(common)) / float64(len(later.words)+len(e.words)-len(common))
		if later.cue == "" && !nearVerbatim(s, li, later, ei, e, common, sim, jac) {
			continue
		}
		if best < 0 || sim > bestSim || sim == bestSim && jac >= bestJac {
			best, bestSim, bestJac, bestCommon = ei, sim, jac, common
		}
	}
	switch {
	case later.cue != "":
		r.Cue, r.Sentence = later.cue, later.cueSent
		r.Score = 1 + bestSim
	case best >= 0:
		r.Score = bestSim
	default:
		return r, false
	}
	if best >= 0 {
		r.Earlier, r.HasEarlier = messageRef(s, best), true
		r.Similarity, r.Jaccard, r.Common = bestSim, bestJac, bestCommon
	}
	return r, true
}

// nearVerbatim reports whether the later message (li) repeats earlier
// message ei near-verbatim as a restatement: enough shared words, no
// bare "again", not the next of a series or a variant, not an edited
// copy or a quote, and not a resend.
func nearVerbatim(s *agentlog.Session, li int, later *typedText, ei int, e *typedText, common []string, sim, jac float64) bool {
	switch {
	case later.again,
		len(common) < NearVerbatimMin, sim < NearVerbatimContainment, jac < NearVerbatimJaccard,
		otherArguments(later.words, e.words),
		variant(later.words, e.words, common),
		editedCopy(later.norm, e.norm),
		resend(s, ei, li):
		return false
	}
	return true
}

// variant reports whether a short later message swaps a word of an
// earlier one (each has a word the other lacks), asking for a variant of
// it rather than restating it: "… the auto commit strategy" after "… the
// manual commit strategy". An added word ("don't ever write …") is no
// swap. Chinese and Japanese, read as character pairs (textWords), are
// compared by their characters: an added particle ("本番DBには…" after
// "本番DBに…") changes pairs as a swap would, but takes no character
// away; and their limit is three times the words', a content word being
// about two characters joined to the next by a particle.
func variant(later, earlier, common []string) bool {
	if cjkMost(later) {
		l, e := cjkChars(later), cjkChars(earlier)
		shared := 0
		for r := range l {
			if e[r] {
				shared++
			}
		}
		return len(l) <= 3*variantWords && shared < len(l) && shared < len(e)
	}
	return len(later) <= variantWords && len(common) < len(later) && len(common) < len(earlier)
}

// cjkMost reports whether most of words are Chinese or Japanese character
// pairs (or single characters).
func cjkMost(words []string) bool {
	pairs := 0
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); spaceless(r) {
			pairs++
		}
	}
	return 2*pairs > len(words)
}

// cjkChars is the set of characters of words, Chinese and Japanese
// character pairs and any other words' letters alike.
func cjkChars(words []string) map[rune]bool {
	m := map[rune]bool{}
	for _, w := range words {
		for _, r := range w {
			m[r] = true
		}
	}
	return m
}

// variantWords is the length, in content words, up to which a message
// that swaps a word of an earlier one ("… with the auto commit
// strategy" after "… with the manual commit strategy") is taken to ask
// for a variant of it, not to restate it.
const variantWords = 8

// copyRun is the length, in bytes of normalised text, of a run that two
// messages must share to be copies of each other.
const copyRun = 50

// editedCopy reports whether a and b (words joined by spaces) differ although
// one holds a run of copyRun bytes of the other: the person copied the
// earlier prompt and edited it (a revised instruction), or pasted output
// that quotes it (a terminal screen that shows the prompt). A verbatim
// copy (a == b) is not edited.
func editedCopy(a, b string) bool {
	if a == b {
		return false
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	for i := 0; i+copyRun <= len(short); i++ {
		if i > 0 && short[i-1] != ' ' {
			continue // runs start at a word
		}
		if strings.Contains(long, short[i:i+copyRun]) {
			return true
		}
	}
	return false
}

// resend reports whether typed message li sends typed message ei again
// rather than restating it: ei's turn got no reply, was blocked by a
// hook or interrupted by the person (agentlog.Interrupted, HookOutput),
// or ei is the prompt right before li with no compaction between (an
// instruction cannot have been lost from the context one turn later).
func resend(s *agentlog.Session, ei, li int) bool {
	t := s.Messages[ei].Turn
	if t < 0 || t >= len(s.Turns) || s.Turns[t].Message != ei || s.Turns[t].Steps == 0 {
		return true
	}
	adjacent := true
	for j := ei + 1; j < li; j++ {
		switch m := &s.Messages[j]; {
		case m.Person():
			adjacent = false
		case adjacent && (m.Kind == agentlog.Interrupted || m.Kind == agentlog.HookOutput):
			return true
		}
	}
	if !adjacent {
		return false
	}
	for _, c := range s.Compactions {
		if ei < c.Message && c.Message <= li {
			return false
		}
	}
	return true
}

// otherArguments reports whether two similar messages name different
// things: each has an argument word (a number, file, path or
// identifier: argumentWord) that the other lacks. "handle event kind 2"
// after "handle event kind 1" is the next request of a series, not the
// first one restated.
func otherArguments(a, b []string) bool {
	return hasArgumentNotIn(a, b) && hasArgumentNotIn(b, a)
}

// hasArgumentNotIn reports whether sorted set a has an argument word
// that sorted set b lacks.
func hasArgumentNotIn(a, b []string) bool {
	for _, w := range a {
		if argumentWord(w) {
			if _, found := slices.BinarySearch(b, w); !found {
				return true
			}
		}
	}
	return false
}

// messageRef names message i of s.
func messageRef(s *agentlog.Session, i int) MessageRef {
	m := &s.Messages[i]
	return MessageRef{Text: m.Text, Index: i, Turn: m.Turn, Step: m.Step, Line: m.Line, UUID: m.UUID}
}
