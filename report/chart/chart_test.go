package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

var charts = []struct {
	name string
	draw func(*report.Report) ([]byte, []string, error)
}{
	{"retention", Retention},
	{"verdicts", Verdicts},
	{"prompt-size", PromptSize},
}

// checkSVG checks that svg is one well-formed, inline-ready <svg>
// element that refers to nothing outside itself.
func checkSVG(t *testing.T, svg []byte) {
	t.Helper()
	if !bytes.HasPrefix(svg, []byte(`<svg role="img" aria-label="`)) {
		t.Errorf("the chart does not start with its <svg> element: %.60q", svg)
	}
	for _, bad := range []string{"<?xml", "<!--", "<script", "href", "<image", "<style", "@font-face", "url(", "NaN", "Inf"} {
		if bytes.Contains(svg, []byte(bad)) {
			t.Errorf("the chart holds %q", bad)
		}
	}
	if !bytes.Contains(svg, []byte(`viewBox="0 0 `)) {
		t.Error("no viewBox: the chart cannot scale with the page")
	}
	if !bytes.Contains(svg, []byte("font-family:Liberation Sans")) {
		t.Error("the chart's text is not in the fixed font")
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	depth, elements := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			elements++
		case xml.EndElement:
			depth--
			if depth == 0 && d.InputOffset() != int64(len(bytes.TrimRight(svg, "\n"))) {
				t.Errorf("content after the <svg> element, at byte %d of %d", d.InputOffset(), len(svg))
			}
		}
	}
	// An empty chart of counts has axes, a frame and two whole-number
	// ticks (0 and 1): some 15 elements; anything drawn has more.
	if depth != 0 || elements < 12 {
		t.Errorf("depth %d after the last token, %d elements", depth, elements)
	}
}

func TestSVG(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report func() *report.Report
	}{{"sample", sample.Report}, {"hostile", sample.Hostile}} {
		for _, c := range charts {
			t.Run(tc.name+"/"+c.name, func(t *testing.T) {
				r := tc.report()
				svg, warnings, err := c.draw(r)
				if err != nil {
					t.Fatal(err)
				}
				if len(warnings) > 0 {
					t.Errorf("warnings for a complete report: %q", warnings)
				}
				checkSVG(t, svg)
				again, _, err := c.draw(tc.report())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(svg, again) {
					t.Error("two drawings of the same report differ")
				}
				// The systems' names are input: they stay out of the chart
				// (the HTML caption names them, escaped).
				for _, name := range []string{r.Incumbent, r.Candidate} {
					if bytes.Contains(svg, []byte(name)) || bytes.Contains(svg, []byte(html.EscapeString(name))) {
						t.Errorf("the system name %q reached the chart", name)
					}
				}
			})
		}
	}
}

func TestSkipUndefined(t *testing.T) {
	r := sample.Minimal()
	r.Classes[1].Candidate.Wilson.Lower = math.Inf(-1)
	want := map[string][]string{
		"retention": {
			"retention chart: the incumbent has no retained share for reference (0 items); its point is left out",
			"retention chart: the candidate has no retained share for commitment (51 items); its point is left out",
			"retention chart: the candidate's open question share is a range, 88–89 of 103 = 85.4–86.4%, no interval (judge errors); its point is left out",
			"retention chart: the candidate has no retained share for reference (0 items); its point is left out",
		},
		"verdicts": {
			"verdict chart: the incumbent has no reference items",
			"verdict chart: the candidate has no reference items",
		},
		"prompt-size": {
			"prompt-size chart: the candidate has no prompt sizes (0 contexts); its box is left out",
		},
	}
	for _, c := range charts {
		t.Run(c.name, func(t *testing.T) {
			svg, warnings, err := c.draw(r)
			if err != nil {
				t.Fatal(err)
			}
			checkSVG(t, svg)
			if strings.Join(warnings, "\n") != strings.Join(want[c.name], "\n") {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want[c.name], "\n"))
			}
		})
	}
}

