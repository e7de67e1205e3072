package selection

import (
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposal rule for references: the locator
// patterns and the filters a regular expression cannot express.

// propRefPattern is one kind of reference the classifier looks for.
type propRefPattern struct {
	re         *regexp.Regexp
	kind       string // what the probe asks for
	confidence float64
	rule       string
	extendLeft bool // take one more descriptive word before the match
}

const propPath = `(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,9}`

// propRefPatterns, in priority order: where two matches overlap, the
// earlier pattern's wins.
var propRefPatterns = []propRefPattern{
	{re: regexp.MustCompile(`https?://[^\s<>"'()\[\]]+`), kind: "URL", confidence: 0.8, rule: "reference/url"},
	{re: regexp.MustCompile(propPath + `:\d+(?:-\d+)?\b`), kind: "file and line", confidence: 0.85, rule: "reference/file-line"},
	{re: regexp.MustCompile(propPath + ` rev(?:ision)?\.? ?\d+\b`), kind: "document and revision", confidence: 0.85, rule: "reference/revision"},
	{re: regexp.MustCompile(propPath + ` (?:§ ?|section )\d+(?:\.\d+)*`), kind: "document section", confidence: 0.85, rule: "reference/document-section"},
	{re: regexp.MustCompile(`(?i:\bsection )\d+(?:\.\d+)*|§ ?\d+(?:\.\d+)*`), kind: "section", confidence: 0.75, rule: "reference/section", extendLeft: true},
	{re: regexp.MustCompile(`(?i:\bcommit )[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.85, rule: "reference/commit"},
	{re: regexp.MustCompile(`\b(?:PR|MR|[Pp]ull request|[Mm]erge request|[Ii]ssue) ?#?\d+\b`), kind: "pull request", confidence: 0.8, rule: "reference/pull-request"},
	{re: regexp.MustCompile(`(?i:\bticket )[A-Z][A-Z0-9]{1,9}-\d+\b`), kind: "ticket", confidence: 0.85, rule: "reference/ticket"},
	{re: regexp.MustCompile(`(?i:\b(?:build|job|pipeline) )#?\d{2,}(?: on [A-Z][\w.-]*(?: [A-Z][\w.-]*)*)?`), kind: "CI build", confidence: 0.8, rule: "reference/build"},
	{re: regexp.MustCompile(`\b(?:[a-z][\w-]* ){0,2}run #?\d{2,}\b`), kind: "run", confidence: 0.75, rule: "reference/run"},
	{re: regexp.MustCompile(`(?i:\bsnapshot )[\w.:-]*\w`), kind: "snapshot", confidence: 0.8, rule: "reference/snapshot"},
	{re: regexp.MustCompile(`\b(?:the )?[\w-]+ dashboard(?:,? panel \d+)?`), kind: "dashboard panel", confidence: 0.75, rule: "reference/dashboard"},
	{re: regexp.MustCompile(`(?i:\bbranch )[\w./-]*\w|\borigin/[\w./-]*\w`), kind: "branch", confidence: 0.7, rule: "reference/branch"},
	{re: regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b`), kind: "ticket", confidence: 0.65, rule: "reference/ticket-key"},
	{re: regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.6, rule: "reference/hex-id"},
	{re: regexp.MustCompile(`(?:[\w.-]+/)+[\w.-]*\w|\b[\w-]+\.(?:md|go|py|ts|tsx|js|jsx|json|ya?ml|toml|txt|sql|sh|rs|java|kt|rb|proto|tf|cfg|ini|lock|mod|sum|csv|xml|html|css)\b`), kind: "file", confidence: 0.3, rule: "reference/path"},
}

// propLeftStop are words a reference's left extension never takes.
var propLeftStop = map[string]bool{"in": true, "at": true, "of": true, "on": true, "see": true, "follow": true, "the": true, "a": true, "an": true,
	"is": true, "are": true, "was": true, "per": true, "from": true, "to": true, "into": true, "and": true, "or": true, "use": true, "against": true,
	"compare": true, "check": true, "read": true, "under": true, "with": true, "by": true, "for": true, "this": true, "that": true, "it": true,
	"its": true, "which": true}

// propNotTickets are upper-case keys that name standards, not tickets.
var propNotTickets = map[string]bool{"UTF": true, "ISO": true, "SHA": true, "AES": true, "HTTP": true, "TLS": true, "SSL": true, "X": true, "CVE": false, "MD": true, "P": true, "IPV": true}

// propReferences returns the references in sentence s, in the order
// they appear, each with a drafted probe.
func propReferences(s string) []propGuess {
	type span struct {
		a, b int
		p    *propRefPattern
	}
	var spans []span
	overlaps := func(a, b int) bool {
		for _, sp := range spans {
			if a < sp.b && sp.a < b {
				return true
			}
		}
		return false
	}
	for k := range propRefPatterns {
		pat := &propRefPatterns[k]
		for _, m := range pat.re.FindAllStringIndex(s, -1) {
			a, b := m[0], m[1]
			lit := strings.TrimRight(s[a:b], ".,;:!?")
			b = a + len(lit)
			if !propRefOK(s, a, b, pat) {
				continue
			}
			if pat.rule == "reference/run" {
				for {
					w, rest, ok := strings.Cut(s[a:b], " ")
					if !ok || !propLeftStop[strings.ToLower(w)] {
						break
					}
					a = b - len(rest)
				}
			}
			if pat.extendLeft {
				a = propExtendLeft(s, a)
			}
			if overlaps(a, b) {
				continue
			}
			spans = append(spans, span{a, b, pat})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var out []propGuess
	for _, sp := range spans {
		lit := s[sp.a:sp.b]
		conf := sp.p.confidence
		if sp.p.rule == "reference/dashboard" && !strings.Contains(lit, "panel") {
			conf = 0.6
		}
		ctx := strings.TrimSpace(strings.TrimRight(s[:sp.a]+"…"+s[sp.b:], ". "))
		probe := "Which " + sp.p.kind + " does “" + ctx + "” refer to?"
		if len(strings.Fields(strings.ReplaceAll(ctx, "…", ""))) < 2 {
			probe = "Which " + sp.p.kind + " was mentioned?"
		}
		out = append(out, propGuess{class: fixture.Reference, literal: lit, probe: probe, expect: lit, confidence: conf, rule: sp.p.rule})
	}
	return out
}

// propRefOK filters matches a regular expression cannot: hex ids need a
// letter and a digit and must stand alone, ticket keys must not name a
// standard, a dashboard needs a name that is not an article.
func propRefOK(s string, a, b int, pat *propRefPattern) bool {
	lit := s[a:b]
	if lit == "" {
		return false
	}
	before := byte(' ')
	if a > 0 {
		before = s[a-1]
	}
	after := byte(' ')
	if b < len(s) {
		after = s[b]
	}
	switch pat.rule {
	case "reference/hex-id":
		return strings.ContainsAny(lit, "0123456789") && strings.ContainsAny(lit, "abcdef") &&
			!strings.ContainsRune("/.-_#", rune(before)) && !strings.ContainsRune("/-_", rune(after))
	case "reference/ticket-key":
		key, _, _ := strings.Cut(lit, "-")
		return !propNotTickets[key] && !strings.ContainsRune("/.-_", rune(before))
	case "reference/dashboard":
		name := strings.TrimPrefix(lit, "the ")
		name, _, _ = strings.Cut(name, " ")
		return !propLeftStop[strings.ToLower(name)]
	case "reference/path":
		// Not a date, a fraction or a bare "a/b" word pair.
		return strings.ContainsAny(lit, ".") || strings.Count(lit, "/") >= 2
	}
	return true
}

// propExtendLeft moves a to take in the word before it ("runbook" in
// "runbook section 3.4") unless that word is a stop word.
func propExtendLeft(s string, a int) int {
	head := strings.TrimRight(s[:a], " ")
	if len(head) == len(s[:a]) || head == "" {
		return a
	}
	i := strings.LastIndexAny(head, " \t(\"“") + 1
	w := head[i:]
	if w == "" || propLeftStop[strings.ToLower(w)] || strings.ContainsAny(w, ",;:.!?") {
		return a
	}
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '/') {
			return a
		}
	}
	return i
}
