package reviews

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
)

// ItemKey identifies one item at one compaction of one conversation.
type ItemKey struct {
	ConversationID string
	Compaction     int
	ItemID         string
}

// Known is what a report knows of one item-compaction: its class in the
// fixtures, its fingerprint, and each system's judge verdict (incumbent,
// candidate; "" when the system has no record of it).
type Known struct {
	Class fixture.Class
	Item  string
	Judge [2]fixture.Verdict
}

// Check is the report a reviewed table is checked against.
type Check struct {
	// Name names the report's configuration in messages.
	Name string
	// Systems names the incumbent and the candidate, as the verdict
	// records do.
	Systems [2]string
	// ConfigSHA256 is the SHA-256 of the report's configuration: a
	// workbook whose Provenance sheet gives another is from another
	// report. "" checks nothing.
	ConfigSHA256 string
	// Items are the report's item-compactions.
	Items map[ItemKey]Known
}

// Collected is what Collect read from a table.
type Collected struct {
	// Reviews holds one review per reviewed item-compaction and system,
	// in table order (incumbent before candidate on a row).
	Reviews []Review
	// Unsure holds the item-compactions and systems a reviewer marked
	// unsure, as reviews with an empty Verdict: counted, not recorded.
	Unsure []Review
	// Systems names the incumbent and the candidate.
	Systems [2]string
	// Rows counts the rows with a reviewer's verdict; Scanned all item
	// rows read.
	Rows, Scanned int
	// NoVerdict are the rows with a Reviewer or Note but no reviewer's
	// verdict, each named by its Note cell (its Reviewer cell when the
	// Note is empty): nothing of them is recorded.
	NoVerdict Unrecorded
	// UnsureNotes are the rows whose reviewer's verdicts are all unsure
	// and whose Note is filled, each named by its Note cell: unsure is
	// counted, not recorded, and so is not the note.
	UnsureNotes Unrecorded
}

// MaxUnrecordedListed is how many rows an Unrecorded names; the rest are
// counted.
const MaxUnrecordedListed = 5

// Unrecorded counts rows of a reviewed table whose text Collect does not
// record, and names the first MaxUnrecordedListed by their cell, as
// CellProblem.Where does ("FILE:LINE:COL" for a CSV, "FILE: SHEET!CELL"
// for a workbook).
type Unrecorded struct {
	Rows int
	At   []string
}

// add counts the cell of column c in row line of t.
func (u *Unrecorded) add(t *Table, line, c int) {
	u.Rows++
	if len(u.At) < MaxUnrecordedListed {
		u.At = append(u.At, t.at(line, c, "").Where())
	}
}

