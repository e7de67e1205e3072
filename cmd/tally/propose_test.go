package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// proposeScript is the scripted proposer judge (a POSIX shell script)
// the LLM proposer's tests share.
const proposeScript = "../../selection/testdata/propose_llm/judge.sh"

// writeGenericLog writes a one-session log in agentlog's generic format
// whose first message is first.
func writeGenericLog(t *testing.T, dir, first string) string {
	t.Helper()
	path := filepath.Join(dir, "session.jsonl")
	line := `{"session_id": "g1", "messages": [{"role": "user", "content": "` + first + `"}, {"role": "assistant", "content": "Understood."}, {"role": "user", "content": "Follow docs/plan.md for the rest."}]}`
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProposeLLM: --proposer llm asks the judge backend (here the
// command backend running a scripted judge), prints the candidates it
// returned, and caches the reply; a reply that does not parse is an
// error naming what was wrong; the rules stay the default.
func TestProposeLLM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripted judge is a POSIX shell script")
	}
	dir := t.TempDir()
	log := writeGenericLog(t, dir, "never commit to main")
	calls := filepath.Join(dir, "calls")
	t.Setenv("TALLY_TEST_CALLS", calls)
	llm := []string{"propose", log, "--proposer", "llm", "--judge", "command", "--command", proposeScript, "--model", "script", "--cache", filepath.Join(dir, "cache")}
	want := `g1: 2 turns, 0 compactions; 2 candidates at confidence ≥ 0.50 (1 constraint, 0 commitment, 0 open_question, 1 reference)

id  class       turn  confidence  rule                literal
c1  constraint  1     0.90        llm/command/script  never commit to main
c2  reference   2     0.70        llm/command/script  docs/plan.md
`
	for range 2 {
		out, errOut, code := cliIn(t, nil, llm...)
		if code != 0 || out != want {
			t.Errorf("exit %d, stderr %q\ngot\n%s\nwant\n%s", code, errOut, out, want)
		}
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "call") != 1 {
		t.Errorf("the scripted judge ran %d times, want 1 (then the cache)", strings.Count(string(b), "call"))
	}
	odd := writeGenericLog(t, t.TempDir(), "say something odd")
	_, errOut, code := cliIn(t, nil, "propose", odd, "--proposer", "llm", "--judge", "command", "--command", proposeScript, "--model", "script", "--cache", "")
	if wantErr := "tally: " + odd + ": llm proposer: command/script's reply (3 asked): not one JSON object of the form {\"items\": [...]}: invalid character 'S' looking for beginning of value (reply starts \"Sure! Here are the items: none.\")\n"; code != 1 || errOut != wantErr {
		t.Errorf("odd reply: exit %d\n%s\nwant\n%s", code, errOut, wantErr)
	}
	// A model that fails: one line, naming the log (it was two, the
	// second the failure's kind, before a new user's trial).
	failing := writeGenericLog(t, t.TempDir(), "fail now")
	_, errOut, code = cliIn(t, nil, "propose", failing, "--proposer", "llm", "--judge", "command", "--command", proposeScript, "--model", "script", "--cache", "")
	if wantErr := "tally: " + failing + ": llm proposer: command/script: exit status 3: \"model overloaded\"\n"; code != 1 || errOut != wantErr {
		t.Errorf("failing model: exit %d\n%s\nwant\n%s", code, errOut, wantErr)
	}
	recorded := filepath.Join(dir, "verdicts.jsonl")
	os.WriteFile(recorded, nil, 0o644)
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"propose", log, "--proposer", "magic"}, "tally: --proposer must be rules, llm or hybrid, got \"magic\" (see tally --help)\n"},
		{[]string{"propose", log, "--proposer", "llm"}, "tally: --judge is required: openai, anthropic, command or recorded (see tally --help)\n"},
		{[]string{"propose", log, "--proposer", "llm", "--judge", "recorded", "--recorded", recorded}, "tally: --proposer llm asks a model: --judge openai, anthropic or command, not recorded (see tally --help)\n"},
		// Said before the verdicts file is read: a missing one is not the
		// problem (a new user's trial got its read error instead).
		{[]string{"propose", log, "--proposer", "hybrid", "--judge", "recorded", "--recorded", filepath.Join(dir, "missing.jsonl")}, "tally: --proposer hybrid asks a model: --judge openai, anthropic or command, not recorded (see tally --help)\n"},
	} {
		_, errOut, code := cliIn(t, nil, tt.args...)
		if code == 0 || (tt.stderr != "" && errOut != tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.stderr)
		}
	}
	// --proposer hybrid: the model's constraint, the rules' reference
	// (its rule says which proposer it came from); the model's reference
	// is left out.
	hybrid := append([]string{}, llm...)
	hybrid[3] = "hybrid"
	out, errOut, code := cliIn(t, nil, hybrid...)
	if want := `g1: 2 turns, 0 compactions; 2 candidates at confidence ≥ 0.50 (1 constraint, 0 commitment, 0 open_question, 1 reference)

id  class       turn  confidence  rule                literal
c1  constraint  1     0.90        llm/command/script  never commit to main
c2  reference   2     0.60        reference/path      docs/plan.md
`; code != 0 || out != want {
		t.Errorf("hybrid: exit %d, stderr %q\ngot\n%s\nwant\n%s", code, errOut, out, want)
	}
	// The rules, offline, are the default.
	out, _, code = cliIn(t, nil, "propose", log)
	if code != 0 || !strings.Contains(out, "constraint/prohibition/never") {
		t.Errorf("rules: exit %d\n%s", code, out)
	}
}

// TestProposeNotEnglish: the rules' proposal for a session typed in
// another language ends with a note saying so.
func TestProposeNotEnglish(t *testing.T) {
	log := filepath.Join(t.TempDir(), "de.jsonl")
	line := `{"session_id":"de","messages":[{"role":"user","content":"Bitte ändere niemals die Datei deploy/prod.yaml und pushe nicht auf main, das ist für den Betrieb wichtig."},{"role":"assistant","content":"ok"}]}` + "\n"
	if err := os.WriteFile(log, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cliIn(t, nil, "propose", log)
	if code != exitOK || !strings.Contains(out, "note: "+notEnglishNote) {
		t.Errorf("exit %d: %s\n%s", code, errOut, out)
	}
}
