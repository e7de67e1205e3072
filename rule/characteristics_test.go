package rule

import (
	"math"
	"testing"
)

// TestExtreme: the rule of three (Hanley & Lippman-Hand 1983): no block
// in 1000 simulated sets bounds the probability below 3/1000, every one
// blocked above 0.997; anything else, or an exact figure, is no extreme.
func TestExtreme(t *testing.T) {
	for _, c := range []struct {
		ch   Characteristics
		want float64
		ok   bool
	}{
		{Characteristics{Method: MethodSimulation, Replicates: 1000, Block: 0}, 0.003, true},
		{Characteristics{Method: MethodSimulation, Replicates: 1000, Block: 1}, 0.997, true},
		{Characteristics{Method: MethodSimulation, Replicates: 1000, Block: 0.01}, 0, false},
		{Characteristics{Method: MethodExact, Block: 0}, 0, false},
	} {
		if b, ok := c.ch.Extreme(); ok != c.ok || math.Abs(b-c.want) > 1e-12 {
			t.Errorf("%+v: %v, %v; want %v, %v", c.ch, b, ok, c.want, c.ok)
		}
	}
}
