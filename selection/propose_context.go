package selection

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds what the proposer reads in the agent's message before
// a person's constraint to make the constraint's probe say what it is
// about: the options a pick names, the items of the agent's list a
// constraint names, and what a short "that" answers (referent).
//
// A person's pick among the options the agent listed just before ("do
// 1,2 and 5", "Option A", "all four"; propPick) says nothing a judge can
// find in a summary, so its probe names what was picked: the options'
// own words, read from the agent's message, when every picked label is
// an option there. On the dev set's sessions an agent lists options as numbered
// items or headings ("#### 5. Missing test: …", "3. **Symlink …**"),
// as bold or heading labels ("**Option A**: Set BaseCommit …", "###
// Option 2: …") and as table rows ("| 2 | Hash prefix collision guard
// |").

var (
	// propOptionLabel is an option written with its label word.
	propOptionLabel = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:[-*]\s+)?(?:\*\*)?(?:option|approach|variant|choice)\s+([a-z]|\d{1,2})\b(?:\*\*)?\s*[:.)\-—–]*\s*(?:\*\*)?\s*(.*)$`)
	// propOptionNumber is a numbered item or heading.
	propOptionNumber = regexp.MustCompile(`^\s*(?:#{1,6}\s*)?(\d{1,2})[.)]\s+(.+)$`)
	// propOptionRow is a table row whose first cell is a number; its
	// words are the wordiest of the other cells (propOptionCell).
	propOptionRow = regexp.MustCompile(`^\s*\|\s*#?(\d{1,2})\s*\|(.+)$`)
	// propOptionInline is an option inside a sentence: "Remaining
	// tasks: #2 (filter stale sessions), #3 (fix log routing)".
	propOptionInline = regexp.MustCompile(`#(\d{1,2}) \(([^()]{3,80})\)`)
	// propPickLabels are the labels a pick names: a letter or number
	// after a label word ("option 1", "Option A"), or a bare number.
	propPickLabels = regexp.MustCompile(`\b(?:(?:option|approach|variant|choice) ([a-z]|\d{1,2})|(\d{1,2}))\b`)
	// propPickAll picks every option.
	propPickAll = regexp.MustCompile(`^(all|both)\b`)
)

// propOptionMaxRunes is how much of an option's words a probe quotes.
const propOptionMaxRunes = 80

// propOption is one option the agent listed: its label as written, its
// words, and whether it was written with a label word ("Option A").
type propOption struct {
	label, text string
	named       bool
}

// propOptions reads the options listed in an agent's message, in order,
// a label as often as it is listed. An option whose words are on the
// next line (a bare "### Option 2") takes that line.
func propOptions(agent string) []propOption {
	var out []propOption
	lines := strings.Split(agent, "\n")
	for i, line := range lines {
		var m []string
		kind := 0 // 1 a label word, 2 a number, 3 a table row
		for k, re := range []*regexp.Regexp{propOptionLabel, propOptionNumber, propOptionRow} {
			if m = re.FindStringSubmatch(line); m != nil {
				kind = k + 1
				break
			}
		}
		if m == nil {
			for _, m := range propOptionInline.FindAllStringSubmatch(line, -1) {
				out = append(out, propOption{label: m[1], text: propOptionText(m[2])})
			}
			continue
		}
		words := m[2]
		if kind == 3 {
			words = propOptionCell(words)
		}
		text := propOptionText(words)
		for k := i + 1; text == "" && k < len(lines) && k <= i+2; k++ {
			text = propOptionText(lines[k])
		}
		if text != "" {
			out = append(out, propOption{label: m[1], text: text, named: kind == 1})
		}
	}
	return out
}

// propOptionText is an option's words without Markdown emphasis, a list
// marker or a trailing separator, cut to propOptionMaxRunes.
func propOptionText(s string) string {
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "-*#> "))
	s = strings.TrimRight(s, " :-—–|")
	if utf8.RuneCountInString(s) > propOptionMaxRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:propOptionMaxRunes])) + "…"
	}
	return s
}

// propPickOptions resolves pick, a person's pick (propPick), against the
// options of agent, the agent's message before it: the options picked,
// in the order named, or nil when the pick names a label that is not an
// option there. A label listed more than once is its last listing, as
// an agent closes with the options it asks about ("Possible fixes: 1.
// … Which approach do you prefer?") after lists that explain; "option 1"
// prefers an option written "Option 1". "all four" and "both" pick the
// options of the last list.
func propPickOptions(agent, pick string) []propOption {
	opts := propOptions(agent)
	if len(opts) == 0 {
		return nil
	}
	low := propNormalize(strings.TrimSpace(pick))
	if propPickAll.MatchString(low) {
		return propLastList(opts)
	}
	var out []propOption
	for _, m := range propPickLabels.FindAllStringSubmatch(low, -1) {
		label, named := m[1]+m[2], m[1] != ""
		i := -1
		for k, o := range opts {
			if strings.EqualFold(o.label, label) && (i < 0 || !named || o.named || !opts[i].named) {
				i = k
			}
		}
		if i < 0 {
			return nil
		}
		out = append(out, opts[i])
	}
	return out
}

