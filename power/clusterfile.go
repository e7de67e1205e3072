package power

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/input"
)

// ClusterFileHeader is the first line of a clusters file.
const ClusterFileHeader = "conversation_id,pairs,lost,gained"

// MaxClusterLine bounds one line of a clusters file: an id and three
// numbers.
const MaxClusterLine = 64 << 10

var clusterFields = [4]string{"conversation_id", "pairs", "lost", "gained"}

// FileError is a problem in an input file this package reads (a clusters
// file), at a 1-based line and column counted in characters. Its text is
// "FILE:LINE:COL: FIELD: MSG", the form of fixture.Problem, leaving out
// ":LINE:COL" when Line is 0 and "FIELD: " when Field is empty. It
// matches ErrInput.
type FileError struct {
	File      string
	Line, Col int
	Field     string
	Msg       string
}

func (e FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is makes errors.Is(err, ErrInput) true.
func (e FileError) Is(target error) bool { return target == ErrInput }

// LoadClusters reads the clusters file at path (ReadClusters) under lim
// (zero fields: package input's defaults): a path that is no regular
// file, or a file larger than lim.MaxFile, is an error naming it.
func LoadClusters(path string, lim input.Limits) ([]ClusterCounts, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("reading clusters: %w", err)
	}
	defer f.Close()
	return readClusters(f, path, lim.Line())
}

// ReadClusters reads a clusters file: CSV with the header
// ClusterFileHeader and then one line per conversation (cluster): its id,
// its item pairs (at least 1), and how many of them it lost and gained
// (lost + gained ≤ pairs), for example
//
//	conversation_id,pairs,lost,gained
//	conv-017,4,1,0
//	"conv, with a comma",6,0,2
//
// A field may be quoted as in RFC 4180 ("" for a quote inside); a line
// ends in "\n" or "\r\n" and may not span lines. Spaces around a number
// are allowed, blank lines are skipped, and a conversation_id may appear
// once (empty is an error). Lines are read one at a time, each at most
// MaxClusterLine bytes; the clusters are kept (3 ints each) and the ids
// only as a set, to find repeats.
//
// The first problem ends the reading, as a FileError naming the
// file (name), line, column (in characters) and field. A file with a
// header but no conversation is an error too.
func ReadClusters(r io.Reader, name string) ([]ClusterCounts, error) {
	return readClusters(r, name, MaxClusterLine)
}

