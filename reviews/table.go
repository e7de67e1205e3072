package reviews

import (
	"fmt"
	"strings"
)

// The reviewed table: the Items sheet of a report workbook (as
// report/xlsx writes it: headers on row 2, items from row 3), a CSV with
// the same headers, or a review queue (tally calibrate queue) as a CSV or
// saved as a workbook of one sheet; the header row is found among the
// first rows (maxHeaderRows). These are the headers a reader matches on;
// the table's other columns are not read.
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
	// File is the workbook or CSV as named to the reader; Sheet is the
	// sheet read (ItemsSheet for a report workbook) and "" for a CSV.
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
	// unreviewed are the rows with a Reviewer or Note but no reviewer's
	// verdict, each by its Note cell (its Reviewer cell when the Note is
	// empty).
	unreviewed []cellAt
	// hasProvenance is true for a workbook with a Provenance sheet.
	hasProvenance bool
}

// at names the cell of column c in row line for a problem.
func (t *Table) at(line, c int, format string, args ...any) CellProblem {
	return CellProblem{File: t.File, Sheet: t.Sheet, Row: line, Col: t.cols[c], Field: headers[c], Msg: fmt.Sprintf(format, args...)}
}

// maxHeaderRows is how many rows a reader looks at for the header row.
// A table's header row is the first that names every needed column; the
// rows above it may only be empty or the Items sheet's row of column
// groups (groupRow). The report's Items sheet has its headers on row 2
// (SheetHeaderRow), below the groups; a review queue has them on row 1,
// and keeps them there when a spreadsheet saves it as a workbook; a
// third row allows for an empty row a spreadsheet adds above.
const maxHeaderRows = 3

// headerAt classifies cells, the n-th row of a table (from 1), in the
// search for the header row: the header (it names every needed column:
// cols maps them, each column's number from 1), a row that may stand
// above it (skip: an empty row or the Items sheet's row of column
// groups, within the first maxHeaderRows rows), or neither, when missing
// lists the needed columns the row does not name, quoted.
func headerAt(cells []string, n int) (cols [numCols]int, missing []string, skip bool) {
	for i, h := range cells {
		h = strings.TrimSpace(h)
		for c, want := range headers {
			if h == want && cols[c] == 0 {
				cols[c] = i + 1
			}
		}
	}
	for _, c := range neededCols {
		if cols[c] == 0 {
			missing = append(missing, fmt.Sprintf("%q", headers[c]))
		}
	}
	if len(missing) > 0 && n < maxHeaderRows && (blankRow(cells) || groupRow(cells)) {
		return cols, missing, true
	}
	return cols, missing, false
}

// noHeader is the problem of a table whose row line is neither its header
// row nor a row that may stand above it: the needed columns it lacks,
// with how the row was read (how, "" for a sheet).
func (t *Table) noHeader(line int, missing []string, how string) CellProblems {
	msg := fmt.Sprintf("no column %s in the header row", strings.Join(missing, ", "))
	if how != "" {
		msg += " " + how
	}
	return CellProblems{{File: t.File, Sheet: t.Sheet, Row: line, Col: 1,
		Msg: msg + ": want the reviewer's columns as tally report writes them"}}
}

// blankRow reports whether every cell of a row is empty or spaces.
func blankRow(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// add keeps the item row cells if a reviewer's verdict is filled; a row
// with a Reviewer or Note but no reviewer's verdict is noted in
// t.unreviewed.
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
		for _, c := range []int{colNote, colReviewer} {
			if strings.TrimSpace(r.Cells[c]) != "" {
				t.unreviewed = append(t.unreviewed, cellAt{line: line, col: c})
				break
			}
		}
		return
	}
	t.Rows = append(t.Rows, r)
}

// cellAt is a cell of a table: its row's line and its column (col…).
type cellAt struct{ line, col int }

// groupRow reports whether cells, a row above a table's header row, is
// the Items sheet's row of column groups, as the report writes it:
// "Item" first, the two systems' names, "Review" last.
func groupRow(cells []string) bool {
	var filled []string
	for _, c := range cells {
		if c = strings.TrimSpace(c); c != "" {
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
