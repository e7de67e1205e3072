package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// cli runs the CLI in-process and returns what main would print and the
// exit code it would use.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, args)
	for _, line := range errorLines(err) {
		errb.WriteString(line + "\n")
	}
	return out.String(), errb.String(), exitCode(err)
}

// golden compares got with testdata/NAME, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/tally -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test ./cmd/tally -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"interval_166_200.txt", []string{"interval", "-k", "166", "-n", "200"}},
		{"interval_0_10_json.json", []string{"interval", "-k", "0", "-n", "10", "--format", "json"}},
		{"compare_168_166.txt", []string{"compare", "--a", "168/200", "--b", "166/200"}},
		{"compare_168_166_json.json", []string{"compare", "--a", "168/200", "--b", "166/200", "--format", "json"}},
		{"compare_boundary.txt", []string{"compare", "--a", "0/10", "--b", "0/20"}},
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

// TestREADMEExample checks the numbers the README quotes from the source
// text: standard error 0.0266 and Wilson 0.772–0.876 for 166/200, and a
// difference of 168/200 against 166/200 that is not distinguishable.
func TestREADMEExample(t *testing.T) {
	out, _, code := cli(t, "interval", "-k", "166", "-n", "200", "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var iv struct {
		StandardError float64 `json:"standard_error"`
		Intervals     []struct {
			Method       string
			Lower, Upper float64
		}
	}
	if err := json.Unmarshal([]byte(out), &iv); err != nil {
		t.Fatal(err)
	}
	if s := formatFixed(iv.StandardError, 4); s != "0.0266" {
		t.Errorf("standard error %s, README says 0.0266", s)
	}
	for _, m := range iv.Intervals {
		if m.Method == "wilson" && (formatFixed(m.Lower, 3) != "0.772" || formatFixed(m.Upper, 3) != "0.876") {
			t.Errorf("wilson %v–%v, README says 0.772–0.876", m.Lower, m.Upper)
		}
	}
	out, _, _ = cli(t, "compare", "--a", "168/200", "--b", "166/200")
	if !strings.Contains(out, "0.27 standard errors: not distinguishable from noise") {
		t.Errorf("compare does not say the difference is noise:\n%s", out)
	}
}

func TestCompareJSONContract(t *testing.T) {
	out, _, code := cli(t, "compare", "--a", "0/10", "--b", "0/20", "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "difference", "standard_error", "z", "p_value", "intervals", "noise"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["p_value"] != nil || m["z"] != nil {
		t.Errorf("pooled rate 0: z and p_value must be null, got %v, %v", m["z"], m["p_value"])
	}
}

func TestErrors(t *testing.T) {
	// A value a flag cannot take is a usage error, exit 2, whether cobra
	// or the statistics refuse it (README, "Commands").
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"interval", "-k", "1", "-n", "0"}, 2, "tally: -k 1 -n 0 --confidence 0.95: trials must be at least 1, got 0 (see tally --help)\n"},
		{[]string{"interval", "-k", "-1", "-n", "5"}, 2, "tally: -k -1 -n 5 --confidence 0.95: successes must not be negative, got -1 (see tally --help)\n"},
		{[]string{"interval", "-k", "6", "-n", "5"}, 2, "tally: -k 6 -n 5 --confidence 0.95: successes 6 exceed trials 5 (see tally --help)\n"},
		{[]string{"interval", "-k", "1", "-n", "5", "--confidence", "1.5"}, 2, "tally: -k 1 -n 5 --confidence 1.5: confidence must be strictly between 0 and 1, got 1.5 (see tally --help)\n"},
		{[]string{"interval", "-k", "1", "-n", "5", "--confidence", "NaN"}, 2, "tally: -k 1 -n 5 --confidence NaN: confidence must be strictly between 0 and 1, got NaN (see tally --help)\n"},
		{[]string{"interval", "-k", "1", "-n", "5", "--method", "bayes"}, 2, "tally: --method: unknown interval method \"bayes\" (want all, wald, wilson, wilson-cc, agresti-coull, jeffreys, clopper-pearson) (see tally --help)\n"},
		{[]string{"power"}, 2, "tally: tally power needs a subcommand: independent, paired (see tally --help)\n"},
		{[]string{"power", "foo"}, 2, "tally: unknown command \"foo\" for \"tally power\" (see tally --help)\n"},
		{[]string{"fixtures"}, 2, "tally: tally fixtures needs a subcommand: draft, validate (see tally --help)\n"},
		{[]string{"compare", "--a", "3/x", "--b", "1/2"}, 2, "tally: --a: \"3/x\": trials \"x\" is not a whole number (see tally --help)\n"},
		{[]string{"compare", "--a", "3/4", "--b", "12"}, 2, "tally: --b: \"12\" is not K/N (successes/trials, e.g. 166/200) (see tally --help)\n"},
		{[]string{"compare", "--a", "3/4", "--b", "5/4"}, 2, "tally: --b: \"5/4\": successes 5 exceed trials 4 (see tally --help)\n"},
		{[]string{"interval", "-k", "1"}, 2, "tally: required flag(s) \"trials\" not set (see tally --help)\n"},
		{[]string{"interval", "-k", "x", "-n", "2"}, 2, ""},
		{[]string{"interval", "-k", "1", "-n", "2", "extra"}, 2, ""},
		{[]string{"nosuch"}, 2, ""},
		{[]string{"interval", "-k", "1", "-n", "2", "--format", "yaml"}, 2, "tally: --format must be text or json, got \"yaml\" (see tally --help)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := cli(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if tt.msg != "" && errOut != tt.msg {
				t.Errorf("stderr %q\nwant    %q", errOut, tt.msg)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "tally: ") {
				t.Errorf("stderr must be one line starting with \"tally: \", got %q", errOut)
			}
			if out != "" {
				t.Errorf("no output expected on error, got %q", out)
			}
		})
	}
}

