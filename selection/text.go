package selection

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
)

// Text helpers for what people type into agent sessions, shared by the
// signals that read typed messages (restatements.go) and usable by the
// proposer: normalisation, pasted-block removal, sentence splitting and
// content words.
//
// People paste into their prompts: test output, stack traces, git
// errors, diffs, logs, code, a screenshot of a terminal in text. That
// text was not typed as an instruction, and phrases in it ("try
// again.", "you forgot a semicolon") must not be read as the person's.
// typedProse keeps only the lines that read as the person's own prose.

// normaliseText lower-cases s, turns typographic quotes and apostrophes
// into ASCII ones and collapses runs of white space into one space.
func normaliseText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch r {
		case '\u2018', '\u2019', '\u02bc', '`':
			r = '\''
		case '\u201c', '\u201d':
			r = '"'
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Pasted-line patterns: each matches a line that a program wrote rather
// than a person (see pastedLine).
var (
	// a stack frame or panic: "  at foo (bar.js:1:2)", "goroutine 7 [running]:",
	// "\t/src/x.go:12 +0x1d", `File "x.py", line 3`, "panic: …", "Traceback".
	pasteStackRe = regexp.MustCompile(`^(\s+at \S|goroutine \d+ \[|panic: |Traceback \(most recent|\s*File "[^"]+", line \d+|\s+\S+\.(go|py|js|ts|rb|java|rs):\d+)`)
	// a log line: a leading timestamp or level, or key=value fields.
	pasteLogRe = regexp.MustCompile(`^(\[?\d{4}-\d{2}-\d{2}[T ]\d|\[?\d{2}:\d{2}:\d{2}|\[?(INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\]?[ :]|time=\S+ level=|level=\w+ )`)
	// diff and patch text.
	pasteDiffRe = regexp.MustCompile(`^(diff --git |index [0-9a-f]{6,}\.\.|@@ -\d|\+\+\+ [ab/]|--- [ab/]|[+-]\t)`)
	// shell and tool output: a prompt, git's and compilers' prefixes,
	// test runners' result lines, terminal decorations.
	pasteShellRe = regexp.MustCompile(`^(\$ \S|❯|⎿|[│├└┌┐┘┬┴┼─╭╮╯╰●⏺✓✗✔✘]|(?i:fatal|error|hint|warning|remote|usage|npm ERR!|panic|exit status \d+):\s|--- (FAIL|PASS|SKIP):|=== (RUN|PAUSE|CONT|NAME)\s|(FAIL|PASS)(\s|$)|ok\s+\S+\t|To [a-z]+[:@]|\s*\d+ (passed|failed|files? changed)|[\w./-]+:\d+:\d+: )`)
)

// The bytes a line that pasteStackRe, pasteLogRe or pasteDiffRe matches
// can start with.
const (
	pasteStackFirst = " \t\n\f\rgpTF"
	pasteLogFirst   = "[0123456789IWEDTFtl"
	pasteDiffFirst  = "di@+-"
)

// pastedLine reports whether one line of a typed message reads as
// pasted program output rather than prose: a stack frame, a log line,
// diff text, shell output, or a long line with no sentence in it (more
// than 200 bytes and no ". " or "? ").
func pastedLine(line string) bool {
	t := strings.TrimRight(line, " \t\r")
	if t == "" {
		return false
	}
	// (Each of the first three patterns can start with only a few bytes:
	// the others skip it.)
	c := t[0]
	if strings.IndexByte(pasteStackFirst, c) >= 0 && pasteStackRe.MatchString(t) ||
		strings.IndexByte(pasteLogFirst, c) >= 0 && pasteLogRe.MatchString(t) ||
		strings.IndexByte(pasteDiffFirst, c) >= 0 && pasteDiffRe.MatchString(t) || pasteShellRe.MatchString(t) {
		return true
	}
	if len(t) > 200 && !strings.Contains(t, ". ") && !strings.Contains(t, "? ") && !strings.Contains(t, ", ") {
		return true
	}
	return codeLine(t)
}

// codeLine reports whether a line looks like source code: it ends in
// an opening or closing brace, a semicolon or "=>", or is mostly
// punctuation.
func codeLine(t string) bool {
	s := strings.TrimSpace(t)
	if s == "" {
		return false
	}
	switch {
	case strings.HasSuffix(s, "{"), strings.HasSuffix(s, "};"), s == "}", s == ")", strings.HasSuffix(s, ";"), strings.HasSuffix(s, "=>"):
		return true
	}
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsSpace(r):
			letters++
		default:
			other++
		}
	}
	return len(s) >= 12 && other > letters
}

