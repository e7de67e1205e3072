package stats

import (
	"math"
	"testing"
)

// FuzzPPI: any labelled 2×2 table, judge counts, confidence and tuning
// either is an input error or gives a finite standard error, λ in [0, 1],
// an estimate and an ordered interval inside [0, 1] that holds the
// estimate, the counts echoed, and never a panic; the stratified form with
// the same table split in two agrees on the same checks.
func FuzzPPI(f *testing.F) {
	f.Add(109, 8, 12, 21, 1560, 2000, 0.95, false)
	f.Add(24, 6, 3, 7, 360, 500, 0.95, true)
	f.Add(20, 0, 0, 10, 200, 300, 0.9, true)
	f.Add(6, 1, 2, 1, 7, 10, 0.95, true)
	f.Add(0, 0, 2, 0, 98, 100, 0.95, false)
	f.Add(1, 0, 0, 0, 5, 10, 0.95, false)
	f.Add(0, 0, 0, 0, 5, 10, 0.95, false)
	f.Add(-1, 3, 0, 0, 5, 10, math.NaN(), true)
	f.Fuzz(func(t *testing.T, a, b, c, d, judge, judged int, conf float64, tuned bool) {
		if a > 1<<12 || b > 1<<12 || c > 1<<12 || d > 1<<12 {
			return // the table's size only costs memory here
		}
		lab := make([]PPISample, 0, max(0, a)+max(0, b)+max(0, c)+max(0, d))
		for _, cell := range []struct {
			k    int
			j, h bool
		}{{a, true, true}, {b, true, false}, {c, false, true}, {d, false, false}} {
			for range cell.k {
				lab = append(lab, PPISample{Judge: cell.j, Human: cell.h})
			}
		}
		r, err := PPIMean(judge, judged, lab, conf, tuned)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("PPIMean: %v is not an ErrInput", err)
			}
		} else {
			checkPPI(t, r, judged, len(lab))
		}
		// The same items as two strata: the labelled judge-retained ones
		// with the judge-retained items, the rest with the rest.
		var yes, no []PPISample
		for _, s := range lab {
			if s.Judge {
				yes = append(yes, s)
			} else {
				no = append(no, s)
			}
		}
		sr, err := PPIStratified([]PPIStratum{
			{Judged: judge, JudgeRetained: judge, Labelled: yes},
			{Judged: judged - judge, JudgeRetained: 0, Labelled: no},
		}, conf, tuned)
		if err != nil {
			if !errorsIsInput(err) {
				t.Fatalf("PPIStratified: %v is not an ErrInput", err)
			}
			return
		}
		checkPPI(t, sr, judged, len(lab))
		for i, s := range sr.Strata {
			checkPPI(t, s, []int{judge, judged - judge}[i], []int{len(yes), len(no)}[i])
		}
	})
}

func checkPPI(t *testing.T, r PPIResult, judged, n int) {
	t.Helper()
	iv := r.Interval
	if r.N != judged || r.Labelled != n || math.IsNaN(r.StandardError) || math.IsInf(r.StandardError, 0) ||
		r.StandardError < 0 || !(r.Lambda >= 0 && r.Lambda <= 1) ||
		!(0 <= iv.Lower && iv.Lower <= r.Estimate && r.Estimate <= iv.Upper && iv.Upper <= 1) ||
		!(r.JudgeOnly.Lower <= r.JudgeShare && r.JudgeShare <= r.JudgeOnly.Upper) ||
		!(r.Rectifier >= -1 && r.Rectifier <= 1) {
		t.Fatalf("judged %d labelled %d: %+v", judged, n, r)
	}
}
