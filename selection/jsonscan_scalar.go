package selection

import "fmt"

// This file holds the JSON lexer's numbers and literals, and the readers
// of an integer, boolean or string field.

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
