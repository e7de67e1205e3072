package rule

import (
	"slices"

	"github.com/tally-eval/tally/power"
)

// ClassData is one class's paired item-compactions, conversation by
// conversation: the input of Decide.
type ClassData struct {
	Name     string
	Clusters []power.ClusterCounts
}

// Outcome is a rule's decision on one class.
type Outcome struct {
	Name                               string
	Pairs, Lost, Gained, Conversations int
	// P is the test's p-value (McNemar: of "the candidate loses more";
	// NonInferiority: of "the candidate is worse by the margin or
	// more"); NaN for Count and for a class with no pairs. Z is the
	// statistic where the test has one, else NaN.
	P, Z float64
	// Level is what P was compared with: Holm's level at the class's
	// rank for McNemar, Alpha for NonInferiority; 0 for Count.
	Level float64
	// Tested is false for a class with no pairs: it neither blocks nor
	// counts in Holm's k.
	Tested bool
	Blocks bool
	// HolmStopped is true for a McNemar class whose P is at most its
	// Level but which does not block: Holm's procedure stopped at a
	// class with a smaller p that was not rejected.
	HolmStopped bool
}

// Decide applies r to the classes' paired data. For McNemar the classes
// tested (those with pairs) are ordered by p-value and the i-th smallest
// (from 0) is compared with α/(k − i), stopping at the first that is not
// rejected (Holm 1979, "A simple sequentially rejective multiple test
// procedure", Scand J Statist 6:65); the change blocks exactly when the
// smallest p is at most α/k.
func (r Rule) Decide(classes []ClassData) ([]Outcome, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	r = r.Normalized()
	out := make([]Outcome, len(classes))
	var tested []int
	for i, c := range classes {
		o := Outcome{Name: c.Name, Conversations: 0}
		for j, cl := range c.Clusters {
			if cl.N < 0 || cl.Lost < 0 || cl.Gained < 0 || cl.Lost+cl.Gained > cl.N {
				return nil, inputErrorf("class %s, conversation %d: %d lost and %d gained of %d pairs is not a paired count", c.Name, j+1, cl.Lost, cl.Gained, cl.N)
			}
			if cl.N > 0 {
				o.Conversations++
			}
			o.Pairs += cl.N
			o.Lost += cl.Lost
			o.Gained += cl.Gained
		}
		t, err := r.testClass(c.Clusters, o.Lost, o.Gained, o.Pairs)
		if err != nil {
			return nil, err
		}
		o.P, o.Z = t.P, t.Z
		if o.Pairs > 0 {
			o.Tested = true
			tested = append(tested, i)
		}
		out[i] = o
	}
	switch r.Kind {
	case Count:
		for _, i := range tested {
			out[i].Blocks = r.blocks(classTest{Net: out[i].Lost - out[i].Gained}, 0)
		}
	case NonInferiority:
		for _, i := range tested {
			out[i].Level = r.alpha()
			out[i].Blocks = r.blocks(classTest{P: out[i].P}, r.alpha())
		}
	case McNemar:
		slices.SortStableFunc(tested, func(a, b int) int {
			pa, pb := out[a].P, out[b].P
			switch {
			case pa < pb:
				return -1
			case pa > pb:
				return 1
			}
			return 0
		})
		rejecting := true
		for rank, i := range tested {
			out[i].Level = r.alpha() / float64(len(tested)-rank)
			out[i].HolmStopped = !rejecting && out[i].P <= out[i].Level
			rejecting = rejecting && out[i].P <= out[i].Level
			out[i].Blocks = rejecting
		}
	}
	return out, nil
}
