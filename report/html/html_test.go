package html

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
	"github.com/tally-eval/tally/report/internal/sample"
	"github.com/tally-eval/tally/report/notebook"
)

// render renders r with nb and fails the test on error.
func render(t testing.TB, r *report.Report, nb *notebook.Notebook) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r, nb); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	htmlReStyle  = regexp.MustCompile(`(?s)<style>.*?</style>`)
	reTag        = regexp.MustCompile(`<[^>]*>`)
	htmlReBlock  = regexp.MustCompile(`^</?(p|h[1-6]|tr|li|ul|ol|table|thead|tbody|div|section|header|figure|figcaption|caption|pre|aside|main|title|text|svg|br)\b`)
	htmlReInline = regexp.MustCompile(`^</?(strong|em|code|a|b|i)\b`)
	htmlReSpaces = regexp.MustCompile(`[ \t\r\f\v]+`)
)

// textContent is the page's text for people: style dropped, tags
// removed (a block tag ends a line), entities decoded, whitespace
// normalised, blank lines dropped.
func textContent(page string) string {
	page = htmlReStyle.ReplaceAllString(page, "")
	page = reTag.ReplaceAllStringFunc(page, func(tag string) string {
		switch {
		case htmlReBlock.MatchString(tag):
			return "\n"
		case htmlReInline.MatchString(tag):
			return ""
		}
		return " "
	})
	page = html.UnescapeString(page)
	var out []string
	for _, line := range strings.Split(page, "\n") {
		line = strings.TrimSpace(htmlReSpaces.ReplaceAllString(line, " "))
		if line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

func TestWriteGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report *report.Report
		reason string
	}{
		{"hostile", sample.Hostile(), "the source text's example full of hostile text, through the default notebook"},
		{"minimal", sample.Minimal(), "no replay, no selection, a class without items, a judge error, NaN shares and prompt sizes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sample.Golden(t, tc.name+".golden", textContent(render(t, tc.report, nil)))
		})
	}
}

