package report

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/stats"
)

// A cell renders from the report only. The two planning cells, plan and
// interval, compute their statistics from their own arguments when the
// notebook is parsed (so a bad argument is an error at its line); no
// other cell computes a statistic.

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
	{name: "plan", args: "--rate P --conversations N [--catastrophic K] [--alpha 0.05] [--power 0.8]", doc: "the on-paper argument, as `tally plan`", setup: nbSetupPlan},
	{name: "interval", args: "-k K -n N [--confidence 0.95] [--method all|NAME]", doc: "a rate's standard error and intervals, as `tally interval`", setup: nbSetupInterval},
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

func nbCellTitle(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<header class=\"title\">\n<h1>")
	h.text(nbReportTitle(r), 400)
	h.raw("</h1>\n")
	if r.Period != "" {
		h.raw(`<p class="period">`)
		h.text(r.Period, 400)
		h.raw("</p>\n")
	}
	h.raw(`<p class="meta">Comparing `)
	hWho(h, "candidate", r.Candidate)
	h.raw(" against ")
	hWho(h, "incumbent", r.Incumbent)
	if hFinite(r.Confidence) && r.Confidence > 0 {
		h.rawf(" · intervals at %s confidence", hGatePct(r.Confidence))
	}
	if !r.Generated.IsZero() {
		h.raw(" · generated ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if r.Provenance.Version != "" {
		h.raw(" · tally ")
		h.text(r.Provenance.Version, 80)
	}
	h.raw("</p>\n</header>\n")
	return nil
}

// hNames writes a list of row names (classes, "contradictions", …).
func hNames(h *hbuf, list []string) {
	for i, s := range list {
		if i > 0 {
			h.raw(", ")
		}
		h.raw("<em>")
		h.text(nbClassLabel(fixture.Class(s)), hCapShort)
		h.raw("</em>")
	}
}

func nbCellDecision(cx *nbCellCtx) error {
	d, h := cx.r.Decision, cx.out
	if d.Blocks {
		h.raw("<section class=\"decision\">\n<p class=\"verdict\"><strong>This change blocks.</strong> ")
		if len(d.Worse) > 0 {
			h.raw("The rows that got worse under it: ")
			hNames(h, d.Worse)
			h.raw(".")
		}
		h.raw("</p>\n")
	} else {
		h.raw("<section class=\"decision clear\">\n<p class=\"verdict\"><strong>This change does not block:</strong> no row got worse under it.</p>\n")
	}
	if len(d.Backlog) > 0 {
		h.rawf("<p><strong>Backlog, not a merge decision:</strong> %d gate%s unmet by the incumbent as well — ", len(d.Backlog), hPlural(len(d.Backlog)))
		hNames(h, d.Backlog)
		h.raw(". A gate the system in production does not meet either is a standard not yet met; it does not make this change unsafe.</p>\n")
	} else {
		h.raw("<p>No backlog: the incumbent meets every gate.</p>\n")
	}
	if len(d.CandidateUnmet) > 0 {
		h.raw("<p>Gates the candidate does not meet: ")
		hNames(h, d.CandidateUnmet)
		h.raw(".</p>\n")
	} else {
		h.raw("<p>The candidate meets every gate.</p>\n")
	}
	if d.Rule != "" {
		h.raw(`<p class="sub">The rule, as applied: `)
		h.text(d.Rule, 2000)
		h.raw("</p>\n")
	}
	h.raw("</section>\n")
	return nil
}

func hPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// hShare writes a system's class result as a table cell: badge, counts,
// share and Wilson interval, then whatever more adds.
func hShare(h *hbuf, sc SystemClass, gate bool, more func(*hbuf, SystemClass)) {
	h.raw("<td>")
	if gate {
		h.raw(hGate(sc.Gate), " ")
	}
	if sc.Counts.Items == 0 {
		h.raw(`<span class="none">no items</span></td>`)
		return
	}
	h.rawf("%d/%d · <strong>%s</strong>", sc.Counts.Retained(), sc.Counts.Items, hPct(sc.Share))
	h.rawf(`<span class="sub">Wilson %s</span>`, hRange(sc.Wilson.Lower, sc.Wilson.Upper))
	if sc.Counts.Errors > 0 {
		h.rawf(`<span class="sub">%d judge error%s, not counted as absent</span>`, sc.Counts.Errors, hPlural(sc.Counts.Errors))
	}
	if more != nil {
		more(h, sc)
	}
	h.raw("</td>")
}

