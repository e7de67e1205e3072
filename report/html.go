package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// ContentSecurityPolicy is the policy the HTML report declares in a
// <meta> element: nothing may load or run (no script, no request, no
// font, no frame, no form); only the page's own <style> and data: images
// are allowed.
const ContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// RenderHTML writes r as one self-contained HTML page: the notebook nb
// (DefaultNotebook when nil) with each computed cell in place, inline CSS
// for screen and print, inline SVG charts, no script and no external
// reference, and a Content-Security-Policy that forbids both. Every
// string from the report's inputs is escaped. The same report and
// notebook give the same bytes.
//
// Nothing is written when a cell fails; the error names the notebook's
// line, as NAME:LINE: what is wrong.
func RenderHTML(w io.Writer, r *Report, nb *Notebook) error {
	if r == nil {
		return errors.New("report: RenderHTML: nil report")
	}
	if nb == nil {
		nb = DefaultNotebook()
	}
	doc := notebookMarkdown.Parser().Parse(text.NewReader(nb.src))
	var blocks []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fb, ok := nbIsTallyBlock(n, nb.src); entering && ok {
			blocks = append(blocks, fb)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(blocks) != len(nb.cells) {
		return fmt.Errorf("report: notebook %s: %d tally blocks, %d cells: the notebook was not made by ParseNotebook", nb.name, len(blocks), len(nb.cells))
	}
	cx := newNbCellCtx(r)
	for i, fb := range blocks {
		c := nb.cells[i]
		cx.out = &hbuf{}
		cx.warnings = nil
		if err := c.run(cx); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", nb.name, c.Line, c.Name, err)
		}
		cx.writeWarnings()
		node := &nbCellNode{html: cx.out.Bytes()}
		fb.Parent().ReplaceChild(fb.Parent(), fb, node)
	}

	var body bytes.Buffer
	if err := notebookMarkdown.Renderer().Render(&body, nb.src, doc); err != nil {
		return fmt.Errorf("report: rendering notebook %s: %w", nb.name, err)
	}

	var p hbuf
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.raw(`<meta http-equiv="Content-Security-Policy" content="`, ContentSecurityPolicy, "\">\n")
	p.raw("<meta name=\"referrer\" content=\"no-referrer\">\n")
	p.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.raw("<meta name=\"generator\" content=\"tally")
	if r.Provenance.Version != "" {
		p.raw(" ")
		p.text(r.Provenance.Version, 80)
	}
	p.raw("\">\n<link rel=\"icon\" href=\"data:,\">\n<title>")
	p.text(nbReportTitle(r), 200)
	if r.Period != "" {
		p.raw(" — ")
		p.text(r.Period, 200)
	}
	p.raw("</title>\n<style>\n", htmlPageCSS, "</style>\n</head>\n<body>\n<main>\n")
	if len(r.Warnings) > 0 {
		p.raw("<aside class=\"warnings report-warnings\">\n<p><strong>Warnings</strong></p>\n")
		p.list(r.Warnings)
		p.raw("</aside>\n")
	}
	p.raw(body.String())
	p.raw("</main>\n</body>\n</html>\n")
	_, err := w.Write(p.Bytes())
	return err
}

// nbReportTitle is r's title, or a default.
func nbReportTitle(r *Report) string {
	if strings.TrimSpace(r.Title) == "" {
		return "Compaction change report"
	}
	return r.Title
}

