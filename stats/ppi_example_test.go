package stats_test

import (
	"fmt"

	"github.com/tally-eval/tally/stats"
)

// A judge scored 2000 items and called 1560 retained; reviewers checked
// 150 of them drawn at random. The judge called 117 of those retained,
// and the reviewers disagreed with it on 8 (said lost) and on 12 it had
// called lost (said retained). The prediction-powered estimate corrects
// the judge's 0.78 by the reviewers' verdicts (hand check: rectifier
// 4/150, SE² = 0.78·0.22/1850 + (20/150 − (4/150)²)/150, SE 0.0313).
func ExamplePPIMean() {
	var reviewed []stats.PPISample
	add := func(k int, judge, human bool) {
		for range k {
			reviewed = append(reviewed, stats.PPISample{Judge: judge, Human: human})
		}
	}
	add(109, true, true)
	add(8, true, false)
	add(12, false, true)
	add(21, false, false)
	r, err := stats.PPIMean(1560, 2000, reviewed, 0.95, false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("judge alone %.3f (wilson %.3f–%.3f)\n", r.JudgeShare, r.JudgeOnly.Lower, r.JudgeOnly.Upper)
	fmt.Printf("%s %.3f ± %.3f (95%% %.3f–%.3f), rectifier %+.3f from %d of %d items\n",
		r.Interval.Method, r.Estimate, r.StandardError, r.Interval.Lower, r.Interval.Upper, r.Rectifier, r.Labelled, r.N)
	// Output:
	// judge alone 0.780 (wilson 0.761–0.798)
	// ppi 0.807 ± 0.031 (95% 0.745–0.868), rectifier +0.027 from 150 of 2000 items
}

// The same review drawn by the judge's verdict: 75 of the 1560 items it
// called retained and 75 of the 440 it called lost.
func ExamplePPIStratified() {
	stratum := func(judged int, judge bool, humanYes, humanNo int) stats.PPIStratum {
		s := stats.PPIStratum{Judged: judged}
		if judge {
			s.JudgeRetained = judged
		}
		for i := range humanYes + humanNo {
			s.Labelled = append(s.Labelled, stats.PPISample{Judge: judge, Human: i < humanYes})
		}
		return s
	}
	r, err := stats.PPIStratified([]stats.PPIStratum{
		stratum(1560, true, 70, 5),
		stratum(440, false, 30, 45),
	}, 0.95, false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %.3f (95%% %.3f–%.3f) against the judge's %.3f\n", r.Interval.Method, r.Estimate, r.Interval.Lower, r.Interval.Upper, r.JudgeShare)
	for _, w := range r.Warnings {
		fmt.Println(w)
	}
	// Output:
	// ppi 0.816 (95% 0.765–0.867) against the judge's 0.780
	// stratum 1: only 5 of 75 labelled items disagree with the judge: the normal-approximation interval rests on few disagreements and tends to be too narrow
}