func readClusters(r io.Reader, name string, maxLine int64) ([]ClusterCounts, error) {
	if maxLine <= 0 || maxLine > MaxClusterLine {
		maxLine = MaxClusterLine
	}
	lines := input.NewLines(r, name, maxLine)
	var (
		cs     []ClusterCounts
		seen   = map[string]int{}
		header bool
		fields [4]field
		total  int
	)
	for {
		line, err := lines.Next()
		switch {
		case err == io.EOF:
			if !header {
				return nil, FileError{File: name, Msg: "empty file: want the header " + ClusterFileHeader + " and one line per conversation"}
			}
			if len(cs) == 0 {
				return nil, FileError{File: name, Msg: "no conversations after the header (want lines conversation_id,pairs,lost,gained)"}
			}
			return cs, nil
		case err != nil:
			var le *input.LineError
			if errors.As(err, &le) {
				return nil, err
			}
			return nil, fmt.Errorf("%s:%d: reading clusters: %w", name, lines.Line()+1, err)
		}
		ln := lines.Line()
		if !header {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if p := splitCSV(line, fields[:]); p != nil {
			p.File, p.Line = name, ln
			return nil, *p
		}
		if !header {
			for i, f := range fields {
				if string(bytes.TrimSpace(f.text)) != clusterFields[i] {
					return nil, FileError{File: name, Line: ln, Col: col(line, f.at), Field: "header",
						Msg: fmt.Sprintf("column %d is %q; the header must be %s", i+1, preview(f.text), ClusterFileHeader)}
				}
			}
			header = true
			continue
		}
		c, p := parseCluster(line, fields)
		if p != nil {
			p.File, p.Line = name, ln
			return nil, *p
		}
		id := string(fields[0].text)
		if at, dup := seen[id]; dup {
			return nil, FileError{File: name, Line: ln, Col: col(line, fields[0].at), Field: "conversation_id",
				Msg: fmt.Sprintf("conversation_id %q repeats line %d; give each conversation one line", preview(fields[0].text), at)}
		}
		if total += c.N; total > MaxPairs {
			return nil, FileError{File: name, Line: ln, Col: col(line, fields[1].at), Field: "pairs",
				Msg: fmt.Sprintf("the conversations hold more than %d pairs in all", MaxPairs)}
		}
		seen[id] = ln
		cs = append(cs, c)
	}
}

// field is one CSV field: its text (unquoted) and the byte offset in the
// line where it starts.
type field struct {
	text []byte
	at   int
}

// splitCSV splits line into exactly len(out) fields, unquoting quoted
// ones. It returns a problem (without file and line) for a
// wrong field count or a malformed quote.
func splitCSV(line []byte, out []field) *FileError {
	n, i := 0, 0
	for {
		if n == len(out) {
			return &FileError{Col: col(line, i-1), Msg: fmt.Sprintf("more than %d comma-separated fields; want %s (quote an id that holds a comma)", len(out), ClusterFileHeader)}
		}
		start := i
		if i < len(line) && line[i] == '"' {
			text, next, ok := unquote(line, i)
			if !ok {
				return &FileError{Col: col(line, start), Field: clusterFields[n], Msg: "unterminated or malformed quoted field (a quote inside is written \"\", and the field ends at its closing quote)"}
			}
			out[n] = field{text: text, at: start}
			i = next
		} else {
			j := bytes.IndexByte(line[i:], ',')
			end := len(line)
			if j >= 0 {
				end = i + j
			}
			if q := bytes.IndexByte(line[i:end], '"'); q >= 0 {
				return &FileError{Col: col(line, i+q), Field: clusterFields[n], Msg: "a quote inside an unquoted field; quote the whole field"}
			}
			out[n] = field{text: line[i:end], at: start}
			i = end
		}
		n++
		if i == len(line) {
			break
		}
		i++ // the comma
	}
	if n < len(out) {
		return &FileError{Col: col(line, len(line)), Field: clusterFields[n], Msg: fmt.Sprintf("only %d of the %d fields %s", n, len(out), ClusterFileHeader)}
	}
	return nil
}

// unquote reads the quoted field starting at line[i] == '"'; next is the
// index after its closing quote, which must end the line or precede a
// comma. The text is a subslice of line unless it holds a doubled quote,
// which is undoubled in a copy (line itself is left as read, so that
// columns stay right).
func unquote(line []byte, i int) (text []byte, next int, ok bool) {
	var buf []byte
	from := i + 1
	for j := i + 1; j < len(line); j++ {
		if line[j] != '"' {
			continue
		}
		if j+1 < len(line) && line[j+1] == '"' {
			buf = append(buf, line[from:j+1]...)
			from = j + 2
			j++
			continue
		}
		if j+1 < len(line) && line[j+1] != ',' {
			return nil, 0, false
		}
		if buf == nil {
			return line[from:j], j + 1, true
		}
		return append(buf, line[from:j]...), j + 1, true
	}
	return nil, 0, false
}

// parseCluster reads the three counts of a split line.
func parseCluster(line []byte, f [4]field) (ClusterCounts, *FileError) {
	if len(f[0].text) == 0 {
		return ClusterCounts{}, &FileError{Col: col(line, f[0].at), Field: "conversation_id", Msg: "empty conversation_id"}
	}
	var v [3]int
	for i := 1; i < 4; i++ {
		s := string(bytes.TrimSpace(f[i].text))
		n, err := strconv.Atoi(s)
		switch {
		case errors.Is(err, strconv.ErrRange) || (err == nil && n > MaxPairs):
			return ClusterCounts{}, &FileError{Col: col(line, f[i].at), Field: clusterFields[i], Msg: fmt.Sprintf("%q is more than %d", preview(f[i].text), MaxPairs)}
		case err != nil:
			return ClusterCounts{}, &FileError{Col: col(line, f[i].at), Field: clusterFields[i], Msg: fmt.Sprintf("%q is not a whole number", preview(f[i].text))}
		case n < 0:
			return ClusterCounts{}, &FileError{Col: col(line, f[i].at), Field: clusterFields[i], Msg: fmt.Sprintf("%d is negative", n)}
		}
		v[i-1] = n
	}
	c := ClusterCounts{N: v[0], Lost: v[1], Gained: v[2]}
	switch {
	case c.N < 1:
		return c, &FileError{Col: col(line, f[1].at), Field: "pairs", Msg: "a conversation must have at least 1 item pair"}
	case c.Lost+c.Gained > c.N:
		return c, &FileError{Col: col(line, f[2].at), Field: "lost", Msg: fmt.Sprintf("lost %d + gained %d exceed the %d pairs", c.Lost, c.Gained, c.N)}
	}
	return c, nil
}

// col is the 1-based column, in characters, of byte offset at in line
// (each byte of invalid UTF-8 one character).
func col(line []byte, at int) int {
	at = max(0, min(at, len(line)))
	return utf8.RuneCount(line[:at]) + 1
}

// preview is text for an error message: at most 40 characters.
func preview(b []byte) string {
	if utf8.RuneCount(b) <= 40 {
		return string(b)
	}
	r := []rune(string(b))
	return string(r[:40]) + "…"
}
