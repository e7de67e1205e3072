// Package markup holds the HTML building blocks the notebook's cells,
// the charts and the page share: a Buffer that writes trusted markup
// as is and escapes anything from the inputs, and the number formats of
// the HTML report (a NaN or an infinity shows as a dash).
package markup

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tally-eval/tally/report/internal/format"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
)

// Title is r's title, or a default.
func Title(r *report.Report) string {
	if strings.TrimSpace(r.Title) == "" {
		return "Compaction change report"
	}
	return r.Title
}

// Buffer accumulates HTML. Raw writes trusted markup (constants, numbers
// formatted here); Text escapes anything that came from input.
type Buffer struct{ bytes.Buffer }

// Raw writes trusted markup as is.
func (h *Buffer) Raw(parts ...string) {
	for _, s := range parts {
		h.WriteString(s)
	}
}

// Rawf writes formatted trusted markup: format's arguments must be
// numbers or markup built here, never input.
func (h *Buffer) Rawf(format string, args ...any) { fmt.Fprintf(h, format, args...) }

// Text writes an untrusted string as escaped text, cut to max runes.
func (h *Buffer) Text(s string, max int) { h.WriteString(Escape(s, max)) }

// Plain writes an untrusted string where no markup may go (a <title>,
// an attribute's value): escaped, its control, bidirectional and
// zero-width characters as plain escape text (\u202E) with no <span>
// around them, cut to max runes with "…".
func (h *Buffer) Plain(s string, max int) {
	var b strings.Builder
	v := strings.ToValidUTF8(s, "\uFFFD")
	cut := format.Cut(v, max)
	for i, r := range v {
		if i == cut {
			b.WriteString("…")
			break
		}
		if r != '\n' && format.Invisible(r) {
			b.WriteString(format.Escape(r))
			continue
		}
		b.WriteRune(r)
	}
	h.WriteString(html.EscapeString(b.String()))
}

// List writes untrusted strings as an escaped <ul>.
func (h *Buffer) List(items []string) {
	h.Raw("<ul>\n")
	for _, s := range items {
		h.Raw("<li>")
		h.Text(s, 2000)
		h.Raw("</li>\n")
	}
	h.Raw("</ul>\n")
}

// Caps on the length of untrusted text shown in the HTML; the XLSX
// workbook carries every string whole.
const (
	CapCell  = 600   // a literal, probe or answer in a table
	CapShort = 200   // an identifier or a name
	CapLong  = 20000 // a configuration file
)

// xlsxCellChars is the most UTF-16 units a workbook cell holds (Excel's
// limit, excelize.TotalCellChars): longer text is cut there.
const xlsxCellChars = 32767

// Escape makes an untrusted string safe and visible as HTML text:
// invalid UTF-8 becomes U+FFFD; control characters other than newline
// (tab, CR, NUL, ESC, DEL, the C1 controls) and the invisible
// bidirectional and zero-width characters (format.Hidden) are shown as
// escapes (\t, \r, \x1B, \u202E)
// marked as such, so a tab- or CR-led string shows that it is and a
// bidi override cannot reorder the text around it; the text is cut to
// max runes with a note; everything else is HTML-escaped.
func Escape(s string, max int) string {
	var b strings.Builder
	v := strings.ToValidUTF8(s, "\uFFFD")
	cut := format.Cut(v, max)
	plain := 0 // start of the run of ordinary text not yet written
	flush := func(end int) { b.WriteString(html.EscapeString(v[plain:end])) }
	for i, r := range v {
		if i == cut {
			flush(i)
			more := utf8.RuneCountInString(v[i:])
			if len(utf16.Encode([]rune(v))) > xlsxCellChars {
				// The workbook cuts it too (a stakeholder's trial found
				// "the full text is in report.xlsx" false at 40,000).
				fmt.Fprintf(&b, " … [%d more characters; report.xlsx holds the first %d, the input it came from the whole]", more, xlsxCellChars)
				return b.String()
			}
			fmt.Fprintf(&b, " … [%d more characters; the full text is in report.xlsx]", more)
			return b.String()
		}
		if r == '\n' || !format.Invisible(r) {
			continue
		}
		esc := format.Escape(r)
		flush(i)
		b.WriteString(`<span class="ctl">`)
		b.WriteString(esc)
		b.WriteString(`</span>`)
		plain = i + utf8.RuneLen(r)
	}
	flush(len(v))
	return b.String()
}

