// Package chart draws the report's charts as SVG with gonum/plot: the
// retained share by class with its intervals and gates, the verdict mix
// per class, and the prompt sizes after compaction. Each function takes
// the report model and returns the SVG (for inlining in the HTML page)
// with warnings for what it left out; it computes no statistic.
package chart

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
)

// Charts are drawn by gonum/plot as SVG and inlined in the HTML. Every
// size and font is fixed, so the same report gives the same bytes. No
// input string reaches a chart: labels are class names, verdict names
// and the roles "incumbent" and "candidate"; the HTML caption names the
// systems.

const (
	width  = 16 * vg.Centimeter
	height = 8.5 * vg.Centimeter
)

// labelFont is Liberation Sans, which gonum/plot carries: text metrics
// come from it, not from the fonts installed where the report is made.
var labelFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Chart colours.
var (
	incumbentColour = color.RGBA{R: 0x2f, G: 0x4b, B: 0x7c, A: 0xff}
	candidateColour = color.RGBA{R: 0xc2, G: 0x41, B: 0x0c, A: 0xff}
	gateColour      = color.RGBA{R: 0x1b, G: 0x1b, B: 0x1b, A: 0xff}
	gridColour      = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	verdictColour   = map[fixture.Verdict]color.RGBA{
		fixture.Verbatim:     {R: 0x1e, G: 0x6b, B: 0x34, A: 0xff},
		fixture.Supported:    {R: 0x86, G: 0xc5, B: 0x8f, A: 0xff},
		fixture.Absent:       {R: 0xf0, G: 0xa2, B: 0x3b, A: 0xff},
		fixture.Contradicted: {R: 0xb4, G: 0x1c, B: 0x1c, A: 0xff},
		fixture.Error:        {R: 0x9a, G: 0x9a, B: 0x9a, A: 0xff},
	}
)

// verdictOrder is the stacking order of the verdict chart, bottom up.
var verdictOrder = []fixture.Verdict{fixture.Verbatim, fixture.Supported, fixture.Absent, fixture.Contradicted, fixture.Error}

// newPlot returns a plot with the report's fonts and sizes.
func newPlot(title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(labelFont, 11)
	p.Title.Padding = 6
	p.X.Label.TextStyle.Font = font.From(labelFont, 9)
	p.Y.Label.TextStyle.Font = font.From(labelFont, 9)
	p.Y.Label.Text = yLabel
	p.X.Tick.Label.Font = font.From(labelFont, 8.5)
	p.Y.Tick.Label.Font = font.From(labelFont, 8)
	p.Legend.TextStyle.Font = font.From(labelFont, 8)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 14
	p.Legend.Padding = 2
	grid := plotter.NewGrid()
	grid.Vertical.Width = 0
	grid.Horizontal.Color = gridColour
	grid.Horizontal.Width = 0.5
	p.Add(grid)
	return p
}

// encodeSVG renders p as an SVG element ready to inline: without the
// <?xml …?> line and the generator comment.
func encodeSVG(p *plot.Plot, label string) ([]byte, error) {
	wt, err := p.WriterTo(width, height, "svg")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	i := bytes.Index(b, []byte("<svg "))
	if i < 0 {
		return nil, errors.New("gonum/plot wrote no <svg> element")
	}
	out := make([]byte, 0, len(b)-i+64)
	out = append(out, `<svg role="img" aria-label="`...)
	out = append(out, markup.Escape(label, 200)...)
	out = append(out, `" `...)
	out = append(out, b[i+len("<svg "):]...)
	return out, nil
}

// roundStep is a round step (1, 2, 2.5 or 5 times a power of ten) near
// span/n; with whole, a whole number of at least 1 (no 2.5), so that
// count ticks fall on counts.
func roundStep(span float64, n int, whole bool) float64 {
	if !(span > 0) || !markup.Finite(span) {
		return 1
	}
	raw := span / float64(n)
	if whole && raw < 1 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if whole && m*mag != math.Trunc(m*mag) {
			continue
		}
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// roundTicks returns labelled ticks at a round step over the axis, none
// above limit; format labels each. With whole, the ticks are whole
// numbers (counts): a tick at 2.5 labelled "3" would misplace every bar.
func roundTicks(limit float64, format func(float64) string, whole bool) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		step := roundStep(max-min, 5, whole)
		var out []plot.Tick
		for k := math.Ceil(min/step - 1e-9); ; k++ {
			v := k * step
			if v > max+1e-9*step || v > limit+1e-9*step || len(out) > 50 {
				break
			}
			if math.Abs(v) < 1e-12 {
				v = 0
			}
			out = append(out, plot.Tick{Value: v, Label: format(v)})
		}
		return out
	})
}

