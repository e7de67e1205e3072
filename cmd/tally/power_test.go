package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestPowerGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"plan_source.txt", []string{"plan", "--rate", "0.83", "--conversations", "200", "--catastrophic", "3"}},
		{"plan_source.json", []string{"plan", "--rate", "0.83", "--conversations", "200", "--catastrophic", "3", "--format", "json"}},
		{"mcnemar_replay.txt", []string{"mcnemar", "--table", "157,9,11,23"}},
		{"mcnemar_bentur.json", []string{"mcnemar", "--table", "1,1,7,12", "--format", "json"}},
		{"mcnemar_empty.txt", []string{"mcnemar", "--table", "5,0,0,5"}},
		// Tango's (1998) example, a,b,c,d = 43,0,1,0 in his orientation
		// (b gained): Z(0.1) = 1.709 (issue 13).
		{"mcnemar_tango_margin.txt", []string{"mcnemar", "--table", "43,1,0,0", "--margin", "0.1"}},
		{"mcnemar_tango_margin.json", []string{"mcnemar", "--table", "43,1,0,0", "--margin", "0.1", "--format", "json"}},
		// Obuchowski's thyroid data as clust.bin.pair prints it, PET the
		// candidate (TestMcNemarClusters).
		{"mcnemar_clusters_thyroid.txt", []string{"mcnemar", "--table", "39,7,1,4", "--clusters", "testdata/clusters_thyroid.csv", "--margin", "0.1"}},
		{"mcnemar_clusters_thyroid.json", []string{"mcnemar", "--table", "39,7,1,4", "--clusters", "testdata/clusters_thyroid.csv", "--format", "json"}},
		{"power_paired_connor.txt", []string{"power", "paired", "--p-lost", "0.45", "--p-gained", "0.05", "--power", "0.8"}},
		{"power_paired_exact.txt", []string{"power", "paired", "--p-lost", "0.02", "--p-gained", "0.06", "--power", "0.8", "--method", "exact"}},
		{"power_independent_n.json", []string{"power", "independent", "--p1", "0.83", "--p2", "0.815", "--n", "200", "--format", "json"}},
		{"power_paired_alpha.txt", []string{"power", "paired", "--p-lost", "0.45", "--p-gained", "0.05", "--n", "23", "--power", "0.8"}},
		{"power_paired_exact_alpha.txt", []string{"power", "paired", "--p-lost", "0.02", "--p-gained", "0.06", "--n", "421", "--power", "0.8", "--method", "exact"}},
		{"power_independent_alpha.json", []string{"power", "independent", "--p1", "0.83", "--p2", "0.72", "--n", "200", "--power", "0.8", "--format", "json"}},
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

