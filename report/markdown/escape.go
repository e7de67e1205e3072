package markdown

import (
	"github.com/tally-eval/tally/report/internal/format"
	"strings"
	"unicode/utf8"
)

// zwsp is U+200B ZERO WIDTH SPACE: invisible, and not a character of a
// GitHub mention, a reference or an autolink, so one placed inside such
// a token breaks it.
const zwsp = "\u200B"

// escape returns s as inline Markdown that GitHub (cmark-gfm with its
// extensions, then GitHub's own post-processing) and goldmark with its
// GFM extensions show as the text s, and as nothing else: no HTML, no
// link, no mention, no emphasis, no code span, no heading, list or
// quote, and, inside a table row, no extra cell. It is the one escaping
// function for every string of the report's inputs (literals, probes,
// expected and judge answers, ids, system names, titles, paths,
// warnings that quote them).
//
// The scheme, in order of what it defeats:
//
//   - Control characters (newlines and tabs included) and Unicode line
//     separators become spaces, bidirectional controls and zero-width
//     characters their escapes (\u202E; see clean); leading and trailing spaces are dropped (after a list
//     marker, four spaces would start a code block). The text therefore
//     stays on its line: no block can start inside it.
//   - & < > become &amp; &lt; &gt;: no raw HTML, no HTML comment, no
//     angle-bracket autolink, and an entity in the input (&lt;, &#64;)
//     stays literal text.
//   - A backslash goes before \ ` * _ ~ [ ] | # ! { } $: no code span,
//     emphasis, strikethrough, link, image, footnote, table cell
//     boundary, heading, attribute block or math.
//   - At the start, a backslash goes before - + = and before the . or )
//     of an ordered-list marker ("1."): no list item or setext
//     underline when the text begins a line (a list item, a heading).
//   - U+200B ZERO WIDTH SPACE goes after every @, after a # that comes
//     before a digit, between the : and // of a URL scheme, between
//     www and its dot, between GH and -123, and after a : that comes
//     before a letter, digit, _, + or -: no @user or @org/team mention,
//     no #123 or GH-123 reference, no e-mail, http://, https://, ftp://
//     or www. autolink, no :emoji: shortcode.
//
// GitHub finds mentions and #123 references after rendering, in the
// HTML's text, so neither a backslash (\@ renders as @) nor a
// character reference (&#64; is decoded to @ first) stops them; a
// character that is not part of the name does (github/markup#1168;
// Renovate and Dependabot insert U+200B after @ for the same reason).
// The GFM spec's extended autolinks need "www." or "scheme://"
// contiguous and an e-mail's domain to start with an alphanumeric
// right after the @, so the same character breaks those.
//
// The escaped text renders as s with the U+200B characters added: they
// are invisible, but travel with a copy and paste of the rendered page.
func escape(s string) string {
	s = strings.Trim(clean(s, 0), " ")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	// An ordered-list marker at the start: digits, then . or ), then a
	// space or the end.
	if d := len(s) - len(strings.TrimLeft(s, "0123456789")); d > 0 && d < len(s) && (s[d] == '.' || s[d] == ')') &&
		(d+1 == len(s) || s[d+1] == ' ') {
		b.WriteString(s[:d])
		b.WriteByte('\\')
		b.WriteByte(s[d])
		s = s[d+1:]
		if s == "" {
			return b.String()
		}
		// What follows is not at the start any more.
		return b.String() + escapeFrom(s, false)
	}
	return escapeFrom(s, true)
}

// escapeFrom escapes cleaned text s; atStart says s begins the text.
func escapeFrom(s string, atStart bool) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		c := s[i]
		if n := shaRun(s, i); n > 0 {
			// A commit id: a zwsp every six characters.
			for k := i; k < i+n; k += 6 {
				if k > i {
					b.WriteString(zwsp)
				}
				b.WriteString(s[k:min(k+6, i+n)])
			}
			i += n
			continue
		}
		if c >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '_', '~', '[', ']', '|', '!', '{', '}', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '#':
			b.WriteString(`\#`)
			if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				b.WriteString(zwsp)
			}
		case '@':
			b.WriteString("@" + zwsp)
		case ':':
			b.WriteByte(':')
			// A scheme's "://", or an emoji shortcode's ":name:".
			if strings.HasPrefix(s[i+1:], "//") || i+1 < len(s) && shortcodeChar(s[i+1]) {
				b.WriteString(zwsp)
			}
		case 'G', 'g':
			// GH-123 is GitHub's other issue reference.
			if i+3 < len(s) && (s[i+1] == 'H' || s[i+1] == 'h') && s[i+2] == '-' && s[i+3] >= '0' && s[i+3] <= '9' {
				b.WriteString(s[i : i+2])
				b.WriteString(zwsp)
				i += 2
				continue
			}
			b.WriteByte(c)
		case 'w', 'W':
			if i+4 <= len(s) && strings.EqualFold(s[i:i+4], "www.") {
				b.WriteString(s[i : i+3])
				b.WriteString(zwsp)
				i += 3
				continue
			}
			b.WriteByte(c)
		case '-', '+', '=':
			if i == 0 && atStart {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

// clean replaces what must not reach Markdown raw: control characters
// (newlines included) and Unicode line separators become spaces;
// bidirectional controls, which can make text read differently from what
// it is, and zero-width characters show as their escapes (\u202E, as in
// the HTML and the workbook: format.Hidden); invalid UTF-8 becomes
// U+FFFD. It truncates to max
// characters, never inside one a reader sees as one (format.Cut), marking
// the cut with …, (0: no limit).
func clean(s string, max int) string {
	var b strings.Builder
	cut := len(s)
	if max > 0 {
		cut = format.Cut(s, max)
	}
	for i, r := range s {
		if i == cut {
			b.WriteString("…")
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case format.Hidden(r):
			b.WriteString(format.Escape(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// quote shows an untrusted value (a literal, an answer) escaped
// between quotation marks, cut to maxRunes characters; an empty or
// blank value is "(empty)".
func quote(s string) string { return quoteCut(s, maxRunes) }

// quoteCut is quote cut to max characters.
func quoteCut(s string, max int) string {
	e := escape(clean(s, max))
	if e == "" {
		return "(empty)"
	}
	return "“" + e + "”"
}

// escapeName shows an untrusted name (an id, a system's name) escaped; an
// empty or blank one is "(empty)".
func escapeName(s string) string {
	e := escape(clean(s, maxRunes))
	if e == "" {
		return "(empty)"
	}
	return e
}

// shaRun is the length of the word at s[i] when it could be a commit id
// GitHub autolinks (7 to 40 hex digits, a whole word, with a letter and a
// digit: "18f8349", "a5c3785e…"), else 0. Docs: "Autolinked references
// and URLs", commit SHAs. A date or a number (all digits) or a word like
// "defaced" (all letters) is left alone.
func shaRun(s string, i int) int {
	if i > 0 && wordByte(s[i-1]) {
		return 0
	}
	j, letter, digit := i, false, false
	for ; j < len(s) && j-i <= 40; j++ {
		c := s[j]
		if c >= '0' && c <= '9' {
			digit = true
		} else if c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			letter = true
		} else {
			break
		}
	}
	if n := j - i; n >= 7 && n <= 40 && letter && digit && (j == len(s) || !wordByte(s[j])) {
		return n
	}
	return 0
}

// wordByte reports whether c is an ASCII letter, digit or _.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// shortcodeChar reports whether c can begin an emoji shortcode's name
// (":+1:", ":tada:", ":-1:").
func shortcodeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '-'
}