func pctTick(v float64) string { return strconv.FormatFloat(100*v, 'f', -1, 64) + "%" }

func countTick(v float64) string { return markup.Int(int(math.Round(v))) }

// yErrPoints pairs points with their relative error bars.
type yErrPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Retention draws the retained share by class for both systems,
// with their Wilson intervals as error bars and each class's gate as a
// dash. A system's class without a finite share is left out, with a
// warning.
func Retention(r *report.Report) (svg []byte, warnings []string, err error) {
	if len(r.Classes) == 0 {
		return nil, []string{"retention chart: the report has no item classes; there is nothing to draw"}, nil
	}
	p := newPlot("Retained share by class", "retained (verbatim + supported)")
	labels := make([]string, len(r.Classes))
	lo := 1.0
	for i, row := range r.Classes {
		labels[i] = markup.ClassLabel(row.Class)
	}
	type sys struct {
		role   string
		pick   func(report.ClassRow) report.SystemClass
		dx     float64
		glyph  draw.GlyphDrawer
		colour color.Color
	}
	systems := []sys{
		{"incumbent", func(c report.ClassRow) report.SystemClass { return c.Incumbent }, -0.14, draw.CircleGlyph{}, incumbentColour},
		{"candidate", func(c report.ClassRow) report.SystemClass { return c.Candidate }, 0.14, draw.PyramidGlyph{}, candidateColour},
	}
	for _, s := range systems {
		var pts yErrPoints
		for i, row := range r.Classes {
			sc := s.pick(row)
			if sc.Counts.Errors > 0 && sc.Counts.Items > 0 {
				warnings = append(warnings, fmt.Sprintf("retention chart: the %s's %s share is a range, %s (judge errors); its point is left out", s.role, markup.ClassLabel(row.Class), sc.Retained))
				continue
			}
			if !markup.Finite(sc.Share) || !markup.Finite(sc.Wilson.Lower) || !markup.Finite(sc.Wilson.Upper) {
				warnings = append(warnings, fmt.Sprintf("retention chart: the %s has no retained share for %s (%d items); its point is left out", s.role, markup.ClassLabel(row.Class), sc.Counts.Items))
				continue
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(i) + s.dx, Y: sc.Share})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{
				Low: math.Max(0, sc.Share-sc.Wilson.Lower), High: math.Max(0, sc.Wilson.Upper-sc.Share),
			})
			lo = math.Min(lo, sc.Wilson.Lower)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, nil, err
		}
		bars.LineStyle.Color = s.colour
		bars.LineStyle.Width = 1.2
		bars.CapWidth = 6
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.colour, Radius: 3.2, Shape: s.glyph}
		p.Add(bars, sc)
		p.Legend.Add(s.role, sc)
	}
	gateShown := false
	for i, row := range r.Classes {
		g := row.MinShare
		if !markup.Finite(g) || g <= 0 || g > 1 {
			continue
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.36, Y: g}, {X: float64(i) + 0.36, Y: g}})
		if err != nil {
			return nil, nil, err
		}
		ln.LineStyle = draw.LineStyle{Color: gateColour, Width: 1, Dashes: []vg.Length{4, 2}}
		p.Add(ln)
		if !gateShown {
			p.Legend.Add("gate", ln)
			gateShown = true
		}
		lo = math.Min(lo, g)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	p.Y.Min = math.Max(0, math.Floor(lo*20)/20-0.05)
	p.Y.Max = 1 + 0.3*(1-p.Y.Min) // headroom for the legend
	p.Y.Tick.Marker = roundTicks(1, pctTick, false)
	svg, err = encodeSVG(p, "Retained share by class with Wilson intervals and gates, incumbent and candidate")
	return svg, warnings, err
}

