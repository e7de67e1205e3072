// Package xlsx renders a report as an XLSX workbook with excelize: the
// gates table with conditional formatting and a chart, every item row,
// the lost and contradicted items, the replay's review queue, the
// fixture selection and the provenance. It reads the report model and
// computes nothing; the same report gives the same bytes (the archive is
// written by internal/zipfile).
package xlsx

import (
	"errors"
	"fmt"
	"github.com/tally-eval/tally/report/internal/format"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/zipfile"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/reviews"
)

// The workbook's sheets, in order.
const (
	sheetSummary = "Summary"
	sheetItems   = reviews.ItemsSheet
	sheetLost    = "Lost and Contradicted"
	// sheetCalibration is there only when the report has reviews
	// (report.Calibration), after sheetLost.
	sheetCalibration = "Calibration"
	sheetReplay      = "Replay"
	sheetSelection   = "Selection"
	sheetProvenance  = reviews.ProvenanceSheet
)

var sheetNames = []string{sheetSummary, sheetItems, sheetLost, sheetReplay, sheetSelection, sheetProvenance}

// sheetsOf lists r's sheets in order: sheetNames, and sheetCalibration
// after sheetLost when r has reviews.
func sheetsOf(r *report.Report) []string {
	if r.Calibration == nil {
		return sheetNames
	}
	names := make([]string, 0, len(sheetNames)+1)
	for _, n := range sheetNames {
		names = append(names, n)
		if n == sheetLost {
			names = append(names, sheetCalibration)
		}
	}
	return names
}

// replayReview is the replay sheet's reviewer drop-down: what a person
// can say about a conversation the two replay runs disagree on. (A lost
// or contradicted item is reviewed on its Items row, whose reviewer
// columns tally calibrate reads back; the Lost and Contradicted sheet
// names that row.)
var replayReview = []string{"caused by compaction", "not compaction", "reference wrong", "unsure"}

// maxCutWarnings bounds the warnings naming one cut cell each; the
// rest are counted in one more warning.
const maxCutWarnings = 10

// Write writes r as an XLSX workbook to w. Sheets: Summary (the
// gates table of both systems with conditional formatting, a chart of
// the retained share by class, the verdict, the warnings, and task
// success on the last row), Items (one row per item and compaction, both
// systems side by side, a changed flag, and for a reviewer each
// system's verdict in the reviewer's judgement — a drop-down of
// reviews.Words — a Reviewer and a Note column), Lost and Contradicted,
// Calibration (only with reviews: each class's retained share as the
// judge gives it and as corrected by the reviewers, and the judge against
// the reviewers), Replay (the review queue), Selection and Provenance.
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
func Write(w io.Writer, r *report.Report) (err error) {
	if r == nil {
		return errors.New("xlsx: Write: nil report")
	}
	b, err := newBook(r)
	if err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	defer func() {
		if cerr := b.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("xlsx: %w", cerr)
		}
	}()
	// Summary is written last: it shows the warnings the other sheets
	// raise (cut text).
	for _, step := range []struct {
		sheet string
		write func() error
	}{
		{sheetItems, b.items},
		{sheetLost, b.lost},
		{sheetCalibration, b.calibration},
		{sheetReplay, b.replay},
		{sheetSelection, b.selection},
		{sheetProvenance, b.provenance},
		{sheetSummary, b.summary},
	} {
		if err := step.write(); err != nil {
			return fmt.Errorf("xlsx: sheet %s: %w", step.sheet, err)
		}
	}
	if err := b.save(w); err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	return nil
}

// book is one workbook being written.
type book struct {
	r     *report.Report
	f     *excelize.File
	st    styles
	stamp time.Time // r.Generated, fit for a zip entry
	// cut counts the cells whose text was cut to Excel's limit; cutNotes
	// names the first few.
	cut      int
	cutNotes []string
	// notes are the other warnings the sheets raise (rows left out).
	notes []string
}

// maxRows is the number of rows a sheet holds (a variable so that
// tests can lower it).
var maxRows = excelize.TotalRows

// fitRows returns how many of n data rows fit on a sheet that has head
// rows above them and keeps one row for a note, and records a warning
// when not all of them fit.
func (b *book) fitRows(sheet, what string, n, head int) int {
	room := maxRows - head - 1
	if n <= room {
		return n
	}
	b.notes = append(b.notes, fmt.Sprintf("%s: the last %d of %d %s are not in the workbook: a sheet holds %d rows",
		sheet, n-room, n, what, maxRows))
	return room
}

