package reviews

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// separators are the field separators ReadCSV tries, in this order:
// RFC 4180's comma; the semicolon, which Excel writes when the list
// separator of the system's regional settings is one (German, French and
// most locales with a decimal comma: Excel's "CSV" and "CSV UTF-8" save
// with the list separator) and LibreOffice Calc offers as a field
// delimiter; and the tab of Excel's "Text (Tab delimited)" and "Unicode
// Text".
var separators = []rune{',', ';', '\t'}

// headerPeek bounds the bytes ReadCSV reads ahead to find the separator:
// the header row, and the rows above it, must begin within them.
const headerPeek = 64 << 10

// ReadCSV reads a CSV of the Items sheet's columns or a review queue,
// streaming: every record with a reviewer's verdict. A UTF-8 byte order
// mark at the start is skipped (Excel's "CSV UTF-8" and PowerShell's
// Export-Csv -Encoding UTF8 write one). The header row is the first that
// names the reviewer's columns: the first line, or a later one of the
// first maxHeaderRows below empty lines or the Items sheet's row of
// column groups. The separator is the first of separators under which
// that row names them; when none does, the problem names the separators
// tried. A field that is not UTF-8 is a problem naming the encoding.
//
// A CSV holds what each cell showed, not what was typed: a Reviewer or
// Note cell that a spreadsheet took for a formula comes back as the
// formula's value (=SUM(1,2) as 3, which cannot be told from text), or
// as an error value (#NAME?, Err:509), which Collect refuses.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	t := &Table{File: name}
	br := bufio.NewReaderSize(r, headerPeek)
	if b, _ := br.Peek(len(jsonscan.BOM)); string(b) == jsonscan.BOM {
		_, _ = br.Discard(len(jsonscan.BOM))
	}
	head, err := br.Peek(headerPeek)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading reviews: %s: %w", name, err)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, CellProblems{{File: name, Row: 1, Col: 1, Msg: "empty: want a header line with the Items sheet's columns"}}
	}
	sep, headerLine, cols, err := t.separator(head)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
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
		switch {
		case line < headerLine:
		case line == headerLine:
			t.cols, header = cols, slices.Clone(rec)
		default:
			t.add(unquoteCSV(rec), line)
		}
	}
	if header == nil {
		return nil, CellProblems{{File: name, Row: headerLine, Col: 1, Msg: "no header row: want the reviewer's columns as tally report writes them"}}
	}
	return t, nil
}

// separator finds the separator of a CSV whose first bytes are head: the
// first of separators under which one of the first rows is the header
// row (headerAt). It returns the separator, the header row's line and
// its columns, or the problem: the row read as the header under the
// separator that found most of the needed columns there, naming the
// separators tried, or the CSV syntax error when no separator gave a
// row at all.
func (t *Table) separator(head []byte) (sep rune, line int, cols [numCols]int, err error) {
	tried, hinted := separators, false
	if hint := sepHint(head); hint != "" {
		// Excel's "sep=;" line names the separator, and Excel does not
		// show it as a row: it is read the same way here.
		r, _ := utf8.DecodeRuneInString(hint[len("sep="):])
		if !slices.Contains(separators, r) || utf8.RuneCountInString(hint) != len("sep=")+1 {
			return 0, 0, cols, CellProblems{{File: t.File, Row: 1, Col: 1, Msg: fmt.Sprintf("%q names a separator tally does not read: save the file with %s between the columns", hint, separatorNames("or"))}}
		}
		tried, hinted = []rune{r}, true
	}
	var (
		best     []string // the fewest needed columns missing from a row read as the header
		bestLine int
		bestSep  rune
		syntax   *csv.ParseError // the first separator's syntax error
	)
	if replayQueue(head) {
		return 0, 0, cols, CellProblems{{File: t.File, Row: 1, Col: 1, Msg: "this is the replay queue `tally report` writes (DIR/queue.csv: the discordant task-success conversations), not a review queue: its reviewer columns are the reviewers' own, and tally does not read them back; calibrate reads the queue `tally calibrate queue` writes, or the report workbook's Items sheet"}}
	}
	for _, s := range tried {
		cr := csv.NewReader(bytes.NewReader(head))
		cr.Comma = s
		cr.FieldsPerRecord = -1
		if hinted {
			_, _ = cr.Read() // the sep= line
		}
		for n := 1; n <= maxHeaderRows; n++ {
			rec, err := cr.Read()
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) && syntax == nil {
					syntax = pe
				}
				break
			}
			l, _ := cr.FieldPos(0)
			c, missing, skip := headerAt(rec, n)
			if len(missing) == 0 {
				return s, l, c, nil
			}
			if !skip {
				if best == nil || len(missing) < len(best) {
					best, bestLine, bestSep = missing, l, s
				}
				break
			}
		}
	}
	switch {
	case hinted && best != nil:
		return 0, 0, cols, t.noHeader(bestLine, best, fmt.Sprintf("(read with %s between the columns, as the sep= line on line 1 says)", separatorName(bestSep)))
	case best != nil && len(best) < len(neededCols):
		return 0, 0, cols, t.noHeader(bestLine, best, fmt.Sprintf("(read with %s between the columns; tried %s)", separatorName(bestSep), separatorNames("and")))
	case best == nil && syntax != nil:
		return 0, 0, cols, CellProblems{{File: t.File, Row: syntax.Line, Col: syntax.Column, Msg: fmt.Sprintf("%v, reading the header row with %s between the columns (tried %s)", syntax.Err, separatorName(','), separatorNames("and"))}}
	case best == nil:
		return 0, 0, cols, CellProblems{{File: t.File, Row: 1, Col: 1, Msg: "no header row: want the reviewer's columns as tally report writes them"}}
	}
	return 0, 0, cols, t.noHeader(bestLine, best, fmt.Sprintf("(with %s between the columns)", separatorNames("or")))
}

