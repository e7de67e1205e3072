package jsonscan

import (
	"fmt"
	"strings"
)

// This file holds the loop every fast decoder runs over an object: its
// members matched against a fixed table of names, a name given twice
// refused, the others skipped or refused.

// KeySet is the fixed table of member names a decoder reads from an
// object, for Fields: build one with NewKeySet or StrictKeySet when the
// program starts and share it. Its names are indexed in the order given;
// at most 64.
type KeySet struct {
	names  []string
	strict bool
	ascii  bool // every name is ASCII
}

// NewKeySet returns the set of names for a decoder that does as
// encoding/json does with a struct: Fields skips a member whose name is
// not in the set, but refuses one whose name is a set name in another
// case (under Unicode simple folding, as strings.EqualFold), which
// encoding/json would take for that name. It panics with more than 64
// names or a name given twice.
func NewKeySet(names ...string) *KeySet { return newKeySet(names, false) }

// StrictKeySet returns the set of names for a decoder of a format with
// no other members: Fields refuses any member whose name is not in the
// set. It panics as NewKeySet.
func StrictKeySet(names ...string) *KeySet { return newKeySet(names, true) }

func newKeySet(names []string, strict bool) *KeySet {
	if len(names) > 64 {
		panic(fmt.Sprintf("jsonscan: a KeySet of %d names (at most 64)", len(names)))
	}
	ks := &KeySet{names: names, strict: strict, ascii: true}
	for i, n := range names {
		if ks.Index([]byte(n)) != i {
			panic("jsonscan: KeySet name " + n + " given twice")
		}
		for j := 0; j < len(n); j++ {
			if n[j] >= 0x80 {
				ks.ascii = false
			}
		}
	}
	return ks
}

// Len returns how many names the set holds.
func (ks *KeySet) Len() int { return len(ks.names) }

// Index returns the index of the name key spells exactly, or -1.
func (ks *KeySet) Index(key []byte) int {
	for i, n := range ks.names {
		if string(key) == n {
			return i
		}
	}
	return -1
}

// folds reports whether key, which is none of the names, is one of them
// in another case.
func (ks *KeySet) folds(key []byte) bool {
	// Between ASCII strings folding keeps the length; a non-ASCII byte
	// may be a long form of an ASCII letter (U+212A KELVIN SIGN folds to
	// k, U+017F LONG S to s), which does not.
	sameLen := ks.ascii
	for _, c := range key {
		if c >= 0x80 {
			sameLen = false
			break
		}
	}
	for _, n := range ks.names {
		if (!sameLen || len(n) == len(key)) && strings.EqualFold(n, string(key)) {
			return true
		}
	}
	return false
}

// Fields reads the object at the next non-space byte, member by member.
// For a member named in ks it calls field with the name's index, the
// scanner at the member's value, which field must read whole (or skip);
// it skips the other members, or refuses them as ks says. It returns
// seen, bit k set when name k was read, and ok false — the scanner then
// somewhere inside the object — when the value is not an object, is not
// valid JSON, gives a name of ks twice, has a member ks refuses, or when
// field returns false. It is for a fast decoder that declines what it
// would have to imitate and leaves the words of the error to a slower
// one: an error's position is not kept.
func (s *Scanner) Fields(ks *KeySet, field func(k int) bool) (seen uint64, ok bool) {
	if s.BeginObject("", "") != nil {
		return seen, false
	}
	for i := 0; ; i++ {
		key, _, more, err := s.Member(i)
		if err != nil {
			return seen, false
		}
		if !more {
			return seen, true
		}
		k := ks.Index(key)
		if k < 0 {
			if ks.strict || ks.folds(key) || s.SkipValue() != nil {
				return seen, false
			}
			continue
		}
		if seen&(1<<k) != 0 {
			return seen, false
		}
		seen |= 1 << k
		if !field(k) {
			return seen, false
		}
	}
}
