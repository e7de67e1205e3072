// Package jsonscan is tally's one JSON lexer: a strict scanner over one
// JSON text held in memory (a line of JSONL, or a whole document) that
// decodes without building a tree, allocates nothing per value (decoded
// strings alias the input or a reused buffer), and keeps the byte offset
// of every error so that callers can report FILE:LINE:COL and the field.
//
// It accepts exactly RFC 8259 JSON in UTF-8: what encoding/json accepts,
// except invalid UTF-8 inside strings, which it rejects. Nesting is
// limited to MaxDepth, as in encoding/json.
//
// A caller drives it value by value: BeginObject and Member walk an
// object's members (or Fields, for a decoder that reads a fixed set of
// names and declines the rest), BeginArray and Element an array's
// elements, and String, RawString, Integer, Number, Bool, Null and
// SkipValue read one value each. Canonical appends a value's canonical
// form. Every method
// that can fail returns a *Error (a concrete pointer: compare it with
// nil before turning it into an error), whose Off is a byte offset into
// the scanned text; Position and Column turn it into a line and a column
// counted in characters.
//
// Why not encoding/json: reflection-driven decoding of a 150-byte record
// costs several times this lexer, and its errors carry a byte offset but
// no field for type errors inside arrays; tally reads gigabytes of events,
// contexts and verdicts, so the decoder is where the time goes.
package jsonscan

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting accepted, as in encoding/json.
const MaxDepth = 10000

// Error is one problem in a scanned text: at byte offset Off, in Field
// (a jq-style path such as "items[2].turn", or "" for a syntax error).
type Error struct {
	Off   int
	Field string
	Msg   string
	// EOF is set when the text ended before the value was complete: at
	// Off == len(text), or inside the string that opens at Off (a reader
	// with its own words for a truncated file uses it).
	EOF bool
}

// Error gives the field and the message (the caller adds the position).
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Scanner lexes one JSON text. The zero Scanner is ready for Reset; it
// may be reused for any number of texts, keeping its buffers.
type Scanner struct {
	data  []byte
	pos   int
	depth int
	buf   []byte // decoded strings with escapes
	canon []byte // scratch for canonical JSON
	spans []span // scratch for sorting object members
	eof   string // the message for a text that ends too soon
}

// Reset starts scanning data, a line without its newline: a text that
// ends too soon is "unexpected end of line".
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos, s.depth = data, 0, 0
	s.eof = ""
}

// ResetDocument starts scanning data, a whole file: a text that ends too
// soon is "unexpected end of file".
func (s *Scanner) ResetDocument(data []byte) {
	s.Reset(data)
	s.eof = "unexpected end of file: the JSON value is not complete"
}

// Data returns the text being scanned.
func (s *Scanner) Data() []byte { return s.data }

// Pos returns the byte offset of the next byte to be read.
func (s *Scanner) Pos() int { return s.pos }

