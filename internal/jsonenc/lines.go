package jsonenc

import (
	"bufio"
	"fmt"
	"io"
)

// Lines writes JSON lines through a 64 KiB buffer with a sticky error:
// after a failed write every later call returns the same error, wrapped
// as "writing WHAT: …". It is what the JSONL writers (verdict records,
// reviews) share; each builds its line and hands it over.
type Lines struct {
	w    *bufio.Writer
	what string
	err  error
}

// NewLines returns a Lines writing to w; what names the content in
// errors ("records", "reviews").
func NewLines(w io.Writer, what string) *Lines {
	return &Lines{w: bufio.NewWriterSize(w, 64<<10), what: what}
}

// Err is the sticky write error, nil while none has happened.
func (l *Lines) Err() error { return l.err }

// Write writes line (which ends in "\n").
func (l *Lines) Write(line []byte) error {
	if l.err != nil {
		return l.err
	}
	if _, err := l.w.Write(line); err != nil {
		l.err = fmt.Errorf("writing %s: %w", l.what, err)
	}
	return l.err
}

// Flush writes what is buffered to the underlying writer.
func (l *Lines) Flush() error {
	if l.err != nil {
		return l.err
	}
	if err := l.w.Flush(); err != nil {
		l.err = fmt.Errorf("writing %s: %w", l.what, err)
	}
	return l.err
}
