package noise

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/stats"
)

// compareFiles runs Compare on two files of testdata.
func compareFiles(t *testing.T, a, b string) *Measure {
	t.Helper()
	fa, err := os.Open("testdata/" + a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open("testdata/" + b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	m, err := Compare(fa, fb, a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCountsByHand pins every count of testdata/aa_a.jsonl against
// testdata/aa_b.jsonl to a count made by hand. B lists its records in the
// reverse order of A's; pairing does not depend on order.
//
// The item-compactions, A's verdict / B's verdict (V verbatim, S
// supported, A absent, C contradicted, E error; - not in the file):
//
//	constraint                                commitment
//	 1 sess_a 1 c1  V/V both                  16 sess_a 1 m1  V/A lost
//	 2 sess_a 2 c1  S/A lost                  17 sess_a 2 m1  A/A neither
//	 3 sess_a 2 c2  V/S both                  18 sess_b 1 m1  S/S both
//	 4 sess_a 3 c1  A/A neither               19 sess_b 2 m1  C/A neither, flip
//	 5 sess_a 3 c2  S/C lost, flip            20 sess_d 1 m1  S/A lost
//	 6 sess_b 1 c1  V/V both                  21 sess_d 1 m2  E/E error
//	 7 sess_b 1 c2  A/S gained
//	 8 sess_b 2 c1  S/S both                  open_question
//	 9 sess_b 2 c2  C/C neither (no flip)     22 sess_b 1 q1  E/S error
//	10 sess_c 1 c1  V/V both
//	11 sess_c 1 c2  S/S both                  reference
//	12 sess_c 2 c1  V/E error                 23 sess_c 1 r1  V/- only in A
//	13 sess_c 2 c2  A/V gained
//	14 sess_d 1 c1  V/V both                  constraint, only in B
//	15 sess_d 1 c2  S/V both                  24 sess_d 2 c1  -/V
//	                                          25 sess_e 1 c1  -/A
//
// constraint: 14 pairs (15 less the error), 8 both, 2 lost, 2 gained,
// 2 neither, 1 flip, 1 error, 4 conversations. commitment: 5 pairs, 1
// both, 2 lost, 0 gained, 2 neither, 1 flip, 1 error, 3 conversations.
// open_question: no pair, 1 error (shown, so that its error is said).
// reference: nothing in both files (not shown). Unpaired: 1 only in A, 2
// only in B. Totals: 19 pairs, 3 errors, 2 flips.
//
// The agreement table, rows A, columns B, over V S A C:
//
//	V: 1,6,10,14 → V/V 4; 3 → V/S 1; 16 → V/A 1           (6)
//	S: 15 → S/V 1; 8,11,18 → S/S 3; 2,20 → S/A 2; 5 → S/C 1 (7)
//	A: 13 → A/V 1; 7 → A/S 1; 4,17 → A/A 2                 (4)
//	C: 19 → C/A 1; 9 → C/C 1                               (2)
func TestCountsByHand(t *testing.T) {
	m := compareFiles(t, "aa_a.jsonl", "aa_b.jsonl")
	if m.A != (Run{File: "aa_a.jsonl", System: "summariser", Records: 23}) || m.B != (Run{File: "aa_b.jsonl", System: "summariser", Records: 24}) {
		t.Errorf("runs %+v %+v", m.A, m.B)
	}
	type counts struct {
		class                                            fixture.Class
		pairs, both, lost, gained, neither, convs, flips int
		errors                                           int
	}
	want := []counts{
		{fixture.Constraint, 14, 8, 2, 2, 2, 4, 1, 1},
		{fixture.Commitment, 5, 1, 2, 0, 2, 3, 1, 1},
		{fixture.OpenQuestion, 0, 0, 0, 0, 0, 0, 0, 1},
	}
	var got []counts
	for _, c := range m.Classes {
		got = append(got, counts{c.Class, c.Pairs, c.BothRetained, c.Lost, c.Gained, c.NeitherRetained, c.Conversations, c.ContradictionFlips, c.Errors})
	}
	if !slices.Equal(got, want) {
		t.Errorf("classes\n got %+v\nwant %+v", got, want)
	}
	// By conversation (pairs, lost, gained), from the list above.
	wantClusters := [][]Cluster{
		{{"sess_a", 5, 2, 0}, {"sess_b", 4, 0, 1}, {"sess_c", 3, 0, 1}, {"sess_d", 2, 0, 0}},
		{{"sess_a", 2, 1, 0}, {"sess_b", 2, 0, 0}, {"sess_d", 1, 1, 0}},
		nil,
	}
	for i, c := range m.Classes {
		if !slices.Equal(c.Clusters, wantClusters[i]) {
			t.Errorf("%s clusters %v, want %v", c.Class, c.Clusters, wantClusters[i])
		}
	}
	if m.Unpaired != (Unpaired{OnlyA: 1, OnlyB: 2}) {
		t.Errorf("unpaired %+v, want 1 only in A, 2 only in B", m.Unpaired)
	}
	// All classes pooled: constraint + commitment (open_question has
	// only its error), 4 conversations (sess_a to sess_d).
	a := m.All
	if all := (counts{a.Class, a.Pairs, a.BothRetained, a.Lost, a.Gained, a.NeitherRetained, a.Conversations, a.ContradictionFlips, a.Errors}); all != (counts{"", 19, 9, 4, 2, 4, 4, 2, 3}) {
		t.Errorf("all %+v, want 19 pairs, 9 both, 4 lost, 2 gained, 4 neither, 4 conversations, 2 flips, 3 errors", all)
	}
	if m.ContradictionFlips != 2 || a.Discordant() != 6 {
		t.Errorf("flips %d discordant %d, want 2, 6", m.ContradictionFlips, a.Discordant())
	}
	if d := m.Classes[0].Discordance(); d != 4.0/14 {
		t.Errorf("constraint discordance %v, want 4/14", d)
	}
	if d := m.Classes[2].Discordance(); !math.IsNaN(d) {
		t.Errorf("open_question discordance with no pairs %v, want NaN", d)
	}
	if r := m.ContradictionFlipRate; r != 2.0/19 {
		t.Errorf("flip rate %v, want 2/19", r)
	}
	wantTable := [][]int{{4, 1, 1, 0}, {1, 3, 2, 1}, {1, 1, 2, 0}, {0, 0, 1, 1}}
	if !slices.EqualFunc(m.Table, wantTable, slices.Equal) {
		t.Errorf("agreement table %v, want %v", m.Table, wantTable)
	}
	if !slices.Equal(m.Labels, []string{"verbatim", "supported", "absent", "contradicted"}) {
		t.Errorf("labels %v", m.Labels)
	}
	if len(m.Warnings) != 2 {
		t.Errorf("warnings %q, want the unpaired and the errors", m.Warnings)
	}
}

// TestIdenticalRuns: two runs that agree on every verdict have no
// discordance, an undefined ICC, κ 1 — and a warning that such a pair
// usually measures the judge cache, not the noise.
func TestIdenticalRuns(t *testing.T) {
	m := compareFiles(t, "aa_a.jsonl", "aa_a.jsonl")
	if m.All.Discordant() != 0 || m.Agreement.Kappa != 1 || m.ICC.Undefined != stats.ICCNoVariance {
		t.Errorf("discordant %d, κ %v, ICC %+v", m.All.Discordant(), m.Agreement.Kappa, m.ICC)
	}
	// aa_a.jsonl has two error verdicts (items 21 and 22): said too.
	if len(m.Warnings) != 2 || !strings.Contains(m.Warnings[0], "judge cache") || !strings.HasPrefix(m.Warnings[1], "2 item-compactions") {
		t.Errorf("warnings %q, want the one about identical runs and the errors", m.Warnings)
	}
}
