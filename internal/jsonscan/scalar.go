package jsonscan

import "fmt"

// This file holds the lexer's numbers and literals.

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans the number at s.pos and reports whether it is an integer
// (no fraction, no exponent).
func (s *Scanner) number() (start int, integer bool, err *Error) {
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

// Number reads the number at the next non-space byte and returns its
// literal text (aliasing the scanned text) and whether it is an integer
// (no fraction, no exponent). A value that is no number is an error for
// field.
func (s *Scanner) Number(field string) (lit []byte, integer bool, err *Error) {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return nil, false, s.errEOF()
	}
	if c := s.data[s.pos]; c != '-' && !isDigit(c) {
		return nil, false, s.Mismatch(field, "a number")
	}
	start, integer, err := s.number()
	if err != nil {
		return nil, false, err
	}
	return s.data[start:s.pos], integer, nil
}

// Integer reads a whole number between lo and hi for field.
func (s *Scanner) Integer(field string, lo, hi int) (int, *Error) {
	s.SkipSpace()
	off := s.pos
	if s.pos >= len(s.data) {
		return 0, s.errEOF()
	}
	if c := s.data[s.pos]; c != '-' && !isDigit(c) {
		return 0, s.Mismatch(field, "a whole number")
	}
	start, integer, err := s.number()
	if err != nil {
		return 0, err
	}
	lit := s.data[start:s.pos]
	if !integer {
		return 0, s.Errorf(off, field, "want a whole number, got %s", lit)
	}
	n, ok := ParseInt(lit)
	if !ok || n < int64(lo) || n > int64(hi) {
		return 0, s.Errorf(off, field, "want a whole number from %d to %d, got %s", lo, hi, lit)
	}
	return int(n), nil
}

// ParseInt parses an integer literal already checked as JSON (as Number
// returns it), reporting false when it has more than 18 digits.
func ParseInt(lit []byte) (int64, bool) {
	if len(lit) == 0 {
		return 0, false
	}
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range lit {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Literal consumes word (true, false or null) at the next non-space byte.
func (s *Scanner) Literal(word string) *Error {
	s.SkipSpace()
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

// Null consumes a null if one comes next and reports whether it did.
func (s *Scanner) Null() (bool, *Error) {
	if s.Peek() != 'n' {
		return false, nil
	}
	return true, s.Literal("null")
}

// Bool reads true or false for field; anything else (null included) is
// an error. A caller that takes null for false asks Null first.
func (s *Scanner) Bool(field string) (bool, *Error) {
	switch s.Peek() {
	case 't':
		return true, s.Literal("true")
	case 'f':
		return false, s.Literal("false")
	}
	return false, s.Mismatch(field, "true or false")
}

// StringOrNull reads a string for field, decoded as String does; null
// gives nil and isNull true. off is the offset of the value.
func (s *Scanner) StringOrNull(field string) (b []byte, off int, isNull bool, err *Error) {
	switch s.Peek() {
	case '"':
		off = s.pos
		b, err = s.str()
		return b, off, false, err
	case 'n':
		off = s.pos
		return nil, off, true, s.Literal("null")
	}
	off = s.pos
	return nil, off, false, s.Mismatch(field, "a string")
}