// typedProse returns the lines of a typed message that read as the
// person's own prose, joined by "\n", and the number of lines dropped as
// pasted. Dropped are: the inside of ``` or ~~~ fences (and the fence
// lines), quoted lines ("> …"), indented blocks of four spaces or a tab
// that follow a blank or dropped line, lines pastedLine recognises, and
// a line of prose sandwiched between two pasted lines (part of the same
// dump). A lead-in before a paste ("we are seeing:") and a question
// after it stay.
func typedProse(text string) (prose string, dropped int) {
	lines := strings.Split(text, "\n")
	keep := make([]bool, len(lines))
	fence := ""
	prevDropped := true
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			prevDropped = true
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			prevDropped = true
			continue
		}
		switch {
		case t == "":
			keep[i] = false
			prevDropped = true
			continue
		case strings.HasPrefix(t, ">") && !strings.HasPrefix(t, "->"),
			(strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && prevDropped && !listItem(t),
			pastedLine(l):
			prevDropped = true
			continue
		}
		keep[i] = true
		prevDropped = false
	}
	// A line of prose right between two pasted lines is output too: the
	// prose-looking lines of a terminal dump ("Checking out files:
	// 100%"). The lines that lead into a paste or follow it stay.
	pasted := func(j int) bool { return !keep[j] && strings.TrimSpace(lines[j]) != "" }
	for i := 1; i+1 < len(lines); i++ {
		if keep[i] && pasted(i-1) && pasted(i+1) {
			keep[i] = false
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if keep[i] {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(strings.TrimSpace(l))
		} else if strings.TrimSpace(l) != "" {
			dropped++
		}
	}
	return b.String(), dropped
}

// listItem reports whether t starts like a list item ("- ", "* ", "1. ").
func listItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return true
	}
	i := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}

// sentences splits text into trimmed sentences: after '.', '!', '?' or
// '…' followed by white space or the end, after ':' followed by a line
// break, and at every line break. A full stop inside a word ("go.mod",
// "v1.2") does not split, nor one after a common abbreviation ("e.g.").
func sentences(text string) []string {
	var out []string
	flush := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		end := i + size
		switch r {
		case '\n', '\r':
			if r == '\n' && wrapped(text[start:i], text[end:]) {
				break // a hard-wrapped sentence goes on
			}
			flush(text[start:i])
			start = end
		case '.', '!', '?', '…':
			if end < len(text) && text[end] != ' ' && text[end] != '\t' && text[end] != '\n' && text[end] != '\r' {
				break
			}
			if r == '.' && abbreviationEnd(text[start:end]) {
				break
			}
			flush(text[start:end])
			start = end
		}
		i = end
	}
	flush(text[start:])
	return out
}

// wrapped reports whether a line break between line and next is a hard
// wrap inside a sentence, not its end: the next line starts at once with
// a lower-case letter, and the line ends with a comma, or with a letter
// and is long, as a line a mail client or an editor wrapped is
// (wrapWidth runes or more: "Don't force-push to main,\nand never
// delete …"). A short line ending in a word is a line of its own, as in a
// list typed without bullets ("never push to main\nalways run the
// tests"); a list item, a heading, code and a capitalised line start
// anew.
func wrapped(line, next string) bool {
	line = line[strings.LastIndexByte(line, '\n')+1:] // the last line of a sentence wrapped before
	if line == "" || next == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	first, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsLower(first) {
		return false
	}
	if last == ',' || unicode.IsLetter(last) && utf8.RuneCountInString(line) >= wrapWidth {
		return true
	}
	// A line ending in a word that cannot end a sentence goes on, however
	// short: "Keep the old endpoint working until\nthe clients migrate."
	f := strings.Fields(line)
	return len(f) > 0 && continuesSentence[strings.ToLower(f[len(f)-1])]
}

// continuesSentence are English words a sentence does not end with:
// conjunctions, prepositions and articles that need what follows.
var continuesSentence = wordSet(`until unless because and or but nor the a an to of for with without before after
		if when while than that which in on at by from into onto as so`)

// wrapWidth is the length from which a line ending in a word is taken to
// be wrapped: shorter than the 72 to 80 columns editors and mail clients
// wrap at, by a word or two.
const wrapWidth = 60

