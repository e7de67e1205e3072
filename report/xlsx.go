package report

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/power"
)

// The workbook's sheets, in order.
const (
	xlsxSummary    = "Summary"
	xlsxItems      = "Items"
	xlsxLost       = "Lost and Contradicted"
	xlsxReplay     = "Replay"
	xlsxSelection  = "Selection"
	xlsxProvenance = "Provenance"
)

var xlsxSheets = []string{xlsxSummary, xlsxItems, xlsxLost, xlsxReplay, xlsxSelection, xlsxProvenance}

// The reviewer drop-downs: what a person can say about an item's verdict,
// and about a conversation the two replay runs disagree on.
var (
	xlsxItemReview   = []string{"judge right", "judge wrong", "fixture wrong", "unsure"}
	xlsxReplayReview = []string{"caused by compaction", "not compaction", "reference wrong", "unsure"}
)

// xlsxMaxCutWarnings bounds the warnings naming one cut cell each; the
// rest are counted in one more warning.
const xlsxMaxCutWarnings = 10

// WriteXLSX writes r as an XLSX workbook to w. Sheets: Summary (the
// gates table of both systems with conditional formatting, a chart of
// the retained share by class, the verdict, the warnings, and task
// success on the last row), Items (one row per item and compaction, both
// systems side by side, a changed flag and reviewer columns with a
// drop-down), Lost and Contradicted, Replay (the review queue),
// Selection and Provenance.
//
// Every string from the report is written as a string cell: none becomes
// a formula, whatever it starts with. Text longer than a cell holds
// (32,767 characters) is cut, with a marker in the cell and a warning on
// the Summary sheet. Shares are numbers formatted as percentages; a NaN
// or infinite value is an empty cell with a note beside it.
//
// The same report gives the same bytes: the document's created and
// modified times and every zip entry's time are r.Generated, and the
// zip entries are in a fixed order. The Items, Lost and Contradicted,
// Replay, Selection and Provenance sheets are streamed, so memory stays
// bounded however many items there are; the compressed workbook is
// spooled (to a temporary file past a few megabytes) and copied to w
// only once it is complete, so an error while making it writes nothing
// to w. (A failing w can still be left with part of the file: the
// caller writes to a temporary file and renames it.)
func WriteXLSX(w io.Writer, r *Report) (err error) {
	if r == nil {
		return errors.New("report: WriteXLSX: nil report")
	}
	b, err := newXLSXBook(r)
	if err != nil {
		return fmt.Errorf("report: XLSX: %w", err)
	}
	defer func() {
		if cerr := b.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("report: XLSX: %w", cerr)
		}
	}()
	// Summary is written last: it shows the warnings the other sheets
	// raise (cut text).
	for _, step := range []struct {
		sheet string
		write func() error
	}{
		{xlsxItems, b.items},
		{xlsxLost, b.lost},
		{xlsxReplay, b.replay},
		{xlsxSelection, b.selection},
		{xlsxProvenance, b.provenance},
		{xlsxSummary, b.summary},
	} {
		if err := step.write(); err != nil {
			return fmt.Errorf("report: XLSX: sheet %s: %w", step.sheet, err)
		}
	}
	if err := b.save(w); err != nil {
		return fmt.Errorf("report: XLSX: %w", err)
	}
	return nil
}

// xlsxBook is one workbook being written.
type xlsxBook struct {
	r     *Report
	f     *excelize.File
	st    xlsxStyles
	stamp time.Time // r.Generated, fit for a zip entry
	// cut counts the cells whose text was cut to Excel's limit; cutNotes
	// names the first few.
	cut      int
	cutNotes []string
	// notes are the other warnings the sheets raise (rows left out).
	notes []string
}

// xlsxMaxRows is the number of rows a sheet holds (a variable so that
// tests can lower it).
var xlsxMaxRows = excelize.TotalRows

// fitRows returns how many of n data rows fit on a sheet that has head
// rows above them and keeps one row for a note, and records a warning
// when not all of them fit.
func (b *xlsxBook) fitRows(sheet, what string, n, head int) int {
	room := xlsxMaxRows - head - 1
	if n <= room {
		return n
	}
	b.notes = append(b.notes, fmt.Sprintf("%s: the last %d of %d %s are not in the workbook: a sheet holds %d rows",
		sheet, n-room, n, what, xlsxMaxRows))
	return room
}

func newXLSXBook(r *Report) (*xlsxBook, error) {
	b := &xlsxBook{r: r, f: excelize.NewFile(), stamp: xlsxStamp(r.Generated)}
	if err := b.f.SetSheetName("Sheet1", xlsxSummary); err != nil {
		return nil, err
	}
	for _, name := range xlsxSheets[1:] {
		if _, err := b.f.NewSheet(name); err != nil {
			return nil, err
		}
	}
	b.f.SetActiveSheet(0)
	var err error
	if b.st, err = newXLSXStyles(b.f); err != nil {
		return nil, err
	}
	creator := "tally"
	if v := b.fitPlain(r.Provenance.Version); v != "" {
		creator += " " + v
	}
	stamp := b.stamp.Format("2006-01-02T15:04:05Z")
	err = b.f.SetDocProps(&excelize.DocProperties{
		Title:          b.fitPlain(r.Title),
		Subject:        "Evaluation of a compaction change",
		Description:    b.fitPlain(r.Period),
		Creator:        creator,
		LastModifiedBy: creator,
		Created:        stamp,
		Modified:       stamp,
	})
	return b, err
}

// xlsxStamp returns t as a time a zip entry can hold (UTC, whole
// seconds, 1980 to 2107); the zero time becomes 1980-01-01.
func xlsxStamp(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Second)
	lo := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	hi := time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC)
	switch {
	case t.Before(lo):
		return lo
	case t.After(hi):
		return hi
	}
	return t
}

// save writes the workbook to w through xlsxZip (see there).
func (b *xlsxBook) save(w io.Writer) error {
	z := &xlsxZip{mod: b.stamp}
	defer z.spool.close()
	b.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return z })
	// excelize hands its ZipWriter an in-memory buffer and copies that
	// buffer to the writer given here; xlsxZip leaves the buffer empty
	// and keeps the entries, so the copy is of nothing.
	if _, err := b.f.WriteTo(io.Discard); err != nil {
		return err
	}
	return z.writeTo(w)
}

// --- styles -------------------------------------------------------------

type xlsxStyles struct {
	title, group, header, label, wrap          int
	pct, count, tokens, prob, decimal, hours   int
	blocks, passes                             int
	cfFail, cfPass, cfWarn, cfMuted, cfChanged int
}