func newBook(r *report.Report) (*book, error) {
	b := &book{r: r, f: excelize.NewFile(), stamp: stamp(r.Generated)}
	if err := b.f.SetSheetName("Sheet1", sheetSummary); err != nil {
		return nil, err
	}
	names := sheetsOf(r)
	for _, name := range names[1:] {
		if _, err := b.f.NewSheet(name); err != nil {
			return nil, err
		}
	}
	b.f.SetActiveSheet(0)
	for _, name := range names {
		if err := b.pageSetup(name); err != nil {
			return nil, err
		}
	}
	var err error
	if b.st, err = newStyles(b.f); err != nil {
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

// stamp returns t as a time a zip entry can hold (UTC, whole
// seconds, 1980 to 2107); the zero time becomes 1980-01-01.
func stamp(t time.Time) time.Time {
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

// save writes the workbook to w through a zipfile.Writer, so that the
// same workbook is the same bytes.
func (b *book) save(w io.Writer) error {
	z := zipfile.New(b.stamp)
	defer z.Discard()
	b.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return z })
	// excelize hands its ZipWriter an in-memory buffer and copies that
	// buffer to the writer given here; z leaves the buffer empty
	// and keeps the entries, so the copy is of nothing.
	if _, err := b.f.WriteTo(io.Discard); err != nil {
		return err
	}
	return z.Save(w)
}

// --- cells and rows -----------------------------------------------------

// cellRow collects one row's cells. A value that cannot be shown (NaN,
// ±Inf) becomes an empty cell and is named in the row's note.
type cellRow struct {
	cells []any
	undef []string
}

func (r *cellRow) str(s string, style int) *cellRow {
	if s == "" {
		return r.skip(1)
	}
	r.cells = append(r.cells, excelize.Cell{StyleID: style, Value: s})
	return r
}

// num appends v as a number; what names it in the note when it is NaN or
// infinite.
func (r *cellRow) num(what string, v float64, style int) *cellRow {
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

func (r *cellRow) count(n int, style int) *cellRow {
	r.cells = append(r.cells, excelize.Cell{StyleID: style, Value: float64(n)})
	return r
}

func (r *cellRow) flag(b bool) *cellRow {
	r.cells = append(r.cells, excelize.Cell{Value: b})
	return r
}

func (r *cellRow) skip(n int) *cellRow {
	for range n {
		r.cells = append(r.cells, nil)
	}
	return r
}

// note says which of the row's values were left empty, and why.
func (r *cellRow) note() string {
	if len(r.undef) == 0 {
		return ""
	}
	return strings.Join(r.undef, "; ") + " (cell left empty)"
}

// fit returns s as a cell can hold it: valid UTF-8, its control,
// bidirectional and zero-width characters shown as the HTML shows them
// (visible), and at most Excel's
// 32,767 UTF-16 units, cut with a marker when longer (the cut is counted
// and the first few are named in the Summary's warnings).
func (b *book) fit(sheet string, col, row int, s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !(sheet == sheetItems && (col == itemsKeyConversation || col == itemsKeyItem)) {
		// The Items sheet's key cells stay as the fixtures spell them:
		// tally calibrate matches them to the fixtures' ids, and an
		// escaped id matched nothing (a stakeholder's trial).
		s = format.Visible(s)
	}
	if len(s) <= excelize.TotalCellChars { // UTF-16 units ≤ UTF-8 bytes
		return s
	}
	n := utf16Len(s)
	if n <= excelize.TotalCellChars {
		return s
	}
	// Characters are code points, as the HTML and Markdown count them;
	// a cell's limit is in UTF-16 units, which a character outside the
	// BMP (an emoji) takes two of.
	marker := fmt.Sprintf(" […cut by tally: the text has %d characters, a cell holds %d]", utf8.RuneCountInString(s), excelize.TotalCellChars)
	if cp := utf8.RuneCountInString(s); cp != n {
		marker = fmt.Sprintf(" […cut by tally: the text has %d characters (%d UTF-16 units), a cell holds %d units]", cp, n, excelize.TotalCellChars)
	}
	keep := excelize.TotalCellChars - utf16Len(marker)
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
	end = format.Boundary(s, end) // not inside a flag, an accented letter, an emoji
	b.cut++
	if len(b.cutNotes) < maxCutWarnings {
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
func (b *book) fitPlain(s string) string {
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

func utf16Len(s string) int {
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
func (b *book) fitCells(sheet string, row int, cells []any) {
	for i, v := range cells {
		if c, ok := v.(excelize.Cell); ok {
			if s, ok := c.Value.(string); ok {
				c.Value = b.fit(sheet, i+1, row, s)
				cells[i] = c
			}
		}
	}
}

// stream writes a sheet row by row with excelize's StreamWriter.
type stream struct {
	b    *book
	name string
	sw   *excelize.StreamWriter
	row  int // the last row written
}

func (b *book) stream(name string) (*stream, error) {
	sw, err := b.f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	return &stream{b: b, name: name, sw: sw}, nil
}

// put writes the next row.
func (s *stream) put(r *cellRow) error {
	s.row++
	if len(r.cells) == 0 {
		return nil
	}
	s.b.fitCells(s.name, s.row, r.cells)
	ref, _ := excelize.CoordinatesToCellName(1, s.row)
	return s.sw.SetRow(ref, r.cells)
}

// putAll writes rows; a nil row is left blank.
func (s *stream) putAll(rows []*cellRow) error {
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
// The columns are set from the last to the first: excelize's stream
// writer puts each column it is given before those it has, and a
// worksheet's <col> elements must be in ascending order (Excel repairs
// the file otherwise).
func (s *stream) widths(ws ...float64) error {
	for i := len(ws) - 1; i >= 0; i-- {
		if err := s.sw.SetColWidth(i+1, i+1, ws[i]); err != nil {
			return err
		}
	}
	return nil
}

// headers writes a header row.
func (s *stream) headers(names ...string) error {
	r := &cellRow{}
	for _, n := range names {
		r.str(n, s.b.st.header)
	}
	return s.put(r)
}

// grid writes a sheet with excelize's cell API (the Summary: merged
// cells, a chart and conditional formats on a small sheet).
type grid struct {
	b    *book
	name string
	row  int
}

func (g *grid) put(r *cellRow) error {
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
func (g *grid) merge(from, to int, text string) error {
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

// freeze freezes the first cols columns and rows rows.
func freeze(cols, rows int) *excelize.Panes {
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

// pageSetup makes sheet print as a stakeholder reads it: landscape,
// scaled to one page wide and as many pages tall as it takes. Call it
// before the sheet's stream writer is made: the stream writer writes
// the sheet's properties (where the fit-to-page flag is) first.
func (b *book) pageSetup(sheet string) error {
	fit := true
	if err := b.f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	landscape, wide, tall := "landscape", 1, 0
	return b.f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &wide, FitToHeight: &tall})
}

// printTitles repeats rows first..last of sheet (its table's header) at
// the top of every printed page.
func (b *book) printTitles(sheet string, first, last int) error {
	return b.f.SetDefinedName(&excelize.DefinedName{
		Name: "_xlnm.Print_Titles", Scope: sheet,
		RefersTo: fmt.Sprintf("'%s'!$%d:$%d", sheet, first, last),
	})
}

// cellRange names columns from..to over rows top..bottom, as "A2:S10".
func cellRange(from, top, to, bottom int) string {
	a, _ := excelize.CoordinatesToCellName(from, top)
	z, _ := excelize.CoordinatesToCellName(to, max(bottom, top))
	return a + ":" + z
}

// equals adds conditional formats to ref: each value (an Excel constant
// such as "\"fail\"" or TRUE) gets its style.
func (b *book) equals(sheet, ref string, rules ...any) error {
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
func (b *book) dropDown(sheet, ref string, values []string) error {
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
func (b *book) verdictRules(sheet, ref string) error {
	return b.equals(sheet, ref,
		`"contradicted"`, b.st.cfFail, `"absent"`, b.st.cfWarn,
		`"error"`, b.st.cfMuted, `"`+notChecked+`"`, b.st.cfWarn)
}

// notChecked stands for the verdict of a system that has no record
// of an item-compaction the other system checked.
const notChecked = "not checked"

func verdictText(v fixture.Verdict) string {
	if v == "" {
		return notChecked
	}
	return string(v)
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', -1, 64) + "%" }

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// The Items sheet's key columns that hold ids (tally calibrate reads
// them back): the conversation and the item.
const (
	itemsKeyConversation = 1
	itemsKeyItem         = 3
)
