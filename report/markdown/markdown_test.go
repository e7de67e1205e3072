package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/tally-eval/tally/report/internal/casefile"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

func markdown(t testing.TB, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteQuarterly(t *testing.T) {
	got := markdown(t, sample.Quarterly(t))
	sample.Golden(t, "quarterly.golden", string(got))
	if !bytes.Equal(got, markdown(t, sample.Quarterly(t))) {
		t.Error("two builds of the same inputs give different bytes")
	}
	text := string(got)
	for _, want := range []string{
		"| row | gate | incumbent | incumbent vs gate | candidate | candidate vs gate | change |\n|---|---|---|---|---|---|---|\n",
		"**Verdict:** blocks — rows that got worse under the candidate: contradictions; backlog (unmet by both systems): 5 gates, not a merge decision.",
		"| constraint | ≥ 95.0% | 71/80 = 88.8% (80.0–94.0%) | **fail** |",
		"| commitment | ≥ 90.0% | 44/51 = 86.3% (74.3–93.2%); 1 contradicted | **fail** |",
		"| open\\_question | ≥ 95.0% | 96/103 = 93.2% (86.6–96.7%); 1 contradicted | **fail** |",
		"| reference | ≥ 98.0% | 58/61 = 95.1% (86.5–98.3%) | **fail** |",
		"| contradictions | ≤ 0 | 2 | **fail** | 7 | **fail** | **worse**: 7 new, 2 no longer contradicted |",
		"| mean prompt tokens | ≤ 12000 | 6320 | pass | 4331 | pass | better |",
		"| open\\_question | ≥ 95.0% | 96/103 = 93.2% (86.6–96.7%); 1 contradicted | **fail** | 88/103 = 85.4% (77.4–91.0%); 4 contradicted | **fail** | fewer retained, not significant: 15 lost, 7 gained, one-sided clustered McNemar p = 0.054, Holm level 0.0125 |",
		"Error rates of this rule (simulated, 2000 fixture sets, seed 20261201): it blocks a harmless change",
		"### contradictions: 2 by the incumbent, 7 by the candidate",
		"## Backlog: gates unmet by both systems",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Task success is the last section, and its result the last line.
	if i, j := strings.LastIndex(text, "\n## "), strings.Index(text, "\n## Task success (reported, not gated)\n"); i < 0 || i != j {
		t.Errorf("the last section is not task success (last heading at %d, task success at %d)", i, j)
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
func hostileCase(t testing.TB) *report.Report {
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
		"gates: {retained: {constraint: 0.9, commitment: 0.9, open_question: 0.9, reference: 0.9}}\nregression: {rule: count}\n"
	for name, data := range map[string][]byte{"fixtures.jsonl": fx.Bytes(), "inc.jsonl": inc.Bytes(), "cand.jsonl": cand.Bytes(),
		"replay.jsonl": []byte(replay), "report.yaml": []byte(cfg)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := sample.BuildCase(t, filepath.Join(dir, "report.yaml"))
	r.Warnings = append(r.Warnings, "a warning with <script>alert(3)</script> | and `ticks`\n- and a fake list",
		"ping @octo-org/everyone and @octocat, see https://evil.example/x, www.evil.example or mail ops@evil.example <!-- hidden --> &lt;b&gt; #12")
	// The task-success caveats and rule, as the model carries them.
	r.Replay.Warnings = append(r.Replay.Warnings, "caveat quoting <img src=x onerror=alert(4)> and @octocat")
	r.Replay.Rule = "graded by *a rule* at https://rule.example"
	return r
}

// allowed are the elements Write's own syntax makes.
var allowed = map[string]bool{"h1": true, "h2": true, "h3": true, "p": true, "strong": true, "code": true, "table": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "ul": true, "li": true}

func TestWriteHostile(t *testing.T) {
	got := markdown(t, hostileCase(t))
	sample.Golden(t, "hostile.golden", string(got))
	text := string(got)

	// The Markdown source: no raw control character but the line ends.
	for i, c := range text {
		if (c < 0x20 && c != '\n') || c == 0x7f || c == '\u202E' {
			t.Fatalf("raw control character %U at byte %d", c, i)
		}
	}
	// Rendered with goldmark's GFM (tables, Linkify) and raw HTML off:
	// no raw HTML (goldmark's "omitted" comment), no link, no tag but the
	// report's own, and code only where the report writes it.
	page := render(t, text)
	if strings.Contains(page, "raw HTML omitted") {
		t.Error("raw HTML reached the rendered page")
	}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !allowed[strings.ToLower(m[2])] {
			t.Errorf("tag <%s%s> in the rendered page", m[1], m[2])
		}
	}
	for _, m := range regexp.MustCompile(`<code>(.*?)</code>`).FindAllStringSubmatch(page, -1) {
		if m[1] != "tally check" {
			t.Errorf("a code span of the input: %q", m[1])
		}
	}
	// Every table row has the table's seven cells.
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(page, -1) {
		if n := strings.Count(row, "<td") + strings.Count(row, "<th"); n != 7 {
			t.Errorf("a table row with %d cells: %s", n, row)
		}
	}
	// The page's text holds each hostile string as text.
	pageText := textOf(page)
	for _, want := range []string{
		"“never `rm -rf` | pipe | and <script>alert(1)</script>”",
		"“I'll ship it then ## a heading  - a list item & more”",
		"“@octo-org/everyone should [click](javascript:alert(1)) ![x](http://x/y.png)”",
		"“`leading backtick and trailing`”",
		"“bidi \\u202Egnp.exe\\u202C and a NUL   and DEL”",
		"item <img src=x onerror=alert(1)>:",
		"Title | with `code` <b>bold</b> & *stars* — 2026 | Q1 # injected",
		"a warning with <script>alert(3)</script> | and `ticks` - and a fake list",
		"ping @octo-org/everyone and @octocat, see https://evil.example/x, www.evil.example or mail ops@evil.example <!-- hidden --> &lt;b&gt; #12",
		"“yes | `x` <script>alert(2)</script> next line”",
		"sess|`<b` onmouseover=alert(1) compaction 1",
		"Candidate “new`sys`” against incumbent “old|sys”",
		"caveat quoting <img src=x onerror=alert(4)> and @octocat",
		"graded by *a rule* at https://rule.example",
	} {
		if !strings.Contains(pageText, want) {
			t.Errorf("the rendered page's text lacks %q", want)
		}
	}
	// Mentions and references are broken by U+200B where GitHub would
	// make them.
	for _, want := range []string{"@\u200Bocto-org/everyone", "@\u200Boctocat", "#\u200B12", "https:\u200B//evil.example", "www\u200B.evil.example", "ops@\u200Bevil.example"} {
		if !strings.Contains(page, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Count(page, "<h1") != 1 {
		t.Error("the period's newline made a second heading")
	}
}

// TestWriteTaskSuccess: the task-success section is the last,
// with the replay's caveats and the rule its result is graded by, and
// the result, with its grade, on the last line; the caveats are not
// among the notes, and the McNemar result's own warnings are not shown
// apart from them.
func TestWriteTaskSuccess(t *testing.T) {
	r := sample.Report()
	r.Replay.Warnings = []string{"task success: only 20 discordant pairs; the χ² approximation is rough",
		"task success: 36 of 200 references are accepted traces"}
	r.Replay.Result.Warnings = []string{"RESULT WARNING"}
	r.Replay.Rule = "significant when the exact p is below 0.05; inconclusive when a drop of 2 points is not ruled out"
	r.Replay.Grade = "inconclusive"
	text := string(markdown(t, r))
	at := strings.Index(text, "\n## Task success (reported, not gated)\n")
	if at < 0 || strings.LastIndex(text, "\n## ") != at {
		t.Fatalf("task success is not the last section:\n%s", text)
	}
	section, before := text[at:], text[:at]
	for _, want := range []string{
		"- task success: only 20 discordant pairs; the χ² approximation is rough\n",
		"- task success: 36 of 200 references are accepted traces\n",
		"How the result is graded: significant when the exact p is below 0.05; inconclusive when a drop of 2 points is not ruled out\n",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the task-success section lacks %q:\n%s", want, section)
		}
		if strings.Contains(before, strings.TrimPrefix(want, "- ")) {
			t.Errorf("%q is also above the task-success section", want)
		}
	}
	if strings.Contains(text, "RESULT WARNING") {
		t.Error("the McNemar result's warnings are shown apart from Replay.Warnings")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "**Task success** (reported, not gated): reference 166/200") || !strings.HasSuffix(last, "Grade: **inconclusive**.") {
		t.Errorf("last line %q, want the result with its grade", last)
	}
}

// TestWriteUnpaired: an undecided row names the item-compactions
// one system checked and the other did not (counts, the first few), and
// an item without a record is "not checked", not blank.
func TestWriteUnpaired(t *testing.T) {
	r := sample.Report()
	c := &r.Classes[0]
	c.Change = report.Undecided
	for i := range 7 {
		c.OnlyIncumbent = append(c.OnlyIncumbent, report.ItemKey{ConversationID: fmt.Sprintf("conv_%d", i), Compaction: 1, ItemID: "c1"})
	}
	c.OnlyCandidate = []report.ItemKey{{ConversationID: "@octocat", Compaction: 2, ItemID: "c9"}}
	r.Decision.Undecided = append(r.Decision.Undecided, string(c.Class), report.GateContradictions)
	r.Contradictions.Change, r.Contradictions.OnlyIncumbent, r.Contradictions.OnlyCandidate = report.Undecided, 7, 1
	text := string(markdown(t, r))
	for _, want := range []string{
		"## Undecided rows\n",
		"- constraint: 0 error verdicts for the incumbent, 0 for the candidate; 7 item-compactions checked by the incumbent only (not checked by the other): " +
			"conv\\_0 compaction 1, item c1; conv\\_1 compaction 1, item c1; conv\\_2 compaction 1, item c1; conv\\_3 compaction 1, item c1; conv\\_4 compaction 1, item c1; and 2 more; " +
			"1 item-compaction checked by the candidate only (not checked by the other): @\u200Boctocat compaction 2, item c9\n",
		"; 8 checked by one system only |",
		"| **undecided**: 6 new, 8 checked by one system only |",
		"- contradictions: an error verdict, or an item-compaction checked by one system only (7 by the incumbent only, 1 by the candidate only, named under their classes), may hide a contradiction\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// A lost item the incumbent has no record of.
	r = sample.Report()
	for i, it := range r.Items {
		if it.ItemKey == r.Classes[2].Lost[0] {
			r.Items[i].Incumbent = fixture.Record{}
		}
	}
	if text := string(markdown(t, r)); !strings.Contains(text, "; incumbent not checked\n") {
		t.Error("an item without an incumbent record is not shown as not checked")
	}
}

func TestWriteWithoutReplay(t *testing.T) {
	r := sample.BuildCase(t, casefile.Write(t, casefile.Verdicts("incumbent", nil), casefile.Verdicts("candidate", nil), ""))
	got := string(markdown(t, r))
	if !strings.Contains(got, "**Verdict:** does not block — no row got worse under the candidate.") {
		t.Errorf("verdict:\n%s", got)
	}
	if !strings.HasSuffix(got, "**Task success** (reported, not gated): no replay in this report.\n") {
		t.Errorf("last line:\n%s", got)
	}
	if err := Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report accepted")
	}
}

// TestWriteFitsAComment: a report whose lists hold long code-heavy
// literals, which escaping makes several times longer (<, & and
// backticks), is cut to a GitHub comment's size (a CI user's trial:
// 84,731 characters), listing fewer items each cut shorter, and says so.
func TestWriteFitsAComment(t *testing.T) {
	dir := t.TempDir()
	literal := strings.Repeat("if a<b && c>d { x := `<&>` } ", 12)
	var fx, inc, cand bytes.Buffer
	classes := []string{"constraint", "commitment", "open_question", "reference"}
	for c := 0; c < 40; c++ {
		conv := fmt.Sprintf("conv-%02d", c)
		fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":50,"compactions_expected":1,"must_survive":[`, conv)
		for i, class := range classes {
			if i > 0 {
				fx.WriteString(",")
			}
			b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("c%d", i), "class": class, "turn": 2 + i, "literal": literal, "probe": "p?", "expect": "yes"})
			fx.Write(b)
			b, _ = json.Marshal(map[string]any{"system": "inc", "conversation_id": conv, "compaction": 1, "item_id": fmt.Sprintf("c%d", i), "class": class, "verdict": "verbatim"})
			inc.Write(append(b, '\n'))
			b, _ = json.Marshal(map[string]any{"system": "cand", "conversation_id": conv, "compaction": 1, "item_id": fmt.Sprintf("c%d", i), "class": class,
				"verdict": "contradicted", "answer": literal})
			cand.Write(append(b, '\n'))
		}
		fx.WriteString("]}\n")
	}
	cfg := "title: big\nperiod: Q1\nfixtures: fixtures.jsonl\nsystems:\n  incumbent: {name: inc, verdicts: inc.jsonl}\n  candidate: {name: cand, verdicts: cand.jsonl}\n" +
		"gates: {retained: {constraint: 0.9, commitment: 0.9, open_question: 0.9, reference: 0.9}}\nregression: {rule: count}\n"
	for name, data := range map[string][]byte{"fixtures.jsonl": fx.Bytes(), "inc.jsonl": inc.Bytes(), "cand.jsonl": cand.Bytes(), "report.yaml": []byte(cfg)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := string(markdown(t, sample.BuildCase(t, filepath.Join(dir, "report.yaml"))))
	if n := utf8.RuneCountInString(got); n > MaxChars || !strings.Contains(got, "fewer listed, and cut shorter, to keep this text within a GitHub comment's size") {
		t.Errorf("%d characters (at most %d), or the cut is not said", n, MaxChars)
	}
	if !strings.Contains(got, "**Verdict:**") || !strings.Contains(got, "Task success") && !strings.Contains(got, "contradictions") {
		t.Errorf("the verdict or the rows are missing:\n%.2000s", got)
	}
}
