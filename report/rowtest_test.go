package report

import (
	"math"
	"testing"

	"github.com/tally-eval/tally/rule"
)

// TestRowTest: the row names the test its p came from. With one
// conversation the clustered test falls back to the unclustered
// asymptotic one (power.Clustered; R: pnorm(-sqrt(2)) = 0.0786 for 2
// lost and 0 gained), and the row says so rather than "clustered"; a
// class Holm's step-down never reached says that, not only "not
// significant" beside a p below its level (a statistician's trial).
func TestRowTest(t *testing.T) {
	r := &Report{ErrorRates: &ErrorRates{Rule: rule.Rule{Kind: rule.McNemar, Alpha: 0.05, Clustered: true}}}
	for _, c := range []struct {
		o    rule.Outcome
		want string
	}{
		{rule.Outcome{Tested: true, P: 0.0786, Level: 0.0125, Conversations: 1},
			"one-sided McNemar (asymptotic, unclustered: one conversation) p = 0.079, Holm level 0.0125"},
		{rule.Outcome{Tested: true, P: 0.430, Level: 0.05, Conversations: 12},
			"one-sided clustered McNemar p = 0.430, Holm level 0.05"},
		{rule.Outcome{Tested: true, P: 0.0156, Level: 0.0167, Conversations: 6, HolmStopped: true},
			"one-sided clustered McNemar p = 0.016, Holm level 0.0167 (not reached: Holm stopped at a class with a smaller p)"},
		{rule.Outcome{Tested: false, P: math.NaN()}, ""},
	} {
		if got := r.RowTest(ClassRow{Rule: c.o}); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
