package noise

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// line is one verdict record of system sys.
func line(sys, conv string, comp int, item, class, verdict string) string {
	return fmt.Sprintf(`{"system":%q,"conversation_id":%q,"compaction":%d,"item_id":%q,"class":%q,"verdict":%q}`+"\n",
		sys, conv, comp, item, class, verdict)
}

// errLines is err's lines as the CLI prints them: one per problem.
func errLines(err error) []string {
	if ps := fixture.AsProblems(err); ps != nil {
		var out []string
		for _, p := range ps {
			out = append(out, p.Error())
		}
		return out
	}
	return []string{err.Error()}
}

// TestCompareErrors pins the message of every kind of bad input. The
// columns are counted by hand on line's records:
//
//	{"system":"s","conversation_id":"conv1","compaction":1,"item_id":"c1","class":"constraint","verdict":"verbatim"}
//	(columns from 1: { is 1, "system" 2–9, : 10, "s" 11–13, "conversation_id" 15–31, "conv1" 33–39, "compaction" 41–52, 1 54, "item_id" 56–64)
//
// "s" starts at 11; "item_id" ends at 64, its ':' is 65, so its value is
// at 66; "class"'s value at 79 (after `"c1",` 66–70 and `"class":`
// 71–78); "verdict"'s at 102 after a 10-character class such as
// "constraint" or "commitment" (79–90, ',' 91, `"verdict":` 92–101); an
// "item" appended after "verbatim" (102–111, ',' 112, `"item":` 113–119)
// at 120.
func TestCompareErrors(t *testing.T) {
	ok1 := line("s", "conv1", 1, "c1", "constraint", "verbatim")
	ok2 := line("s", "conv1", 1, "c2", "commitment", "absent")
	tests := []struct {
		name, a, b string
		want       []string
	}{
		{
			name: "a line the reader rejects, with its column and field",
			a:    ok1 + `{"system":"s","conversation_id":"conv1","compaction":1,"item_id":"c2","class":"commitment","verdict":"lost"}` + "\n",
			b:    ok1,
			want: []string{`a.jsonl:2:102: verdict: "lost" is not a verdict (want verbatim, supported, absent, contradicted or error)`},
		},
		{
			name: "two systems in one file",
			a:    ok1 + line("other", "conv1", 1, "c2", "commitment", "absent"),
			b:    ok1,
			want: []string{`a.jsonl:2:11: system: "other", but line 1 names "s": a verdict file holds the records of one system (tally check --system)`},
		},
		{
			name: "a duplicate in A names both lines",
			a:    ok1 + ok2 + "\n" + line("s", "conv1", 1, "c1", "constraint", "absent"),
			b:    ok1,
			want: []string{`a.jsonl:4:66: item_id: item "c1" of "conv1" at compaction 1 already has a verdict in this file (line 1): a file holds one record per item and compaction`},
		},
		{
			name: "a duplicate in B of a paired item-compaction",
			a:    ok1,
			b:    ok1 + ok2 + ok1,
			want: []string{`b.jsonl:3:66: item_id: item "c1" of "conv1" at compaction 1 already has a verdict in this file (line 1): a file holds one record per item and compaction`},
		},
		{
			name: "a duplicate in B of an item-compaction only in B",
			a:    ok1,
			b:    ok1 + ok2 + ok2,
			want: []string{`b.jsonl:3:66: item_id: item "c2" of "conv1" at compaction 1 already has a verdict in this file (line 2): a file holds one record per item and compaction`},
		},
		{
			name: "a class that differs between the runs names both files",
			a:    ok2 + ok1,
			b:    line("s", "conv1", 1, "c1", "reference", "verbatim"),
			want: []string{`b.jsonl:1:79: class: "reference", but a.jsonl:2 gives item "c1" of "conv1" at compaction 1 the class constraint: the two runs must check the same fixtures`},
		},
		{
			name: "an item fingerprint that differs between the runs",
			a:    strings.Replace(ok1, `}`, `,"item":"aaaa"}`, 1),
			b:    strings.Replace(ok1, `}`, `,"item":"bbbb"}`, 1),
			want: []string{`b.jsonl:1:120: item: item "c1" of "conv1" at compaction 1 is not the item a.jsonl:1 checked (its fingerprint "bbbb" differs from "aaaa"): the fixture changed between the runs, and both must check the same fixtures`},
		},
		{
			name: "an empty file",
			a:    ok1,
			b:    "\n  \n",
			want: []string{`b.jsonl: no verdict records: want the JSONL that tally check -o writes`},
		},
		{
			name: "problems of both files at once, A's first",
			a:    ok1 + ok1,
			b:    "[]\n",
			want: []string{
				`a.jsonl:2:66: item_id: item "c1" of "conv1" at compaction 1 already has a verdict in this file (line 1): a file holds one record per item and compaction`,
				`b.jsonl:1:1: want a JSON object (one verdict record), got an array`,
			},
		},
		{
			name: "nothing in common",
			a:    ok1,
			b:    ok2,
			want: []string{`a.jsonl and b.jsonl have no item-compaction (conversation_id, compaction, item_id) in common (1 only in the first, 1 only in the second): they are not two check runs over the same fixtures`},
		},
		{
			name: "an error verdict on everything in common",
			a:    ok1 + ok2,
			b:    line("s", "conv1", 1, "c1", "constraint", "error") + line("s", "conv1", 1, "c2", "commitment", "error"),
			want: []string{`a.jsonl and b.jsonl: each of the 2 item-compactions they share has an error verdict in one run or both, so no outcome is known: re-run tally check (it settles judge failures from its cache)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compare(strings.NewReader(tt.a), strings.NewReader(tt.b), "a.jsonl", "b.jsonl", 0.95)
			if err == nil {
				t.Fatalf("no error; measure %+v", m)
			}
			got := errLines(err)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCompareConfidence(t *testing.T) {
	for _, c := range []float64{0, 1, -0.5, 95} {
		_, err := Compare(strings.NewReader(""), strings.NewReader(""), "a", "b", c)
		if err == nil {
			t.Errorf("confidence %v: no error", c)
		}
	}
}

// failing is a reader that fails after its text.
type failing struct{ r io.Reader }

var errDisk = errors.New("disk on fire")

func (f failing) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

func TestCompareReadError(t *testing.T) {
	ok := line("s", "conv1", 1, "c1", "constraint", "verbatim")
	_, err := Compare(strings.NewReader(ok), failing{strings.NewReader(ok)}, "a.jsonl", "b.jsonl", 0.95)
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "b.jsonl") {
		t.Errorf("error %v, want the read error naming b.jsonl", err)
	}
}

// TestTooManyProblems: a file's problems are listed up to fixture.MaxListed,
// the rest counted.
func TestTooManyProblems(t *testing.T) {
	var a strings.Builder
	for range fixture.MaxListed + 5 {
		a.WriteString("[]\n") // one problem each
	}
	_, err := Compare(strings.NewReader(a.String()), strings.NewReader(""), "a.jsonl", "b.jsonl", 0.95)
	ps := fixture.AsProblems(err)
	if len(ps) < fixture.MaxListed+1 || ps[fixture.MaxListed].Msg != "… and 5 more problems" {
		t.Fatalf("%d problems, last %v", len(ps), ps[len(ps)-1])
	}
}
