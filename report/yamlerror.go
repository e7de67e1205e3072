package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// This file turns the YAML library's errors into problems with a line
// and a column, for ParseConfig.

// yamlPosError is a YAML problem at a known place.
type yamlPosError struct {
	line, col int
	msg       string
}

func (e *yamlPosError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

// parseYAML parses exactly one YAML document. The YAML parser is guarded
// against panics, so that no input can crash the caller.
func parseYAML(data []byte) (doc *yaml.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = nil, fmt.Errorf("yaml: the YAML parser failed on this input (%v)", v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if err == io.EOF {
			return nil, &yamlPosError{1, 1, "empty: want a mapping of report settings"}
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, &yamlPosError{extra.Line, max(extra.Column, 1), "a second YAML document; a configuration is one document"}
	}
	return &n, nil
}

// yamlTextError finds what makes data not YAML text at all, at its line
// and column: a byte that is not UTF-8, or a control character other
// than tab, newline and carriage return.
func yamlTextError(path string, data []byte) error {
	line, col := 1, 1
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Errorf("%s:%d:%d: byte 0x%02X is not UTF-8; save the configuration as UTF-8", path, line, col, data[off])
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r' || r == '\uFEFF' && off == 0:
		case unicode.IsControl(r):
			return fmt.Errorf("%s:%d:%d: control character %U is not allowed in YAML", path, line, col, r)
		}
		off += size
		col++
	}
	return nil
}

var (
	yamlLine   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// yamlSyntaxError turns the YAML parser's error into one line,
// "FILE:LINE:COL: msg". A tab in the indentation is found where it is
// (the parser names the line before it at times); another error is put
// at the first character of the line the parser names.
func yamlSyntaxError(path string, data []byte, err error) error {
	var pe *yamlPosError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %s", path, pe.line, pe.col, pe.msg)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if tl, tc := tabIndent(data); tl > 0 && (line == 0 || tl <= line+1) {
		return fmt.Errorf("%s:%d:%d: a tab in the indentation; YAML indents with spaces only", path, tl, tc)
	}
	if m := yamlAnchor.FindStringSubmatch(err.Error()); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			l, c := textPos(data, i)
			return fmt.Errorf("%s:%d:%d: %s", path, l, c, msg)
		}
	}
	if line == 0 {
		line = 1
	}
	return fmt.Errorf("%s:%d:%d: %s", path, line, firstCol(data, line), msg)
}

// tabIndent returns the line and column of the first tab in the leading
// whitespace of a line of data, or 0, 0.
func tabIndent(data []byte) (line, col int) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		for j, b := range l {
			if b == '\t' {
				return i + 1, j + 1
			}
			if b != ' ' {
				break
			}
		}
	}
	return 0, 0
}

// textPos is the line and column (in runes, 1-based) of byte offset off.
func textPos(data []byte, off int) (line, col int) {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:off], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}

// firstCol is the column of the first character of line n that is not
// a space or a tab, 1 for a blank or missing line.
func firstCol(data []byte, n int) int {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return 1
	}
	l := lines[n-1]
	i := bytes.IndexFunc(l, func(r rune) bool { return r != ' ' && r != '\t' })
	if i < 0 {
		return 1
	}
	return utf8.RuneCount(l[:i]) + 1
}