// Collect turns the rows of t into reviews. Each row must name an
// item-compaction (a conversation, a whole compaction from 1, an item,
// a class) and each filled reviewer's-verdict cell must be supported,
// absent, contradicted or unsure (case and surrounding spaces aside).
// With chk, every reviewed row must match one of the report's
// item-compactions, its class and the judge verdicts it shows must be
// the report's, and a workbook's configuration SHA-256 must be the
// report's; the systems' names and fingerprints come from chk. Without
// chk, a workbook's Provenance sheet names the systems (a CSV cannot be
// read without chk) and the judge verdicts are the table's. A review
// queue's sample columns, when the table has them, give each system's
// Review.Sample (census or random; an empty cell gives "").
//
// Every problem is returned, as CellProblems naming the sheet, row and
// column (up to 100, and a count of the rest), and then no review.
// Reviewer and Note are kept as the cells hold them: text, never
// evaluated. In a CSV, a Reviewer, Note or reviewer's-verdict cell that
// is exactly a spreadsheet's error value (#NAME?, #VALUE!, LibreOffice's
// Err:510 …) is a problem: the spreadsheet took what was typed for a
// formula, and a CSV keeps only the value it showed. A workbook keeps
// the formula, which ReadSheet reads.
//
// Nothing is dropped unsaid: the rows with a Reviewer or Note but no
// reviewer's verdict, and the unsure rows whose Note is not recorded,
// are counted in NoVerdict and UnsureNotes.
func Collect(t *Table, chk *Check) (*Collected, error) {
	var probs problemList
	systems := t.Systems
	if chk != nil {
		systems = chk.Systems
		if chk.ConfigSHA256 != "" && t.fromReport() {
			switch {
			case t.ConfigRow == 0:
				probs.add(CellProblem{File: t.File, Sheet: ProvenanceSheet, Row: 1, Msg: fmt.Sprintf("the workbook names no configuration: cannot tell whether it is from the report of %s", chk.Name)})
			case !strings.EqualFold(strings.TrimSpace(t.ConfigSHA256), chk.ConfigSHA256):
				probs.add(CellProblem{File: t.File, Sheet: ProvenanceSheet, Row: t.ConfigRow, Col: 4, Field: "SHA-256",
					Msg: fmt.Sprintf(`the workbook's configuration has SHA-256 %s, %s has %s: the workbook is from another report, or %s was edited since tally report wrote it (adding reviews: does that): run tally report again and review its workbook`, preview(t.ConfigSHA256), chk.Name, chk.ConfigSHA256, chk.Name)})
			}
		}
	}
	for i, s := range systems {
		if s == "" {
			what := "the workbook's Provenance sheet names no " + [2]string{"incumbent", "candidate"}[i]
			switch {
			case t.Sheet == "":
				what = "a CSV does not name the systems"
			case !t.fromReport():
				what = "a review queue does not name the systems"
			}
			return nil, fmt.Errorf("reading reviews: %s: %s: give the report's configuration (--config) to name them", t.File, what)
		}
	}
	out := &Collected{Systems: systems, Scanned: t.Scanned, Rows: len(t.Rows)}
	for _, c := range t.unreviewed {
		out.NoVerdict.add(t, c.line, c.col)
	}
	first := map[ItemKey]int{}
	for ri := range t.Rows {
		row := &t.Rows[ri]
		n := len(probs.list)
		recorded, unsure := false, false
		key, class, ok := t.rowKey(row, &probs)
		var known Known
		if ok && chk != nil {
			known, ok = t.match(row, key, class, chk, &probs)
		}
		if ok {
			if at, dup := first[key]; dup {
				probs.add(t.at(row.Line, colConversation, "a second row for conversation %q compaction %d item %q (first at %s %d): review each item-compaction on one row", preview(key.ConversationID), key.Compaction, preview(key.ItemID), t.unit(), at))
				ok = false
			} else {
				first[key] = row.Line
			}
		}
		var sample [2]string
		for s := range sample {
			sample[s] = t.sample(row, s, &probs)
		}
		for s := range 2 {
			col := colIncumbentReview + s
			word := strings.ToLower(strings.TrimSpace(row.Cells[col]))
			if word == "" {
				continue
			}
			if t.Sheet == "" && spreadsheetError(row.Cells[col]) {
				probs.add(t.errorValue(row, col))
				continue
			}
			if word != Unsure && !ValidVerdict(fixture.Verdict(word)) {
				probs.add(t.at(row.Line, col, "%q is not %s", preview(row.Cells[col]), list(Words)))
				continue
			}
			if !ok {
				continue // the key is at fault: the judge's verdict cannot be checked
			}
			judge, jok := t.judgeVerdict(row, s, known, chk != nil, &probs)
			if !jok || len(probs.list) > n {
				continue
			}
			// The queue's census is of contradictions; its random draws
			// are of the judge's other verdicts. A mark that disagrees
			// with the judge's verdict was edited, and would put the
			// review in the wrong stratum's design.
			if judge != "" && (sample[s] == SampleCensus) != (judge == fixture.Contradicted) && sample[s] != "" {
				probs.add(t.at(row.Line, colIncumbentSample+s, "%q does not fit the judge's verdict %s: a review queue draws the contradictions as its census and the other verdicts at random (was the cell edited?)", sample[s], judge))
				continue
			}
			rv := Review{ConversationID: key.ConversationID, Compaction: key.Compaction, ItemID: key.ItemID, Class: class,
				System: systems[s], Item: known.Item, JudgeVerdict: judge, Reviewer: row.Cells[colReviewer], Note: row.Cells[colNote], Source: t.File, Sample: sample[s]}
			if word == Unsure {
				out.Unsure = append(out.Unsure, rv)
				unsure = true
				continue
			}
			rv.Verdict = fixture.Verdict(word)
			if err := rv.Validate(); err != nil {
				probs.add(t.at(row.Line, colNote, "%v", err))
				continue
			}
			out.Reviews = append(out.Reviews, rv)
			recorded = true
		}
		if t.Sheet == "" {
			for _, c := range []int{colReviewer, colNote} {
				if spreadsheetError(row.Cells[c]) {
					probs.add(t.errorValue(row, c))
				}
			}
		}
		if unsure && !recorded && strings.TrimSpace(row.Cells[colNote]) != "" {
			out.UnsureNotes.add(t, row.Line, colNote)
		}
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// errorValue is the problem of a CSV cell of row, in column c, that
// holds a spreadsheet's error value.
func (t *Table) errorValue(row *Row, c int) CellProblem {
	return t.at(row.Line, c, "%q is a spreadsheet's error value, not text a reviewer typed: the spreadsheet took the cell for a formula (text starting with =, +, - or @), and a CSV keeps only the value a formula showed; "+
		"type the text behind an apostrophe ('=…) and save again, or read the workbook (.xlsx) instead, which keeps a formula as typed", strings.TrimSpace(row.Cells[c]))
}

// rowKey reads a row's key cells, adding a problem for each bad one.
func (t *Table) rowKey(row *Row, probs *problemList) (ItemKey, fixture.Class, bool) {
	c := row.Cells
	ok := true
	for _, col := range []int{colConversation, colItem} {
		if strings.TrimSpace(c[col]) == "" {
			probs.add(t.at(row.Line, col, "empty: a reviewed row must name its item-compaction"))
			ok = false
		}
	}
	comp, err := strconv.Atoi(strings.TrimSpace(c[colCompaction]))
	if err != nil || comp < 1 {
		probs.add(t.at(row.Line, colCompaction, "%q is not a compaction (a whole number from 1)", preview(c[colCompaction])))
		ok = false
	}
	class := fixture.Class(strings.TrimSpace(c[colClass]))
	if !class.Valid() {
		probs.add(t.at(row.Line, colClass, "%q is not a class (want %s)", preview(c[colClass]), list(classNames())))
		ok = false
	}
	return ItemKey{ConversationID: c[colConversation], Compaction: comp, ItemID: c[colItem]}, class, ok
}

// match finds the row's item-compaction in the report, adding a problem
// naming the key cell that matches nothing, or the class cell that is
// not the item's.
func (t *Table) match(row *Row, key ItemKey, class fixture.Class, chk *Check, probs *problemList) (Known, bool) {
	if k, ok := chk.Items[key]; ok {
		if k.Class != class {
			probs.add(t.at(row.Line, colClass, "%q was edited: item %q of conversation %q is of class %s in %s's fixtures", preview(string(class)), preview(key.ItemID), preview(key.ConversationID), k.Class, chk.Name))
			return k, false
		}
		return k, true
	}
	// Name the first key cell that matches nothing.
	var conv, comp bool
	for k := range chk.Items {
		if k.ConversationID == key.ConversationID {
			conv = true
			if k.Compaction == key.Compaction {
				comp = true
				break
			}
		}
	}
	switch {
	case !conv:
		probs.add(t.at(row.Line, colConversation, "%q is no conversation of %s: the row matches no item-compaction (was the key cell edited?)", preview(key.ConversationID), chk.Name))
	case !comp:
		probs.add(t.at(row.Line, colCompaction, "conversation %q has no compaction %d in %s: the row matches no item-compaction (was the key cell edited?)", preview(key.ConversationID), key.Compaction, chk.Name))
	default:
		probs.add(t.at(row.Line, colItem, "%q is no item of conversation %q compaction %d in %s: the row matches no item-compaction (was the key cell edited?)", preview(key.ItemID), preview(key.ConversationID), key.Compaction, chk.Name))
	}
	return Known{}, false
}

// sample reads system s's cell of a review queue's sample columns
// (HeaderIncumbentSample, HeaderCandidateSample): SampleCensus,
// SampleRandom (case and surrounding spaces aside), or "" when the cell
// is empty or the table has no such column (the Items sheet). Any other
// value is a problem, and "".
func (t *Table) sample(row *Row, s int, probs *problemList) string {
	col := colIncumbentSample + s
	cell := strings.ToLower(strings.TrimSpace(row.Cells[col]))
	switch cell {
	case "", SampleCensus, SampleRandom:
		return cell
	}
	probs.add(t.at(row.Line, col, "%q is not how a review queue draws (want %s or %s, or leave it empty)", preview(row.Cells[col]), SampleCensus, SampleRandom))
	return ""
}

// unit is what the table's rows are called in messages.
func (t *Table) unit() string {
	if t.Sheet == "" {
		return "line"
	}
	return "row"
}

// notChecked is the Items sheet's text for a system with no verdict
// record of an item-compaction.
const notChecked = "not checked"

// judgeVerdict returns system s's judge verdict for the row: the
// report's with a check (the table's cell, when it has the column, must
// show it), the table's cell otherwise.
func (t *Table) judgeVerdict(row *Row, s int, known Known, checked bool, probs *problemList) (fixture.Verdict, bool) {
	col := colIncumbentVerdict + s
	cell := strings.TrimSpace(row.Cells[col])
	if t.cols[col] == 0 {
		return known.Judge[s], true
	}
	shown := fixture.Verdict(cell)
	if cell == notChecked {
		shown = ""
	}
	if checked {
		if shown != known.Judge[s] {
			want := string(known.Judge[s])
			if want == "" {
				want = notChecked
			}
			probs.add(t.at(row.Line, col, "%q was edited: the report's judge verdict is %q", preview(cell), want))
			return "", false
		}
		return known.Judge[s], true
	}
	if shown != "" && !shown.Valid() {
		probs.add(t.at(row.Line, col, "%q is not a judge's verdict (want %s or %q)", preview(cell), list(verdictNames(fixture.Verdicts)), notChecked))
		return "", false
	}
	return shown, true
}

// problemList keeps the first fixture.MaxListed problems and counts the
// rest.
type problemList struct {
	list CellProblems
	more int
}

func (l *problemList) add(p CellProblem) {
	if len(l.list) < fixture.MaxListed {
		l.list = append(l.list, p)
	} else {
		l.more++
	}
}

func (l *problemList) err() error {
	if len(l.list) == 0 {
		return nil
	}
	if l.more > 0 {
		last := l.list[len(l.list)-1]
		return append(l.list, CellProblem{File: last.File, Sheet: last.Sheet, Row: last.Row, Msg: fmt.Sprintf("… and %d more problems", l.more)})
	}
	return l.list
}
