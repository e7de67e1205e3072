package notebook

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

func ExampleParse() {
	nb, err := Parse("mine.md", []byte("# Sizing\n\n```tally\nplan --rate 0.83 --conversations 200 --catastrophic 3\n```\n\n```tally\ntask-success\n```\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range nb.Cells() {
		fmt.Printf("%s:%d: %s\n", nb.Name(), c.Line, c.Command)
	}
	_, err = Parse("bad.md", []byte("```tally\ntask-success\n```\n\n```tally\ngatse\n```\n"))
	fmt.Println(err)
	// Output:
	// mine.md:4: plan --rate 0.83 --conversations 200 --catastrophic 3
	// mine.md:8: task-success
	// bad.md:2: task-success must be the last cell, but the cell at line 6 comes after it: task success goes at the bottom of the report, where it can be read for what it is worth (reported, not gated)
	// bad.md:6: unknown cell "gatse"; did you mean "gates"? (cells: title, decision, gates, comparison, lost-items, changed-items, contradictions, replay, selection, plan, plan fixtures, calibration, interval, plot retention, plot verdicts, plot prompt-size, provenance, task-success)
}

func ExampleNotebook_Render() {
	nb, err := Parse("sizing.md", []byte("# On paper\n\n```tally\ninterval -k 166 -n 200 --method wilson\n```\n\n```tally\ntask-success\n```\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var body bytes.Buffer
	if err := nb.Render(&body, &report.Report{Title: "Sizing", Confidence: 0.95}); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(body.String(), "\n") {
		if strings.HasPrefix(line, "<tr><td>") || strings.HasPrefix(line, "<p class=\"line\">") {
			fmt.Println(line)
		}
	}
	// Output:
	// <tr><td>wilson</td><td class="num">0.772</td><td class="num">0.876</td><td class="num">0.104</td></tr>
	// <p class="line"><strong>Task success — reported, not gated:</strong> not measured; the report has no replay data.</p>
}

func TestDefault(t *testing.T) {
	nb := Default()
	if nb != Default() {
		t.Error("Default parses the embedded notebook more than once")
	}
	var got []string
	for _, c := range nb.Cells() {
		got = append(got, c.Name)
	}
	want := []string{"title", "decision", "gates", "comparison", "lost-items", "contradictions",
		"plot retention", "plot verdicts", "plot prompt-size", "replay", "selection", "plan", "interval", "plan fixtures", "calibration", "provenance", "task-success"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the default notebook's cells are\n%v\nwant\n%v", got, want)
	}
	if !bytes.Contains(nb.Source(), []byte("a backlog,\nnot a merge decision")) {
		t.Error("the default notebook does not say a gate unmet by the incumbent too is a backlog, not a merge decision")
	}
	// Every cell kind the issue asks for is available.
	for _, name := range []string{"gates", "comparison", "lost-items", "contradictions", "replay", "selection", "plan", "interval", "plot retention", "plot verdicts", "plot prompt-size", "calibration", "task-success"} {
		if !strings.Contains(CellUsage(), name) {
			t.Errorf("CellUsage does not list %s", name)
		}
	}
}

// srcLines joins lines into a notebook.
func srcLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestParseErrors(t *testing.T) {
	const last = "```tally\ntask-success\n```"
	for _, tc := range []struct {
		name string
		src  string
		want []string // each error line, in order
	}{
		{"unknown cell", srcLines("# T", "", "```tally", "gatse", "```", "", last),
			[]string{`nb.md:4: unknown cell "gatse"; did you mean "gates"?`}},
		{"unknown cell far from any", srcLines("```tally", "frobnicate --now", "```", last),
			[]string{`nb.md:2: unknown cell "frobnicate" (want one of title,`}},
		{"bad number", srcLines("```tally", "plan --rate 1.5 --conversations 200", "```", last),
			[]string{"nb.md:2: plan: rate must be"}},
		{"not a number", srcLines("```tally", "plan --rate high --conversations 200", "```", last),
			[]string{`nb.md:2: plan: invalid value "high" for flag -rate: parse error; usage: plan [--from replay] | --rate P --conversations N`}},
		{"NaN", srcLines("```tally", "plan --rate NaN --conversations 200", "```", last),
			[]string{"nb.md:2: plan: --rate must be a finite number, got NaN"}},
		{"missing argument", srcLines("```tally", "plan --rate 0.83", "```", last),
			[]string{"nb.md:2: plan: --conversations is required"}},
		{"unknown flag", srcLines("```tally", "interval -k 1 -n 2 --colour red", "```", last),
			[]string{"nb.md:2: interval: flag provided but not defined: -colour"}},
		{"bad method", srcLines("```tally", "interval -k 1 -n 2 --method exact", "```", last),
			[]string{`nb.md:2: interval: --method: unknown interval method "exact"`}},
		{"k above n", srcLines("```tally", "interval -k 3 -n 2", "```", last),
			[]string{"nb.md:2: interval:"}},
		{"stray argument", srcLines("```tally", "gates now", "```", last),
			[]string{`nb.md:2: gates: unexpected argument "now"; usage: gates (no arguments)`}},
		{"bad limit", srcLines("```tally", "lost-items --limit 0", "```", last),
			[]string{"nb.md:2: lost-items: --limit must be between 1 and 100000, got 0"}},
		{"help", srcLines("```tally", "gates -h", "```", last),
			[]string{"nb.md:2: gates: -h and -help are not cell arguments"}},
		{"plot without a chart", srcLines("```tally", "plot", "```", last),
			[]string{"nb.md:2: plot needs a chart: plot retention, plot verdicts or plot prompt-size"}},
		{"unknown chart", srcLines("```tally", "plot retension", "```", last),
			[]string{`nb.md:2: unknown cell "plot retension"; did you mean "plot retention"?`}},
		{"empty block", srcLines("text", "", "```tally", "", "# just a comment", "```", last),
			[]string{"nb.md:3: empty tally block: want a cell, one of title,"}},
		{"two commands", srcLines("```tally", "gates", "", "comparison", "```", last),
			[]string{`nb.md:4: a tally block holds one cell, and this one already has "gates" at line 2; put "comparison" in a block of its own`}},
		{"no task success", srcLines("# T", "", "```tally", "gates", "```"),
			[]string{"nb.md:5: the notebook has no task-success cell; task success goes on the report's last line, reported and never gated"}},
		{"task success not last", srcLines("```tally", "task-success", "```", "", "```tally", "gates", "```"),
			[]string{"nb.md:2: task-success must be the last cell, but the cell at line 6 comes after it"}},
		{"task success twice", srcLines(last, "", last),
			[]string{"nb.md:2: task-success must be the last cell, but the cell at line 6 comes after it"}},
		{"text after task success", srcLines("# T", last, "", "Questions? Ask the eval team."),
			[]string{"nb.md:3: task-success must be the notebook's last block, but there is more at line 6: task success goes on the report's last line (reported, not gated); move that text above it"}},
		{"heading after task success", srcLines(last, "## Appendix"),
			[]string{"nb.md:2: task-success must be the notebook's last block, but there is more at line 4"}},
		{"raw HTML block", srcLines("<div onclick=x>hi</div>", "", last),
			[]string{"nb.md:1: raw HTML is not allowed in a notebook"}},
		{"inline raw HTML", srcLines("Some <b>bold</b> text.", "", last),
			[]string{"nb.md:1: raw HTML is not allowed in a notebook", "nb.md:1: raw HTML is not allowed"}},
		{"external image", srcLines("# T", "", "![logo](https://example.com/logo.png)", "", last),
			[]string{`nb.md:3: image "https://example.com/logo.png": only data: URLs are allowed`}},
		{"invalid UTF-8", "# T\n\xff\n" + last + "\n",
			[]string{"nb.md:2: the notebook is not valid UTF-8 (byte 5)"}},
		{"too big", strings.Repeat("x", MaxBytes+1),
			[]string{"nb.md:1: the notebook is 1048577 bytes, more than the 1048576 a notebook may have"}},
		{"too many cells", strings.Repeat("```tally\ngates\n```\n", MaxCells) + "```tally\ntask-success\n```\n",
			[]string{"nb.md:1501: more than 500 cells; a notebook is prose with a few computed cells"}},
		{"every problem at once", srcLines("```tally", "nope", "```", "```tally", "plan --rate 0.5", "```", "<br>"),
			[]string{`nb.md:2: unknown cell "nope"`, "nb.md:5: plan: --conversations is required (or --from replay", "nb.md:7: raw HTML", "nb.md:7: the notebook has no task-success cell"}},
		{"plan from an unknown source", srcLines("```tally", "plan --from results", "```", last),
			[]string{`nb.md:2: plan: --from "results": the one source is replay (the report's replayed conversations); usage: plan [--from replay] | --rate P`}},
		{"plan from the replay with numbers of its own", srcLines("```tally", "plan --from replay --rate 0.8", "```", last),
			[]string{"nb.md:2: plan: --rate: --from replay takes the numbers from the report; give one or the other"}},
		{"interval from the replay with a count of its own", srcLines("```tally", "interval --from replay --successes 3", "```", last),
			[]string{"nb.md:2: interval: -k: --from replay takes the numbers from the report; give one or the other"}},
		{"interval with -k alone", srcLines("```tally", "interval -k 3", "```", last),
			[]string{"nb.md:2: interval: -n is required (or --from replay"}},
		{"cell in a list", srcLines("- first", "", "  ```tally", "  gatez", "  ```", "", last),
			[]string{`nb.md:4: unknown cell "gatez"`}},
		{"cell in a quote", srcLines("> ```tally", "> plot nothing", "> ```", "", last),
			[]string{`nb.md:2: unknown cell "plot nothing"`}},
		{"tilde fence", srcLines("~~~tally", "selection --limit -1", "~~~", last),
			[]string{"nb.md:2: selection: --limit must be between 1 and 100000, got -1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb, err := Parse("nb.md", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error; cells %v", nb.Cells())
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("%d errors, want %d:\n%v", len(lines), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("error %d is\n%s\nwant it to contain\n%s", i, lines[i], w)
				}
			}
			// Each problem is its own error, for one line each on stderr.
			if j, ok := err.(interface{ Unwrap() []error }); !ok || len(j.Unwrap()) != len(tc.want) {
				t.Errorf("want %d joined errors", len(tc.want))
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		cells []string // "line:command"
	}{
		{"other code is not a cell", srcLines("```go", "gates()", "```", "", "    ```tally", "    indented code", "    ```", "", "```", "tally", "```", "", "```tally", "task-success", "```"),
			[]string{"14:task-success"}},
		{"info after the language", srcLines("```tally {.cell}", "  gates  ", "```", "```tally", "task-success", "```"),
			[]string{"2:gates", "5:task-success"}},
		{"comments and blank lines", srcLines("```tally", "# the gates", "", "lost-items   --limit=20", "```", "", "```tally", "task-success", "```"),
			[]string{"4:lost-items --limit=20", "8:task-success"}},
		{"every cell", srcLines(
			"```tally", "title", "```", "```tally", "decision", "```", "```tally", "gates", "```", "```tally", "comparison", "```",
			"```tally", "lost-items --limit 5", "```", "```tally", "changed-items", "```", "```tally", "contradictions --limit 3", "```",
			"```tally", "replay --limit 10", "```", "```tally", "selection", "```",
			"```tally", "plan --rate 0.83 --conversations 200 --catastrophic 3 --alpha 0.01 --power 0.9", "```",
			"```tally", "interval --successes 0 --trials 40 --confidence 0.99 --method clopper-pearson", "```",
			"```tally", "plot retention", "```", "```tally", "plot verdicts", "```", "```tally", "plot prompt-size", "```",
			"```tally", "provenance", "```", "```tally", "task-success", "```"), nil},
		{"data image", srcLines("![dot](data:image/png;base64,iVBORw0KGgo=)", "", "```tally", "task-success", "```"), []string{"4:task-success"}},
		{"CRLF line ends", "# T\r\n\r\n```tally\r\ngates\r\n```\r\n\r\n```tally\r\ntask-success\r\n```\r\n", []string{"4:gates", "8:task-success"}},
		{"trailing blank lines", srcLines("```tally", "task-success", "```", "", "", ""), []string{"2:task-success"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb, err := Parse("nb.md", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if tc.cells != nil {
				var got []string
				for _, c := range nb.Cells() {
					got = append(got, fmt.Sprintf("%d:%s", c.Line, c.Command))
				}
				if strings.Join(got, "|") != strings.Join(tc.cells, "|") {
					t.Errorf("cells %q, want %q", got, tc.cells)
				}
			}
			// Every valid notebook renders.
			var b bytes.Buffer
			if err := nb.Render(&b, sample.Hostile()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMarkdownIsSafe(t *testing.T) {
	nb, err := Parse("nb.md", []byte(srcLines(
		"# Title with a < b & c",
		"",
		"| a | b |",
		"|---|---|",
		"| [x](javascript:alert(1)) | `<script>` |",
		"",
		"[site](https://example.com) and an autolink <https://example.com/x>",
		"",
		"```tally",
		"task-success",
		"```")))
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, sample.Hostile(), nb)
	for _, want := range []string{"<table>", "<h1>Title with a &lt; b &amp; c</h1>", "<code>&lt;script&gt;</code>", `<a href="">x</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not contain %q", want)
		}
	}
	if strings.Contains(page, "javascript:") {
		t.Error("a javascript: link survived")
	}
}

func TestRenderInfiniteAndForeign(t *testing.T) {
	// gonum/plot refuses an infinite value: the renderer checks first,
	// leaves the point out and says so.
	nb, err := Parse("nb.md", []byte(srcLines("# T", "", "```tally", "plot retention", "```", "", "```tally", "task-success", "```")))
	if err != nil {
		t.Fatal(err)
	}
	r := sample.Report()
	r.Classes[0].MinShare = 2 // out of range: the dash is left out
	r.Classes[1].Incumbent.Wilson.Upper = math.Inf(1)
	page := render(t, r, nb)
	if !strings.Contains(page, "retention chart: the incumbent has no retained share for commitment") {
		t.Error("an infinite interval bound is not skipped with a warning")
	}
	// A hand-made Notebook that Parse did not make is refused.
	var bad Notebook
	bad.src = []byte("```tally\ngates\n```\n")
	if err := bad.Render(&bytes.Buffer{}, r); err == nil || !strings.Contains(err.Error(), "not made by notebook.Parse") {
		t.Errorf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(quarterlySource)
	for _, s := range []string{
		"```tally\ntask-success\n```\n",
		"```tally\nplan --rate 0.83 --conversations 200 --catastrophic 3\n```\n```tally\ntask-success\n```",
		"```tally\ninterval -k 166 -n 200\n```\n~~~tally\ntask-success\n~~~\n",
		"> ```tally\n> plot retention\n> ```\n- ```tally\n  task-success\n  ```",
		"```tally\nplan --rate 1e-300 --conversations 9007199254740992 --catastrophic 1\n```",
		"```tally\nlost-items --limit=99999\n```\n<b>x</b>\n![a](http://x)\n",
		"| a |\n|---|\n| ```tally |\n",
		"```tally\n\x00\n```\n\xff",
	} {
		f.Add([]byte(s))
	}
	r := sample.Hostile()
	f.Fuzz(func(t *testing.T, src []byte) {
		nb, err := Parse("fuzz.md", src)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.md:") {
					t.Fatalf("error line %q does not start with NAME:LINE:", line)
				}
			}
			var j interface{ Unwrap() []error }
			if !errors.As(err, &j) {
				t.Fatalf("error %v is not a joined list", err)
			}
			return
		}
		cells := nb.Cells()
		if len(cells) == 0 || cells[len(cells)-1].Name != TaskSuccessCell {
			t.Fatalf("accepted a notebook whose last cell is not task-success: %v", cells)
		}
		var b bytes.Buffer
		if err := nb.Render(&b, r); err != nil {
			t.Fatalf("a valid notebook does not render: %v", err)
		}
		if bytes.Contains(bytes.ToLower(b.Bytes()), []byte("<script")) {
			t.Fatal("a notebook put a script in the page")
		}
	})
}

// render renders nb's body for r.
func render(t testing.TB, r *report.Report, nb *Notebook) string {
	t.Helper()
	var b bytes.Buffer
	if err := nb.Render(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGatesUngated: a class without a retained-share gate reads "none",
// not "at least 0% retained" (a new user's trial).
func TestGatesUngated(t *testing.T) {
	nb, err := Parse("nb.md", []byte(srcLines("# T", "", "```tally", "gates", "```", "", "```tally", "task-success", "```")))
	if err != nil {
		t.Fatal(err)
	}
	r := sample.Report()
	r.Classes[1].MinShare = 0
	r.Classes[1].Incumbent.Gate, r.Classes[1].Candidate.Gate = report.NoGate, report.NoGate
	page := render(t, r, nb)
	if strings.Count(page, "<td>none</td>") != 1 || strings.Contains(page, "at least 0% retained") {
		t.Errorf("an ungated class's standard is not \"none\":\n%s", page)
	}
}
