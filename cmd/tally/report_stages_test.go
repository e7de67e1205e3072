package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReportStages: on a terminal, report says the stage it is at, on
// one line rewritten in place and cleared before the verdict (a new
// user's trial waited 26 s at 10,000 fixtures with nothing shown); the
// stages are not in what a pipe gets (the README's console examples,
// checked elsewhere, hold none).
func TestReportStages(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no pseudo-terminal")
	}
	program := tallyProgram(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := program("report", "../../examples/quarterly/report.yaml", "-o", out)
	var env []string
	for _, e := range cmd.Env {
		if !strings.HasPrefix(e, "CI=") && !strings.HasPrefix(e, "TALLY_NO_PROGRESS=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	r := startPTYCmd(t, cmd)
	r.expect("report: reading the fixtures…")
	r.expect("report: reading the verdicts of the candidate…")
	r.expect("report: writing report.md, report.html and report.xlsx…\r\x1b[Kverdict: ")
	<-r.done
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
}
