package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/rule"
)

// TestParseRegression reads each rule's keys and the noise pair.
func TestParseRegression(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       Regression
		noise      NoiseConfig
	}{
		{"default", "", Regression{Rule: rule.Rule{Kind: rule.McNemar, Alpha: 0.05, Clustered: true}, Drops: DefaultDrops}, NoiseConfig{}},
		{"mcnemar unclustered mid-p", "regression: {rule: mcnemar, alpha: 0.1, clustered: false, mid_p: true, drops: [0.05]}\n",
			Regression{Rule: rule.Rule{Kind: rule.McNemar, Alpha: 0.1, MidP: true}, Drops: []float64{0.05}}, NoiseConfig{}},
		{"noninferiority", "regression: {rule: noninferiority, margin: 0.02}\nnoise: {first: a1.jsonl, second: a2.jsonl}\n",
			Regression{Rule: rule.Rule{Kind: rule.NonInferiority, Alpha: 0.05, Margin: 0.02, Clustered: true}, Drops: DefaultDrops}, NoiseConfig{First: "a1.jsonl", Second: "a2.jsonl"}},
		{"count", "regression: {rule: count, retained_tolerance: 2, contradiction_tolerance: 1}\n",
			Regression{Rule: rule.Rule{Kind: rule.Count, Tolerance: 2, ContradictionTolerance: 1}, Drops: DefaultDrops}, NoiseConfig{}},
	} {
		cfg, err := ParseConfig("r.yaml", []byte(baseConfig+tt.yaml))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(cfg.Regression, tt.want) || cfg.Noise != tt.noise {
			t.Errorf("%s: got %+v %+v, want %+v %+v", tt.name, cfg.Regression, cfg.Noise, tt.want, tt.noise)
		}
	}
}

// TestParseRegressionProblems: a key of another rule, an unknown rule,
// mid-p with the clustered test, a half-named noise pair: each one line
// at the key.
func TestParseRegressionProblems(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"tolerance without the count rule", "regression:\n  retained_tolerance: 1\n",
			"r.yaml:6:23: regression.retained_tolerance: retained_tolerance belongs to rule: count, and the rule here is mcnemar (regression.rule; mcnemar when not set)"},
		{"margin under mcnemar", "regression: {rule: mcnemar, margin: 0.1}\n",
			"r.yaml:5:37: regression.margin: margin belongs to rule: noninferiority, and the rule here is mcnemar (regression.rule; mcnemar when not set)"},
		{"unknown rule", "regression: {rule: median}\n",
			`r.yaml:5:20: regression.rule: unknown rule "median": want mcnemar, noninferiority or count`},
		{"mid-p with the clustered test", "regression: {mid_p: true}\n",
			"r.yaml:5:21: regression.mid_p: mid_p applies to the unclustered test: add clustered: false, or remove mid_p (the clustered test is asymptotic)"},
		{"alpha out of range", "regression: {alpha: 0.5}\n",
			"r.yaml:5:21: regression.alpha: 0.5 is out of range: want a one-sided level strictly between 0 and 0.5, such as 0.05"},
		{"drops not a list", "regression: {drops: 0.03}\n",
			`r.yaml:5:21: regression.drops: want a list of drops in retention to give the rule's power for, such as [0.03, 0.10], got "0.03"`},
		{"a drop of 1", "regression: {drops: [0.03, 1]}\n",
			"r.yaml:5:28: regression.drops: 1 is out of range: want a drop strictly between 0 and 1, such as 0.03 for 3 points"},
		{"a drop twice", "regression: {drops: [0.5, 0.5]}\n", // a second re-check trial
			"r.yaml:5:27: regression.drops: 0.5 is given twice"},
		// A German or French reviewer's decimal comma (a new user's trial).
		{"decimal commas", "regression: {drops: [0,03, 0,10]}\n",
			"r.yaml:5:22: regression.drops: want drops in retention to give the rule's power for, such as [0.03, 0.10], got 0,03: a decimal comma? A list is split at commas, so write decimals with a point (0.03)"},
		{"clustered not a bool", "regression: {clustered: yes please}\n",
			`r.yaml:5:25: regression.clustered: want true or false, got "yes please"`},
		{"half a noise pair", "noise: {first: a1.jsonl}\n",
			"r.yaml:5:8: noise.second: missing: noise names two check runs of one system, first and second (tally noise FIRST SECOND)"},
	} {
		_, err := ParseConfig("r.yaml", []byte(baseConfig+tt.yaml))
		if err == nil || strings.TrimSpace(err.Error()) != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}
