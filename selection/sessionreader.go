package selection

import (
	"fmt"
	"io"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// SessionReader reads session summaries, one JSON object per line
// (JSONL), holding one line in memory at a time. Blank lines are skipped.
type SessionReader struct {
	name string
	lr   lineReader
	sc   jsonscan.Scanner
	bufs sessionBufs
	s    Session
	err  error // sticky read error
}

// NewSessionReader returns a reader of the summaries in r; name (normally
// the file's path) is used in problems. A line may be up to MaxLineBytes
// long; see NewSessionReaderSize.
func NewSessionReader(r io.Reader, name string) *SessionReader {
	return NewSessionReaderSize(r, name, 0)
}

// NewSessionReaderSize is NewSessionReader accepting lines of up to
// maxLine bytes (MaxLineBytes when maxLine ≤ 0): a longer line is a
// problem at its line, "line longer than SIZE (raise with --max-line)",
// and is skipped.
func NewSessionReaderSize(r io.Reader, name string, maxLine int64) *SessionReader {
	return &SessionReader{name: name, lr: newLineReader(r, maxLine)}
}

// Next returns the next session, or io.EOF after the last one. The
// session's Compactions and Items are reused by the next call: Clone it
// to keep them.
//
// A malformed line yields a fixture.Problem naming the file, line, column
// and field ("sessions.jsonl:7:38: items[1].turn: want a whole number from
// 1 to 16777216, got 0"), and the reader moves on: call Next again to
// read past it. A read error is returned wrapped with the file and line,
// and again by every later call.
func (r *SessionReader) Next() (Session, error) {
	if r.err != nil {
		return Session{}, r.err
	}
	for {
		line, n, err := r.lr.next()
		switch {
		case err == io.EOF:
			r.err = io.EOF
			return Session{}, io.EOF
		case err == errLineTooLong:
			return Session{}, r.lr.longProblem(r.name, n)
		case err != nil:
			r.err = fmt.Errorf("reading sessions: %s:%d: %w", r.name, n, err)
			return Session{}, r.err
		}
		if blank(line) {
			continue
		}
		if e := parseSession(&r.sc, line, &r.s, &r.bufs); e != nil {
			return Session{}, problemAt(r.name, n, line, e)
		}
		return r.s, nil
	}
}

// Line returns the number of the line Next read last (0 before the first
// call).
func (r *SessionReader) Line() int { return r.lr.line }

// Bytes returns the number of bytes read so far.
func (r *SessionReader) Bytes() int64 { return r.lr.bytes }

// ParseSession decodes one session summary line (without its newline).
// name and lineNo place problems; the session shares no memory with line.
func ParseSession(name string, lineNo int, line []byte) (Session, error) {
	var sc jsonscan.Scanner
	var s Session
	var b sessionBufs
	if e := parseSession(&sc, line, &s, &b); e != nil {
		return Session{}, problemAt(name, lineNo, line, e)
	}
	return s, nil
}
