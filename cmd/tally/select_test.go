package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/selection"
)

// selCLI runs the CLI in-process like cli, with select and signals
// registered on the root when main.go does not (yet) register them.
func selCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	if !hasCommand(root, "select") || !hasCommand(root, "signals") {
		opts := &options{format: "text"}
		pre := root.PersistentPreRunE
		root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
			if err := pre(cmd, args); err != nil {
				return err
			}
			opts.format = root.PersistentFlags().Lookup("format").Value.String()
			return nil
		}
		if !hasCommand(root, "select") {
			root.AddCommand(newSelectCmd(opts))
		}
		if !hasCommand(root, "signals") {
			root.AddCommand(newSignalsCmd(opts))
		}
	}
	root.SetArgs(args)
	err := root.Execute()
	for _, line := range errorLines(err) {
		errb.WriteString(line + "\n")
	}
	return out.String(), errb.String(), exitCode(err)
}

func hasCommand(root *cobra.Command, name string) bool {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return true
		}
	}
	return false
}

var (
	exampleSessions = filepath.Join("..", "..", "examples", "quarterly", "sessions.jsonl")
	exampleFixtures = filepath.Join("..", "..", "examples", "quarterly", "fixtures")
	exampleEvents   = filepath.Join("..", "..", "examples", "quarterly", "events")
)

