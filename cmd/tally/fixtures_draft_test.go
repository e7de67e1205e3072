package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

// The hand-written sessions of package draft: two compactions (an
// automatic one inside typed turn 2, a manual /compact before turn 5); a
// gzipped one compacting in its last turn; one without a compaction.
const (
	draftTwo   = "../../draft/testdata/two.jsonl"
	draftLast  = "../../draft/testdata/last.jsonl.gz"
	draftNone  = "../../draft/testdata/none.jsonl"
	draftTwoID = "9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3"
)

// TestFixturesDraftCLI: the output and the files of one run over the
// three sessions, against golden files (go test ./cmd/tally -update).
// The candidates come from the proposer's rules; the contexts and turns
// are checked by hand in package draft. The golden output leaves out the
// gzipped session's table, whose one commitment the rules keep changing
// their mind about.
func TestFixturesDraftCLI(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, "fixtures", "draft", draftTwo, draftLast, draftNone, "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var kept []string
	skip := false
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, draftLast+": ") {
			skip = true
			kept = append(kept, draftLast+": …\n")
			continue
		}
		if skip && strings.HasPrefix(l, "  ") {
			continue
		}
		skip = false
		kept = append(kept, l)
	}
	golden(t, "draftcli/draft.txt", strings.ReplaceAll(strings.Join(kept, ""), dir, "DIR"))
	cands, err := os.ReadFile(filepath.Join(dir, "candidates", draftTwoID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "draftcli/two.candidates.json", string(cands))
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	want := "candidates/9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3.json candidates/c7d8e9f0-2222-4a1b-8c2d-3e4f5a6b7c8d.json " +
		"contexts/9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3/1.json contexts/9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3/2.json " +
		"contexts/c7d8e9f0-2222-4a1b-8c2d-3e4f5a6b7c8d/1.json"
	if got := strings.Join(files, " "); got != want {
		t.Errorf("files written:\n%s\nwant\n%s", got, want)
	}
	// What review and check read: the candidates file, and every context
	// against the fixture review would write when every candidate is
	// accepted.
	p, err := selection.LoadCandidates(filepath.Join(dir, "candidates", draftTwoID+".json"), input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Candidates {
		p.Candidates[i].Status = selection.ReviewAccepted
	}
	f, err := p.Fixture()
	if err != nil {
		t.Fatal(err)
	}
	if _, missing, err := fixture.CheckContexts(filepath.Join(dir, "contexts"), "incumbent", f); err != nil || len(missing) > 0 {
		t.Errorf("the contexts do not check against the fixture: %v %v", missing, err)
	}

	// More than five sessions without a compaction are counted, not
	// listed: six copies of draftNone, each its own session.
	many := []string{"fixtures", "draft", draftTwo, "-o", t.TempDir()}
	none, err := os.ReadFile(draftNone)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		p := filepath.Join(t.TempDir(), "none.jsonl")
		b := strings.ReplaceAll(string(none), "4b2a7c10-1111-", fmt.Sprintf("4b2a7c1%d-1111-", i))
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		many = append(many, p)
	}
	out, errOut, code = cli(t, many...)
	if code != exitOK || strings.Contains(out, "-1111-4c2d-") ||
		!strings.Contains(out, "\n1 of 7 sessions drafted; 6 without a compaction with a summary (--format json lists them)\n") {
		t.Errorf("six sessions without a compaction: exit %d %s\n%s", code, errOut, out)
	}

	// --format json: the same model.
	js, errOut, code := cli(t, "fixtures", "draft", draftTwo, "-o", t.TempDir(), "--format", "json")
	var res draftJSON
	if code != exitOK || json.Unmarshal([]byte(js), &res) != nil {
		t.Fatalf("--format json: exit %d %s\n%s", code, errOut, js)
	}
	s := res.Sessions[0]
	if res.Drafted != 1 || s.ConversationID != draftTwoID || s.Turns != 6 || s.TypedTurns != 5 || len(s.Compactions) != 2 ||
		s.Compactions[0].Turn != 3 || s.Compactions[1].Turn != 6 || s.Compactions[1].Trigger != "manual" || s.Compactions[1].Messages != 2 {
		t.Errorf("--format json: %+v", res)
	}
}

// TestFixturesDraftRepeated: a session read again from a later log is
// drafted once, from the first, and said, as select and signals do.
func TestFixturesDraftRepeated(t *testing.T) {
	out, errOut, code := cli(t, "fixtures", "draft", draftTwo, draftTwo, "-o", t.TempDir())
	if code != exitOK || !strings.Contains(out, draftTwo+": session "+draftTwoID+": read from "+draftTwo+" already") ||
		!strings.Contains(out, "\nnote: 1 session read again from a later file, drafted once from the first\n") {
		t.Errorf("the same log twice: exit %d %s\n%s", code, errOut, out)
	}
}

func TestFixturesDraftErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`+"\n"+`{"type":"user","sessionId":"s","message":`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	emptyLog := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(emptyLog, nil, 0o644)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{draftNone}, 1, "tally: " + draftNone + `: session "4b2a7c10-1111-4c2d-9e3f-a0b1c2d3e4f5": no compaction with a summary: no fixture to draft` + "\n"},
		{[]string{bad}, 1, "tally: " + bad + ":2:"},
		{[]string{filepath.Join(dir, "none.jsonl")}, 1, "tally: stat " + filepath.Join(dir, "none.jsonl") + ": no such file or directory\n"},
		{[]string{draftTwo, "--min-confidence", "2"}, 2, "tally: --min-confidence must be between 0 and 1, got 2"},
		{[]string{emptyLog, "-o", "unused"}, 1, "tally: " + emptyLog + ": no session to draft (an empty log holds none)\n"},
		{[]string{draftTwo, "--log-format", "xml"}, 2, `tally: invalid argument "xml" for "--log-format" flag: want one of [claude-code codex generic tally]`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, errOut, code := cli(t, append([]string{"fixtures", "draft", "-o", out}, tt.args...)...)
			if code != tt.code || !strings.HasPrefix(errOut, tt.stderr) {
				t.Errorf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, errOut, tt.code, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("output on error: %q", stdout)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written on error (%v)", out, err)
			}
		})
	}
	// --skip-bad: a malformed line is skipped and said, never dropped
	// silently.
	withBad := filepath.Join(dir, "withbad.jsonl")
	two, _ := os.ReadFile(draftTwo)
	lines := strings.SplitAfter(string(two), "\n")
	os.WriteFile(withBad, []byte(strings.Join(lines[:3], "")+"{\"type\":\n"+strings.Join(lines[3:], "")), 0o644)
	stdout, errOut, code := cli(t, "fixtures", "draft", withBad, "-o", filepath.Join(dir, "skip"), "--skip-bad")
	if code != exitOK || errOut != "tally: "+withBad+":4:8: unexpected end of JSON input (line skipped)\n" ||
		!strings.Contains(stdout, "\nnote: 1 malformed line skipped (listed on stderr)\n") {
		t.Errorf("--skip-bad: exit %d, stderr %q\n%s", code, errOut, stdout)
	}
	// A log none of whose lines is read (a prompt history under
	// --skip-bad) is no session: counted apart, as signals and select
	// count it (a new user's trial saw "5 of 8 sessions drafted").
	unread := filepath.Join(dir, "history.jsonl")
	os.WriteFile(unread, []byte("{\"type\":\n{\"type\":\n"), 0o644)
	stdout, _, code = cli(t, "fixtures", "draft", draftTwo, unread, "-o", filepath.Join(dir, "unread"), "--skip-bad")
	if code != exitOK || !strings.Contains(stdout, "\nnote: 1 log with no record read not drafted: not sessions\n") || strings.Contains(stdout, "of 2 sessions") ||
		!strings.Contains(stdout, unread+": no record read (every line skipped, as malformed or by its type): not a session\n") {
		t.Errorf("a log with no record read: exit %d\n%s", code, stdout)
	}
	if _, errOut, code := cli(t, "fixtures", "draft", draftTwo); code != 2 || !strings.Contains(errOut, `required flag(s) "output" not set`) {
		t.Errorf("no -o: exit %d %s", code, errOut)
	}
}

// TestFixturesDraftExisting: a candidates file may hold a review under
// way, so a second draft refuses to replace it without --force; with
// --force it replaces the files and removes a context beyond the new
// count.
func TestFixturesDraftExisting(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := cli(t, "fixtures", "draft", draftTwo, "-o", dir); code != exitOK {
		t.Fatal(errOut)
	}
	cands := filepath.Join(dir, "candidates", draftTwoID+".json")
	reviewed := []byte(`{"under": "review"}`)
	os.WriteFile(cands, reviewed, 0o644)
	stale := filepath.Join(dir, "contexts", draftTwoID, "3.json")
	os.WriteFile(stale, []byte("{}"), 0o644)
	_, errOut, code := cli(t, "fixtures", "draft", draftTwo, "-o", dir)
	if code != exitInput || errOut != "tally: "+cands+" exists (and 2 more): a candidates file may hold a review under way; use --force to replace the drafts\n" {
		t.Errorf("second draft: exit %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(cands); string(b) != string(reviewed) {
		t.Errorf("the candidates file was replaced without --force")
	}
	if _, errOut, code := cli(t, "fixtures", "draft", draftTwo, "-o", dir, "--force"); code != exitOK {
		t.Fatalf("--force: exit %d %s", code, errOut)
	}
	if _, err := selection.LoadCandidates(cands, input.Limits{}); err != nil {
		t.Errorf("--force did not write the candidates: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("--force left context 3 of 2: %v", err)
	}
	// Without --force, a stale context alone is refused too.
	os.WriteFile(stale, []byte("{}"), 0o644)
	other := t.TempDir()
	copyTree(t, filepath.Join(dir, "contexts"), filepath.Join(other, "contexts"))
	for _, f := range []string{"1.json", "2.json"} {
		os.Remove(filepath.Join(other, "contexts", draftTwoID, f))
	}
	_, errOut, code = cli(t, "fixtures", "draft", draftTwo, "-o", other)
	if code != exitInput || !strings.Contains(errOut, "3.json exists beyond the 2 contexts drafted; use --force to remove it") {
		t.Errorf("stale context: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(other, "candidates")); !os.IsNotExist(err) {
		t.Errorf("files written after the refusal: %v", err)
	}
}

// TestFixturesDraftLLM: --proposer llm asks the model once per compaction,
// about the turns before it (here a scripted model: the pull-request
// promise is in the second prompt only), and the items land where they
// were said: the promise, said in typed turn 2 after the first
// compaction, is at fixture turn 3, live at the second context only. A
// second run is answered from the cache.
func TestFixturesDraftLLM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripted model is a POSIX shell script")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	t.Setenv("TALLY_TEST_CALLS", calls)
	llm := []string{"fixtures", "draft", draftTwo, "--proposer", "llm", "--judge", "command",
		"--command", "testdata/draftquarter/proposer.sh", "--model", "script", "--cache", filepath.Join(dir, "cache"), "--format", "json"}
	for run := range 2 {
		out := filepath.Join(dir, "out", string(rune('a'+run)))
		js, errOut, code := cli(t, append(llm, "-o", out)...)
		var res draftJSON
		if code != exitOK || json.Unmarshal([]byte(js), &res) != nil {
			t.Fatalf("exit %d: %s\n%s", code, errOut, js)
		}
		p, err := selection.LoadCandidates(res.Sessions[0].CandidatesFile, input.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range p.Candidates {
			got = append(got, c.ID+" "+string(c.Class)+" "+c.Literal+" @"+strings.Repeat("|", c.Turn))
		}
		want := []string{
			"c1 constraint never push to main without asking me first @|",
			"c2 reference SYNC-482 @|",
			"c3 commitment I will open the pull request only after the tests pass @|||",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("run %d: candidates\n%s\nwant\n%s", run+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The output says what the model did (a new user's trial could
		// tell only from its own script's log).
		if wantCalls, wantCached := int64(2-2*run), int64(2*run); res.Model == nil || res.Model.Calls != wantCalls || res.Model.Cached != wantCached {
			t.Errorf("run %d: model %+v, want %d calls and %d from the cache", run+1, res.Model, wantCalls, wantCached)
		}
		if c := res.Sessions[0].Compactions; c[0].Proposed != 2 || c[0].Live != 2 || c[1].Proposed != 1 || c[1].Live != 3 || p.Candidates[0].Rule != "llm/command/script" {
			t.Errorf("run %d: compactions %+v, rule %q", run+1, c, p.Candidates[0].Rule)
		}
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "call") != 2 {
		t.Errorf("the scripted model ran %d times, want 2 (one per compaction, then the cache)", strings.Count(string(b), "call"))
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--proposer", "magic"}, "tally: --proposer must be rules, llm or hybrid, got \"magic\""},
		{[]string{"--proposer", "llm"}, "tally: --judge is required"},
	} {
		_, errOut, code := cli(t, append([]string{"fixtures", "draft", draftTwo, "-o", filepath.Join(dir, "x")}, tt.args...)...)
		if code != exitUsage || !strings.HasPrefix(errOut, tt.stderr) {
			t.Errorf("%v: exit %d %s", tt.args, code, errOut)
		}
	}
}

// TestFixturesDraftConcurrent: a model proposer's calls for the
// compactions of a session are made --concurrency at a time (a new
// user's trial saw 41 calls made one after another whatever
// --concurrency said): with 2, both calls begin before either finishes;
// with 1, one after the other. The drafts are the same.
func TestFixturesDraftConcurrent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripted model is a POSIX shell script")
	}
	var outputs []string
	for _, tt := range []struct{ concurrency, want string }{{"2", "begin begin finish finish"}, {"1", "begin finish begin finish"}} {
		dir := t.TempDir()
		calls := filepath.Join(dir, "calls")
		t.Setenv("TALLY_TEST_CALLS", calls)
		t.Setenv("TALLY_TEST_SLEEP", "1")
		out := filepath.Join(dir, "out")
		_, errOut, code := cli(t, "fixtures", "draft", draftTwo, "--proposer", "llm", "--judge", "command",
			"--command", "testdata/draftquarter/proposer.sh", "--model", "script", "--cache", "", "--concurrency", tt.concurrency, "-o", out)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		b, _ := os.ReadFile(calls)
		var seq []string
		for _, w := range strings.Fields(string(b)) {
			if w != "call" {
				seq = append(seq, w)
			}
		}
		if got := strings.Join(seq, " "); got != tt.want {
			t.Errorf("--concurrency %s: %s, want %s", tt.concurrency, got, tt.want)
		}
		c, err := os.ReadFile(filepath.Join(out, "candidates", "9f1c2d3e-0000-4a5b-8c6d-7e8f90a1b2c3.json"))
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(c))
	}
	if outputs[0] != outputs[1] {
		t.Errorf("the drafts differ with the concurrency:\n%s\n%s", outputs[0], outputs[1])
	}
}

// TestFixturesDraftCaseCollision: two sessions whose conversation ids
// differ only in case (or Unicode normalisation) would be one folder on
// Windows and macOS; the draft refuses, naming both sessions (a re-check
// trial drafted "case" and "CASE" side by side).
func TestFixturesDraftCaseCollision(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "two.jsonl")
	session := func(id string) string {
		return `{"session_id":"` + id + `","messages":[{"role":"user","content":"Never push to main."},{"role":"assistant","content":"ok"},{"role":"user","content":"go on"},{"role":"assistant","content":"ok"}],"compactions":[{"after_message":2,"summary":"Never push to main."}]}` + "\n"
	}
	if err := os.WriteFile(log, []byte(session("case")+session("CASE")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, "fixtures", "draft", log, "-o", filepath.Join(dir, "out"))
	if code == exitOK || !strings.Contains(errOut, `session "CASE" would be drafted as conversation "CASE", and session "case" of `) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "candidates")); !os.IsNotExist(err) {
		t.Errorf("files written: %v", err)
	}
}

// TestFixturesDraftNotEnglish: with the rules, a session typed in another
// language is drafted with a note saying the rules read English (its
// references are found, hardly its constraints); an English one is not.
func TestFixturesDraftNotEnglish(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "langs.jsonl")
	session := func(id, a string) string {
		return `{"session_id":"` + id + `","messages":[{"role":"user","content":"` + a + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"` + a + `"},{"role":"assistant","content":"ok"}],"compactions":[{"after_message":2,"summary":"s"}]}` + "\n"
	}
	logs := session("de", "Bitte ändere niemals die Datei deploy/prod.yaml und pushe nicht auf main, das ist für den Betrieb wichtig.") +
		session("en", "Please never change deploy/prod.yaml and do not push to main, it is important for the operations team.")
	if err := os.WriteFile(log, []byte(logs), 0o644); err != nil {
		t.Fatal(err)
	}
	js, errOut, code := cli(t, "fixtures", "draft", log, "-o", filepath.Join(dir, "out"), "--format", "json")
	var res draftJSON
	if code != exitOK || json.Unmarshal([]byte(js), &res) != nil || len(res.Sessions) != 2 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, js)
	}
	for _, s := range res.Sessions {
		if got, want := slices.Contains(s.Notes, notEnglishNote), s.SessionID == "de"; got != want {
			t.Errorf("session %s: note %v, want %v (notes %q)", s.SessionID, got, want, s.Notes)
		}
	}
}

// TestShellWord: a path printed in a "next:" command is one shell word
// (POSIX, "Quoting": single quotes keep every character but ').
func TestShellWord(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"drafts/candidates/a-1.json", "drafts/candidates/a-1.json"},
		{"Entwürfe/candidates/x.json", "Entwürfe/candidates/x.json"},
		{"Ein Entwurf/candidates/x.json", "'Ein Entwurf/candidates/x.json'"},
		{"it's/x.json", `'it'\''s/x.json'`},
		{"$HOME/x", "'$HOME/x'"},
	} {
		if got := shellWord(c.in); got != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
	}
}
