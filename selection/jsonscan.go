package selection

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonenc"
)

// This file holds the small strict JSON lexer that the session and event
// readers decode one line with. It allocates nothing per line (decoded
// strings alias the line or a reused buffer), keeps the byte offset of
// every error for FILE:LINE:COL messages, and accepts exactly RFC 8259
// JSON in UTF-8: what encoding/json accepts, except invalid UTF-8 inside
// strings, which it rejects (FuzzParseSession and FuzzParseEvent hold it
// to that). Nesting is limited to maxDepth, as in encoding/json.
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

// span is one member of an object being canonicalised: its key and its
// whole "key":value text, as offsets into the output.
type span struct{ key0, key1, m0, m1 int }

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

// plain marks the bytes a string can hold as they are: printable ASCII
// other than '"' and '\\'. A string is scanned a table look-up a byte.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str scans the string at s.pos (which is '"') and returns its decoded
// bytes: a sub-slice of the line when it has no escapes, else s.buf.
func (s *scanner) str() ([]byte, *lineError) {
	start := s.pos
	i := s.pos + 1
	ascii := true
	for {
		for i < len(s.data) && plain[s.data[i]] {
			i++
		}
		if i >= len(s.data) {
			return nil, s.errAt(start, "", "unterminated string: the line ends before its closing quote")
		}
		c := s.data[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			s.pos = i
			return s.strEscaped(start)
		}
		if c < 0x20 {
			s.pos = i
			return nil, s.errChar("in string literal (control characters must be escaped)")
		}
		ascii = false
		i++
	}
	raw := s.data[start+1 : i]
	if !ascii && !utf8.Valid(raw) {
		return nil, s.badUTF8(start + 1)
	}
	s.pos = i + 1
	return raw, nil
}

// badUTF8 reports the first invalid UTF-8 byte at or after off.
func (s *scanner) badUTF8(off int) *lineError {
	for off < len(s.data) {
		r, size := utf8.DecodeRune(s.data[off:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		off += size
	}
	c := byte(0)
	if off < len(s.data) {
		c = s.data[off]
	}
	return s.errAt(off, "", "invalid UTF-8 (byte 0x%02x) in string literal", c)
}

// strEscaped decodes the string starting at start into s.buf; s.pos is
// at its first backslash.
func (s *scanner) strEscaped(start int) ([]byte, *lineError) {
	s.buf = append(s.buf[:0], s.data[start+1:s.pos]...)
	if !utf8.Valid(s.buf) {
		return nil, s.badUTF8(start + 1)
	}
	for {
		if s.pos >= len(s.data) {
			return nil, s.errAt(start, "", "unterminated string: the line ends before its closing quote")
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return s.buf, nil
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				s.pos++
				return nil, s.errEOF()
			}
			switch e := s.data[s.pos+1]; e {
			case '"', '\\', '/':
				s.buf = append(s.buf, e)
			case 'b':
				s.buf = append(s.buf, '\b')
			case 'f':
				s.buf = append(s.buf, '\f')
			case 'n':
				s.buf = append(s.buf, '\n')
			case 'r':
				s.buf = append(s.buf, '\r')
			case 't':
				s.buf = append(s.buf, '\t')
			case 'u':
				r, ok := s.hex4(s.pos + 2)
				if !ok {
					return nil, s.errChar(`in \u hexadecimal character escape`)
				}
				s.pos += 6
				if utf8.RuneLen(r) < 0 { // a surrogate
					if r < 0xDC00 && s.pos+6 <= len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
						if lo, ok := s.hex4(s.pos + 2); ok && 0xDC00 <= lo && lo < 0xE000 {
							r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
							s.pos += 6
						}
					}
					if utf8.RuneLen(r) < 0 {
						r = utf8.RuneError // as encoding/json does
					}
				}
				s.buf = utf8.AppendRune(s.buf, r)
				continue
			default:
				s.pos++
				return nil, s.errChar("in string escape code")
			}
			s.pos += 2
		case c < 0x20:
			return nil, s.errChar("in string literal (control characters must be escaped)")
		case c < utf8.RuneSelf:
			s.buf = append(s.buf, c)
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, s.errAt(s.pos, "", "invalid UTF-8 (byte 0x%02x) in string literal", c)
			}
			s.buf = append(s.buf, s.data[s.pos:s.pos+size]...)
			s.pos += size
		}
	}
}