func nbCellGates(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<div class=\"scroll\"><table class=\"wide gates\">\n<thead><tr><th>gate</th><th>standard</th>")
	hSystemHeads(h, r)
	h.raw("<th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		hClassRow(h, row.Class)
		h.rawf("<td>at least %s retained</td>", hGatePct(row.MinShare))
		hShare(h, row.Incumbent, true, nil)
		hShare(h, row.Candidate, true, nil)
		h.raw("<td>", hChange(row.Change), "</td></tr>\n")
		for _, s := range []struct {
			role string
			sc   SystemClass
		}{{"incumbent", row.Incumbent}, {"candidate", row.Candidate}} {
			if s.sc.Counts.Items == 0 {
				cx.warnings = append(cx.warnings, fmt.Sprintf("gates: the %s has no %s items; its share is undefined", s.role, nbClassLabel(row.Class)))
			}
		}
	}
	c := r.Contradictions
	h.rawf(`<tr><th scope="row">contradictions</th><td>at most %d</td>`, c.Max)
	h.rawf("<td>%s %d</td><td>%s %d</td><td>%s</td></tr>\n", hGate(c.IncumbentGate), c.Incumbent, hGate(c.CandidateGate), c.Candidate, hChange(c.Change))
	pr := r.Prompt
	h.raw(`<tr><th scope="row">prompt size</th>`)
	if hFinite(pr.MaxMean) && pr.MaxMean > 0 {
		h.rawf("<td>mean at most %s tokens</td>", hTokens(pr.MaxMean))
	} else {
		h.raw("<td>reported, no gate</td>")
	}
	h.rawf("<td>%s mean %s</td><td>%s mean %s</td><td>%s</td></tr>\n",
		hGate(pr.IncumbentGate), hTokens(pr.Incumbent.Mean), hGate(pr.CandidateGate), hTokens(pr.Candidate.Mean), hChange(pr.Change))
	h.raw("</tbody>\n</table></div>\n")
	h.raw("<p class=\"sub\">Retained means verbatim or supported by the judge. Each system is held to each gate on its own; the change column is the regression rule, incumbent against candidate.</p>\n")
	return nil
}

// hClassRow opens a table row headed by a class's name.
func hClassRow(h *hbuf, cl fixture.Class) {
	h.raw(`<tr><th scope="row">`)
	h.text(nbClassLabel(cl), hCapShort)
	h.raw("</th>")
}

// hClusterNote writes a system's cluster-robust interval and design
// effect.
func hClusterNote(h *hbuf, sc SystemClass) {
	if sc.Counts.Items == 0 || sc.Clustered.N == 0 {
		return
	}
	h.rawf(`<span class="sub">cluster-robust %s`, hRange(sc.Robust.Lower, sc.Robust.Upper))
	if hFinite(sc.Clustered.DesignEffect) {
		h.rawf(", design effect %s", hNum(sc.Clustered.DesignEffect, 3))
	}
	h.rawf(" over %d conversation%s</span>", sc.Clustered.Clusters, hPlural(sc.Clustered.Clusters))
}

