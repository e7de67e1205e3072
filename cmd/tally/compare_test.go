package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestCompareScoreIntervals: `tally compare` carries the Miettinen–Nurminen
// and Mee score intervals in its JSON contract, after the three older
// methods, pinned to Newcombe (1998) example (d), 5/56 vs 0/29: MN
// −0.0326 to 0.1933, Mee −0.0313 to 0.1926 (Stat Med 17:873 Table II, as
// pinned in ratesci's tests/testthat/test3.R).
func TestCompareScoreIntervals(t *testing.T) {
	out, errOut, code := cli(t, "compare", "--a", "5/56", "--b", "0/29", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Intervals []struct {
			Method       string
			Lower, Upper float64
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		method       string
		lower, upper float64
	}{
		{"newcombe", math.NaN(), math.NaN()}, {"wald", math.NaN(), math.NaN()}, {"agresti-caffo", math.NaN(), math.NaN()},
		{"miettinen-nurminen", -0.0326, 0.1933}, {"mee", -0.0313, 0.1926},
	}
	if len(got.Intervals) != len(want) {
		t.Fatalf("%d intervals, want %d:\n%s", len(got.Intervals), len(want), out)
	}
	for i, w := range want {
		iv := got.Intervals[i]
		if iv.Method != w.method {
			t.Errorf("interval %d is %q, want %q", i, iv.Method, w.method)
		}
		if !math.IsNaN(w.lower) && (math.Abs(iv.Lower-w.lower) > 5e-5 || math.Abs(iv.Upper-w.upper) > 5e-5) {
			t.Errorf("%s: %.6f to %.6f, Newcombe 1998 (d) %.4f to %.4f", w.method, iv.Lower, iv.Upper, w.lower, w.upper)
		}
	}
}

// TestCompareHelpNamesMethods: --help names every interval the command
// prints.
func TestCompareHelpNamesMethods(t *testing.T) {
	out, _, code := cli(t, "compare", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, m := range []string{"newcombe", "wald", "agresti-caffo", "miettinen-nurminen", "mee"} {
		if !strings.Contains(out, "\n  "+m+" ") {
			t.Errorf("compare --help does not describe %s:\n%s", m, out)
		}
	}
}