func newXLSXStyles(f *excelize.File) (xlsxStyles, error) {
	var s xlsxStyles
	var err error
	add := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewStyle(st)
		}
	}
	cond := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewConditionalStyle(st)
		}
	}
	fill := func(c string) excelize.Fill { return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{c}} }
	custom := func(code string) *string { return &code }
	add(&s.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}})
	add(&s.group, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      fill("B4C6E7"),
		Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "center"},
	})
	add(&s.header, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      fill("D9E1F2"),
		Border:    []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}},
		Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
	})
	add(&s.label, &excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{Vertical: "top"}})
	add(&s.wrap, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}})
	add(&s.pct, &excelize.Style{NumFmt: 10})   // 0.00%
	add(&s.count, &excelize.Style{NumFmt: 3})  // #,##0
	add(&s.tokens, &excelize.Style{NumFmt: 3}) // #,##0
	add(&s.prob, &excelize.Style{CustomNumFmt: custom("0.0000")})
	add(&s.decimal, &excelize.Style{NumFmt: 2}) // 0.00
	add(&s.hours, &excelize.Style{CustomNumFmt: custom("0.0")})
	add(&s.blocks, &excelize.Style{
		Font:      &excelize.Font{Bold: true, Color: "FFFFFF"},
		Fill:      fill("C00000"),
		Alignment: &excelize.Alignment{Vertical: "top"},
	})
	add(&s.passes, &excelize.Style{
		Font:      &excelize.Font{Bold: true, Color: "006100"},
		Fill:      fill("C6EFCE"),
		Alignment: &excelize.Alignment{Vertical: "top"},
	})
	cond(&s.cfFail, &excelize.Style{Font: &excelize.Font{Color: "9C0006"}, Fill: fill("FFC7CE")})
	cond(&s.cfPass, &excelize.Style{Font: &excelize.Font{Color: "006100"}, Fill: fill("C6EFCE")})
	cond(&s.cfWarn, &excelize.Style{Font: &excelize.Font{Color: "9C5700"}, Fill: fill("FFEB9C")})
	cond(&s.cfMuted, &excelize.Style{Font: &excelize.Font{Color: "595959"}, Fill: fill("EDEDED")})
	cond(&s.cfChanged, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "9C5700"}, Fill: fill("FFEB9C")})
	return s, err
}

// --- cells and rows -----------------------------------------------------

// xlsxRow collects one row's cells. A value that cannot be shown (NaN,
// ±Inf) becomes an empty cell and is named in the row's note.
type xlsxRow struct {
	cells []any
	undef []string
}

func (r *xlsxRow) str(s string, style int) *xlsxRow {
	if s == "" {
		return r.skip(1)
	}
	r.cells = append(r.cells, excelize.Cell{StyleID: style, Value: s})
	return r
}

// num appends v as a number; what names it in the note when it is NaN or
// infinite.
func (r *xlsxRow) num(what string, v float64, style int) *xlsxRow {
	switch {
	case math.IsNaN(v):
		r.undef = append(r.undef, what+" undefined")
		return r.skip(1)
	case math.IsInf(v, 0):
		r.undef = append(r.undef, what+" infinite")
		return r.skip(1)
	}
	r.cells = append(r.cells, excelize.Cell{StyleID: style, Value: v})
	return r
}

func (r *xlsxRow) count(n int, style int) *xlsxRow {
	r.cells = append(r.cells, excelize.Cell{StyleID: style, Value: float64(n)})
	return r
}

func (r *xlsxRow) flag(b bool) *xlsxRow {
	r.cells = append(r.cells, excelize.Cell{Value: b})
	return r
}

func (r *xlsxRow) skip(n int) *xlsxRow {
	for range n {
		r.cells = append(r.cells, nil)
	}
	return r
}

// note says which of the row's values were left empty, and why.
func (r *xlsxRow) note() string {
	if len(r.undef) == 0 {
		return ""
	}
	return strings.Join(r.undef, "; ") + " (cell left empty)"
}

// fit returns s as a cell can hold it: valid UTF-8, and at most Excel's
// 32,767 UTF-16 units, cut with a marker when longer (the cut is counted
// and the first few are named in the Summary's warnings).
func (b *xlsxBook) fit(sheet string, col, row int, s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= excelize.TotalCellChars { // UTF-16 units ≤ UTF-8 bytes
		return s
	}
	n := xlsxUTF16Len(s)
	if n <= excelize.TotalCellChars {
		return s
	}
	marker := fmt.Sprintf(" […cut by tally: the text has %d characters, a cell holds %d]", n, excelize.TotalCellChars)
	keep := excelize.TotalCellChars - xlsxUTF16Len(marker)
	units, end := 0, 0
	for i, c := range s {
		u := 1
		if c > 0xFFFF {
			u = 2
		}
		if units+u > keep {
			break
		}
		units += u
		end = i + utf8.RuneLen(c)
	}
	b.cut++
	if len(b.cutNotes) < xlsxMaxCutWarnings {
		ref, _ := excelize.CoordinatesToCellName(col, row)
		if strings.ContainsRune(sheet, ' ') {
			sheet = "'" + sheet + "'"
		}
		b.cutNotes = append(b.cutNotes, fmt.Sprintf(
			"%s!%s: text of %d characters cut to Excel's cell limit of %d (the cell ends with a marker)",
			sheet, ref, n, excelize.TotalCellChars))
	}
	return s[:end] + marker
}

// fitPlain is fit for text outside any cell (document properties):
// cut without a warning.
func (b *xlsxBook) fitPlain(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > 1024 {
		end := 1024
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		s = s[:end] + "…"
	}
	return s
}

func xlsxUTF16Len(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c > 0xFFFF {
			n++
		}
	}
	return n
}

// fitCells runs fit over the string cells of a row written at row.
func (b *xlsxBook) fitCells(sheet string, row int, cells []any) {
	for i, v := range cells {
		if c, ok := v.(excelize.Cell); ok {
			if s, ok := c.Value.(string); ok {
				c.Value = b.fit(sheet, i+1, row, s)
				cells[i] = c
			}
		}
	}
}

// xlsxStream writes a sheet row by row with excelize's StreamWriter.
type xlsxStream struct {
	b    *xlsxBook
	name string
	sw   *excelize.StreamWriter
	row  int // the last row written
}

func (b *xlsxBook) stream(name string) (*xlsxStream, error) {
	sw, err := b.f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	return &xlsxStream{b: b, name: name, sw: sw}, nil
}

// put writes the next row.
func (s *xlsxStream) put(r *xlsxRow) error {
	s.row++
	if len(r.cells) == 0 {
		return nil
	}
	s.b.fitCells(s.name, s.row, r.cells)
	ref, _ := excelize.CoordinatesToCellName(1, s.row)
	return s.sw.SetRow(ref, r.cells)
}

// putAll writes rows; a nil row is left blank.
func (s *xlsxStream) putAll(rows []*xlsxRow) error {
	for _, r := range rows {
		if r == nil {
			s.row++
			continue
		}
		if err := s.put(r); err != nil {
			return err
		}
	}
	return nil
}

