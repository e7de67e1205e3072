package reviews

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/internal/input"
)

// The reviewed table: the Items sheet of a report workbook (as
// report/xlsx writes it: headers on row 2, items from row 3) or a CSV
// with the same headers on its first line. These are the headers a
// reader matches on; the table's other columns are not read.
const (
	ItemsSheet      = "Items"
	ProvenanceSheet = "Provenance"

	HeaderConversation     = "Conversation"
	HeaderCompaction       = "Compaction"
	HeaderItem             = "Item"
	HeaderClass            = "Class"
	HeaderIncumbentVerdict = "Incumbent verdict"
	HeaderCandidateVerdict = "Candidate verdict"
	HeaderIncumbentReview  = "Incumbent: reviewer's verdict"
	HeaderCandidateReview  = "Candidate: reviewer's verdict"
	HeaderReviewer         = "Reviewer"
	HeaderNote             = "Note"
	// HeaderIncumbentSample and HeaderCandidateSample are a review
	// queue's columns (tally calibrate queue; not on the Items sheet):
	// how the queue drew the row for each system, SampleCensus,
	// SampleRandom or empty when it was not drawn for that system.
	HeaderIncumbentSample = "Incumbent: sample"
	HeaderCandidateSample = "Candidate: sample"

	// SheetHeaderRow is the row of the Items sheet's headers.
	SheetHeaderRow = 2
)

// The columns of a table, by index into Row.Cells.
const (
	colConversation = iota
	colCompaction
	colItem
	colClass
	colIncumbentVerdict
	colCandidateVerdict
	colIncumbentReview
	colCandidateReview
	colReviewer
	colNote
	colIncumbentSample
	colCandidateSample
	numCols
)

var headers = [numCols]string{HeaderConversation, HeaderCompaction, HeaderItem, HeaderClass,
	HeaderIncumbentVerdict, HeaderCandidateVerdict, HeaderIncumbentReview, HeaderCandidateReview, HeaderReviewer, HeaderNote,
	HeaderIncumbentSample, HeaderCandidateSample}

// neededCols are the columns a table must have.
var neededCols = []int{colConversation, colCompaction, colItem, colClass, colIncumbentReview, colCandidateReview}

// Row is one row of a reviewed table with a reviewer's verdict filled
// for at least one system.
type Row struct {
	// Line is the row's number in the sheet, or the line its CSV record
	// starts on.
	Line int
	// Cells holds the text of each column read (Header… order), "" for
	// an empty cell or a column the table does not have.
	Cells [numCols]string
}

// Table is what a reviewed table holds for Collect: where it is from,
// its columns, and its rows with a reviewer's verdict.
type Table struct {
	// File is the workbook or CSV as named to the reader; Sheet is
	// ItemsSheet for a workbook and "" for a CSV.
	File, Sheet string
	// Systems names the incumbent and the candidate as the workbook's
	// Provenance sheet gives them; "" for a CSV.
	Systems [2]string
	// ConfigSHA256 is the configuration's SHA-256 the workbook's
	// Provenance sheet gives, and ConfigRow its row there; "" and 0 for
	// a CSV or a workbook without one.
	ConfigSHA256 string
	ConfigRow    int
	// Rows are the rows with a reviewer's verdict, in table order.
	Rows []Row
	// Scanned counts the item rows read, reviewed or not.
	Scanned int
	cols    [numCols]int // each column's number from 1, 0 when absent
}

// at names the cell of column c in row line for a problem.
func (t *Table) at(line, c int, format string, args ...any) CellProblem {
	return CellProblem{File: t.File, Sheet: t.Sheet, Row: line, Col: t.cols[c], Field: headers[c], Msg: fmt.Sprintf(format, args...)}
}