// hex4 decodes the four hexadecimal digits at off. On failure s.pos is
// left at the offending byte.
func (s *scanner) hex4(off int) (rune, bool) {
	var r rune
	for i := off; i < off+4; i++ {
		if i >= len(s.data) {
			s.pos = i
			return 0, false
		}
		c := s.data[i]
		switch {
		case isDigit(c):
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			s.pos = i
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans the number at s.pos and reports whether it is an integer
// (no fraction, no exponent).
func (s *scanner) number() (start int, integer bool, err *lineError) {
	start = s.pos
	integer = true
	if s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos >= len(s.data):
		return start, false, s.errEOF()
	case s.data[s.pos] == '0':
		s.pos++
	case isDigit(s.data[s.pos]):
		for s.pos < len(s.data) && isDigit(s.data[s.pos]) {
			s.pos++
		}
	default:
		return start, false, s.errChar("in numeric literal")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		integer = false
		s.pos++
		if s.pos >= len(s.data) || !isDigit(s.data[s.pos]) {
			return start, false, s.errChar("after decimal point in numeric literal")
		}
		for s.pos < len(s.data) && isDigit(s.data[s.pos]) {
			s.pos++
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		integer = false
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.pos >= len(s.data) || !isDigit(s.data[s.pos]) {
			return start, false, s.errChar("in exponent of numeric literal")
		}
		for s.pos < len(s.data) && isDigit(s.data[s.pos]) {
			s.pos++
		}
	}
	return start, integer, nil
}

// integer reads a whole number between lo and hi for field.
func (s *scanner) integer(field string, lo, hi int) (int, *lineError) {
	s.skipSpace()
	off := s.pos
	if s.pos >= len(s.data) {
		return 0, s.errEOF()
	}
	if c := s.data[s.pos]; c != '-' && !isDigit(c) {
		desc := s.describe()
		if err := s.skipValue(); err != nil {
			return 0, err
		}
		return 0, s.errAt(off, field, "want a whole number, got %s", desc)
	}
	start, integer, err := s.number()
	if err != nil {
		return 0, err
	}
	lit := s.data[start:s.pos]
	if !integer {
		return 0, s.errAt(off, field, "want a whole number, got %s", lit)
	}
	n, ok := parseInt(lit)
	if !ok || n < int64(lo) || n > int64(hi) {
		return 0, s.errAt(off, field, "want a whole number from %d to %d, got %s", lo, hi, lit)
	}
	return int(n), nil
}

// parseInt parses the integer literal lit (already checked as JSON),
// reporting false when it has more than 18 digits.
func parseInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range lit {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// literal consumes word (true, false or null) at s.pos.
func (s *scanner) literal(word string) *lineError {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return s.errEOF()
		}
		if s.data[s.pos] != word[i] {
			return s.errChar(fmt.Sprintf("in literal %s (expecting %q)", word, word[i]))
		}
		s.pos++
	}
	return nil
}

// boolean reads true or false (or null, which gives false) for field.
func (s *scanner) boolean(field string) (bool, *lineError) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return false, s.literal("null")
	}
	off, desc := s.pos, s.describe()
	if err := s.skipValue(); err != nil {
		return false, err
	}
	return false, s.errAt(off, field, "want true or false, got %s", desc)
}

// stringField reads a string for field; null gives "" and isNull true.
func (s *scanner) stringField(field string) (b []byte, off int, isNull bool, err *lineError) {
	s.skipSpace()
	off = s.pos
	switch s.peek() {
	case '"':
		b, err = s.str()
		return b, off, false, err
	case 'n':
		return nil, off, true, s.literal("null")
	}
	desc := s.describe()
	if err := s.skipValue(); err != nil {
		return nil, off, false, err
	}
	return nil, off, false, s.errAt(off, field, "want a string, got %s", desc)
}

// skipValue checks and skips one JSON value.
func (s *scanner) skipValue() *lineError {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		if err := s.beginObject("", "an object"); err != nil {
			return err
		}
		for i := 0; ; i++ {
			_, _, ok, err := s.member(i)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := s.skipValue(); err != nil {
				return err
			}
		}
	case c == '[':
		s.beginArray()
		for i := 0; ; i++ {
			more, err := s.element(i)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := s.skipValue(); err != nil {
				return err
			}
		}
	case c == '"':
		_, err := s.skipString()
		return err
	case c == '-' || isDigit(c):
		_, _, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.errChar("looking for beginning of value")
}

