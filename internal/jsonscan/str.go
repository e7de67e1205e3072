package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// This file holds the lexer's strings: scanning, decoding escapes and
// checking UTF-8.

// String reads the string at the next non-space byte for field and
// returns its decoded bytes: a sub-slice of the text when it has no
// escapes, else the scanner's buffer, valid until the next string is
// decoded. A value that is no string is an error for field.
func (s *Scanner) String(field string) ([]byte, *Error) {
	if s.Peek() != '"' {
		return nil, s.Mismatch(field, "a string")
	}
	return s.str()
}

// RawString reads the string at the next non-space byte for field
// without decoding it: raw is the text between the quotes (aliasing the
// scanned text) and escaped whether it holds escapes (AppendUnescaped
// decodes it then). The string is checked all the same.
func (s *Scanner) RawString(field string) (raw []byte, escaped bool, err *Error) {
	if s.Peek() != '"' {
		return nil, false, s.Mismatch(field, "a string")
	}
	start := s.pos
	escaped, err = s.skipString()
	if err != nil {
		return nil, false, err
	}
	return s.data[start+1 : s.pos-1], escaped, nil
}

// str scans the string at s.pos (which is '"') and returns its decoded
// bytes: a sub-slice of the text when it has no escapes, else s.buf.
func (s *Scanner) str() ([]byte, *Error) {
	start := s.pos
	i, ascii, err := s.unescaped(start, start+1)
	if err != nil {
		return nil, err
	}
	if s.data[i] == '\\' {
		s.pos = i
		return s.strEscaped(start)
	}
	raw := s.data[start+1 : i]
	if !ascii && !utf8.Valid(raw) {
		return nil, s.badUTF8(start + 1)
	}
	s.pos = i + 1
	return raw, nil
}

// unescaped scans the string opening at start, from from, up to its
// closing quote or its first backslash, at i, and says whether the bytes
// from from to i are all ASCII (those that are not are not checked yet).
func (s *Scanner) unescaped(start, from int) (i int, ascii bool, err *Error) {
	i, high := stopEnd(s.data, from)
	if i >= len(s.data) {
		return i, !high, s.unterminated(start)
	}
	if s.data[i] < 0x20 {
		s.pos = i
		return i, !high, s.errChar("in string literal (control characters must be escaped)")
	}
	return i, !high, nil
}

// badUTF8 reports the first invalid UTF-8 byte at or after off.
func (s *Scanner) badUTF8(off int) *Error {
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
	return s.Errorf(off, "", "invalid UTF-8 (byte 0x%02x) in string literal", c)
}

// strEscaped decodes the string starting at start into s.buf; s.pos is
// at its first backslash. It copies eight bytes at a time into a buffer
// with room for the rest of the text (a decoded string is no longer than
// its text) and eight bytes more; the UTF-8 of the text from the first
// backslash is checked where the string ends or an error is found, so
// that an invalid byte is reported before any error after it, as a
// check run by run would.
func (s *Scanner) strEscaped(start int) ([]byte, *Error) {
	const highs = 0x8080808080808080
	data := s.data
	if !utf8.Valid(data[start+1 : s.pos]) {
		return nil, s.badUTF8(start + 1)
	}
	if need := len(data) - start + 8; cap(s.buf) < need {
		s.buf = make([]byte, 0, max(need, 2*cap(s.buf)))
	}
	buf := s.buf[:cap(s.buf)]
	w := copy(buf, data[start+1:s.pos])
	first, i := s.pos, s.pos
	var hi uint64 // the bytes copied from first on, ORed: are they ASCII?
	for {
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			binary.LittleEndian.PutUint64(buf[w:], x)
			if m := stops(x); m != 0 {
				n := bits.TrailingZeros64(m)
				hi |= x & (1<<(n-7) - 1)
				i += n >> 3
				w += n >> 3
				goto stop
			}
			hi |= x
			i += 8
			w += 8
		}
		for ; i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20; i++ {
			hi |= uint64(data[i])
			buf[w] = data[i]
			w++
		}
	stop:
		s.pos = i
		if i < len(data) && data[i] == '\\' && i+1 < len(data) {
			if d := unescape[data[i+1]]; d != 0 {
				buf[w] = d
				w++
				i += 2
				continue
			}
		}
		if hi&highs != 0 && !utf8.Valid(data[first:i]) {
			return nil, s.badUTF8(first)
		}
		if i >= len(data) {
			return nil, s.unterminated(start)
		}
		switch c := data[i]; {
		case c == '"':
			s.pos++
			s.buf = buf[:w]
			return s.buf, nil
		case c == '\\':
			if i+1 >= len(data) {
				s.pos++
				return nil, s.errEOF()
			}
			if data[i+1] != 'u' {
				s.pos++
				return nil, s.errChar("in string escape code")
			}
			r, ok := s.hex4(i + 2)
			if !ok {
				return nil, s.errChar(`in \u hexadecimal character escape`)
			}
			r, n := pairRune(r, data[i+6:])
			w += utf8.EncodeRune(buf[w:], r)
			i += 6 + n
		default: // a control character
			return nil, s.errChar("in string literal (control characters must be escaped)")
		}
	}
}

