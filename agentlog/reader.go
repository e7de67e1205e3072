package agentlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// MalformedLine is the Counts.Skipped key of a line skipped as
// malformed (Options.SkipBad).
const MalformedLine = "(malformed line)"

// Options says how NewReader reads a log.
type Options struct {
	// Format is the log's format, or "" to sniff it from the first line.
	Format Format
	// MaxLine is the longest line read, in bytes (0: 64 MiB,
	// input.DefaultMaxLine); a longer line is malformed.
	MaxLine int64
	// SkipBad skips a malformed line (one that is not JSON, has a field
	// of the wrong type, or is over MaxLine) instead of failing at it:
	// the line is counted in its session's Records.Skipped as
	// MalformedLine and its error, naming file:line, is passed to Bad
	// (when not nil). A read error still fails.
	SkipBad bool
	Bad     func(error)
}

// MalformedError is the error of a malformed line, as a reader returns
// it when lines are not skipped: the kind of line Options.SkipBad skips.
// Its message is the line's error's.
type MalformedError struct{ Err error }

func (e *MalformedError) Error() string { return e.Err.Error() }

// Unwrap returns the line's error.
func (e *MalformedError) Unwrap() error { return e.Err }

// bad is the function a reader calls with a skipped line's error, nil
// when lines are not skipped.
func (o Options) bad() func(error) {
	switch {
	case !o.SkipBad:
		return nil
	case o.Bad != nil:
		return o.Bad
	}
	return func(error) {}
}

// Reader reads the sessions of one log, one at a time: it holds one
// line and the session being read, so a file of many sessions is read in
// memory bounded by its largest session.
type Reader struct {
	name   string
	format Format
	count  *countReader
	zr     *gzip.Reader
	next   func() (*Session, error)
	err    error
}

// NewReader returns a reader of the sessions in r, gzipped or not (the
// gzip magic bytes decide), in o.Format or the format Sniff finds in the
// first line. name is used in errors and as each Session.Name.
//
// How many sessions a log holds: a Codex file one per rollout (a
// session_meta of a session the rollout was not forked from starts the
// next: rollouts joined with cat); a generic file one a line; a Claude Code file one per run of records with the same
// sessionId (ReadClaudeCode); a tally event log one per run of events
// with the same session_id (ReadTally); a session's records come
// together, and one that comes back after another session's is an error.
// An empty log (no line at all) holds no session, in every format.
//
// A file whose first line says it is no agent log (a prompt history, see
// PromptHistory; a session pretty-printed over several lines; a bare
// list of chat messages) is an error that says so. Under o.SkipBad the
// file is one session none of whose lines is read (Session.Unread):
// each is counted as MalformedLine, with that error at its line passed
// to o.Bad.
func NewReader(r io.Reader, name string, o Options) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rd := &Reader{name: name}
	var src io.Reader = br
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		if errors.As(err, new(*input.EncodingError)) { // it names the file
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if gzipped(magic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rd.zr, src = zr, zr
	}
	rd.count = &countReader{r: src}
	lr := bufio.NewReaderSize(rd.count, 64<<10)
	if rd.zr != nil { // the file's own first bytes were gzip's
		if head, _ := lr.Peek(4); input.Encoding(head) != "" {
			return nil, &input.EncodingError{File: name + " (uncompressed)", Encoding: input.Encoding(head)}
		}
	}
	if bom, _ := lr.Peek(len(jsonscan.BOM)); string(bom) == jsonscan.BOM {
		return nil, fmt.Errorf("%s:1:1: starts with %s", name, jsonscan.BOMProblem)
	}
	head, err := lr.Peek(lr.Size())
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := o.Format
	if f == "" {
		f = Sniff(head)
	}
	rd.format = f
	switch f {
	case ClaudeCode:
		rd.next = newCCReader(lr, name, o).next
	case Codex:
		rd.next = newCodexSessions(lr, name, o).next
	case Generic:
		rd.next = newGenericReader(lr, name, o).next
	case Tally:
		rd.next = newTallyReader(lr, name, o).next
	default:
		return nil, fmt.Errorf("%s: unknown format %q (want one of %v)", name, f, Formats)
	}
	if e := headProblem(name, head); e != nil { // no format reads it
		if !o.SkipBad {
			return nil, e
		}
		rd.next = refused(lr, name, f, o, e)
	}
	return rd, nil
}

// gzipped reports whether a file's first bytes are gzip's magic number
// (RFC 1952, 2.3.1: ID1 31, ID2 139).
func gzipped(magic []byte) bool {
	return len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b
}

// PromptHistoryIn is PromptHistory of the log r holds, gzipped or not,
// read from its first 64 KiB: "" also when r cannot be read, for its
// reader to say why. A caller walking a folder of logs uses it to leave
// prompt histories out.
func PromptHistoryIn(r io.Reader) string {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); gzipped(magic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return ""
		}
		defer zr.Close()
		src = zr
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(src, head)
	return PromptHistory(head[:n])
}

// Format is the log's format, given or sniffed.
func (r *Reader) Format() Format { return r.format }

// Next returns the log's next session, or io.EOF after the last. After
// an error, every call returns it again.
func (r *Reader) Next() (*Session, error) {
	if r.err != nil {
		return nil, r.err
	}
	s, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return s, nil
}

// Bytes is the number of bytes of the log read so far, uncompressed.
func (r *Reader) Bytes() int64 { return r.count.n }

// Close releases the gzip reader, if any; it does not close the
// underlying reader.
func (r *Reader) Close() error {
	if r.zr != nil {
		return r.zr.Close()
	}
	return nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// parseTime reads an RFC 3339 timestamp, zero when it is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