// htmlPageCSS styles the page on screen and in print. It holds no input.
const htmlPageCSS = `:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:#1b1b1b;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:64rem;margin:0 auto;padding:2rem 1.5rem 4rem}
h1{font-size:2rem;line-height:1.2;margin:0 0 .4rem}
h2{font-size:1.4rem;margin:2.5rem 0 .75rem;padding-bottom:.25rem;border-bottom:1px solid #d0d4da}
h3{font-size:1.1rem;margin:1.5rem 0 .5rem}
p,ul,ol{margin:.6rem 0}
a{color:#0b57d0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f6f8;border:1px solid #e1e4e8;padding:.75rem;font-size:.85rem}
blockquote{margin:1rem 0;padding:.1rem 1rem;border-left:4px solid #d0d4da;color:#333}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.75rem 0 1rem;font-size:.9rem;max-width:100%}
table.wide{width:100%}
table.items{width:100%;table-layout:fixed}
.items .c-item{width:16%}.items .c-stated{width:20%}.items .c-probe{width:22%}.items .c-inc{width:18%}.items .c-cand{width:24%}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid #c9ced6;padding:.3rem .5rem;vertical-align:top;text-align:left}
thead th{background:#eef0f3}
tbody th{background:#f7f8fa;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.txt{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;unicode-bidi:isolate}
.ctl{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.85em;background:#eef0f3;color:#8a1616;border-radius:.2em;padding:0 .15em}
.sub{display:block;color:#4a4f57;font-size:.85em}
.badge{display:inline-block;padding:0 .45em;border-radius:.3em;border:1px solid transparent;font-size:.78em;font-weight:700;letter-spacing:.03em;text-transform:uppercase;white-space:nowrap}
.pass,.v-verbatim,.v-supported{background:#e3f4e8;color:#0a5a1c;border-color:#9fd3ad}
.fail,.v-contradicted{background:#fde7e7;color:#8a1616;border-color:#f0a8a8}
.incomplete,.v-error{background:#fff2cc;color:#644a00;border-color:#e8cf7a}
.v-absent{background:#fff0e0;color:#7a3d00;border-color:#f0c08a}
.v-none,.nogate{background:#eef0f3;color:#333;border-color:#c9ced6}
.worse{color:#8a1616;font-weight:700}
.better{color:#0a5a1c;font-weight:700}
.same{color:#333}
.title .period{font-size:1.15rem;color:#333;margin:0}
.title .meta{color:#4a4f57;font-size:.92rem}
.decision{margin:1rem 0;padding:.6rem 1rem;border-left:5px solid #8a1616;background:#fbf7f7}
.decision.clear{border-left-color:#0a5a1c;background:#f5faf6}
.decision .verdict{font-size:1.1rem;margin-top:0}
.warnings{margin:1rem 0;padding:.5rem 1rem;border:1px solid #e2c25b;background:#fffaeb;font-size:.92rem}
.warnings ul{margin:.25rem 0;padding-left:1.25rem}
.more{font-style:italic;color:#4a4f57}
.none{color:#4a4f57;font-style:italic}
figure{margin:1.5rem 0}
figure svg{display:block;width:100%;max-width:46rem;height:auto;background:#fff}
figcaption{font-size:.9rem;color:#333;margin-top:.35rem}
.task-success{margin-top:1.5rem;padding-top:.75rem;border-top:3px double #1b1b1b}
.task-success .line{font-size:1.05rem}
@media print{
body{font-size:10.5pt;color:#000}
main{max-width:none;padding:0}
@page{margin:14mm}
h2{break-after:avoid;page-break-after:avoid}
h3{break-after:avoid;page-break-after:avoid}
.scroll{overflow:visible}
table{font-size:9pt}
thead{display:table-header-group}
tr,figure,.decision,.task-success,.warnings{break-inside:avoid;page-break-inside:avoid}
figure svg{max-width:100%}
a{color:#000;text-decoration:none}
.badge{border-color:#000}
}
`

// hbuf accumulates HTML. raw writes trusted markup (constants, numbers
// formatted here); text escapes anything that came from input.
type hbuf struct{ bytes.Buffer }

// raw writes trusted markup as is.
func (h *hbuf) raw(parts ...string) {
	for _, s := range parts {
		h.WriteString(s)
	}
}

// rawf writes formatted trusted markup: format's arguments must be
// numbers or markup built here, never input.
func (h *hbuf) rawf(format string, args ...any) { fmt.Fprintf(h, format, args...) }

// text writes an untrusted string as escaped text, cut to max runes.
func (h *hbuf) text(s string, max int) { h.WriteString(hEscape(s, max)) }

// list writes untrusted strings as an escaped <ul>.
func (h *hbuf) list(items []string) {
	h.raw("<ul>\n")
	for _, s := range items {
		h.raw("<li>")
		h.text(s, 2000)
		h.raw("</li>\n")
	}
	h.raw("</ul>\n")
}

