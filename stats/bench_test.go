package stats

import "testing"

var sinkInterval Interval

// BenchmarkInterval times one interval per method at 166/200, 95%; the
// closing note of the stats issue compares clopper-pearson with SciPy's
// beta.ppf (testdata/refgen/scipy_bench.py).
func BenchmarkInterval(b *testing.B) {
	for _, m := range Methods {
		b.Run(string(m), func(b *testing.B) {
			p := Proportion{K: 166, N: 200}
			for b.Loop() {
				iv, err := p.Interval(m, 0.95)
				if err != nil {
					b.Fatal(err)
				}
				sinkInterval = iv
			}
		})
	}
}

// BenchmarkClopperPearsonGrid times Clopper–Pearson over every k of
// n = 1..100, the workload the SciPy comparison also runs.
func BenchmarkClopperPearsonGrid(b *testing.B) {
	count := 0
	for b.Loop() {
		count = 0
		for n := 1; n <= 100; n++ {
			for k := 0; k <= n; k++ {
				iv, _ := Proportion{K: k, N: n}.Interval(ClopperPearson, 0.95)
				sinkInterval = iv
				count++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/interval")
}

func BenchmarkCompare(b *testing.B) {
	for b.Loop() {
		if _, err := Compare(Proportion{168, 200}, Proportion{166, 200}, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}