// TestWriteQuarterlyExample renders the example's report as `tally
// report` does, from examples/quarterly, and pins its text, to be read
// in testdata/quarterly_example.golden. Whatever else the example
// gains, the page shows the source text's table and ends with task
// success.
func TestWriteQuarterlyExample(t *testing.T) {
	text := textContent(render(t, sample.Quarterly(t), nil))
	for _, want := range []struct{ text, reason string }{
		{"constraint at least 95% retained fail 71/80 · 88.8%", "the incumbent's constraints"},
		{"commitment at least 90% retained fail 44/51 · 86.3%", "the incumbent's commitments"},
		{"open question at least 95% retained fail 96/103 · 93.2%", "the incumbent's open questions"},
		{"reference at least 98% retained fail 58/61 · 95.1%", "the incumbent's references"},
		{"contradictions at most 0 fail 2 fail 7 worse", "the incumbent's 2 contradictions against the candidate's 7"},
		{"Verdict: blocks — rows that got worse under the candidate: contradictions.", "the verdict, in report.Decision.Headline's words"},
		{"Backlog, not a merge decision: 5 gates unmet by the incumbent as well", "the backlog"},
		// The on-paper cells, computed from the example's own replay: it
		// is the source text's 166 of 200 at 0.83.
		{"200 conversations at a success rate of 0.83: the standard error is √(0.83 × 0.17 / 200) = 0.0266", "the plan cell, from the replay"},
		{"166/200 successes: a rate of 0.830, standard error 0.0266", "the interval cell, from the replay"},
	} {
		if !strings.Contains(text, want.text) {
			t.Errorf("%s: the page does not read %q", want.reason, want.text)
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "Task success — reported, not gated:") {
		t.Errorf("the page's last line is not task success:\n%s", last)
	}
	for _, want := range []string{
		"the reference 166/200", "the candidate 168/200",
		"9 lost and 11 gained, exact McNemar p = 0.824",
		"is not evidence of anything, in either direction",
	} {
		if !strings.Contains(last, want) {
			t.Errorf("the page's last line does not read %q:\n%s", want, last)
		}
	}
	// Last, so that a change to the example (a selection added, say)
	// shows both the checks above and the golden's first difference.
	sample.Golden(t, "quarterly_example.golden", text)
}

func TestWriteDeterministic(t *testing.T) {
	a := render(t, sample.Hostile(), nil)
	b := render(t, sample.Hostile(), nil)
	if a != b {
		t.Fatal("two renders of the same report differ")
	}
}

// tags returns every tag of page: all text is escaped, so each '<' in
// the output opens a real tag.
func tags(page string) []string { return reTag.FindAllString(page, -1) }

func TestWriteSelfContained(t *testing.T) {
	page := render(t, sample.Hostile(), nil)
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;`) {
		t.Error("no Content-Security-Policy meta forbidding scripts and requests")
	}
	if i, j := strings.Index(page, "Content-Security-Policy"), strings.Index(page, "<style>"); i < 0 || j < i {
		t.Error("the CSP meta must come before any content")
	}
	for _, tag := range tags(page) {
		low := strings.ToLower(tag)
		for _, bad := range []string{"<script", "<iframe", "<object", "<embed", "<link rel=\"stylesheet", "<img", "<base", " on"} {
			if strings.HasPrefix(low, bad) || (bad == " on" && regexp.MustCompile(`\son[a-z]+\s*=`).MatchString(low)) {
				t.Errorf("tag %q: a report has no %s", tag, strings.TrimSpace(bad))
			}
		}
		for _, m := range regexp.MustCompile(`(?:href|src|action)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(tag, -1) {
			if !strings.HasPrefix(m[1], "data:") && !strings.HasPrefix(m[1], "#") {
				t.Errorf("tag %q refers to %q: only data: URLs are allowed", tag, m[1])
			}
		}
	}
	for _, bad := range []string{"url(", "@import", "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: the CSS may not fetch anything", bad)
		}
	}
	if n := strings.Count(page, "<svg "); n != 3 {
		t.Errorf("want 3 inline SVG charts, got %d", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an SVG kept its <?xml …?> line")
	}
	if !strings.Contains(page, "@media print") {
		t.Error("no print styles")
	}
}

