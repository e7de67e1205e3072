package selection

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the proposal rule for references: the locator
// patterns and the filters a regular expression cannot express.

// propRefPattern is one kind of reference the classifier looks for,
// with its test case: an example sentence it must find the reference in
// (ref) and a near miss in which it must find none of its kind.
type propRefPattern struct {
	re         *regexp.Regexp
	kind       string // what the probe asks for
	confidence float64
	rule       string
	extendLeft bool // take one more descriptive word before the match
	quoted     bool // the match is in quotes, which the reference leaves out
	example    string
	ref        string
	nearMiss   string
}

// propW is a word character of a path: any script's letters, marks and
// digits, and "_" (RE2's \w is ASCII's alone, and would cut "größe.go"
// at its "ö").
const propW = `\p{L}\p{M}\p{N}_`

// propPath is a file's path: names separated by slashes (or a Windows
// path's backslashes), the last with an extension, after a drive letter
// when there is one.
const propPath = `(?:\b[A-Za-z]:[\\/]|\\\\)?(?:[` + propW + `.-]+[/\\])*[` + propW + `-][` + propW + `.-]*\.[A-Za-z]\w{0,9}`

// propWinPath is a Windows path: from a drive letter, a share's
// "\\server\" (UNC) or ".\", or relative with a file extension at its
// end (a bare "a\b" is too often an escape in pasted code).
const propWinPath = `\b[A-Za-z]:\\(?:[` + propW + `.-]+\\)*[` + propW + `.-]*[` + propW + `]` +
	`|\\\\[` + propW + `.-]+(?:\\[` + propW + `.$-]+)+` +
	`|\.\.?\\(?:[` + propW + `.-]+\\)*[` + propW + `.-]*[` + propW + `]` +
	`|(?:[` + propW + `.-]+\\)+[` + propW + `-][` + propW + `.-]*\.[A-Za-z]\w{0,9}\b`