// TestPlanReproducesSource: `tally plan --rate 0.83 --conversations 200
// --catastrophic 3` must read as the source text's argument: SE 2.7
// points (0.027), an interval of 0.78–0.88, four times the conversations
// to halve it, and a drop of 1.5 points = 0.56 SE that the aggregate
// cannot resolve.
func TestPlanReproducesSource(t *testing.T) {
	out, _, code := cli(t, "plan", "--rate", "0.83", "--conversations", "200", "--catastrophic", "3")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{
		"= 0.0266, that is 2.7 points",
		"interval 0.778–0.882",
		"halving that uncertainty takes 800 conversations: four times as many",
		"a drop of 3/200 = 1.5 points, which is 0.56 standard errors (one standard error is 2.7 points)",
		"cannot be resolved by the aggregate",
		"to detect it: 10185 conversations per run", // R: power.prop.test(p1=.83, p2=.815, power=.8) n = 10184.49
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = cli(t, "plan", "--rate", "0.83", "--conversations", "200", "--catastrophic", "3", "--format", "json")
	var p struct {
		StandardError float64 `json:"standard_error"`
		Interval      struct{ Lower, Upper float64 }
		Halve         int `json:"halve_uncertainty_conversations"`
		Catastrophic  struct {
			Drop             float64 `json:"drop"`
			InStandardErrors float64 `json:"in_standard_errors"`
			Resolvable       bool    `json:"resolvable"`
			Needed           struct {
				Independent, Paired int
			} `json:"conversations_needed"`
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if math.Round(p.StandardError*1000)/1000 != 0.027 || math.Round(p.Interval.Lower*100)/100 != 0.78 || math.Round(p.Interval.Upper*100)/100 != 0.88 {
		t.Errorf("SE %v, interval %v–%v; the source says 0.027 and 0.78–0.88", p.StandardError, p.Interval.Lower, p.Interval.Upper)
	}
	if p.Halve != 800 || p.Catastrophic.Drop != 0.015 || p.Catastrophic.Resolvable || p.Catastrophic.Drop >= p.StandardError {
		t.Errorf("plan JSON %+v disagrees with the source's 1.5 points < 2.7 points", p)
	}
	if p.Catastrophic.Needed.Independent != 10185 {
		t.Errorf("independent conversations needed %d; R's power.prop.test gives n = 10184.49 → 10185", p.Catastrophic.Needed.Independent)
	}
}

func TestPowerErrors(t *testing.T) {
	// Every value here is a flag's: a value the computation refuses is a
	// usage error, exit 2, in every command (README, "Commands").
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"mcnemar", "--table", "1,2,3"}, 2, "tally: --table: "},
		{[]string{"mcnemar", "--table", "1,-2,3,4"}, 2, "tally: --table: "},
		{[]string{"mcnemar", "--table", "0,0,0,0"}, 2, "tally: --table: "},
		{[]string{"mcnemar", "--table", "a,b,c,d"}, 2, "tally: --table: "},
		{[]string{"mcnemar"}, 2, "tally: required flag(s) \"table\" not set"},
		{[]string{"mcnemar", "--table", "1,2,3,4", "--margin", "1"}, 2, "tally: --margin 1: "},
		{[]string{"mcnemar", "--table", "1,2,3,4", "--margin", "-0.1"}, 2, "tally: --margin -0.1: "},
		{[]string{"mcnemar", "--table", "1,2,3,4", "--margin", "NaN"}, 2, "tally: --margin NaN: "},
		{[]string{"mcnemar", "--table", "1,2,3,4", "--margin", "x"}, 2, "tally: invalid argument \"x\" for \"--margin\""},
		// A decimal comma (a German or French habit; a new user's trial).
		{[]string{"mcnemar", "--table", "1,2,3,4", "--margin", "0,05"}, 2, "tally: --margin: \"0,05\" is not a number: write decimals with a point (0.05)"},
		{[]string{"power", "paired", "--p-lost", "0.6", "--p-gained", "0.6", "--n", "10"}, 2, "tally: "},
		{[]string{"power", "paired", "--p-lost", "NaN", "--p-gained", "0.1", "--n", "10"}, 2, "tally: "},
		{[]string{"power", "paired", "--p-lost", "0.1", "--p-gained", "0.01", "--n", "0"}, 2, "tally: --n 0: "},
		{[]string{"power", "paired", "--p-lost", "0.1", "--p-gained", "0.01", "--n", "2", "--power", "0.99"}, 2, "tally: --n 2 --power 0.99: n = 2 cannot reach power 0.99 at any significance level below 1"},
		{[]string{"power", "paired", "--p-lost", "0.1", "--p-gained", "0.01", "--n", "10", "--power", "0.8", "--alpha", "0.05"}, 2, "tally: --n, --power and --alpha: give two of them"},
		{[]string{"power", "independent", "--p1", "0.5", "--p2", "0.5", "--n", "10", "--power", "0.8"}, 2, "tally: --n 10 --power 0.8: p1 = p2 = 0.5"},
		{[]string{"power", "paired", "--p-lost", "0.1", "--p-gained", "0.01"}, 2, "tally: at least one of the flags"},
		{[]string{"power", "paired", "--p-lost", "0.1", "--p-gained", "0.01", "--n", "10", "--method", "magic"}, 2, "tally: --method: "},
		{[]string{"power", "independent", "--p1", "0.5", "--p2", "0.4", "--power", "1.2"}, 2, "tally: --power 1.2: "},
		{[]string{"power", "independent", "--p1", "1.5", "--p2", "0.4", "--n", "5"}, 2, "tally: "},
		{[]string{"plan", "--rate", "0.83", "--conversations", "-1"}, 2, "tally: "},
		{[]string{"plan", "--rate", "1.83", "--conversations", "200"}, 2, "tally: "},
		{[]string{"plan", "--rate", "0.83", "--conversations", "200", "--catastrophic", "201"}, 2, "tally: "},
		{[]string{"plan", "--rate", "0.83", "--conversations", "200", "--alpha", "0"}, 2, "tally: "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := cli(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if !strings.HasPrefix(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr %q: want one line starting %q", errOut, tt.msg)
			}
			if out != "" {
				t.Errorf("stdout %q on error", out)
			}
		})
	}
}

