// Package html renders a report as one self-contained HTML page: a
// notebook (report/notebook) with each computed cell in place, inline
// CSS and SVG, no script and no external reference, under a
// Content-Security-Policy that forbids both.
package html

import (
	"bytes"
	"errors"
	"io"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/markup"
	"github.com/tally-eval/tally/report/notebook"
)

// ContentSecurityPolicy is the policy the HTML report declares in a
// <meta> element: nothing may load or run (no script, no request, no
// font, no frame, no form); only the page's own <style> and data: images
// are allowed.
const ContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// Write writes r as one self-contained HTML page: the notebook nb
// (notebook.Default when nil) with each computed cell in place, inline CSS
// for screen and print, inline SVG charts, no script and no external
// reference, and a Content-Security-Policy that forbids both. Every
// string from the report's inputs is escaped. The same report and
// notebook give the same bytes.
//
// Nothing is written when a cell fails; the error names the notebook's
// line, as NAME:LINE: what is wrong.
func Write(w io.Writer, r *report.Report, nb *notebook.Notebook) error {
	if r == nil {
		return errors.New("html: Write: nil report")
	}
	if nb == nil {
		nb = notebook.Default()
	}
	var body bytes.Buffer
	if err := nb.Render(&body, r); err != nil {
		return err
	}

	var p markup.Buffer
	p.Raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.Raw(`<meta http-equiv="Content-Security-Policy" content="`, ContentSecurityPolicy, "\">\n")
	p.Raw("<meta name=\"referrer\" content=\"no-referrer\">\n")
	p.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.Raw("<meta name=\"generator\" content=\"tally")
	if r.Provenance.Version != "" {
		p.Raw(" ")
		p.Plain(r.Provenance.Version, 80)
	}
	// A <title> and an attribute hold text only: no <span> (a
	// stakeholder's trial saw the escape's markup in the browser's tab).
	p.Raw("\">\n<link rel=\"icon\" href=\"data:,\">\n<title>")
	p.Plain(markup.Title(r), 200)
	if r.Period != "" {
		p.Raw(" — ")
		p.Plain(r.Period, 200)
	}
	p.Raw("</title>\n<style>\n", pageCSS, "</style>\n</head>\n<body>\n<main>\n")
	if !nb.HasDecision() {
		notebook.ReportWarnings(&p, r)
	}
	p.Raw(body.String())
	p.Raw("</main>\n</body>\n</html>\n")
	_, err := w.Write(p.Bytes())
	return err
}

// pageCSS styles the page on screen and in print. It holds no input.
const pageCSS = `:root{color-scheme:light}
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
.decision.unmet{border-left-color:#8a5a00;background:#fffaeb}
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