// Number formats. NaN and ±Inf show as a dash: a renderer never turns
// an undefined number into a figure.

func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Pct formats a share as a percentage with one decimal, more near 0
// and 100 (format.Percent).
func Pct(x float64) string {
	if !Finite(x) {
		return "—"
	}
	return format.Percent(x) + "%"
}

// GatePct formats a gate share compactly: 95%, 97.5%.
func GatePct(x float64) string {
	if !Finite(x) {
		return "—"
	}
	return format.Threshold(x) + "%"
}

// Interval formats an interval of shares as percentages, each end as
// Pct does.
func Interval(lo, hi float64) string {
	if !Finite(lo) || !Finite(hi) {
		return "—"
	}
	return format.Percent(lo) + "–" + format.Percent(hi) + "%"
}

// Prob formats a probability or rate with three decimals.
func Prob(x float64) string {
	if !Finite(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// P formats a p-value.
func P(p float64) string {
	switch {
	case !Finite(p):
		return "—"
	case p < 0.0001:
		return "&lt; 0.0001"
	case p < 0.001:
		return strconv.FormatFloat(p, 'f', 4, 64)
	default:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
}

// PIs is format.PIs as HTML: "p = 0.054", "p &lt; 0.0001", "p = —"
// for an undefined p.
func PIs(p float64) string {
	if !Finite(p) {
		return "p = —"
	}
	return html.EscapeString(format.PIs(p))
}

// Points formats a difference of rates in percentage points, signed
// when signed is true.
func Points(x float64, signed bool) string {
	if !Finite(x) {
		return "—"
	}
	s := strconv.FormatFloat(100*x, 'f', 1, 64)
	switch {
	case s == "0.0" || s == "-0.0":
		s = "0.0"
	case signed && x > 0:
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1) + " points"
}

// Num formats a float with up to digits significant digits.
func Num(x float64, digits int) string {
	if !Finite(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', digits, 64)
}

// Int formats an integer with thousands separators.
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteString("−")
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Tokens formats a token count (a float: a mean or a percentile).
func Tokens(x float64) string {
	if !Finite(x) {
		return "—"
	}
	return Int(int(math.Round(x)))
}

// Gate writes a gate status as a badge.
func Gate(g report.GateStatus) string {
	switch g {
	case report.Pass:
		return `<span class="badge pass">pass</span>`
	case report.Fail:
		return `<span class="badge fail">fail</span>`
	case report.Incomplete:
		return `<span class="badge incomplete">incomplete</span>`
	case "":
		return `<span class="badge nogate">no gate</span>`
	}
	return `<span class="badge incomplete">` + Escape(string(g), 40) + `</span>`
}

// ClassChange writes a class row's change in its words (ChangeText).
func ClassChange(row report.ClassRow) string {
	if row.Change == report.Same {
		return `<span class="same">` + Escape(row.ChangeText(), 40) + `</span>`
	}
	return Change(row.Change)
}

// Change writes a row's change.
func Change(c report.Change) string {
	switch c {
	case report.Worse:
		return `<span class="worse">worse</span>`
	case report.Better:
		return `<span class="better">better</span>`
	case report.Same:
		return `<span class="same">same</span>`
	case "":
		return "—"
	}
	return Escape(string(c), 40)
}

// ClassLabel is a class name for people: open_question → open question.
func ClassLabel(c fixture.Class) string {
	b := []byte(c)
	for i := range b {
		if b[i] == '_' {
			b[i] = ' '
		}
	}
	return string(b)
}