func TestHelpListsCommands(t *testing.T) {
	out, _, code := cli(t, "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, c := range []string{"interval", "compare", "mcnemar", "power", "plan", "version"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("--help does not list %q:\n%s", c, out)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := cli(t, "version")
	if code != 0 || !strings.HasPrefix(out, "tally "+version) {
		t.Errorf("version printed %q (exit %d)", out, code)
	}
}

// TestREADMEConfigIsTheExample: the configuration README.md shows is the
// example's report.yaml, byte for byte, so the README's verdict is the one
// that configuration gives.
func TestREADMEConfigIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../examples/quarterly/report.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "### The configuration: `report.yaml`")
	if i < 0 {
		t.Fatal("README.md has no section \"The configuration: `report.yaml`\"")
	}
	a := strings.Index(s[i:], "```yaml\n")
	if a < 0 {
		t.Fatal("the configuration section has no yaml block")
	}
	block := s[i+a+len("```yaml\n"):]
	block = block[:strings.Index(block, "```\n")]
	if block != string(want) {
		t.Errorf("README.md's report.yaml block differs from examples/quarterly/report.yaml:\n%s", block)
	}
}

// TestREADMEShowsRealOutput: the console examples README.md shows are the
// commands' real output, as pinned by the golden files.
func TestREADMEShowsRealOutput(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"interval_166_200.txt", "compare_168_166.txt", "plan_source.txt", "mcnemar_replay.txt", "power_paired_connor.txt"} {
		g, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), string(g)) {
			t.Errorf("README.md does not show testdata/%s as it is; paste the new output", name)
		}
	}
}

// TestFixturesValidateInputs: validate refuses what it cannot safely
// read, with one line naming the file (and line), and finds a
// conversation_id repeated across its PATHs.
func TestFixturesValidateInputs(t *testing.T) {
	one := func(id string) string {
		return `{"conversation_id": "` + id + `", "turns": 5, "compactions_expected": 1, "must_survive": [{"id": "i1", "class": "constraint", "turn": 2, "literal": "L", "probe": "P", "expect": "E"}]}`
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a/x.json", one("x"))
	b := write("b/x.jsonl", one("y")+"\n"+one("x")+"\n")
	long := write("long.jsonl", one("z")+"\n"+`{"pad": "`+strings.Repeat("p", 2000)+`"}`+"\n")
	fifoDir := filepath.Join(dir, "fifo")
	if err := os.Mkdir(fifoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(fifoDir, "p.json")
	mkfifo(t, fifo)
	folderJSON := filepath.Join(dir, "c", "2.json")
	write("c/2.json/1.json", one("w"))
	write("c/1.json", one("v"))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		reason string
	}{
		{"dup across paths", []string{a, b}, 1, "tally: " + b + `:2:21: conversation_id: duplicate conversation_id "x" (first at ` + a + ":1:21)\n",
			"two PATHs are one set: a conversation counted twice is a mistake"},
		{"fifo", []string{fifoDir}, 1, "tally: " + fifo + ": is a named pipe (FIFO), not a regular file (tally reads only regular files: copy the data to one)\n",
			"a named pipe would block the run for ever"},
		{"folder named 2.json", []string{filepath.Join(dir, "c")}, 1, "tally: " + folderJSON + ": is a folder, not a fixture file (a fixtures folder holds .json files; compacted contexts go in CONTEXTS/<conversation_id>/<n>.json)\n",
			"a folder named like a fixture is reported, not skipped"},
		{"long line", []string{"--max-line", "1KiB", long}, 1, "tally: " + long + ":2: line longer than 1 KiB (raise with --max-line)\n",
			"a line over --max-line names file and line and the flag"},
		{"long line raised", []string{"--max-line", "1MiB", long}, 1, "tally: " + long + ":2:1: conversation_id: missing\n" +
			"tally: " + long + ":2:1: turns: missing\n" +
			"tally: " + long + ":2:1: compactions_expected: missing\n" +
			"tally: " + long + ":2:1: must_survive: missing\n" +
			"tally: " + long + `:2:2: unknown field "pad"` + "\n",
			"raised, the line is read (and has its own problems)"},
		{"max-file", []string{"--max-file", "100", long}, 1, "tally: " + long + ": larger than 100 bytes (raise with --max-file)\n",
			"a file over --max-file"},
		{"bad size", []string{"--max-line", "lots", a}, 2, "",
			"a size that does not parse is a usage error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var stderr string
			var code int
			go func() {
				defer close(done)
				_, stderr, code = cli(t, append([]string{"fixtures", "validate"}, tc.args...)...)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("validate blocked")
			}
			if code != tc.code || (tc.stderr != "" && stderr != tc.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s(%s)", code, stderr, tc.code, tc.stderr, tc.reason)
			}
		})
	}
}