// Caps on the length of untrusted text shown in the HTML; the XLSX
// workbook carries every string whole.
const (
	hCapCell  = 600   // a literal, probe or answer in a table
	hCapShort = 200   // an identifier or a name
	hCapLong  = 20000 // a configuration file
)

// hEscape makes an untrusted string safe and visible as HTML text:
// invalid UTF-8 becomes U+FFFD; control characters other than newline
// (tab, CR, NUL, ESC, DEL, the C1 controls) and the invisible
// bidirectional controls are shown as escapes (\t, \r, \x1B, \u202E)
// marked as such, so a tab- or CR-led string shows that it is and a
// bidi override cannot reorder the text around it; the text is cut to
// max runes with a note; everything else is HTML-escaped.
func hEscape(s string, max int) string {
	var b strings.Builder
	v := strings.ToValidUTF8(s, "\uFFFD")
	n := 0
	plain := 0 // start of the run of ordinary text not yet written
	flush := func(end int) { b.WriteString(html.EscapeString(v[plain:end])) }
	for i, r := range v {
		if n == max {
			flush(i)
			fmt.Fprintf(&b, " … [%d more characters; the full text is in report.xlsx]", utf8.RuneCountInString(v[i:]))
			return b.String()
		}
		n++
		var esc string
		switch {
		case r == '\n':
			continue
		case r == '\t':
			esc = `\t`
		case r == '\r':
			esc = `\r`
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			esc = fmt.Sprintf(`\x%02X`, r)
		case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			esc = fmt.Sprintf(`\u%04X`, r)
		default:
			continue
		}
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

func hFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// hPct formats a share as a percentage with one decimal.
func hPct(x float64) string {
	if !hFinite(x) {
		return "—"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
}

// hGatePct formats a gate share compactly: 95%, 97.5%.
func hGatePct(x float64) string {
	if !hFinite(x) {
		return "—"
	}
	return strconv.FormatFloat(100*x, 'f', -1, 64) + "%"
}

// hRange formats an interval of shares as percentages.
func hRange(lo, hi float64) string {
	if !hFinite(lo) || !hFinite(hi) {
		return "—"
	}
	return strconv.FormatFloat(100*lo, 'f', 1, 64) + "–" + strconv.FormatFloat(100*hi, 'f', 1, 64) + "%"
}

// hProb formats a probability or rate with three decimals.
func hProb(x float64) string {
	if !hFinite(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// hP formats a p-value.
func hP(p float64) string {
	switch {
	case !hFinite(p):
		return "—"
	case p < 0.0001:
		return "&lt; 0.0001"
	case p < 0.001:
		return strconv.FormatFloat(p, 'f', 4, 64)
	default:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
}

// hPoints formats a difference of rates in percentage points, signed
// when signed is true.
func hPoints(x float64, signed bool) string {
	if !hFinite(x) {
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

// hNum formats a float with up to digits significant digits.
func hNum(x float64, digits int) string {
	if !hFinite(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', digits, 64)
}

// hInt formats an integer with thousands separators.
func hInt(n int) string {
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

// hTokens formats a token count (a float: a mean or a percentile).
func hTokens(x float64) string {
	if !hFinite(x) {
		return "—"
	}
	return hInt(int(math.Round(x)))
}

// hGate writes a gate status as a badge.
func hGate(g GateStatus) string {
	switch g {
	case Pass:
		return `<span class="badge pass">pass</span>`
	case Fail:
		return `<span class="badge fail">fail</span>`
	case Incomplete:
		return `<span class="badge incomplete">incomplete</span>`
	case "":
		return `<span class="badge nogate">no gate</span>`
	}
	return `<span class="badge incomplete">` + hEscape(string(g), 40) + `</span>`
}

// hChange writes a row's change.
func hChange(c Change) string {
	switch c {
	case Worse:
		return `<span class="worse">worse</span>`
	case Better:
		return `<span class="better">better</span>`
	case Same:
		return `<span class="same">same</span>`
	case "":
		return "—"
	}
	return hEscape(string(c), 40)
}