// skipString checks the string at s.pos without decoding it and reports
// whether it had escapes. The text is s.data[start+1 : s.pos-1].
func (s *scanner) skipString() (escaped bool, err *lineError) {
	start := s.pos
	i := s.pos + 1
	ascii := true
	for {
		for i < len(s.data) && plain[s.data[i]] {
			i++
		}
		if i >= len(s.data) {
			return false, s.errAt(start, "", "unterminated string: the line ends before its closing quote")
		}
		c := s.data[i]
		if c == '"' {
			if !ascii && !utf8.Valid(s.data[start+1:i]) {
				return false, s.badUTF8(start + 1)
			}
			s.pos = i + 1
			return false, nil
		}
		if c == '\\' {
			s.pos = i
			_, err := s.strEscaped(start)
			return true, err
		}
		if c < 0x20 {
			s.pos = i
			return false, s.errChar("in string literal (control characters must be escaped)")
		}
		ascii = false
		i++
	}
}

// canonical checks the value at s.pos and appends its canonical form to
// dst: no white space, object members sorted by key (byte order of the
// decoded key; members with equal keys keep their order), strings with a
// fixed escaping, numbers as written. Two values are canonically equal
// when they differ only in key order and white space (and in how their
// strings are escaped).
func (s *scanner) canonical(dst []byte) ([]byte, *lineError) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return dst, s.errEOF()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		if err := s.beginObject("", "an object"); err != nil {
			return dst, err
		}
		dst = append(dst, '{')
		base := len(s.spans)
		sorted := true
		for i := 0; ; i++ {
			key, _, ok, err := s.member(i)
			if err != nil {
				s.spans = s.spans[:base]
				return dst, err
			}
			if !ok {
				break
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			m0 := len(dst)
			dst = jsonenc.AppendString(dst, key)
			k1 := len(dst)
			dst = append(dst, ':')
			if dst, err = s.canonical(dst); err != nil {
				s.spans = s.spans[:base]
				return dst, err
			}
			sp := span{key0: m0, key1: k1, m0: m0, m1: len(dst)}
			if n := len(s.spans); n > base && bytes.Compare(dst[s.spans[n-1].key0:s.spans[n-1].key1], dst[sp.key0:sp.key1]) > 0 {
				sorted = false
			}
			s.spans = append(s.spans, sp)
		}
		if !sorted {
			dst = s.sortMembers(dst, s.spans[base:])
		}
		s.spans = s.spans[:base]
		return append(dst, '}'), nil
	case c == '[':
		s.beginArray()
		dst = append(dst, '[')
		for i := 0; ; i++ {
			more, err := s.element(i)
			if err != nil {
				return dst, err
			}
			if !more {
				return append(dst, ']'), nil
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = s.canonical(dst); err != nil {
				return dst, err
			}
		}
	case c == '"':
		b, err := s.str()
		if err != nil {
			return dst, err
		}
		return jsonenc.AppendString(dst, b), nil
	case c == '-' || isDigit(c):
		start, _, err := s.number()
		return append(dst, s.data[start:s.pos]...), err
	case c == 't':
		return append(dst, "true"...), s.literal("true")
	case c == 'f':
		return append(dst, "false"...), s.literal("false")
	case c == 'n':
		return append(dst, "null"...), s.literal("null")
	}
	return dst, s.errChar("looking for beginning of value")
}

// sortMembers rewrites the members of one object, which occupy dst from
// ms[0].m0 to the end, in key order.
func (s *scanner) sortMembers(dst []byte, ms []span) []byte {
	key := func(m span) []byte { return dst[m.key0:m.key1] }
	if len(ms) <= 12 {
		// Insertion sort: stable, and the fastest for the few members an
		// argument object has.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && bytes.Compare(key(ms[j-1]), key(ms[j])) > 0; j-- {
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
	} else {
		slices.SortStableFunc(ms, func(a, b span) int { return bytes.Compare(key(a), key(b)) })
	}
	start := ms[0].m0
	for _, m := range ms {
		start = min(start, m.m0)
	}
	s.canon = s.canon[:0]
	for i, m := range ms {
		if i > 0 {
			s.canon = append(s.canon, ',')
		}
		s.canon = append(s.canon, dst[m.m0:m.m1]...)
	}
	return append(dst[:start], s.canon...)
}

// position converts byte offset off of line into a 1-based column
// counted in Unicode characters (each byte of invalid UTF-8 counts one).
func position(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}
