package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// repCLI runs the CLI in-process with report, gate and replay
// registered (main.go registers them; until it does, this adds them).
func repCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	opts := &options{format: "text"}
	var added bool
	for _, c := range []*cobra.Command{newReportCmd(opts), newGateCmd(opts), newReplayCmd(opts)} {
		if !hasCommand(root, c.Name()) {
			root.AddCommand(c)
			added = true
		}
	}
	if added {
		pre := root.PersistentPreRunE
		root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
			if err := pre(cmd, args); err != nil {
				return err
			}
			opts.format = root.PersistentFlags().Lookup("format").Value.String()
			return nil
		}
	}
	root.SetArgs(args)
	err := root.Execute()
	for _, line := range errorLines(err) {
		errb.WriteString(line + "\n")
	}
	return out.String(), errb.String(), exitCode(err)
}

const exampleConfig = quarterly + "/report.yaml"

// TestCheckReproducesExampleVerdicts: the committed verdict files are
// exactly what `tally check` writes with the recorded judge, the
// incumbent's rerun (the example's A/A pair for `tally noise`) too.
func TestCheckReproducesExampleVerdicts(t *testing.T) {
	dir := t.TempDir()
	for _, sys := range []string{"incumbent", "candidate", "incumbent-rerun"} {
		out := filepath.Join(dir, sys+".jsonl")
		_, errOut, code := cli(t, recordedArgs(sys, "--cache", "", "-o", out)...)
		if code != 0 {
			t.Fatalf("check %s: exit %d: %s", sys, code, errOut)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(quarterly, "verdicts", sys+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("examples/quarterly/verdicts/%s.jsonl differs from what tally check writes now; regenerate it:\n"+
				"  go run ./cmd/tally check --fixtures examples/quarterly/fixtures --contexts examples/quarterly/contexts/%s --system %s "+
				"--judge recorded --recorded examples/quarterly/judge/recorded.jsonl -o examples/quarterly/verdicts/%s.jsonl", sys, sys, sys, sys)
		}
	}
}

func TestGateQuarterly(t *testing.T) {
	out, errOut, code := repCLI(t, "gate", exampleConfig)
	if code != exitGateFail || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 3 and nothing on stderr", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if lines[0] != "verdict: blocks — rows that got worse under the candidate: contradictions" {
		t.Errorf("first line %q", lines[0])
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^constraint +≥ 95\.0% +71/80 88\.8% +fail +70/80 87\.5% +fail +fewer retained, not significant \(10 lost, 9 gained, one-sided clustered McNemar p = 0\.430, Holm level 0\.05\)$`),
		// 15 lost against 7 gained is p 0.054 by the clustered test, above
		// Holm's 0.0125 for the smallest of four: noise can do that.
		regexp.MustCompile(`(?m)^open_question +≥ 95\.0% +96/103 93\.2% +fail +88/103 85\.4% +fail +fewer retained, not significant \(15 lost, 7 gained, one-sided clustered McNemar p = 0\.054, Holm level 0\.0125\)$`),
		regexp.MustCompile(`(?m)^contradictions +≤ 0 +2 +fail +7 +fail +worse \(7 new, 2 no longer contradicted\)$`),
		regexp.MustCompile(`(?m)^mean prompt tokens +≤ 12000 +6320 +pass +4331 +pass +better$`),
		regexp.MustCompile(`(?m)^backlog, unmet by both systems \(a standard not yet met, not a merge decision\): constraint, commitment, open_question, reference, contradictions$`),
		regexp.MustCompile(`(?m)^rule: The change blocks when any row got worse\. Each row is decided item by item, on the item-compactions both systems checked\. Rule: mcnemar: a class blocks when the one-sided clustered McNemar test`),
		regexp.MustCompile(`(?m)^Error rates of this rule \(simulated, 2000 fixture sets, seed 20261201\): it blocks a harmless change — one exactly as good as the incumbent, differing by noise alone — with probability [0-4]\.[0-9]%`),
	} {
		if !want.MatchString(out) {
			t.Errorf("gate output does not match %s:\n%s", want, out)
		}
	}
	out, _, code = repCLI(t, "gate", exampleConfig, "--format", "json")
	var j struct {
		Verdict        string   `json:"verdict"`
		Blocks         bool     `json:"blocks"`
		Fails          bool     `json:"fails"`
		Worse          []string `json:"worse"`
		Backlog        []string `json:"backlog"`
		CandidateUnmet []string `json:"candidate_unmet"`
		Rule           string   `json:"rule"`
		ErrorRates     struct {
			Known      bool     `json:"known"`
			FalseBlock *float64 `json:"false_block"`
			Power      []struct {
				Class string    `json:"class"`
				Block []float64 `json:"block"`
			} `json:"power"`
		} `json:"error_rates"`
		Rows []struct {
			Row       string `json:"row"`
			Incumbent struct {
				Retained *int   `json:"retained"`
				Status   string `json:"status"`
			} `json:"incumbent"`
			Change string `json:"change"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if code != exitGateFail || j.Verdict != "blocks" || !j.Blocks || !j.Fails || strings.Join(j.Worse, ",") != "contradictions" ||
		len(j.Backlog) != 5 || len(j.Rows) != 6 || *j.Rows[0].Incumbent.Retained != 71 || j.Rows[4].Row != "contradictions" || j.Rule == "" {
		t.Errorf("exit %d, JSON %+v", code, j)
	}
	if er := j.ErrorRates; !er.Known || er.FalseBlock == nil || *er.FalseBlock > 0.05 || len(er.Power) != 4 || len(er.Power[0].Block) != 2 {
		t.Errorf("error_rates %+v: want known, a false-block rate of at most 0.05, and 4 classes' power at 2 drops", er)
	}
}

// repCase writes two hand-made fixtures, each system's verdicts (every
// item verbatim except those in lost/contradicted for the candidate) and
// report.yaml with extra appended; it returns the configuration's path.
func repCase(t *testing.T, candAbsent, candContradicted []string, extra string) string {
	t.Helper()
	dir := t.TempDir()
	classes := []string{"constraint", "commitment", "open_question", "reference"}
	var fx, inc, cand strings.Builder
	for _, conv := range []string{"conv_a", "conv_b"} {
		fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":40,"compactions_expected":1,"must_survive":[`, conv)
		for i, cl := range classes {
			id := fmt.Sprintf("c%d", i+1)
			if i > 0 {
				fx.WriteString(",")
			}
			fmt.Fprintf(&fx, `{"id":%q,"class":%q,"turn":%d,"literal":"literal %s","probe":"p?","expect":"yes"}`, id, cl, i+2, id)
			fmt.Fprintf(&inc, `{"system":"incumbent","conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":"verbatim"}`+"\n", conv, id, cl)
			v := "verbatim"
			for _, k := range candAbsent {
				if k == conv+"/"+id {
					v = "absent"
				}
			}
			for _, k := range candContradicted {
				if k == conv+"/"+id {
					v = "contradicted"
				}
			}
			fmt.Fprintf(&cand, `{"system":"candidate","conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":%q}`+"\n", conv, id, cl, v)
		}
		fx.WriteString("]}\n")
	}
	cfg := "fixtures: fixtures.jsonl\nsystems:\n  incumbent: {verdicts: inc.jsonl}\n  candidate: {verdicts: cand.jsonl}\n" + extra
	for name, data := range map[string]string{"fixtures.jsonl": fx.String(), "inc.jsonl": inc.String(), "cand.jsonl": cand.String(), "report.yaml": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "report.yaml")
}

func TestGateExitCodes(t *testing.T) {
	gates := "gates: {retained: {constraint: 0.9}}\n"
	tests := []struct {
		reason         string
		absent, contra []string
		extra          string
		args           []string
		code           int
		firstLine      string
	}{
		{"nothing got worse", nil, nil, gates, nil, 0, "verdict: does not block — no row got worse under the candidate"},
		{"--strict with every gate met", nil, nil, gates, []string{"--strict"}, 0, "verdict: does not block — no row got worse under the candidate"},
		{"a constraint lost, count rule", []string{"conv_a/c1"}, nil, gates + "regression: {rule: count}\n", nil, 3, "verdict: blocks — rows that got worse under the candidate: constraint"},
		{"a constraint lost, default rule: one item is within noise", []string{"conv_a/c1"}, nil, gates, nil, 0, "verdict: does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: constraint"},
		{"a constraint lost within the tolerance, gate unmet", []string{"conv_a/c1"}, nil, gates + "regression: {rule: count, retained_tolerance: 1}\n", nil, 0,
			"verdict: does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: constraint"},
		{"--strict: the candidate leaves the constraint gate unmet", []string{"conv_a/c1"}, nil, gates + "regression: {rule: count, retained_tolerance: 1}\n", []string{"--strict"}, 3,
			"verdict: does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: constraint"},
		{"a new contradiction, count rule", nil, []string{"conv_b/c3"}, gates + "regression: {rule: count}\n", nil, 3, "verdict: blocks — rows that got worse under the candidate: open_question, contradictions"},
		{"a new contradiction, default rule: it blocks by itself", nil, []string{"conv_b/c3"}, gates, nil, 3, "verdict: blocks — rows that got worse under the candidate: contradictions"},
		{"a new contradiction within both tolerances", nil, []string{"conv_b/c3"}, gates + "regression: {rule: count, retained_tolerance: 1, contradiction_tolerance: 1}\n", nil, 0,
			"verdict: does not block — no row got worse under the candidate; but the candidate fails a gate the incumbent meets: contradictions"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			path := repCase(t, tt.absent, tt.contra, tt.extra)
			out, errOut, code := repCLI(t, append([]string{"gate", path}, tt.args...)...)
			if code != tt.code || errOut != "" {
				t.Errorf("exit %d (stderr %q), want %d", code, errOut, tt.code)
			}
			if first := strings.SplitN(out, "\n", 2)[0]; first != tt.firstLine {
				t.Errorf("first line %q, want %q", first, tt.firstLine)
			}
		})
	}
}

