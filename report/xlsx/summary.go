package xlsx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/format"
)

// --- Summary ------------------------------------------------------------

// The Summary's gates table: its columns and first row.
const (
	sumRowName = iota + 1
	sumRule
	sumGate
	sumIncValue // incumbent: value, of, share, low, high, status
	sumIncOf
	sumIncShare
	sumIncLow
	sumIncHigh
	sumIncStatus
	sumCandValue // candidate: the same
	sumCandOf
	sumCandShare
	sumCandLow
	sumCandHigh
	sumCandStatus
	sumChange
	sumLost
	sumGained
	sumRuleP
	sumNotes

	sumGroupRow  = 5
	sumHeaderRow = 6
)

func (b *book) summary() error {
	r, st, f := b.r, b.st, b.f
	g := &grid{b: b, name: sheetSummary}
	for col, w := range []float64{34, 22, 9, 9, 8, 9, 10, 10, 11, 9, 8, 9, 10, 10, 11, 9, 9, 9, 10, 60} {
		name, _ := excelize.ColumnNumberToName(col + 1)
		if err := f.SetColWidth(sheetSummary, name, name, w); err != nil {
			return err
		}
	}
	if err := f.SetPanes(sheetSummary, freeze(1, sumHeaderRow)); err != nil {
		return err
	}
	if err := b.printTitles(sheetSummary, sumGroupRow, sumHeaderRow); err != nil {
		return err
	}
	title := r.Title
	if title == "" {
		title = "Compaction change report"
	}
	conf := pct(r.Confidence)
	rows := []*cellRow{
		(&cellRow{}).str(title, st.title),
		(&cellRow{}).str("Period", st.label).str(r.Period, 0).skip(1).
			str("Generated", st.label).str(b.stamp.Format("2006-01-02 15:04:05 UTC"), 0).skip(3).
			str("Confidence", st.label).num("confidence", r.Confidence, st.pct),
		(&cellRow{}).str("Incumbent", st.label).str(r.Incumbent, 0).skip(1).
			str("Candidate", st.label).str(r.Candidate, 0),
		{},
	}
	inc, cand := "Incumbent", "Candidate"
	if r.Incumbent != "" {
		inc += ": " + r.Incumbent
	}
	if r.Candidate != "" {
		cand += ": " + r.Candidate
	}
	rows = append(rows,
		(&cellRow{}).str("Gates", st.group).skip(2).str(inc, st.group).skip(5).str(cand, st.group).skip(5).
			str("Incumbent → candidate", st.group).skip(4),
		(&cellRow{}).str("Row", st.header).str("Rule", st.header).str("Gate", st.header).
			str("Value", st.header).str("Of", st.header).str("Share", st.header).
			str("Low ("+conf+" Wilson)", st.header).str("High", st.header).str("Status", st.header).
			str("Value", st.header).str("Of", st.header).str("Share", st.header).
			str("Low ("+conf+" Wilson)", st.header).str("High", st.header).str("Status", st.header).
			str("Change", st.header).str("Lost", st.header).str("Gained", st.header).
			str("Rule's p", st.header).str("Notes", st.header),
	)
	for _, row := range rows {
		if err := g.put(row); err != nil {
			return err
		}
	}
	if err := f.SetRowHeight(sheetSummary, sumHeaderRow, 30); err != nil {
		return err
	}
	for _, m := range [][2]int{{sumRowName, sumGate}, {sumIncValue, sumIncStatus}, {sumCandValue, sumCandStatus}, {sumChange, sumNotes}} {
		a, _ := excelize.CoordinatesToCellName(m[0], sumGroupRow)
		z, _ := excelize.CoordinatesToCellName(m[1], sumGroupRow)
		if err := f.MergeCell(sheetSummary, a, z); err != nil {
			return err
		}
	}

	// The gates: one row per class, contradictions, prompt size.
	firstClass := g.row + 1
	for _, c := range r.Classes {
		row := (&cellRow{}).str(string(c.Class), st.label)
		if c.Incumbent.Gate == report.NoGate && c.Candidate.Gate == report.NoGate {
			row.str("retained share (no gate)", 0).skip(1)
		} else {
			row.str("retained share ≥", 0).num("gate", c.MinShare, st.pct)
		}
		var notes []string
		for _, s := range []struct {
			who string
			sc  report.SystemClass
		}{{"incumbent", c.Incumbent}, {"candidate", c.Candidate}} {
			row.count(s.sc.Counts.Retained(), st.count).count(s.sc.Counts.Items, st.count)
			if e := s.sc.Counts.Errors; e > 0 && s.sc.Counts.Items > 0 {
				// A range, not a point: a text cell, and no interval.
				row.str(s.sc.Retained.Percent(), 0).skip(2)
				notes = append(notes, fmt.Sprintf("%s: %d judge %s (not counted as absent): %s", s.who, e, format.Plural(e, "error", "errors"), s.sc.Retained))
			} else {
				row.num(s.who+" share", s.sc.Share, st.pct).
					num(s.who+" low", s.sc.Wilson.Lower, st.pct).num(s.who+" high", s.sc.Wilson.Upper, st.pct)
			}
			row.str(string(s.sc.Gate), 0)
			if d := s.sc.Decided; d != nil {
				// gates.use: corrected: the status was decided on this.
				if math.IsNaN(d.Share) {
					notes = append(notes, fmt.Sprintf("%s: incomplete under gates.use: corrected, %s", s.who, d))
				} else {
					notes = append(notes, fmt.Sprintf("%s: status decided on the %s", s.who, d))
				}
			}
			if s.sc.Counts.Items == 0 {
				notes = append(notes, s.who+": no items")
			}
		}
		if ni, nc := len(c.OnlyIncumbent), len(c.OnlyCandidate); ni+nc > 0 {
			notes = append(notes, fmt.Sprintf("%d checked by the incumbent only, %d by the candidate only: the row is undecided (named below, under Checked by one system only)", ni, nc))
		}
		row.str(c.ChangeText(), 0).count(len(c.Lost), st.count).count(len(c.Gained), st.count)
		// The p the verdict used, as Markdown and tally gate give it;
		// the notes name its test and level (Report.RowTest).
		p := math.NaN()
		if c.Rule.Tested {
			p = c.Rule.P
		}
		row.num("rule's p", p, st.prob)
		if n := row.note(); n != "" {
			notes = append(notes, n)
		}
		if t := r.RowTest(c); t != "" {
			lead := []string{"the rule: " + t}
			if c.McNemar.Method != "" && !strings.HasPrefix(t, "exact McNemar") {
				lead = append(lead, "exact McNemar "+format.PIs(c.McNemar.PValue)+" on the items, context")
			}
			notes = append(lead, notes...)
		}
		row.str(strings.Join(notes, "; "), 0)
		if err := g.put(row); err != nil {
			return err
		}
	}
	lastClass := g.row
	{
		c := r.Contradictions
		row := (&cellRow{}).str("contradictions", st.label).str("contradicted items ≤", 0).count(c.Max, st.count).
			count(c.Incumbent, st.count).skip(4).str(string(c.IncumbentGate), 0).
			count(c.Candidate, st.count).skip(4).str(string(c.CandidateGate), 0).
			str(string(c.Change), 0).skip(3)
		var notes []string
		if n := len(c.New); n > 0 {
			notes = append(notes, fmt.Sprintf("%d new: contradicted by the candidate and not by the incumbent (sheet %s)", n, sheetLost))
		}
		if c.Resolved > 0 {
			notes = append(notes, fmt.Sprintf("%d no longer contradicted: contradicted by the incumbent and not by the candidate", c.Resolved))
		}
		if c.OnlyIncumbent+c.OnlyCandidate > 0 {
			notes = append(notes, fmt.Sprintf("%d checked by the incumbent only, %d by the candidate only: the row is undecided", c.OnlyIncumbent, c.OnlyCandidate))
		}
		note := strings.Join(append(notes, "absences are budgeted, contradictions are not"), "; ")
		if err := g.put(row.str(note, 0)); err != nil {
			return err
		}
	}
	{
		p := r.Prompt
		row := (&cellRow{}).str("prompt size", st.label)
		if p.MaxMean > 0 {
			row.str("mean prompt tokens ≤", 0).num("gate", p.MaxMean, st.tokens)
		} else {
			row.str("mean prompt tokens (no gate)", 0).skip(1)
		}
		row.num("incumbent mean", p.Incumbent.Mean, st.tokens).count(p.Incumbent.Contexts, st.count).skip(3).
			str(string(p.IncumbentGate), 0).
			num("candidate mean", p.Candidate.Mean, st.tokens).count(p.Candidate.Contexts, st.count).skip(3).
			str(string(p.CandidateGate), 0).
			str(string(p.Change), 0).skip(3)
		note := "Value is the mean prompt tokens, Of the compacted contexts; smaller prompts are the point of compaction"
		if n := row.note(); n != "" {
			note = n + "; " + note
		}
		if err := g.put(row.str(note, 0)); err != nil {
			return err
		}
	}
	lastGate := g.row
	if err := b.summaryFormats(firstClass, lastClass, lastGate); err != nil {
		return err
	}
	// The verdict, then the chart of the gates table below it.
	if err := b.summaryVerdict(g); err != nil {
		return err
	}
	if lastClass >= firstClass {
		g.row++
		if err := b.summaryChart(firstClass, lastClass, g.row+1); err != nil {
			return err
		}
		g.row += chartRows
	}
	if err := b.summaryDetail(g); err != nil {
		return err
	}
	if err := b.summaryWarnings(g); err != nil {
		return err
	}
	return b.summaryTaskSuccess(g)
}