// hex4 decodes the four hexadecimal digits at off. On failure s.pos is
// left at the offending byte.
func (s *Scanner) hex4(off int) (rune, bool) {
	var r rune
	for i := off; i < off+4; i++ {
		if i >= len(s.data) || unhex[s.data[i]] < 0 {
			s.pos = i
			return 0, false
		}
		r = r<<4 | rune(unhex[s.data[i]])
	}
	return r, true
}

// skipString checks the string at s.pos without decoding it and reports
// whether it had escapes. The text is s.data[start+1 : s.pos-1].
func (s *Scanner) skipString() (escaped bool, err *Error) {
	start := s.pos
	i, ascii, err := s.unescaped(start, start+1)
	if err != nil {
		return false, err
	}
	if s.data[i] == '\\' {
		s.pos = i
		return true, s.skipEscaped(start, ascii)
	}
	if !ascii && !utf8.Valid(s.data[start+1:i]) {
		return false, s.badUTF8(start + 1)
	}
	s.pos = i + 1
	return false, nil
}

// AppendUnescaped appends the decoded form of raw, the text between the
// quotes of a string that RawString has checked, to dst. On text that
// was not checked it decodes what it can: a bad escape is kept as it is.
func AppendUnescaped(dst, raw []byte) []byte {
	for len(raw) > 0 {
		i := 0
		for i < len(raw) && raw[i] != '\\' {
			i++
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		if len(raw) < 2 {
			return append(dst, raw...)
		}
		if d := unescape[raw[1]]; d != 0 {
			dst = append(dst, d)
			raw = raw[2:]
			continue
		}
		r, ok := rune(0), false
		if raw[1] == 'u' {
			r, ok = hex(raw[2:])
		}
		if !ok {
			dst = append(dst, raw[:2]...)
			raw = raw[2:]
			continue
		}
		r, n := pairRune(r, raw[6:])
		dst = utf8.AppendRune(dst, r)
		raw = raw[6+n:]
	}
	return dst
}

// hex decodes four hexadecimal digits at the start of b.
func hex(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		if unhex[c] < 0 {
			return 0, false
		}
		r = r<<4 | rune(unhex[c])
	}
	return r, true
}

// unhex is the value of a hexadecimal digit, or -1.
var unhex = func() (t [256]int8) {
	for c := range t {
		switch {
		case isDigit(byte(c)):
			t[c] = int8(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = int8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = int8(c - 'A' + 10)
		default:
			t[c] = -1
		}
	}
	return t
}()

// unescape is the byte a one-character escape stands for (after the
// backslash), or 0 for \u and the bytes that are no escape.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// pairRune completes r, the rune of a \u escape, with the escape that
// starts rest when r is the high half of a surrogate pair and rest's
// escape a low half, returning the rune and the bytes of rest it used
// (0 or 6). A lone half is U+FFFD, as encoding/json makes it. It reads
// the low half with hex, not hex4: a bad low half is not the first
// escape's error (it is read again on its own), and moves nothing.
func pairRune(r rune, rest []byte) (rune, int) {
	if utf8.RuneLen(r) >= 0 {
		return r, 0
	}
	if r < 0xDC00 && len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
		if lo, ok := hex(rest[2:]); ok && 0xDC00 <= lo && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 6
		}
	}
	return utf8.RuneError, 0
}

// skipEscaped checks the rest of the string starting at start without
// decoding it; s.pos is at a backslash, and ascii says whether the bytes
// before it were all ASCII. It accepts what strEscaped accepts
// (FuzzScanner compares them).
func (s *Scanner) skipEscaped(start int, ascii bool) *Error {
	const highs = 0x8080808080808080
	i, data := s.pos, s.data
	from := start + 1 // UTF-8 is checked from here when the string ends
	var hi uint64     // the bytes passed over, ORed: are they ASCII?
	for {
		// stopEnd, inline: a string of code or output has an escape
		// every twenty bytes or so.
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			if m := stops(x); m != 0 {
				n := bits.TrailingZeros64(m)
				hi |= x & (1<<(n-7) - 1)
				i += n >> 3
				// The common escape (\n, \", \\) is passed over here.
				if data[i] == '\\' && i+1 < len(data) && unescape[data[i+1]] != 0 {
					i += 2
					continue
				}
				goto stop
			}
			hi |= x
			i += 8
		}
		for ; i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20; i++ {
			hi |= uint64(data[i])
		}
	stop:
		if i >= len(s.data) {
			return s.unterminated(start)
		}
		switch c := s.data[i]; {
		case c == '"':
			if (!ascii || hi&highs != 0) && !utf8.Valid(s.data[from:i]) {
				return s.badUTF8(from)
			}
			s.pos = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(s.data) {
				s.pos = i + 1
				return s.errEOF()
			}
			switch e := s.data[i+1]; {
			case unescape[e] != 0:
				i += 2
			case e == 'u':
				if _, ok := s.hex4(i + 2); !ok {
					return s.errChar(`in \u hexadecimal character escape`)
				}
				i += 6
			default:
				s.pos = i + 1
				return s.errChar("in string escape code")
			}
		default: // a control character
			s.pos = i
			return s.errChar("in string literal (control characters must be escaped)")
		}
	}
}
