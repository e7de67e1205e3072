package jsonscan_test

import (
	"fmt"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// Read one record's members by name, reporting a bad value with its
// field and column.
func Example() {
	line := []byte(`{"id": "c1", "turns": "seven"}`)
	var s jsonscan.Scanner
	s.Reset(line)
	fail := func(e *jsonscan.Error) {
		fmt.Printf("col %d: %v\n", jsonscan.Column(line, e.Off), e)
	}
	if err := s.BeginObject("", "an object"); err != nil {
		fail(err)
		return
	}
	for i := 0; ; i++ {
		key, _, ok, err := s.Member(i)
		if err != nil {
			fail(err)
			return
		}
		if !ok {
			break
		}
		switch string(key) {
		case "id":
			id, err := s.String("id")
			if err != nil {
				fail(err)
				return
			}
			fmt.Printf("id %s\n", id)
		case "turns":
			if _, err := s.Integer("turns", 1, 1000); err != nil {
				fail(err)
				return
			}
		default:
			if err := s.SkipValue(); err != nil {
				fail(err)
				return
			}
		}
	}
	// Output:
	// id c1
	// col 23: turns: want a whole number, got a string
}

// A fast decoder reads the members it knows by their index in a KeySet
// and declines (ok false) what it would rather leave to encoding/json:
// bad JSON, a name given twice, a name in another case.
func ExampleScanner_Fields() {
	keys := jsonscan.NewKeySet("id", "turns")
	for _, line := range []string{
		`{"id": "c1", "note": {"skipped": true}, "turns": 7}`,
		`{"id": "c1", "ID": "c2"}`,
	} {
		var s jsonscan.Scanner
		s.Reset([]byte(line))
		var id string
		var turns int
		seen, ok := s.Fields(keys, func(k int) bool {
			switch k {
			case 0:
				b, err := s.String("id")
				id = string(b)
				return err == nil
			default:
				n, err := s.Integer("turns", 1, 1000)
				turns = n
				return err == nil
			}
		})
		fmt.Printf("ok %v, seen %02b: id %q, turns %d\n", ok && s.End() == nil, seen, id, turns)
	}
	// Output:
	// ok true, seen 11: id "c1", turns 7
	// ok false, seen 01: id "c1", turns 0
}
