package jsonscan

import "testing"

// TestDuplicateKey holds DuplicateKey to RFC 8259 §4: "The names within
// an object SHOULD be unique"; a name given twice in one object is
// found, the same name in two objects, or in different case, is not.
func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		in    string
		key   string
		off   int
		found bool
		bad   bool
	}{
		{in: `{"a":1,"b":2}`},
		{in: `{"a":1,"a":2}`, key: "a", off: 7, found: true},
		{in: `{"a":{"x":1},"b":{"x":2}}`},
		{in: `{"a":1,"A":2}`},
		{in: `[{"m":[{"r":"u","c":"x","r":"a"}]}]`, key: "r", off: 24, found: true},
		{in: `{"\u0061":1,"a":2}`, key: "a", off: 12, found: true},
		{in: ` {"a":{"b":1,"b":2},"a":3}`, key: "b", off: 13, found: true},
		{in: `"a"`},
		{in: `[1,2,{}]`},
		{in: `{"a":1,`, bad: true},
		{in: `{"a" 1}`, bad: true},
	} {
		var s Scanner
		s.Reset([]byte(c.in))
		key, off, found, err := s.DuplicateKey()
		if (err != nil) != c.bad {
			t.Errorf("%s: error %v, want error %v", c.in, err, c.bad)
			continue
		}
		if key != c.key || off != c.off || found != c.found {
			t.Errorf("%s: got %q at %d (found %v), want %q at %d (found %v)", c.in, key, off, found, c.key, c.off, c.found)
		}
	}
}
