package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hand-made A/A pair of package noise (counted by hand in
// noise.TestCountsByHand), the bundled example's two systems and its A/A
// pair.
const (
	aaA        = "../../noise/testdata/aa_a.jsonl"
	aaB        = "../../noise/testdata/aa_b.jsonl"
	exampleInc = "../../examples/quarterly/verdicts/incumbent.jsonl"
	exampleCan = "../../examples/quarterly/verdicts/candidate.jsonl"
	// exampleRerun is the incumbent run a second time: the example's A/A
	// pair with exampleInc (figures pinned in noise.TestExampleRerun).
	exampleRerun = "../../examples/quarterly/verdicts/incumbent-rerun.jsonl"
)

func TestNoiseGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"noise/aa.txt", []string{"noise", aaA, aaB}},
		{"noise/aa.json", []string{"noise", aaA, aaB, "--format", "json"}},
		{"noise/example.txt", []string{"noise", exampleInc, exampleCan}},
		{"noise/example.json", []string{"noise", exampleInc, exampleCan, "--format", "json"}},
		{"noise/rerun.txt", []string{"noise", exampleInc, exampleRerun}},
		{"noise/rerun.json", []string{"noise", exampleInc, exampleRerun, "--format", "json"}},
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

// TestNoiseExample pins the example's per-class discordant pairs to the
// numbers issue 13 quotes from it (19, 11, 22 and 7), counted from the
// verdict files with jq, independently of tally:
//
//	$ cd examples/quarterly/verdicts
//	$ jq -n --slurpfile a incumbent.jsonl --slurpfile b candidate.jsonl '
//	    def ret: .verdict == "verbatim" or .verdict == "supported";
//	    def key: "\(.conversation_id)/\(.compaction)/\(.item_id)";
//	    ($b | map({key: key, value: ret}) | from_entries) as $B
//	    | $a | map(select($B[key] != null) | {class, d: (ret != $B[key])})
//	    | group_by(.class) | map({class: .[0].class, pairs: length, discordant: map(select(.d)) | length})' -c
//	[{"class":"commitment","pairs":51,"discordant":11},{"class":"constraint","pairs":80,"discordant":19},
//	 {"class":"open_question","pairs":103,"discordant":22},{"class":"reference","pairs":61,"discordant":7}]
//
// The two files are two systems, not one run twice, and the output says
// so.
func TestNoiseExample(t *testing.T) {
	out, errOut, code := cli(t, "noise", exampleInc, exampleCan, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got aaJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"constraint": {80, 19}, "commitment": {51, 11}, "open_question": {103, 22}, "reference": {61, 7}}
	for _, c := range got.Classes {
		if w := want[c.Class]; c.Pairs != w[0] || c.Discordant != w[1] {
			t.Errorf("%s: %d discordant of %d pairs, want %d of %d", c.Class, c.Discordant, c.Pairs, w[1], w[0])
		}
	}
	if len(got.Classes) != 4 || got.All.Conversations != 40 {
		t.Errorf("%d classes, %d conversations; want 4 and the example's 40", len(got.Classes), got.All.Conversations)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], `A names its system "incumbent" and B "candidate"`) ||
		!strings.HasPrefix(got.Sentence, "If A and B are two runs of one system, ") {
		t.Errorf("two systems not said: %q, %q", got.Warnings, got.Sentence)
	}
}

// TestNoiseJSONContract: the keys README.md documents.
func TestNoiseJSONContract(t *testing.T) {
	out, _, code := cli(t, "noise", aaA, aaB, "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "confidence", "classes", "all", "unpaired", "agreement", "contradiction_flips", "contradiction_flip_rate", "warnings", "sentence"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	// open_question has an error and no pair: its figures are null.
	q := m["classes"].([]any)[2].(map[string]any)
	icc := q["icc"].(map[string]any)
	if q["class"] != "open_question" || q["discordance"] != nil || icc["rho"] != nil || icc["undefined"] == "" {
		t.Errorf("a class without pairs: %v", q)
	}
}

func TestNoiseErrors(t *testing.T) {
	dir := t.TempDir()
	rec := `{"system":"s","conversation_id":"conv1","compaction":1,"item_id":"c1","class":"constraint","verdict":"verbatim"}` + "\n"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.jsonl", rec)
	dup := write("dup.jsonl", rec+rec)
	other := write("other.jsonl", strings.Replace(rec, `"class":"constraint"`, `"class":"reference"`, 1))
	missing := filepath.Join(dir, "missing.jsonl")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one file", []string{"noise", ok}, 2, "tally: accepts 2 arg(s), received 1 (see tally --help)\n"},
		{"a confidence out of range", []string{"noise", ok, ok, "--confidence", "1.5"}, 2,
			"tally: --confidence 1.5: confidence must be strictly between 0 and 1, got 1.5 (see tally --help)\n"},
		{"a missing file", []string{"noise", ok, missing}, 1, "tally: stat " + missing + ": no such file or directory\n"},
		{"a folder", []string{"noise", dir, ok}, 1, "tally: " + dir + ": is a folder, not a file\n"},
		{"a duplicate, naming both lines", []string{"noise", dup, ok}, 1,
			"tally: " + dup + `:2:66: item_id: item "c1" of "conv1" at compaction 1 already has a verdict in this file (line 1): a file holds one record per item and compaction` + "\n"},
		{"a class that differs, naming both files", []string{"noise", ok, other}, 1,
			"tally: " + other + `:1:79: class: "reference", but ` + ok + `:1 gives item "c1" of "conv1" at compaction 1 the class constraint: the two runs must check the same fixtures` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, tt.args...)
			if code != tt.code || errOut != tt.want || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q\nwant exit %d, stderr %q", code, errOut, out, tt.code, tt.want)
			}
		})
	}
}

// TestNoiseKappaNoInterval: when κ's standard error is 0 (perfect
// agreement; Fleiss, Cohen & Everitt's variance vanishes, as psych's
// cohen.kappa gives var.kappa = 0), no interval is printed, as the report
// says it: "0.000 to 0.000" read as certainty.
func TestNoiseKappaNoInterval(t *testing.T) {
	dir := t.TempDir()
	var run strings.Builder
	for i, v := range []string{"verbatim", "absent", "supported", "absent"} {
		fmt.Fprintf(&run, `{"system": "inc", "conversation_id": "c%d", "compaction": 1, "item_id": "i0", "class": "constraint", "verdict": %q}`+"\n", i, v)
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(run.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := cli(t, "noise", a, b)
	if want := "Cohen's κ 1.000 (no interval: its standard error is 0)"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; stdout lacks %q:\n%s", code, errOut, want, out)
	}
	out, _, _ = cli(t, "noise", a, b, "--format", "json")
	if !strings.Contains(out, `"lower": null`) {
		t.Errorf("JSON interval not null:\n%s", out)
	}
}
