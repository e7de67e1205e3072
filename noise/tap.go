package noise

import (
	"bytes"
	"io"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// keepLine is the longest line a lineTap keeps whole; a problem on a
// longer record line is reported at column 1. Verdict records are a few
// hundred bytes.
const keepLine = 1 << 20

// lineTap passes a stream through to the record reader and keeps the
// non-blank lines that went through it and that the reader has not yet
// moved past, so that a problem found in a record once it is read (a
// duplicate, a class that differs between the runs) can name the column
// of the field at fault without reading the file a second time.
//
// Memory stays bounded: release drops every line before the one the
// reader returned last, the reader reads at most its buffer ahead of
// that line, blank lines are not kept and no line is kept beyond
// keepLine bytes.
type lineTap struct {
	r     io.Reader
	line  int    // number of the line being received, from 1
	cur   []byte // that line's bytes so far, up to keepLine
	over  bool   // cur was cut at keepLine
	data  []byte // the kept lines' bytes
	lines []kept // the kept lines, in order; those before head released
	head  int
}

// kept is one completed line held by a lineTap: its number, its bytes in
// data, and whether it was cut.
type kept struct {
	n, start, end int
	over          bool
}

func newLineTap(r io.Reader) *lineTap { return &lineTap{r: r, line: 1} }

// Read reads from the underlying reader, keeping what it passes on.
func (t *lineTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.add(b)
			break
		}
		t.add(b[:i])
		t.endLine()
		b = b[i+1:]
	}
	return n, err
}

// add appends b to the line being received, up to keepLine bytes.
func (t *lineTap) add(b []byte) {
	if room := keepLine - len(t.cur); len(b) > room {
		b, t.over = b[:room], true
	}
	t.cur = append(t.cur, b...)
}

// endLine completes the line being received: kept unless it is blank.
func (t *lineTap) endLine() {
	if t.over || len(bytes.TrimSpace(t.cur)) > 0 {
		start := len(t.data)
		if !t.over {
			t.data = append(t.data, t.cur...)
		}
		t.lines = append(t.lines, kept{n: t.line, start: start, end: len(t.data), over: t.over})
	}
	t.cur, t.over = t.cur[:0], false
	t.line++
}

// release forgets the lines before line n.
func (t *lineTap) release(n int) {
	for t.head < len(t.lines) && t.lines[t.head].n < n {
		t.head++
	}
	if t.head == len(t.lines) {
		t.lines, t.data, t.head = t.lines[:0], t.data[:0], 0
		return
	}
	// Move the rest to the front only when more than half of the lines
	// are dead, so that each line and byte is moved a bounded number of
	// times.
	if t.head > len(t.lines)/2 {
		s := t.lines[t.head].start
		t.data = append(t.data[:0], t.data[s:]...)
		t.lines = append(t.lines[:0], t.lines[t.head:]...)
		t.head = 0
		for j := range t.lines {
			t.lines[j].start -= s
			t.lines[j].end -= s
		}
	}
}

// text returns line n's bytes, and false when they are not at hand: the
// line was released, is still to come, or is longer than keepLine.
func (t *lineTap) text(n int) ([]byte, bool) {
	for _, l := range t.lines[t.head:] {
		if l.n == n {
			return t.data[l.start:l.end], !l.over
		}
	}
	if n == t.line && len(t.cur) > 0 { // the last line, without a newline
		return t.cur, !t.over
	}
	return nil, false
}

// column is the column of the value of key in line n, or 1 when the line
// is not at hand or has no such member.
func (t *lineTap) column(n int, key string) int {
	line, ok := t.text(n)
	if !ok {
		return 1
	}
	return jsonscan.ValueColumn(line, key)
}