// TestGateUnpaired: when the incumbent's verdicts lack four fixtures, a
// candidate that lost six constraint items and gained none (exact p =
// 0.031) retains as many constraint items as the incumbent, counted
// whole. Compared item by item, the row is undecided: the gate exits 3
// and names how many item-compactions one system checked alone, and the
// first of them.
func TestGateUnpaired(t *testing.T) {
	const cfg = "../../report/testdata/unpaired/report.yaml"
	out, errOut, code := repCLI(t, "gate", cfg)
	if code != exitGateFail || errOut != "" {
		t.Errorf("exit %d, stderr %q; want 3 and nothing on stderr", code, errOut)
	}
	for _, want := range []string{
		"verdict: blocks — undecided (items checked by one system only): constraint, commitment, open_question, reference, contradictions\n",
		"undecided (6 lost, 0 gained, one-sided clustered McNemar p = 0.0008, Holm level 0.0125)",
		"undecided: 0 item-compactions checked by incumbent only and 18 by candidate only",
		"  constraint: 6 checked by candidate only: conv_07/c1 at compaction 1, conv_07/c5 at compaction 1, conv_08/c1 at compaction 1, conv_08/c5 at compaction 1, conv_09/c1 at compaction 1 and 1 more\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("gate output lacks %q", want)
		}
	}
	golden(t, "gate_unpaired.txt", out)

	out, _, code = repCLI(t, "gate", cfg, "--format", "json")
	if code != exitGateFail {
		t.Errorf("--format json: exit %d, want 3", code)
	}
	var j struct {
		Undecided []string `json:"undecided"`
		Rows      []struct {
			Row           string `json:"row"`
			Change        string `json:"change"`
			Lost          *int   `json:"lost"`
			OnlyCandidate *struct {
				Count int `json:"count"`
				First []struct {
					ConversationID string `json:"conversation_id"`
					Compaction     int    `json:"compaction"`
					ItemID         string `json:"item_id"`
				} `json:"first"`
			} `json:"only_candidate"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	c := j.Rows[0]
	if c.Row != "constraint" || c.Change != "undecided" || *c.Lost != 6 || c.OnlyCandidate == nil || c.OnlyCandidate.Count != 6 ||
		len(c.OnlyCandidate.First) != 5 || c.OnlyCandidate.First[0].ConversationID != "conv_07" || c.OnlyCandidate.First[0].ItemID != "c1" {
		t.Errorf("constraint row %+v", c)
	}
	if k := j.Rows[4]; k.Row != "contradictions" || k.Change != "undecided" || k.OnlyCandidate == nil || k.OnlyCandidate.Count != 18 {
		t.Errorf("contradiction row %+v", k)
	}
	golden(t, "gate_unpaired.json", out)
}

// TestReportHelpFlags: cobra shows a backquoted word of a flag's usage
// as its value's name, and eats the backquotes; so a usage holds no
// backquote but one pair, and --help shows the value's name.
func TestReportHelpFlags(t *testing.T) {
	opts := &options{format: "text"}
	for _, c := range []*cobra.Command{newReportCmd(opts), newGateCmd(opts), newReplayCmd(opts)} {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if n := strings.Count(f.Usage, "`"); n != 0 && n != 2 {
				t.Errorf("%s --%s: %d backquotes in its usage %q; cobra takes the first pair as the value's name", c.Name(), f.Name, n, f.Usage)
			}
		})
	}
	out, _, code := repCLI(t, "report", "--help")
	if code != exitOK {
		t.Fatalf("report --help: exit %d", code)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^ +--notebook FILE +the notebook FILE for the HTML report, replacing the configuration's: Markdown whose fenced tally blocks are computed cells`),
		regexp.MustCompile(`(?m)^ +-o, --output DIR +the folder DIR to write`),
	} {
		if !want.MatchString(out) {
			t.Errorf("report --help does not match %s:\n%s", want, out)
		}
	}
}

