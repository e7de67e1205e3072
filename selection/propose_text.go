package selection

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
)

// This file holds the text helpers of the proposal rules: sentences,
// lead-ins, normalisation and content words.

// propShortSentence reports whether s can be a lead-in on its own line:
// at most three words, ending in "." or ":".
func propShortSentence(s string) bool {
	if s == "" || !(strings.HasSuffix(s, ".") || strings.HasSuffix(s, ":")) {
		return false
	}
	return len(strings.Fields(s)) <= 3
}

// propConnectives are lead-ins without a colon.
var propConnectives = []string{"also", "and", "plus", "oh and", "btw", "by the way", "one more thing", "additionally"}

// propLeadIn splits an introductory phrase off s: "Ground rule: x"
// gives ("Ground rule", "x"), "Also, x" gives ("Also", "x"). A colon
// after a path, a number or a long clause is not a lead-in's.
func propLeadIn(s string) (lead, body string) {
	if i := strings.Index(s, ": "); i > 0 && i <= 60 {
		head := s[:i]
		ok := len(strings.Fields(head)) <= 6
		for _, r := range head {
			if !(unicode.IsLetter(r) || r == ' ' || r == '\'' || r == '’' || r == ',') {
				ok = false
				break
			}
		}
		if ok {
			return head, strings.TrimSpace(s[i+2:])
		}
	}
	low := strings.ToLower(s)
	for _, c := range propConnectives {
		if strings.HasPrefix(low, c+", ") {
			return s[:len(c)], strings.TrimSpace(s[len(c)+2:])
		}
	}
	return "", s
}

// propPasted reports whether the body of a sentence after its lead-in is
// pasted rather than said: three tokens or more that are not prose
// (propProseSentence), or an opening token that is no word (a path, a
// file:line, a quote). The "Troy" of "Project: Troy" is said.
func propPasted(body string) bool {
	f := strings.Fields(body)
	return len(f) > 0 && (len(f) >= 3 && !propProseSentence(body) || !propWordToken(strings.Trim(f[0], ".,;:!?()\"'`*")))
}

// propNormalize lower-cases s and straightens its apostrophes.
func propNormalize(s string) string {
	return strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
}

// propFirstPerson is the pronoun I, alone or contracted: a capital that
// stays.
var propFirstPerson = regexp.MustCompile(`^I(['’](m|d|ll|ve))?[,.;:]?$`)

