package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/rivo/uniseg"
)

// textTable aligns tab-separated cells into columns, as text/tabwriter
// does with padding 2 and no flags, but measures a cell by the columns a
// terminal gives it (uniseg.StringWidth: a CJK character or an emoji
// takes two, a combining accent none) rather than by its runes, so that
// a session id in Japanese does not push its row out of line. A cell is
// text ended by a tab; the text after a line's last tab is not aligned.
// A column's width holds over a block of consecutive lines that all have
// that column, and is its widest cell plus 2. Everything is written on
// Flush.
type textTable struct {
	w   io.Writer
	buf bytes.Buffer
}

// table is an aligned text table for the text format.
func table(w io.Writer) *textTable { return &textTable{w: w} }

// Write buffers p.
func (t *textTable) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush writes the buffered lines aligned, and empties the buffer.
func (t *textTable) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	end := ""
	if strings.HasSuffix(text, "\n") {
		text, end = text[:len(text)-1], "\n"
	}
	lines := strings.Split(text, "\n")
	cells := make([][]string, len(lines))
	for i, l := range lines {
		cells[i] = strings.Split(l, "\t")
	}
	// widths[i][c] is the width of column c on line i: its block's
	// widest cell, plus the padding.
	widths := make([][]int, len(lines))
	for i := range lines {
		widths[i] = make([]int, len(cells[i])-1)
	}
	for c := 0; ; c++ {
		any := false
		for i := 0; i < len(lines); {
			if len(cells[i])-1 <= c {
				i++
				continue
			}
			any = true
			j, w := i, 0
			for ; j < len(lines) && len(cells[j])-1 > c; j++ {
				w = max(w, uniseg.StringWidth(cells[j][c]))
			}
			for k := i; k < j; k++ {
				widths[k][c] = w + 2
			}
			i = j
		}
		if !any {
			break
		}
	}
	var out bytes.Buffer
	for i, row := range cells {
		if i > 0 {
			out.WriteByte('\n')
		}
		for c, cell := range row {
			out.WriteString(cell)
			if c < len(row)-1 {
				out.WriteString(strings.Repeat(" ", widths[i][c]-uniseg.StringWidth(cell)))
			}
		}
	}
	out.WriteString(end)
	_, err := t.w.Write(out.Bytes())
	return err
}