// header maps a header row's cells to columns; a needed column missing
// is a problem at the header row.
func (t *Table) header(cells []string, line int) error {
	for i, h := range cells {
		h = strings.TrimSpace(h)
		for c, want := range headers {
			if h == want && t.cols[c] == 0 {
				t.cols[c] = i + 1
			}
		}
	}
	var missing []string
	for _, c := range neededCols {
		if t.cols[c] == 0 {
			missing = append(missing, fmt.Sprintf("%q", headers[c]))
		}
	}
	if len(missing) > 0 {
		return CellProblems{{File: t.File, Sheet: t.Sheet, Row: line, Col: 1,
			Msg: fmt.Sprintf("no column %s in the header row: want the reviewer's columns as tally report writes them", strings.Join(missing, ", "))}}
	}
	return nil
}

// add keeps the item row cells if a reviewer's verdict is filled.
func (t *Table) add(cells []string, line int) {
	t.Scanned++
	var r Row
	r.Line = line
	for c, col := range t.cols {
		if col > 0 && col <= len(cells) {
			r.Cells[c] = cells[col-1]
		}
	}
	if strings.TrimSpace(r.Cells[colIncumbentReview]) == "" && strings.TrimSpace(r.Cells[colCandidateReview]) == "" {
		return
	}
	t.Rows = append(t.Rows, r)
}

// ReadSheet reads the Items sheet of the workbook at path, under lim,
// streaming its rows: the headers on row SheetHeaderRow, and every later
// row with a reviewer's verdict. From the Provenance sheet it reads the
// systems' names and the configuration's SHA-256. A sheet without the
// reviewer's columns is an error naming its header row.
func ReadSheet(path string, lim input.Limits) (*Table, error) {
	in, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %w", err)
	}
	defer in.Close()
	f, err := excelize.OpenReader(in)
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %s: not a workbook tally can read: %w", path, err)
	}
	defer f.Close()
	t := &Table{File: path, Sheet: ItemsSheet}
	if err := t.provenance(f); err != nil {
		return nil, err
	}
	rows, err := f.Rows(ItemsSheet)
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %s: no sheet %q: a report workbook has one (%w)", path, ItemsSheet, err)
	}
	defer rows.Close()
	line := 0
	for rows.Next() {
		line++
		cells, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, fmt.Errorf("reading reviews: %s: %s row %d: %w", path, ItemsSheet, line, err)
		}
		switch {
		case line < SheetHeaderRow:
		case line == SheetHeaderRow:
			if err := t.header(cells, line); err != nil {
				return nil, err
			}
		default:
			t.add(cells, line)
		}
	}
	if err := rows.Error(); err != nil {
		return nil, fmt.Errorf("reading reviews: %s: %s: %w", path, ItemsSheet, err)
	}
	if line < SheetHeaderRow {
		return nil, CellProblems{{File: path, Sheet: ItemsSheet, Row: SheetHeaderRow, Col: 1, Msg: "no header row: want the Items sheet as tally report writes it"}}
	}
	if err := t.formulas(f); err != nil {
		return nil, err
	}
	return t, nil
}

// formulas replaces the text of each reviewed row's Reviewer and Note
// cell that a spreadsheet holds as a formula (a reviewer typed text
// starting with "=") by the formula as typed, "=" and all: a formula is
// kept as text, never its computed value. The rows streamed give only
// values, so this reads the cells of the reviewed rows once more (which
// parses the sheet whole, only when some row is reviewed).
func (t *Table) formulas(f *excelize.File) error {
	for i := range t.Rows {
		r := &t.Rows[i]
		for _, c := range []int{colReviewer, colNote} {
			if t.cols[c] == 0 {
				continue
			}
			ref, err := excelize.CoordinatesToCellName(t.cols[c], r.Line)
			if err != nil {
				return err
			}
			fx, err := f.GetCellFormula(ItemsSheet, ref)
			if err != nil {
				return fmt.Errorf("reading reviews: %s: %s!%s: %w", t.File, ItemsSheet, ref, err)
			}
			if fx != "" {
				r.Cells[c] = "=" + fx
			}
		}
	}
	return nil
}

