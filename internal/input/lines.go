package input

import (
	"bufio"
	"bytes"
	"io"
)

// Lines reads the lines of a stream under a line limit, reusing one
// buffer: a line longer than the limit is skipped whole (without holding
// it) and reported as a *LineError, after which reading goes on.
type Lines struct {
	r    *bufio.Reader
	name string
	max  int64
	buf  []byte
	line int
}

// NewLines returns a reader of r's lines; name (normally the file's path)
// is used in errors, and max is the longest line accepted in bytes
// (DefaultMaxLine when max ≤ 0). A *bufio.Reader of at least 64 KiB is
// used as it is.
func NewLines(r io.Reader, name string, max int64) *Lines {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Lines{r: bufio.NewReaderSize(r, 64<<10), name: name, max: max}
}

// Line returns the number of the line Next returned last (0 before the
// first call).
func (l *Lines) Line() int { return l.line }

// Next returns the next line without its "\n" or "\r\n"; the slice is
// valid until the next call. It returns io.EOF after the last line, a
// *LineError for a line over the limit (skipped: call Next again to go
// on), and any read error as it is.
func (l *Lines) Next() ([]byte, error) {
	b, long, err := ReadLine(l.r, l.buf[:0], l.max)
	if cap(b) <= 1<<20 { // keep a small buffer; let a huge one go
		l.buf = b
	} else {
		l.buf = nil
	}
	if err != nil {
		return nil, err
	}
	l.line++
	if long {
		return nil, &LineError{File: l.name, Line: l.line, Limit: l.max}
	}
	return b, nil
}

// ReadLine reads one line from r, appending it to buf without its "\n"
// or "\r\n". When the line is longer than max bytes, the rest of it is
// read and dropped and long is true. It returns io.EOF only when there is
// no line left; a last line without "\n" is a line.
func ReadLine(r *bufio.Reader, buf []byte, max int64) (line []byte, long bool, err error) {
	start, any := len(buf), false
	for {
		chunk, err := r.ReadSlice('\n')
		any = any || len(chunk) > 0
		if !long {
			// 2 bytes of room for the line ending, trimmed below; the
			// subtraction cannot overflow as max+2 would near 2⁶³.
			if int64(len(buf)-start+len(chunk))-2 > max {
				long, buf = true, buf[:start]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && any {
			err = nil
		}
		if err != nil {
			return buf, false, err
		}
		if long {
			return buf, true, nil
		}
		body := bytes.TrimSuffix(buf[start:], []byte("\n"))
		body = bytes.TrimSuffix(body, []byte("\r"))
		if int64(len(body)) > max {
			return buf[:start], true, nil
		}
		return buf[:start+len(body)], false, nil
	}
}
