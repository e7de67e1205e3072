package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckBadNumbersAreUsageErrors: a numeric flag of check given a value
// it cannot take is a mistake in the command line — exit 2 with a line
// naming the flag, nothing written — not a failure of the input (exit 1),
// and never silently replaced by a default.
func TestCheckBadNumbersAreUsageErrors(t *testing.T) {
	script := writeScript(t, "cat >/dev/null\necho '{\"verdict\":\"absent\"}'\n")
	for _, tt := range []struct {
		flag, value string
		reason      string
	}{
		{"--concurrency", "0", "no judge call could ever be made"},
		{"--concurrency", "-3", "negative"},
		{"--rate", "-1", "a negative rate"},
		{"--rate", "NaN", "not a number"},
		{"--rate", "+Inf", "infinite: say 0 for unlimited"},
		{"--timeout", "0s", "was silently the 60s default"},
		{"--timeout", "-5s", "negative"},
		{"--attempts", "0", "was silently the default 5"},
		{"--attempts", "-1", "negative"},
		{"--reasks", "-2", "was silently no re-ask"},
		{"--max-retry-after", "0s", "exited 1"},
		{"--max-errors", "-1", "exited 1"},
		{"--deadline", "-1m", "exited 1"},
		{"--breaker", "-4", "exited 1"},
		{"--confidence", "1.5", "exited 1"},
	} {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			_, stderr, code := cli(t, commandArgs(script, out, tt.flag, tt.value)...)
			if code != exitUsage || !strings.Contains(stderr, tt.flag) {
				t.Fatalf("%s %s (%s): exit %d, stderr %q; want exit 2 naming the flag", tt.flag, tt.value, tt.reason, code, stderr)
			}
			if fileExists(out) {
				t.Fatalf("%s %s wrote %s", tt.flag, tt.value, out)
			}
		})
	}
}

// fileExists reports whether path exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestCheckHelpBreakerCountsQuestions: --help says what the breaker
// counts — questions failed for want of the judge, a command's non-zero
// exit once per context, not a 4xx or an unusable reply — as judge's
// TestCheckBreakerCountsQuestions pins it; it used to say "calls", then
// every failed question.
func TestCheckHelpBreakerCountsQuestions(t *testing.T) {
	stdout, _, code := cli(t, "check", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{
		"after --breaker consecutive questions failed for want of the judge it is not called again",
		"the items left are answered from the cache",
		"--breaker int consecutive questions failed for want of the judge",
		"a command's non-zero exit once per context",
		"An HTTP 4xx (a 413) or a reply with no usable verdict is not counted and resets the count",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("check --help does not say %q", want)
		}
	}
	if strings.Contains(help, "failed calls") || strings.Contains(help, "failed judge calls") {
		t.Error("check --help still says the breaker counts calls")
	}
}

// TestNoProgress: CI, TERM=dumb or TALLY_NO_PROGRESS turn the progress
// bar off even on a terminal (a CI agent's pseudo-terminal logged every
// redraw in a CI user's trial).
func TestNoProgress(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"CI": "", "TERM": "xterm", "TALLY_NO_PROGRESS": ""}, false},
		{map[string]string{"CI": "true", "TERM": "xterm", "TALLY_NO_PROGRESS": ""}, true},
		{map[string]string{"CI": "", "TERM": "dumb", "TALLY_NO_PROGRESS": ""}, true},
		{map[string]string{"CI": "", "TERM": "xterm", "TALLY_NO_PROGRESS": "1"}, true},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		if got := noProgress(); got != c.want {
			t.Errorf("%v: noProgress %v, want %v", c.env, got, c.want)
		}
	}
}