func TestGateErrors(t *testing.T) {
	path := repCase(t, nil, nil, "gates:\n  retained: {constraint: 0.9, constrain: 0.8}\n")
	_, errOut, code := repCLI(t, "gate", path)
	want := "tally: " + path + `:6:31: gates.retained.constrain: unknown key "constrain" (want constraint, commitment, open_question, reference)` + "\n"
	if code != exitInput || errOut != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	// A verdict naming an item the fixtures do not have.
	path = repCase(t, nil, nil, "")
	cand := filepath.Join(filepath.Dir(path), "cand.jsonl")
	data, _ := os.ReadFile(cand)
	if err := os.WriteFile(cand, bytes.Replace(data, []byte(`"item_id":"c2"`), []byte(`"item_id":"c7"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = repCLI(t, "gate", path)
	if code != exitInput || !strings.HasPrefix(errOut, "tally: "+cand+`:2:75: item_id: fixture conv_a has no item "c7"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, _, code := repCLI(t, "gate"); code != exitUsage {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}

func TestReplayCommand(t *testing.T) {
	pairs := quarterly + "/replay.jsonl"
	out, errOut, code := repCLI(t, "replay", pairs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"task success: reference 166/200, candidate 168/200 (reported, not gated)",
		"discordant pairs: 20 (9 lost, 11 gained)",
		"exact          —          0.8238",
		"note: 40 references are accepted traces",
		"review queue: 20 discordant conversations (9 lost, 11 gained); -o FILE writes them as CSV",
		"is not evidence of anything, in either direction",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^uncompacted run +160 +\d+ +\d+ +\d+ +\d+$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^accepted trace +40 +\d+ +\d+ +\d+ +\d+$`).MatchString(out) {
		t.Errorf("no reference-kind table:\n%s", out)
	}

	queue := filepath.Join(t.TempDir(), "queue.csv")
	out, _, code = repCLI(t, "replay", pairs, "-o", queue, "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"table", "pairs", "discordant", "tests", "intervals", "reference_kinds", "review_queue", "queue_file", "sentence"} {
		if _, ok := j[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	q, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(withoutBOM(t, q))).ReadAll()
	if err != nil || len(rows) != 21 || rows[0][0] != "conversation_id" || rows[1][1] != "lost" || rows[20][1] != "gained" {
		t.Errorf("queue.csv: %d rows, %v", len(rows), err)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"conversation_id":"a","reference":"succes","candidate":"failure","reference_kind":"uncompacted"}`+"\n"), 0o644)
	_, errOut, code = repCLI(t, "replay", bad)
	if code != exitInput || errOut != "tally: "+bad+`:1:36: reference: "succes" is not success or failure`+"\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestReportCommand(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	dirs := []string{filepath.Join(t.TempDir(), "a", "out"), filepath.Join(t.TempDir(), "b")}
	for _, dir := range dirs {
		out, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.HasPrefix(out, "verdict: blocks — rows that got worse under the candidate: contradictions\n") ||
			!strings.Contains(out, "wrote "+filepath.Join(dir, "report.md")+"\n") || !strings.Contains(out, "wrote "+filepath.Join(dir, "queue.csv")+"\n") {
			t.Errorf("output:\n%s", out)
		}
	}
	for _, name := range []string{"report.md", "report.html", "report.xlsx", "queue.csv"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if len(a) == 0 {
			t.Errorf("%s is empty", name)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs over the same inputs differ", name)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dirs[0], "report.md"))
	if !bytes.Contains(md, []byte("Generated 2026-04-06T00:00:00Z by tally "+version+".")) {
		t.Errorf("SOURCE_DATE_EPOCH not honoured:\n%s", md[:300])
	}
	lines := strings.Split(strings.TrimSuffix(string(md), "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "**Task success** (reported, not gated): reference 166/200 against candidate 168/200") {
		t.Errorf("last line %q", last)
	}

	// --gate: the files are written, and the exit is 3 because it blocks.
	dir := filepath.Join(t.TempDir(), "gated")
	_, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir, "--gate", "--format", "json")
	if code != exitGateFail || errOut != "" {
		t.Errorf("--gate: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Error(err)
	}
	if _, errOut, code := repCLI(t, "report", exampleConfig); code != exitUsage || !strings.Contains(errOut, `"output"`) {
		t.Errorf("without -o: exit %d, stderr %q; want 2, naming the flag", code, errOut)
	}
	if _, _, code := repCLI(t, "report", exampleConfig, "-o", ""); code != exitUsage {
		t.Errorf("-o with an empty folder name: exit %d, want 2", code)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir); code != exitInput || !strings.Contains(errOut, "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: exit %d, %q", code, errOut)
	}
}

// dirContents maps each name in dir to its bytes ("<folder>" for a
// folder).
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			m[e.Name()] = "<folder>"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// TestReportAllOrNothing: when one output cannot be written, the folder
// keeps the last report whole: report.md is not replaced beside an old
// report.html and report.xlsx, and no temporary file is left.
func TestReportAllOrNothing(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	dir := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// report.xlsx, the third output, cannot be written over a folder.
	xlsx := filepath.Join(dir, "report.xlsx")
	if err := os.Remove(xlsx); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(xlsx, 0o755); err != nil {
		t.Fatal(err)
	}
	before := dirContents(t, dir)
	t.Setenv("SOURCE_DATE_EPOCH", "1775520000") // a day later: every output would differ
	_, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir)
	if code != exitInput || !strings.Contains(errOut, "writing "+xlsx+": not a regular file") {
		t.Errorf("exit %d, stderr %q; want 1 and the folder in the way", code, errOut)
	}
	after := dirContents(t, dir)
	if len(after) != len(before) {
		t.Errorf("the folder holds %d entries, had %d: %v", len(after), len(before), slices.Sorted(maps.Keys(after)))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s changed although the report failed", name)
		}
	}
}

// TestReportRemovesStaleQueue: a report without a replay removes the
// queue.csv an earlier report with one left, so that it cannot pass for
// this report's review queue.
func TestReportRemovesStaleQueue(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	dir := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := repCLI(t, "report", exampleConfig, "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	queue := filepath.Join(dir, "queue.csv")
	if _, err := os.Stat(queue); err != nil {
		t.Fatalf("the example report wrote no queue.csv: %v", err)
	}
	out, errOut, code := repCLI(t, "report", repCase(t, nil, nil, ""), "-o", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(queue); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("queue.csv is still there after a report without a replay (%v)", err)
	}
	var j reportJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Outputs.Queue != "" || j.Outputs.Markdown != filepath.Join(dir, "report.md") {
		t.Errorf("outputs %+v", j.Outputs)
	}
	if names := slices.Sorted(maps.Keys(dirContents(t, dir))); !slices.Equal(names, []string{"report.html", "report.md", "report.xlsx"}) {
		t.Errorf("the folder holds %v", names)
	}
}

// TestReportSaysNotes: the report's notes reach the terminal, as tally
// gate prints them — a selection of other sessions than the fixtures'
// was shown only inside report.md (a new user's trial).
func TestReportSaysNotes(t *testing.T) {
	cfg := repCase(t, nil, nil, "selection: selection.json\n")
	sel, err := os.ReadFile(filepath.Join(quarterly, "selection.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(cfg), "selection.json"), sel, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := repCLI(t, "report", cfg, "-o", filepath.Join(t.TempDir(), "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nnote: selection: ") || !strings.Contains(out, "2 of the 2 fixtures are of sessions it did not select (conv_a, conv_b)") {
		t.Errorf("output:\n%s", out)
	}
}
