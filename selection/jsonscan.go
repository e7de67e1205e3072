package selection

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// This file holds the small strict JSON lexer that the session and event
// readers decode one line with. It allocates nothing per line (decoded
// strings alias the line or a reused buffer), keeps the byte offset of
// every error for FILE:LINE:COL messages, and accepts exactly RFC 8259
// JSON in UTF-8: what encoding/json accepts, except invalid UTF-8 inside
// strings, which it rejects (FuzzParseSession and FuzzParseEvent hold it
// to that). Nesting is limited to maxDepth, as in encoding/json. Here
// are its state, its errors and the structure of objects and arrays; its
// strings are in jsonscan_string.go, its numbers and literals in
// jsonscan_scalar.go, and skipping a value and its canonical form in
// jsonscan_value.go.
//
// Why not encoding/json: reflection-driven decoding of a 150-byte event
// costs about a microsecond, several times this lexer, and its errors
// carry a byte offset but no field for type errors inside arrays; reading
// a gigabyte of events is decoding and nothing else, so the decoder is
// where the time goes.

// maxDepth is the deepest nesting accepted, as in encoding/json.
const maxDepth = 10000

// lineError is one problem in a line: at byte offset off, in field (a
// jq-style path such as "items[2].turn", or "" for a syntax error).
type lineError struct {
	off   int
	field string
	msg   string
}

// Error gives the field and the message (the caller adds the position).
func (e *lineError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

// scanner lexes one JSON text held in data.
type scanner struct {
	data  []byte
	pos   int
	depth int
	buf   []byte // decoded strings with escapes
	canon []byte // scratch for canonical JSON
	spans []span // scratch for sorting object members
}

func (s *scanner) reset(data []byte) {
	s.data, s.pos, s.depth = data, 0, 0
}

func (s *scanner) errAt(off int, field, format string, args ...any) *lineError {
	return &lineError{off: off, field: field, msg: fmt.Sprintf(format, args...)}
}

// errChar reports the character at s.pos as unexpected in context ctx.
func (s *scanner) errChar(ctx string) *lineError {
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	return &lineError{off: s.pos, msg: "invalid character " + quoteChar(s.data[s.pos:]) + " " + ctx}
}

func (s *scanner) errEOF() *lineError {
	return &lineError{off: len(s.data), msg: "unexpected end of line: the JSON value is not complete"}
}

// quoteChar quotes the character at the start of b for a message.
func quoteChar(b []byte) string {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", b[0])
	}
	return strconv.QuoteRune(r)
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// end checks that only white space follows the top-level value.
func (s *scanner) end() *lineError {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.errChar("after top-level value")
	}
	return nil
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// beginObject consumes '{'. what names the value for the message when
// it is not an object.
func (s *scanner) beginObject(field, what string) *lineError {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	if s.data[s.pos] != '{' {
		return s.errAt(s.pos, field, "want %s, got %s", what, s.describe())
	}
	if s.depth++; s.depth > maxDepth {
		return s.errAt(s.pos, "", "nested more than %d deep", maxDepth)
	}
	s.pos++
	return nil
}

// member reads the key of the next member of the object being read and
// the ':' after it; i counts the members read so far. It returns ok
// false, having consumed '}', after the last member. The key aliases the
// line or s.buf: use it before decoding another string.
func (s *scanner) member(i int) (key []byte, keyOff int, ok bool, err *lineError) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return nil, 0, false, s.errEOF()
	}
	if i > 0 {
		switch s.data[s.pos] {
		case '}':
			s.pos++
			s.depth--
			return nil, 0, false, nil
		case ',':
			comma := s.pos
			s.pos++
			s.skipSpace()
			if s.pos < len(s.data) && s.data[s.pos] == '}' {
				return nil, 0, false, s.errAt(comma, "", "trailing comma before '}', which JSON does not allow")
			}
		default:
			return nil, 0, false, s.errChar("after object key:value pair (want ',' or '}')")
		}
	} else if s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil, 0, false, nil
	}
	s.skipSpace()
	if s.pos >= len(s.data) {
		return nil, 0, false, s.errEOF()
	}
	if s.data[s.pos] != '"' {
		return nil, 0, false, s.errChar("looking for beginning of object key string")
	}
	keyOff = s.pos
	key, err = s.str()
	if err != nil {
		return nil, 0, false, err
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return nil, 0, false, s.errChar("after object key (want ':')")
	}
	s.pos++
	s.skipSpace()
	return key, keyOff, true, nil
}

// beginArray consumes '['.
func (s *scanner) beginArray() {
	s.depth++
	s.pos++
}

// element reports whether another element of the array being read
// follows (consuming the ',' before it), or consumes ']'.
func (s *scanner) element(i int) (bool, *lineError) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, s.errEOF()
	}
	if s.depth > maxDepth {
		return false, s.errAt(s.pos, "", "nested more than %d deep", maxDepth)
	}
	c := s.data[s.pos]
	if c == ']' && i == 0 {
		s.pos++
		s.depth--
		return false, nil
	}
	if i == 0 {
		return true, nil
	}
	switch c {
	case ']':
		s.pos++
		s.depth--
		return false, nil
	case ',':
		comma := s.pos
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			return false, s.errAt(comma, "", "trailing comma before ']', which JSON does not allow")
		}
		return true, nil
	}
	return false, s.errChar("after array element (want ',' or ']')")
}

// describe names the JSON type of the value at s.pos, for messages.
func (s *scanner) describe() string {
	if s.pos >= len(s.data) {
		return "nothing"
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || isDigit(c):
		end := s.pos + 1
		for end < len(s.data) && end-s.pos < 24 && bytes.IndexByte([]byte("0123456789.eE+-"), s.data[end]) >= 0 {
			end++
		}
		return "the number " + string(s.data[s.pos:end])
	}
	return quoteChar(s.data[s.pos:])
}

// position converts byte offset off of line into a 1-based column
// counted in Unicode characters (each byte of invalid UTF-8 counts one).
func position(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}
