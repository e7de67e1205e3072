package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/selection"
)

// TestSignalsWritesAllOrNone: the flagged sessions (-o) and the weekly
// sample are one set of files: when the sample cannot be written (a folder
// stands at its path), the flagged file is not written either.
func TestSignalsWritesAllOrNone(t *testing.T) {
	dir := t.TempDir()
	flagged, sample := filepath.Join(dir, "flagged.jsonl"), filepath.Join(dir, "sample.jsonl")
	if err := os.Mkdir(sample, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, "signals", quarterly+"/events/week-01.jsonl.gz", "-o", flagged, "--sample-out", sample)
	if code != exitInput {
		t.Fatalf("exit %d, want %d: %s", code, exitInput, errOut)
	}
	if _, err := os.Stat(flagged); !os.IsNotExist(err) {
		t.Errorf("flagged.jsonl was written beside a sample that failed (%v)", err)
	}
	list, _ := os.ReadDir(dir)
	if len(list) != 1 {
		t.Errorf("the folder holds %d entries, want only the sample's folder", len(list))
	}
	// Both paths free: both files.
	if err := os.Remove(sample); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cli(t, "signals", quarterly+"/events/week-01.jsonl.gz", "-o", flagged, "--sample-out", sample); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{flagged, sample} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// TestSignalsGolden: `tally signals` on four real-format (Claude Code)
// sessions joined in one file, cmd/tally/testdata/signals/sessions.jsonl
// (selection/testdata's lost_read, push_again, orientation and told_you:
// a lost result, a severe push, orientation not flagged, three
// restatements), against golden files: the summary, the flagged sessions
// with their evidence, and the JSON summary.
func TestSignalsGolden(t *testing.T) {
	log := filepath.Join("testdata", "signals", "sessions.jsonl")
	flagged := filepath.Join(t.TempDir(), "flagged.jsonl")
	stdout, stderr, code := selCLI(t, "signals", log, "-o", flagged, "--sample", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "signals/summary.txt", stdout)
	data, err := os.ReadFile(flagged)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "signals/flagged.jsonl", string(data))
	stdout, stderr, code = selCLI(t, "signals", log, "-o", flagged, "--format", "json", "--window", "2", "--window-steps", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "signals/summary_window2.json", stdout)
	// Without -o the flagged sessions are stdout, the summary stderr.
	stdout, stderr, code = selCLI(t, "signals", log)
	if code != exitOK || stdout != string(data) || !strings.HasPrefix(stderr, "1 file, 43 lines") {
		t.Errorf("without -o: exit %d, stdout as -o's: %v, stderr %q", code, stdout == string(data), stderr)
	}
}

