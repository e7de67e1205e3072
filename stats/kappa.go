package stats

import "math"

// KappaMethod is the Interval.Method of Kappa's interval.
const KappaMethod = "fleiss-cohen-everitt"

// Kappa is Cohen's κ for two raters who each put the same N items into one
// of k categories, with the large-sample standard errors of Fleiss, Cohen
// & Everitt (1969), "Large sample standard errors of kappa and weighted
// kappa", Psychol Bull 72:323–327.
//
// With p_ij the share of items rater one put in category i and rater two
// in j, r_i and c_j the row and column shares:
//
//	p_o = Σ p_ii,  p_e = Σ r_i c_i,  κ = (p_o − p_e)/(1 − p_e)
//	Var(κ)  = [Σ_i p_ii (1 − (r_i + c_i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (c_i + r_j)²
//	           − (κ − p_e(1 − κ))²] / (N (1 − p_e)²)
//	Var0(κ) = [p_e + p_e² − Σ_i r_i c_i (r_i + c_i)] / (N (1 − p_e)²)   (under κ = 0)
//
// These are the values of R's psych::cohen.kappa and vcd::Kappa and of
// statsmodels' cohens_kappa.
//
// Degenerate tables never panic:
//   - p_e = 1 (both raters put every item in the same one category): κ is
//     0/0, undefined. Observed and Expected are 1; Kappa, both standard
//     errors, Z, P and the interval's bounds are NaN. There is nothing to
//     agree or disagree about.
//   - p_e < 1 but one rater used a single category: κ is 0 exactly, by
//     construction (p_o = p_e), and both standard errors are 0 (κ cannot
//     vary). Z and P are NaN (0/0: no test of agreement is possible) and
//     the interval is [0, 0].
type Kappa struct {
	// N is the number of items both raters rated.
	N int
	// Observed and Expected are p_o, the share of items on the diagonal,
	// and p_e, the share two independent raters with these margins would
	// agree on by chance.
	Observed, Expected float64
	// Kappa is (p_o − p_e)/(1 − p_e): 1 for perfect agreement, 0 for
	// agreement at chance, negative below chance.
	Kappa float64
	// StandardError is the non-null large-sample standard error, the one
	// for an interval; NullStandardError is the standard error under
	// κ = 0, the one for the test.
	StandardError, NullStandardError float64
	// Z is Kappa / NullStandardError and P its two-sided normal p-value
	// for κ = 0.
	Z, P float64
	// Interval is κ ± z·StandardError at the confidence asked for, clipped
	// to [−1, 1] as vcd's confint.Kappa does; Method is KappaMethod.
	Interval Interval
}

// CohenKappa is Cohen's κ for the k×k agreement table (rows: rater one's
// category, columns: rater two's; table[i][j] items) with its
// Fleiss–Cohen–Everitt standard errors and interval at the given
// confidence. A table that is empty, not square, holds a negative count or
// no items at all is an input error; see Kappa for the degenerate tables.
func CohenKappa(table [][]int, confidence float64) (Kappa, error) {
	if err := ValidateConfidence(confidence); err != nil {
		return Kappa{}, err
	}
	k := len(table)
	if k == 0 {
		return Kappa{}, inputErrorf("kappa: the agreement table is empty")
	}
	n := 0
	for i, row := range table {
		if len(row) != k {
			return Kappa{}, inputErrorf("kappa: the agreement table is not square: row %d has %d cells, want %d", i+1, len(row), k)
		}
		for j, x := range row {
			if x < 0 {
				return Kappa{}, inputErrorf("kappa: cell (%d, %d) is negative: %d", i+1, j+1, x)
			}
			if n > math.MaxInt-x {
				return Kappa{}, inputErrorf("kappa: the agreement table's total overflows")
			}
			n += x
		}
	}
	if n == 0 {
		return Kappa{}, inputErrorf("kappa: the agreement table holds no items")
	}

	nf := float64(n)
	rows := make([]int, k)
	cols := make([]int, k)
	for i, row := range table {
		for j, x := range row {
			rows[i] += x
			cols[j] += x
		}
	}
	r := make([]float64, k)
	c := make([]float64, k)
	oneRow, oneCol, same := false, false, false
	for i := range k {
		r[i], c[i] = float64(rows[i])/nf, float64(cols[i])/nf
		oneRow = oneRow || rows[i] == n
		oneCol = oneCol || cols[i] == n
		same = same || (rows[i] == n && cols[i] == n)
	}
	var po, pe, rc float64
	for i := range k {
		po += float64(table[i][i]) / nf
		pe += r[i] * c[i]
		rc += r[i] * c[i] * (r[i] + c[i])
	}
	res := Kappa{N: n, Observed: po, Expected: pe, Interval: Interval{Method: KappaMethod}}
	switch {
	case same:
		nan := math.NaN()
		res.Observed, res.Expected = 1, 1
		res.Kappa, res.StandardError, res.NullStandardError, res.Z, res.P = nan, nan, nan, nan, nan
		res.Interval.Lower, res.Interval.Upper = nan, nan
		return res, nil
	case oneRow || oneCol:
		// p_o = p_e = the other rater's share in that category.
		res.Expected = res.Observed
		res.Z, res.P = math.NaN(), math.NaN()
		return res, nil
	}
	q := 1 - pe
	kappa := (po - pe) / q
	var diag, off float64
	for i, row := range table {
		for j, x := range row {
			if x == 0 {
				continue
			}
			p := float64(x) / nf
			if i == j {
				t := 1 - (r[i]+c[i])*(1-kappa)
				diag += p * t * t
			} else {
				t := c[i] + r[j]
				off += p * t * t
			}
		}
	}
	last := kappa - pe*(1-kappa)
	v := (diag + (1-kappa)*(1-kappa)*off - last*last) / (nf * q * q)
	v0 := (pe + pe*pe - rc) / (nf * q * q)
	res.Kappa = kappa
	// Both variances are sums of squares that cancel to 0 in the
	// degenerate tables; rounding may leave them a hair below.
	res.StandardError = math.Sqrt(math.Max(0, v))
	res.NullStandardError = math.Sqrt(math.Max(0, v0))
	if res.NullStandardError > 0 {
		res.Z = kappa / res.NullStandardError
		res.P = math.Erfc(math.Abs(res.Z) / math.Sqrt2) // 2·(1 − Φ(|z|)) without cancellation
	} else {
		res.Z, res.P = math.NaN(), math.NaN()
	}
	h := Z(confidence) * res.StandardError
	res.Interval.Lower = math.Max(-1, kappa-h)
	res.Interval.Upper = math.Min(1, kappa+h)
	return res, nil
}