// TestMcNemarMargin: --margin prints Tango's non-inferiority statistic,
// Z(0.1) = 1.709 on Tango's (1998) example (issue 13), and the JSON
// carries it; without --margin the JSON has no such field.
func TestMcNemarMargin(t *testing.T) {
	out, errOut, code := cli(t, "mcnemar", "--table", "43,1,0,0", "--margin", "0.1")
	if code != 0 || !strings.Contains(out, "Z = 1.7086, one-sided p = 0.0438") {
		t.Errorf("exit %d (%s); output lacks Tango's Z(0.1) = 1.709:\n%s", code, errOut, out)
	}
	out, _, _ = cli(t, "mcnemar", "--table", "43,1,0,0", "--margin", "0.1", "--format", "json")
	var j struct {
		NI *struct {
			Method string
			Margin float64
			Z      float64
		} `json:"noninferiority"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.NI == nil || j.NI.Method != "tango" || j.NI.Margin != 0.1 || math.Abs(j.NI.Z-1.708564) > 5e-7 {
		t.Errorf("JSON noninferiority %+v (%v), want tango, margin 0.1, Z 1.708564", j.NI, err)
	}
	out, _, _ = cli(t, "mcnemar", "--table", "43,1,0,0", "--format", "json")
	if strings.Contains(out, "noninferiority") {
		t.Errorf("JSON without --margin has a noninferiority field:\n%s", out)
	}
}

// TestPowerSolveAlpha: given --n and --power, power reports the smallest
// two-sided α, which handed back as --alpha with --power gives that n
// again (the round trip through the existing solve-for-n). R 4.2:
//
//	> power.prop.test(n=200, p1=.83, p2=.72, power=.8, sig.level=NULL)
//	              n = 200
//	             p1 = 0.83
//	             p2 = 0.72
//	      sig.level = 0.07188164
//	          power = 0.8
//
// (uniroot, tolerance about 1.2e-4; the closed form is 0.071872973614274).
func TestPowerSolveAlpha(t *testing.T) {
	out, errOut, code := cli(t, "power", "independent", "--p1", "0.83", "--p2", "0.72", "--n", "200", "--power", "0.8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j struct {
		Alpha     float64
		SolvedFor string `json:"solved_for"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.SolvedFor != "alpha" || math.Abs(j.Alpha-0.07188164) > 1.2e-4 {
		t.Fatalf("alpha %v solved_for %q (%v); R's power.prop.test gives 0.07188164", j.Alpha, j.SolvedFor, err)
	}
	for _, c := range []struct {
		design []string
		n      string
	}{
		{[]string{"independent", "--p1", "0.83", "--p2", "0.72"}, "200"},
		{[]string{"paired", "--p-lost", "0.45", "--p-gained", "0.05"}, "23"},
		{[]string{"paired", "--p-lost", "0.07", "--p-gained", "0.04", "--method", "miettinen"}, "957"},
	} {
		args := append(append([]string{"power"}, c.design...), "--n", c.n, "--power", "0.8", "--format", "json")
		out, errOut, code := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		args = append(append([]string{"power"}, c.design...), "--power", "0.8", "--alpha", strconv.FormatFloat(j.Alpha, 'g', -1, 64), "--format", "json")
		out, _, _ = cli(t, args...)
		var back struct {
			N          int
			UnroundedN float64 `json:"unrounded_n"`
		}
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(back.N) != c.n || math.Abs(back.UnroundedN-float64(back.N)) > 1e-6*float64(back.N) {
			t.Errorf("%v at α %v: n %d (unrounded %v), want %s", c.design, j.Alpha, back.N, back.UnroundedN, c.n)
		}
	}
}

// TestFlagValueExitCodes: the same mistake exits the same way in every
// command (a statistician's trial found --confidence 1 exiting 1 in
// interval, compare, mcnemar and replay, 2 in check and noise).
func TestFlagValueExitCodes(t *testing.T) {
	for _, args := range [][]string{
		{"interval", "-k", "1", "-n", "2", "--confidence", "1"},
		{"interval", "-k", "3", "-n", "2"},
		{"compare", "--a", "3/10", "--b", "0/10", "--confidence", "1"},
		{"compare", "--a", "1.5/3", "--b", "1/3"},
		{"mcnemar", "--table", "1,2,3,4", "--confidence", "0"},
		{"replay", quarterly + "/replay.jsonl", "--confidence", "1"},
		{"noise", quarterly + "/verdicts/incumbent.jsonl", quarterly + "/verdicts/incumbent-rerun.jsonl", "--confidence", "1"},
		{"power", "independent", "--p1", "0.5", "--p2", "0.4", "--n", "10", "--alpha", "0"},
		{"plan", "--rate", "0.83", "--conversations", "200", "--power", "1"},
	} {
		_, errOut, code := cli(t, args...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 {
			t.Errorf("tally %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestPlanBeyondLimit: a drop too small for any run that can be counted
// (3 conversations in 10⁹, independent runs: about 2.5e17 per run by R's
// power.prop.test(p1 = .83, p2 = .83 - 3e-9, power = .8)) is said as
// "more than 2^53", and the rest of the plan is still given.
func TestPlanBeyondLimit(t *testing.T) {
	out, errOut, code := cli(t, "plan", "--rate", "0.83", "--conversations", "1000000000", "--catastrophic", "3")
	want := "to detect it: more than 9007199254740992 conversations per run comparing two independent runs, or 2616293243 pairs"
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "standard error") {
		t.Errorf("exit %d, stderr %q, stdout lacks %q:\n%s", code, errOut, want, out)
	}
	out, _, _ = cli(t, "plan", "--rate", "0.83", "--conversations", "1000000000", "--catastrophic", "3", "--format", "json")
	if !strings.Contains(out, `"independent": null`) || !strings.Contains(out, `"more_than": 9007199254740992`) {
		t.Errorf("JSON:\n%s", out)
	}
}

// TestCompareSentence: the standard errors the sentence counts are the
// pooled test's whose p it gives (3/10 against 0/10: R's
// prop.test(c(3, 0), c(10, 10), correct = FALSE) gives X² = 3.5294, so
// z = 1.8787 and p = 0.0603), the unpooled ratio (2.07) said apart.
func TestCompareSentence(t *testing.T) {
	out, _, code := cli(t, "compare", "--a", "3/10", "--b", "0/10")
	want := "The difference is 1.88 standard errors under equal rates (the pooled z-test's; 2.07 of the unpooled standard error the Wald interval uses): not distinguishable from noise at 95% confidence (p = 0.0603 ≥ 0.05)"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d; stdout lacks %q:\n%s", code, want, out)
	}
}

// TestPowerFewDiscordant: Connor's approximation on few expected
// discordant pairs says so, with the exact test's power at that n (a
// statistician's trial). At p_gained 0 every discordant pair is a loss,
// and the exact two-sided test rejects d of d lost when 2·0.5^d ≤ 0.05,
// d ≥ 6; so its power at 10 pairs is P(D ≥ 6), D ~ Bin(10, 0.45): R's
// pbinom(5, 10, .45, lower.tail = FALSE) = 0.2616.
func TestPowerFewDiscordant(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--p-lost", "0.45", "--p-gained", "0", "--n", "10"}, "note: connor: 10 pairs expect 4.5 discordant ones (n · (p_lost + p_gained)); below about 10 the normal approximation is rough: the exact test's power at 10 pairs is 0.2616 (--method exact)"},
		{[]string{"--p-lost", "1", "--p-gained", "0", "--power", "0.8"}, "the exact test's power at 4 pairs is 0.0000"},
		{[]string{"--p-lost", "0.1", "--p-gained", "0.05", "--power", "0.8"}, ""},
		// Beyond MaxExactPairs pairs the exact power is still given while
		// few discordant pairs are expected: R's 1 - pbinom(5, 1e9, 3e-9)
		// = 0.0839 (power/testdata/exact_beyond_limit.R).
		{[]string{"--p-lost", "3e-9", "--p-gained", "0", "--n", "1000000000"}, "below about 10 the normal approximation is rough: the exact test's power at 1000000000 pairs is 0.0839 (--method exact)"},
	} {
		out, _, code := cli(t, append([]string{"power", "paired"}, c.args...)...)
		if code != 0 || (c.want != "" && !strings.Contains(out, c.want)) || (c.want == "" && strings.Contains(out, "note:")) {
			t.Errorf("%v: exit %d, output:\n%s\nwant %q", c.args, code, out, c.want)
		}
	}
}