// Errorf returns an error at byte offset off in field.
func (s *Scanner) Errorf(off int, field, format string, args ...any) *Error {
	return &Error{Off: off, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// errChar reports the character at s.pos as unexpected in context ctx.
func (s *Scanner) errChar(ctx string) *Error {
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	if e := s.bom(); e != nil {
		return e
	}
	return &Error{Off: s.pos, Msg: "invalid character " + quoteChar(s.data[s.pos:]) + " " + ctx}
}

// BOM is a UTF-8 byte order mark, with which Windows Notepad and Excel
// start a UTF-8 file, and BOMProblem what every JSON reader says of one.
const (
	BOM        = "\xef\xbb\xbf"
	BOMProblem = "a UTF-8 byte order mark, which JSON does not allow (save the file as UTF-8 without BOM)"
)

// bom is the error of a UTF-8 byte order mark at s.pos, nil when there
// is none.
func (s *Scanner) bom() *Error {
	if bytes.HasPrefix(s.data[s.pos:], []byte(BOM)) {
		return &Error{Off: s.pos, Msg: BOMProblem}
	}
	return nil
}

func (s *Scanner) errEOF() *Error {
	msg := s.eof
	if msg == "" {
		msg = "unexpected end of line: the JSON value is not complete"
	}
	return &Error{Off: len(s.data), Msg: msg, EOF: true}
}

// unterminated reports the string opening at start as never closed.
func (s *Scanner) unterminated(start int) *Error {
	if s.eof != "" {
		return &Error{Off: start, Msg: "unterminated string: the file ends before its closing quote", EOF: true}
	}
	return &Error{Off: start, Msg: "unterminated string: the line ends before its closing quote", EOF: true}
}

// quoteChar quotes the character at the start of b for a message.
func quoteChar(b []byte) string {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", b[0])
	}
	return strconv.QuoteRune(r)
}

// SkipSpace consumes white space.
func (s *Scanner) SkipSpace() {
	for s.pos < len(s.data) {
		// Above ' ' at once: compact JSON has no space between tokens.
		if c := s.data[s.pos]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		s.pos++
	}
}

// End checks that only white space follows the top-level value.
func (s *Scanner) End() *Error {
	s.SkipSpace()
	if s.pos < len(s.data) {
		return s.errChar("after top-level value")
	}
	return nil
}

// Peek skips white space and returns the next byte, or 0 at the end. The
// byte tells the value's type: '{', '[', '"', 't', 'f', 'n', or '-' or a
// digit.
func (s *Scanner) Peek() byte {
	s.SkipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// BeginObject consumes '{'. what names the wanted value for the message
// when it is not an object, which is at field.
func (s *Scanner) BeginObject(field, what string) *Error { return s.begin('{', field, what) }

// begin consumes open, '{' or '[', for BeginObject or BeginArray.
func (s *Scanner) begin(open byte, field, what string) *Error {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	if s.data[s.pos] != open {
		if e := s.bom(); e != nil {
			return e
		}
		return s.Errorf(s.pos, field, "want %s, got %s", what, s.Describe())
	}
	return s.push()
}

// push enters the object or array opening at s.pos.
func (s *Scanner) push() *Error {
	if s.depth++; s.depth > MaxDepth {
		return s.Errorf(s.pos, "", "nested more than %d deep", MaxDepth)
	}
	s.pos++
	return nil
}

// Member reads the key of the next member of the object being read and
// the ':' after it; i counts the members read so far. It returns ok
// false, having consumed '}', after the last member. The key is decoded
// and aliases the text or the scanner's buffer: use it before reading
// another string. keyOff is the offset of the key's opening quote.
func (s *Scanner) Member(i int) (key []byte, keyOff int, ok bool, err *Error) {
	s.SkipSpace()
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
			s.SkipSpace()
			if s.pos < len(s.data) && s.data[s.pos] == '}' {
				return nil, 0, false, s.Errorf(comma, "", "trailing comma before '}', which JSON does not allow")
			}
		default:
			return nil, 0, false, s.errChar("after object key:value pair (want ',' or '}')")
		}
	} else if s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil, 0, false, nil
	}
	s.SkipSpace()
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
	s.SkipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return nil, 0, false, s.errChar("after object key (want ':')")
	}
	s.pos++
	s.SkipSpace()
	return key, keyOff, true, nil
}

// BeginArray consumes '['. what names the wanted value for the message
// when it is not an array, which is at field.
func (s *Scanner) BeginArray(field, what string) *Error { return s.begin('[', field, what) }

// Element reports whether another element of the array being read
// follows (consuming the ',' before it), or consumes ']'; i counts the
// elements read so far.
func (s *Scanner) Element(i int) (bool, *Error) {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return false, s.errEOF()
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
		s.SkipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			return false, s.Errorf(comma, "", "trailing comma before ']', which JSON does not allow")
		}
		return true, nil
	}
	return false, s.errChar("after array element (want ',' or ']')")
}

// Describe names the JSON type of the value at the next non-space byte,
// for messages: "an object", "a string", "the number 12", ….
func (s *Scanner) Describe() string {
	s.SkipSpace()
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

// Mismatch skips the value at the next non-space byte and returns the
// error that it is not what field wants ("want WANT, got an array"), or
// the syntax error found while skipping it.
func (s *Scanner) Mismatch(field, want string) *Error {
	s.SkipSpace()
	off, desc := s.pos, s.Describe()
	if err := s.SkipValue(); err != nil {
		return err
	}
	return s.Errorf(off, field, "want %s, got %s", want, desc)
}