func nbCellComparison(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<div class=\"scroll\"><table class=\"wide comparison\">\n<caption>Retention, incumbent against candidate</caption>\n<thead><tr><th>class</th>")
	hSystemHeads(h, r)
	h.raw("<th class=\"num\">lost</th><th class=\"num\">gained</th><th class=\"num\">McNemar p</th><th>change</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		hClassRow(h, row.Class)
		for _, sc := range []SystemClass{row.Incumbent, row.Candidate} {
			hShare(h, sc, false, hClusterNote)
		}
		h.rawf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%s`, len(row.Lost), len(row.Gained), hP(row.McNemar.PValue))
		if m := row.McNemar.Method; m != "" && m != string(power.TestExact) {
			h.raw(`<span class="sub">`)
			h.text(m, 40)
			h.raw("</span>")
		}
		h.raw("</td><td>", hChange(row.Change), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	h.raw("<p class=\"sub\">Lost: retained by the incumbent, not by the candidate; gained: the reverse. McNemar's exact test on the paired items is context, not the rule. The cluster-robust interval allows for items of one conversation failing together.</p>\n")

	h.raw("<div class=\"scroll\"><table class=\"wide verdicts\">\n<caption>Verdicts</caption>\n<thead><tr><th>class</th><th>system</th><th class=\"num\">checked</th><th class=\"num\">verbatim</th><th class=\"num\">supported</th><th class=\"num\">absent</th><th class=\"num\">contradicted</th><th class=\"num\">error</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Classes {
		for i, sc := range []SystemClass{row.Incumbent, row.Candidate} {
			h.raw("<tr>")
			if i == 0 {
				h.raw(`<th scope="rowgroup" rowspan="2">`)
				h.text(nbClassLabel(row.Class), hCapShort)
				h.raw("</th><td>incumbent</td>")
			} else {
				h.raw("<td>candidate</td>")
			}
			c := sc.Counts
			h.rawf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr>`+"\n",
				c.Items, c.Verbatim, c.Supported, c.Absent, c.Contradicted, c.Errors)
		}
	}
	h.raw("</tbody>\n</table></div>\n")

	pr := r.Prompt
	h.raw("<div class=\"scroll\"><table class=\"wide prompt\">\n<caption>Prompt size after compaction, in tokens</caption>\n<thead><tr><th>system</th><th class=\"num\">contexts</th><th class=\"num\">mean</th><th class=\"num\">median</th><th class=\"num\">95th percentile</th><th class=\"num\">largest</th><th>gate</th></tr></thead>\n<tbody>\n")
	for _, s := range []struct {
		role, name string
		st         PromptStats
		gate       GateStatus
	}{{"incumbent", r.Incumbent, pr.Incumbent, pr.IncumbentGate}, {"candidate", r.Candidate, pr.Candidate, pr.CandidateGate}} {
		h.raw("<tr>")
		hSystemHead(h, s.role, s.name)
		h.rawf(`<td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td></tr>`+"\n",
			hInt(s.st.Contexts), hTokens(s.st.Mean), hTokens(s.st.Median), hTokens(s.st.P95), hInt(s.st.Max), hGate(s.gate))
	}
	h.raw("</tbody>\n</table></div>\n")
	return nil
}

// nbPickItems returns the item rows for keys, in keys' order, from one
// pass over r.Items; a key without a row gives a row with the key only.
func nbPickItems(r *Report, keys []ItemKey) []ItemRow {
	at := make(map[ItemKey]int, len(keys))
	for i, k := range keys {
		if _, dup := at[k]; !dup {
			at[k] = i
		}
	}
	out := make([]ItemRow, len(keys))
	found := make([]bool, len(keys))
	left := len(at)
	for i := range r.Items {
		if left == 0 {
			break
		}
		if j, ok := at[r.Items[i].ItemKey]; ok && !found[j] {
			out[j], found[j] = r.Items[i], true
			left--
		}
	}
	for i, k := range keys {
		if !found[i] {
			if j := at[k]; j != i && found[j] {
				out[i] = out[j]
			} else {
				out[i] = ItemRow{ItemKey: k}
			}
		}
	}
	return out
}

// hVerdict writes a record's verdict, answer and reason.
func hVerdict(h *hbuf, rec fixture.Record) {
	v := string(rec.Verdict)
	if v == "" {
		h.raw(`<span class="badge v-none">no record</span>`)
		return
	}
	switch rec.Verdict {
	case fixture.Verbatim, fixture.Supported, fixture.Absent, fixture.Contradicted, fixture.Error:
		h.raw(`<span class="badge v-`, v, `">`, v, "</span>")
	default:
		h.raw(`<span class="badge v-error">`)
		h.text(v, 40)
		h.raw("</span>")
	}
	if rec.Answer != "" {
		h.raw(`<span class="sub txt">answer: `)
		h.text(rec.Answer, hCapCell)
		h.raw("</span>")
	}
	if rec.Reason != "" {
		h.raw(`<span class="sub txt">reason: `)
		h.text(rec.Reason, hCapCell)
		h.raw("</span>")
	}
}

