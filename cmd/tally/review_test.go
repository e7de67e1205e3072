package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

// rootWithReview is the CLI's root command with propose and review on
// it: as main.go registers them or, until it does, registered here with
// options that follow the root's --format flag.
func rootWithReview(stdout, stderr io.Writer) *cobra.Command {
	root := newRoot(stdout, stderr)
	has := map[string]bool{}
	for _, c := range root.Commands() {
		has[c.Name()] = true
	}
	opts := &options{format: "text"}
	for _, c := range []*cobra.Command{newProposeCmd(opts), newReviewCmd(opts)} {
		if has[c.Name()] {
			continue
		}
		c.PreRunE = func(c *cobra.Command, _ []string) error {
			opts.format = c.Flag("format").Value.String()
			return nil
		}
		root.AddCommand(c)
	}
	return root
}

// cliIn runs the CLI in-process with stdin, as cli does.
func cliIn(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := rootWithReview(&out, &errb)
	root.SetIn(stdin)
	root.SetArgs(args)
	err := root.Execute()
	for _, line := range errorLines(err) {
		errb.WriteString(line + "\n")
	}
	return out.String(), errb.String(), exitCode(err)
}

// The example session the tests review: three items (a constraint at
// turn 3, a reference at 21, a commitment at 39) in week 1's log, the
// candidates at confidence ≥ exampleMinConfidence (below it are the bare
// paths a person typed, 0.6, which its fixture does not list).
const (
	exampleLog           = "../../examples/quarterly/events/week-01.jsonl.gz"
	exampleSession       = "sess_2026_01_06_75ad"
	exampleMinConfidence = "0.65"
)

