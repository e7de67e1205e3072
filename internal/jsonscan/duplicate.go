package jsonscan

// This file finds an object member named twice, which encoding/json
// takes silently, the last one winning.

// DuplicateKey reads the value at the next non-space byte and reports
// the first member, in reading order, whose name an earlier member of
// the same object already gave: its decoded name and the offset of its
// opening quote. Names are compared exactly, byte for byte after
// decoding. found is false when no object in the value repeats a name;
// err is the value's first syntax error, if it has one before the first
// repeat.
func (s *Scanner) DuplicateKey() (key string, off int, found bool, err *Error) {
	s.SkipSpace()
	if s.pos >= len(s.data) {
		return "", 0, false, s.errEOF()
	}
	switch s.data[s.pos] {
	case '{':
		if err := s.BeginObject("", "an object"); err != nil {
			return "", 0, false, err
		}
		var names map[string]bool
		for i := 0; ; i++ {
			k, koff, ok, err := s.Member(i)
			if err != nil {
				return "", 0, false, err
			}
			if !ok {
				return "", 0, false, nil
			}
			if names == nil {
				names = map[string]bool{}
			}
			if names[string(k)] {
				return string(k), koff, true, nil
			}
			names[string(k)] = true
			if key, off, found, err = s.DuplicateKey(); found || err != nil {
				return key, off, found, err
			}
		}
	case '[':
		if err := s.push(); err != nil {
			return "", 0, false, err
		}
		for i := 0; ; i++ {
			more, err := s.Element(i)
			if err != nil {
				return "", 0, false, err
			}
			if !more {
				return "", 0, false, nil
			}
			if key, off, found, err = s.DuplicateKey(); found || err != nil {
				return key, off, found, err
			}
		}
	}
	return "", 0, false, s.SkipValue()
}