// hItemTable writes item rows with both systems' verdicts.
func hItemTable(h *hbuf, r *Report, rows []ItemRow) {
	h.raw("<div class=\"scroll\"><table class=\"items\">\n<colgroup><col class=\"c-item\"><col class=\"c-stated\"><col class=\"c-probe\"><col class=\"c-inc\"><col class=\"c-cand\"></colgroup>\n<thead><tr><th>item</th><th>stated</th><th>probe and expected answer</th>")
	hSystemHeads(h, r)
	h.raw("</tr></thead>\n<tbody>\n")
	for _, it := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(it.ConversationID, hCapShort)
		h.rawf("</code> · compaction %d · <code>", it.Compaction)
		h.text(it.ItemID, hCapShort)
		h.raw("</code>")
		if it.Class != "" {
			h.raw(`<span class="sub">`)
			h.text(nbClassLabel(it.Class), hCapShort)
			h.raw("</span>")
		}
		h.raw(`</td><td class="txt">`)
		h.text(it.Literal, hCapCell)
		h.raw(`</td><td class="txt">`)
		h.text(it.Probe, hCapCell)
		if it.Expect != "" {
			h.raw(`<span class="sub">expected: `)
			h.text(it.Expect, hCapCell)
			h.raw("</span>")
		}
		h.raw("</td><td>")
		hVerdict(h, it.Incumbent)
		h.raw("</td><td>")
		hVerdict(h, it.Candidate)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
}

// hMore writes how many rows were left out.
func hMore(h *hbuf, shown, total int, what string) {
	if total > shown {
		h.rawf("<p class=\"more\">%s more %s in report.xlsx (this page shows the first %s).</p>\n", hInt(total-shown), what, hInt(shown))
	}
}

func nbCellLostItems(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var keys []ItemKey
	for _, row := range r.Classes {
		total += len(row.Lost)
		for _, k := range row.Lost {
			if len(keys) == limit {
				break
			}
			keys = append(keys, k)
		}
	}
	if total == 0 {
		h.raw("<p class=\"none\">No item was lost: every item the incumbent retained, the candidate retained too.</p>\n")
		return nil
	}
	h.rawf("<p>%s item-compaction%s the incumbent retained and the candidate did not.</p>\n", hInt(total), hPlural(total))
	hItemTable(h, r, nbPickItems(r, keys))
	hMore(h, len(keys), total, "lost items")
	return nil
}

func nbCellChangedItems(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	total := 0
	var rows []ItemRow
	for i := range r.Items {
		if r.Items[i].Changed {
			total++
			if len(rows) < limit {
				rows = append(rows, r.Items[i])
			}
		}
	}
	if total == 0 {
		h.raw("<p class=\"none\">No verdict changed between the two systems.</p>\n")
		return nil
	}
	h.rawf("<p>%s item-compaction%s with a different verdict in the two systems.</p>\n", hInt(total), hPlural(total))
	hItemTable(h, r, rows)
	hMore(h, len(rows), total, "changed items")
	return nil
}

func nbCellContradictions(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	c := r.Contradictions
	h.rawf("<p>Contradicted items: the incumbent %s %d, the candidate %s %d, against a gate of at most %d; change: %s.</p>\n",
		hGate(c.IncumbentGate), c.Incumbent, hGate(c.CandidateGate), c.Candidate, c.Max, hChange(c.Change))
	if len(c.New) == 0 {
		h.raw("<p class=\"none\">The candidate contradicts no item the incumbent did not.</p>\n")
		return nil
	}
	keys := c.New[:min(len(c.New), limit)]
	h.rawf("<p>%s item-compaction%s the candidate contradicts and the incumbent does not:</p>\n", hInt(len(c.New)), hPlural(len(c.New)))
	hItemTable(h, r, nbPickItems(r, keys))
	hMore(h, len(keys), len(c.New), "contradicted items")
	return nil
}