// fixtureIDs lists the conversations examples/quarterly/fixtures holds.
func fixtureIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(exampleFixtures, "*.json"))
	if err != nil || len(files) != 40 {
		t.Fatalf("want the 40 example fixtures, got %d (%v)", len(files), err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	sort.Strings(ids)
	return ids
}

// TestSelectExample: with budget 40 the selection is exactly the sessions
// the example fixtures were built from, -o writes them as JSONL, and the
// text says how they compare with random sessions, like with like: they
// carry more decisions than the 95% range of 40 random ones, and more per
// session and per annotation hour. The head of the output, down to those
// figures, is testdata/select_quarterly_40.txt (README.md shows it).
func TestSelectExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "selected.jsonl")
	stdout, stderr, code := selCLI(t, "select", exampleSessions, "--budget", "40", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("tally select examples/quarterly/sessions.jsonl --budget 40 -o selected.jsonl:\n%s", stdout)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var p struct {
			ID       string `json:"session_id"`
			Incident bool   `json:"incident"`
			Reason   string `json:"reason"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if !p.Incident || p.Reason != "incident_most_decisions" {
			t.Errorf("%s: incident %v, reason %q", p.ID, p.Incident, p.Reason)
		}
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	if want := fixtureIDs(t); !slices.Equal(ids, want) {
		t.Errorf("selected %v\nfixtures %v", ids, want)
	}
	for _, s := range []string{
		"20000 sessions, 102 incidents, 13297 never compact (66.5%)",
		"the incidents alone exceed it",
		"decisions                   1572      117.6            25.0–383.0",
		"The 40 selected sessions carry more decisions than 40 random ones: 1572 against a mean of 118 (95% range 25–383).",
		"Per session: 39.3 decisions against 2.9. Per annotation hour at 2 minutes: 1194 against 134.",
		"note: incidents alone exceed the budget: 102 incidents for 40 sessions",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	end := strings.Index(stdout, "\nAnnotation time per conversation")
	if end < 0 {
		t.Fatalf("no annotation-time line:\n%s", stdout)
	}
	golden(t, "select_quarterly_40.txt", "$ tally select examples/quarterly/sessions.jsonl --budget 40\n"+
		strings.ReplaceAll(stdout[:end], exampleSessions, "examples/quarterly/sessions.jsonl"))
}

// exampleSelection is the committed output of
// `tally select examples/quarterly/sessions.jsonl --budget 40 --format json`,
// which examples/quarterly/report.yaml reads.
var exampleSelection = filepath.Join("..", "..", "examples", "quarterly", "selection.json")

// TestSelectCommittedSelection: re-running select on the example quarter
// gives the committed selection.json byte for byte, and it is the 40
// fixture sessions carrying more decisions than 40 random ones.
func TestSelectCommittedSelection(t *testing.T) {
	stdout, stderr, code := selCLI(t, "select", exampleSessions, "--budget", "40", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(exampleSelection)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Fatalf("%s differs from the output of tally select (regenerate it: go run ./cmd/tally select examples/quarterly/sessions.jsonl --budget 40 --format json > examples/quarterly/selection.json)", exampleSelection)
	}
	var sel struct {
		Selected struct{ Decisions int }
		Random   struct {
			Decisions struct{ Mean, Low, High float64 }
		}
		Sessions []struct {
			ID string `json:"session_id"`
		}
	}
	if err := json.Unmarshal(want, &sel); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range sel.Sessions {
		ids = append(ids, s.ID)
	}
	sort.Strings(ids)
	if want := fixtureIDs(t); !slices.Equal(ids, want) {
		t.Errorf("selection.json selects %v\nfixtures %v", ids, want)
	}
	if d := sel.Random.Decisions; float64(sel.Selected.Decisions) <= d.High {
		t.Errorf("selection.json: %d decisions, not above the random range %.0f–%.0f", sel.Selected.Decisions, d.Low, d.High)
	}
}

// TestSelectJSONContract pins the names of `tally select --format json`.
func TestSelectJSONContract(t *testing.T) {
	stdout, stderr, code := selCLI(t, "select", exampleSessions, "--budget", "40", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	keys := func(raw json.RawMessage) []string {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var ks []string
		for k := range o {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	check := func(what string, got, want []string) {
		t.Helper()
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s keys %v, want %v", what, got, want)
		}
	}
	check("top", keys(stdout2raw(stdout)), []string{"budget", "budget_hours", "minutes_per_fixture", "seed", "read", "incidents", "incidents_exceed_budget", "selected", "random", "sessions", "warnings"})
	check("selected", keys(m["selected"]), []string{"sessions", "never_compact", "compactions", "decisions", "items", "annotation_hours"})
	var sel map[string]json.RawMessage
	json.Unmarshal(m["selected"], &sel)
	check("selected.annotation_hours", keys(sel["annotation_hours"]), []string{"at_15_min", "at_2_min"})
	check("random", keys(m["random"]), []string{"size", "draws", "sessions", "never_compact", "compactions", "decisions", "items", "annotation_hours"})
	var rnd map[string]json.RawMessage
	json.Unmarshal(m["random"], &rnd)
	for _, k := range []string{"sessions", "never_compact", "compactions", "decisions", "items"} {
		check("random."+k, keys(rnd[k]), []string{"mean", "low", "high"})
	}
	var hours map[string]json.RawMessage
	json.Unmarshal(rnd["annotation_hours"], &hours)
	check("random.annotation_hours", keys(rnd["annotation_hours"]), []string{"at_15_min", "at_2_min"})
	check("random.annotation_hours.at_2_min", keys(hours["at_2_min"]), []string{"mean", "low", "high"})
	var sessions []json.RawMessage
	json.Unmarshal(m["sessions"], &sessions)
	if len(sessions) != 40 {
		t.Fatalf("%d sessions", len(sessions))
	}
	check("sessions[0]", keys(sessions[0]), []string{"session_id", "turns", "compactions", "items", "decisions", "incident", "reason"})
	var top struct {
		Budget      *int     `json:"budget"`
		BudgetHours *float64 `json:"budget_hours"`
		Seed        int      `json:"seed"`
		Incidents   int      `json:"incidents"`
		Exceed      bool     `json:"incidents_exceed_budget"`
		Random      struct {
			Size, Draws int
		}
	}
	json.Unmarshal([]byte(stdout), &top)
	if top.Budget == nil || *top.Budget != 40 || top.BudgetHours != nil || top.Seed != 1 || top.Incidents != 102 || !top.Exceed ||
		top.Random.Size != 40 || top.Random.Draws != 1000 {
		t.Errorf("header %+v", top)
	}

	// An hours budget: budget null, budget_hours set; no random: null.
	stdout, stderr, code = selCLI(t, "select", exampleSessions, "--budget-hours", "3", "--compare-random", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	json.Unmarshal([]byte(stdout), &m)
	if string(m["budget"]) != "null" || string(m["budget_hours"]) != "3" || string(m["random"]) != "null" {
		t.Errorf("budget %s, budget_hours %s, random %s", m["budget"], m["budget_hours"], m["random"])
	}
}

func stdout2raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestSelectErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"session_id":"a","turns":3,"compactions":[{"turn":2}],"items":[]}
{"session_id":"b","turns":3,"compactions":[{"turn":2}],"items":[{"class":"constraint","turn":0}]}
{"session_id":"c","turns":3,"compactions":1,"items":2}
`), 0o644)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"select", bad}, 1, "tally: " + bad + ":2:94: items[0].turn: want a whole number from 1 to 16777216, got 0\n"},
		{[]string{"select", filepath.Join(dir, "none.jsonl")}, 1, ""},
		{[]string{"select", bad, "--budget", "0"}, 1, "tally: --budget must be at least 1, got 0\n"},
		{[]string{"select", bad, "--budget-hours", "-1"}, 1, "tally: --budget-hours must be positive, got -1\n"},
		{[]string{"select", bad, "--budget", "3", "--budget-hours", "1"}, 2, ""},
		{[]string{"select"}, 2, ""},
		{[]string{"signals"}, 2, ""},
		{[]string{"signals", filepath.Join(dir, "none.jsonl")}, 1, ""},
		{[]string{"signals", bad, "--window", "-1"}, 1, "tally: the window must not be negative, got -1 turns\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := selCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if tt.msg != "" && errOut != tt.msg {
				t.Errorf("stderr %q\nwant    %q", errOut, tt.msg)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "tally: ") {
				t.Errorf("stderr must be one line starting with \"tally: \", got %q", errOut)
			}
		})
	}

	// --skip-bad: the line is skipped, counted and named in a note.
	stdout, errOut, code := selCLI(t, "select", bad, "--skip-bad", "--compare-random", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"note: skipped 1 malformed line(s) (--skip-bad)", "note: skipped " + bad + ":2:94: items[0].turn:", "2 sessions"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
}