// provenance reads the systems' names and the configuration's SHA-256
// from the Provenance sheet (Section, Name, Value, SHA-256 columns), when
// the workbook has one.
func (t *Table) provenance(f *excelize.File) error {
	if idx, err := f.GetSheetIndex(ProvenanceSheet); err != nil || idx < 0 {
		return nil
	}
	rows, err := f.Rows(ProvenanceSheet)
	if err != nil {
		return fmt.Errorf("reading reviews: %s: %s: %w", t.File, ProvenanceSheet, err)
	}
	defer rows.Close()
	line := 0
	for rows.Next() {
		line++
		cells, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return fmt.Errorf("reading reviews: %s: %s row %d: %w", t.File, ProvenanceSheet, line, err)
		}
		cell := func(i int) string {
			if i < len(cells) {
				return cells[i]
			}
			return ""
		}
		switch {
		case cell(0) == "report" && cell(1) == "incumbent":
			t.Systems[0] = cell(2)
		case cell(0) == "report" && cell(1) == "candidate":
			t.Systems[1] = cell(2)
		case cell(0) == "input" && cell(1) == "configuration" && t.ConfigRow == 0:
			t.ConfigSHA256, t.ConfigRow = cell(3), line
		}
	}
	return rows.Error()
}

// ReadCSV reads a CSV of the Items sheet's columns (the headers on its
// first line), streaming: every record with a reviewer's verdict.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	t := &Table{File: name}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	first := true
	var header []string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, CellProblems{{File: name, Row: pe.Line, Col: pe.Column, Msg: pe.Err.Error()}}
		}
		if err != nil {
			return nil, fmt.Errorf("reading reviews: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		for i, c := range rec {
			if !utf8.ValidString(c) {
				// A CSV saved the default way by Excel on Windows is in the
				// system's code page (Windows-1252, Shift-JIS): every later
				// message would be about a key that matches nothing.
				l, col := cr.FieldPos(i)
				bad, field := c[badUTF8(c)], ""
				if i < len(header) {
					field = header[i]
				}
				return nil, CellProblems{{File: name, Row: l, Col: col, Field: field, Msg: fmt.Sprintf("byte 0x%02X is not UTF-8: the file was saved in another encoding (Excel's plain \"CSV\" on Windows uses the system's code page); save it as \"CSV UTF-8\"", bad)}}
			}
		}
		if first {
			if len(rec) > 0 && line == 1 {
				rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a spreadsheet's byte-order mark
			}
			if err := t.header(rec, line); err != nil {
				// The Items sheet saved as CSV keeps its first row, the
				// groups over the columns, above the headers
				// (SheetHeaderRow): the headers are on the next line.
				if line == 1 && groupRow(rec) {
					t.cols = [numCols]int{}
					continue
				}
				return nil, err
			}
			first = false
			header = slices.Clone(rec)
			continue
		}
		t.add(unquoteCSV(rec), line)
	}
	if first {
		return nil, CellProblems{{File: name, Row: 1, Col: 1, Msg: "empty: want a header line with the Items sheet's columns"}}
	}
	return t, nil
}

// unquoteCSV removes the ' a CSV export puts before a cell that a
// spreadsheet would take for a formula (= + - @ tab CR NUL), as the
// report's CSV files do.
func unquoteCSV(rec []string) []string {
	for i, s := range rec {
		if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r\x00", rune(s[1])) {
			rec[i] = s[1:]
		}
	}
	return rec
}

// badUTF8 is the index of the first byte of s that is not valid UTF-8
// (len(s) when there is none).
func badUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(s)
}

// groupRow reports whether cells, the first row of a CSV that is no
// header row, is the Items sheet's row of column groups, as the report
// writes it: "Item" first, the two systems' names, "Review" last.
func groupRow(cells []string) bool {
	var filled []string
	for _, c := range cells {
		if c = strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")); c != "" {
			filled = append(filled, c)
		}
	}
	return len(filled) == 4 && filled[0] == GroupItem && filled[3] == GroupReview
}

// GroupItem and GroupReview are the first and last of the Items sheet's
// column groups, on the row above its headers (the two systems' names
// are between them).
const (
	GroupItem   = "Item"
	GroupReview = "Review"
)
