package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/reviews"
)

// TestReviewsOverruleContradictions: a reviewer who finds one of the
// candidate's new contradictions not contradicted (a judge error) takes
// it out of the contradiction row: it is shown as overruled and stops
// blocking when it was the only one; reviews the report cannot use are
// counted and said; a configured reviews file that is missing is an
// error, not "no reviews".
func TestReviewsOverruleContradictions(t *testing.T) {
	base := quarterlyReport(t)
	news := base.Contradictions.New
	if len(news) < 2 {
		t.Fatalf("the example has %d new contradictions", len(news))
	}
	dir := t.TempDir()
	data, err := os.ReadFile(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Dir(quarterlyConfig))
	text := string(data)
	for _, key := range []string{"fixtures: ", "verdicts: ", "prompt_sizes: ", "replay: ", "selection: ", "first: ", "second: "} {
		text = strings.ReplaceAll(text, key, key+abs+"/")
	}
	// The example's own reviews are left out: this test writes its own.
	text = regexp.MustCompile(`(?m)^reviews:.*$`).ReplaceAllString(text, "")
	write := func(rvs []reviews.Review) string {
		path := filepath.Join(dir, "reviews.jsonl")
		if err := reviews.WriteFile(path, rvs); err != nil {
			t.Fatal(err)
		}
		return path
	}
	review := func(k ItemKey, system string, v fixture.Verdict) reviews.Review {
		return reviews.Review{ConversationID: k.ConversationID, Compaction: k.Compaction, ItemID: k.ItemID, Class: fixture.Constraint,
			System: system, JudgeVerdict: fixture.Contradicted, Verdict: v, Reviewer: "r", Source: "test"}
	}
	build := func(extra string) *Report {
		t.Helper()
		cfg, err := ParseConfig(filepath.Join(dir, "report.yaml"), []byte(text+extra))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Build(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// One of the incumbent's contradictions, to overrule too.
	var incContra ItemRow
	for _, it := range base.Items {
		if it.Incumbent.Verdict == fixture.Contradicted {
			incContra = it
			break
		}
	}
	if incContra.ConversationID == "" {
		t.Fatal("the example's incumbent contradicts nothing")
	}
	incReview := review(incContra.ItemKey, "incumbent", fixture.Absent)
	incReview.Class = incContra.Class
	// Overrule the first new contradiction and one of the incumbent's,
	// confirm the second, and add one review of another system and one
	// of no item-compaction.
	// And one made on another verdict than the judge's now: the
	// incumbent's contradiction reviewed when the judge had said absent
	// (the verdicts checked again since) overrules nothing.
	staleInc := incReview
	staleInc.JudgeVerdict, staleInc.Verdict = fixture.Absent, fixture.Supported
	write([]reviews.Review{
		review(news[0], "candidate", fixture.Absent),
		incReview,
		review(news[1], "candidate", fixture.Contradicted),
		review(news[0], "someone-else", fixture.Absent),
		review(ItemKey{"no_such_conversation", 1, "c1"}, "candidate", fixture.Absent),
	})
	r := build("reviews: reviews.jsonl\n")
	c := r.Contradictions
	if !slices.Equal(c.Overruled, news[:1]) || len(c.New) != len(news)-1 || slices.Contains(c.New, news[0]) {
		t.Errorf("overruled %v, new %d (was %d)", c.Overruled, len(c.New), len(news))
	}
	// The overruled one is a judge error: the candidate's count against
	// the gate drops by one, the incumbent's stays.
	// Each system's overruled contradictions are counted apart (a new
	// user's trial saw only the candidate's said).
	if c.JudgeErrors != [2]int{1, 1} {
		t.Errorf("judge errors %v, want 1 of the incumbent's and 1 of the candidate's", c.JudgeErrors)
	}
	if c.Candidate != base.Contradictions.Candidate-1 || c.Incumbent != base.Contradictions.Incumbent-1 {
		t.Errorf("contradictions counted %d and %d, want %d and %d", c.Incumbent, c.Candidate, base.Contradictions.Incumbent-1, base.Contradictions.Candidate-1)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "reviews: 2 of 5 reviews not used: 1 of another system than \"incumbent\" and \"candidate\", 1 of no item-compaction either system checked, 0 of an item edited since it was reviewed, 0 of another verdict than the judge's now")
	}
	if !found {
		t.Errorf("no warning on the unused reviews: %q", r.Warnings)
	}
	// Overrule every new contradiction: the row no longer blocks.
	var all []reviews.Review
	for _, k := range news {
		all = append(all, review(k, "candidate", fixture.Supported))
	}
	write(all)
	r = build("reviews: reviews.jsonl\n")
	if r.Contradictions.Change == Worse || len(r.Contradictions.New) != 0 || slices.Contains(r.Decision.Worse, GateContradictions) {
		t.Errorf("every new contradiction overruled: change %s, new %d, worse %v", r.Contradictions.Change, len(r.Contradictions.New), r.Decision.Worse)
	}
	// A review made on another verdict is not used, and said.
	write([]reviews.Review{staleInc})
	r = build("reviews: reviews.jsonl\n")
	if r.Contradictions.Incumbent != base.Contradictions.Incumbent || r.Contradictions.JudgeErrors[0] != 0 {
		t.Errorf("a review of another verdict overruled the incumbent: %d contradictions (was %d), judge errors %v",
			r.Contradictions.Incumbent, base.Contradictions.Incumbent, r.Contradictions.JudgeErrors)
	}
	found = false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "1 of another verdict than the judge's now (the verdicts were checked again since)")
	}
	if !found {
		t.Errorf("no warning on the review of another verdict: %q", r.Warnings)
	}
	// A contradiction a reviewer finds where the judge saw none counts,
	// both ways (a new user's trial confirmed four inversions the judge
	// had called supported, and the report said the candidate contradicted
	// nothing): with every judge contradiction of the candidate overruled,
	// one the reviewer finds on an item both systems retained makes the
	// row worse again, counted in the candidate's gate and named in Found.
	var both ItemRow
	for _, it := range base.Items {
		if it.Incumbent.Verdict == fixture.Supported && it.Candidate.Verdict == fixture.Supported {
			both = it
			break
		}
	}
	if both.ConversationID == "" {
		t.Fatal("the example has no item both systems supported")
	}
	newFound := review(both.ItemKey, "candidate", fixture.Contradicted)
	newFound.Class, newFound.JudgeVerdict = both.Class, fixture.Supported
	write(append(all, newFound))
	r = build("reviews: reviews.jsonl\n")
	c = r.Contradictions
	if !slices.Equal(c.New, []ItemKey{both.ItemKey}) || !slices.Equal(c.Found, c.New) || c.Change != Worse ||
		c.ReviewerFound != [2]int{0, 1} || c.Candidate != base.Contradictions.Candidate-len(news)+1 {
		t.Errorf("a contradiction a reviewer found: new %v, found %v, change %s, reviewer found %v, candidate %d (judge's %d, %d overruled)",
			c.New, c.Found, c.Change, c.ReviewerFound, c.Candidate, base.Contradictions.Candidate, len(news))
	}
	// The same review on an incumbent's item makes it no new one.
	incFound := newFound
	incFound.System = "incumbent"
	write(append(all, newFound, incFound))
	r = build("reviews: reviews.jsonl\n")
	if c := r.Contradictions; len(c.New) != 0 || c.ReviewerFound != [2]int{1, 1} || c.Change == Worse {
		t.Errorf("a contradiction a reviewer found in both systems: new %v, reviewer found %v, change %s", c.New, c.ReviewerFound, c.Change)
	}
	cfg, err := ParseConfig(filepath.Join(dir, "report.yaml"), []byte(text+"reviews: missing.jsonl\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(cfg, Options{}); err == nil || !strings.Contains(err.Error(), "reviews:") {
		t.Errorf("a missing reviews file: %v, want an error", err)
	}
}