// Verdicts draws, for each class, one bar per system stacking its
// item-compactions by verdict.
func Verdicts(r *report.Report) (svg []byte, warnings []string, err error) {
	if len(r.Classes) == 0 {
		return nil, []string{"verdict chart: the report has no item classes; there is nothing to draw"}, nil
	}
	p := newPlot("Verdicts by class (left bar incumbent, right bar candidate)", "item-compactions")
	labels := make([]string, len(r.Classes))
	maxItems := 0
	for i, row := range r.Classes {
		labels[i] = markup.ClassLabel(row.Class)
		maxItems = max(maxItems, row.Incumbent.Counts.Items, row.Candidate.Counts.Items)
		if row.Incumbent.Counts.Items == 0 {
			warnings = append(warnings, fmt.Sprintf("verdict chart: the incumbent has no %s items", markup.ClassLabel(row.Class)))
		}
		if row.Candidate.Counts.Items == 0 {
			warnings = append(warnings, fmt.Sprintf("verdict chart: the candidate has no %s items", markup.ClassLabel(row.Class)))
		}
	}
	count := func(c fixture.Counts, v fixture.Verdict) float64 {
		switch v {
		case fixture.Verbatim:
			return float64(c.Verbatim)
		case fixture.Supported:
			return float64(c.Supported)
		case fixture.Absent:
			return float64(c.Absent)
		case fixture.Contradicted:
			return float64(c.Contradicted)
		}
		return float64(c.Errors)
	}
	anyErrors := false
	for _, row := range r.Classes {
		anyErrors = anyErrors || row.Incumbent.Counts.Errors > 0 || row.Candidate.Counts.Errors > 0
	}
	const barWidth = 26
	type sys struct {
		role   string
		pick   func(report.ClassRow) report.SystemClass
		offset vg.Length
	}
	systems := []sys{
		{"inc.", func(c report.ClassRow) report.SystemClass { return c.Incumbent }, -barWidth/2 - 2},
		{"cand.", func(c report.ClassRow) report.SystemClass { return c.Candidate }, barWidth/2 + 2},
	}
	for si, s := range systems {
		var below *plotter.BarChart
		for _, v := range verdictOrder {
			vals := make(plotter.Values, len(r.Classes))
			if v == fixture.Error && !anyErrors {
				continue
			}
			for i, row := range r.Classes {
				vals[i] = count(s.pick(row).Counts, v)
			}
			b, err := plotter.NewBarChart(vals, barWidth)
			if err != nil {
				return nil, nil, err
			}
			b.Color = verdictColour[v]
			b.LineStyle.Width = 0.5
			b.LineStyle.Color = color.White
			b.Offset = s.offset
			if below != nil {
				b.StackOn(below)
			}
			below = b
			p.Add(b)
			if si == 0 {
				p.Legend.Add(string(v), b)
			}
		}
		var lab plotter.XYLabels
		for i, row := range r.Classes {
			lab.XYs = append(lab.XYs, plotter.XY{X: float64(i), Y: float64(s.pick(row).Counts.Items)})
			lab.Labels = append(lab.Labels, s.role)
		}
		l, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font = font.From(labelFont, 7)
			l.TextStyle[i].XAlign = text.XCenter
		}
		l.Offset = vg.Point{X: s.offset, Y: 2}
		p.Add(l)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	p.Y.Min = 0
	top := float64(max(maxItems, 1))
	p.Y.Max = top * 1.45 // headroom for the labels and the legend
	p.Y.Tick.Marker = roundTicks(top*1.1, countTick, true)
	svg, err = encodeSVG(p, "Verdicts by class, stacked, incumbent and candidate")
	return svg, warnings, err
}