// abbreviationEnd reports whether s ends with an abbreviation's stop.
func abbreviationEnd(s string) bool {
	low := strings.ToLower(s)
	for _, a := range [...]string{"e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "incl."} {
		if low == a || strings.HasSuffix(low, " "+a) || strings.HasSuffix(low, "("+a) {
			return true
		}
	}
	return false
}

// textWords splits s into lower-case words: letters, digits and '_'
// make words; '.', '-' and '/' join inside one ("go.mod", "force-push",
// "cmd/tally"), apostrophes vanish ("don't" → "dont"); everything else
// separates. Chinese and Japanese are written without spaces, so a run
// of Han, Hiragana or Katakana is read as its overlapping pairs of
// characters (character bigrams, as CJK search indexes do: "不要推送" is
// "不要", "要推", "推送"), a run of one character as that character.
func textWords(s string) []string { return splitWords(s, true) }

// textRunWords is textWords with a run of Han, Hiragana or Katakana kept
// whole, as one word: the text itself, for comparing runs of it
// (editedCopy), where character pairs would count each character twice.
func textRunWords(s string) []string { return splitWords(s, false) }

// splitWords is textWords, with runs of the spaceless scripts as
// character pairs when bigrams holds, else as letters of one word.
func splitWords(s string, bigrams bool) []string {
	var out []string
	var tok []byte // lower-cased UTF-8
	var cjkPrev rune
	cjkRun := 0
	endCJK := func() {
		if cjkRun == 1 {
			out = append(out, string(cjkPrev))
		}
		cjkRun = 0
	}
	flush := func() {
		t := tok
		for len(t) > 0 && (t[len(t)-1] == '.' || t[len(t)-1] == '-' || t[len(t)-1] == '/') {
			t = t[:len(t)-1]
		}
		for len(t) > 0 && (t[0] == '.' || t[0] == '-' || t[0] == '/') {
			t = t[1:]
		}
		if len(t) > 0 {
			out = append(out, string(t))
		}
		tok = tok[:0]
	}
	for _, r := range s {
		if cjkRun > 0 && !spaceless(r) {
			endCJK()
		}
		if r < utf8.RuneSelf { // ASCII, as unicode's tables class it
			switch {
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '_':
				tok = append(tok, byte(r))
			case 'A' <= r && r <= 'Z':
				tok = append(tok, byte(r)+'a'-'A')
			case (r == '.' || r == '-' || r == '/') && len(tok) > 0:
				tok = append(tok, byte(r))
			case r == '\'':
			default:
				flush()
			}
			continue
		}
		switch {
		case bigrams && spaceless(r):
			flush()
			if cjkRun > 0 {
				out = append(out, string([]rune{cjkPrev, r}))
			}
			cjkPrev = r
			cjkRun++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tok = utf8.AppendRune(tok, unicode.ToLower(r))
		case r == '\u2019':
		default:
			flush()
		}
	}
	flush()
	endCJK()
	return out
}

// spaceless reports whether r is of a script written without spaces
// between words: Han, Hiragana, Katakana (and the long-vowel mark ー).
func spaceless(r rune) bool {
	return r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー')
}

// textStopWords are English function words and conversational filler:
// words that carry no content of an instruction.
var textStopWords = wordSet(`a an the to of in on at for with by from into onto about as than then
		and or but so if because while until before after again also too very just only even still
		is are was were be been being am do does did done doing have has had having
		i me my mine we us our you your yours he him his she her it its they them their this that these those
		there here what which who whom whose how why when where
		will would can could should shall may might must wont cant dont doesnt didnt isnt arent wasnt
		im ive id ill youre youve weve were theyre lets thats whats theres heres
		please thanks thank ok okay yes yeah yep no nope hmm hm oh ah well sure right now
		any all some every each other another more most much many few such same
		up out over down off not get got go goes going make makes made let like want need think know see look
		one two also already though although however ever`)

