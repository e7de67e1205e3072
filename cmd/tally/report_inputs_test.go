package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReportMissingInputs: input paths report.yaml names that do not
// exist are each one line naming report.yaml's line and column, the key
// and the path looked for, all at once, exit 1, and no output folder
// (a stakeholder's trial had "stat verdicts/nope.jsonl: no such file or
// directory" and no place in report.yaml).
func TestReportMissingInputs(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(quarterly)
	if err != nil {
		t.Fatal(err)
	}
	cfg := absoluteExampleConfig(t)
	cfg = strings.Replace(cfg, abs+"/verdicts/candidate.jsonl", "nope.jsonl", 1)
	cfg = strings.Replace(cfg, abs+"/replay.jsonl", "gone/replay.jsonl", 1)
	path := filepath.Join(dir, "report.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// at is where value stands in the configuration: PATH:LINE:COL.
	at := func(value string) string {
		for i, l := range strings.Split(cfg, "\n") {
			if k := strings.Index(l, value); k >= 0 {
				return path + ":" + strconv.Itoa(i+1) + ":" + strconv.Itoa(k+1) + ": "
			}
		}
		t.Fatalf("no %q in the configuration", value)
		return ""
	}
	out := filepath.Join(dir, "out")
	for _, cmd := range [][]string{{"report", path, "-o", out}, {"gate", path}} {
		_, stderr, code := cli(t, cmd...)
		for _, w := range []string{
			at("nope.jsonl") + "systems.candidate.verdicts: nope.jsonl: no such file (looked for " + filepath.Join(dir, "nope.jsonl") + ")",
			at("gone/replay.jsonl") + "replay: gone/replay.jsonl: no such file (looked for " + filepath.Join(dir, "gone/replay.jsonl") + ")",
		} {
			if !strings.Contains(stderr, w) {
				t.Errorf("tally %s: stderr lacks %q:\n%s", cmd[0], w, stderr)
			}
		}
		if code != exitInput || strings.Count(stderr, "\n") != 2 {
			t.Errorf("tally %s: exit %d, stderr:\n%s\nwant exit 1 and two lines", cmd[0], code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output folder exists after the error: %v", err)
	}
}

// TestReportOutputIsAFile: -o naming a file, or a folder under one, is
// one line saying so, not Go's "mkdir …: not a directory"; in report,
// fixtures draft and check.
func TestReportOutputIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "sub")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", exampleConfig, "-o", file}, "tally: -o " + file + ": is a file, not a folder"},
		// A file above the folder was mkdir's "not a directory".
		{[]string{"report", exampleConfig, "-o", under}, "tally: -o " + under + ": " + file + " is a file, so no folder can be made under it"},
		{[]string{"fixtures", "draft", "../../agentlog/testdata/codex-rollout.jsonl", "-o", under}, "tally: -o " + under + ": " + file + " is a file"},
		{[]string{"check", "--fixtures", "../../examples/quarterly/fixtures", "--contexts", "../../examples/quarterly/contexts/candidate", "--system", "candidate",
			"--judge", "recorded", "--recorded", "../../examples/quarterly/judge/recorded.jsonl", "-o", filepath.Join(under, "v.jsonl")},
			"tally: -o " + filepath.Join(under, "v.jsonl") + ": its folder " + under + ": " + file + " is a file"},
	} {
		_, stderr, code := cli(t, c.args...)
		if code != exitInput || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("tally %s: exit %d, stderr %q, want exit %d and one line starting %q", c.args[0], code, stderr, exitInput, c.want)
		}
	}
}
