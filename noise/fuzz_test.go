package noise

import (
	"os"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// FuzzCompare: whatever the two files hold, Compare never panics, returns
// either a measure or an error, and a measure's counts add up: each
// class's four cells make its pairs, the agreement table holds every
// pair, and every record is a pair, an error or unpaired.
func FuzzCompare(f *testing.F) {
	a, _ := os.ReadFile("testdata/aa_a.jsonl")
	b, _ := os.ReadFile("testdata/aa_b.jsonl")
	f.Add(string(a), string(b))
	ok := line("s", "c", 1, "i", "constraint", "verbatim")
	f.Add(ok, ok+ok)
	f.Add(ok, strings.Replace(ok, "verbatim", "error", 1))
	f.Add("{}", "[")
	f.Fuzz(func(t *testing.T, a, b string) {
		m, err := Compare(strings.NewReader(a), strings.NewReader(b), "a", "b", 0.95)
		if err != nil {
			if m != nil {
				t.Fatal("a measure and an error")
			}
			for _, p := range fixture.AsProblems(err) {
				if p.File != "a" && p.File != "b" {
					t.Fatalf("problem names no file: %v", p)
				}
			}
			return
		}
		table := 0
		for _, row := range m.Table {
			for _, x := range row {
				table += x
			}
		}
		pairs, errs := 0, 0
		for _, c := range m.Classes {
			if c.BothRetained+c.Lost+c.Gained+c.NeitherRetained != c.Pairs {
				t.Fatalf("%s: cells do not add up to %d pairs", c.Class, c.Pairs)
			}
			if c.Pairs > 0 && (c.Conversations < 1 || c.Conversations > c.Pairs) {
				t.Fatalf("%s: %d conversations for %d pairs", c.Class, c.Conversations, c.Pairs)
			}
			var n, lost, gained int
			for _, x := range c.Clusters {
				n, lost, gained = n+x.N, lost+x.Lost, gained+x.Gained
			}
			if n != c.Pairs || lost != c.Lost || gained != c.Gained || len(c.Clusters) != c.Conversations {
				t.Fatalf("%s: clusters %v do not add up to the class's counts", c.Class, c.Clusters)
			}
			pairs += c.Pairs
			errs += c.Errors
		}
		all := m.All
		if pairs != all.Pairs || errs != all.Errors || table != all.Pairs || all.Pairs == 0 {
			t.Fatalf("pairs %d/%d, table %d, errors %d/%d", pairs, all.Pairs, table, errs, all.Errors)
		}
		if m.A.Records != all.Pairs+all.Errors+m.Unpaired.OnlyA || m.B.Records != all.Pairs+all.Errors+m.Unpaired.OnlyB {
			t.Fatalf("records %d, %d do not split into %d pairs, %d errors and %+v", m.A.Records, m.B.Records, all.Pairs, all.Errors, m.Unpaired)
		}
	})
}
