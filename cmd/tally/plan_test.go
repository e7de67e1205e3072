package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// issue13Plan is the case issue 13 names: 9 of 300 conversations failing
// outright at a success rate of 0.80.
var issue13Plan = []string{"plan", "--rate", "0.80", "--conversations", "300", "--catastrophic", "9"}

func TestPlanGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"plan_issue13.txt", issue13Plan},
		{"plan_issue13_gained.txt", append(append([]string{}, issue13Plan...), "--p-gained", "0.04")},
		{"plan_issue13_discordance.json", append(append([]string{}, issue13Plan...), "--discordance", "0.11", "--format", "json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// TestPlanPairedHonesty: issue 13, build item 6. "Cannot be resolved by
// the aggregate" is said of independent runs only; the paired figures
// name what they assume, and the output says what a paired run of the
// same N can and cannot resolve. The numbers are Connor's formula in base
// R (power/plan_paired_test.go, connorR): a paired run of 300 has power
// 0.85 for 9 lost when nothing else differs (n = 259.26 → 260), 0.35 at
// p_lost 0.07, p_gained 0.04 (n = 956.95 → 957), and resolves the drop
// only while the runs disagree on at most 3.47% of the conversations.
func TestPlanPairedHonesty(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  []string
		not   []string
	}{
		{"nothing stated", nil, []string{
			"cannot be resolved by the aggregate of two independent runs: runs of 300 detect it with power 0.14",
			"the paired figures (connor) assume the runs disagree on no conversation but those the change loses: no noise, no gained pairs",
			"a paired run of the same 300 detects it with power 0.85 (connor), assuming the runs disagree on no conversation but the 9 lost: no noise, no gained pairs",
			"it no longer does once the runs disagree on more than 3.5% of the conversations (10.4 of 300: the 9 lost and 1.4 more)",
			"or 260 pairs in a paired design under that assumption",
		}, []string{"no care in running the eval changes that"}},
		{"p_gained 0.04", []string{"--p-gained", "0.04"}, []string{
			"6.0 points with a paired run", // R uniroot: 0.06036
			"the paired figures (connor) assume p_gained 0.04",
			"detects it with power 0.35 (connor), assuming p_lost 0.07 and p_gained 0.04: the runs disagree on 11.0% of the conversations, the 9 lost included",
			"so it cannot resolve it; it would only if the runs disagreed on at most 3.5% of the conversations",
			"or 957 pairs in a paired design",
		}, nil},
		{"discordance 0.11", []string{"--discordance", "0.11"}, []string{
			"5.3 points with a paired run", // R uniroot: 0.05344
			"the paired figures (connor) assume discordance 0.11",
			"assuming p_lost 0.07 and p_gained 0.04",
			"or 957 pairs in a paired design",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, append(append([]string{}, issue13Plan...), tt.extra...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("output says %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestPlanJSONPaired: the JSON names the assumption and carries the
// paired run's figures (Connor in R, as above).
func TestPlanJSONPaired(t *testing.T) {
	var p struct {
		Design struct {
			Method, Assumption string
			PGained            *float64 `json:"p_gained"`
			Discordance        *float64
		} `json:"paired_design"`
		MDE struct {
			Paired *float64
		} `json:"minimum_detectable_effect"`
		Catastrophic struct {
			Resolvable bool
			Paired     struct {
				PLost      float64  `json:"p_lost"`
				PGained    float64  `json:"p_gained"`
				Power      float64  `json:"power"`
				Resolvable bool     `json:"resolvable"`
				MaxDisc    *float64 `json:"max_discordance"`
			}
			Needed struct{ Independent, Paired int } `json:"conversations_needed"`
		}
	}
	out, _, code := cli(t, append(append([]string{}, issue13Plan...), "--p-gained", "0.04", "--format", "json")...)
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("exit %d: %s", code, out)
	}
	c := p.Catastrophic
	if p.Design.Method != "connor" || p.Design.Assumption != "p_gained" || p.Design.PGained == nil || *p.Design.PGained != 0.04 || p.Design.Discordance != nil {
		t.Errorf("paired_design %+v", p.Design)
	}
	if c.Resolvable || c.Paired.Resolvable || c.Paired.PLost != 0.07 || c.Paired.PGained != 0.04 || c.Needed.Paired != 957 || c.Needed.Independent != 2943 {
		t.Errorf("catastrophic %+v; want 957 pairs (Connor n = 956.95) and 2943 per run (power.prop.test n = 2942.59)", c)
	}
	if d := c.Paired.Power - 0.34646431103537539; d > 1e-9 || d < -1e-9 {
		t.Errorf("paired power %v, want 0.346464311 (R connor_power(300, 0.07, 0.04))", c.Paired.Power)
	}
	if c.Paired.MaxDisc == nil || *c.Paired.MaxDisc < 0.03467142 || *c.Paired.MaxDisc > 0.03467143 {
		t.Errorf("max discordance %v, want 0.0346714253 (R uniroot)", c.Paired.MaxDisc)
	}
	out, _, _ = cli(t, append(append([]string{}, issue13Plan...), "--format", "json")...)
	p.Design.PGained = nil
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Design.Assumption != "none" || p.Design.PGained != nil {
		t.Errorf("nothing stated: paired_design %+v (%v)", p.Design, err)
	}
}

func TestPlanPairedErrors(t *testing.T) {
	tests := []struct {
		extra []string
		code  int
		msg   string
	}{
		{[]string{"--discordance", "0.02"}, 2, "tally: 9 catastrophic of 300: discordance 0.02 is below the drop 0.03"},
		{[]string{"--p-gained", "0.3"}, 2, "tally: p_gained 0.3 exceeds the reference's failure rate 0.2"},
		{[]string{"--p-gained", "NaN"}, 2, "tally: p_gained must be a probability"},
		{[]string{"--discordance", "-0.1"}, 2, "tally: discordance must be a probability"},
		{[]string{"--p-gained", "0.01", "--discordance", "0.1"}, 2, "tally: if any flags in the group [p-gained discordance]"},
		{[]string{"extra"}, 2, `tally: unknown command "extra" for "tally plan"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.extra, " "), func(t *testing.T) {
			out, errOut, code := cli(t, append(append([]string{}, issue13Plan...), tt.extra...)...)
			if code != tt.code || !strings.HasPrefix(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d and one line starting %q", code, errOut, out, tt.code, tt.msg)
			}
		})
	}
}

// TestPlanHelpNamesAssumptions: --help says what each paired flag means
// and where to measure it.
func TestPlanHelpNamesAssumptions(t *testing.T) {
	out, _, code := cli(t, "plan", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, w := range []string{"--p-gained G", "--discordance D", "no noise, no gained pairs", "replay the same system\ntwice", "`tally noise`", "Connor 1987"} {
		if !strings.Contains(out, w) {
			t.Errorf("help lacks %q:\n%s", w, out)
		}
	}
}

// TestPlanTakesSubcommand: `tally plan fixtures` is a subcommand of plan
// (cmd/tally/planfixtures.go); plan's own required flags and NoArgs must
// not stand in its way, and a bare word that is no subcommand is still a
// usage error.
func TestPlanTakesSubcommand(t *testing.T) {
	out, errOut, code := repCLI(t, "plan", "fixtures", "--items", "constraint=80", "--conversations", "40", "--baseline", "0.9", "--discordance", "0.1")
	if code != 0 || errOut != "" || !strings.Contains(out, "a harmless change") {
		t.Fatalf("plan fixtures: exit %d, stderr %q, output %q", code, errOut, out)
	}
	if _, _, code := repCLI(t, "plan", "--rate", "0.8", "--conversations", "300"); code != 0 {
		t.Fatalf("plan with a subcommand beside it: exit %d", code)
	}
	if _, _, code := repCLI(t, "plan", "fixturez"); code != exitUsage {
		t.Errorf("plan fixturez: exit %d, want %d", code, exitUsage)
	}
}

// TestPlanFewDiscordantAndTinyUncertainty: a paired figure resting on
// fewer than 10 expected discordant pairs carries the exact test's power
// (1 − pbinom(5, 200, 0.015) = 0.08239 in R: with no noise the exact
// McNemar test rejects at 0.05 only on six or more discordant pairs, all
// lost), and at a billion conversations the standard error and interval
// keep two significant digits of their size: sqrt(0.83 · 0.17 / 1e9) =
// 1.1878e-05, and the Wald bounds 0.83 ∓ 1.959964 · 1.1878e-05 are
// 0.829977 and 0.830023 (the formula, worked by hand).
func TestPlanFewDiscordantAndTinyUncertainty(t *testing.T) {
	tests := []struct {
		conversations string
		want, not     []string
	}{
		{"200", []string{"the exact test's power at 200 pairs is 0.0824 (--method exact)"}, nil},
		{"1000000000", []string{
			"= 0.000012, that is 0.0012 points",
			"95% interval 0.829977–0.830023 (wald)",
			"which is 0.00025 standard errors",
			"the exact test's power at 1000000000 pairs is 0.0839 (--method exact)", // R: 1 - pbinom(5, 1e9, 3e-9)
		}, []string{"0.0000,", "0.830–0.830", "0.00 standard errors"}},
	}
	for _, tt := range tests {
		t.Run(tt.conversations, func(t *testing.T) {
			out, errOut, code := cli(t, "plan", "--rate", "0.83", "--conversations", tt.conversations, "--catastrophic", "3")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}