// replayQueue reports whether head starts with the header of the replay
// queue tally report writes (report.QueueHeader), which two files named
// queue.csv made a new user's trial feed to calibrate.
func replayQueue(head []byte) bool {
	first, _, _ := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimPrefix(bytes.TrimSuffix(first, []byte("\r")), []byte(jsonscan.BOM))
	return bytes.HasPrefix(first, []byte("conversation_id,change,reference,candidate,")) && bytes.Contains(first, []byte("caused_by_compaction"))
}

// sepHint returns the first line of head when it is a "sep=X" line (a
// hint to Excel, naming the separator; Excel reads it and does not show
// it as a row, though Microsoft does not document it), else "".
func sepHint(head []byte) string {
	first, _, _ := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimSuffix(first, []byte("\r"))
	if len(first) >= 4 && len(first) <= 8 && strings.EqualFold(string(first[:4]), "sep=") && utf8.RuneCount(first) <= 5 {
		return string(first)
	}
	return ""
}

// separatorName names a separator in messages.
func separatorName(r rune) string {
	if r == '\t' {
		return "tab"
	}
	return fmt.Sprintf("%q", string(r))
}

// separatorNames lists separators in words, joined by conj: `",", ";"
// or tab`.
func separatorNames(conj string) string {
	names := make([]string, len(separators))
	for i, r := range separators {
		names[i] = separatorName(r)
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
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

// excelErrors are the error values Excel shows in a cell whose formula
// fails, as a CSV export writes them: ERROR.TYPE's documentation lists
// #NULL! to #GETTING_DATA; the others are the error types of Excel's
// JavaScript API (Excel.ErrorCellValueType). LibreOffice Calc shows the
// same names for the same errors, and "Err:" with a code for the rest
// (its help page "Error Codes in LibreOffice Calc": Err:501 to Err:539).
var excelErrors = []string{"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
	"#SPILL!", "#CALC!", "#BLOCKED!", "#BUSY!", "#CONNECT!", "#EXTERNAL!", "#FIELD!", "#PYTHON!", "#UNKNOWN!"}

// localErrors are the error values of Excel and Calc in other languages
// than English, as their localized function references list them:
// German, French, Spanish, Italian, Portuguese, Dutch, Polish, Turkish,
// Swedish, Finnish, Russian, Hungarian, Czech, Danish and Norwegian. A
// German reviewer's Excel writes #WERT! where an English one writes
// #VALUE! (a re-check trial found it recorded as a note). They are listed
// rather than matched by shape: "#TODO!" or "#WICHTIG!" is a reviewer's
// note (a second re-check trial).
var localErrors = []string{
	"#WERT!", "#BEZUG!", "#ZAHL!", "#NV", "#ÜBERLAUF!", "#KALK!", // German
	"#NUL!", "#VALEUR!", "#NOM?", "#NOMBRE!", "#PROPAGATION!", // French
	"#¡NULO!", "#¡DIV/0!", "#¡VALOR!", "#¡REF!", "#¿NOMBRE?", "#¡NUM!", "#¡DESBORDAMIENTO!", "#¡CALC!", // Spanish
	"#NULLO!", "#VALORE!", "#RIF!", "#NOME?", "#N/D", "#ESPANSIONE!", // Italian
	"#NULO!", "#VALOR!", "#NÚM!", "#DESPEJAR!", // Portuguese
	"#LEEG!", "#DEEL/0!", "#WAARDE!", "#VERW!", "#NAAM?", "#GETAL!", "#N/B", "#OVERLOOP!", "#BEREKENEN!", // Dutch
	"#ZERO!", "#DZIEL/0!", "#ARG!", "#ADR!", "#NAZWA?", "#LICZBA!", "#N/D!", "#ROZLANIE!", "#OBLICZ!", // Polish
	"#BOŞ!", "#SAYI/0!", "#DEĞER!", "#BAŞV!", "#AD?", "#SAYI!", "#YOK", // Turkish
	"#SKÄRNING!", "#DIVISION/0!", "#VÄRDEFEL!", "#REFERENS!", "#NAMN?", "#OGILTIGT!", "#SAKNAS!", // Swedish
	"#TYHJÄ!", "#JAKO/0!", "#ARVO!", "#VIITTAUS!", "#NIMI?", "#LUKU!", "#PUUTTUU", // Finnish
	"#ПУСТО!", "#ДЕЛ/0!", "#ЗНАЧ!", "#ССЫЛКА!", "#ИМЯ?", "#ЧИСЛО!", "#Н/Д", // Russian
	"#NULLA!", "#ZÉRÓOSZTÓ!", "#ÉRTÉK!", "#HIV!", "#NÉV?", "#SZÁM!", "#HIÁNYZIK", // Hungarian
	"#DĚLENÍ_NULOU!", "#HODNOTA!", "#ODKAZ!", "#NÁZEV?", "#ČÍSLO!", "#NENÍ_K_DISPOZICI", // Czech
	"#VÆRDI!", "#REFERENCE!", "#NAVN?", "#I/T", "#VERDI!", // Danish, Norwegian
}

// spreadsheetError reports whether s, spaces aside, is exactly a
// spreadsheet's error value: one of excelErrors or localErrors, or
// LibreOffice Calc's "Err:" and three digits.
func spreadsheetError(s string) bool {
	s = strings.TrimSpace(s)
	if slices.Contains(excelErrors, s) || slices.Contains(localErrors, s) {
		return true
	}
	code, ok := strings.CutPrefix(s, "Err:")
	if !ok || len(code) != 3 {
		return false
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
