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
