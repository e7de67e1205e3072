package main

import (
	"math"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// TestAgreement tabulates hand-made reviews of one system (judge rows,
// reviewer columns: supported 5 1 0, absent 2 3 0, contradicted 0 1 1;
// a review of an item found verbatim, where no judge was asked, and one
// without the judge's verdict are left out) and pins κ to R:
//
//	library(psych); m <- matrix(c(5,1,0, 2,3,0, 0,1,1), 3, byrow=TRUE)
//	cohen.kappa(m)$confid   # unweighted: 0.05746740214  0.480  0.9025325979
func TestAgreement(t *testing.T) {
	var rs []reviews.Review
	add := func(n int, judge, reviewer fixture.Verdict) {
		for range n {
			rs = append(rs, reviews.Review{System: "incumbent", JudgeVerdict: judge, Verdict: reviewer})
		}
	}
	add(5, fixture.Supported, fixture.Supported)
	add(1, fixture.Verbatim, fixture.Supported) // found verbatim: left out
	add(1, fixture.Supported, fixture.Absent)
	add(2, fixture.Absent, fixture.Supported)
	add(3, fixture.Absent, fixture.Absent)
	add(1, fixture.Contradicted, fixture.Absent)
	add(1, fixture.Contradicted, fixture.Contradicted)
	add(1, "", fixture.Absent) // no judge verdict: left out
	rs = append(rs, reviews.Review{System: "candidate", JudgeVerdict: fixture.Absent, Verdict: fixture.Absent})
	got, err := newAgreement(rs, []string{"incumbent", "candidate"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].System != "incumbent" || got[1].System != "candidate" {
		t.Fatalf("systems %+v", got)
	}
	a := got[0]
	want := [][]int{{5, 1, 0}, {2, 3, 0}, {0, 1, 1}}
	for i := range want {
		for j := range want[i] {
			if a.Table[i][j] != want[i][j] {
				t.Fatalf("table %v, want %v", a.Table, want)
			}
		}
	}
	if a.Reviews != 13 || a.ContradictionsJudged != 2 || a.ContradictionsConfirmed != 1 {
		t.Errorf("reviews %d, contradictions %d of %d", a.Reviews, a.ContradictionsConfirmed, a.ContradictionsJudged)
	}
	if a.Kappa == nil || math.Abs(*a.Kappa-0.48) > 1e-12 || math.Abs(*a.KappaLower-0.05746740214) > 1e-9 || math.Abs(*a.KappaUpper-0.9025325979) > 1e-9 {
		t.Errorf("κ %v (%v, %v), want R's 0.48 (0.05746740214, 0.9025325979)", a.Kappa, a.KappaLower, a.KappaUpper)
	}
	if b := got[1]; b.Kappa != nil || b.KappaReason == "" {
		t.Errorf("one verdict only: κ %v, reason %q", b.Kappa, b.KappaReason)
	}
	var out strings.Builder
	if err := writeAgreementText(&out, "reviews.jsonl", got); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"incumbent, 13 reviews: Cohen's κ 0.480, 95% interval 0.057 to 0.903 (Fleiss–Cohen–Everitt); contradictions: 1 of 2 the judge called contradicted confirmed",
		"candidate, 1 review: κ undefined: judge and reviewers used one verdict only; contradictions: 0 of 0 the judge called contradicted confirmed",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}
