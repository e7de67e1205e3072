package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tally-eval/tally/selection"
)

// TestSelectLogs: `tally select` reads agent logs directly (here three
// Claude Code sessions written by hand in one file). Real logs list no
// items, so the decisions count the proposer's items, and the output
// says so. The first session states two standing rules before its
// compaction (2 decisions), the second compacts before anything is
// stated (1: a compaction with nothing live still decides), the third
// never compacts and is never chosen. The text is
// testdata/select_logs.txt.
func TestSelectLogs(t *testing.T) {
	logs := filepath.Join("testdata", "select-logs", "sessions.jsonl")
	out := filepath.Join(t.TempDir(), "picked.jsonl")
	stdout, stderr, code := selCLI(t, "select", logs, "--budget", "2", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "select_logs.txt", stdout)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var p selection.Picked
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p.ID[len(p.ID)-1:]+":"+itoa(p.Decisions))
	}
	if strings.Join(got, " ") != "1:2 2:1" {
		t.Errorf("picked %v, want session 1 with 2 decisions, then session 2 with 1", got)
	}

	stdout, stderr, code = selCLI(t, "select", logs, "--budget", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum selection.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.ItemsSource != selection.ItemsProposed || sum.ProposedItems != 3 || sum.Read != 3 {
		t.Errorf("items_source %q, proposed_items %d, read %d; want proposed, 3, 3", sum.ItemsSource, sum.ProposedItems, sum.Read)
	}

	// Two files, a format named, a bad format, and stdin.
	if out, stderr, code := selCLI(t, "select", logs, logs, "--budget", "2"); code != 0 || !strings.Contains(out+stderr, "3 sessions read again from a later file") {
		t.Errorf("the same sessions twice: exit %d, %q, %q", code, out, stderr)
	}
	if _, stderr, code := selCLI(t, "select", logs, "--budget", "2", "--log-format", "claude-code"); code != 0 {
		t.Errorf("--log-format claude-code: exit %d, %q", code, stderr)
	}
	if _, stderr, code := selCLI(t, "select", logs, "--log-format", "xml"); code != 2 || !strings.Contains(stderr, `invalid argument "xml" for "--log-format" flag: want one of`) {
		t.Errorf("--log-format xml: exit %d, %q", code, stderr)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestSelectRealLogs selects 10 of the dev set's real Claude Code
// sessions (TALLY_REAL_LOGS): every selected session compacts, and the
// selection carries more decisions than the 95% range of 10 random ones.
func TestSelectRealLogs(t *testing.T) {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Skip("TALLY_REAL_LOGS is not set: the real-log selection test needs the dev set (../shared/real/claude-code)")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs in %s: %v", dir, err)
	}
	stdout, stderr, code := selCLI(t, append([]string{"select", "--budget", "10", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum selection.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Read != len(files) || sum.ItemsSource != selection.ItemsProposed {
		t.Fatalf("read %d sessions from %d files, items %q", sum.Read, len(files), sum.ItemsSource)
	}
	for _, p := range sum.Sessions {
		if p.Compactions == 0 {
			t.Errorf("selected %s, which never compacts", p.ID)
		}
	}
	if sum.Random == nil || float64(sum.Selected.Decisions) <= sum.Random.Decisions.High {
		t.Errorf("selected %d decisions, random %+v: want more than the random range", sum.Selected.Decisions, sum.Random)
	}
	t.Logf("dev set: %d sessions, %d proposed items; selected 10 with %d decisions against random %.1f (%.0f–%.0f)",
		sum.Read, sum.ProposedItems, sum.Selected.Decisions, sum.Random.Decisions.Mean, sum.Random.Decisions.Low, sum.Random.Decisions.High)
}

// TestHourDecimals pins how annotation hours are shown: one decimal,
// unless the smallest value that is not zero would read 0.0, then two
// significant digits of it, at most three decimals.
func TestHourDecimals(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		want int
	}{
		{[]float64{1.3, 0.9, 0.8, 1.0}, 1},
		{[]float64{0.3}, 1},
		{[]float64{0.05}, 1},
		{[]float64{0.035, 0.034}, 3},
		{[]float64{0.049}, 3},
		{[]float64{0.004}, 3},
		{[]float64{0, 0}, 1},
	} {
		if got := hourDecimals(c.vals...); got != c.want {
			t.Errorf("hourDecimals(%v) = %d, want %d", c.vals, got, c.want)
		}
	}
}

// TestSelectIncidentsFile: --incidents takes the sessions a file names
// as incidents — here session 2, which has the fewest decisions and is
// selected first all the same — and says which names no session read
// has; a file of tally signals -o is read as it is.
func TestSelectIncidentsFile(t *testing.T) {
	logs := filepath.Join("testdata", "select-logs", "sessions.jsonl")
	dir := t.TempDir()
	named := filepath.Join(dir, "flagged.jsonl")
	if err := os.WriteFile(named, []byte(`{"session_id":"7c1e0a52-0002-4d7e-9a55-000000000002","signals":[]}`+"\n"+`{"session_id":"elsewhere"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "picked.jsonl")
	stdout, stderr, code := selCLI(t, "select", logs, "--budget", "1", "--compare-random", "0", "--incidents", named, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "3 sessions, 1 incident, 1 never compact") {
		t.Errorf("the count of incidents is not said:\n%s", stdout)
	}
	if !strings.Contains(stdout, "1 of the 2 sessions named as incidents was not among the sessions read, so not selected: elsewhere") {
		t.Errorf("the unread incident is not said:\n%s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var p selection.Picked
	if err := json.Unmarshal(data, &p); err != nil || !strings.HasSuffix(p.ID, "0002") || p.Reason != selection.ReasonIncident {
		t.Errorf("picked %s (%v): want session 2 as the incident", data, err)
	}
	// signals' own output, naming sessions of other logs.
	stdout, stderr, code = selCLI(t, "select", logs, "--budget", "1", "--compare-random", "0", "--incidents", filepath.Join("testdata", "signals", "flagged.jsonl"))
	if code != 0 || !strings.Contains(stdout, "sessions named as incidents were not among the sessions read") && !strings.Contains(stdout, "sessions named as incidents was not among the sessions read") {
		t.Errorf("signals' flagged sessions: exit %d, %s\n%s", code, stderr, stdout)
	}
	// A bad line: one error naming file, line, column and field.
	if err := os.WriteFile(named, []byte(`{"session_id":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := selCLI(t, "select", logs, "--incidents", named); code != 1 || !strings.Contains(stderr, "flagged.jsonl:1:15: session_id: want a string") {
		t.Errorf("a bad incidents line: exit %d, %q", code, stderr)
	}
}

// TestSignalsReadErrorNotWriting: with -o, an error reading a log is
// said as that log's error, not as one writing the output (a new user's
// trial got "writing f.jsonl: g.jsonl:1: …"), and no output is left.
func TestSignalsReadErrorNotWriting(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "g.jsonl")
	if err := os.WriteFile(log, []byte(`{"session_id":"s","messages":[{"role":"user","content":"a","injected":"Queued"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "f.jsonl")
	_, stderr, code := selCLI(t, "signals", log, "-o", out)
	if code != 1 || !strings.HasPrefix(stderr, "tally: "+log+":1:31: messages[0]: injected: \"Queued\"") || strings.Contains(stderr, "writing") {
		t.Errorf("exit %d, stderr %q: want 1 and the log's error alone", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