// propLastList is the options from the last time a label was listed
// again, or from the first: the last list of the message.
func propLastList(opts []propOption) []propOption {
	start := 0
	seen := map[string]bool{}
	for k, o := range opts {
		if l := strings.ToLower(o.label); seen[l] {
			start, seen = k, map[string]bool{l: true}
		} else {
			seen[l] = true
		}
	}
	return opts[start:]
}

// propPickProbe drafts the probe of a pick whose options are known: the
// choice in the agent's words, so a judge can find it in a summary.
func propPickProbe(picked []propOption) string {
	return "Does the user's choice still hold: of the options the agent listed, " + propOptionList(picked) + "?"
}

// propOptionList lists options with their words: 1 (“…”), 2 (“…”) and 5
// (“…”).
func propOptionList(opts []propOption) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = o.label + " (" + propQuote(o.text) + ")"
	}
	if n := len(parts); n > 1 {
		return strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	return parts[0]
}

// agentBefore is the text of the last assistant message before
// utterance i, "" when there is none.
func (p *propProposer) agentBefore(i int) string {
	for k := i - 1; k >= 0; k-- {
		if p.utts[k].role == "assistant" {
			return p.utts[k].text
		}
	}
	return ""
}

// agentContext gives constraint g, from the person's utterance i, the
// options it names: a pick or a choice by label is probed for what was
// picked (propPickProbe); another constraint that names items of the
// agent's list ("skip 5, 7, 8 and do the rest") keeps its probe, with
// the items' words after it. One that names none gets its referent
// (referent).
func (p *propProposer) agentContext(i int, g *propGuess) {
	low := propNormalize(g.literal)
	all := propPickAll.MatchString(low)
	var picked []propOption
	if all || propPickLabels.MatchString(low) {
		picked = propPickOptions(p.agentBefore(i), g.literal)
	}
	switch {
	case picked == nil:
		p.referent(i, g)
	case g.rule == "constraint/cue/pick" || g.rule == "constraint/cue/choice":
		g.probe, g.expect = propPickProbe(picked), "yes"
	case !all:
		g.probe += " In the agent's list just before: " + propOptionList(picked) + "."
	}
}

// propOptionCell is the cell of a table row's rest (cells after the
// number, "|"-separated) with the most letters: "| 5 | 2734651404 |
// explain.go:486 | O(N*M) isAncestorOf performance |" gives the last.
func propOptionCell(rest string) string {
	best, most := "", -1
	for _, c := range strings.Split(rest, "|") {
		n := 0
		for _, r := range c {
			if unicode.IsLetter(r) {
				n++
			}
		}
		if n > most {
			best, most = strings.TrimSpace(c), n
		}
	}
	return best
}

// propDeictic is a pronoun that points back: a short constraint holding
// one ("no, that is overkill", "doing this in general is not helpful")
// means what the agent had just said.
var propDeictic = regexp.MustCompile(`\b(this|that|it|these|those|them)\b`)

// propReferentMaxWords is the longest constraint given its referent.
const propReferentMaxWords = 12

// referent appends to the probe of constraint g, from the person's
// utterance i, the agent's last sentence before it when g is short and
// points back with a pronoun and that sentence asks or offers
// (propOffer): what "that" was. A new user's trial found
// about a third of the constraints' probes on four sessions saying "this"
// or "that" and never what.
func (p *propProposer) referent(i int, g *propGuess) {
	low := propNormalize(g.literal)
	if len(strings.Fields(low)) > propReferentMaxWords || !propDeictic.MatchString(low) {
		return
	}
	ss := sentences(p.agentBefore(i))
	for k := len(ss) - 1; k >= 0; k-- {
		if s := strings.TrimSpace(ss[k]); propProseSentence(s) {
			if strings.HasSuffix(s, "?") || propOffer.MatchString(propNormalize(s)) {
				g.probe += " The agent had just said: " + propQuote(propOptionText(strings.TrimRight(s, ". "))) + "."
			}
			return
		}
	}
}

// propOffer opens what an agent proposes, which a person's short reply
// answers: "I'll add a Source field …", "I'd recommend option 2 …".
var propOffer = regexp.MustCompile(`^(i'll|i will|i'd|i would|i can|i could|i suggest|i recommend|my recommendation|want me|would you|should i|shall i|do you want)\b`)