// wordStem folds common English suffixes: -ies → -y, then -s (not
// -ss), then -ing / -ed, then a final -e, on words of four letters or
// more, so "tests", "testing" and "tested" give "test" and "changes"
// and "change" give "chang". Words with '.', '/', '_' or digits (file
// names, paths, identifiers, versions) are left alone.
func wordStem(w string) string {
	if strings.ContainsAny(w, "./_0123456789") {
		return w
	}
	if len(w) >= 5 && strings.HasSuffix(w, "ies") {
		return w[:len(w)-3] + "y"
	}
	if len(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	if len(w) >= 6 && strings.HasSuffix(w, "ing") {
		w = w[:len(w)-3]
	} else if len(w) >= 5 && strings.HasSuffix(w, "ed") {
		w = w[:len(w)-2]
	}
	if len(w) >= 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// contentWords returns the sorted, unique, stemmed words of s that are
// not stop words and are longer than one letter (a single digit is kept:
// "item 3" and "item 4" differ).
func contentWords(s string) []string {
	return contentOf(textWords(s))
}

// contentOf is contentWords on the words of a text (textWords), which it
// reuses.
func contentOf(words []string) []string {
	out := words[:0]
	for _, w := range words {
		if len(w) < 2 && !('0' <= w[0] && w[0] <= '9') || textStopWords[w] {
			continue
		}
		out = append(out, wordStem(w))
	}
	sort.Strings(out)
	return compactStrings(out)
}

// compactStrings removes adjacent duplicates from a sorted slice.
func compactStrings(s []string) []string {
	if len(s) == 0 {
		return s
	}
	j := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[j-1] {
			s[j] = s[i]
			j++
		}
	}
	return s[:j]
}

// commonWords returns the words in both sorted sets a and b.
func commonWords(a, b []string) []string {
	var out []string
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// argumentWord reports whether a content word names a particular thing:
// it has a digit, or a '.', '/' or '_' inside (a number, a version, a
// file, a path, an identifier).
func argumentWord(w string) bool {
	return strings.ContainsAny(w, "0123456789./_")
}

// englishFunctionWords are common English function words that are not
// also words of German, French, Spanish or Italian ("in", "a", "was",
// "also" are left out): in English prose they are about a fifth of the
// words, in the others' almost none.
var englishFunctionWords = wordSet(`the to and of is it its you your that for this with be not can we do does
		are if or but at by from have has what there should would my our they them then than when how why
		which any just please dont lets`)

// otherFunctionWords are common function words of German, French,
// Spanish, Italian, Portuguese and Dutch that are not English words
// ("die", "no", "as", "is", "per", "con" are left out): positive evidence
// that a text is in one of those languages.
var otherFunctionWords = wordSet(`der das und nicht ist ich du mit für auf ein eine einen zu den dem es sie wir bitte noch auch
		le la les et pas est je vous avec pour une des du que qui dans sur ce cette
		el los las es con para por una del pero muy esto
		il di che non sono della questo
		os não uma com mais isso
		het een niet ik je met voor op maar`)

// foreignLetters reports whether word w has a letter English words do
// not: a Latin letter with a diacritic (ł, ş, ő, é, ü), or a letter of
// another script (Cyrillic, Greek, Arabic, Hebrew, Hangul, Devanagari,
// Thai, …; Chinese and Japanese are counted apart).
func foreignLetters(w string) bool {
	for _, r := range w {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) && !spaceless(r) {
			return true
		}
	}
	return false
}

// ReadsEnglish reports whether the text a person typed in s reads as
// English: of its words (textWords, a Chinese or Japanese character pair
// counted as one), at least 5% are English function words, or too few
// are another's to say it is not (under 5% German, French, Spanish,
// Italian, Portuguese or Dutch function words and words with letters
// English has not, under a third Chinese or Japanese character pairs) (on the 135
// real sessions of the development set the least is 7.5%; German,
// Chinese and Japanese sessions a new user wrote had none). A session
// with fewer than 10 typed words is taken to be English: too little to
// tell.
func ReadsEnglish(s *agentlog.Session) bool {
	total, english, other, cjk := 0, 0, 0, 0
	for i := range s.Messages {
		m := &s.Messages[i]
		if !m.Person() {
			continue
		}
		prose, _ := typedProse(m.Text)
		for _, w := range textWords(prose) {
			total++
			switch r, _ := utf8.DecodeRuneInString(w); {
			case englishFunctionWords[w]:
				english++
			case otherFunctionWords[w], foreignLetters(w):
				other++
			case spaceless(r):
				cjk++
			}
		}
	}
	// Another language needs evidence of its own: terse English ("npm
	// test", "fix lint", "deploy staging") has no function words at all.
	return total < 10 || english*20 >= total || other*20 < total && cjk*3 < total
}

// wordSet is the set of the words of s, split at white space (set).
func wordSet(s string) map[string]bool { return set(strings.Fields(s)...) }
