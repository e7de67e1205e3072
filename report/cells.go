package report

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A cell renders from the report only. The two planning cells, plan and
// interval, show the report's own numbers (Report.Paper, computed by
// Build) when given no numbers or --from replay; given numbers, they
// compute their statistics from them when the notebook is parsed (so a
// bad argument is an error at its line). No other cell computes a
// statistic.

// nbCellRun renders one cell into cx.out.
type nbCellRun func(cx *nbCellCtx) error

// nbCellKind is one kind of cell: its name, its arguments and how it is
// set up from them.
type nbCellKind struct {
	name string
	args string // the arguments, for usage messages
	doc  string
	// setup declares the cell's flags on fs and returns the function
	// that, once fs is parsed, validates them and makes the cell.
	setup func(fs *flag.FlagSet) func(set map[string]bool) (nbCellRun, error)
}

// Defaults and bounds of the --limit of item lists.
const (
	nbDefaultLimit = 500
	nbMaxLimit     = 100_000
)

// nbCellKinds lists every cell, in the order the documentation gives them.
var nbCellKinds = []nbCellKind{
	{name: "title", doc: "the report's title, period, systems and timestamp", setup: nbFixed(nbCellTitle)},
	{name: "decision", doc: "the honest reading: the rows that got worse (what blocks) against the gates neither system meets (a backlog)", setup: nbFixed(nbCellDecision)},
	{name: "gates", doc: "every gate, both systems' status against it, and the change", setup: nbFixed(nbCellGates)},
	{name: "comparison", doc: "incumbent against candidate per class: shares and intervals, lost and gained, McNemar; verdict counts; prompt size", setup: nbFixed(nbCellComparison)},
	{name: "lost-items", args: "[--limit N]", doc: "the items the incumbent retained and the candidate did not", setup: nbLimited(nbDefaultLimit, nbCellLostItems)},
	{name: "changed-items", args: "[--limit N]", doc: "every item whose verdict differs between the systems", setup: nbLimited(nbDefaultLimit, nbCellChangedItems)},
	{name: "contradictions", args: "[--limit N]", doc: "the contradiction gate and the items the candidate newly contradicts", setup: nbLimited(nbDefaultLimit, nbCellContradictions)},
	{name: "replay", args: "[--limit N]", doc: "the paired replay: the 2×2 table, McNemar's tests, the difference's intervals and the discordant conversations to review", setup: nbLimited(nbDefaultLimit, nbCellReplay)},
	{name: "selection", args: "[--limit N]", doc: "the fixture selection against random samples, and the selected sessions", setup: nbLimited(100, nbCellSelection)},
	{name: "plan", args: "[--from replay] | --rate P --conversations N [--catastrophic K] [--alpha 0.05] [--power 0.8]",
		doc: "the on-paper argument, as `tally plan`. With no argument, or --from replay, from the report's own replay: its conversations and the reference's success rate, α = 1 − confidence, power 0.8, and as the catastrophic count the fixture conversations in which the candidate lost a constraint item or newly contradicted an item (left out when there are none); without a replay, a one-line note saying to configure replay: in report.yaml. With --rate and --conversations, the numbers given", setup: nbSetupPlan},
	{name: "interval", args: "[--from replay] [--method all|NAME] | -k K -n N [--confidence 0.95] [--method all|NAME]",
		doc: "a rate's standard error and intervals, as `tally interval`. With no -k and -n, or --from replay, the reference's successes over the report's replayed conversations at the report's confidence (without a replay, a one-line note); with -k and -n, the numbers given", setup: nbSetupInterval},
	{name: "plot retention", doc: "chart: retained share by class, both systems, Wilson intervals, gates", setup: nbPlotCell("retention", svgRetention)},
	{name: "plot verdicts", doc: "chart: the verdict mix per class, stacked, per system", setup: nbPlotCell("verdicts", svgVerdicts)},
	{name: "plot prompt-size", doc: "chart: the distribution of prompt sizes after compaction per system (box plot), the means and the budget", setup: nbPlotCell("prompt-size", svgPromptSize)},
	{name: "provenance", doc: "the version, the inputs with their SHA-256, the configuration", setup: nbFixed(nbCellProvenance)},
	{name: TaskSuccessCell, doc: "task success from the replay, reported and not gated; always the last cell", setup: nbFixed(nbCellTaskSuccess)},
}

