package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/rule"
)

// TestErrorRatesQuarterly checks the example's error rates: the default
// rule (clustered McNemar at family-wise 0.05) blocks a harmless change
// with probability at most 0.05 under the example's measured noise, its
// power grows with the drop, and the sentence states the noise pair; the
// count rule with a tolerance of 1 (the example's rule before the rules
// stated their error rates) blocks a harmless change most of the time.
func TestErrorRatesQuarterly(t *testing.T) {
	r := quarterlyReport(t)
	er := r.ErrorRates
	if er == nil || !er.Known {
		t.Fatalf("error rates %+v: want known, from the example's noise pair", er)
	}
	if er.FalseBlock.Block > 0.05 || er.FalseBlock.Method != rule.MethodSimulation {
		t.Errorf("false block %.4f (%s), want at most 0.05, simulated", er.FalseBlock.Block, er.FalseBlock.Method)
	}
	for i, c := range er.Classes {
		if p3, p10 := er.Power[i][0].Block, er.Power[i][1].Block; !(p10 > p3 && p3 >= er.FalseBlock.Block-3*er.FalseBlock.StandardError) {
			t.Errorf("%s: power %.3f at 3 points, %.3f at 10", c.Name, p3, p10)
		}
	}
	for _, want := range []string{"verdicts/incumbent.jsonl against verdicts/incumbent-rerun.jsonl", "a 3-point drop", "a 10-point drop", "each blocks until a reviewer marks it a judge error"} {
		if !strings.Contains(er.Sentence, want) {
			t.Errorf("sentence lacks %q: %s", want, er.Sentence)
		}
	}

	// The same quarter under the count rule with a tolerance of 1.
	data, err := os.ReadFile(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	text = text[:strings.Index(text, "regression:")] + "regression: {rule: count, retained_tolerance: 1}\nnoise: {first: verdicts/incumbent.jsonl, second: verdicts/incumbent-rerun.jsonl}\n"
	cfg, err := ParseConfig(filepath.Join(filepath.Dir(quarterlyConfig), "count.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := Build(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fb := cr.ErrorRates.FalseBlock
	if fb.Block < 0.5 {
		t.Errorf("count rule, tolerance 1: false block %.3f; the example's noise makes it block a harmless change most of the time", fb.Block)
	}
	if !strings.Contains(cr.ErrorRates.Sentence, "the contradiction row alone, by noise alone, blocks a harmless change") {
		t.Errorf("count rule sentence: %s", cr.ErrorRates.Sentence)
	}
}

// TestErrorRatesUnknown: without a noise pair the rates are unknown and
// the sentence says how to measure them.
func TestErrorRatesUnknown(t *testing.T) {
	data, err := os.ReadFile(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	text = text[:strings.Index(text, "noise:")]
	cfg, err := ParseConfig(filepath.Join(filepath.Dir(quarterlyConfig), "nonoise.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if er := r.ErrorRates; er.Known || !strings.Contains(er.Sentence, "tally noise FIRST SECOND") {
		t.Errorf("without noise: %+v", er)
	}
}

// TestErrorRatesNoiseChecks: a noise pair that is one file is no
// measurement; a drop the baseline cannot pay for is left out with a
// reason while the other rates stand; a pair of another system is said.
func TestErrorRatesNoiseChecks(t *testing.T) {
	data, err := os.ReadFile(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	base = base[:strings.Index(base, "regression:")]
	build := func(tail string) *Report {
		t.Helper()
		cfg, err := ParseConfig(filepath.Join(filepath.Dir(quarterlyConfig), "checks.yaml"), []byte(base+tail))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Build(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	same := build("noise: {first: verdicts/incumbent.jsonl, second: ./verdicts/incumbent.jsonl}\n")
	if same.ErrorRates.Known || !strings.Contains(same.ErrorRates.Why, "name one file") {
		t.Errorf("one file twice: %+v", same.ErrorRates)
	}
	big := build("regression: {drops: [0.03, 0.9]}\nnoise: {first: verdicts/incumbent.jsonl, second: verdicts/incumbent-rerun.jsonl}\n")
	if er := big.ErrorRates; !er.Known || len(er.Drops) != 2 || !strings.Contains(er.Sentence, "no power is given for a drop of 90 points in constraint (it retains 88.8% at baseline), commitment (it retains 86.3% at baseline), open_question (it retains 93.2% at baseline)") ||
		!strings.Contains(er.Sentence, "a 90-point drop in one class's retention with probability 100.0% (reference)") {
		t.Errorf("a 90-point drop: known %v, drops %v, sentence %s", er.Known, er.Drops, er.Sentence)
	}
	// Drops the same classes cannot pay for are one sentence (a re-check
	// trial found one per drop).
	two := build("regression: {drops: [0.9, 0.03, 0.89]}\nnoise: {first: verdicts/incumbent.jsonl, second: verdicts/incumbent-rerun.jsonl}\n")
	if er := two.ErrorRates; len(er.Skipped) != 1 || !strings.HasPrefix(er.Skipped[0], "no power is given for a drop of 89 and 90 points in constraint (it retains 88.8% at baseline), commitment") {
		t.Errorf("two drops: skipped %q", er.Skipped)
	}
	// A copy of one run (a deterministic judge on one set of contexts)
	// measures no noise: the sentence says its rates assume none.
	copied := filepath.Join(t.TempDir(), "copy.jsonl")
	inc, err := os.ReadFile(filepath.Join(filepath.Dir(quarterlyConfig), "verdicts/incumbent.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, inc, 0o644); err != nil {
		t.Fatal(err)
	}
	if er := build("noise: {first: verdicts/incumbent.jsonl, second: " + copied + "}\n").ErrorRates; !er.Known || !strings.Contains(er.Sentence, "The noise pair disagrees on no item-compaction, so these rates assume") {
		t.Errorf("a run and its copy: known %v, sentence %s", er.Known, er.Sentence)
	}
	if strings.Contains(big.ErrorRates.Sentence, "disagrees on no item-compaction") {
		t.Errorf("a pair that disagrees is said not to: %s", big.ErrorRates.Sentence)
	}
	cand := build("noise: {first: verdicts/candidate.jsonl, second: verdicts/incumbent-rerun.jsonl}\n")
	found := false
	for _, w := range cand.Warnings {
		found = found || strings.Contains(w, "not of the incumbent")
	}
	if !found {
		t.Errorf("a pair of two systems: no warning in %q", cand.Warnings)
	}
}

// TestExtremeBound: the rule of three's bound, 3/R, in points with three
// significant digits, never rounded across it: 3/2000 is 0.15%, 3/3000
// 0.1%, 3/7 42.9% (42.857… rounded up), and above 1 − 3/2000 is 99.85%.
func TestExtremeBound(t *testing.T) {
	for _, c := range []struct {
		r     int
		block float64
		want  string
	}{
		{2000, 0, "below 0.15%"}, {3000, 0, "below 0.1%"}, {7, 0, "below 42.9%"},
		{2000, 1, "above 99.85%"}, {7, 1, "above 57.1%"},
	} {
		got, ok := ExtremeBound(rule.Characteristics{Method: rule.MethodSimulation, Replicates: c.r, Block: c.block})
		if !ok || got != c.want {
			t.Errorf("R %d, block %v: %q, want %q", c.r, c.block, got, c.want)
		}
	}
}