func TestProposeCLI(t *testing.T) {
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.json")
	out, errOut, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `sess_2026_01_06_75ad: 82 turns, 3 compactions; 3 candidates at confidence ≥ 0.65 (1 constraint, 1 commitment, 0 open_question, 1 reference)

id  class       turn  confidence  rule                           literal
c1  constraint  3     0.90        constraint/lead-in+obligation  leave dual_write_orders off by default
c2  reference   21    0.75        reference/section              runbook section 3.4
c3  commitment  39    0.70        commitment/plain               I'll split payments/rounding.py into rounding_read.py and rounding_writ…

wrote ` + cands + `; next: tally review ` + cands + ` -o FIXTURE.json
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	p, err := selection.LoadCandidates(cands, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fxs, _ := fixture.Load("../../examples/quarterly/fixtures/" + exampleSession + ".json")
	for i, it := range fxs[0].MustSurvive {
		c := p.Candidates[i]
		if c.Class != it.Class || c.Turn != it.Turn || c.Literal != it.Literal {
			t.Errorf("candidate %+v does not match fixture item %+v", c, it)
		}
	}
	// --format json prints the candidates file itself.
	js, _, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "--format", "json")
	file, _ := os.ReadFile(cands)
	if code != 0 || js != string(file) {
		t.Errorf("--format json (exit %d) differs from the file written:\n%s", code, js)
	}
	// --min-confidence 0 adds the bare paths and plain questions.
	js, _, _ = cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--format", "json", "--min-confidence", "0")
	var all selection.Proposal
	if err := json.Unmarshal([]byte(js), &all); err != nil || len(all.Candidates) <= 3 {
		t.Errorf("--min-confidence 0: %d candidates, %v", len(all.Candidates), err)
	}
}

func TestProposeCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	good := `{"session_id":"s1","turn":3,"kind":"message","role":"user","text":"Ground rule: never touch prod."}`
	os.WriteFile(bad, []byte(good+"\n"+`{"session_id":"s1","turn":"4","kind":"compaction"}`+"\n"+`{"session_id":"s1"`+"\n"), 0o644)
	two := filepath.Join(dir, "two.jsonl")
	os.WriteFile(two, []byte(good+"\n"+strings.Replace(good, "s1", "s2", 1)+"\n"), 0o644)
	// A sub-agent's transcript and a session without a typed prompt
	// (a new user's trial got "turns: must be at least 1, got 0").
	side := filepath.Join(dir, "agent-a1.jsonl")
	os.WriteFile(side, []byte(`{"type":"user","sessionId":"p1","isSidechain":true,"uuid":"u1","message":{"role":"user","content":"look for the config"}}`+"\n"), 0o644)
	untyped := filepath.Join(dir, "untyped.jsonl")
	os.WriteFile(untyped, []byte(`{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"Hello."}]}}`+"\n"), 0o644)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"propose", bad}, 1, "tally: " + bad + `:2:27: turn: want a whole number, got a string (--skip-bad skips malformed lines, each said on stderr)` + "\n"},
		{[]string{"propose", two}, 1, "tally: " + two + " holds 2 sessions (s1, s2); choose one with --session ID\n"},
		{[]string{"propose", two, "--session", "s9"}, 1, "tally: " + two + ": no session \"s9\"\n"},
		{[]string{"propose", filepath.Join(dir, "none.jsonl")}, 1, "tally: stat " + filepath.Join(dir, "none.jsonl") + ": no such file or directory\n"},
		{[]string{"propose", two, "--session", "s1", "--min-confidence", "2"}, 1, "tally: --min-confidence must be between 0 and 1, got 2\n"},
		{[]string{"propose"}, 2, ""},
		{[]string{"propose", side}, 1, "tally: " + side + ": a sub-agent's own transcript (every record isSidechain), not a session: propose from its parent's log, which holds the sub-agent's call and result\n"},
		{[]string{"propose", untyped}, 1, "tally: " + untyped + ": session \"s1\" has no prompt a person typed: nothing to propose items from\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := cliIn(t, nil, tt.args...)
			if code != tt.code || (tt.stderr != "" && errOut != tt.stderr) {
				t.Errorf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, errOut, tt.code, tt.stderr)
			}
			if out != "" {
				t.Errorf("output on error: %q", out)
			}
		})
	}
	// --skip-bad: the bad lines are reported, never silently dropped.
	out, errOut, code := cliIn(t, nil, "propose", bad, "--skip-bad")
	if code != 0 || !strings.Contains(out, "note: 2 malformed lines skipped (listed on stderr)") || !strings.Contains(out, "never touch prod") {
		t.Errorf("--skip-bad: exit %d\n%s", code, out)
	}
	wantErr := "tally: " + bad + `:2:27: turn: want a whole number, got a string (line skipped)` + "\ntally: " + bad + ":3:19: unexpected end of line: the JSON value is not complete (line skipped)\n"
	if errOut != wantErr {
		t.Errorf("--skip-bad stderr\n%s\nwant\n%s", errOut, wantErr)
	}
}

func TestReviewNeedsTerminal(t *testing.T) {
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.json")
	if _, e, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands); code != 0 {
		t.Fatal(e)
	}
	fx := filepath.Join(dir, "fx.json")
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	want := "tally: review needs a terminal (stdin is not one); run it in an interactive shell, or decide by id with --accept and --reject — decisions are saved after each one, so it can be stopped and resumed\n"
	for _, stdin := range []io.Reader{strings.NewReader("aaa"), devnull} {
		out, errOut, code := cliIn(t, stdin, "review", cands, "-o", fx)
		if code != 1 || errOut != want || out != "" {
			t.Errorf("stdin %T: exit %d, stderr %q, stdout %q", stdin, code, errOut, out)
		}
	}
	if _, err := os.Stat(fx); !os.IsNotExist(err) {
		t.Errorf("the fixture was written without a review: %v", err)
	}
	// Usage and input errors come before the terminal check.
	if _, errOut, code := cliIn(t, nil, "review", cands); code != 2 || !strings.Contains(errOut, `required flag(s) "output" not set`) {
		t.Errorf("no -o: exit %d %s", code, errOut)
	}
	if _, errOut, code := cliIn(t, nil, "review", cands, "-o", cands); code != 1 || !strings.Contains(errOut, "must not overwrite the candidates file") {
		t.Errorf("-o = candidates: exit %d %s", code, errOut)
	}
	broken := filepath.Join(dir, "broken.json")
	data, _ := os.ReadFile(cands)
	os.WriteFile(broken, bytes.Replace(data, []byte(`"status": "pending"`), []byte(`"status": "done"`), 1), 0o644)
	if _, errOut, code := cliIn(t, nil, "review", broken, "-o", fx); code != 1 || !strings.HasPrefix(errOut, "tally: "+broken+":16:17: candidates[0].status: \"done\" is not a status") {
		t.Errorf("bad candidates: exit %d %s", code, errOut)
	}
}

// TestReviewHelperProcess is not a test: until main.go registers review,
// TestReviewPTY runs the test binary as the tally program (the os/exec
// helper-process pattern), its arguments in TALLY_TEST_ARGS, under a
// pseudo-terminal.
func TestReviewHelperProcess(t *testing.T) {
	if os.Getenv("TALLY_TEST_HELPER") != "1" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("TALLY_TEST_ARGS")), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	root := rootWithReview(os.Stdout, os.Stderr)
	root.SetArgs(args)
	err := root.Execute()
	for _, line := range errorLines(err) {
		fmt.Fprintln(os.Stderr, line)
	}
	os.Exit(exitCode(err))
}

// ptyRun is tally running on a pseudo-terminal: keys go to the terminal,
// everything it draws is collected.
type ptyRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File // the terminal's controlling side
	mu   sync.Mutex
	out  bytes.Buffer
	mark int // expect looks after here
	done chan struct{}
}

// tallyProgram returns the command line that runs tally: the binary `go
// build` makes of this package when its main registers review (the real
// program, main() and all), and otherwise — until main.go registers the
// command — this test binary as a helper process running the same root
// command with propose and review added.
func tallyProgram(t *testing.T) func(args ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tally")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if exec.Command(bin, "review", "--help").Run() == nil {
		t.Logf("running the built binary %s", bin)
		return func(args ...string) *exec.Cmd {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "TERM=xterm")
			return cmd
		}
	}
	t.Logf("main.go does not register review yet: running the test binary as tally")
	return func(args ...string) *exec.Cmd {
		js, _ := json.Marshal(args)
		cmd := exec.Command(os.Args[0], "-test.run=^TestReviewHelperProcess$")
		cmd.Env = append(os.Environ(), "TALLY_TEST_HELPER=1", "TALLY_TEST_ARGS="+string(js), "TERM=xterm")
		return cmd
	}
}

