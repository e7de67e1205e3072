package reviews

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/internal/input"
)

// ReadSheet reads the reviewed sheet of the workbook at path, under lim,
// streaming its rows: the Items sheet of a report workbook, or the one
// sheet of a workbook that has no Items sheet (a review queue a
// spreadsheet saved as .xlsx). The header row is the first of the first
// rows that names the reviewer's columns (row SheetHeaderRow of the Items
// sheet, below its column groups; row 1 of a saved queue), and every
// later row with a reviewer's verdict is kept. From the Provenance sheet,
// when there is one, it reads the systems' names and the configuration's
// SHA-256. A sheet without the reviewer's columns is an error naming the
// row that should have been its header row.
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
	sheet, err := reviewSheet(f, path)
	if err != nil {
		return nil, err
	}
	t := &Table{File: path, Sheet: sheet}
	if err := t.provenance(f); err != nil {
		return nil, err
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %s: sheet %q: %w", path, sheet, err)
	}
	defer rows.Close()
	line, header := 0, false
	for rows.Next() {
		line++
		cells, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, fmt.Errorf("reading reviews: %s: %s row %d: %w", path, sheet, line, err)
		}
		if header {
			t.add(cells, line)
			continue
		}
		cols, missing, skip := headerAt(cells, line)
		switch {
		case len(missing) == 0:
			t.cols, header = cols, true
		case !skip:
			return nil, t.noHeader(line, missing, "")
		}
	}
	if err := rows.Error(); err != nil {
		return nil, fmt.Errorf("reading reviews: %s: %s: %w", path, sheet, err)
	}
	if !header {
		return nil, CellProblems{{File: path, Sheet: sheet, Row: max(line, 1), Col: 1, Msg: "no header row: want the reviewer's columns as tally report writes them"}}
	}
	if err := t.formulas(f); err != nil {
		return nil, err
	}
	return t, nil
}

// reviewSheet names the sheet of f to read: the Items sheet, or the only
// sheet of a workbook without one. Any other workbook is an error naming
// its sheets.
func reviewSheet(f *excelize.File, path string) (string, error) {
	names := f.GetSheetList()
	for _, n := range names {
		if strings.EqualFold(n, ItemsSheet) {
			return n, nil
		}
	}
	if len(names) == 1 {
		return names[0], nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", preview(n))
	}
	return "", fmt.Errorf("reading reviews: %s: no sheet %q among its %d sheets (%s): want a report workbook, whose Items sheet has the reviewer's columns, or a workbook of one sheet (a review queue saved as .xlsx)",
		path, ItemsSheet, len(names), strings.Join(quoted, ", "))
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
			fx, err := f.GetCellFormula(t.Sheet, ref)
			if err != nil {
				return fmt.Errorf("reading reviews: %s: %s!%s: %w", t.File, t.Sheet, ref, err)
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
	t.hasProvenance = true
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

// fromReport reports whether t is a report's sheet, whose workbook must
// name the report's configuration: a workbook with a Provenance sheet,
// or without one a table that is not a review queue (no sample columns;
// its Provenance sheet was deleted). A CSV, and a review queue saved as
// a workbook, name no report.
func (t *Table) fromReport() bool {
	return t.Sheet != "" && (t.hasProvenance || t.cols[colIncumbentSample] == 0 && t.cols[colCandidateSample] == 0)
}
