package report

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/rule"
)

func TestLoadConfigQuarterly(t *testing.T) {
	cfg, err := LoadConfig(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Confidence != 0.95 || cfg.Incumbent.Name != "incumbent" || cfg.Candidate.Name != "candidate" {
		t.Errorf("confidence %v, names %q %q", cfg.Confidence, cfg.Incumbent.Name, cfg.Candidate.Name)
	}
	want := map[fixture.Class]float64{fixture.Constraint: 0.95, fixture.Commitment: 0.90, fixture.OpenQuestion: 0.95, fixture.Reference: 0.98}
	for cl, v := range want {
		if cfg.Gates.Retained[cl] != v {
			t.Errorf("gates.retained.%s = %v, want %v", cl, cfg.Gates.Retained[cl], v)
		}
	}
	if cfg.Gates.MaxMeanPromptTokens != 12000 || cfg.Gates.MaxContradictions != 0 {
		t.Errorf("gates %+v", cfg.Gates)
	}
	if got := cfg.Resolve(cfg.Fixtures); got != filepath.Join("..", "examples", "quarterly", "fixtures") {
		t.Errorf("Resolve(fixtures) = %q", got)
	}
	if cfg.Resolve("/abs/x") != "/abs/x" || cfg.Resolve("") != "" {
		t.Error("Resolve must leave absolute and empty paths alone")
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig("dir/r.yaml", []byte("fixtures: f\nsystems:\n  incumbent: {verdicts: a.jsonl}\n  candidate: {verdicts: b.jsonl}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Confidence != DefaultConfidence || cfg.Incumbent.Name != "incumbent" || cfg.Candidate.Name != "candidate" ||
		cfg.Gates.MaxContradictions != 0 || cfg.Gates.MaxMeanPromptTokens != 0 || len(cfg.Gates.Retained) != 0 ||
		!reflect.DeepEqual(cfg.Regression, Regression{Rule: rule.Default.Normalized(), Drops: DefaultDrops}) || cfg.Noise != (NoiseConfig{}) || cfg.Replay != "" || cfg.Selection != "" || cfg.Notebook != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	if cfg.Gates.Use != UseJudge {
		t.Errorf("gates.use defaults to %q, want %q", cfg.Gates.Use, UseJudge)
	}
	if cfg.Resolve(cfg.Incumbent.Verdicts) != filepath.Join("dir", "a.jsonl") {
		t.Errorf("relative to the config folder: %q", cfg.Resolve(cfg.Incumbent.Verdicts))
	}
}

const baseConfig = `fixtures: f
systems:
  incumbent: {verdicts: a.jsonl}
  candidate: {verdicts: b.jsonl}
`

func TestParseConfigProblems(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // each a problem line, exactly
	}{
		{"unknown top-level key", baseConfig + "titel: x\n",
			[]string{`r.yaml:5:1: titel: unknown key "titel" (want title, period, confidence, fixtures, systems, replay, replay_drop, selection, reviews, notebook, gates, regression, noise)`}},
		{"unknown nested key", baseConfig + "gates:\n  retained:\n    constraints: 0.9\n",
			[]string{`r.yaml:7:5: gates.retained.constraints: unknown key "constraints" (want constraint, commitment, open_question, reference)`}},
		{"unknown system key", "fixtures: f\nsystems:\n  incumbent: {verdicts: a, prompt: p}\n  candidate: {verdicts: b}\n",
			[]string{`r.yaml:3:28: systems.incumbent.prompt: unknown key "prompt" (want name, verdicts, prompt_sizes)`}},
		{"repeated key", baseConfig + "title: a\ntitle: b\n",
			[]string{`r.yaml:6:1: title: repeated key (first at line 5)`}},
		{"share out of range", baseConfig + "gates:\n  retained: {constraint: 1.5}\n",
			[]string{`r.yaml:6:26: gates.retained.constraint: 1.5 is out of range: want a share from 0 to 1, such as 0.95`}},
		{"share not a number", baseConfig + "gates:\n  retained: {constraint: high}\n",
			[]string{`r.yaml:6:26: gates.retained.constraint: want a number (a share from 0 to 1, such as 0.95), got "high"`}},
		{"confidence 1", baseConfig + "confidence: 1\n",
			[]string{`r.yaml:5:13: confidence: 1 is out of range: want a level strictly between 0 and 1, such as 0.95`}},
		{"confidence with a decimal comma", baseConfig + "confidence: 0,95\n", // a re-check trial
			[]string{`r.yaml:5:13: confidence: want a number (a level strictly between 0 and 1, such as 0.95), got "0,95": a decimal comma? Write decimals with a point (0.95)`}},
		{"a thousands separator", baseConfig + "gates:\n  max_mean_prompt_tokens: 12,000\n", // a second re-check trial
			[]string{`r.yaml:6:27: gates.max_mean_prompt_tokens: want a number (tokens, 0 for no gate), got "12,000": write it without a thousands separator (12000)`}},
		{"confidence NaN", baseConfig + "confidence: .nan\n",
			[]string{`r.yaml:5:13: confidence: want a finite number (a level strictly between 0 and 1, such as 0.95), got ".nan"`}},
		{"negative max", baseConfig + "gates: {max_contradictions: -1}\n",
			[]string{`r.yaml:5:29: gates.max_contradictions: want a whole number from 0 to 2147483647 (contradicted items allowed), got -1`}},
		{"fractional tolerance", baseConfig + "regression: {rule: count, retained_tolerance: 0.5}\n",
			[]string{`r.yaml:5:47: regression.retained_tolerance: want a whole number (items of a class the candidate may lose net), got "0.5"`}},
		{"missing fixtures and systems", "title: x\n",
			[]string{`r.yaml:1:1: fixtures: missing: the fixtures (a folder of .json fixtures, a .json or a .jsonl file)`,
				`r.yaml:1:1: systems: missing: systems.incumbent and systems.candidate, each with its verdicts`}},
		{"missing verdicts", "fixtures: f\nsystems:\n  incumbent: {name: x}\n  candidate: {verdicts: b}\n",
			[]string{`r.yaml:3:14: systems.incumbent.verdicts: missing: the verdict records ` + "`tally check`" + ` wrote for this system`}},
		{"same names", "fixtures: f\nsystems:\n  incumbent: {name: x, verdicts: a}\n  candidate: {name: x, verdicts: b}\n",
			[]string{`r.yaml:3:3: systems: the incumbent and the candidate are both named "x"; give them different names`}},
		{"prompt gate without sizes", baseConfig + "gates: {max_mean_prompt_tokens: 100}\n",
			[]string{`r.yaml:3:3: systems.incumbent.prompt_sizes: missing: gates.max_mean_prompt_tokens needs each system's prompt sizes`,
				`r.yaml:4:3: systems.candidate.prompt_sizes: missing: gates.max_mean_prompt_tokens needs each system's prompt sizes`}}, // at the candidate's key (a new user's trial found the incumbent's)
		{"unknown gates.use", baseConfig + "gates: {use: reviewers}\n",
			[]string{`r.yaml:5:14: gates.use: "reviewers" is not what the gates can use: want judge (the judge's share) or corrected (corrected by the reviews)`}},
		{"gates.use: corrected without reviews", baseConfig + "gates: {use: corrected}\n",
			[]string{`r.yaml:5:14: gates.use: corrected needs the reviewers' verdicts: add reviews: (a file tally calibrate writes), or use judge`}},
		{"list for a path", baseConfig + "replay: [a, b]\n",
			[]string{`r.yaml:5:9: replay: want text, got a list`}},
		{"empty path", baseConfig + "replay: ''\n",
			[]string{`r.yaml:5:9: replay: empty path`}},
		{"not a mapping", "- a\n- b\n",
			[]string{`r.yaml:1:1: want a mapping of report settings (title, fixtures, systems, gates, …), got a list`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("r.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", err, strings.Join(tt.want, "\n"))
			}
			var p fixture.Problem
			if !errors.As(err, &p) {
				t.Error("not a fixture.Problem")
			}
		})
	}
}

// TestParseConfigSyntax: a file that is not YAML is one line,
// FILE:LINE:COL: what is wrong, at the exact place for what can be
// found exactly (a tab in the indentation, a byte that is not UTF-8, a
// control character), at the first character of the parser's line for
// the rest.
func TestParseConfigSyntax(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"bad indentation: the parser's line, its first character", "fixtures: f\n  systems: x\n", "r.yaml:2:3: mapping values are not allowed in this context"},
		{"empty", "", "r.yaml:1:1: empty: want a mapping of report settings"},
		{"two documents: where the second starts", baseConfig + "---\ntitle: x\n", "r.yaml:5:1: a second YAML document; a configuration is one document"},
		{"a tab indenting a key", "fixtures: f\nsystems:\n\tincumbent: {verdicts: a}\n", "r.yaml:3:1: a tab in the indentation; YAML indents with spaces only"},
		{"a tab after spaces, on the line after the one the parser names", "fixtures: f\nsystems:\n  incumbent: {verdicts: a}\n  \tcandidate: {verdicts: b}\n",
			"r.yaml:4:3: a tab in the indentation; YAML indents with spaces only"},
		{"a tab with CRLF line ends", "fixtures: f\r\n\tsystems: x\r\n", "r.yaml:2:1: a tab in the indentation; YAML indents with spaces only"},
		{"Latin-1 é, after a multi-byte character on its line", "fixtures: f\ntitle: “caf\xe9”\n", "r.yaml:2:12: byte 0xE9 is not UTF-8; save the configuration as UTF-8"},
		{"a UTF-16 file", "\xff\xfef\x00", "r.yaml:1:1: byte 0xFF is not UTF-8; save the configuration as UTF-8"},
		{"a NUL byte", "fixtures: f\x00\n", "r.yaml:1:12: control character U+0000 is not allowed in YAML"},
		{"an unclosed flow list: the parser's line", "fixtures: [f\n", "r.yaml:1:1: did not find expected ',' or ']'"},
		{"an unknown anchor: where it is used", baseConfig + "title: *name\n", "r.yaml:5:8: unknown anchor 'name' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("r.yaml", []byte(tt.yaml))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}

// TestLoadConfigFile: a configuration that cannot be read is one line
// naming the file.
func TestLoadConfigFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		reason, path, want string
		notExist           bool
	}{
		{"a missing file", filepath.Join(dir, "nope.yaml"), filepath.Join(dir, "nope.yaml") + ": no such file", true},
		{"a folder given as the file", dir, dir + ": is a folder, not a configuration file: give the path of the report's YAML file (report.yaml)", false},
	}
	for _, tt := range tests {
		_, err := LoadConfig(tt.path)
		if err == nil || err.Error() != tt.want || errors.Is(err, fs.ErrNotExist) != tt.notExist {
			t.Errorf("%s: got %v, want %s", tt.reason, err, tt.want)
		}
	}
}

func TestParseConfigAliases(t *testing.T) {
	// Anchors and aliases are YAML; they resolve like any value.
	y := baseConfig + "gates:\n  retained: {constraint: &g 0.9, commitment: *g}\n"
	cfg, err := ParseConfig("r.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gates.Retained[fixture.Commitment] != 0.9 {
		t.Errorf("alias: %v", cfg.Gates.Retained)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(baseConfig))
	f.Add([]byte(baseConfig + "gates:\n  retained: {constraint: 0.95}\n  max_contradictions: 0\nregression: {rule: count, retained_tolerance: 1}\n"))
	f.Add([]byte(baseConfig + "regression: {rule: mcnemar, alpha: 0.1, clustered: false, mid_p: true, drops: [0.03, 0.1]}\nnoise: {first: a.jsonl, second: b.jsonl}\n"))
	f.Add([]byte(baseConfig + "regression: {rule: noninferiority, margin: 0.05, mid_p: true}\nnoise: {first: a.jsonl}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("confidence: 0x10\nfixtures: !!binary aGk=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("f.yaml", data)
		if err != nil {
			return
		}
		if cfg.Confidence <= 0 || cfg.Confidence >= 1 {
			t.Errorf("accepted confidence %v", cfg.Confidence)
		}
		if cfg.Fixtures == "" || cfg.Incumbent.Verdicts == "" || cfg.Candidate.Verdicts == "" {
			t.Errorf("accepted without fixtures or verdicts: %+v", cfg)
		}
		if cfg.Incumbent.Name == cfg.Candidate.Name {
			t.Errorf("accepted one name for both systems: %q", cfg.Incumbent.Name)
		}
		for cl, v := range cfg.Gates.Retained {
			if !cl.Valid() || v < 0 || v > 1 {
				t.Errorf("accepted gate %s = %v", cl, v)
			}
		}
		if cfg.Gates.MaxContradictions < 0 || cfg.Regression.Rule.Validate() != nil {
			t.Errorf("accepted a negative count: %+v %+v", cfg.Gates, cfg.Regression)
		}
	})
}

// TestNumberSpelling: the two spellings of numbers in other locales
// (CLDR's number symbols: "," is the decimal sign of de and fr, the
// group sign of en), and what is neither.
func TestNumberSpelling(t *testing.T) {
	for _, c := range []struct {
		in, fixed string
		sep, ok   bool
	}{
		{"0,95", "0.95", false, true},
		{" -0,5 ", "-0.5", false, true},
		{",5", ".5", false, true},
		{"12,000", "12000", true, true},
		{"1,234,567", "1234567", true, true},
		{"12,00", "12.00", false, true}, // two digits: a decimal comma
		{"0,950", "0.950", false, true}, // a leading 0 groups nothing
		{"0.95", "", false, false},
		{"high", "", false, false},
		{"1,2,3", "", false, false},
	} {
		fixed, sep, ok := NumberSpelling(c.in)
		if fixed != c.fixed || sep != c.sep || ok != c.ok {
			t.Errorf("%q: %q %v %v, want %q %v %v", c.in, fixed, sep, ok, c.fixed, c.sep, c.ok)
		}
	}
}