// widths sets column widths, from column A; call before the first put.
func (s *xlsxStream) widths(ws ...float64) error {
	for i, w := range ws {
		if err := s.sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	return nil
}

// headers writes a header row.
func (s *xlsxStream) headers(names ...string) error {
	r := &xlsxRow{}
	for _, n := range names {
		r.str(n, s.b.st.header)
	}
	return s.put(r)
}

// xlsxGrid writes a sheet with excelize's cell API (the Summary: merged
// cells, a chart and conditional formats on a small sheet).
type xlsxGrid struct {
	b    *xlsxBook
	name string
	row  int
}

func (g *xlsxGrid) put(r *xlsxRow) error {
	g.row++
	g.b.fitCells(g.name, g.row, r.cells)
	for i, v := range r.cells {
		c, ok := v.(excelize.Cell)
		if !ok {
			continue
		}
		ref, _ := excelize.CoordinatesToCellName(i+1, g.row)
		if err := g.b.f.SetCellValue(g.name, ref, c.Value); err != nil {
			return err
		}
		if c.StyleID != 0 {
			if err := g.b.f.SetCellStyle(g.name, ref, ref, c.StyleID); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge merges columns from..to of the current row, and makes the row
// tall enough for text wrapped in the merged cell (Excel does not size
// a merged cell's row by itself).
func (g *xlsxGrid) merge(from, to int, text string) error {
	a, _ := excelize.CoordinatesToCellName(from, g.row)
	z, _ := excelize.CoordinatesToCellName(to, g.row)
	if err := g.b.f.MergeCell(g.name, a, z); err != nil {
		return err
	}
	var width float64
	for col := from; col <= to; col++ {
		name, _ := excelize.ColumnNumberToName(col)
		w, err := g.b.f.GetColWidth(g.name, name)
		if err != nil {
			return err
		}
		width += w
	}
	lines := 0
	for _, para := range strings.Split(text, "\n") {
		lines += max(1, int(math.Ceil(float64(utf8.RuneCountInString(para))/(width*0.95))))
	}
	if lines < 2 {
		return nil
	}
	return g.b.f.SetRowHeight(g.name, g.row, math.Min(409, 15*float64(lines)))
}

// xlsxFreeze freezes the first cols columns and rows rows.
func xlsxFreeze(cols, rows int) *excelize.Panes {
	top, _ := excelize.CoordinatesToCellName(cols+1, rows+1)
	pane := "bottomRight"
	switch {
	case cols == 0:
		pane = "bottomLeft"
	case rows == 0:
		pane = "topRight"
	}
	return &excelize.Panes{
		Freeze: true, XSplit: cols, YSplit: rows, TopLeftCell: top, ActivePane: pane,
		Selection: []excelize.Selection{{SQRef: top, ActiveCell: top, Pane: pane}},
	}
}

// xlsxRange names columns from..to over rows top..bottom, as "A2:S10".
func xlsxRange(from, top, to, bottom int) string {
	a, _ := excelize.CoordinatesToCellName(from, top)
	z, _ := excelize.CoordinatesToCellName(to, max(bottom, top))
	return a + ":" + z
}

// equals adds conditional formats to ref: each value (an Excel constant
// such as "\"fail\"" or TRUE) gets its style.
func (b *xlsxBook) equals(sheet, ref string, rules ...any) error {
	var opts []excelize.ConditionalFormatOptions
	for i := 0; i+1 < len(rules); i += 2 {
		style := rules[i+1].(int)
		opts = append(opts, excelize.ConditionalFormatOptions{
			Type: "cell", Criteria: "==", Value: rules[i].(string), Format: &style,
		})
	}
	return b.f.SetConditionalFormat(sheet, ref, opts)
}

// dropDown adds a list validation to ref.
func (b *xlsxBook) dropDown(sheet, ref string, values []string) error {
	dv := excelize.NewDataValidation(true)
	dv.Sqref = ref
	if err := dv.SetDropList(values); err != nil {
		return err
	}
	dv.SetError(excelize.DataValidationErrorStyleWarning, "Review",
		"Pick one of the listed values ("+strings.Join(values, ", ")+") or leave the cell empty.")
	return b.f.AddDataValidation(sheet, dv)
}

// verdictRules colour verdict cells.
func (b *xlsxBook) verdictRules(sheet, ref string) error {
	return b.equals(sheet, ref,
		`"contradicted"`, b.st.cfFail, `"absent"`, b.st.cfWarn,
		`"error"`, b.st.cfMuted, `"no record"`, b.st.cfMuted)
}

func xlsxVerdict(v fixture.Verdict) string {
	if v == "" {
		return "no record"
	}
	return string(v)
}

func xlsxPct(x float64) string { return strconv.FormatFloat(100*x, 'f', -1, 64) + "%" }

func xlsxList(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

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
	sumMcNemar
	sumNotes

	sumGroupRow  = 5
	sumHeaderRow = 6
)

func (b *xlsxBook) summary() error {
	r, st, f := b.r, b.st, b.f
	g := &xlsxGrid{b: b, name: xlsxSummary}
	for col, w := range []float64{34, 22, 9, 9, 8, 9, 10, 10, 11, 9, 8, 9, 10, 10, 11, 9, 9, 9, 10, 60} {
		name, _ := excelize.ColumnNumberToName(col + 1)
		if err := f.SetColWidth(xlsxSummary, name, name, w); err != nil {
			return err
		}
	}
	if err := f.SetPanes(xlsxSummary, xlsxFreeze(1, sumHeaderRow)); err != nil {
		return err
	}
	title := r.Title
	if title == "" {
		title = "Compaction change report"
	}
	conf := xlsxPct(r.Confidence)
	rows := []*xlsxRow{
		(&xlsxRow{}).str(title, st.title),
		(&xlsxRow{}).str("Period", st.label).str(r.Period, 0).skip(1).
			str("Generated", st.label).str(b.stamp.Format("2006-01-02 15:04:05 UTC"), 0).skip(3).
			str("Confidence", st.label).num("confidence", r.Confidence, st.pct),
		(&xlsxRow{}).str("Incumbent", st.label).str(r.Incumbent, 0).skip(1).
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
		(&xlsxRow{}).str("Gates", st.group).skip(2).str(inc, st.group).skip(5).str(cand, st.group).skip(5).
			str("Incumbent → candidate", st.group).skip(4),
		(&xlsxRow{}).str("Row", st.header).str("Rule", st.header).str("Gate", st.header).
			str("Value", st.header).str("Of", st.header).str("Share", st.header).
			str("Low ("+conf+" Wilson)", st.header).str("High", st.header).str("Status", st.header).
			str("Value", st.header).str("Of", st.header).str("Share", st.header).
			str("Low ("+conf+" Wilson)", st.header).str("High", st.header).str("Status", st.header).
			str("Change", st.header).str("Lost", st.header).str("Gained", st.header).
			str("McNemar exact p", st.header).str("Notes", st.header),
	)
	for _, row := range rows {
		if err := g.put(row); err != nil {
			return err
		}
	}
	if err := f.SetRowHeight(xlsxSummary, sumHeaderRow, 30); err != nil {
		return err
	}
	for _, m := range [][2]int{{sumRowName, sumGate}, {sumIncValue, sumIncStatus}, {sumCandValue, sumCandStatus}, {sumChange, sumNotes}} {
		a, _ := excelize.CoordinatesToCellName(m[0], sumGroupRow)
		z, _ := excelize.CoordinatesToCellName(m[1], sumGroupRow)
		if err := f.MergeCell(xlsxSummary, a, z); err != nil {
			return err
		}
	}

	// The gates: one row per class, contradictions, prompt size.
	firstClass := g.row + 1
	for _, c := range r.Classes {
		row := (&xlsxRow{}).str(string(c.Class), st.label)
		if c.Incumbent.Gate == NoGate && c.Candidate.Gate == NoGate {
			row.str("retained share (no gate)", 0).skip(1)
		} else {
			row.str("retained share ≥", 0).num("gate", c.MinShare, st.pct)
		}
		var notes []string
		for _, s := range []struct {
			who string
			sc  SystemClass
		}{{"incumbent", c.Incumbent}, {"candidate", c.Candidate}} {
			row.count(s.sc.Counts.Retained(), st.count).count(s.sc.Counts.Items, st.count).
				num(s.who+" share", s.sc.Share, st.pct).
				num(s.who+" low", s.sc.Wilson.Lower, st.pct).num(s.who+" high", s.sc.Wilson.Upper, st.pct).
				str(string(s.sc.Gate), 0)
			if s.sc.Counts.Items == 0 {
				notes = append(notes, s.who+": no items")
			}
			if e := s.sc.Counts.Errors; e > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d judge errors (not counted as absent)", s.who, e))
			}
		}
		row.str(string(c.Change), 0).count(len(c.Lost), st.count).count(len(c.Gained), st.count)
		p := math.NaN()
		if c.McNemar.Method != "" {
			p = c.McNemar.PValue
		}
		row.num("McNemar p", p, st.prob)
		if n := row.note(); n != "" {
			notes = append(notes, n)
		}
		row.str(strings.Join(notes, "; "), 0)
		if err := g.put(row); err != nil {
			return err
		}
	}
	lastClass := g.row
	{
		c := r.Contradictions
		row := (&xlsxRow{}).str("contradictions", st.label).str("contradicted items ≤", 0).count(c.Max, st.count).
			count(c.Incumbent, st.count).skip(4).str(string(c.IncumbentGate), 0).
			count(c.Candidate, st.count).skip(4).str(string(c.CandidateGate), 0).
			str(string(c.Change), 0).skip(3)
		note := "absences are budgeted, contradictions are not"
		if n := len(c.New); n > 0 {
			note = fmt.Sprintf("%d new: contradicted by the candidate and not by the incumbent (sheet %s); %s", n, xlsxLost, note)
		}
		if err := g.put(row.str(note, 0)); err != nil {
			return err
		}
	}
	{
		p := r.Prompt
		row := (&xlsxRow{}).str("prompt size", st.label)
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
	if lastClass >= firstClass {
		if err := b.summaryChart(firstClass, lastClass); err != nil {
			return err
		}
	}

	// The verdict.
	d := r.Decision
	g.row++
	verdict, vstyle := "Does not block: no row got worse under the candidate", st.passes
	if d.Blocks {
		var why []string
		if len(d.Worse) > 0 {
			why = append(why, "rows got worse under the candidate: "+xlsxList(d.Worse))
		}
		if len(d.Undecided) > 0 {
			why = append(why, "rows undecided because of judge errors: "+xlsxList(d.Undecided))
		}
		verdict, vstyle = "Blocks the change: "+strings.Join(why, "; "), st.blocks
	}
	for _, kv := range []struct {
		k, v  string
		style int
	}{
		{"Verdict", verdict, vstyle},
		{"Rows worse", xlsxList(d.Worse), st.wrap},
		{"Rows undecided (judge errors)", xlsxList(d.Undecided), st.wrap},
		{"Backlog: gates unmet by both", xlsxList(d.Backlog), st.wrap},
		{"Gates the candidate does not meet", xlsxList(d.CandidateUnmet), st.wrap},
		{"Rule", d.Rule, st.wrap},
	} {
		if err := g.put((&xlsxRow{}).str(kv.k, st.label).str(kv.v, kv.style)); err != nil {
			return err
		}
		if err := g.merge(sumRule, sumNotes, kv.v); err != nil {
			return err
		}
	}
	if err := b.summaryDetail(g); err != nil {
		return err
	}

	// Warnings: the report's, the replay's, the selection's, and this
	// workbook's own (cut text).
	warnings := slices.Clone(r.Warnings)
	if r.Replay != nil {
		for _, w := range r.Replay.Result.Warnings {
			warnings = append(warnings, "replay: "+w)
		}
	}
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
	if err := g.put((&xlsxRow{}).str("Warnings", st.header).skip(sumNotes - 1)); err != nil {
		return err
	}
	if len(warnings) == 0 {
		warnings = []string{"none"}
	}
	for _, w := range warnings {
		if err := g.put((&xlsxRow{}).skip(1).str(w, st.wrap)); err != nil {
			return err
		}
		if err := g.merge(sumRule, sumNotes, w); err != nil {
			return err
		}
	}

	// Task success, on the last row: reported, never gated.
	g.row++
	rp := r.Replay
	if rp == nil {
		return g.put((&xlsxRow{}).str("Task success (reported, never gated)", st.label).
			str("not measured: the report has no replay data", 0))
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
	if err := g.put((&xlsxRow{}).str("Task success", st.header).str("Pairs", st.header).str("Discordant", st.header).
		str("Reference", st.header).str("Candidate", st.header).str("Difference", st.header).
		str("Low ("+xlsxPct(res.Confidence)+" "+method+")", st.header).str("High", st.header).
		str("McNemar exact p", st.header).str("In words", st.header)); err != nil {
		return err
	}
	row := (&xlsxRow{}).str("reported, never gated", st.label).count(res.Pairs, st.count).count(res.Discordant, st.count).
		num("reference rate", res.ReferenceRate, st.pct).num("candidate rate", res.CandidateRate, st.pct).
		num("difference", res.Difference, st.pct).num("low", iv.Lower, st.pct).num("high", iv.Upper, st.pct).
		num("exact p", exact.PValue, st.prob)
	words := rp.Sentence
	if n := row.note(); n != "" {
		words = strings.TrimSpace(words + " (" + n + ")")
	}
	if err := g.put(row.str(words, st.wrap)); err != nil {
		return err
	}
	return g.merge(10, sumNotes, words)
}

// summaryFormats colours the gates table: statuses, changes, and shares
// under their gate.
func (b *xlsxBook) summaryFormats(firstClass, lastClass, lastGate int) error {
	st := b.st
	for _, col := range []int{sumIncStatus, sumCandStatus} {
		ref := xlsxRange(col, firstClass, col, lastGate)
		if err := b.equals(xlsxSummary, ref, `"fail"`, st.cfFail, `"pass"`, st.cfPass, `"incomplete"`, st.cfWarn, `"none"`, st.cfMuted); err != nil {
			return err
		}
	}
	if err := b.equals(xlsxSummary, xlsxRange(sumChange, firstClass, sumChange, lastGate),
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
		err := b.f.SetConditionalFormat(xlsxSummary, xlsxRange(col, firstClass, col, lastClass),
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

// summaryChart adds a clustered column chart of the retained share by
// class, both systems and the gate. Series names are references to the
// group header cells, never literal text.
func (b *xlsxBook) summaryChart(first, last int) error {
	abs := func(col, row int) string {
		ref, _ := excelize.CoordinatesToCellName(col, row, true)
		return ref
	}
	span := func(col int) string {
		return "'" + xlsxSummary + "'!" + abs(col, first) + ":" + abs(col, last)
	}
	name := func(col, row int) string { return "'" + xlsxSummary + "'!" + abs(col, row) }
	zero, one := 0.0, 1.0
	anchor, _ := excelize.CoordinatesToCellName(sumNotes+2, 1)
	return b.f.AddChart(xlsxSummary, anchor, &excelize.Chart{
		Type: excelize.Col,
		Series: []excelize.ChartSeries{
			{Name: name(sumIncValue, sumGroupRow), Categories: span(sumRowName), Values: span(sumIncShare),
				Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"4472C4"}}},
			{Name: name(sumCandValue, sumGroupRow), Categories: span(sumRowName), Values: span(sumCandShare),
				Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"ED7D31"}}},
			{Name: name(sumGate, sumHeaderRow), Categories: span(sumRowName), Values: span(sumGate),
				Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"A5A5A5"}}},
		},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Retained share by class"}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 720, Height: 400},
		PlotArea:  excelize.ChartPlotArea{ShowVal: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}},
		YAxis: excelize.ChartAxis{
			Minimum: &zero, Maximum: &one, MajorGridLines: true,
			NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"},
		},
	})
}

// summaryDetail writes, below the verdict, the counts behind each class
// row with the cluster-robust interval, and the prompt sizes.
func (b *xlsxBook) summaryDetail(g *xlsxGrid) error {
	r, st := b.r, b.st
	conf := xlsxPct(r.Confidence)
	g.row++
	if err := g.put((&xlsxRow{}).str("Retention by class, items clustered by conversation", st.group).skip(sumNotes - 1)); err != nil {
		return err
	}
	if err := g.merge(1, sumNotes, ""); err != nil {
		return err
	}
	head := &xlsxRow{}
	for _, h := range []string{"Class", "System", "Items", "Verbatim", "Supported", "Absent", "Contradicted", "Errors",
		"Retained", "Share", "Conversations", "Standard error", "Robust SE", "Design effect", "Effective items",
		"Robust low (" + conf + ")", "Robust high"} {
		head.str(h, st.header)
	}
	if err := g.put(head.skip(2).str("Notes", st.header)); err != nil {
		return err
	}
	if err := b.f.SetRowHeight(xlsxSummary, g.row, 30); err != nil {
		return err
	}
	for _, c := range r.Classes {
		for _, s := range []struct {
			name string
			sc   SystemClass
		}{{r.Incumbent, c.Incumbent}, {r.Candidate, c.Candidate}} {
			n, cl := s.sc.Counts, s.sc.Clustered
			row := (&xlsxRow{}).str(string(c.Class), st.label).str(s.name, 0).
				count(n.Items, st.count).count(n.Verbatim, st.count).count(n.Supported, st.count).
				count(n.Absent, st.count).count(n.Contradicted, st.count).count(n.Errors, st.count).
				count(n.Retained(), st.count).num("share", s.sc.Share, st.pct).
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
	if err := g.put((&xlsxRow{}).str("Prompt size (tokens)", st.header).str("System", st.header).
		str("Contexts", st.header).str("Mean", st.header).str("Median", st.header).str("95th percentile", st.header).
		str("Max", st.header).str("Budget (mean)", st.header).str("Status", st.header).skip(sumNotes-10).str("Notes", st.header)); err != nil {
		return err
	}
	p := r.Prompt
	for _, s := range []struct {
		who, name string
		ps        PromptStats
		gate      GateStatus
	}{{"incumbent", r.Incumbent, p.Incumbent, p.IncumbentGate}, {"candidate", r.Candidate, p.Candidate, p.CandidateGate}} {
		row := (&xlsxRow{}).str(s.who, st.label).str(s.name, 0).count(s.ps.Contexts, st.count).
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

// --- Items --------------------------------------------------------------

func (b *xlsxBook) items() error {
	r, st := b.r, b.st
	s, err := b.stream(xlsxItems)
	if err != nil {
		return err
	}
	const cols = 19 // A..S
	if err := s.widths(24, 8, 8, 14, 40, 40, 24, 12, 30, 24, 16, 12, 30, 24, 16, 9, 15, 14, 30); err != nil {
		return err
	}
	if err := s.sw.SetPanes(xlsxFreeze(3, 2)); err != nil {
		return err
	}
	inc, cand := "Incumbent", "Candidate"
	if r.Incumbent != "" {
		inc += ": " + r.Incumbent
	}
	if r.Candidate != "" {
		cand += ": " + r.Candidate
	}
	if err := s.put((&xlsxRow{}).str("Item", st.group).skip(6).str(inc, st.group).skip(3).
		str(cand, st.group).skip(3).str("", 0).str("Review", st.group).skip(2)); err != nil {
		return err
	}
	for _, m := range [][2]string{{"A1", "G1"}, {"H1", "K1"}, {"L1", "O1"}, {"Q1", "S1"}} {
		if err := s.sw.MergeCell(m[0], m[1]); err != nil {
			return err
		}
	}
	if err := s.headers("Conversation", "Compaction", "Item", "Class", "Literal", "Probe", "Expect",
		"Incumbent verdict", "Incumbent answer", "Incumbent reason", "Incumbent judge",
		"Candidate verdict", "Candidate answer", "Candidate reason", "Candidate judge",
		"Changed", "Review", "Reviewer", "Note"); err != nil {
		return err
	}
	row := &xlsxRow{cells: make([]any, 0, cols)}
	shown := b.fitRows(xlsxItems, "item rows", len(r.Items), 2)
	for i := range r.Items[:shown] {
		it := &r.Items[i]
		row.cells, row.undef = row.cells[:0], row.undef[:0]
		row.str(it.ConversationID, 0).count(it.Compaction, 0).str(it.ItemID, 0).str(string(it.Class), 0).
			str(it.Literal, 0).str(it.Probe, 0).str(it.Expect, 0)
		for _, rec := range []*fixture.Record{&it.Incumbent, &it.Candidate} {
			row.str(xlsxVerdict(rec.Verdict), 0).str(rec.Answer, 0).str(rec.Reason, 0).str(rec.Judge, 0)
		}
		row.flag(it.Changed)
		if err := s.put(row); err != nil {
			return err
		}
	}
	if n := len(r.Items) - shown; n > 0 {
		if err := s.put((&xlsxRow{}).str(fmt.Sprintf("… %d more item rows: a sheet holds %d rows", n, xlsxMaxRows), 0)); err != nil {
			return err
		}
	}
	last := max(s.row, 3)
	if err := b.f.AutoFilter(xlsxItems, xlsxRange(1, 2, cols, last), nil); err != nil {
		return err
	}
	if err := b.dropDown(xlsxItems, xlsxRange(17, 3, 17, last), xlsxItemReview); err != nil {
		return err
	}
	for _, col := range []int{8, 12} {
		if err := b.verdictRules(xlsxItems, xlsxRange(col, 3, col, last)); err != nil {
			return err
		}
	}
	if err := b.equals(xlsxItems, xlsxRange(16, 3, 16, last), "TRUE", st.cfChanged); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Lost and Contradicted ----------------------------------------------

func (b *xlsxBook) lost() error {
	r, st := b.r, b.st
	type entry struct {
		kind  string
		class fixture.Class
		key   ItemKey
	}
	var entries []entry
	for _, c := range r.Classes {
		for _, k := range c.Lost {
			entries = append(entries, entry{"lost", c.Class, k})
		}
	}
	for _, k := range r.Contradictions.New {
		entries = append(entries, entry{"new contradiction", "", k})
	}
	omitted := len(entries)
	entries = entries[:b.fitRows(xlsxLost, "rows", len(entries), 1)]
	omitted -= len(entries)
	// Find each entry's item row in one pass over the items.
	where := make(map[ItemKey]int, len(entries))
	for _, e := range entries {
		where[e.key] = -1
	}
	for i := range r.Items {
		if at, ok := where[r.Items[i].ItemKey]; ok && at < 0 {
			where[r.Items[i].ItemKey] = i
		}
	}

	s, err := b.stream(xlsxLost)
	if err != nil {
		return err
	}
	const cols = 16 // A..P
	if err := s.widths(18, 14, 24, 8, 8, 40, 40, 24, 12, 30, 12, 30, 30, 15, 14, 30); err != nil {
		return err
	}
	if err := s.sw.SetPanes(xlsxFreeze(0, 1)); err != nil {
		return err
	}
	if err := s.headers("Kind", "Class", "Conversation", "Compaction", "Item", "Literal", "Probe", "Expect",
		"Incumbent verdict", "Incumbent answer", "Candidate verdict", "Candidate answer", "Candidate reason",
		"Review", "Reviewer", "Note"); err != nil {
		return err
	}
	for _, e := range entries {
		row := &xlsxRow{}
		class := e.class
		var it *ItemRow
		if i := where[e.key]; i >= 0 {
			it = &r.Items[i]
			if class == "" {
				class = it.Class
			}
		}
		row.str(e.kind, 0).str(string(class), 0).str(e.key.ConversationID, 0).count(e.key.Compaction, 0).str(e.key.ItemID, 0)
		if it == nil {
			row.skip(10).str("no item row for this key in the report", 0)
		} else {
			row.str(it.Literal, 0).str(it.Probe, 0).str(it.Expect, 0).
				str(xlsxVerdict(it.Incumbent.Verdict), 0).str(it.Incumbent.Answer, 0).
				str(xlsxVerdict(it.Candidate.Verdict), 0).str(it.Candidate.Answer, 0).str(it.Candidate.Reason, 0)
		}
		if err := s.put(row); err != nil {
			return err
		}
	}
	if omitted > 0 {
		if err := s.put((&xlsxRow{}).str(fmt.Sprintf("… %d more rows: a sheet holds %d rows", omitted, xlsxMaxRows), 0)); err != nil {
			return err
		}
	}
	if len(entries) == 0 {
		if err := s.put((&xlsxRow{}).str("none", 0).skip(4).
			str("no item the incumbent retained was lost, and no item is newly contradicted", 0)); err != nil {
			return err
		}
	}
	last := max(s.row, 2)
	if err := b.f.AutoFilter(xlsxLost, xlsxRange(1, 1, cols, last), nil); err != nil {
		return err
	}
	if err := b.dropDown(xlsxLost, xlsxRange(14, 2, 14, last), xlsxItemReview); err != nil {
		return err
	}
	for _, col := range []int{9, 11} {
		if err := b.verdictRules(xlsxLost, xlsxRange(col, 2, col, last)); err != nil {
			return err
		}
	}
	if err := b.equals(xlsxLost, xlsxRange(1, 2, 1, last), `"new contradiction"`, st.cfFail); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Replay -------------------------------------------------------------

func (b *xlsxBook) replay() error {
	r, st := b.r, b.st
	s, err := b.stream(xlsxReplay)
	if err != nil {
		return err
	}
	rp := r.Replay
	if rp == nil {
		if err := s.widths(60); err != nil {
			return err
		}
		if err := s.put((&xlsxRow{}).str("Task success replay: reported, never gated", st.title)); err != nil {
			return err
		}
		if err := s.put((&xlsxRow{}).str("No replay data: task success was not measured.", 0)); err != nil {
			return err
		}
		return s.sw.Flush()
	}
	res := rp.Result
	// The analysis, as labels over values, then the review queue.
	labels := (&xlsxRow{}).str("Pairs", st.header).str("Discordant", st.header).
		str("Both succeeded", st.header).str("Lost (reference ✓, candidate ✗)", st.header).
		str("Gained (reference ✗, candidate ✓)", st.header).str("Both failed", st.header).
		str("Reference rate", st.header).str("Candidate rate", st.header).str("Difference", st.header)
	values := (&xlsxRow{}).count(res.Pairs, st.count).count(res.Discordant, st.count).
		count(res.Table.A, st.count).count(res.Table.B, st.count).count(res.Table.C, st.count).count(res.Table.D, st.count).
		num("reference rate", res.ReferenceRate, st.pct).num("candidate rate", res.CandidateRate, st.pct).
		num("difference", res.Difference, st.pct)
	for _, t := range res.Tests {
		if t.HasStatistic {
			labels.str(t.Method+" χ²", st.header)
			values.num(t.Method+" statistic", t.Statistic, st.prob)
		}
		labels.str(t.Method+" p", st.header)
		values.num(t.Method+" p", t.PValue, st.prob)
	}
	for _, iv := range res.Intervals {
		labels.str(iv.Method+" low ("+xlsxPct(res.Confidence)+")", st.header).str(iv.Method+" high", st.header)
		values.num(iv.Method+" low", iv.Lower, st.pct).num(iv.Method+" high", iv.Upper, st.pct)
	}
	kinds := []string{"uncompacted", "accepted_trace"}
	for k := range rp.ReferenceKinds {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds[2:])
	for _, k := range kinds {
		labels.str("References: "+k, st.header)
		values.count(rp.ReferenceKinds[k], st.count)
	}
	width := max(len(labels.cells), 8)
	ws := make([]float64, width)
	for i := range ws {
		ws[i] = 14
	}
	ws[0] = 26
	if err := s.widths(ws...); err != nil {
		return err
	}
	words := rp.Sentence
	if n := values.note(); n != "" {
		words = strings.TrimSpace(words + " (" + n + ")")
	}
	pre := []*xlsxRow{
		(&xlsxRow{}).str("Task success replay: reported, never gated", st.title),
		labels, values,
		(&xlsxRow{}).str("In words", st.label).str(words, 0),
	}
	for _, w := range res.Warnings {
		pre = append(pre, (&xlsxRow{}).str("Warning", st.label).str(w, 0))
	}
	if len(rp.ByKind) > 0 {
		pre = append(pre, nil, (&xlsxRow{}).str("By reference kind", st.header).str("Pairs", st.header).
			str("Both succeeded", st.header).str("Lost", st.header).str("Gained", st.header).str("Both failed", st.header))
		for _, k := range rp.ByKind {
			pre = append(pre, (&xlsxRow{}).str(k.Kind, st.label).count(k.Table.Pairs(), st.count).
				count(k.Table.A, st.count).count(k.Table.B, st.count).count(k.Table.C, st.count).count(k.Table.D, st.count))
		}
	}
	pre = append(pre, nil)
	// The review queue. Freezing at its header freezes the analysis above
	// it too: it is a few rows, and the queue is read against it.
	head := len(pre) + 1
	if err := s.sw.SetPanes(xlsxFreeze(0, head)); err != nil {
		return err
	}
	if err := s.putAll(pre); err != nil {
		return err
	}
	if err := s.headers("Conversation (review queue)", "Reference", "Candidate", "Reference kind", "Direction",
		"Review", "Reviewer", "Note"); err != nil {
		return err
	}
	for _, p := range rp.Discordant {
		dir := ""
		switch {
		case p.Reference == "success" && p.Candidate == "failure":
			dir = "lost"
		case p.Reference == "failure" && p.Candidate == "success":
			dir = "gained"
		}
		if err := s.put((&xlsxRow{}).str(p.ConversationID, 0).str(p.Reference, 0).str(p.Candidate, 0).
			str(p.ReferenceKind, 0).str(dir, 0)); err != nil {
			return err
		}
	}
	last := max(s.row, head+1)
	if err := b.f.AutoFilter(xlsxReplay, xlsxRange(1, head, 8, last), nil); err != nil {
		return err
	}
	if err := b.dropDown(xlsxReplay, xlsxRange(6, head+1, 6, last), xlsxReplayReview); err != nil {
		return err
	}
	if err := b.equals(xlsxReplay, xlsxRange(5, head+1, 5, last), `"lost"`, st.cfFail, `"gained"`, st.cfPass); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Selection ----------------------------------------------------------

func (b *xlsxBook) selection() error {
	r, st := b.r, b.st
	s, err := b.stream(xlsxSelection)
	if err != nil {
		return err
	}
	if err := s.widths(34, 12, 14, 14, 14, 10, 60); err != nil {
		return err
	}
	sel := r.Selection
	if sel == nil {
		if err := s.put((&xlsxRow{}).str("Fixture selection", st.title)); err != nil {
			return err
		}
		if err := s.put((&xlsxRow{}).str("No selection summary: fixture selection was not part of this report.", 0)); err != nil {
			return err
		}
		return s.sw.Flush()
	}
	pre := []*xlsxRow{(&xlsxRow{}).str("Measure", st.header).str("Selected", st.header).
		str("Random mean", st.header).str("Random low (95%)", st.header).str("Random high (95%)", st.header)}
	sl, rd := sel.Selected, sel.Random
	for _, m := range []struct {
		name  string
		sel   float64
		rnd   Range
		style int
	}{
		{"Sessions", float64(sl.Sessions), rd.Sessions, st.count},
		{"Sessions that never compact", float64(sl.NeverCompact), rd.NeverCompact, st.count},
		{"Compactions", float64(sl.Compactions), rd.Compactions, st.count},
		{"Compaction decisions", float64(sl.Decisions), rd.Decisions, st.count},
		{"Items", float64(sl.Items), rd.Items, st.count},
		{"Annotation hours at 15 minutes a session", sl.HoursAt15, rd.HoursAt15, st.hours},
		{"Annotation hours at 2 minutes a session", sl.HoursAt2, rd.HoursAt2, st.hours},
	} {
		row := (&xlsxRow{}).str(m.name, st.label).num("selected", m.sel, m.style).
			num("mean", m.rnd.Mean, st.decimal).num("low", m.rnd.Low, st.decimal).num("high", m.rnd.High, st.decimal)
		pre = append(pre, row.skip(1).str(row.note(), 0))
	}
	pre = append(pre, nil)
	for _, kv := range []struct {
		k string
		v any
	}{
		{"Budget (sessions)", sel.Budget},
		{"Seed", sel.Seed},
		{"Incidents", sel.Incidents},
		{"Incidents exceed the budget", sel.IncidentsExceedBudget},
		{"Random sample size (sessions)", rd.Size},
		{"Random draws", rd.Draws},
	} {
		row := (&xlsxRow{}).str(kv.k, st.label)
		switch v := kv.v.(type) {
		case int:
			row.count(v, 0)
		case int64:
			row.num("", float64(v), 0)
		case bool:
			row.flag(v)
		}
		pre = append(pre, row)
	}
	for _, w := range sel.Warnings {
		pre = append(pre, (&xlsxRow{}).str("Warning", st.label).str(w, 0))
	}
	pre = append(pre, nil)
	head := len(pre) + 1
	if err := s.sw.SetPanes(xlsxFreeze(1, head)); err != nil {
		return err
	}
	if err := s.putAll(pre); err != nil {
		return err
	}
	if err := s.headers("Selected session", "Turns", "Compactions", "Items", "Decisions", "Incident", "Reason"); err != nil {
		return err
	}
	for _, ss := range sel.Sessions {
		if err := s.put((&xlsxRow{}).str(ss.SessionID, 0).count(ss.Turns, st.count).count(ss.Compactions, st.count).
			count(ss.Items, st.count).count(ss.Decisions, st.count).flag(ss.Incident).str(ss.Reason, 0)); err != nil {
			return err
		}
	}
	if err := b.f.AutoFilter(xlsxSelection, xlsxRange(1, head, 7, max(s.row, head+1)), nil); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- Provenance ---------------------------------------------------------

func (b *xlsxBook) provenance() error {
	r, st := b.r, b.st
	s, err := b.stream(xlsxProvenance)
	if err != nil {
		return err
	}
	if err := s.widths(10, 24, 80, 66, 14); err != nil {
		return err
	}
	if err := s.sw.SetPanes(xlsxFreeze(0, 1)); err != nil {
		return err
	}
	if err := s.headers("Section", "Name", "Value", "SHA-256", "Bytes"); err != nil {
		return err
	}
	p := r.Provenance
	rows := []*xlsxRow{
		(&xlsxRow{}).str("tally", 0).str("version", 0).str(p.Version, 0),
		(&xlsxRow{}).str("report", 0).str("title", 0).str(r.Title, 0),
		(&xlsxRow{}).str("report", 0).str("period", 0).str(r.Period, 0),
		(&xlsxRow{}).str("report", 0).str("generated", 0).str(b.stamp.Format(time.RFC3339), 0),
		(&xlsxRow{}).str("report", 0).str("confidence", 0).num("confidence", r.Confidence, st.pct),
		(&xlsxRow{}).str("report", 0).str("incumbent", 0).str(r.Incumbent, 0),
		(&xlsxRow{}).str("report", 0).str("candidate", 0).str(r.Candidate, 0),
	}
	for _, in := range p.Inputs {
		rows = append(rows, (&xlsxRow{}).str("input", 0).str(in.Role, 0).str(in.Path, 0).str(in.SHA256, 0).
			num("bytes", float64(in.Bytes), st.count))
	}
	if p.Config == "" {
		rows = append(rows, (&xlsxRow{}).str("config", 0).skip(1).str("(no configuration text)", 0))
	}
	for _, row := range rows {
		if err := s.put(row); err != nil {
			return err
		}
	}
	if p.Config != "" {
		lines := strings.Split(strings.TrimSuffix(p.Config, "\n"), "\n")
		for i, line := range lines {
			if err := s.put((&xlsxRow{}).str("config", 0).count(i+1, 0).str(strings.TrimSuffix(line, "\r"), 0)); err != nil {
				return err
			}
		}
	}
	if err := b.f.AutoFilter(xlsxProvenance, xlsxRange(1, 1, 5, s.row), nil); err != nil {
		return err
	}
	return s.sw.Flush()
}

// --- the zip ------------------------------------------------------------

// xlsxSpoolMemory is how much compressed workbook xlsxSpool keeps in
// memory before it moves to a temporary file.
const xlsxSpoolMemory = 8 << 20

// xlsxZip is the excelize.ZipWriter WriteXLSX hands excelize. excelize
// writes its streamed sheets in the order of a Go map, lists the image
// types of [Content_Types].xml in map order too, and archive/zip's
// Create gives entries no time; all of these change from run to run.
// xlsxZip compresses each entry as excelize writes it into a spool
// (sorting the elements of [Content_Types].xml first), and writeTo then
// writes the entries in a fixed order ([Content_Types].xml first, then
// by name), each with the same time, copying the compressed bytes
// without recompressing them.
type xlsxZip struct {
	mod     time.Time
	spool   xlsxSpool
	entries []xlsxZipEntry
	open    bool          // the last entry is being written
	held    *bytes.Buffer // the open entry's bytes, when it is [Content_Types].xml
	fw      *flate.Writer
	crc     hash.Hash32
	err     error // the first error; every later call returns it
}

type xlsxZipEntry struct {
	name         string
	off, size    int64 // compressed bytes in the spool
	crc          uint32
	uncompressed uint64
}

const xlsxContentTypes = "[Content_Types].xml"

func (z *xlsxZip) Create(name string) (io.Writer, error) {
	if err := z.end(); err != nil {
		return nil, err
	}
	if z.fw == nil {
		z.fw, _ = flate.NewWriter(&z.spool, flate.BestSpeed)
		z.crc = crc32.NewIEEE()
	} else {
		z.fw.Reset(&z.spool)
		z.crc.Reset()
	}
	z.entries = append(z.entries, xlsxZipEntry{name: name, off: z.spool.size})
	z.open = true
	if name == xlsxContentTypes {
		z.held = &bytes.Buffer{}
	}
	return z, nil
}

// Write writes to the open entry.
func (z *xlsxZip) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if !z.open {
		z.err = errors.New("xlsx zip: write with no open entry")
		return 0, z.err
	}
	if z.held != nil {
		return z.held.Write(p)
	}
	return z.compress(p)
}

func (z *xlsxZip) compress(p []byte) (int, error) {
	n, err := z.fw.Write(p)
	z.crc.Write(p[:n])
	z.entries[len(z.entries)-1].uncompressed += uint64(n)
	if err != nil {
		z.err = err
	}
	return n, err
}

// end closes the open entry.
func (z *xlsxZip) end() error {
	if !z.open || z.err != nil {
		return z.err
	}
	z.open = false
	if z.held != nil {
		held := z.held
		z.held = nil
		if _, err := z.compress(xlsxSortTypes(held.Bytes())); err != nil {
			return err
		}
	}
	if err := z.fw.Close(); err != nil {
		z.err = err
		return err
	}
	e := &z.entries[len(z.entries)-1]
	e.crc = z.crc.Sum32()
	e.size = z.spool.size - e.off
	return nil
}

// xlsxTypeElement matches one Default or Override element of
// [Content_Types].xml, as excelize writes them.
var xlsxTypeElement = regexp.MustCompile(`<(?:Default|Override) [^<>]*(?:/>|></(?:Default|Override)>)`)

// xlsxSortTypes sorts the Default elements of [Content_Types].xml (by
// extension) and then its Override elements (by part name). It returns
// the document unchanged unless the elements are one contiguous run.
func xlsxSortTypes(doc []byte) []byte {
	locs := xlsxTypeElement.FindAllIndex(doc, -1)
	if len(locs) < 2 {
		return doc
	}
	elems := make([]string, len(locs))
	for i, l := range locs {
		if i > 0 && l[0] != locs[i-1][1] {
			return doc
		}
		elems[i] = string(doc[l[0]:l[1]])
	}
	slices.SortStableFunc(elems, func(a, b string) int {
		ka, kb := strings.HasPrefix(a, "<Override"), strings.HasPrefix(b, "<Override")
		switch {
		case ka == kb:
			return strings.Compare(a, b)
		case kb:
			return -1
		}
		return 1
	})
	out := slices.Clone(doc[:locs[0][0]])
	for _, e := range elems {
		out = append(out, e...)
	}
	return append(out, doc[locs[len(locs)-1][1]:]...)
}

// AddFS is not used by excelize when it writes a workbook.
func (z *xlsxZip) AddFS(fs.FS) error { return errors.New("xlsx zip: AddFS is not supported") }

// Close ends the last entry; writeTo writes the archive.
func (z *xlsxZip) Close() error { return z.end() }

// writeTo writes the archive to w.
func (z *xlsxZip) writeTo(w io.Writer) error {
	if err := z.end(); err != nil {
		return err
	}
	rank := func(name string) int {
		if name == xlsxContentTypes {
			return 0
		}
		return 1
	}
	slices.SortFunc(z.entries, func(a, b xlsxZipEntry) int {
		if ra, rb := rank(a.name), rank(b.name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 1; i < len(z.entries); i++ {
		if z.entries[i].name == z.entries[i-1].name {
			return fmt.Errorf("xlsx zip: entry %s written twice", z.entries[i].name)
		}
	}
	date, clock := xlsxDOSTime(z.mod)
	zw := zip.NewWriter(w)
	for _, e := range z.entries {
		dst, err := zw.CreateRaw(&zip.FileHeader{
			Name:               e.name,
			Method:             zip.Deflate,
			CreatorVersion:     20,
			ReaderVersion:      20,
			ModifiedDate:       date,
			ModifiedTime:       clock,
			CRC32:              e.crc,
			CompressedSize64:   uint64(e.size),
			UncompressedSize64: e.uncompressed,
		})
		if err != nil {
			return err
		}
		if _, err := io.Copy(dst, z.spool.section(e.off, e.size)); err != nil {
			return err
		}
	}
	return zw.Close()
}

// xlsxDOSTime is t as an MS-DOS date and time (two-second resolution).
func xlsxDOSTime(t time.Time) (date, clock uint16) {
	date = uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	clock = uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	return date, clock
}

// xlsxSpool holds the compressed entries: in memory up to
// xlsxSpoolMemory, then in a temporary file removed by close.
type xlsxSpool struct {
	mem  []byte
	file *os.File
	size int64
}

func (s *xlsxSpool) Write(p []byte) (int, error) {
	if s.file == nil && len(s.mem)+len(p) > xlsxSpoolMemory {
		f, err := os.CreateTemp("", "tally-xlsx-*.spool")
		if err != nil {
			return 0, err
		}
		s.file = f
		if _, err := f.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = nil
	}
	if s.file != nil {
		n, err := s.file.Write(p)
		s.size += int64(n)
		return n, err
	}
	s.mem = append(s.mem, p...)
	s.size += int64(len(p))
	return len(p), nil
}

func (s *xlsxSpool) section(off, n int64) io.Reader {
	if s.file != nil {
		return io.NewSectionReader(s.file, off, n)
	}
	return bytes.NewReader(s.mem[off : off+n])
}

func (s *xlsxSpool) close() {
	if s.file != nil {
		name := s.file.Name()
		_ = s.file.Close()
		_ = os.Remove(name)
		s.file = nil
	}
	s.mem = nil
}
