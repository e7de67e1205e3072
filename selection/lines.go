package selection

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// MaxLineBytes is the longest line a reader accepts by default
// (input.DefaultMaxLine): a longer one is a problem at that line (skipped
// with the rest of it), so that one corrupt line cannot take unbounded
// memory. The readers' Size constructors and the configurations' Limits
// set another.
const MaxLineBytes = input.DefaultMaxLine

// errLineTooLong marks a line over the reader's limit.
var errLineTooLong = errors.New("line too long")

// lineReader reads lines of any length up to max bytes, without their
// "\n" or "\r\n", reusing one buffer, and counts the bytes it consumed.
// It is package input's line reader with a path that does not copy a line
// found whole in the bufio buffer: the selection's readers are hot.
type lineReader struct {
	r     *bufio.Reader
	buf   []byte
	line  int
	max   int
	bytes int64
}

// newLineReader reads r's lines of at most max bytes (MaxLineBytes when
// max ≤ 0).
func newLineReader(r io.Reader, max int64) lineReader {
	if max <= 0 || max > math.MaxInt-2 {
		max = min(MaxLineBytes, math.MaxInt-2)
	}
	return lineReader{r: bufio.NewReaderSize(r, 256<<10), max: int(max)}
}

// longProblem is the problem of line n, over the limit.
func (lr *lineReader) longProblem(name string, n int) fixture.Problem {
	return fixture.Problem{File: name, Line: n, Msg: (&input.LineError{Line: n, Limit: int64(lr.max)}).Error()}
}

// next returns the next line and its 1-based number; the slice is valid
// until the next call. It returns io.EOF after the last line, and
// errLineTooLong (having skipped the line) for a line too long.
func (lr *lineReader) next() ([]byte, int, error) {
	lr.buf = lr.buf[:0]
	long := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.bytes += int64(len(chunk))
		if !long {
			if len(lr.buf)+len(chunk) > lr.max+2 {
				long, lr.buf = true, lr.buf[:0]
			} else if len(lr.buf) == 0 && err == nil {
				// The whole line is in the bufio buffer: no copy.
				lr.line++
				if b := trimEOL(chunk); len(b) <= lr.max {
					return b, lr.line, nil
				}
				return nil, lr.line, errLineTooLong
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && (len(lr.buf) > 0 || long) {
			err = nil
		}
		if err != nil {
			return nil, lr.line + 1, err
		}
		lr.line++
		if long {
			return nil, lr.line, errLineTooLong
		}
		if b := trimEOL(lr.buf); len(b) <= lr.max {
			return b, lr.line, nil
		}
		return nil, lr.line, errLineTooLong
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// blank reports whether a line holds only white space.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// problemAt turns a line error into a fixture.Problem naming the file,
// line, column and field.
func problemAt(name string, lineNo int, line []byte, e *jsonscan.Error) fixture.Problem {
	return fixture.Problem{File: name, Line: lineNo, Col: jsonscan.Column(line, e.Off), Field: e.Field, Msg: e.Msg}
}

// BadLines collects the problems of lines that a reader skipped (with
// SkipBad): each is counted, the first MaxReported kept to report as
// warnings. Nothing read is dropped without a trace.
type BadLines struct {
	Count    int
	Problems []fixture.Problem // the first MaxReported
}

// MaxReported is how many skipped lines a BadLines keeps word of; the
// rest are counted.
const MaxReported = 20

// add records one skipped line.
func (b *BadLines) add(p fixture.Problem) {
	b.Count++
	if len(b.Problems) < MaxReported {
		b.Problems = append(b.Problems, p)
	}
}

// merge adds o's lines to b.
func (b *BadLines) merge(o BadLines) {
	for _, p := range o.Problems {
		if len(b.Problems) < MaxReported {
			b.Problems = append(b.Problems, p)
		}
	}
	b.Count += o.Count
}

// Warnings words the skipped lines: one warning per kept problem and one
// for the rest.
func (b BadLines) Warnings() []string {
	if b.Count == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("skipped %d malformed line(s) (--skip-bad)", b.Count)}
	for _, p := range b.Problems {
		out = append(out, "skipped "+p.Error())
	}
	if b.Count > len(b.Problems) {
		out = append(out, fmt.Sprintf("… and %d more skipped line(s) not listed", b.Count-len(b.Problems)))
	}
	return out
}

// isProblem reports whether err is a problem with one line (which
// SkipBad may skip) rather than an I/O failure.
func isProblem(err error) bool {
	var p fixture.Problem
	return errors.As(err, &p)
}

// problem is a problem with a whole line.
func problem(name string, line int, field, msg string) fixture.Problem {
	return fixture.Problem{File: name, Line: line, Col: 1, Field: field, Msg: msg}
}

// asProblem returns the problem err carries (isProblem(err) is true).
func asProblem(err error) fixture.Problem {
	var p fixture.Problem
	errors.As(err, &p)
	return p
}