// summaryVerdict writes the verdict and what it rests on, one labelled
// row each, the text merged across the table.
func (b *book) summaryVerdict(g *grid) error {
	r, st := b.r, b.st
	d := r.Decision
	g.row++
	// The decision's own words, the ones every output gives it.
	verdict, vstyle := d.Headline(), st.passes
	if d.Blocks {
		vstyle = st.blocks
	}
	var unpaired []string
	for _, c := range r.Classes {
		if u := unpairedText(c); u != "" {
			unpaired = append(unpaired, string(c.Class)+": "+u)
		}
	}
	type labelled struct {
		k, v  string
		style int
	}
	kvs := []labelled{
		{"Verdict", verdict, vstyle},
		{"Rows worse", list(d.Worse), st.wrap},
		{"Rows undecided", list(d.Undecided), st.wrap},
		{"Checked by one system only", list(unpaired), st.wrap},
		{"Backlog: gates unmet by both", list(d.Backlog), st.wrap},
		{"Gates the candidate does not meet", list(d.CandidateUnmet), st.wrap},
		{"Rule", d.Rule, st.wrap},
		{"Error rates", rates(r), st.wrap},
	}
	if c := r.Calibration; c != nil {
		// Only with reviews: the judge against the reviewers, in the
		// same words as the Calibration sheet.
		kvs = append(kvs, labelled{"How far to trust the judge", c.Sentence, st.wrap})
	}
	for _, kv := range kvs {
		if err := g.put((&cellRow{}).str(kv.k, st.label).str(kv.v, kv.style)); err != nil {
			return err
		}
		if err := g.merge(sumRule, sumNotes, kv.v); err != nil {
			return err
		}
	}
	return nil
}

