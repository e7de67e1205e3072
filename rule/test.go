package rule

import (
	"math"

	"github.com/tally-eval/tally/power"
)

// classTest is the outcome of a rule's test on one class's paired
// counts: P is the p-value (McNemar: of "the candidate loses more";
// NonInferiority: of "the candidate is worse by the margin or more"), Z
// the statistic where the test has one, and Net lost less gained.
type classTest struct {
	P, Z float64
	Net  int
}

// testClass runs r's test on one class: cs its conversations (used by
// the clustered tests), lost, gained and pairs the totals.
func (r Rule) testClass(cs []power.ClusterCounts, lost, gained, pairs int) (classTest, error) {
	t := classTest{Net: lost - gained, P: math.NaN(), Z: math.NaN()}
	switch {
	case r.Kind == Count:
	case pairs == 0:
		// Nothing to test: the class is not tested (Decide), and no
		// test is run on it.
	case r.Kind == McNemar && r.Clustered:
		res, err := power.ClusteredMcNemar(cs, power.ClusterYang)
		if err != nil {
			return t, err
		}
		t.P, t.Z = res.OneSidedP, res.Z
	case r.Kind == McNemar:
		t.P = power.OneSidedP(lost, gained, r.MidP)
	case r.Kind == NonInferiority && r.Clustered:
		z, p, err := power.ClusteredNI(cs, r.margin())
		if err != nil {
			return t, err
		}
		t.P, t.Z = p, z
	case r.Kind == NonInferiority:
		z, p, err := power.TangoNI(power.Table{A: pairs - lost - gained, B: lost, C: gained}, r.margin())
		if err != nil {
			return t, err
		}
		t.P, t.Z = p, z
	}
	return t, nil
}

// blocks reports whether a class with test outcome t blocks at level
// (Holm's level for McNemar, Alpha for NonInferiority).
func (r Rule) blocks(t classTest, level float64) bool {
	switch r.Kind {
	case Count:
		return t.Net > r.Tolerance
	case McNemar:
		return t.P <= level
	case NonInferiority:
		// Blocks unless non-inferiority is shown; a test that cannot be
		// computed (NaN) shows nothing.
		return !(t.P <= level)
	}
	return false
}

// firstLevel is the level a class's test is compared with at the first
// step of the rule with k classes tested: Holm's α/k for McNemar (the
// change blocks if and only if some class's p is at most α/k), α for
// NonInferiority.
func (r Rule) firstLevel(k int) float64 {
	switch r.Kind {
	case McNemar:
		return r.alpha() / float64(max(k, 1))
	case NonInferiority:
		return r.alpha()
	}
	return 0
}