// propRefPatterns, in priority order: where two matches overlap, the
// earlier pattern's wins.
var propRefPatterns = []propRefPattern{
	// A path with a space in it ("C:\Users\Jörg Weiß\…", "/Users/me/My
	// Project/…") is whole only where quotes or backticks bound it; bare,
	// its end cannot be told from the words after it.
	{re: regexp.MustCompile(`(?:` + "`" + propQuotedPath("`", "`") + "`" + `|"` + propQuotedPath(`"`, `"`) + `"|'` + propQuotedPath(`'`, `'`) + `'|“` + propQuotedPath("“", "”") + `”)`), kind: "file", confidence: 0.3, rule: "reference/path", quoted: true,
		example: `Update "C:\Users\Jörg Weiß\repo\config.ini" as discussed.`, ref: `C:\Users\Jörg Weiß\repo\config.ini`, nearMiss: `He said "see you / later" and left.`},
	{re: regexp.MustCompile(`https?://[^\s<>"'()\[\]` + "`" + `]+`), kind: "URL", confidence: 0.8, rule: "reference/url",
		example: "Details are at https://example.com/runbooks/42.", ref: "https://example.com/runbooks/42", nearMiss: "use https for every call"},
	// Lines in a list with no space ("x.go:42,75") are the file's too.
	{re: regexp.MustCompile(propPath + `:\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\b`), kind: "file and line", confidence: 0.85, rule: "reference/file-line",
		example: "The off-by-one is at internal/inventory/retry.go:397.", ref: "internal/inventory/retry.go:397", nearMiss: "It failed at 12:30."},
	{re: regexp.MustCompile(propPath + ` rev(?:ision)?\.? ?\d+\b`), kind: "document and revision", confidence: 0.85, rule: "reference/revision",
		example: "I'm keeping the write-up in report.md rev 14.", ref: "report.md rev 14", nearMiss: "the next revision of the report"},
	{re: regexp.MustCompile(propPath + ` (?:§ ?|section )\d+(?:\.\d+)*`), kind: "document section", confidence: 0.85, rule: "reference/document-section",
		example: "Spec is docs/rfc-0042.md §7; follow it.", ref: "docs/rfc-0042.md §7", nearMiss: "the spec has a section on it"},
	{re: regexp.MustCompile(`(?i:\bsection )\d+(?:\.\d+)*|§ ?\d+(?:\.\d+)*`), kind: "section", confidence: 0.75, rule: "reference/section", extendLeft: true,
		example: "If it goes wrong, follow runbook section 3.4.", ref: "runbook section 3.4", nearMiss: "the section below"},
	{re: regexp.MustCompile(`(?i:\bcommit )[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.85, rule: "reference/commit",
		example: "git bisect says commit ab70bc2 is the first bad one.", ref: "commit ab70bc2", nearMiss: "commit and push"},
	{re: regexp.MustCompile(`\b(?:PR|MR|[Pp]ull request|[Mm]erge request|[Ii]ssue) ?#?\d+\b`), kind: "pull request", confidence: 0.8, rule: "reference/pull-request",
		example: "The earlier attempt was PR #5527; it got reverted.", ref: "PR #5527", nearMiss: "open a PR for it"},
	{re: regexp.MustCompile(`\B#\d{2,6}\b`), kind: "pull request or issue", confidence: 0.7, rule: "reference/number",
		example: "Replied to both threads on #174.", ref: "#174", nearMiss: "set the color to #123abc"},
	{re: regexp.MustCompile(`(?i:\bticket )[A-Z][A-Z0-9]{1,9}-\d+\b`), kind: "ticket", confidence: 0.85, rule: "reference/ticket",
		example: "Link everything to ticket INFRA-909.", ref: "ticket INFRA-909", nearMiss: "file a ticket"},
	{re: regexp.MustCompile(`(?i:\b(?:build|job|pipeline) )#?\d{2,}(?: on [A-Z][\w.-]*(?: [A-Z][\w.-]*)*)?`), kind: "CI build", confidence: 0.8, rule: "reference/build",
		example: "The flake shows up in build 86363 on GitHub Actions.", ref: "build 86363 on GitHub Actions", nearMiss: "the build is green"},
	{re: regexp.MustCompile(`\b(?:[a-z][\w-]* ){0,2}run #?\d{2,}\b`), kind: "run", confidence: 0.75, rule: "reference/run",
		example: "Compare against bench baseline run 9191.", ref: "bench baseline run 9191", nearMiss: "run it 3 times"},
	{re: regexp.MustCompile(`(?i:\bsnapshot )[\w.:-]*\d[\w.:-]*\w`), kind: "snapshot", confidence: 0.8, rule: "reference/snapshot",
		example: "Use snapshot stg-2026-01-22 for the fixtures.", ref: "snapshot stg-2026-01-22", nearMiss: "take a snapshot first"},
	{re: regexp.MustCompile(`\b(?:the )?[\w-]+ dashboard(?:,? panel \d+)?`), kind: "dashboard panel", confidence: 0.75, rule: "reference/dashboard",
		example: "Watch the ingest-lag dashboard, panel 12 while it deploys.", ref: "the ingest-lag dashboard, panel 12", nearMiss: "open a dashboard"},
	{re: regexp.MustCompile(`(?i:\b(?:branch|parent|onto|rebase on|checkout|switch to) )` + "`?" + `[\w.-]+(?:/[\w.-]+)+|\borigin/[\w./-]*\w|(?i:\bbranch )` + "`?" + `[A-Za-z0-9][\w.-]*[\d_/-][\w./-]*\w`), kind: "branch", confidence: 0.7, rule: "reference/branch",
		example: "Rebase onto branch feature/ledger-v2 first.", ref: "branch feature/ledger-v2", nearMiss: "The branch is ahead by 1 commit."},
	{re: regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b`), kind: "ticket", confidence: 0.65, rule: "reference/ticket-key",
		example: "Context is in DATA-4073.", ref: "DATA-4073", nearMiss: "The file is UTF-8 encoded."},
	{re: regexp.MustCompile("`" + `[0-9a-f]{7,40}` + "`"), kind: "commit", confidence: 0.6, rule: "reference/quoted-hex",
		example: "Committed as `6984823`.", ref: "6984823", nearMiss: "the value 1234567 is too big"},
	{re: regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.6, rule: "reference/hex-id",
		example: "Committed c2b0273 with the fixes.", ref: "c2b0273", nearMiss: "the value 1234567 is too big"},
	{re: regexp.MustCompile(`\b\d{9,20}\b`), kind: "id", confidence: 0.6, rule: "reference/numeric-id",
		example: "Replied to comment 2734843645.", ref: "2734843645", nearMiss: "it added 51894 lines"},
	{re: regexp.MustCompile("`" + `[\w-]+(?:/[\w-]+)+` + "`"), kind: "name", confidence: 0.6, rule: "reference/quoted-name",
		example: "The metadata lives on `entire/sessions`.", ref: "`entire/sessions`", nearMiss: "Claude/Gemini hooks"},
	{re: regexp.MustCompile(propWinPath + `|(?:\b[A-Za-z]:/|~?/)?(?:[` + propW + `.-]+/)+[` + propW + `.-]*[` + propW + `]|(?:\B\.)?\b[` + propW + `-]+\.(?:md|go|py|ts|tsx|js|jsx|json|jsonl|ya?ml|toml|txt|sql|sh|rs|java|kt|rb|proto|tf|cfg|ini|lock|mod|sum|csv|xml|html|css|tmpl)\b`), kind: "file", confidence: 0.3, rule: "reference/path",
		example: "Changed `cmd/entire/cli/resume.go` to log the agent.", ref: "cmd/entire/cli/resume.go", nearMiss: "and/or"},
}

// propQuotedPath is the pattern of a path between the quotes open and
// close: from a drive, a share ("\\server"), the root, "~/" or "./",
// with a space somewhere in it (a path without one is found bare).
func propQuotedPath(open, close string) string {
	not := regexp.QuoteMeta(open + close)
	return `(?:[A-Za-z]:[\\/]|\\\\|~?/|\.\.?[\\/])[^` + not + `\n]* [^` + not + `\n]*[^` + not + `\s]`
}

// propUnquote returns the bounds of s[a:b] without its first and last
// characters, the quotes a quoted path's match has around it.
func propUnquote(s string, a, b int) (int, int) {
	_, open := utf8.DecodeRuneInString(s[a:b])
	_, close := utf8.DecodeLastRuneInString(s[a:b])
	return a + open, b - close
}

// propLeftStop are words a reference's left extension never takes.
var propLeftStop = map[string]bool{"in": true, "at": true, "of": true, "on": true, "see": true, "follow": true, "the": true, "a": true, "an": true,
	"is": true, "are": true, "was": true, "per": true, "from": true, "to": true, "into": true, "and": true, "or": true, "use": true, "against": true,
	"compare": true, "check": true, "read": true, "under": true, "with": true, "by": true, "for": true, "this": true, "that": true, "it": true,
	"its": true, "which": true}

// propNotTickets are upper-case keys that name standards, not tickets.
var propNotTickets = map[string]bool{"UTF": true, "ISO": true, "SHA": true, "AES": true, "HTTP": true, "TLS": true, "SSL": true, "X": true, "CVE": false, "MD": true, "P": true, "IPV": true}

// propChangeVerb marks a sentence about changing files: an assistant's
// path in it names a file of the work, not one it only read.
var propChangeVerb = regexp.MustCompile(`(?i)\b(add|added|adds|update|updated|updates|create|created|creates|modif(y|ied|ies)|change|changed|changes|fix|fixed|fixes|remov(e|ed|es)|edit|edited|edits|writ(e|es|ten)|wrote|implement(ed|s)?|renam(e|ed|es)|mov(e|ed|es)|delet(e|ed|es)|replac(e|ed|es)|new file|refactor(ed|s)?)\b`)

// propSummaryLine marks a line of a list, table or bold heading, where an
// assistant sums up what it did.
var propSummaryLine = regexp.MustCompile(`^(?:[-*•|] |\d+[.)] |\*\*|#+ )`)

// propReferences returns the references in sentence s, said by role,
// with nothing known of the session (propReferencesIn with no work).
func propReferences(s, role string) []propGuess { return propReferencesIn(s, role, nil) }

// propReferencesIn returns the references in sentence s, said by role, in
// the order they appear, each with a drafted probe and the confidence
// propRefConfidence gives it; w is what the session's tool calls show
// the agent worked on (nil: nothing known, as for a sentence alone).
// A branch the agent's git commands named is found in prose too
// (reference/branch-worked), with or without backticks.
func propReferencesIn(s, role string, w *propWork) []propGuess {
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
		matches := pat.re.FindAllStringIndex(s, -1)
		if pat.rule == "reference/url" {
			matches = propSplitURLs(s, matches)
		}
		for _, m := range matches {
			a, b := m[0], m[1]
			if pat.quoted {
				if r, _ := utf8.DecodeRuneInString(s[b:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
					// The closing quote is an apostrophe inside a word
					// ("'/tmp or /var, it's shared"): no quoted path.
					continue
				}
				a, b = propUnquote(s, a, b)
			} else {
				lit := strings.TrimRight(s[a:b], ".,;:!?`")
				b = a + len(lit)
				if strings.HasPrefix(lit, "`") {
					a++
				}
			}
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
	if w != nil {
		for b := range w.branches {
			if !strings.Contains(b, "/") && !strings.ContainsAny(b, "-_") {
				continue // "main", "develop": a word, not an identifier
			}
			low := strings.ToLower(s)
			for off := 0; ; {
				k := strings.Index(low[off:], b)
				if k < 0 {
					break
				}
				a, e := off+k, off+k+len(b)
				off = e
				if (a > 0 && propBranchChar(s[a-1])) || (e < len(s) && propBranchChar(s[e])) {
					continue
				}
				// A longer match of another pattern (a path in the
				// branch's name) gives way to the branch.
				kept := spans[:0]
				for _, sp := range spans {
					if !(a < sp.b && sp.a < e) || sp.p.rule == "reference/branch" {
						kept = append(kept, sp)
					}
				}
				spans = kept
				if !overlaps(a, e) {
					spans = append(spans, span{a, e, &propBranchWorked})
				}
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var out []propGuess
	for _, sp := range spans {
		lit := s[sp.a:sp.b]
		if sp.p.rule == "reference/branch" {
			lit = strings.ReplaceAll(lit, "`", "") // "branch `x`"
			// The name alone, not the word that found it ("parent x/y").
			if w, rest, ok := strings.Cut(lit, " "); ok && !strings.EqualFold(w, "branch") {
				lit = strings.TrimPrefix(strings.TrimPrefix(rest, "to "), "on ")
			}
		}
		conf := propRefConfidence(sp.p, lit, s, role, w)
		ctx := strings.TrimSpace(strings.TrimRight(s[:sp.a]+"…"+s[sp.b:], ". "))
		kind := sp.p.kind
		if sp.p.kind == "commit" && sp.p.rule != "reference/commit" {
			if m := propHexKind.FindStringSubmatch(s[max(0, sp.a-30):sp.a]); m != nil {
				kind = strings.ToLower(m[1]) + " id"
			}
		}
		out = append(out, propGuess{class: fixture.Reference, literal: lit, probe: propRefProbe(kind, ctx, role), expect: lit, confidence: conf, rule: sp.p.rule, kind: kind, context: ctx})
	}
	return out
}

// propHexKind names what a hex id is when the word before it says so
// ("checkpoint 3a1f…", "entire-checkpoint: …", `"session_id": "…"`): a
// probe then asks for that, not for a commit. A review of drafted probes
// found checkpoint ids asked for as commits 9 times in 361.
var propHexKind = regexp.MustCompile("(?i)\\b(?:entire-)?(checkpoint|session|trace|request|job|build|event)(?:[_ -]?id)?[\"'`:=(\\s]*$")

// propSplitURLs splits each URL match m of s where a second URL begins
// inside it: two links pasted with nothing between them
// ("…/job/62449194626https://github.com/…") are two references.
func propSplitURLs(s string, matches [][]int) [][]int {
	var out [][]int
	for _, m := range matches {
		a := m[0]
		for {
			k := propURLStart.FindStringIndex(s[a+1 : m[1]])
			if k == nil {
				break
			}
			out = append(out, []int{a, a + 1 + k[0]})
			a += 1 + k[0]
		}
		out = append(out, []int{a, m[1]})
	}
	return out
}

// propURLStart is where a URL begins.
var propURLStart = regexp.MustCompile(`https?://`)

// propRefProbe drafts a reference's probe: which kind of thing the
// context (its sentence with the reference elided as "…") refers to, or,
// when the context holds under two words, which one the person or the
// agent (role) named.
func propRefProbe(kind, context, role string) string {
	if propRefProbeWords(context) < 2 {
		switch role {
		case "user":
			return "Which " + kind + " did the user name?"
		case "assistant":
			return "Which " + kind + " did the agent name?"
		}
		return "Which " + kind + " was named in output pasted into the session?"
	}
	return "Which " + kind + " does “" + context + "” refer to?"
}

// propRefContextWords is how many words of the sentence before or after
// a reference its probe quotes when its own sentence says too little.
const propRefContextWords = 12

// propRefProbeWords counts the words of a reference's context: its
// tokens with a letter or digit in them.
func propRefProbeWords(context string) int {
	n := 0
	for _, f := range strings.Fields(context) {
		if strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			n++
		}
	}
	return n
}

// propBranchWorked is the rule of a branch the session's git commands
// named, found by name in prose (propReferences).
var propBranchWorked = propRefPattern{kind: "branch", confidence: 0.7, rule: "reference/branch-worked"}

// propBranchChar is a byte a branch name can hold: a match inside a
// longer name is none.
func propBranchChar(c byte) bool {
	return c == '/' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// propDiagnosis marks a sentence that places a diagnosed cause: "the
// bug is at x.go:12", "found the off-by-one in …", "caused by", "the
// root cause". A location there is the cause's, kept whether or not the
// agent then edits the file.
var propDiagnosis = regexp.MustCompile(`(?i)\b(the (real |actual )?(bug|cause|culprit|problem|issue|regression|off-by-one|race|leak|deadlock|crash|panic)s?\b[^.;]*\b(is|was|lies|lives|sits|happens|occurs|at|in)\b|root cause|caused by|comes from|originates|(fails|panics|crashes|breaks) (at|in)\b|introduced (in|by|at)\b)`)

// propRefConfidence is how sure a reference is, by who said it and
// what the session did with it (w). What a person typed is kept: a
// path, file:line, hex string, quoted name or number a person writes
// is what they are pointing at. What the agent says is kept when its
// tool calls acted on it: a path or file:line of a file it edited,
// wrote, created or moved, or that a sentence names as a diagnosed
// cause's place (propDiagnosis); a hex string a git command or its output
// showed (else a session id, an example value); a pull request or
// issue it commented on, reviewed, created or edited (else one it only
// looked at); a branch a git command named or reported (else a branch
// explained, an example name, "origin/HEAD"); a review comment it fetched or answered by id; a quoted
// a/b name that is such a file or branch (else a package path, a key
// binding). Anything else the agent names is working state, 0.3.
// Without tool calls in the session (w nil or empty) the text decides,
// as before the event model: a bare path in a sentence about changing
// files or in a summary line is 0.6. A "Section 3" with no document
// before it is a heading of the agent's own text, 0.3.
func propRefConfidence(p *propRefPattern, lit, s, role string, w *propWork) float64 {
	conf := p.confidence
	user := role == "user"
	known := w != nil && w.calls > 0
	acted := func(ok bool, weak float64) float64 {
		switch {
		case user || ok:
			return conf
		case known:
			return 0.3
		}
		return weak
	}
	switch p.rule {
	case "reference/dashboard":
		if !strings.Contains(lit, "panel") {
			conf = 0.6
		}
	case "reference/path":
		if propScratchPath.MatchString(lit) {
			return 0.3
		}
		conf = 0.6
		weak := 0.3
		if propChangeVerb.MatchString(s) || propSummaryLine.MatchString(s) {
			weak = 0.6
		}
		return acted(known && (w.changed(lit) || propDiagnosis.MatchString(s)), weak)
	case "reference/file-line":
		return acted(!known || w.changed(lit) || propDiagnosis.MatchString(s), conf)
	case "reference/section":
		if l := strings.ToLower(lit); strings.HasPrefix(l, "section") || strings.HasPrefix(l, "§") {
			return 0.3
		}
	case "reference/hex-id", "reference/quoted-hex":
		if !user {
			return acted(known && w.commit(lit), conf)
		}
		if known && !w.commit(lit) {
			return 0.4
		}
	case "reference/pull-request", "reference/number":
		n := lit[strings.LastIndexAny(lit, " #")+1:]
		return acted(known && w.prs[n], conf)
	case "reference/numeric-id":
		return acted(known && w.ids[lit], conf)
	case "reference/branch":
		name := strings.ToLower(lit)
		if i := strings.LastIndexByte(name, ' '); i >= 0 {
			name = name[i+1:]
		}
		if name == "origin/head" || propNotBranch[name] {
			return 0.3
		}
		return acted(known && w.branches[strings.TrimPrefix(name, "origin/")], conf)
	case "reference/quoted-name":
		name := strings.ToLower(strings.Trim(lit, "`"))
		return acted(known && (w.branches[name] || w.changed(name)), conf)
	}
	return conf
}

// propScratchPath is a path no summary needs: a temporary directory's
// (/tmp, macOS's /var/folders, mktemp's tmp.XXXX) or a system
// program's (/usr/bin/env) or a CI runner's (/home/runner).
var propScratchPath = regexp.MustCompile(`^(/private)?/var/folders/|^/tmp/|/tmp\.[A-Za-z0-9]{6,}\b|^/(usr|bin|sbin|opt/homebrew)/|^/home/runner/`)

// propNotBranch are hyphenated words a "branch …" pattern takes for a
// name ("keep the branch as-is").
var propNotBranch = map[string]bool{"as-is": true, "up-to-date": true, "in-place": true, "read-only": true, "built-in": true, "by-default": true, "re-run": true}

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
		// Not a date, a fraction, a bare "a/b" word pair, a placeholder
		// (<id>, {x}, *) or a version.
		// Not a Go package pattern (./x/...), and a one-slash name
		// with a dot needs a lower-case extension ("panic/log.Fatal" is
		// code).
		// A one-slash name without an extension is a word pair
		// ("and/or", "main/master") unless it is in a dot folder
		// (".github/CODEOWNERS").
		if strings.HasPrefix(s[b:], "/...") || strings.HasPrefix(s[b:], "...") || strings.Contains(lit, "...") ||
			strings.HasPrefix(lit, "path/to/") ||
			(strings.Count(lit, "/") == 1 && !propFileExt.MatchString(lit) && !propDotFolder.MatchString(lit)) {
			return false
		}
		return (strings.ContainsAny(lit, ".") || strings.Count(lit, "/") >= 2) && !strings.ContainsAny(s[max(0, a-1):min(len(s), b+1)], "<>{}") &&
			!propGlob(s, a, b) && !propTypeTail.MatchString(lit) &&
			!propVersion.MatchString(lit) && strings.ContainsFunc(lit, unicode.IsLetter)
	case "reference/numeric-id":
		// Not part of a path, a version, a time or a number with
		// separators ("2,734,843,645"); a list's ", " is fine.
		listComma := after == ',' && b+1 < len(s) && s[b+1] == ' '
		return !strings.ContainsRune("/.-_:,+", rune(before)) && (!strings.ContainsRune("/-_:,", rune(after)) || listComma)
	case "reference/quoted-name":
		return !strings.ContainsAny(lit, "<>{}*")
	}
	return true
}

// propTypeTail ends a package path and a type named in it, not a file:
// "github.com/acme/cli/strategy.Strategy" (no file extension is a
// capitalised word).
var propTypeTail = regexp.MustCompile(`\.[A-Z][a-z]\w*$`)

// propDotFolder is a path in a dot folder: ".github/CODEOWNERS",
// ".claude/settings.json".
var propDotFolder = regexp.MustCompile(`^\.[a-z][\w-]*/\w`)

// propGlob reports whether the path s[a:b] is part of a glob: a "*" in
// the word that holds it ("*.go", "src/*/x.go", "**/x.go"), but not
// Markdown's bold "**" around it ("**docs/x.md:**").
func propGlob(s string, a, b int) bool {
	l, r := a, b
	for l > 0 && !unicode.IsSpace(rune(s[l-1])) {
		l--
	}
	for r < len(s) && !unicode.IsSpace(rune(s[r])) {
		r++
	}
	word := s[l:r]
	return strings.Contains(strings.ReplaceAll(word, "**", ""), "*") || strings.Contains(word, "**/") || strings.Contains(word, "/**")
}

// propFileExt is a file name's lower-case extension at the end of a path.
var propFileExt = regexp.MustCompile(`\.[a-z][a-z0-9]{0,9}$`)

// propVersion is a version number, not a file.
var propVersion = regexp.MustCompile(`^v?\d+(\.\d+)+$`)

// propRefIdentity is what makes two references one: a file's path
// (propFileIdentity; a bare path and a file:line in it are one
// reference), a pull
// request's number (with or without "PR"), a
// ticket's key, a commit's first seven hex digits, else the literal
// without a kind word ("commit", "branch", "ticket"), lower-cased.
func propRefIdentity(g propGuess) string {
	lit := strings.ToLower(strings.Trim(g.literal, "`"))
	if m := propPullURL.FindStringSubmatch(lit); m != nil {
		return "pr:" + m[1]
	}
	if k := propTicketKey.FindString(strings.ToUpper(lit)); k != "" && (g.rule == "reference/url" || strings.HasPrefix(g.rule, "reference/ticket")) {
		return "ticket:" + k
	}
	switch g.rule {
	case "reference/pull-request", "reference/number":
		return "pr:" + strings.TrimLeft(lit[strings.LastIndexAny(lit, " #")+1:], "#")
	case "reference/path", "reference/file-line", "reference/revision", "reference/document-section":
		return propFileIdentity(lit)
	case "reference/commit", "reference/hex-id", "reference/quoted-hex":
		lit = strings.TrimPrefix(lit, "commit ")
		return "commit:" + lit[:min(7, len(lit))]
	}
	for _, w := range []string{"branch ", "ticket ", "parent ", "onto ", "checkout ", "switch to ", "rebase on "} {
		lit = strings.TrimPrefix(lit, w)
	}
	return lit
}

// propFileIdentity is the identity of the file a path, a file:line or a
// document reference names: "file:" and its path, lower-cased, without
// its line and a leading "./", "~/" or "/". Two file identities name
// one file when one path is the other's tail after a "/"
// (propSameFile): "retry.go" and "internal/queue/retry.go" are one,
// "cli/list.go" and "cli/commands/list.go" two.
func propFileIdentity(lit string) string {
	lit, _, _ = strings.Cut(strings.ToLower(strings.Trim(lit, "`")), " ")
	lit = strings.ReplaceAll(lit, `\`, "/") // a Windows path
	lit = propLineTail.ReplaceAllString(lit, "")
	lit = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(lit, "~/"), "./"), "/")
	return "file:" + lit
}

// propSameFile reports whether file identities a and b name one file:
// equal, or one path the other's tail after a "/".
func propSameFile(a, b string) bool {
	a, b = strings.TrimPrefix(a, "file:"), strings.TrimPrefix(b, "file:")
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasSuffix(b, "/"+a)
}

// propPullURL is a pull request's own page (no comment anchor); a
// ticket key inside a link names the ticket.
var (
	propPullURL   = regexp.MustCompile(`/pulls?/(\d+)/?$`)
	propTicketKey = regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b`)
)

// propLineTail is a ":line", ":a-b" or ":a,b" after a file name.
var propLineTail = regexp.MustCompile(`(:\d+(-\d+)?(,\d+(-\d+)?)*)+$`)

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

// addRefs proposes the references refs, found in what e said: each once,
// where it first appears; a later mention that is surer of it raises its
// confidence, and a file:line after the bare file replaces it.
func (p *propProposer) addRefs(e propUtterance, refs []propGuess) {
	for _, r := range refs {
		// A reference is proposed once, where it first appears; a
		// later mention that is surer of it raises its confidence.
		id := p.refIdentity(r)
		if k, ok := p.seenRefs[id]; ok && r.rule == "reference/file-line" && !propLineTail.MatchString(p.items[k].Literal) {
			// The file named bare before, now with its line: the
			// located mention replaces it, one reference to the file.
			p.dropped[k] = true
			r.confidence = max(r.confidence, p.items[k].Confidence)
			delete(p.seenRefs, id)
		}
		if k, ok := p.seenRefs[id]; ok {
			if it := &p.items[k]; r.confidence > it.Confidence {
				it.Confidence, it.Rule = propClamp(r.confidence), r.rule
			}
			continue
		}
		if k := len(p.items); p.add(e, r) {
			p.seenRefs[id] = k
		}
	}
}

// refIdentity is r's identity (propRefIdentity), or, for a file, that
// of a file already proposed that it names too (propSameFile): "x.go"
// after "pkg/x.go" is the same reference.
func (p *propProposer) refIdentity(r propGuess) string {
	id := propRefIdentity(r)
	if _, ok := p.seenRefs[id]; ok || !strings.HasPrefix(id, "file:") {
		return id
	}
	for _, k := range p.fileIDs {
		if propSameFile(id, k) {
			return k
		}
	}
	p.fileIDs = append(p.fileIDs, id)
	return id
}