// maxUnpaired is the most item-compactions checked by one system
// only that the Summary names for a class; the Items sheet has them all
// (a verdict "not checked" on one side).
const maxUnpaired = 5

// unpairedText says which item-compactions of class row c one system
// checked and the other did not: how many, and the first few by name;
// "" when there are none.
func unpairedText(c report.ClassRow) string {
	var parts []string
	for _, s := range []struct {
		who, other string
		keys       []report.ItemKey
	}{{"incumbent", "candidate", c.OnlyIncumbent}, {"candidate", "incumbent", c.OnlyCandidate}} {
		if len(s.keys) == 0 {
			continue
		}
		var names []string
		for _, k := range s.keys[:min(len(s.keys), maxUnpaired)] {
			names = append(names, fmt.Sprintf("%s compaction %d item %s", k.ConversationID, k.Compaction, k.ItemID))
		}
		if n := len(s.keys) - maxUnpaired; n > 0 {
			names = append(names, fmt.Sprintf("and %d more", n))
		}
		parts = append(parts, fmt.Sprintf("%d %s checked by the %s only, not by the %s (%s)", len(s.keys),
			format.Plural(len(s.keys), "item-compaction", "item-compactions"), s.who, s.other, strings.Join(names, "; ")))
	}
	return strings.Join(parts, "; ")
}

