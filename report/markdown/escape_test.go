package markdown

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// TestEscape pins escape's output, one case per rule, with the
// reason it is needed.
func TestEscape(t *testing.T) {
	const z = "\u200B"
	for _, c := range []struct{ in, want, reason string }{
		{"plain text, 2026 Q1", "plain text, 2026 Q1", "text with no syntax is unchanged"},
		{"re-run a+b = c", "re-run a+b = c", "- + = are syntax only at the start"},
		{"@octocat", "@" + z + "octocat", "a mention: GitHub links @name after rendering, so \\@ would not stop it (github/markup#1168)"},
		{"@octo-org/everyone", "@" + z + "octo-org/everyone", "a team mention, which notifies the whole team"},
		{"&#64;octocat", "&amp;\\#" + z + "64;octocat", "a character reference is decoded before the mention filter: the & is escaped so it stays literal"},
		{"mail ops@example.com", "mail ops@" + z + "example.com", "a bare e-mail is a GFM extended autolink"},
		{"https://x.y/p?q=1", "https:" + z + "//x.y/p?q=1", "an http(s) URL is a GFM extended autolink"},
		{"ftp://x.y", "ftp:" + z + "//x.y", "so is ftp (goldmark's Linkify, GitHub's post-processing)"},
		{"HTTP://X.Y", "HTTP:" + z + "//X.Y", "schemes are matched without regard to case by some renderers"},
		{"see www.x.y", "see www" + z + ".x.y", "a www. domain is a GFM extended autolink"},
		{"fixed in GH-123", "fixed in GH" + z + "-123", "GH-123 is GitHub's other issue reference, cross-referencing the issue"},
		{"commit 18f8349", "commit 18f834" + z + "9", "a commit id GitHub links (7 to 40 hex digits, a whole word; a CI user's trial)"},
		{"a5c3785ed8d6a35868bc169f07e40e889087fd2e", "a5c378" + z + "5ed8d6" + z + "a35868" + z + "bc169f" + z + "07e40e" + z + "889087" + z + "fd2e", "a full commit id, broken every six characters"},
		{"on 20260101, defaced, x18f8349", "on 20260101, defaced, x18f8349", "all digits, all letters, or part of a longer word: not a commit id"},
		{"gh-7 and GH-x", "gh" + z + "-7 and GH-x", "either case; GH- without a digit is no reference"},
		{"ship it :+1: :tada:", "ship it :" + z + "+1: :" + z + "tada:", "emoji shortcodes render as pictures: a : before a name char is broken"},
		{"turn: 3, ratio 1:2", "turn: 3, ratio 1:" + z + "2", "a : before a space stays as it is; before a digit it gets the invisible break"},
		{"WWW.X.Y", "WWW" + z + ".X.Y", "in any case"},
		{"<https://x.y>", "&lt;https:" + z + "//x.y&gt;", "an angle-bracket autolink needs a raw <"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "raw HTML"},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;", "raw HTML with a handler"},
		{"<!-- hidden -->", "&lt;\\!-- hidden --&gt;", "an HTML comment would hide the rest of the line"},
		{"&lt;b&gt; &amp; &copy", "&amp;lt;b&amp;gt; &amp;amp; &amp;copy", "entities in the input stay literal"},
		{"a | b", `a \| b`, "a pipe ends a table cell"},
		{"line\nbreak\r\n- item", `line break  - item`, "a newline would end the table row or start a block"},
		{"*x* _y_ ~~s~~", `\*x\* \_y\_ \~\~s\~\~`, "emphasis and strikethrough"},
		{"`code`", "\\`code\\`", "a code span"},
		{"[click](javascript:alert(1)) ![i](http://x/y.png)", `\[click\](javascript:` + z + `alert(1)) \!\[i\](http:` + z + `//x/y.png)`, "a link and an image"},
		{"[^1] [ ] [x]", `\[^1\] \[ \] \[x\]`, "a footnote reference and task-list boxes"},
		{"# heading", `\# heading`, "an ATX heading at the start of a line"},
		{"title #", `title \#`, "a closing # sequence would be dropped from a heading"},
		{"issue #12 and org/repo#3", `issue \#` + z + `12 and org/repo\#` + z + `3`, "#12 is linked to an issue after rendering, like a mention"},
		{"> quote", "&gt; quote", "a block quote"},
		{"- item", `\- item`, "a list item (this text may start a list item's content)"},
		{"+ item", `\+ item`, "a list item"},
		{"* item", `\* item`, "a list item (and emphasis)"},
		{"1. first", `1\. first`, "an ordered list item"},
		{"2) second", `2\) second`, "an ordered list item, ) form"},
		{"1.5 points", "1.5 points", "a number is not a list marker"},
		{"===", `\===`, "a setext heading underline"},
		{"---", `\---`, "a thematic break"},
		{"    indented", "indented", "leading spaces: four would make a code block after a list marker"},
		{"cost $5 and $x$", `cost \$5 and \$x\$`, "GitHub renders $…$ as math"},
		{"{#id .class}", `\{\#id .class\}`, "an attribute block (goldmark's attribute option)"},
		{`back\slash\`, `back\\slash\\`, "a backslash escapes the next character, or breaks the line at the end"},
		{"bidi \u202Egnp.exe\u202C", `bidi \\u202Egnp.exe\\u202C`, "bidirectional controls make text read differently from what it is: shown as their escapes, as in the HTML"},
		{"zero\u200Bwidth\uFEFF", `zero\\u200Bwidth\\uFEFF`, "a zero-width character makes two texts that differ look the same"},
		{"nul\x00 del\x7f bad\xff", "nul  del  bad\uFFFD", "controls become spaces, invalid UTF-8 U+FFFD"},
		{"", "", "empty stays empty"},
	} {
		if got := escape(c.in); got != c.want {
			t.Errorf("escape(%q) = %q, want %q (%s)", c.in, got, c.want, c.reason)
		}
	}
}

func TestQuoteAndName(t *testing.T) {
	for _, c := range []struct{ got, want, reason string }{
		{quote("a*b"), "“a\\*b”", "a value is escaped and quoted"},
		{quote("  \n "), "(empty)", "a blank value says so"},
		{quote(strings.Repeat("é", 200)), "“" + strings.Repeat("é", 160) + "…”", "a long value is cut to maxRunes with a mark"},
		{escapeName("c|1"), `c\|1`, "a name is escaped, not quoted"},
		{escapeName(""), "(empty)", "an empty name says so"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q (%s)", c.got, c.want, c.reason)
		}
	}
}

// gfm renders Markdown as the tests read it: goldmark with the
// GFM extensions (tables, strikethrough, Linkify, task lists) and raw
// HTML off, so raw HTML that got through would show as goldmark's
// "raw HTML omitted" comment and a link as an <a> element.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote),
	goldmark.WithParserOptions(parser.WithAttribute()))

func render(t testing.TB, src string) string {
	t.Helper()
	var out bytes.Buffer
	if err := gfm.Convert([]byte(src), &out); err != nil {
		t.Fatalf("goldmark: %v", err)
	}
	return out.String()
}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>`)

// textOf returns the text of rendered HTML: tags dropped, entities
// decoded, the zero-width spaces escape adds removed.
func textOf(h string) string {
	return strings.TrimSpace(strings.ReplaceAll(html.UnescapeString(tagRE.ReplaceAllString(h, "")), zwsp, ""))
}

// checkEscaped renders escape(s) where Write puts such text
// — starting a paragraph, a list item and a heading, and in a table
// cell — and reports anything but s's text: a link, raw HTML, a tag of
// any other kind, a lost or extra table cell, or changed text.
func checkEscaped(t testing.TB, s string) {
	t.Helper()
	e := escape(s)
	if strings.ContainsAny(e, "\n\r") {
		t.Fatalf("escape(%q) = %q holds a line break", s, e)
	}
	want := strings.TrimSpace(strings.ReplaceAll(clean(s, 0), zwsp, ""))
	if e == "" {
		if want != "" {
			t.Fatalf("escape(%q) is empty", s)
		}
		return
	}
	for _, c := range []struct {
		name, src, tag string
		allowed        map[string]bool
	}{
		{"paragraph", "x " + e + " y\n", "p", map[string]bool{"p": true}},
		{"line start", e + "\n", "p", map[string]bool{"p": true}},
		{"list item", "- " + e + "\n", "li", map[string]bool{"ul": true, "li": true}},
		{"heading", "# " + e + "\n", "h1", map[string]bool{"h1": true}},
		{"table cell", "| a | b |\n|---|---|\n| " + e + " | z |\n", "td", map[string]bool{"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true}},
	} {
		out := render(t, c.src)
		if strings.Contains(out, "raw HTML omitted") {
			t.Errorf("%s: raw HTML in %q (escaped %q): %s", c.name, s, e, out)
		}
		for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
			if !c.allowed[strings.ToLower(m[2])] {
				t.Errorf("%s: tag <%s%s> from %q (escaped %q): %s", c.name, m[1], m[2], s, e, out)
			}
		}
		var text string
		switch c.tag {
		case "td":
			cells := regexp.MustCompile(`(?s)<td>(.*?)</td>`).FindAllStringSubmatch(out, -1)
			if len(cells) != 2 || cells[1][1] != "z" {
				t.Errorf("%s: %q (escaped %q) gives %d cells: %s", c.name, s, e, len(cells), out)
				continue
			}
			text = cells[0][1]
		case "p":
			text = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "<p>"), "</p>")
			if c.name == "paragraph" {
				text = strings.TrimSuffix(strings.TrimPrefix(text, "x "), " y")
			}
		default:
			text = out
		}
		if got := textOf(text); got != want {
			t.Errorf("%s: %q (escaped %q) renders as the text %q, want %q: %s", c.name, s, e, got, want, out)
		}
	}
}

// TestEscapeRendered renders every case of TestEscape, and text
// built to tempt each rule, with goldmark: text only, and the same text.
func TestEscapeRendered(t *testing.T) {
	for _, s := range escapeSeeds {
		checkEscaped(t, s)
	}
}

// escapeSeeds are hostile strings, the fuzz target's seed corpus.
var escapeSeeds = []string{
	"@octocat", "@octo-org/everyone should look", "mail ops@example.com now", "x@y.z", "a.b+c@d-e.fg.",
	"https://x.y", "see https://x.y/p?q=1#f.", "http://localhost:8080", "ftp://x.y", "www.x.y", "(www.x.y)", "*www.x.y*", "_https://x.y_",
	"mailto:a@b.c", "xmpp:a@b.c/r", "<https://x.y>", "<a@b.c>",
	"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<!-- -->", "<b>bold</b>", "&lt;b&gt;", "&#64;x", "&#x40;x", "&commat;x",
	"a | b | c", "|", "\\|", "`|`", "``code | span``",
	"*em* **strong** _em_ __strong__ ~~del~~ ~del~", "[l](u) [r][1] ![i](u) [^1]\n\n[1]: http://x.y",
	"# h", "## h ##", "title #", "#12", "> q", "- l", "+ l", "* l", "1. l", "1) l", "10. l", "- [ ] task", "===", "---", "***", "___",
	"    code", "\tcode", "```\nfence\n```", "~~~", "$x$", "$$x$$", "{#id}", "\\", "x\\", "\\*",
	"line\nbreak", "a  \nb", "\r", "\u2028x\u2029", "\u202Egnp.exe", "\x00\x01\x7f", "\xff\xfe", "é“”—…", "\u200B@\u200B",
	"never `rm -rf` | pipe | and <script>alert(1)</script>",
	"I'll ship it\nthen ## a heading\r\n- a list item & more",
	"@octo-org/everyone should [click](javascript:alert(1)) ![x](http://x/y.png)",
	"=cmd|' /C calc'!A0", "+1", "-1", "@SUM(A1)",
}

// FuzzEscape checks escape on any text: rendered by goldmark with
// GFM's Linkify, in a paragraph, a list item, a heading and a table
// cell, it is its own text, with no link, no raw HTML and no other tag.
func FuzzEscape(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		checkEscaped(t, s)
	})
}
