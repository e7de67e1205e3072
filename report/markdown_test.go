package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

func markdown(t testing.TB, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteMarkdownQuarterly(t *testing.T) {
	got := markdown(t, quarterlyReport(t))
	golden(t, "markdown/quarterly.golden", string(got))
	if !bytes.Equal(got, markdown(t, quarterlyReport(t))) {
		t.Error("two builds of the same inputs give different bytes")
	}
	text := string(got)
	for _, want := range []string{
		"**Verdict: blocks.** Rows that got worse under the candidate: open_question, contradictions.",
		"| constraint | ≥ 95.0% | 71/80 = 88.8% (80.0–94.0%) | **fail** |",
		"| commitment | ≥ 90.0% | 44/51 = 86.3% (74.3–93.2%); 1 contradicted | **fail** |",
		"| open_question | ≥ 95.0% | 96/103 = 93.2% (86.6–96.7%); 1 contradicted | **fail** |",
		"| reference | ≥ 98.0% | 58/61 = 95.1% (86.5–98.3%) | **fail** |",
		"| contradictions | ≤ 0 | 2 | **fail** | 7 | **fail** | **worse**: 7 new |",
		"| mean prompt tokens | ≤ 12000 | 6407 | pass | 4196 | pass | better |",
		"### open_question: 96/103 retained by the incumbent, 88/103 by the candidate",
		"## Backlog: gates unmet by both systems",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{"reported, not gated", "reference 166/200 against candidate 168/200", "exact McNemar p = 0.824", "is not evidence of anything, in either direction"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last line lacks %q:\n%s", want, last)
		}
	}
}

// hostileCase writes a hand-made case whose every untrusted string is
// hostile: literals with pipes, backticks, HTML, newlines, a mention and
// a bidirectional override; ids with pipes, backticks and HTML; judge
// answers likewise.
func hostileCase(t testing.TB) *Report {
	t.Helper()
	dir := t.TempDir()
	conv := "sess|`<b` onmouseover=alert(1)"
	items := []struct{ id, class, literal string }{
		{"c|1", "constraint", "never `rm -rf` | pipe | and <script>alert(1)</script>"},
		{"``c2``", "commitment", "I'll ship it\nthen ## a heading\r\n- a list item & more"},
		{"<img src=x onerror=alert(1)>", "open_question", "@octo-org/everyone should [click](javascript:alert(1)) ![x](http://x/y.png)"},
		{"c4", "reference", "`leading backtick and trailing`"},
		{"c5", "constraint", "bidi \u202Egnp.exe\u202C and a NUL \x00 and DEL \x7f"},
	}
	var fx bytes.Buffer
	fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":50,"compactions_expected":1,"must_survive":[`, conv)
	for i, it := range items {
		if i > 0 {
			fx.WriteString(",")
		}
		b, _ := json.Marshal(map[string]any{"id": it.id, "class": it.class, "turn": 2 + i, "literal": it.literal, "probe": "p?", "expect": "yes"})
		fx.Write(b)
	}
	fx.WriteString("]}\n")
	var inc, cand bytes.Buffer
	for _, it := range items {
		b, _ := json.Marshal(map[string]any{"system": "old|sys", "conversation_id": conv, "compaction": 1, "item_id": it.id, "class": it.class, "verdict": "verbatim"})
		inc.Write(append(b, '\n'))
		b, _ = json.Marshal(map[string]any{"system": "new`sys`", "conversation_id": conv, "compaction": 1, "item_id": it.id, "class": it.class,
			"verdict": "contradicted", "answer": "yes | `x` <script>alert(2)</script>\nnext line"})
		cand.Write(append(b, '\n'))
	}
	replay := `{"conversation_id":"=cmd|' /C calc'!A0","reference":"success","candidate":"failure","reference_kind":"uncompacted"}` + "\n"
	cfg := "title: \"Title | with `code` <b>bold</b> & *stars*\"\nperiod: \"2026 | Q1\\n# injected\"\n" +
		"fixtures: fixtures.jsonl\nreplay: replay.jsonl\nsystems:\n  incumbent: {name: \"old|sys\", verdicts: inc.jsonl}\n  candidate: {name: \"new`sys`\", verdicts: cand.jsonl}\n" +
		"gates: {retained: {constraint: 0.9, commitment: 0.9, open_question: 0.9, reference: 0.9}}\n"
	for name, data := range map[string][]byte{"fixtures.jsonl": fx.Bytes(), "inc.jsonl": inc.Bytes(), "cand.jsonl": cand.Bytes(),
		"replay.jsonl": []byte(replay), "report.yaml": []byte(cfg)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := buildCase(t, filepath.Join(dir, "report.yaml"))
	r.Warnings = append(r.Warnings, "a warning with <script>alert(3)</script> | and `ticks`\n- and a fake list")
	return r
}

func TestWriteMarkdownHostile(t *testing.T) {
	got := markdown(t, hostileCase(t))
	golden(t, "markdown/hostile.golden", string(got))
	text := string(got)

	// The Markdown source: no raw control character but the line ends.
	for i, c := range text {
		if (c < 0x20 && c != '\n') || c == 0x7f || c == '\u202E' {
			t.Fatalf("raw control character %U at byte %d", c, i)
		}
	}
	// Rendered as GitHub would (tables on), with raw HTML allowed so that
	// any that got through would show: no tag but the renderer's own.
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var page bytes.Buffer
	if err := md.Convert(got, &page); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"h1": true, "h2": true, "h3": true, "p": true, "strong": true, "code": true, "table": true, "thead": true,
		"tbody": true, "tr": true, "th": true, "td": true, "ul": true, "li": true, "em": false, "a": false, "img": false, "script": false, "b": false}
	for _, m := range regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)`).FindAllStringSubmatch(page.String(), -1) {
		if !allowed[strings.ToLower(m[2])] {
			t.Errorf("tag <%s%s> in the rendered page", m[1], m[2])
		}
	}
	// Every table row has the table's seven cells.
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(page.String(), -1) {
		if n := strings.Count(row, "<td") + strings.Count(row, "<th"); n != 7 {
			t.Errorf("a table row with %d cells: %s", n, row)
		}
	}
	for _, want := range []string{
		"<code>never `rm -rf` | pipe | and &lt;script&gt;alert(1)&lt;/script&gt;</code>",
		"<code>I'll ship it then ## a heading  - a list item &amp; more</code>",
		"<code>@octo-org/everyone should [click](javascript:alert(1)) ![x](http://x/y.png)</code>",
		"<code>`leading backtick and trailing`</code>",
		"<code>bidi \uFFFDgnp.exe\uFFFD and a NUL   and DEL  </code>",
		"<code>&lt;img src=x onerror=alert(1)&gt;</code>",
		"Title | with `code` &lt;b&gt;bold&lt;/b&gt; &amp; *stars* — 2026 | Q1 # injected</h1>",
		"<li>a warning with &lt;script&gt;alert(3)&lt;/script&gt; | and `ticks` - and a fake list</li>",
		"<code>yes | `x` &lt;script&gt;alert(2)&lt;/script&gt; next line</code>",
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Count(page.String(), "<h1") != 1 {
		t.Error("the period's newline made a second heading")
	}
}

func TestMdCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"``x", "``` ``x ```"},
		{"x`", "`` x` ``"},
		{" padded ", "`  padded  `"},
		{"", "(empty)"},
		{"a\nb\tc", "`a b c`"},
		{strings.Repeat("é", 200), "`" + strings.Repeat("é", 160) + "…`"},
	}
	for _, tt := range tests {
		if got := mdCode(tt.in, false); got != tt.want {
			t.Errorf("mdCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := mdCode("a|b", true); got != "`a\\|b`" {
		t.Errorf("in a table: %q", got)
	}
}

func TestMdText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a | b", `a \| b`},
		{"<b>&", "&lt;b&gt;&amp;"},
		{"*x* _y_ `z` [l](u) ~s~", "\\*x\\* \\_y\\_ \\`z\\` \\[l\\](u) \\~s\\~"},
		{"- item", `\- item`},
		{"1. first", `1\. first`},
		{"2026 Q1", "2026 Q1"},
		{"re-run", "re-run"},
		{"line\nbreak", "line break"},
	}
	for _, tt := range tests {
		if got := mdText(tt.in); got != tt.want {
			t.Errorf("mdText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriteMarkdownWithoutReplay(t *testing.T) {
	r := buildCase(t, writeCase(t, verdictsFor("incumbent", nil), verdictsFor("candidate", nil), ""))
	got := string(markdown(t, r))
	if !strings.Contains(got, "**Verdict: does not block.** No row got worse under the candidate.") {
		t.Errorf("verdict:\n%s", got)
	}
	if !strings.HasSuffix(got, "**Task success** (reported, not gated): no replay in this report.\n") {
		t.Errorf("last line:\n%s", got)
	}
	if err := WriteMarkdown(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report accepted")
	}
}