// TestJudgesDiffer: verdicts of the two systems judged by different
// judges are said (a new user's trial judged the incumbent with one
// script and the candidate with another, and nothing told).
func TestJudgesDiffer(t *testing.T) {
	if w := strings.Join(quarterlyReport(t).Warnings, "\n"); strings.Contains(w, "judges:") {
		t.Fatalf("the example, judged alike, warns: %s", w)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Dir(quarterlyConfig))
	cand, err := os.ReadFile(filepath.Join(abs, "verdicts/candidate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.ReplaceAll(string(cand), `"judge":"recorded/careful-human"`, `"judge":"command/other.py"`)
	if err := os.WriteFile(filepath.Join(dir, "candidate.jsonl"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, key := range []string{"fixtures: ", "verdicts: ", "prompt_sizes: ", "replay: ", "selection: ", "first: ", "second: ", "reviews: "} {
		text = strings.ReplaceAll(text, key, key+abs+"/")
	}
	text = strings.Replace(text, abs+"/verdicts/candidate.jsonl", filepath.Join(dir, "candidate.jsonl"), 1)
	cfg, err := ParseConfig(filepath.Join(dir, "report.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "judges: the incumbent's verdicts were judged by recorded/careful-human (") || !strings.Contains(w, "the candidate's by command/other.py (") {
		t.Errorf("no warning on the judges: %s", w)
	}
}
