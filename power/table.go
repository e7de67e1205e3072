package power

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxPairs is the largest table total accepted, 10^7. The exact and
// mid-p tests need P(Bin(B+C, ½) ≤ k), which gonum's regularized
// incomplete beta computes to a relative error of roughly (B+C)·1e−15
// (measured against R's pbinom: 1e−9 at 10^6, 1e−8 at 10^7, 1e−7 at
// 10^8, and no correct digit by 10^15). Beyond 10^7 pairs the p-values
// would not be worth printing.
const MaxPairs = 10_000_000

// Table is a paired 2×2 table of conversations, each run by a reference
// and by a candidate. Rows are the reference's success and failure,
// columns the candidate's:
//
//	                 candidate ok   candidate fails
//	reference ok          A               B
//	reference fails      C               D
//
// so B counts the conversations the candidate lost and C those it gained.
type Table struct {
	A int // both succeeded
	B int // lost: the reference succeeded, the candidate failed
	C int // gained: the reference failed, the candidate succeeded
	D int // both failed
}

// tableFields names the cells in the order of ParseTable's input.
var tableFields = [4]string{
	"A (both succeeded)",
	"B (lost: reference succeeded, candidate failed)",
	"C (gained: reference failed, candidate succeeded)",
	"D (both failed)",
}

func (t Table) cells() [4]int { return [4]int{t.A, t.B, t.C, t.D} }

// Validate reports whether t is a usable table: no negative cell, at
// least one pair, and at most MaxPairs pairs.
func (t Table) Validate() error {
	total := 0
	for i, v := range t.cells() {
		if v < 0 {
			return inputErrorf("%s must not be negative, got %d", tableFields[i], v)
		}
		if v > MaxPairs-total {
			return inputErrorf("the table has more than %d pairs", MaxPairs)
		}
		total += v
	}
	if total == 0 {
		return inputErrorf("the table is empty: A+B+C+D must be at least 1")
	}
	return nil
}

// Pairs is the number of pairs, A+B+C+D.
func (t Table) Pairs() int { return t.A + t.B + t.C + t.D }

// Discordant is the number of pairs on which the two runs disagree, B+C.
func (t Table) Discordant() int { return t.B + t.C }

// String formats t as "A,B,C,D", the form ParseTable reads.
func (t Table) String() string { return fmt.Sprintf("%d,%d,%d,%d", t.A, t.B, t.C, t.D) }

// ParseTable parses "A,B,C,D" (for example "1,1,7,12"; spaces around a
// number are allowed) into a validated Table. An error names the field
// at fault.
func ParseTable(s string) (Table, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Table{}, inputErrorf("table %q has %d comma-separated fields; want four counts A,B,C,D (both ok, lost, gained, both failed)", s, len(parts))
	}
	var v [4]int
	for i, p := range parts {
		f := strings.TrimSpace(p)
		n, err := strconv.Atoi(f)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return Table{}, inputErrorf("table %q: %s %q is too large", s, tableFields[i], f)
		case err != nil:
			return Table{}, inputErrorf("table %q: %s %q is not a whole number", s, tableFields[i], f)
		}
		v[i] = n
	}
	t := Table{A: v[0], B: v[1], C: v[2], D: v[3]}
	if err := t.Validate(); err != nil {
		return Table{}, fmt.Errorf("table %q: %w", s, err)
	}
	return t, nil
}