// CellUsage lists the cells a notebook may use, one per line: the
// command, its arguments and what it shows.
func CellUsage() string {
	var b strings.Builder
	for _, k := range nbCellKinds {
		cmd := k.name
		if k.args != "" {
			cmd += " " + k.args
		}
		fmt.Fprintf(&b, "%s\n    %s\n", cmd, k.doc)
	}
	return b.String()
}

// nbCellNames lists the cell names for an error message.
func nbCellNames() string {
	list := make([]string, len(nbCellKinds))
	for i, k := range nbCellKinds {
		list[i] = k.name
	}
	return strings.Join(list, ", ")
}

// nbParseCell parses one cell command.
func nbParseCell(cmd string) (nbCell, error) {
	fields := strings.Fields(cmd)
	name, args := fields[0], fields[1:]
	if name == "plot" {
		if len(args) == 0 {
			return nbCell{}, errors.New("plot needs a chart: plot retention, plot verdicts or plot prompt-size")
		}
		name, args = "plot "+args[0], args[1:]
	}
	var kind *nbCellKind
	for i := range nbCellKinds {
		if nbCellKinds[i].name == name {
			kind = &nbCellKinds[i]
		}
	}
	if kind == nil {
		msg := fmt.Sprintf("unknown cell %q (want one of %s)", nbPreview(name), nbCellNames())
		if s := nbSuggestCell(name); s != "" {
			msg = fmt.Sprintf("unknown cell %q; did you mean %q? (cells: %s)", nbPreview(name), s, nbCellNames())
		}
		return nbCell{}, errors.New(msg)
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
		return nbCell{}, fmt.Errorf("%s: %v; usage: %s", name, err, usage)
	}
	if fs.NArg() > 0 {
		return nbCell{}, fmt.Errorf("%s: unexpected argument %q; usage: %s", name, nbPreview(fs.Arg(0)), usage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	run, err := finish(set)
	if err != nil {
		return nbCell{}, fmt.Errorf("%s: %v; usage: %s", name, err, usage)
	}
	return nbCell{NotebookCell: NotebookCell{Name: name, Command: strings.Join(fields, " ")}, run: run}, nil
}

// nbSuggestCell returns the cell name closest to name, if close.
func nbSuggestCell(name string) string {
	best, bestD := "", 3
	for _, k := range nbCellKinds {
		if d := nbEditDistance(name, k.name); d < bestD {
			best, bestD = k.name, d
		}
	}
	return best
}

// nbEditDistance is the Levenshtein distance between a and b, in runes;
// long inputs are not compared.
func nbEditDistance(a, b string) int {
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

// nbFixed makes a cell without arguments.
func nbFixed(run nbCellRun) func(*flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	return func(*flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
		return func(map[string]bool) (nbCellRun, error) { return run, nil }
	}
}

// nbLimited makes a cell listing rows with a --limit.
func nbLimited(def int, run func(cx *nbCellCtx, limit int) error) func(*flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	return func(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
		limit := fs.Int("limit", def, "rows shown at most")
		return func(map[string]bool) (nbCellRun, error) {
			if *limit < 1 || *limit > nbMaxLimit {
				return nil, fmt.Errorf("--limit must be between 1 and %d, got %d", nbMaxLimit, *limit)
			}
			l := *limit
			return func(cx *nbCellCtx) error { return run(cx, l) }, nil
		}
	}
}

// nbPlotCell makes a chart cell.
func nbPlotCell(kind string, chart func(*Report) ([]byte, []string, error)) func(*flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	return nbFixed(func(cx *nbCellCtx) error {
		svg, warnings, err := chart(cx.r)
		if err != nil {
			return fmt.Errorf("drawing the %s chart: %w", kind, err)
		}
		cx.warnings = append(cx.warnings, warnings...)
		h := cx.out
		if svg == nil {
			h.raw(`<p class="none">No chart: there is nothing to draw.</p>`, "\n")
			return nil
		}
		h.raw(`<figure class="chart chart-`, kind, "\">\n")
		h.Write(svg)
		h.raw("<figcaption>")
		switch kind {
		case "retention":
			h.raw("Retained share by class: ")
			hWho(h, "incumbent", cx.r.Incumbent)
			h.raw(" (circles) and ")
			hWho(h, "candidate", cx.r.Candidate)
			h.raw(" (triangles), each with its ")
			if c := cx.r.Confidence; hFinite(c) && c > 0 && c < 1 {
				h.raw(hGatePct(c), " ")
			}
			h.raw("Wilson interval; a dashed line marks each class's gate.")
		case "verdicts":
			h.raw("Verdicts by class, in item-compactions: the left bar (inc.) is ")
			hWho(h, "incumbent", cx.r.Incumbent)
			h.raw(", the right bar (cand.) ")
			hWho(h, "candidate", cx.r.Candidate)
			h.raw("; stacked from verbatim and supported (retained) to absent, contradicted and error.")
		case "prompt-size":
			h.raw("Prompt size after compaction, in tokens: ")
			hWho(h, "incumbent", cx.r.Incumbent)
			h.raw(" and ")
			hWho(h, "candidate", cx.r.Candidate)
			h.raw(". Each box spans the middle half of the contexts with the median across it; the whiskers reach the furthest size within 1.5 box-heights, rings mark the sizes beyond, a cross the mean. Smaller prompts are the point of compaction; the dashed line, where there is one, is the budget on the mean.")
		}
		h.raw("</figcaption>\n</figure>\n")
		return nil
	})
}

// nbCellCtx is what a cell renders from and into.
type nbCellCtx struct {
	r        *Report
	out      *hbuf
	warnings []string
}

func newNbCellCtx(r *Report) *nbCellCtx { return &nbCellCtx{r: r} }

// warnUnlessReported adds a result's warnings to the cell, except those
// the report's own warnings (shown at the top of the page) already
// carry.
func (cx *nbCellCtx) warnUnlessReported(ws []string) {
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
func (cx *nbCellCtx) writeWarnings() {
	if len(cx.warnings) == 0 {
		return
	}
	cx.out.raw("<div class=\"warnings\">\n")
	cx.out.list(cx.warnings)
	cx.out.raw("</div>\n")
}

// hNamed reports whether a system's name says more than its role.
func hNamed(role, name string) bool {
	return strings.TrimSpace(name) != "" && !strings.EqualFold(strings.TrimSpace(name), role)
}

// hWho writes "the incumbent" and the system's name, when it has one
// other than its role.
func hWho(h *hbuf, role, name string) {
	h.raw("the ", role)
	if hNamed(role, name) {
		h.raw(" <strong>")
		h.text(name, hCapShort)
		h.raw("</strong>")
	}
}

// hSystemHeads writes the header cells of the incumbent and the
// candidate, in that order.
func hSystemHeads(h *hbuf, r *Report) {
	hSystemHead(h, "incumbent", r.Incumbent)
	hSystemHead(h, "candidate", r.Candidate)
}

// hSystemHead writes a table header cell naming a role and its system.
func hSystemHead(h *hbuf, role, name string) {
	h.raw("<th>", role)
	if hNamed(role, name) {
		h.raw(`<span class="sub">`)
		h.text(name, hCapShort)
		h.raw("</span>")
	}
	h.raw("</th>")
}