// PromptSize draws each system's prompt sizes after compaction as a
// box plot (Tukey's: the box from the first to the third quartile, the
// median across it, whiskers to the furthest size within 1.5 times the
// box's height, sizes beyond that as rings), with the mean as a cross
// and the budget on the mean as a dashed line. A system without sizes is
// left out, with a warning.
func PromptSize(r *report.Report) (svg []byte, warnings []string, err error) {
	p := newPlot("Prompt size after compaction", "tokens")
	const boxWidth = 56
	type sys struct {
		role   string
		st     report.PromptStats
		colour color.RGBA
	}
	systems := []sys{{"incumbent", r.Prompt.Incumbent, incumbentColour}, {"candidate", r.Prompt.Candidate, candidateColour}}
	labels := make([]string, len(systems))
	top := 0.0
	var boxes []*plotter.BoxPlot
	var means plotter.XYs
	for i, s := range systems {
		labels[i] = s.role
		switch {
		case s.st.Contexts == 0:
			warnings = append(warnings, fmt.Sprintf("prompt-size chart: the %s has no prompt sizes (%d contexts); its box is left out", s.role, s.st.Contexts))
			continue
		case len(s.st.Sizes) != s.st.Contexts:
			warnings = append(warnings, fmt.Sprintf("prompt-size chart: the report holds %d of the %s's %d prompt sizes; its box is left out", len(s.st.Sizes), s.role, s.st.Contexts))
			continue
		}
		labels[i] = s.role + " (" + markup.Int(s.st.Contexts) + " contexts)"
		b, err := plotter.NewBoxPlot(boxWidth, float64(i), ints(s.st.Sizes))
		if err != nil {
			return nil, nil, err
		}
		b.FillColor = color.NRGBA{R: s.colour.R, G: s.colour.G, B: s.colour.B, A: 0x33}
		b.BoxStyle = draw.LineStyle{Color: s.colour, Width: 1}
		b.MedianStyle = draw.LineStyle{Color: s.colour, Width: 2}
		b.WhiskerStyle = draw.LineStyle{Color: s.colour, Width: 1}
		b.GlyphStyle = draw.GlyphStyle{Color: s.colour, Radius: 2, Shape: draw.RingGlyph{}}
		boxes = append(boxes, b)
		top = math.Max(top, b.Max)
		if markup.Finite(s.st.Mean) {
			means = append(means, plotter.XY{X: float64(i), Y: s.st.Mean})
		}
	}
	g := r.Prompt.MaxMean
	budget := markup.Finite(g) && g > 0
	if budget {
		top = math.Max(top, g)
	}
	if top <= 0 {
		top = 1
	}
	p.Y.Min = 0
	p.Y.Max = top * 1.25 // headroom for the legend
	for _, b := range boxes {
		// Sizes beyond the whiskers that would be drawn on top of one
		// another are drawn once: the SVG stays small for any number of
		// contexts, and looks the same.
		b.Outside = thin(b, p.Y.Max/400)
		p.Add(b)
	}
	if len(means) > 0 {
		sc, err := plotter.NewScatter(means)
		if err != nil {
			return nil, nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: gateColour, Radius: 3.5, Shape: draw.CrossGlyph{}}
		p.Add(sc)
		p.Legend.Add("mean", sc)
	}
	if budget {
		ln, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: g}, {X: float64(len(systems)) - 0.5, Y: g}})
		if err != nil {
			return nil, nil, err
		}
		ln.LineStyle = draw.LineStyle{Color: gateColour, Width: 1, Dashes: []vg.Length{4, 2}}
		p.Add(ln)
		p.Legend.Add("budget on the mean", ln)
	}
	p.NominalX(labels...)
	p.Y.Padding = 0 // NominalX makes room for half the first label, which X.Min leaves already
	p.X.Min, p.X.Max = -0.5, float64(len(systems))-0.5
	p.Y.Tick.Marker = roundTicks(top*1.1, countTick, true)
	svg, err = encodeSVG(p, "Prompt size after compaction, distribution per system, incumbent and candidate")
	return svg, warnings, err
}

// ints lets a box plot read sizes without copying them first.
type ints []int

func (v ints) Len() int            { return len(v) }
func (v ints) Value(i int) float64 { return float64(v[i]) }

// thin returns b's outside points, keeping of those closer than gap
// (in data units) to the last one kept only the first: the points of a
// box plot lie on one vertical line, so those left out would be drawn
// over the ones kept.
func thin(b *plotter.BoxPlot, gap float64) []int {
	out := slices.Clone(b.Outside)
	slices.SortStableFunc(out, func(i, j int) int { return cmp.Compare(b.Value(i), b.Value(j)) })
	kept := out[:0]
	for _, i := range out {
		if len(kept) == 0 || b.Value(i)-b.Value(kept[len(kept)-1]) >= gap {
			kept = append(kept, i)
		}
	}
	return kept
}
