package report

// rowIndex finds the row of an item at a compaction while verdicts are
// read: a table with a slot for every item at every compaction its
// fixture expects (a slice look-up) when those are not many more than
// the rows, and a map otherwise (a fixture that expects very many
// compactions must not make the table huge).
type rowIndex struct {
	slots []int32 // slot → row index + 1; 0 when the slot has no row
	m     map[rowKey]int32
}

// init sizes the index for rows rows over slots slots.
func (x *rowIndex) init(slots int64, rows int) {
	if slots <= max(4*int64(rows), 1<<20) {
		x.slots, x.m = make([]int32, slots), nil
		return
	}
	x.slots, x.m = nil, make(map[rowKey]int32, rows)
}

// get returns the row of global item g, whose first slot is base, at
// compaction c (1 ≤ c ≤ its fixture's compactions_expected).
func (x *rowIndex) get(base int64, g int32, c int) (int32, bool) {
	if x.m != nil {
		r, ok := x.m[rowKey{g, int32(c)}]
		return r, ok
	}
	r := x.slots[base+int64(c)-1]
	return r - 1, r != 0
}

// set records row r of global item g at compaction c.
func (x *rowIndex) set(base int64, g int32, c int, r int32) {
	if x.m != nil {
		x.m[rowKey{g, int32(c)}] = r
		return
	}
	x.slots[base+int64(c)-1] = r + 1
}
