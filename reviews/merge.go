package reviews

// Change says what Merge did with one new review.
type Change int

// What Merge did with a new review.
const (
	// Added: no review of its key was kept before.
	Added Change = iota
	// Replaced: it replaced a kept review of its key that said
	// something else.
	Replaced
	// Unchanged: a kept review of its key says the same (Review.Same);
	// the kept one stays, with its source.
	Unchanged
)

// String names the change.
func (c Change) String() string {
	switch c {
	case Added:
		return "new"
	case Replaced:
		return "replaced"
	case Unchanged:
		return "unchanged"
	}
	return "unknown"
}

// Merge adds add to kept, the reviews of a file read earlier: a review
// of a key not in kept is appended, in add's order; one of a key in kept
// replaces the kept review in place when it says something else, and
// leaves it when it says the same. It returns the merged reviews (kept is
// not changed) and what became of each review of add, in add's order.
// A review of add with no Sample keeps the kept review's: the draw stays.
// add must hold one review per key (Collect's result does); a key twice
// in add is a programmer's error and panics.
func Merge(kept, add []Review) ([]Review, []Change) {
	out := append([]Review(nil), kept...)
	at := make(map[Key]int, len(out))
	for i, r := range out {
		at[r.Key()] = i
	}
	changes := make([]Change, len(add))
	seen := make(map[Key]bool, len(add))
	for i, r := range add {
		k := r.Key()
		if seen[k] {
			panic("reviews: Merge: two new reviews of " + k.String())
		}
		seen[k] = true
		j, ok := at[k]
		if ok && r.Sample == "" {
			// How a queue drew the row is a fact about the row, which a
			// sheet without sample columns (the Items sheet, which the
			// report fills with the reviews it used) cannot unsay.
			r.Sample = out[j].Sample
		}
		switch {
		case !ok:
			at[k] = len(out)
			out = append(out, r)
			changes[i] = Added
		case out[j].Same(r):
			changes[i] = Unchanged
		default:
			out[j] = r
			changes[i] = Replaced
		}
	}
	return out, changes
}
