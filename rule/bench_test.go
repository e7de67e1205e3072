package rule

import "testing"

// benchClasses is 4 classes of 10,000 item-compactions each in 2,500
// conversations of 4, with the example's discordance: the size the issue
// asks to be characterised in under a second.
func benchClasses(b *testing.B, rho float64) []Class {
	b.Helper()
	disc := []float64{0.24, 0.22, 0.21, 0.11}
	var cs []Class
	for i, name := range []string{"constraint", "commitment", "open_question", "reference"} {
		s, err := EvenSizes(10000, 2500)
		if err != nil {
			b.Fatal(err)
		}
		cs = append(cs, Class{Name: name, Sizes: s, Baseline: 0.8, Discordance: disc[i], Correlation: rho})
	}
	return cs
}

// BenchmarkCharacteristics times one false-block rate over 4 classes of
// 10,000 items: exact (independent items), and simulated with 2,000
// replicates (correlated items; the clustered test). The baseline in the
// same run is the count rule's exact path, whose threshold needs no test:
// each case's ns/op over it is the cost of its tests.
func BenchmarkCharacteristics(b *testing.B) {
	for _, c := range []struct {
		name string
		rule Rule
		rho  float64
	}{
		{"baseline-count-exact", Rule{Kind: Count, Tolerance: 1}, 0},
		{"mcnemar-exact", Rule{Kind: McNemar}, 0},
		{"noninferiority-exact", Rule{Kind: NonInferiority}, 0},
		{"mcnemar-clustered-sim", Rule{Kind: McNemar, Clustered: true}, 0.2},
		{"count-correlated-sim", Rule{Kind: Count, Tolerance: 1}, 0.2},
	} {
		b.Run(c.name, func(b *testing.B) {
			classes := benchClasses(b, c.rho)
			for b.Loop() {
				if _, err := c.rule.Characteristics(classes, Scenario{}, SimOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