// summaryWarnings writes the warnings: the report's, the selection's,
// and this workbook's own (rows left out, cut text). The task-success
// caveats are not among them: they are in the task-success section.
func (b *book) summaryWarnings(g *grid) error {
	r, st := b.r, b.st
	warnings := slices.Clone(r.Warnings)
	if r.Selection != nil {
		for _, w := range r.Selection.Warnings {
			warnings = append(warnings, "selection: "+w)
		}
	}
	warnings = append(warnings, b.notes...)
	warnings = append(warnings, b.cutNotes...)
	if b.cut > len(b.cutNotes) {
		warnings = append(warnings, fmt.Sprintf("%d more cells cut the same way", b.cut-len(b.cutNotes)))
	}
	g.row++
	if err := g.put((&cellRow{}).str("Warnings", st.header).skip(sumNotes - 1)); err != nil {
		return err
	}
	if len(warnings) == 0 {
		warnings = []string{"none"}
	}
	for _, w := range warnings {
		if err := g.put((&cellRow{}).skip(1).str(w, st.wrap)); err != nil {
			return err
		}
		if err := g.merge(sumRule, sumNotes, w); err != nil {
			return err
		}
	}
	return nil
}

// The task-success table's columns: its grade, then the sentence in
// words, merged to the end of the table.
const (
	sumTaskGrade = 10
	sumTaskWords = 11
)

// summaryTaskSuccess writes the last rows: task success, reported and
// never gated. Its caveats and the rule its sentence is graded by come
// first, once; the result is the Summary's last row.
func (b *book) summaryTaskSuccess(g *grid) error {
	r, st := b.r, b.st
	g.row++
	rp := r.Replay
	if rp == nil {
		return g.put((&cellRow{}).str("Task success (reported, never gated)", st.label).
			str("not measured: the report has no replay data", 0))
	}
	if err := g.put((&cellRow{}).str("Task success (reported, never gated)", st.group).skip(sumNotes - 1)); err != nil {
		return err
	}
	if err := g.merge(1, sumNotes, ""); err != nil {
		return err
	}
	pre := []struct{ k, v string }{{"How it is graded", rp.Rule}}
	for _, w := range rp.Warnings {
		pre = append(pre, struct{ k, v string }{"Caveat", w})
	}
	for _, kv := range pre {
		if kv.v == "" {
			continue
		}
		if err := g.put((&cellRow{}).str(kv.k, st.label).str(kv.v, st.wrap)); err != nil {
			return err
		}
		if err := g.merge(sumRule, sumNotes, kv.v); err != nil {
			return err
		}
	}
	res := rp.Result
	iv, ok := res.Interval(power.IntervalNewcombe)
	if !ok && len(res.Intervals) > 0 {
		iv, ok = res.Intervals[0], true
	}
	method := "newcombe"
	if ok {
		method = iv.Method
	} else {
		iv.Lower, iv.Upper = math.NaN(), math.NaN()
	}
	exact, ok := res.Test(power.TestExact)
	if !ok {
		exact.PValue = math.NaN()
	}
	if err := g.put((&cellRow{}).str("Task success", st.header).str("Pairs", st.header).str("Discordant", st.header).
		str("Reference", st.header).str("Candidate", st.header).str("Difference", st.header).
		str("Low ("+pct(res.Confidence)+" "+method+")", st.header).str("High", st.header).
		str("McNemar exact p", st.header).str("Grade", st.header).str("In words", st.header)); err != nil {
		return err
	}
	row := (&cellRow{}).str("reported, never gated", st.label).count(res.Pairs, st.count).count(res.Discordant, st.count).
		num("reference rate", res.ReferenceRate, st.pct).num("candidate rate", res.CandidateRate, st.pct).
		num("difference", res.Difference, st.pct).num("low", iv.Lower, st.pct).num("high", iv.Upper, st.pct).
		num("exact p", exact.PValue, st.prob).str(rp.Grade, st.label)
	words := rp.Sentence
	if n := row.note(); n != "" {
		words = strings.TrimSpace(words + " (" + n + ")")
	}
	if err := g.put(row.str(words, st.wrap)); err != nil {
		return err
	}
	return g.merge(sumTaskWords, sumNotes, words)
}