// TestSelectStdin: "-" reads the summaries from stdin.
func TestSelectStdin(t *testing.T) {
	var out, errb bytes.Buffer
	opts := &options{format: "json"}
	cmd := newSelectCmd(opts)
	cmd.SetIn(strings.NewReader(`{"session_id":"a","turns":9,"compactions":[{"turn":5}],"items":[{"class":"constraint","turn":2}]}` + "\n"))
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs([]string{"-", "--budget", "3", "--compare-random", "0"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err, errb.String())
	}
	var rep selection.Summary
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].ID != "a" || rep.Random != nil {
		t.Errorf("%v: %s", err, out.String())
	}
}

// TestSelectRoundTrip: what `tally select --format json` writes, `tally
// report` reads back unchanged: any int64 --seed (2⁵³+1 is where a
// float64 would round, -1 is where an unsigned flag would refuse, the
// extremes), and a --budget-hours budget, which the summary keeps with
// the minutes per fixture it was counted at.
func TestSelectRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.jsonl")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"session_id":"s%02d","turns":%d,"compactions":%d,"items":%d}`+"\n", i, 5+i, i%3, i%5)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	for _, tt := range []struct {
		args   []string
		seed   int64
		hours  float64 // 0: a budget in sessions
		reason string
	}{
		{[]string{"--seed", "9007199254740993"}, 9007199254740993, 0, "2⁵³+1"},
		{[]string{"--seed", "-1"}, -1, 0, "negative"},
		{[]string{"--seed", "9223372036854775807"}, math.MaxInt64, 0, "the largest int64"},
		{[]string{"--seed", "-9223372036854775808"}, math.MinInt64, 0, "the smallest int64"},
		{[]string{"--budget-hours", "0.5", "--minutes-per-fixture", "3", "--seed", "7"}, 7, 0.5, "a budget in hours"},
	} {
		args := append([]string{"select", in, "--format", "json"}, tt.args...)
		stdout, stderr, code := selCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.reason, code, stderr)
		}
		var sum selection.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("%s: %v", tt.reason, err)
		}
		rep, err := report.ParseSelection("sel.json", []byte(stdout))
		if err != nil {
			t.Fatalf("%s: report cannot read what select wrote: %v", tt.reason, err)
		}
		if sum.Seed != tt.seed || rep.Seed != tt.seed {
			t.Errorf("%s: --seed %d written as %d, read by report as %d", tt.reason, tt.seed, sum.Seed, rep.Seed)
		}
		if rep.Selected.Sessions != len(sum.Sessions) || rep.Random.Size != len(sum.Sessions) || len(rep.Sessions) != len(sum.Sessions) {
			t.Errorf("%s: report read %+v", tt.reason, rep)
		}
		if tt.hours > 0 {
			if sum.Budget != nil || sum.BudgetHours == nil || *sum.BudgetHours != tt.hours || sum.MinutesPerFixture != 3 {
				t.Errorf("%s: budget %v, hours %v at %v minutes", tt.reason, sum.Budget, sum.BudgetHours, sum.MinutesPerFixture)
			}
		} else if sum.Budget == nil || *sum.Budget != 40 || rep.Budget != 40 || sum.BudgetHours != nil {
			t.Errorf("%s: budget %v (report %d), hours %v", tt.reason, sum.Budget, rep.Budget, sum.BudgetHours)
		}
	}
	// Seeds beyond int64 are refused at the flag, not wrapped.
	if _, stderr, code := selCLI(t, "select", in, "--seed", "18446744073709551615"); code != 2 || !strings.Contains(stderr, "--seed") {
		t.Errorf("seed 2⁶⁴−1: exit %d, %s", code, stderr)
	}
}

