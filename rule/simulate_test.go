package rule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tally-eval/tally/power"
	"gonum.org/v1/gonum/stat/distuv"
)

// bruteForce draws reps fixture sets from the model of Class item by
// item, with its own generator and its own beta draws, hands each to
// Decide as a report would, and counts how often the change blocks:
// the independent check of Characteristics, exact or simulated.
func bruteForce(t *testing.T, r Rule, classes []Class, s Scenario, reps int, seed uint64) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	blocked := 0
	data := make([]ClassData, len(classes))
	for rep := 0; rep < reps; rep++ {
		for i, c := range classes {
			pl := c.Discordance/2 + s.Drop[c.Name]
			pg := c.Discordance / 2
			cs := make([]power.ClusterCounts, len(c.Sizes))
			for k, m := range c.Sizes {
				// The model of Class: u the loss propensity, v the
				// propensity to gain an item not lost.
				u, v := pl, pg/(1-pl)
				if c.Correlation > 0 {
					sum := (1 - c.Correlation) / c.Correlation
					if u > 0 {
						u = distuv.Beta{Alpha: u * sum, Beta: (1 - u) * sum, Src: rng}.Rand()
					}
					if v > 0 {
						v = distuv.Beta{Alpha: v * sum, Beta: (1 - v) * sum, Src: rng}.Rand()
					}
				}
				cl := power.ClusterCounts{N: m}
				for j := 0; j < m; j++ {
					if rng.Float64() < u {
						cl.Lost++
					} else if rng.Float64() < v {
						cl.Gained++
					}
				}
				cs[k] = cl
			}
			data[i] = ClassData{Name: c.Name, Clusters: cs}
		}
		out, err := r.Decide(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if o.Blocks {
				blocked++
				break
			}
		}
	}
	return float64(blocked) / float64(reps)
}

func sizes(t *testing.T, items, conversations int) []int {
	t.Helper()
	s, err := EvenSizes(items, conversations)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCharacteristicsAgainstBruteForce checks Characteristics, on its
// exact and on its simulated path, against bruteForce: within 3
// Monte-Carlo standard errors of the two estimates combined.
func TestCharacteristicsAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation check: skipped with -short")
	}
	example := func(rho float64) []Class {
		return []Class{
			{Name: "constraint", Sizes: sizes(t, 80, 35), Baseline: 0.8, Discordance: 19.0 / 80, Correlation: rho},
			{Name: "commitment", Sizes: sizes(t, 51, 25), Baseline: 0.8, Discordance: 11.0 / 51, Correlation: rho},
			{Name: "open_question", Sizes: sizes(t, 103, 38), Baseline: 0.85, Discordance: 22.0 / 103, Correlation: rho},
			{Name: "reference", Sizes: sizes(t, 61, 30), Baseline: 0.9, Discordance: 7.0 / 61, Correlation: rho},
		}
	}
	const reps = 10000
	for _, c := range []struct {
		name    string
		rule    Rule
		classes []Class
		drop    Scenario
		method  string
	}{
		{"count exact", Rule{Kind: Count, Tolerance: 1}, example(0), Scenario{}, MethodExact},
		{"mcnemar exact", Rule{Kind: McNemar}, example(0), Scenario{Drop: map[string]float64{"constraint": 0.1}}, MethodExact},
		{"mcnemar mid-p", Rule{Kind: McNemar, MidP: true}, example(0), Scenario{}, MethodExact},
		{"noninferiority exact", Rule{Kind: NonInferiority, Margin: 0.15}, example(0), Scenario{}, MethodExact},
		{"count correlated", Rule{Kind: Count, Tolerance: 1}, example(0.3), Scenario{}, MethodSimulation},
		{"mcnemar correlated", Rule{Kind: McNemar}, example(0.3), Scenario{Drop: map[string]float64{"reference": 0.05}}, MethodSimulation},
		{"mcnemar clustered", Rule{Kind: McNemar, Clustered: true}, example(0.2), Scenario{Drop: map[string]float64{"open_question": 0.1}}, MethodSimulation},
		{"noninferiority clustered", Rule{Kind: NonInferiority, Margin: 0.15, Clustered: true}, example(0.2), Scenario{}, MethodSimulation},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.rule.Characteristics(c.classes, c.drop, SimOptions{Replicates: reps, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			if got.Method != c.method {
				t.Fatalf("method %s, want %s", got.Method, c.method)
			}
			want := bruteForce(t, c.rule, c.classes, c.drop, reps, 99)
			se := math.Sqrt(want*(1-want)/reps + got.StandardError*got.StandardError)
			if math.Abs(got.Block-want) > 3*se+1e-9 {
				t.Errorf("%s: P(block) %.4f (%s), brute force %.4f; more than 3 standard errors (%.4f) apart", c.drop, got.Block, got.Method, want, se)
			}
		})
	}
}