// summaryFormats colours the gates table: statuses, changes, and shares
// under their gate.
func (b *book) summaryFormats(firstClass, lastClass, lastGate int) error {
	st := b.st
	for _, col := range []int{sumIncStatus, sumCandStatus} {
		ref := cellRange(col, firstClass, col, lastGate)
		if err := b.equals(sheetSummary, ref, `"fail"`, st.cfFail, `"pass"`, st.cfPass, `"incomplete"`, st.cfWarn, `"none"`, st.cfMuted); err != nil {
			return err
		}
	}
	if err := b.equals(sheetSummary, cellRange(sumChange, firstClass, sumChange, lastGate),
		`"worse"`, st.cfFail, `"better"`, st.cfPass, `"undecided"`, st.cfWarn); err != nil {
		return err
	}
	if lastClass < firstClass {
		return nil
	}
	for _, col := range []int{sumIncShare, sumCandShare} {
		name, _ := excelize.ColumnNumberToName(col)
		gate, _ := excelize.ColumnNumberToName(sumGate)
		style := st.cfFail
		err := b.f.SetConditionalFormat(sheetSummary, cellRange(col, firstClass, col, lastClass),
			[]excelize.ConditionalFormatOptions{{
				Type:     "formula",
				Criteria: fmt.Sprintf("AND(ISNUMBER(%s%d),%s%d<$%s%d)", name, firstClass, name, firstClass, gate, firstClass),
				Format:   &style,
			}})
		if err != nil {
			return err
		}
	}
	return nil
}

// chartRows is the number of rows kept empty for the Summary's
// chart, and chartWidth, chartHeight its size in pixels. The
// chart is anchored to the cells it covers: excelize reckons 18 pixels
// a row, so it covers 20 rows (a spreadsheet shows them 20 pixels tall,
// and the chart with them), and about columns A to F.
const (
	chartRows   = 20
	chartWidth  = 720
	chartHeight = 360
)

// summaryChart adds a clustered column chart of the retained share by
// class, both systems and the gate, at column A of row at (below the
// verdict, within the printed width, not beside the table). Series
// names are references to the group header cells, never literal text.
// The axes have titles and dark labels (excelize's default label
// colour is a light grey), the share axis runs 0–100% in steps of 20%,
// and every class is labelled: four categories at 720 pixels leave each
// name some 140 pixels.
func (b *book) summaryChart(first, last, at int) error {
	abs := func(col, row int) string {
		ref, _ := excelize.CoordinatesToCellName(col, row, true)
		return ref
	}
	span := func(col int) string {
		return "'" + sheetSummary + "'!" + abs(col, first) + ":" + abs(col, last)
	}
	name := func(col, row int) string { return "'" + sheetSummary + "'!" + abs(col, row) }
	zero, one := 0.0, 1.0
	anchor, _ := excelize.CoordinatesToCellName(1, at)
	label := excelize.Font{Size: 10, Color: "404040"}
	title := func(s string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s, Font: &excelize.Font{Size: 10, Bold: true, Color: "404040"}}}}
	}
	series := func(nameCol, nameRow, values int, color string) excelize.ChartSeries {
		return excelize.ChartSeries{Name: name(nameCol, nameRow), Categories: span(sumRowName), Values: span(values),
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}},
			DataLabel: excelize.ChartDataLabel{Font: excelize.Font{Size: 8, Color: "404040"}}}
	}
	return b.f.AddChart(sheetSummary, anchor, &excelize.Chart{
		Type: excelize.Col,
		Series: []excelize.ChartSeries{
			series(sumIncValue, sumGroupRow, sumIncShare, "4472C4"),
			series(sumCandValue, sumGroupRow, sumCandShare, "ED7D31"),
			series(sumGate, sumHeaderRow, sumGate, "A5A5A5"),
		},
		Format:    excelize.GraphicOptions{AltText: "Retained share by class: incumbent, candidate and the gate"},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Retained share by class", Font: &excelize.Font{Size: 12, Bold: true, Color: "262626"}}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: chartHeight},
		PlotArea:  excelize.ChartPlotArea{ShowVal: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}},
		XAxis:     excelize.ChartAxis{Font: label, Title: title("Item class"), TickLabelSkip: 1},
		YAxis: excelize.ChartAxis{
			Minimum: &zero, Maximum: &one, MajorUnit: 0.2, MajorGridLines: true, Font: label,
			NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}, Title: title("Retained share"),
		},
	})
}