// TestSelectCompareOtherSize: with --compare-random N other than the
// selection's size the totals would count different numbers of sessions,
// so the table and the verdict are per session; with 0 there is no
// comparison.
func TestSelectCompareOtherSize(t *testing.T) {
	for _, tt := range []struct {
		args          []string
		want, notWant []string
		reason        string
	}{
		{[]string{"--compare-random", "200"},
			[]string{"per session                 selected  random 200: mean  95% range (1000 draws, seed 1)\n",
				"decisions                   39.30     2.89              1.45–5.87\n",
				"The 40 selected sessions carry more decisions per session than 200 random ones: 39.3 against a mean of 2.9 (95% range 1.4–5.9).\n"},
			[]string{"\nsessions ", "1572 against"}, "samples of 200 against 40 selected"},
		{[]string{"--compare-random", "40"},
			[]string{"decisions                   1572      117.6            25.0–383.0\n", "1572 against a mean of 118"},
			[]string{"per session  "}, "an explicit size equal to the selection's: totals"},
		{[]string{"--compare-random", "0"},
			[]string{"                            selected\nsessions                    40\n"},
			[]string{"random", "carry"}, "no comparison"},
	} {
		stdout, stderr, code := selCLI(t, append([]string{"select", exampleSessions, "--budget", "40"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.reason, code, stderr)
		}
		for _, s := range tt.want {
			if !strings.Contains(stdout, s) {
				t.Errorf("%s: output lacks %q:\n%s", tt.reason, s, stdout)
			}
		}
		for _, s := range tt.notWant {
			if strings.Contains(stdout, s) {
				t.Errorf("%s: output has %q:\n%s", tt.reason, s, stdout)
			}
		}
	}
}

// TestSelectNotEnglish: sessions typed in German and Japanese, ranked by
// the English rules' items, are counted and said in a note (a new
// user's trial found them ranked last without a word).
func TestSelectNotEnglish(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "logs.jsonl")
	session := func(id, a, b string) string {
		return `{"session_id":"` + id + `","messages":[{"role":"user","content":"` + a + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"` + b + `"},{"role":"assistant","content":"ok"}],"compactions":[{"after_message":2,"summary":"s"}]}` + "\n"
	}
	logs := session("en", "Never push to main, and do not touch the config in deploy/prod.yaml.", "Please run the tests before you commit this.") +
		session("de", "Pushe niemals auf main und ändere nicht die Konfiguration in deploy/prod.yaml.", "Bitte führe die Tests aus, bevor du das committest.") +
		session("ja", "mainには絶対にプッシュしないでください。deploy/prod.yamlの設定は変更しないでください。", "コミットする前にテストを実行してください。")
	if err := os.WriteFile(in, []byte(logs), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := newSelectCmd(&options{format: "text"})
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs([]string{in, "--budget", "3", "--compare-random", "0"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err, errb.String())
	}
	if want := "note: 2 sessions were typed in a language other than English"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}