func startPTY(t *testing.T, program func(args ...string) *exec.Cmd, args ...string) *ptyRun {
	t.Helper()
	return startPTYCmd(t, program(args...))
}

// startPTYCmd starts cmd on a pseudo-terminal and collects what it shows.
func startPTYCmd(t *testing.T, cmd *exec.Cmd) *ptyRun {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	r := &ptyRun{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				close(r.done)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return r
}

// expect waits until the terminal shows s after the last thing expected.
func (r *ptyRun) expect(s string) {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r.mu.Lock()
		all := r.out.String()
		i := strings.Index(all[r.mark:], s)
		if i >= 0 {
			r.mark += i + len(s)
		}
		r.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal never showed %q; it showed:\n%s", s, review.Printable(all[r.mark:]))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// send types keys.
func (r *ptyRun) send(keys string) {
	r.t.Helper()
	if _, err := r.tty.Write([]byte(keys)); err != nil {
		r.t.Fatal(err)
	}
}

// exit waits for the program to end and returns its exit code.
func (r *ptyRun) exit() int {
	r.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- r.cmd.Wait() }()
	select {
	case err := <-errc:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			r.t.Fatal(err)
		}
		return 0
	case <-time.After(15 * time.Second):
		r.t.Fatal("tally did not exit")
	}
	return -1
}