// summaryDetail writes, below the verdict, the counts behind each class
// row with the cluster-robust interval, and the prompt sizes.
func (b *book) summaryDetail(g *grid) error {
	r, st := b.r, b.st
	conf := pct(r.Confidence)
	g.row++
	if err := g.put((&cellRow{}).str("Retention by class, items clustered by conversation", st.group).skip(sumNotes - 1)); err != nil {
		return err
	}
	if err := g.merge(1, sumNotes, ""); err != nil {
		return err
	}
	head := &cellRow{}
	for _, h := range []string{"Class", "System", "Items", "Verbatim", "Supported", "Absent", "Contradicted", "Errors",
		"Retained", "Share", "Conversations", "Standard error", "Robust SE", "Design effect", "Effective items",
		"Robust low (" + conf + ")", "Robust high"} {
		head.str(h, st.header)
	}
	if err := g.put(head.skip(2).str("Notes", st.header)); err != nil {
		return err
	}
	if err := b.f.SetRowHeight(sheetSummary, g.row, 30); err != nil {
		return err
	}
	for _, c := range r.Classes {
		for _, s := range []struct {
			name string
			sc   report.SystemClass
		}{{r.Incumbent, c.Incumbent}, {r.Candidate, c.Candidate}} {
			n, cl := s.sc.Counts, s.sc.Clustered
			row := (&cellRow{}).str(string(c.Class), st.label).str(s.name, 0).
				count(n.Items, st.count).count(n.Verbatim, st.count).count(n.Supported, st.count).
				count(n.Absent, st.count).count(n.Contradicted, st.count).count(n.Errors, st.count).
				count(n.Retained(), st.count)
			if n.Errors > 0 && n.Items > 0 {
				// A range, not a point: a text cell, and no cluster-robust figures.
				row.str(s.sc.Retained.Percent(), 0).skip(9).
					str("retained "+s.sc.Retained.String()+": error verdicts leave the share a range", 0)
				if err := g.put(row); err != nil {
					return err
				}
				continue
			}
			if n.Items == 0 { // nothing to estimate: empty cells, not zeros
				row.skip(10).str("no items", 0)
				if err := g.put(row); err != nil {
					return err
				}
				continue
			}
			row.num("share", s.sc.Share, st.pct).
				count(cl.Clusters, st.count).num("standard error", cl.StandardError, st.prob).
				num("robust SE", cl.RobustStandardError, st.prob).num("design effect", cl.DesignEffect, st.decimal).
				num("effective items", cl.EffectiveN(), st.decimal).
				num("robust low", s.sc.Robust.Lower, st.pct).num("robust high", s.sc.Robust.Upper, st.pct).skip(2)
			if err := g.put(row.str(row.note(), 0)); err != nil {
				return err
			}
		}
	}
	g.row++
	if err := g.put((&cellRow{}).str("Prompt size (tokens)", st.header).str("System", st.header).
		str("Contexts", st.header).str("Mean", st.header).str("Median", st.header).str("95th percentile", st.header).
		str("Max", st.header).str("Budget (mean)", st.header).str("Status", st.header).skip(sumNotes-10).str("Notes", st.header)); err != nil {
		return err
	}
	p := r.Prompt
	for _, s := range []struct {
		who, name string
		ps        report.PromptStats
		gate      report.GateStatus
	}{{"incumbent", r.Incumbent, p.Incumbent, p.IncumbentGate}, {"candidate", r.Candidate, p.Candidate, p.CandidateGate}} {
		row := (&cellRow{}).str(s.who, st.label).str(s.name, 0).count(s.ps.Contexts, st.count).
			num("mean", s.ps.Mean, st.tokens).num("median", s.ps.Median, st.tokens).num("95th percentile", s.ps.P95, st.tokens).
			count(s.ps.Max, st.tokens)
		if p.MaxMean > 0 {
			row.num("budget", p.MaxMean, st.tokens)
		} else {
			row.str("no gate", 0)
		}
		row.str(string(s.gate), 0).skip(sumNotes - 10)
		if err := g.put(row.str(row.note(), 0)); err != nil {
			return err
		}
	}
	return nil
}

// rates is the report's error-rates sentence, "" without one.
func rates(r *report.Report) string {
	if r.ErrorRates == nil {
		return ""
	}
	return r.ErrorRates.Sentence
}