func TestWriteHostile(t *testing.T) {
	page := render(t, sample.Hostile(), nil)
	for _, tag := range tags(page) {
		low := strings.ToLower(tag)
		if strings.HasPrefix(low, "<script") || strings.Contains(low, "onerror") {
			t.Errorf("hostile input became markup: %q", tag)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("the page contains <script")
	}
	h := sample.HostileStrings
	for _, want := range []struct{ escaped, reason string }{
		{html.EscapeString(h["script"]), "a fixture literal with a script element shows as text"},
		{html.EscapeString(h["img"]), "a literal breaking out of an attribute shows as text"},
		{html.EscapeString(h["hyperlink"]), "a spreadsheet formula shows as text"},
		{html.EscapeString(h["dde"]), "a DDE payload shows as text"},
		{html.EscapeString(h["at"]), "an @-led formula shows as text"},
		{html.EscapeString(h["minus"]), "a minus-led formula shows as text"},
		{`<span class="ctl">\t</span>` + html.EscapeString(h["tab"][1:]), "a tab-led string shows its tab"},
		{`<span class="ctl">\r</span>` + html.EscapeString(h["cr"][1:]), "a CR-led string shows its carriage return"},
		// 40,000 characters: more than a workbook cell holds, so the note
		// does not send the reader there for the whole (a stakeholder's
		// trial).
		{html.EscapeString(sample.HostileLong[:600]) + " … [39400 more characters; report.xlsx holds the first 32767, the input it came from the whole]", "a very long line is cut with a note"},
		{"the candidate <strong>" + html.EscapeString(h["dde"]) + "</strong>", "a system name is escaped"},
		{"# &lt;/code&gt;&lt;/pre&gt;" + html.EscapeString(h["script"]), "the configuration text is escaped"},
	} {
		if !strings.Contains(page, want.escaped) {
			t.Errorf("%s: %q not in the page", want.reason, want.escaped)
		}
	}
	if strings.Contains(page, html.EscapeString(sample.HostileLong)) {
		t.Error("the 40,000-character line is shown whole")
	}
	text := textContent(page)
	for _, name := range []string{"script", "img", "hyperlink", "dde", "at", "minus"} {
		if !strings.Contains(text, h[name]) {
			t.Errorf("the page's text does not read the %s string %q", name, h[name])
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		why  string
	}{
		{`<a href="x">&'`, 100, "&lt;a href=&#34;x&#34;&gt;&amp;&#39;", "HTML metacharacters"},
		{"\t\r\x00\x1b\x7f", 100, `<span class="ctl">\t</span><span class="ctl">\r</span><span class="ctl">\x00</span><span class="ctl">\x1B</span><span class="ctl">\x7F</span>`, "control characters are shown as escapes"},
		{"a\nb", 100, "a\nb", "newlines stay, shown by white-space: pre-wrap"},
		{"\xff\xfe", 100, "\uFFFD", "invalid UTF-8 becomes one replacement character per run"},
		{"abc\u202Efed", 100, `abc<span class="ctl">\u202E</span>fed`, "a bidi override cannot reorder the text"},
		{"\u0085<", 100, `<span class="ctl">\x85</span>&lt;`, "C1 controls are shown"},
		{"\t<", 1, `<span class="ctl">\t</span> … [1 more characters; the full text is in report.xlsx]`, "the cut counts an escaped character as one"},
		{"héllo wörld", 5, "héllo … [6 more characters; the full text is in report.xlsx]", "cut by runes, with a note"},
		{"", 5, "", "empty"},
	} {
		if got := markup.Escape(tc.in, tc.max); got != tc.want {
			t.Errorf("%s: markup.Escape(%q, %d) = %q, want %q", tc.why, tc.in, tc.max, got, tc.want)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{markup.Pct(71.0 / 80), "88.8%"},
		{markup.Pct(math.NaN()), "—"},
		{markup.GatePct(0.95), "95%"},
		{markup.GatePct(0.975), "97.5%"},
		{markup.Interval(0.799, 0.94), "79.9–94.0%"},
		{markup.Points(0.01, true), "+1.0 points"},
		{markup.Points(-0.047, true), "−4.7 points"},
		{markup.Points(-0.0001, true), "0.0 points"},
		{markup.P(0.82), "0.820"},
		{markup.P(0.00012), "0.0001"},
		{markup.P(1e-9), "&lt; 0.0001"},
		{markup.Int(1234567), "1,234,567"},
		{markup.Int(-1000), "−1,000"},
		{markup.Int(999), "999"},
		{markup.Tokens(11840.5), "11,841"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestWriteNilNotebookIsDefault(t *testing.T) {
	r := sample.Report()
	if render(t, r, nil) != render(t, r, notebook.Default()) {
		t.Error("a nil notebook does not render as the default one")
	}
	if err := Write(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("a nil report renders")
	}
}

func TestWriteWarnings(t *testing.T) {
	page := render(t, sample.Minimal(), nil)
	text := textContent(page)
	for _, want := range []string{
		"retention chart: the incumbent has no retained share for reference (0 items); its point is left out",
		"prompt-size chart: the candidate has no prompt sizes (0 contexts); its box is left out",
		"gates: the candidate has no reference items; its share is undefined",
		"No replay data",
		"Task success — reported, not gated: not measured",
		"No fixture selection in this report.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the minimal report does not say %q", want)
		}
	}
	if strings.Contains(page, "NaN") {
		t.Error("a NaN reached the page")
	}
}

func TestWriteTaskSuccessLast(t *testing.T) {
	text := textContent(render(t, sample.Report(), nil))
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "Task success — reported, not gated:") {
		t.Errorf("the page's last line is %q, want the task-success line", last)
	}
}

func TestWriteLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 300,000-item render")
	}
	r := sample.Large(300_000)
	nb, err := notebook.Parse("large.md", []byte("```tally\ntitle\n```\n\n```tally\nlost-items\n```\n\n```tally\nchanged-items\n```\n\n```tally\ncontradictions\n```\n\n```tally\ngates\n```\n\n```tally\nplot retention\n```\n\n```tally\ntask-success\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		nb   *notebook.Notebook
	}{{"default notebook", nil}, {"every item list", nb}} {
		start := time.Now()
		page := render(t, r, tc.nb)
		took := time.Since(start)
		t.Logf("%s: 300,000 item rows rendered in %v, %d bytes", tc.name, took, len(page))
		if took > 3*time.Second {
			t.Errorf("%s: rendering 300,000 item rows took %v, want well under a few seconds", tc.name, took)
		}
		if len(page) > 8<<20 {
			t.Errorf("%s: the page is %d bytes: items are not capped", tc.name, len(page))
		}
		if !strings.Contains(page, "29,500 more lost items in report.xlsx") {
			t.Errorf("%s: no note of the lost items left out", tc.name)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{300, 300_000} {
		r := sample.Large(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := Write(&bytes.Buffer{}, r, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWriteWarningsOnce: the replay's caveats are the Replay's own
// and show once, with task success at the bottom, not in a warnings box
// opening the page.
func TestWriteWarningsOnce(t *testing.T) {
	r := sample.Report()
	w := r.Replay.Result.Warnings[0]
	r.Replay.Warnings = []string{"task success: " + w}
	page := render(t, r, nil)
	if n := strings.Count(page, html.EscapeString(w)); n != 1 {
		t.Errorf("the replay's warning %q is shown %d times; want once, with task success", w, n)
	}
	ts := strings.Index(page, `<section class="task-success">`)
	if at := strings.Index(page, html.EscapeString(w)); ts < 0 || at < ts {
		t.Errorf("the replay's warning is at %d, the task-success section at %d: want it in the section", at, ts)
	}
	if strings.Contains(page, "report-warnings") && strings.Contains(page[:strings.Index(page, "report-warnings")+500], "χ²") {
		t.Error("the page opens with a warning about task success")
	}
}

// exampleFigures are figures of examples/quarterly and the source text
// it reproduces; a report built from other data must show none of them.
var exampleFigures = []string{"0.83", "166/200", "168/200", "521", "200 conversations", "10185", "10,185", "71/80", "1572", "6320", "6,320"}

// figureAt finds fig in text standing alone: not inside a longer number
// or word (a SHA-256 may hold "521"; 0.8333 is not 0.83).
func figureAt(text, fig string) int {
	for off := 0; ; {
		i := strings.Index(text[off:], fig)
		if i < 0 {
			return -1
		}
		i += off
		before, after := rune(' '), rune(' ')
		if i > 0 {
			before, _ = utf8.DecodeLastRuneInString(text[:i])
		}
		if j := i + len(fig); j < len(text) {
			after, _ = utf8.DecodeRuneInString(text[j:])
		}
		alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
		if !alnum(before) && before != '.' && !alnum(after) {
			return i
		}
		off = i + 1
	}
}

// TestNotebookFromOwnData: every cell of the default notebook is about
// the report's own data. testdata/own is a small quarter made by hand —
// six fixtures, 30 replayed pairs at 22/30 — and its page shows none of
// the example's figures and its own: the plan and the interval from its
// replay, and a catastrophic count of the three conversations in which
// the candidate lost a constraint or newly contradicted an item.
// Without a replay, the two cells are one-line notes saying what input
// would produce them.
func TestNotebookFromOwnData(t *testing.T) {
	build := func(path string) string {
		cfg, err := report.LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := report.Build(cfg, report.Options{Generated: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return textContent(render(t, r, nil))
	}
	text := build(filepath.Join("testdata", "own", "report.yaml"))
	for _, fig := range exampleFigures {
		if i := figureAt(text, fig); i >= 0 {
			t.Errorf("the page shows the example's %q: …%s…", fig, text[max(0, i-80):min(len(text), i+len(fig)+80)])
		}
	}
	for _, want := range []struct{ text, reason string }{
		{"From this report: 30 replayed conversations, on which the reference succeeded 22 times (a rate of 0.7333)", "the plan's inputs, named"},
		{"the catastrophic count is the 3 fixture conversations in which the candidate lost a constraint item or newly contradicted an item (ingest_02, ingest_04, ingest_05)", "the catastrophic count, from the items"},
		{"30 conversations at a success rate of 0.7333: the standard error is √(0.7333 × 0.2667 / 30) = 0.0807", "the plan, at the replay's N and rate"},
		{"3 conversations failing outright (lost, none gained) is a drop of 3/30 = 10.0 points", "the catastrophic drop"},
		{"22/30 successes: a rate of 0.733, standard error 0.0807", "the interval, from the replay"},
		{"the reference 22/30 = 73.3%, the candidate 20/30 = 66.7%", "task success"},
	} {
		if !strings.Contains(text, want.text) {
			t.Errorf("%s: the page does not read %q", want.reason, want.text)
		}
	}

	// The same quarter without its replay.
	dir := t.TempDir()
	for _, name := range []string{"fixtures.jsonl", "verdicts-v2.jsonl", "verdicts-v3.jsonl", "report.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "own", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "report.yaml" {
			data = []byte(strings.Replace(string(data), "replay: replay.jsonl\n", "", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text = build(filepath.Join(dir, "report.yaml"))
	for _, want := range []string{
		"No replay: configure replay: in report.yaml to get the on-paper argument for your own replayed conversations: their number and the reference's success rate.",
		"No replay: configure replay: in report.yaml to get the interval of your own replay's success rate.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("without a replay, the page does not read %q", want)
		}
	}
	for _, fig := range exampleFigures {
		if i := figureAt(text, fig); i >= 0 {
			t.Errorf("without a replay, the page shows the example's %q: …%s…", fig, text[max(0, i-80):min(len(text), i+len(fig)+80)])
		}
	}
}

// TestWriteEmptyReport: an empty report is a report of nothing, not a
// crash, and still ends with task success.
func TestWriteEmptyReport(t *testing.T) {
	page := render(t, &report.Report{}, nil)
	if !strings.Contains(page, "Task success — reported, not gated:</strong> not measured") {
		t.Error("an empty report does not end with task success")
	}
}

// TestWriteUnpaired: report/testdata/unpaired's incumbent lacks four
// fixtures (see report's TestGateUnpaired); the page names the
// item-compactions checked by one system only.
func TestWriteUnpaired(t *testing.T) {
	r := sample.BuildCase(t, filepath.Join("..", "testdata", "unpaired", "report.yaml"))
	page := render(t, r, nil)
	for _, want := range []string{
		"0 item-compactions checked by the incumbent only and 18 by the candidate only",
		"<em>constraint</em>: 6 checked by the candidate only — <code>conv_07</code> · compaction 1 · <code>c1</code>",
		" and 1 more</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}

// TestWriteWarningsAfterVerdict: the report's warnings follow the
// verdict box, whose colour says a gate given up (amber, not green);
// a notebook with no decision cell still shows them, first (a
// stakeholder's trial found five warnings pushing the verdict below
// the fold, and a green box beside "fails a gate").
func TestWriteWarningsAfterVerdict(t *testing.T) {
	r := sample.Report()
	r.Warnings = []string{"a warning of the report"}
	r.Decision = report.Decision{NewlyUnmet: []string{"commitment"}}
	page := render(t, r, nil)
	box, warn := strings.Index(page, `<section class="decision unmet">`), strings.Index(page, "report-warnings")
	if box < 0 || warn < box || strings.Count(page, "report-warnings") != 1 {
		t.Errorf("verdict box at %d, warnings at %d (%d of them): want one warnings box after an amber verdict box", box, warn, strings.Count(page, "report-warnings"))
	}
	nb, err := notebook.Parse("bare.md", []byte("```tally\ngates\n```\n\n```tally\ntask-success\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	page = render(t, r, nb)
	if warn, gates := strings.Index(page, "report-warnings"), strings.Index(page, "<table"); warn < 0 || warn > gates {
		t.Errorf("without a decision cell the warnings are at %d, the gates at %d: want them first", warn, gates)
	}
}