func TestEmptyReport(t *testing.T) {
	for _, c := range charts {
		svg, warnings, err := c.draw(&report.Report{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if svg == nil {
			if len(warnings) != 1 || !strings.Contains(warnings[0], "nothing to draw") {
				t.Errorf("%s: no chart and warnings %q", c.name, warnings)
			}
			continue
		}
		checkSVG(t, svg)
	}
}

func TestStep(t *testing.T) {
	for _, tc := range []struct {
		span  float64
		whole bool
		want  float64
	}{
		{1, false, 0.2}, {0.5, false, 0.1}, {0.35, false, 0.1}, {130, false, 50}, {19000, false, 5000}, {7, false, 2},
		{0, false, 1}, {math.NaN(), false, 1}, {math.Inf(1), false, 1},
		// Counts: a step of 2.5 would put a tick labelled "3" at 2.5
		// (seven items drawn under the line marked 8); below 1, one.
		{12, false, 2.5}, {12, true, 5}, {3, true, 1}, {0.5, true, 1}, {130, true, 50}, {120, true, 25},
	} {
		if got := roundStep(tc.span, 5, tc.whole); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("chartStep(%v, 5, %v) = %v, want %v", tc.span, tc.whole, got, tc.want)
		}
	}
	var counts []string
	for _, tk := range roundTicks(12, countTick, true).Ticks(0, 12) {
		if tk.Value != math.Trunc(tk.Value) || tk.Label != countTick(tk.Value) {
			t.Errorf("count tick %v labelled %q", tk.Value, tk.Label)
		}
		counts = append(counts, tk.Label)
	}
	if got := strings.Join(counts, " "); got != "0 5 10" {
		t.Errorf("count ticks over 0–12: %q, want 0 5 10", got)
	}
	ticks := roundTicks(1, pctTick, false).Ticks(0.65, 1.1)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "70% 80% 90% 100%" {
		t.Errorf("ticks %q, want 70%% to 100%%, none above 100%%", got)
	}
}

func BenchmarkCharts(b *testing.B) {
	r := sample.Report()
	for _, c := range charts {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := c.draw(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPromptSizeChartLarge draws 300,000 prompt sizes per system with a
// long tail: thousands of sizes lie beyond the whiskers, and the chart
// draws only those not on top of one another, so the SVG stays small.
func TestPromptSizeChartLarge(t *testing.T) {
	r := sample.Report()
	const n = 300_000
	sizes := func(seed uint64) []int {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := make([]int, n)
		for i := range s {
			s[i] = 2000 + int(3000*rng.ExpFloat64()) // a long right tail
		}
		return s
	}
	r.Prompt.Incumbent, r.Prompt.Candidate = report.NewPromptStats(sizes(1)), report.NewPromptStats(sizes(2))
	start := time.Now()
	svg, warnings, err := PromptSize(r)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	checkSVG(t, svg)
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
	// Each drawn size beyond the whiskers is one small path; without
	// thinning there would be thousands per system.
	outside := 0
	for _, st := range []report.PromptStats{r.Prompt.Incumbent, r.Prompt.Candidate} {
		b, err := plotter.NewBoxPlot(10, 0, ints(st.Sizes))
		if err != nil {
			t.Fatal(err)
		}
		outside += len(b.Outside)
	}
	t.Logf("%d sizes beyond the whiskers; SVG of %d bytes drawn in %v", outside, len(svg), took)
	if outside < 10_000 {
		t.Fatalf("only %d sizes beyond the whiskers: the test data has no long tail", outside)
	}
	if len(svg) > 256<<10 {
		t.Errorf("the SVG is %d bytes: sizes beyond the whiskers are not thinned", len(svg))
	}
	again, _, err := PromptSize(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(svg, again) {
		t.Error("two drawings of the same sizes differ")
	}
}

func TestThin(t *testing.T) {
	b, err := plotter.NewBoxPlot(10, 0, ints{100, 1, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 200, 202, 203, 210, -500})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, i := range thin(b, 5) {
		got = append(got, b.Value(i))
	}
	// Beyond the fences (Tukey's: the quartiles 52 and 100 ± 1.5 × 48):
	// −500, 200, 202, 203 and 210; 202 and 203 are within 5 of 200.
	if want := []float64{-500, 200, 210}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v (outside: %v)", got, want, b.Outside)
	}
}