// TestSignalsExample: the example quarter's logs go through the reader
// their format sniffs to; the flagged sessions go to -o as JSONL, one a
// line, and agree with the summary on stdout and with the JSON summary.
func TestSignalsExample(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(exampleEvents, "week-*.jsonl*")) // .jsonl, or .jsonl.gz in Claude Code's format
	if len(files) != 13 {
		t.Fatalf("%d week files in %s, want 13", len(files), exampleEvents)
	}
	out := filepath.Join(t.TempDir(), "flagged.jsonl")
	sample := filepath.Join(t.TempDir(), "sample.jsonl")
	stdout, stderr, code := selCLI(t, append(append([]string{"signals"}, files...), "-o", out, "--sample-out", sample)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	occurrences := map[string]int{}
	for _, l := range lines {
		var f selection.Flagged
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.SessionID == "" || !strings.HasPrefix(f.Week, "2026-W") || len(f.Signals) == 0 {
			t.Fatalf("line %s: %+v (%v)", l, f, err)
		}
		for _, s := range f.Signals {
			occurrences[string(s.Kind)]++
			if s.Kind == selection.RepeatedToolCall && (s.First == nil || s.Call == nil || s.First.Line == 0 || s.Call.Line <= s.CompactionLine) ||
				s.Kind == selection.RestatedInstruction && (s.Message == nil || s.Message.Line <= s.CompactionLine) {
				t.Errorf("%s: signal without its evidence: %+v", f.SessionID, s)
			}
		}
	}
	for _, s := range []string{"13 files, ", fmt.Sprintf("; %d flagged", len(lines)), "2026-W02"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
	sdata, _ := os.ReadFile(sample)
	if n := strings.Count(string(sdata), "\n"); n < 13 || n > 13*20 {
		t.Errorf("sample file has %d lines", n)
	}

	// Without -o the flagged sessions are stdout, the summary stderr; with
	// --format json that would leave stdout two kinds of JSON, so it is a
	// usage error, and with -o stdout is the JSON summary alone.
	_, stderr, code = selCLI(t, append(append([]string{"signals"}, files...), "--format", "json")...)
	if code != 2 || !strings.Contains(stderr, "--format json needs -o") {
		t.Errorf("--format json without -o: exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code = selCLI(t, append(append([]string{"signals"}, files...), "--format", "json", "-o", filepath.Join(t.TempDir(), "f.jsonl"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep signalsJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Flagged != len(lines) || len(rep.Weeks) != 13 || rep.Sessions != 2000 {
		t.Errorf("JSON summary %v: %+v", err, rep)
	}
	for _, k := range rep.Signals {
		if k.Occurrences != occurrences[string(k.Signal)] {
			t.Errorf("%s: %d occurrences in the summary, %d in the flagged sessions", k.Signal, k.Occurrences, occurrences[string(k.Signal)])
		}
	}
}

func TestSignalsBadLine(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.jsonl")
	os.WriteFile(log, []byte(`{"session_id":"s","turn":1,"kind":"tool_call","tool":"grep","args":{"a":1}}
{"session_id":"s","turn":2,"kind":"compaction"}
{"session_id":"s","turn":3,"kind":"tool_call","tool":"grep","args":{"a":1}
{"session_id":"s","turn":3,"kind":"tool_call","tool":"grep","args":{ "a" : 1 }}
`), 0o644)
	_, stderr, code := selCLI(t, "signals", log)
	if code != 1 || stderr != "tally: "+log+":3:75: unexpected end of line: the JSON value is not complete (--skip-bad skips malformed lines, each said on stderr)\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code := selCLI(t, "signals", log, "--skip-bad")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"signal":"repeated_tool_call","severe":false,"turn":3,"step":2,"evidence_turn":1,"compaction_turn":2,"compaction_line":2,`) ||
		!strings.Contains(stdout, `"call":{"tool":"grep","input":{"a":1},"turn":3,"step":2,"line":4,`) {
		t.Errorf("stdout %s", stdout)
	}
	if !strings.Contains(stderr, "note: skipped 1 malformed line(s)") || !strings.Contains(stderr, "note: skipped "+log+":3:75:") {
		t.Errorf("stderr %s", stderr)
	}
	if _, stderr, code := selCLI(t, "signals", log, "--window-steps", "-1"); code != 1 || !strings.HasPrefix(stderr, "tally: the ") {
		t.Errorf("--window-steps -1: exit %d, stderr %q", code, stderr)
	}
	// An unknown format is a usage error, as in every command that reads
	// agent logs.
	if _, stderr, code := selCLI(t, "signals", log, "--log-format", "yaml"); code != 2 || !strings.Contains(stderr, `invalid argument "yaml" for "--log-format" flag`) {
		t.Errorf("--log-format yaml: exit %d, stderr %q", code, stderr)
	}
}

// TestByteSize: a log's size is never "0.0 MB" (a new user's small
// logs); decimal prefixes, as the MB figure always was (SI: 1 MB is
// 10^6 bytes).
func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"}, {1, "1 byte"}, {999, "999 bytes"}, {1000, "1.0 kB"}, {49_999, "50.0 kB"},
		{50_000, "0.1 MB"}, {94_500_000, "94.5 MB"},
	} {
		if got := byteSize(c.n); got != c.want {
			t.Errorf("byteSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
