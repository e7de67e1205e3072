package reviews

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// CellProblem is one thing wrong with a cell of a reviewed table.
// Error gives "FILE: SHEET!CELL: FIELD: MSG" for a workbook, as in
//
//	report.xlsx: Items!R14: Candidate: reviewer's verdict: "supportd" is not supported, absent, contradicted or unsure
//
// and "FILE:LINE:COL: FIELD: MSG" for a CSV; "FIELD: " is left out when
// Field is empty.
type CellProblem struct {
	File  string
	Sheet string // "" for a CSV
	Row   int    // from 1
	Col   int    // from 1; 0 for the whole row
	Field string // the column's header
	Msg   string
}

// Error formats p.
func (p CellProblem) Error() string {
	var b strings.Builder
	b.WriteString(p.Where())
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Where names p's cell (or row) without the message: "FILE: SHEET!CELL"
// or "FILE: SHEET row N" for a workbook, "FILE:LINE:COL" or "FILE:LINE"
// for a CSV.
func (p CellProblem) Where() string {
	switch {
	case p.Sheet != "" && p.Col > 0:
		cell, _ := excelize.CoordinatesToCellName(p.Col, p.Row)
		return fmt.Sprintf("%s: %s!%s", p.File, p.Sheet, cell)
	case p.Sheet != "":
		return fmt.Sprintf("%s: %s row %d", p.File, p.Sheet, p.Row)
	case p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Row, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Row)
}

// CellProblems is every problem found in a reviewed table, in row order.
// As an error it lists them one per line; errors.As finds each one.
type CellProblems []CellProblem

// Error lists the problems one per line.
func (ps CellProblems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each problem as an error.
func (ps CellProblems) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}