func nbCellReplay(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	rp := r.Replay
	if rp == nil {
		h.raw("<p class=\"none\">No replay data: the conversations were not replayed this time.</p>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	h.rawf("<p>%s conversations run twice from the same prefix, once as the reference and once with the candidate; the two runs disagree on %s, the only conversations that carry information about the change.</p>\n",
		hInt(res.Pairs), hInt(res.Discordant))
	h.raw("<div class=\"scroll\"><table class=\"paired\">\n<thead><tr><th></th><th class=\"num\">candidate succeeded</th><th class=\"num\">candidate failed</th></tr></thead>\n<tbody>\n")
	h.rawf("<tr><th scope=\"row\">reference succeeded</th><td class=\"num\">%s</td><td class=\"num\">%s <span class=\"sub\">lost</span></td></tr>\n", hInt(t.A), hInt(t.B))
	h.rawf("<tr><th scope=\"row\">reference failed</th><td class=\"num\">%s <span class=\"sub\">gained</span></td><td class=\"num\">%s</td></tr>\n", hInt(t.C), hInt(t.D))
	h.raw("</tbody>\n</table></div>\n")
	if len(rp.ReferenceKinds) > 0 {
		kinds := make([]string, 0, len(rp.ReferenceKinds))
		for k := range rp.ReferenceKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		h.raw("<p>References: ")
		for i, k := range kinds {
			if i > 0 {
				h.raw(", ")
			}
			h.raw(hInt(rp.ReferenceKinds[k]), " ")
			h.text(strings.ReplaceAll(k, "_", " "), hCapShort)
		}
		h.raw(".")
		if rp.ReferenceKinds["accepted_trace"] > 0 {
			h.raw(" Where a conversation does not fit the window uncompacted, the reference is a recorded run a person accepted: a regression test against a known-good trace, not against ground truth.")
		}
		h.raw("</p>\n")
	}
	h.raw("<div class=\"scroll\"><table class=\"tests\">\n<caption>McNemar's tests on the discordant pairs</caption>\n<thead><tr><th>test</th><th class=\"num\">statistic</th><th class=\"num\">p</th></tr></thead>\n<tbody>\n")
	for _, ts := range res.Tests {
		h.raw("<tr><td>")
		h.text(ts.Method, 40)
		h.raw(`</td><td class="num">`)
		if ts.HasStatistic {
			h.raw(hNum(ts.Statistic, 4))
		} else {
			h.raw("—")
		}
		h.raw(`</td><td class="num">`, hP(ts.PValue), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	h.rawf("<div class=\"scroll\"><table class=\"intervals\">\n<caption>The difference, candidate − reference: %s (%s against %s), %s intervals</caption>\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th></tr></thead>\n<tbody>\n",
		hPoints(res.Difference, true), hProb(res.CandidateRate), hProb(res.ReferenceRate), hGatePct(res.Confidence))
	for _, iv := range res.Intervals {
		h.raw("<tr><td>")
		h.text(iv.Method, 40)
		h.raw(`</td><td class="num">`, hPoints(iv.Lower, true), `</td><td class="num">`, hPoints(iv.Upper, true), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	cx.warnUnlessReported(res.Warnings)
	if len(rp.Discordant) == 0 {
		return nil
	}
	rows := rp.Discordant[:min(len(rp.Discordant), limit)]
	h.rawf("<h3>Review queue: %s discordant conversation%s</h3>\n", hInt(len(rp.Discordant)), hPlural(len(rp.Discordant)))
	h.raw("<div class=\"scroll\"><table class=\"discordant\">\n<thead><tr><th>conversation</th><th>reference</th><th>candidate</th><th>reference kind</th></tr></thead>\n<tbody>\n")
	for _, d := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(d.ConversationID, hCapShort)
		h.raw("</code></td><td>")
		h.text(d.Reference, 40)
		h.raw("</td><td>")
		h.text(d.Candidate, 40)
		h.raw("</td><td>")
		h.text(strings.ReplaceAll(d.ReferenceKind, "_", " "), 40)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	hMore(h, len(rows), len(rp.Discordant), "discordant conversations")
	return nil
}

func nbCellTaskSuccess(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	h.raw("<section class=\"task-success\">\n")
	rp := r.Replay
	if rp == nil {
		h.raw("<p class=\"line\"><strong>Task success — reported, not gated:</strong> not measured; the report has no replay data.</p>\n</section>\n")
		return nil
	}
	res := rp.Result
	t := res.Table
	h.rawf("<p class=\"line\"><strong>Task success — reported, not gated:</strong> the reference %s/%s = %s, the candidate %s/%s = %s, over the same %s paired conversations; %s lost and %s gained",
		hInt(t.A+t.B), hInt(res.Pairs), hPct(res.ReferenceRate), hInt(t.A+t.C), hInt(res.Pairs), hPct(res.CandidateRate), hInt(res.Pairs), hInt(t.B), hInt(t.C))
	if ts, ok := res.Test(power.TestExact); ok {
		h.rawf(", exact McNemar p = %s", hP(ts.PValue))
	}
	h.raw(".")
	if rp.Sentence != "" {
		h.raw(" ")
		h.text(rp.Sentence, 2000)
	} else {
		h.rawf(" A difference of %s", hPoints(res.Difference, true))
		if iv, ok := res.Interval(power.IntervalNewcombe); ok {
			h.rawf(" (%s Newcombe interval %s to %s)", hGatePct(res.Confidence), hPoints(iv.Lower, true), hPoints(iv.Upper, true))
		}
		h.raw(".")
	}
	h.raw("</p>\n</section>\n")
	return nil
}

func nbCellSelection(cx *nbCellCtx, limit int) error {
	r, h := cx.r, cx.out
	s := r.Selection
	if s == nil {
		h.raw("<p class=\"none\">No fixture selection in this report.</p>\n")
		return nil
	}
	h.rawf("<p>A budget of %s sessions (seed %d), selected adversarially; %s session%s reported a compaction incident",
		hInt(s.Budget), s.Seed, hInt(s.Incidents), hPlural(s.Incidents))
	if s.IncidentsExceedBudget {
		h.raw(", more than the budget: every selected session is an incident")
	}
	h.raw(".</p>\n")
	rnd := s.Random
	h.rawf("<div class=\"scroll\"><table class=\"selection\">\n<caption>Selected against random samples of %s sessions (mean and 95%% range over %s draws)</caption>\n<thead><tr><th></th><th class=\"num\">selected</th><th class=\"num\">random</th></tr></thead>\n<tbody>\n",
		hInt(rnd.Size), hInt(rnd.Draws))
	rng := func(x Range, digits int) string {
		if digits == 0 {
			return fmt.Sprintf("%s <span class=\"sub\">%s–%s</span>", hTokens(x.Mean), hTokens(x.Low), hTokens(x.High))
		}
		return fmt.Sprintf("%s <span class=\"sub\">%s–%s</span>", strconv.FormatFloat(x.Mean, 'f', digits, 64), strconv.FormatFloat(x.Low, 'f', digits, 64), strconv.FormatFloat(x.High, 'f', digits, 64))
	}
	for _, row := range []struct {
		what string
		sel  string
		rnd  string
	}{
		{"sessions", hInt(s.Selected.Sessions), rng(rnd.Sessions, 0)},
		{"sessions that never compact", hInt(s.Selected.NeverCompact), rng(rnd.NeverCompact, 0)},
		{"compactions", hInt(s.Selected.Compactions), rng(rnd.Compactions, 0)},
		{"compaction decisions", hInt(s.Selected.Decisions), rng(rnd.Decisions, 0)},
		{"items", hInt(s.Selected.Items), rng(rnd.Items, 0)},
		{"annotation hours at 15 minutes a session", strconv.FormatFloat(s.Selected.HoursAt15, 'f', 1, 64), rng(rnd.HoursAt15, 1)},
		{"annotation hours at 2 minutes a session", strconv.FormatFloat(s.Selected.HoursAt2, 'f', 1, 64), rng(rnd.HoursAt2, 1)},
	} {
		h.raw(`<tr><th scope="row">`, row.what, `</th><td class="num">`, row.sel, `</td><td class="num">`, row.rnd, "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	cx.warnUnlessReported(s.Warnings)
	if len(s.Sessions) == 0 {
		return nil
	}
	rows := s.Sessions[:min(len(s.Sessions), limit)]
	h.raw("<div class=\"scroll\"><table class=\"sessions\">\n<caption>Selected sessions</caption>\n<thead><tr><th>session</th><th class=\"num\">turns</th><th class=\"num\">compactions</th><th class=\"num\">items</th><th class=\"num\">decisions</th><th>incident</th><th>why</th></tr></thead>\n<tbody>\n")
	for _, ss := range rows {
		h.raw(`<tr><td class="txt"><code>`)
		h.text(ss.SessionID, hCapShort)
		h.rawf(`</code></td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%s</td><td>`,
			hInt(ss.Turns), hInt(ss.Compactions), hInt(ss.Items), hInt(ss.Decisions))
		if ss.Incident {
			h.raw("yes")
		}
		h.raw(`</td><td class="txt">`)
		h.text(ss.Reason, hCapCell)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	hMore(h, len(rows), len(s.Sessions), "selected sessions")
	return nil
}

func nbCellProvenance(cx *nbCellCtx) error {
	r, h := cx.r, cx.out
	pv := r.Provenance
	h.raw("<p>Made by tally")
	if pv.Version != "" {
		h.raw(" ")
		h.text(pv.Version, 80)
	}
	if !r.Generated.IsZero() {
		h.raw(" at ", r.Generated.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	h.raw(".</p>\n")
	if len(pv.Inputs) > 0 {
		h.raw("<div class=\"scroll\"><table class=\"inputs\">\n<thead><tr><th>input</th><th>path</th><th class=\"num\">bytes</th><th>SHA-256</th></tr></thead>\n<tbody>\n")
		for _, in := range pv.Inputs {
			h.raw(`<tr><td>`)
			h.text(in.Role, hCapShort)
			h.raw(`</td><td class="txt"><code>`)
			h.text(in.Path, hCapCell)
			h.raw(`</code></td><td class="num">`, hInt(int(in.Bytes)), `</td><td class="txt"><code>`)
			h.text(in.SHA256, 80)
			h.raw("</code></td></tr>\n")
		}
		h.raw("</tbody>\n</table></div>\n")
	}
	if pv.Config != "" {
		h.raw("<p>The configuration:</p>\n<pre><code>")
		h.text(pv.Config, hCapLong)
		h.raw("</code></pre>\n")
	}
	return nil
}

// nbSetupPlan makes a plan cell; power.Plan runs at parse time.
func nbSetupPlan(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	rate := fs.Float64("rate", 0, "")
	conv := fs.Int("conversations", 0, "")
	cat := fs.Int("catastrophic", 0, "")
	alpha := fs.Float64("alpha", 0.05, "")
	pw := fs.Float64("power", 0.8, "")
	return func(set map[string]bool) (nbCellRun, error) {
		for _, f := range []string{"rate", "conversations"} {
			if !set[f] {
				return nil, fmt.Errorf("--%s is required", f)
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"rate", *rate}, {"alpha", *alpha}, {"power", *pw}} {
			if !hFinite(f.v) {
				return nil, fmt.Errorf("--%s must be a finite number, got %v", f.name, f.v)
			}
		}
		p, err := power.Plan(*rate, *conv, *cat, *alpha, *pw)
		if err != nil {
			return nil, err
		}
		return func(cx *nbCellCtx) error { hPlan(cx, p); return nil }, nil
	}
}

func hPlan(cx *nbCellCtx, p power.PlanResult) {
	h := cx.out
	h.raw("<div class=\"plan\">\n")
	h.rawf("<p>%s conversations at a success rate of %s: the standard error is √(%s × %s / %s) = %s, that is %s; the %s interval is %s–%s (%s), about %s wide.</p>\n",
		hInt(p.Conversations), hNum(p.Rate, 4), hNum(p.Rate, 4), hNum(1-p.Rate, 4), hInt(p.Conversations),
		strconv.FormatFloat(p.StandardError, 'f', 4, 64), hPoints(p.StandardError, false),
		hGatePct(1-p.Alpha), hProb(p.Interval.Lower), hProb(p.Interval.Upper), p.Interval.Method, hPoints(p.Interval.Width(), false))
	h.rawf("<p>Halving that uncertainty takes %s conversations: four times as many, because the number of conversations sits under a square root.</p>\n", hInt(p.HalveUncertaintyConversations))
	mde := func(m power.MDE) string {
		if !m.Detectable {
			return "no drop at all"
		}
		return hPoints(m.Effect, false)
	}
	h.rawf("<p>The smallest drop detectable (two-sided α %s, power %s): %s comparing two independent runs, %s with a paired run.</p>\n",
		hNum(p.Alpha, 4), hNum(p.Power, 4), mde(p.MinimumDetectable.Independent), mde(p.MinimumDetectable.Paired))
	if c := p.Catastrophic; c != nil {
		se := "an undefined number of"
		if c.InStandardErrorsDefined {
			se = strconv.FormatFloat(c.InStandardErrors, 'f', 2, 64)
		}
		h.rawf("<p><strong>%s conversation%s failing outright</strong> (lost, none gained) is a drop of %d/%s = %s: %s standard errors, where one standard error is %s. ",
			hInt(c.Count), hPlural(c.Count), c.Count, hInt(p.Conversations), hPoints(c.Drop, false), se, hPoints(p.StandardError, false))
		if c.Resolvable {
			h.rawf("The aggregate can resolve it: two independent runs of %s detect it with power %s.", hInt(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64))
		} else {
			h.rawf("<strong>The aggregate cannot resolve it:</strong> two independent runs of %s detect it with power %s (target %s). No care in running the eval changes that; count items instead of conversations.",
				hInt(p.Conversations), strconv.FormatFloat(c.Power, 'f', 2, 64), hNum(p.Power, 4))
		}
		h.rawf(" To detect it would take %s conversations per run comparing two independent runs, or %s in a paired design.</p>\n",
			hInt(c.ConversationsNeeded.Independent), hInt(c.ConversationsNeeded.Paired))
	}
	h.raw("</div>\n")
	cx.warnings = append(cx.warnings, p.Warnings...)
}

// nbSetupInterval makes an interval cell; stats.Summarize runs at parse
// time.
func nbSetupInterval(fs *flag.FlagSet) func(map[string]bool) (nbCellRun, error) {
	var k, n int
	fs.IntVar(&k, "k", 0, "")
	fs.IntVar(&k, "successes", 0, "")
	fs.IntVar(&n, "n", 0, "")
	fs.IntVar(&n, "trials", 0, "")
	conf := fs.Float64("confidence", 0.95, "")
	method := fs.String("method", "all", "")
	return func(set map[string]bool) (nbCellRun, error) {
		if !set["k"] && !set["successes"] {
			return nil, errors.New("-k is required")
		}
		if !set["n"] && !set["trials"] {
			return nil, errors.New("-n is required")
		}
		if !hFinite(*conf) {
			return nil, fmt.Errorf("--confidence must be a finite number, got %v", *conf)
		}
		var methods []stats.Method
		if *method != "all" {
			m, err := stats.ParseMethod(*method)
			if err != nil {
				return nil, fmt.Errorf("--method: %w", err)
			}
			methods = []stats.Method{m}
		}
		s, err := stats.Summarize(stats.Proportion{K: k, N: n}, *conf, methods...)
		if err != nil {
			return nil, err
		}
		return func(cx *nbCellCtx) error { hInterval(cx, s); return nil }, nil
	}
}

func hInterval(cx *nbCellCtx, s stats.RateSummary) {
	h := cx.out
	h.rawf("<p>%s/%s successes: a rate of %s, standard error %s (%s); %s intervals:</p>\n",
		hInt(s.K), hInt(s.N), hProb(s.Estimate), strconv.FormatFloat(s.StandardError, 'f', 4, 64), hPoints(s.StandardError, false), hGatePct(s.Confidence))
	h.raw("<div class=\"scroll\"><table class=\"interval\">\n<thead><tr><th>method</th><th class=\"num\">lower</th><th class=\"num\">upper</th><th class=\"num\">width</th></tr></thead>\n<tbody>\n")
	for _, iv := range s.Intervals {
		h.raw("<tr><td>")
		h.text(iv.Method, 40)
		h.raw(`</td><td class="num">`, hProb(iv.Lower), `</td><td class="num">`, hProb(iv.Upper), `</td><td class="num">`, hProb(iv.Width()), "</td></tr>\n")
	}
	h.raw("</tbody>\n</table></div>\n")
	cx.warnings = append(cx.warnings, s.Warnings...)
}
