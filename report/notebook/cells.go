package notebook

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/chart"
	"github.com/tally-eval/tally/report/internal/markup"
)

// A cell renders from the report only. The two planning cells, plan and
// interval, show the report's own numbers (Report.Paper, computed by
// Build) when given no numbers or --from replay; given numbers, they
// compute their statistics from them when the notebook is parsed (so a
// bad argument is an error at its line). No other cell computes a
// statistic.

// cellRun renders one cell into cx.out.
type cellRun func(cx *cellCtx) error

// cellKind is one kind of cell: its name, its arguments and how it is
// set up from them.
type cellKind struct {
	name string
	args string // the arguments, for usage messages
	doc  string
	// setup declares the cell's flags on fs and returns the function
	// that, once fs is parsed, validates them and makes the cell.
	setup func(fs *flag.FlagSet) func(set map[string]bool) (cellRun, error)
}

// Defaults and bounds of the --limit of item lists.
const (
	defaultLimit = 500
	maxLimit     = 100_000
)

// cellKinds lists every cell, in the order the documentation gives them.
var cellKinds = []cellKind{
	{name: "title", doc: "the report's title, period, systems and timestamp", setup: fixed(cellTitle)},
	{name: "decision", doc: "the honest reading: the rows that got worse (what blocks) against the gates neither system meets (a backlog)", setup: fixed(cellDecision)},
	{name: "gates", doc: "every gate, both systems' status against it, and the change", setup: fixed(cellGates)},
	{name: "comparison", doc: "incumbent against candidate per class: shares and intervals, lost and gained, McNemar; verdict counts; prompt size", setup: fixed(cellComparison)},
	{name: "lost-items", args: "[--limit N]", doc: "the items the incumbent retained and the candidate did not", setup: limited(defaultLimit, cellLostItems)},
	{name: "changed-items", args: "[--limit N]", doc: "every item whose verdict differs between the systems", setup: limited(defaultLimit, cellChangedItems)},
	{name: "contradictions", args: "[--limit N]", doc: "the contradiction gate and the items the candidate newly contradicts", setup: limited(defaultLimit, cellContradictions)},
	{name: "replay", args: "[--limit N]", doc: "the paired replay: the 2×2 table, McNemar's tests, the difference's intervals and the discordant conversations to review", setup: limited(defaultLimit, cellReplay)},
	{name: "selection", args: "[--limit N]", doc: "the fixture selection against random samples, and the selected sessions", setup: limited(100, cellSelection)},
	{name: "plan", args: "[--from replay] | --rate P --conversations N [--catastrophic K] [--alpha 0.05] [--power 0.8]",
		doc: "the on-paper argument, as `tally plan`. With no argument, or --from replay, from the report's own replay: its conversations and the reference's success rate, α = 1 − confidence, power 0.8, and as the catastrophic count the fixture conversations in which the candidate lost a constraint item or newly contradicted an item (left out when there are none); without a replay, a one-line note saying to configure replay: in report.yaml. With --rate and --conversations, the numbers given", setup: setupPlan},
	{name: "plan fixtures", doc: "the regression rule's error rates on this report's fixture set, as `tally plan fixtures --config`: its false-block rate and power under the noise named in report.yaml (noise:), per class and drop, and the items and conversations each class needs to catch each drop with power 0.8; without a noise measurement, a sentence saying the rates are unknown and how to measure them", setup: fixed(cellPlanFixtures)},
	{name: "calibration", doc: "how far to trust the judge: with reviewers' verdicts (reviews: in report.yaml), each class's retained share as the judge gives it beside the share corrected for the judge's errors (stratified prediction-powered inference), which one the gates use (gates.use), and per system the judge against the reviewers (3×3 table, Cohen's κ with its interval, contradictions confirmed); without reviews, a note saying how to add them", setup: fixed(cellCalibration)},
	{name: "interval", args: "[--from replay] [--method all|NAME] | -k K -n N [--confidence 0.95] [--method all|NAME]",
		doc: "a rate's standard error and intervals, as `tally interval`. With no -k and -n, or --from replay, the reference's successes over the report's replayed conversations at the report's confidence (without a replay, a one-line note); with -k and -n, the numbers given", setup: setupInterval},
	{name: "plot retention", doc: "chart: retained share by class, both systems, Wilson intervals, gates", setup: chartCell("retention", chart.Retention)},
	{name: "plot verdicts", doc: "chart: the verdict mix per class, stacked, per system", setup: chartCell("verdicts", chart.Verdicts)},
	{name: "plot prompt-size", doc: "chart: the distribution of prompt sizes after compaction per system (box plot), the means and the budget", setup: chartCell("prompt-size", chart.PromptSize)},
	{name: "provenance", doc: "the version, the inputs with their SHA-256, the configuration", setup: fixed(cellProvenance)},
	{name: TaskSuccessCell, doc: "task success from the replay, reported and not gated; always the last cell", setup: fixed(cellTaskSuccess)},
}