// propLowerFirst lower-cases the first letter of s unless the first word
// looks like a name (a second capital, a digit or punctuation in it) or
// is the pronoun I.
func propLowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	r, size := utf8.DecodeRuneInString(word)
	if !unicode.IsUpper(r) || propFirstPerson.MatchString(word) {
		return s
	}
	for _, c := range word[size:] {
		if !unicode.IsLower(c) && c != '\'' && c != '’' {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// propStop are words too common to say what a sentence is about.
var propStop = wordSet(`a an the and or but if then else of to in into on at by for from with without
		as is are was were be been being am do does did done doing have has had having will would shall should can could
		may might must not no nor never it its it's this that these those there here we us our you your i me my he she they
		them their what which who whom whose why how when where all any each every some such only also just than too very
		so up down out over under again once more most other same own let let's please ok okay yes get got go going
		make made keep still now new old one two three before after until while about above below between through during`)

// propContentWords returns the lower-case words of s that are not stop
// words, with surrounding punctuation removed ("orders.status" and
// "dual_write_orders" stay whole).
func propContentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(propNormalize(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./-#§'", r))
	}) {
		f = strings.Trim(f, "./-'")
		if len(f) >= 2 && !propStop[f] {
			out[f] = true
		}
	}
	return out
}

// propOverlap is the share of a's words that are in b.
func propOverlap(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// propCommandArgs finds a slash command's arguments, the only part of
// its message a person typed as prose.
var propCommandArgs = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)

// propTypedText is the prose a person typed in m: a slash command's
// arguments, nothing of a shell command (a command line, not an
// instruction), and for any other typed message its text without pasted
// material (propProse).
func propTypedText(m agentlog.Message) string {
	switch m.Kind {
	case agentlog.SlashCommand:
		if a := propCommandArgs.FindStringSubmatch(m.Text); a != nil {
			return propProse(a[1])
		}
		return ""
	case agentlog.ShellCommand:
		return ""
	}
	return propProse(m.Text)
}

// propRefused reports whether the person refused tool call c (Claude
// Code's result "The user doesn't want to proceed with this tool use").
func propRefused(c agentlog.ToolCall) bool {
	return c.IsError && strings.HasPrefix(strings.TrimPrefix(c.Result, "Error: "), propRefusedResult)
}

// propRefusedResult opens the result Claude Code writes for a tool call
// the person refused.
const propRefusedResult = "The user doesn't want to proceed with this tool use."

// propRejectMarker is what Claude Code writes, in the result of a tool
// call the person refused, before the words the person typed.
const propRejectMarker = "To tell you how to proceed, the user said:"

// propClarifyMarker opens the text Claude Code itself writes after the
// marker when the person chose to clarify the agent's multiple-choice
// questions rather than answer them: its words, not the person's.
const propClarifyMarker = "The user wants to clarify these questions."

// propRejectionText is what a person typed when refusing tool call c —
// Claude Code's result "The user doesn't want to proceed with this tool
// use. … To tell you how to proceed, the user said:\n<text>" — without
// pasted material, or "" when c's result holds none or only Claude
// Code's own words (propClarifyMarker).
func propRejectionText(c agentlog.ToolCall) string {
	_, text, ok := strings.Cut(c.Result, propRejectMarker)
	if !ok || !c.HasResult || strings.HasPrefix(strings.TrimSpace(text), propClarifyMarker) {
		return ""
	}
	return propProse(text)
}

// propAnswerMarker is what Claude Code writes, in the result of the
// agent's multiple-choice question tool (AskUserQuestion), before the
// person's answers.
const propAnswerMarker = "User has answered your questions:"

// propAnswerPair is one question and its answer in such a result:
// "question"="answer".
var propAnswerPair = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"`)

// propAnswerText is what a person answered to the agent's questions in
// tool call c — Claude Code's result `User has answered your questions:
// "Q1"="A1", "Q2"="A2". You can now continue …` — the answers (an
// option's label, or what the person typed instead), one per line,
// without pasted material, or "" when c's result holds none. The
// questions are the agent's words and are left out.
func propAnswerText(c agentlog.ToolCall) string {
	_, rest, ok := strings.Cut(c.Result, propAnswerMarker)
	if !ok || !c.HasResult {
		return ""
	}
	var answers []string
	for _, m := range propAnswerPair.FindAllStringSubmatch(rest, -1) {
		if a := strings.TrimSpace(strings.ReplaceAll(m[2], `\"`, `"`)); a != "" {
			answers = append(answers, a)
		}
	}
	return propProse(strings.Join(answers, "\n"))
}

// propProse is text without what a person pasted rather than wrote:
// typedProse (shared with the restatement signal), then the lines
// propPastedLine recognises.
func propProse(text string) string {
	prose, _ := typedProse(text)
	if !propPastedLine.MatchString(prose) {
		return prose
	}
	var keep []string
	for line := range strings.Lines(prose) {
		if line = strings.TrimRight(line, "\n"); !propPastedLine.MatchString(line) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// propPastedLine is a pasted line typedProse lets through: a diff line
// of indented code ("+      // x"), a program's error ("go: cannot find
// main module"), a line with a terminal's glyphs in it ("Stop says ⎿"),
// the line Claude Code adds under an accepted plan ("If you need
// specific details from before exiting plan mode … read the full
// transcript at: PATH").
var propPastedLine = regexp.MustCompile(`(?m)^[+-]( {2,}|\t|\s*//)|^If you need specific details from before exiting plan mode|^[a-z][\w.-]*: (cannot|can't|error|fatal|no such|not found|permission denied|unknown|invalid|failed)\b|[⎿⏺❯⎯│]`)

// propPreview shortens s to at most 40 characters for a message.
func propPreview(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:39]) + "…"
}

// propPastedText is what propProse left out of a typed message's text:
// its non-blank lines, trimmed, that are not lines of prose, in order.
func propPastedText(text, prose string) string {
	kept := map[string]int{}
	for line := range strings.Lines(prose) {
		kept[strings.TrimSpace(line)]++
	}
	var out []string
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
		case kept[t] > 0:
			kept[t]--
		default:
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// pastedRefs proposes the files named on the lines a person pasted into
// utterance e (program output, code, quoted text), each read as the
// agent's mention is: kept when the agent then changed the file, else
// working state, 0.3. A linter's "pkg/x.go:14:2: …" that the agent then
// fixes is a reference; the temporary paths of a test run are not. The
// hashes, URLs and ids of pasted output are left out: a git log or a
// test run pasted to show a state names many that nobody works on.
func (p *propProposer) pastedRefs(e propUtterance) {
	for line := range strings.Lines(e.pasted) {
		refs := propReferencesIn(strings.TrimSpace(line), "pasted", p.work)
		files := refs[:0]
		for _, r := range refs {
			if r.rule == "reference/path" || r.rule == "reference/file-line" {
				files = append(files, r)
			}
		}
		if len(files) > 0 {
			p.addRefs(e, files)
		}
	}
}