// TestEstimateCorrelation checks the moment estimator on data drawn from
// the model with a known correlation (a large sample, so within 0.05),
// and on a hand-computed table.
func TestEstimateCorrelation(t *testing.T) {
	// Hand-computed: 3 conversations of 4 pairs: (lost, gained) =
	// (2,0), (0,2), (0,0). n = 12, p̂L = p̂G = 1/6, Δ̂ = 0, ψ̂ = 1/3,
	// τ̂ = 2·(1/6)(5/6) = 10/36; Σ S² = 4 + 4 + 0 = 8; Σm(ψ̂ − Δ̂²) = 4;
	// Σm(m−1) = 36; ρ̂ = (8 − 4)/((10/36)·36) = 0.4.
	got, ok, err := EstimateCorrelation([]power.ClusterCounts{{N: 4, Lost: 2}, {N: 4, Gained: 2}, {N: 4}})
	if err != nil || !ok || math.Abs(got-0.4) > 1e-12 {
		t.Errorf("hand table: ρ̂ = %v, %v, %v; want 0.4", got, ok, err)
	}
	if _, ok, _ := EstimateCorrelation([]power.ClusterCounts{{N: 1, Lost: 1}, {N: 1}}); ok {
		t.Error("single-item conversations: ρ is not identified, want ok false")
	}
	if _, _, err := EstimateCorrelation([]power.ClusterCounts{{N: 1, Lost: 1, Gained: 1}}); err == nil {
		t.Error("2 discordant of 1 pair: want an error")
	}
	for _, rho := range []float64{0, 0.1, 0.3} {
		rng := rand.New(rand.NewPCG(5, 5))
		c := simClass{sizes: sizes(t, 40000, 5000), pLost: 0.1, pGained: 0.1, rho: rho}
		c.prepare(rng)
		c.draw(rng)
		est, _, err := EstimateCorrelation(c.clusters)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(est-rho) > 0.05 {
			t.Errorf("drawn with ρ = %g: estimated %.3f", rho, est)
		}
	}
}

// TestMonteCarloError: the binomial standard error sqrt(p(1 − p)/R) of a
// simulated proportion (e.g. Koehler, Brown and Haneuse, "On the
// assessment of Monte Carlo error in simulation-based statistical
// analyses", The American Statistician 63(2), 2009), floored at one fixture set in
// R, and 0 when exact.
func TestMonteCarloError(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Characteristics
		want float64
	}{
		{"p 0.05 of 2000", Characteristics{Method: MethodSimulation, Block: 0.05, StandardError: math.Sqrt(0.05 * 0.95 / 2000), Replicates: 2000}, 0.004873397172404482},
		{"p 0 of 2000: the floor", Characteristics{Method: MethodSimulation, Replicates: 2000}, 0.0005},
		{"p 1 of 400: the floor", Characteristics{Method: MethodSimulation, Block: 1, Replicates: 400}, 0.0025},
		{"exact", Characteristics{Method: MethodExact, Block: 0.3}, 0},
		{"no replicates", Characteristics{Method: MethodSimulation}, 0},
	} {
		if got := tc.c.MonteCarloError(); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