// TestReviewPTY drives `tally review` through a pseudo-terminal, as a
// person would: accept, reject, edit the probe and the expected answer,
// quit; then run it again, which resumes where it stopped, go back to
// change a decision and finish. After each step the files on disk are
// checked, and the fixture must pass fixture.Load and `tally fixtures
// validate`.
func TestReviewPTY(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tally under a pseudo-terminal")
	}
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.json")
	fx := filepath.Join(dir, "fx.json")
	if _, e, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands); code != 0 {
		t.Fatal(e)
	}
	statuses := func() string {
		p, err := selection.LoadCandidates(cands, input.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, c := range p.Candidates {
			s = append(s, c.ID+"="+string(c.Status))
		}
		return fmt.Sprintf("%s @%d", strings.Join(s, " "), p.Position)
	}
	fixtureIDs := func() string {
		fxs, err := fixture.Load(fx)
		if err != nil {
			t.Fatalf("the fixture does not load: %v", err)
		}
		var ids []string
		for _, it := range fxs[0].MustSurvive {
			ids = append(ids, it.ID)
		}
		return strings.Join(ids, " ")
	}

	// First run: accept c1, reject c2, edit c3's probe and expected
	// answer, quit.
	program := tallyProgram(t)
	r := startPTY(t, program, "review", cands, "-o", fx)
	r.expect("item 1 of 3 · c1 · constraint · turn 3")
	r.expect(review.Keys)
	r.send("a")
	r.expect("item 2 of 3 · c2 · reference · turn 21")
	if got := statuses(); got != "c1=accepted c2=pending c3=pending @1" {
		t.Errorf("after accept: %s", got)
	}
	if got := fixtureIDs(); got != "c1" {
		t.Errorf("after accept the fixture holds %q", got)
	}
	r.send("r")
	r.expect("item 3 of 3 · c3 · commitment · turn 39")
	r.send("p")
	r.expect("probe> What did the assistant commit to about payments/rounding.py?")
	r.send("\x15How will payments/rounding.py be split?\r")
	r.expect("» probe updated")
	r.send("e")
	r.expect("expect> split payments/rounding.py into rounding_read.py and rounding_write.py")
	r.send("\x17\x17and rounding_w.py\r") // Ctrl-W twice deletes "rounding_write.py" and "and "
	r.expect("» expect updated")
	r.send("q")
	r.expect("sess_2026_01_06_75ad: 2 of 3 decided (1 accepted, 1 rejected); " + fx + " holds 1 item")
	r.expect("1 pending; resume with: tally review " + cands + " -o " + fx)
	if code := r.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := statuses(); got != "c1=accepted c2=rejected c3=pending @2" {
		t.Errorf("after quit: %s", got)
	}
	p, _ := selection.LoadCandidates(cands, input.Limits{})
	if c := p.Candidates[2]; c.Probe != "How will payments/rounding.py be split?" || c.Expect != "split payments/rounding.py into rounding_read.py and rounding_w.py" {
		t.Errorf("edits not saved: %q / %q", c.Probe, c.Expect)
	}

	// Second run: it resumes at c3; go back to c2 and accept it, accept
	// c3, and quit from the closing page.
	r = startPTY(t, program, "review", cands, "-o", fx, "--format", "json")
	r.expect("item 3 of 3 · c3")
	r.expect("How will payments/rounding.py be split?")
	r.expect("» resumed at candidate 3 of 3")
	r.send("b")
	r.expect("item 2 of 3 · c2")
	r.expect("status rejected")
	r.send("a")
	r.expect("item 3 of 3 · c3")
	r.send("a")
	r.expect("Review complete.")
	r.expect(fx + " holds the 3 accepted items")
	r.send("q")
	r.expect(`"complete": true`)
	if code := r.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := statuses(); got != "c1=accepted c2=accepted c3=accepted @3" {
		t.Errorf("at the end: %s", got)
	}
	if got := fixtureIDs(); got != "c1 c2 c3" {
		t.Errorf("the fixture holds %q", got)
	}
	fxs, _ := fixture.Load(fx)
	if it := fxs[0].MustSurvive[2]; it.Probe != "How will payments/rounding.py be split?" || fxs[0].Turns != 82 || fxs[0].CompactionsExpected != 3 {
		t.Errorf("fixture %+v", fxs[0])
	}
	out, errOut, code := cliIn(t, nil, "fixtures", "validate", fx)
	if code != 0 || out != "ok: 1 fixtures, 3 items, 1 constraint, 1 commitment, 0 open_question, 1 reference\n" {
		t.Errorf("fixtures validate: exit %d\n%s%s", code, out, errOut)
	}
}

