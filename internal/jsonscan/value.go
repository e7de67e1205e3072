package jsonscan

import (
	"bytes"
	"slices"

	"github.com/tally-eval/tally/internal/jsonenc"
)

// This file holds whole values: skipping one, and appending its
// canonical form.

// span is one member of an object being canonicalised: its key and its
// whole "key":value text, as offsets into the output.
type span struct{ key0, key1, m0, m1 int }

// SkipValue checks and skips one JSON value.
func (s *Scanner) SkipValue() *Error {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return s.errEOF()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		if err := s.BeginObject("", "an object"); err != nil {
			return err
		}
		for i := 0; ; i++ {
			_, _, ok, err := s.Member(i)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := s.SkipValue(); err != nil {
				return err
			}
		}
	case c == '[':
		if err := s.push(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			more, err := s.Element(i)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := s.SkipValue(); err != nil {
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
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	}
	return s.errChar("looking for beginning of value")
}

// RawValue checks and skips one JSON value and returns its text as
// written (aliasing the scanned text) and its offset.
func (s *Scanner) RawValue() (raw []byte, off int, err *Error) {
	s.SkipSpace()
	off = s.pos
	if err := s.SkipValue(); err != nil {
		return nil, off, err
	}
	return s.data[off:s.pos], off, nil
}

// Canonical checks the value at the next non-space byte and appends its
// canonical form to dst: no white space, object members sorted by key
// (byte order of the decoded key; members with equal keys keep their
// order), strings with a fixed escaping (jsonenc.AppendString), numbers
// as written. Two values are canonically equal when they differ only in
// key order and white space (and in how their strings are escaped).
func (s *Scanner) Canonical(dst []byte) ([]byte, *Error) {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return dst, s.errEOF()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		if err := s.BeginObject("", "an object"); err != nil {
			return dst, err
		}
		dst = append(dst, '{')
		base := len(s.spans)
		sorted := true
		for i := 0; ; i++ {
			key, _, ok, err := s.Member(i)
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
			if dst, err = s.Canonical(dst); err != nil {
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
		if err := s.push(); err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for i := 0; ; i++ {
			more, err := s.Element(i)
			if err != nil {
				return dst, err
			}
			if !more {
				return append(dst, ']'), nil
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = s.Canonical(dst); err != nil {
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
		return append(dst, "true"...), s.Literal("true")
	case c == 'f':
		return append(dst, "false"...), s.Literal("false")
	case c == 'n':
		return append(dst, "null"...), s.Literal("null")
	}
	return dst, s.errChar("looking for beginning of value")
}

// sortMembers rewrites the members of one object, which occupy dst from
// the smallest ms[i].m0 to the end, in key order.
func (s *Scanner) sortMembers(dst []byte, ms []span) []byte {
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
