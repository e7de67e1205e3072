package calibration

import (
	"fmt"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// benchObservations are two systems' verdicts on 50,000 item-compactions
// each (10,000 conversations, 5 items): a third verbatim, the rest mostly
// supported, some absent, 1 in 50 contradicted, every 20th reviewed.
func benchObservations() []Observation {
	verdicts := []fixture.Verdict{fixture.Verbatim, fixture.Supported, fixture.Supported, fixture.Absent, fixture.Supported}
	var obs []Observation
	n := 0
	for _, sys := range []string{"a", "b"} {
		for c := range 10000 {
			for i := range 5 {
				v := verdicts[n%len(verdicts)]
				if n%50 == 0 {
					v = fixture.Contradicted
				}
				o := Observation{Key: reviews.Key{ConversationID: fmt.Sprintf("c%05d", c), Compaction: 1, ItemID: fmt.Sprint(i), System: sys},
					Class: fixture.Classes[i%len(fixture.Classes)], Judge: v}
				if n%20 == 0 && v != fixture.Verbatim {
					o.Reviewed, o.Sample = v, reviews.SampleRandom
					if n%60 == 0 {
						o.Reviewed = fixture.Absent
					}
				}
				obs = append(obs, o)
				n++
			}
		}
	}
	return obs
}

// BenchmarkCorrect and BenchmarkNewPlan run on 100,000 observations;
// BenchmarkCount, their baseline, only tallies the same observations'
// verdicts per class and system: the ratio is what the correction and the
// plan's draw cost over one pass of counting.
func BenchmarkCorrect(b *testing.B) {
	obs := benchObservations()
	for b.Loop() {
		if _, err := Correct(obs, []string{"a", "b"}, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewPlan(b *testing.B) {
	obs := benchObservations()
	opts := PlanOptions{HalfWidth: 0.02, Confidence: 0.95, Agreement: DefaultAgreement, Seed: 1}
	for b.Loop() {
		if _, err := NewPlan(obs, []string{"a", "b"}, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	obs := benchObservations()
	for b.Loop() {
		counts := map[[2]string]*fixture.Counts{}
		for _, o := range obs {
			k := [2]string{string(o.Class), o.Key.System}
			c := counts[k]
			if c == nil {
				c = &fixture.Counts{}
				counts[k] = c
			}
			c.Add(o.Judge)
		}
	}
}