// CellUsage lists the cells a notebook may use, one per line: the
// command, its arguments and what it shows.
func CellUsage() string {
	var b strings.Builder
	for _, k := range cellKinds {
		cmd := k.name
		if k.args != "" {
			cmd += " " + k.args
		}
		fmt.Fprintf(&b, "%s\n    %s\n", cmd, k.doc)
	}
	return b.String()
}

// cellNames lists the cell names for an error message.
func cellNames() string {
	list := make([]string, len(cellKinds))
	for i, k := range cellKinds {
		list[i] = k.name
	}
	return strings.Join(list, ", ")
}

// parseCell parses one cell command.
func parseCell(cmd string) (cell, error) {
	fields := strings.Fields(cmd)
	name, args := fields[0], fields[1:]
	if name == "plan" && len(args) > 0 && args[0] == "fixtures" {
		name, args = "plan fixtures", args[1:]
	}
	if name == "plot" {
		if len(args) == 0 {
			return cell{}, errors.New("plot needs a chart: plot retention, plot verdicts or plot prompt-size")
		}
		name, args = "plot "+args[0], args[1:]
	}
	var kind *cellKind
	for i := range cellKinds {
		if cellKinds[i].name == name {
			kind = &cellKinds[i]
		}
	}
	if kind == nil {
		msg := fmt.Sprintf("unknown cell %q (want one of %s)", preview(name), cellNames())
		if s := suggestCell(name); s != "" {
			msg = fmt.Sprintf("unknown cell %q; did you mean %q? (cells: %s)", preview(name), s, cellNames())
		}
		return cell{}, errors.New(msg)
	}
	usage := kind.name
	if kind.args != "" {
		usage += " " + kind.args
	} else {
		usage += " (no arguments)"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	finish := kind.setup(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			err = errors.New("-h and -help are not cell arguments")
		}
		return cell{}, fmt.Errorf("%s: %v; usage: %s", name, err, usage)
	}
	if fs.NArg() > 0 {
		return cell{}, fmt.Errorf("%s: unexpected argument %q; usage: %s", name, preview(fs.Arg(0)), usage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	run, err := finish(set)
	if err != nil {
		return cell{}, fmt.Errorf("%s: %v; usage: %s", name, err, usage)
	}
	return cell{Cell: Cell{Name: name, Command: strings.Join(fields, " ")}, run: run}, nil
}

// suggestCell returns the cell name closest to name, if close.
func suggestCell(name string) string {
	best, bestD := "", 3
	for _, k := range cellKinds {
		if d := editDistance(name, k.name); d < bestD {
			best, bestD = k.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes;
// long inputs are not compared.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// fixed makes a cell without arguments.
func fixed(run cellRun) func(*flag.FlagSet) func(map[string]bool) (cellRun, error) {
	return func(*flag.FlagSet) func(map[string]bool) (cellRun, error) {
		return func(map[string]bool) (cellRun, error) { return run, nil }
	}
}

// limited makes a cell listing rows with a --limit.
func limited(def int, run func(cx *cellCtx, limit int) error) func(*flag.FlagSet) func(map[string]bool) (cellRun, error) {
	return func(fs *flag.FlagSet) func(map[string]bool) (cellRun, error) {
		limit := fs.Int("limit", def, "rows shown at most")
		return func(map[string]bool) (cellRun, error) {
			if *limit < 1 || *limit > maxLimit {
				return nil, fmt.Errorf("--limit must be between 1 and %d, got %d", maxLimit, *limit)
			}
			l := *limit
			return func(cx *cellCtx) error { return run(cx, l) }, nil
		}
	}
}

// chartCell makes a chart cell.
func chartCell(kind string, chart func(*report.Report) ([]byte, []string, error)) func(*flag.FlagSet) func(map[string]bool) (cellRun, error) {
	return fixed(func(cx *cellCtx) error {
		svg, warnings, err := chart(cx.r)
		if err != nil {
			return fmt.Errorf("drawing the %s chart: %w", kind, err)
		}
		cx.warnings = append(cx.warnings, warnings...)
		h := cx.out
		if svg == nil {
			h.Raw(`<p class="none">No chart: there is nothing to draw.</p>`, "\n")
			return nil
		}
		h.Raw(`<figure class="chart chart-`, kind, "\">\n")
		h.Write(svg)
		h.Raw("<figcaption>")
		switch kind {
		case "retention":
			h.Raw("Retained share by class: ")
			writeWho(h, "incumbent", cx.r.Incumbent)
			h.Raw(" (circles) and ")
			writeWho(h, "candidate", cx.r.Candidate)
			h.Raw(" (triangles), each with its ")
			if c := cx.r.Confidence; markup.Finite(c) && c > 0 && c < 1 {
				h.Raw(markup.GatePct(c), " ")
			}
			h.Raw("Wilson interval; a dashed line marks each class's gate.")
		case "verdicts":
			h.Raw("Verdicts by class, in item-compactions: the left bar (inc.) is ")
			writeWho(h, "incumbent", cx.r.Incumbent)
			h.Raw(", the right bar (cand.) ")
			writeWho(h, "candidate", cx.r.Candidate)
			h.Raw("; stacked from verbatim and supported (retained) to absent, contradicted and error.")
		case "prompt-size":
			h.Raw("Prompt size after compaction, in tokens: ")
			writeWho(h, "incumbent", cx.r.Incumbent)
			h.Raw(" and ")
			writeWho(h, "candidate", cx.r.Candidate)
			h.Raw(". Each box spans the middle half of the contexts with the median across it; the whiskers reach the furthest size within 1.5 box-heights, rings mark the sizes beyond, a cross the mean. Smaller prompts are the point of compaction; the dashed line, where there is one, is the budget on the mean.")
		}
		h.Raw("</figcaption>\n</figure>\n")
		return nil
	})
}

// cellCtx is what a cell renders from and into.
type cellCtx struct {
	r        *report.Report
	out      *markup.Buffer
	warnings []string
}

func newCellCtx(r *report.Report) *cellCtx { return &cellCtx{r: r} }

// warnUnlessReported adds a result's warnings to the cell, except those
// the report's own warnings (shown after the verdict) already
// carry.
func (cx *cellCtx) warnUnlessReported(ws []string) {
	for _, w := range ws {
		reported := false
		for _, rw := range cx.r.Warnings {
			if strings.Contains(rw, w) {
				reported = true
				break
			}
		}
		if !reported {
			cx.warnings = append(cx.warnings, w)
		}
	}
}

// writeWarnings closes a cell with its warnings, if any.
func (cx *cellCtx) writeWarnings() {
	if len(cx.warnings) == 0 {
		return
	}
	cx.out.Raw("<div class=\"warnings\">\n")
	cx.out.List(cx.warnings)
	cx.out.Raw("</div>\n")
}

// named reports whether a system's name says more than its role.
func named(role, name string) bool {
	return strings.TrimSpace(name) != "" && !strings.EqualFold(strings.TrimSpace(name), role)
}

// writeWho writes "the incumbent" and the system's name, when it has one
// other than its role.
func writeWho(h *markup.Buffer, role, name string) {
	h.Raw("the ", role)
	if named(role, name) {
		h.Raw(" <strong>")
		h.Text(name, markup.CapShort)
		h.Raw("</strong>")
	}
}

// systemHeads writes the header cells of the incumbent and the
// candidate, in that order.
func systemHeads(h *markup.Buffer, r *report.Report) {
	systemHead(h, "incumbent", r.Incumbent)
	systemHead(h, "candidate", r.Candidate)
}

// systemHead writes a table header cell naming a role and its system.
func systemHead(h *markup.Buffer, role, name string) {
	h.Raw("<th>", role)
	if named(role, name) {
		h.Raw(`<span class="sub">`)
		h.Text(name, markup.CapShort)
		h.Raw("</span>")
	}
	h.Raw("</th>")
}
