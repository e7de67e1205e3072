package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFields: which objects Fields reads and which it refuses. The
// reference for a refused name in another case is encoding/json, which
// fills the struct field from it (checked in the test, not assumed).
func TestFields(t *testing.T) {
	loose := NewKeySet("id", "isMeta", "kind")
	strict := StrictKeySet("id", "isMeta", "kind")
	for _, c := range []struct {
		ks   *KeySet
		in   string
		ok   bool
		seen uint64
		read string // the names read, in order
		fold bool   // refused because encoding/json takes the name for a set name
	}{
		{loose, `{}`, true, 0, "", false},
		{loose, ` { "kind" : 1 , "id" : 2 } `, true, 0b101, "kind id", false},
		{loose, `{"other":[1,{"id":3}],"id":2}`, true, 0b001, "id", false},
		{strict, `{"other":1,"id":2}`, false, 0, "", false},
		{strict, `{"isMeta":1,"id":2}`, true, 0b011, "isMeta id", false},
		{loose, `{"id":1,"id":2}`, false, 0b001, "id", false},
		{loose, `{"ID":1}`, false, 0, "", true},
		{loose, `{"ismeta":1}`, false, 0, "", true},
		{loose, `{"i\u017fMeta":1}`, false, 0, "", true}, // LONG S folds to s
		{loose, `{"\u212aind":1}`, false, 0, "", true},   // KELVIN SIGN folds to k
		{loose, `{"kinds":1,"i":2,"\u212a":3}`, true, 0, "", false},
		{loose, `[]`, false, 0, "", false},
		{loose, `{"id":1,}`, false, 0b001, "id", false},
		{loose, `{"other":[1,}`, false, 0, "", false},
	} {
		var s Scanner
		s.Reset([]byte(c.in))
		var read []string
		seen, ok := s.Fields(c.ks, func(k int) bool {
			read = append(read, c.ks.names[k])
			return s.SkipValue() == nil
		})
		if ok != c.ok || seen != c.seen || strings.Join(read, " ") != c.read {
			t.Errorf("%s: seen %b ok %v read %q, want %b %v %q", c.in, seen, ok, read, c.seen, c.ok, c.read)
		}
		if ok && s.End() != nil {
			t.Errorf("%s: Fields stopped before the end of the object", c.in)
		}
		// The reference: with no set name spelled exactly, encoding/json
		// fills a field exactly when the case says a name folds to one.
		type ref struct {
			ID     int `json:"id"`
			IsMeta int `json:"isMeta"`
			Kind   int `json:"kind"`
		}
		var r ref
		exact := strings.Contains(c.in, `"id"`) || strings.Contains(c.in, `"isMeta"`) || strings.Contains(c.in, `"kind"`)
		if c.ks == loose && !exact && json.Unmarshal([]byte(c.in), &r) == nil && (r != ref{}) != c.fold {
			t.Errorf("%s: encoding/json takes a name for a set name: %v, the case says %v", c.in, r != ref{}, c.fold)
		}
	}
}

// TestFieldsStopsWhenFieldFails: field's false is Fields' false, and no
// later member is read.
func TestFieldsStopsWhenFieldFails(t *testing.T) {
	ks := NewKeySet("a", "b")
	var s Scanner
	s.Reset([]byte(`{"a":1,"b":2}`))
	calls := 0
	if _, ok := s.Fields(ks, func(int) bool { calls++; return false }); ok || calls != 1 {
		t.Errorf("ok %v after %d calls, want false after 1", ok, calls)
	}
}

func TestKeySetPanics(t *testing.T) {
	for name, names := range map[string][]string{
		"twice":   {"a", "b", "a"},
		"65 keys": strings.Split(strings.Repeat("x,", 64)+"y", ","),
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewKeySet(names...)
		}()
	}
}
