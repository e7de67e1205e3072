package power

import (
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

var (
	sinkFloat  float64
	sinkSize   SampleSize
	sinkResult Result
)

// BenchmarkExactPower times the exact McNemar power at 10^5 pairs from a
// cold cache (each iteration builds its rejection table anew): a large
// effect (ψ = 0.8) and a near-null one (ψ = 0.0205).
func BenchmarkExactPower(b *testing.B) {
	for _, c := range []struct {
		name   string
		pl, pg float64
	}{{"n=1e5/psi=0.8", 0.5, 0.3}, {"n=1e5/psi=0.0205", 0.01, 0.0105}} {
		b.Run(c.name, func(b *testing.B) {
			d := Paired{PLost: c.pl, PGained: c.pg, Alpha: 0.05, Method: Exact}
			for b.Loop() {
				p, err := d.Power(100_000)
				if err != nil {
					b.Fatal(err)
				}
				sinkFloat = p
			}
		})
	}
}

// BenchmarkExactSampleSize times the whole exact search, including the
// check of every n in [N, 1.1N] and the actual size: N = 421, 4086 and
// 10321 pairs at power 0.8.
func BenchmarkExactSampleSize(b *testing.B) {
	for _, c := range []struct {
		name   string
		pl, pg float64
	}{{"pl=0.02/pg=0.06", 0.02, 0.06}, {"pl=0.02/pg=0.03", 0.02, 0.03}, {"pl=0.02/pg=0.026", 0.02, 0.026}} {
		b.Run(c.name, func(b *testing.B) {
			d := Paired{PLost: c.pl, PGained: c.pg, Alpha: 0.05, Method: Exact}
			for b.Loop() {
				ss, err := d.SampleSize(0.8)
				if err != nil {
					b.Fatal(err)
				}
				sinkSize = ss
			}
			b.ReportMetric(float64(sinkSize.N), "pairs")
		})
	}
}

// BenchmarkTango times the Tango interval alone on the PropCIs example.
func BenchmarkTango(b *testing.B) {
	t := Table{A: 50, B: 40, C: 20, D: 50}
	for b.Loop() {
		lo, hi := tangoInterval(t, 1.959963984540054)
		sinkFloat = lo + hi
	}
}

// BenchmarkMcNemar times a full report: four tests and three intervals.
// The last table is near the centre at MaxPairs, where the exact tails
// add up some thousand point masses.
func BenchmarkMcNemar(b *testing.B) {
	for _, t := range []Table{{A: 1, B: 1, C: 7, D: 12}, {A: 1000, B: 512, C: 603, D: 2000}, {B: 4_999_500, C: 5_000_500}} {
		b.Run(t.String(), func(b *testing.B) {
			for b.Loop() {
				r, err := McNemar(t, 0.95)
				if err != nil {
					b.Fatal(err)
				}
				sinkResult = r
			}
		})
	}
}

// BenchmarkPlan times `tally plan`'s computation for the seed's numbers.
func BenchmarkPlan(b *testing.B) {
	for b.Loop() {
		p, err := Plan(0.83, 200, 3, 0.05, 0.8)
		if err != nil {
			b.Fatal(err)
		}
		sinkFloat = p.StandardError
	}
}

// BenchmarkOneSidedP times the gate's one-sided p-value against a
// baseline in the same run, gonum's Binomial.CDF at the same point (one
// incomplete beta): OneSidedP adds the point mass and, near the centre,
// sums the middle of the distribution from point masses.
func BenchmarkOneSidedP(b *testing.B) {
	for _, c := range []struct {
		name         string
		lost, gained int
	}{{"D=22", 16, 6}, {"D=1000", 520, 480}, {"D=10000", 5200, 4800}, {"D=10000/far", 5400, 4600}} {
		b.Run(c.name+"/baseline-gonum-cdf", func(b *testing.B) {
			bin := distuv.Binomial{N: float64(c.lost + c.gained), P: 0.5}
			for b.Loop() {
				sinkFloat = bin.CDF(float64(c.gained))
			}
		})
		b.Run(c.name+"/exact", func(b *testing.B) {
			for b.Loop() {
				sinkFloat = OneSidedP(c.lost, c.gained, false)
			}
		})
		b.Run(c.name+"/mid-p", func(b *testing.B) {
			for b.Loop() {
				sinkFloat = OneSidedP(c.lost, c.gained, true)
			}
		})
	}
}

// BenchmarkClustered times the clustered tests on 21 clusters (the
// thyroid data) and on 1,000 clusters of 10 items, against a baseline in
// the same run: one pass summing the clusters' counts, the least any
// clustered statistic must do.
func BenchmarkClustered(b *testing.B) {
	big := make([]ClusterCounts, 1000)
	for i := range big {
		big[i] = ClusterCounts{N: 10, Lost: i % 3, Gained: (i / 3) % 2}
	}
	for _, c := range []struct {
		name string
		cs   []ClusterCounts
	}{{"K=21", thyroid()}, {"K=1000", big}} {
		b.Run(c.name+"/baseline-sum", func(b *testing.B) {
			for b.Loop() {
				var n, l, g int
				for _, k := range c.cs {
					n, l, g = n+k.N, l+k.Lost, g+k.Gained
				}
				sinkFloat = float64(n + l + g)
			}
		})
		for _, m := range ClusterMethods {
			b.Run(c.name+"/"+string(m), func(b *testing.B) {
				for b.Loop() {
					r, err := ClusteredMcNemar(c.cs, m)
					if err != nil {
						b.Fatal(err)
					}
					sinkFloat = r.P
				}
			})
		}
		b.Run(c.name+"/ni", func(b *testing.B) {
			for b.Loop() {
				z, _, err := ClusteredNI(c.cs, 0.05)
				if err != nil {
					b.Fatal(err)
				}
				sinkFloat = z
			}
		})
	}
}
