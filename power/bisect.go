package power

// bisect returns the point in [lo, hi] where pred turns from false to
// true, to within tol, assuming pred is false below that point and true
// above it. pred is never called at lo or hi, so it may be undefined
// there (an infinite statistic at a boundary).
func bisect(lo, hi, tol float64, pred func(float64) bool) float64 {
	for i := 0; i < 200 && hi-lo > tol; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if pred(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo + (hi-lo)/2
}