// TestReviewPTYTypedAhead: keys typed before the first candidate is on
// the screen — "aaa", buffered by the terminal while tally starts — are
// not decisions: the review discards them once it has drawn, so nothing
// is accepted until the person has seen a candidate.
func TestReviewPTYTypedAhead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tally under a pseudo-terminal")
	}
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.json")
	fx := filepath.Join(dir, "fx.json")
	if _, e, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands); code != 0 {
		t.Fatal(e)
	}
	r := startPTY(t, tallyProgram(t), "review", cands, "-o", fx)
	r.send("aaa")
	// The terminal echoes keys only before review turns echo off (raw
	// mode): the echo says the keys were typed ahead of the review.
	r.expect("aaa")
	r.expect("item 1 of 3 · c1 · constraint · turn 3")
	r.expect(review.Keys)
	// Had the keys counted, the review would now move through all three
	// candidates to the closing page; give it the time to.
	time.Sleep(300 * time.Millisecond)
	r.mu.Lock()
	shown := r.out.String()[r.mark:]
	r.mu.Unlock()
	if strings.Contains(shown, "item 2 of 3") || strings.Contains(shown, "Review complete.") {
		t.Errorf("keys typed ahead moved the review on:\n%s", review.Printable(shown))
	}
	r.send("q")
	r.expect("0 of 3 decided (0 accepted, 0 rejected)")
	if code := r.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	p, err := selection.LoadCandidates(cands, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Candidates {
		if c.Status != selection.ReviewPending {
			t.Errorf("%s is %s: a key typed before the review decided it", c.ID, c.Status)
		}
	}
	if p.Position != 0 {
		t.Errorf("position %d after keys typed ahead, want 0", p.Position)
	}
}

// TestReviewBatch: --accept and --reject decide by id without a
// terminal, "rest" takes what is still pending, the folder of -o is
// created, and a second run changes only what it names; an unknown id
// or one in both lists fails naming the flag and the file, and writes
// nothing.
func TestReviewBatch(t *testing.T) {
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.json")
	if _, e, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands); code != 0 {
		t.Fatal(e)
	}
	p, err := selection.LoadCandidates(cands, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Candidates)
	if n < 3 {
		t.Fatalf("%d candidates: the example session should give at least 3", n)
	}
	fx := filepath.Join(dir, "new", "fixtures", "fx.json")
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--accept", "c1,c999"}, `--accept: no candidate "c999" among the`},
		{[]string{"--accept", "c1", "--reject", "c1"}, `--reject: candidate "c1" is in both lists`},
		{[]string{"--accept", "rest", "--reject", "rest"}, `--reject: "rest" is in both lists`},
	} {
		_, errOut, code := cliIn(t, nil, append([]string{"review", cands, "-o", fx}, bad.args...)...)
		if code != 1 || !strings.Contains(errOut, cands+": "+bad.want) {
			t.Errorf("%v: exit %d, stderr %q", bad.args, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
			t.Errorf("%v: a failed review left %v", bad.args, err)
		}
	}
	out, errOut, code := cliIn(t, nil, "review", cands, "--accept", "c1", "--accept", "c2", "-o", fx)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := fmt.Sprintf("%d pending; resume with: tally review %s -o %s\n", n-2, cands, fx); !strings.HasSuffix(out, want) {
		t.Errorf("stdout %q, want it to end %q", out, want)
	}
	out, errOut, code = cliIn(t, nil, "review", cands, "--reject", "rest", "-o", fx)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, fmt.Sprintf("%d of %d decided (2 accepted, %d rejected)", n, n, n-2)) {
		t.Errorf("stdout %q", out)
	}
	p, err = selection.LoadCandidates(cands, input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Position != n || p.Candidates[0].Status != selection.ReviewAccepted || p.Candidates[n-1].Status != selection.ReviewRejected {
		t.Errorf("position %d, statuses %s … %s", p.Position, p.Candidates[0].Status, p.Candidates[n-1].Status)
	}
	if _, errOut, code := cliIn(t, nil, "fixtures", "validate", fx); code != 0 {
		t.Errorf("the fixture does not validate: %s", errOut)
	}
}
