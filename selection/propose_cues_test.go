package selection

import (
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// TestProposeCueConfidence checks that every cue rule has its own
// confidence, inside (0, 1), and that the cues at or above the default
// are the ones the file's comment says: all but choice, scope, should
// and spec, which are at 0.5 exactly.
func TestProposeCueConfidence(t *testing.T) {
	if len(propCueConfidence) != len(propCues) {
		t.Fatalf("%d confidences for %d cue rules", len(propCueConfidence), len(propCues))
	}
	for _, r := range propCues {
		c, ok := propCueConfidence[r.name]
		if !ok || c <= 0 || c >= 1 {
			t.Errorf("%s: confidence %v", r.name, c)
		}
		if r.class != fixture.Constraint {
			t.Errorf("%s: class %s", r.name, r.class)
		}
	}
}

// TestProposeCues pins what the cue rules make of a person's sentences:
// decisions, preferences, corrections and objections are constraints;
// requests for information, pasted lines and descriptions are not.
func TestProposeCues(t *testing.T) {
	for _, c := range []struct {
		text string
		rule string // "" when no cue may fire
	}{
		{"I'd go with option 4 now as a simple improvement", "constraint/cue/preference"},
		{"ideally just rebase onto main", "constraint/cue/preference"},
		{"no, we removed the session commands on purpose", "constraint/cue/judgement"},
		{"no revert those changes, I think it's correct if it's part of the commit", "constraint/cue/correction"},
		{"let's do 2 for now", "constraint/cue/for-now"},
		{"yes do option 1", "constraint/cue/choice"},
		{"order by latest timestamp desc", "constraint/cue/spec"},
		// From a new user's trial: a standing rule said with "from now on"
		// or "going forward", and choices said by position.
		{"from now on, run gofmt before every commit", "constraint/cue/from-now-on"},
		{"going forward, put new tests in internal/integration", "constraint/cue/from-now-on"},
		{"please use os.UserCacheDir from now on", "constraint/cue/from-now-on"},
		{"let's go with the second approach", "constraint/cue/choice"},
		{"go with the second one", "constraint/cue/choice"},
		{"second approach please", "constraint/cue/choice"},
		{"let's use os.UserCacheDir", "constraint/cue/choice"},
		{"please use os.UserCacheDir for the cache", "constraint/cue/choice"},
		{"the new code should then reuse the one from today", "constraint/cue/should"},
		// Descriptions, requests and pasted output.
		{"The RunGitCommand function is defined there but never called anywhere", ""},
		{"can you check what should be shown for this branch", ""},
		{"what should we name the inverse flag", ""},
		{`"session_count": 1,`, ""},
		{"=== Step 3: Enable entire ===", ""},
		{"def format_number(n):", ""},
		{"for the change in x.go I think if we fail to open the repository we should bail out", "constraint/cue/should"},
		{"I don't think it matters", ""},
		// "should" of what is likely, not of what must be (propEpistemic).
		{"using the git cli for this should be fine, since it's against the local worktree", ""},
		{"hmm, we should be seeing some lastInteractions come through now", ""},
		{"I hope there isn't one since it should have failed but we should definitely have one testing the scenario", "constraint/cue/should"},
		// "instead of" that explains or reports (propExplains).
		{"For example, if the agent adds 10 lines and the user removes 5, TotalCommitted reports 10 instead of 7", ""},
		{"If repo.Config() returns a config without Raw, this can panic and break the tests instead of fixing them", ""},
		{"this explain is back to 19 instead of 26", ""},
		{"Instead of passing the empty existingAgentType, the code should either:", ""},
		{"instead of getting the content", ""},
		{"for every test in redact_test.go I'd like to see literal expectations instead of strings.Contains checks", "constraint/cue/preference"},
		// A pick among the agent's options (propPick), prose or not.
		{"Then on stop hook I want a notification if a review is still pending", "constraint/cue/want"},
		{"I do want this command to behave like:", "constraint/cue/want"},
		{"I want it to print the short status by default", "constraint/cue/want"},
		{"I want to see if the tests pass first", ""},
		{"I want you to run the tests", ""},
		{"I need a summary of what changed", ""},
		{"I want a PR for this", ""},
		{"I want to be sure the tests pass", ""},
		{"I need to see the full stack trace", ""},
		{"do 1,2 and 5", "constraint/cue/pick"},
		{"Option A", "constraint/cue/pick"},
		{"all four", "constraint/cue/pick"},
		{"let's fix 3 too", "constraint/cue/pick"},
		{"I like Option 1, from an enabling perspective:", "constraint/cue/pick"},
		{"1", ""},
		{"2.", ""},
		{"all four tests pass now", ""},
		{"we have 3 options here", ""},
	} {
		g := propCue(c.text)
		switch {
		case c.rule == "" && g != nil:
			t.Errorf("%q: %s fired", c.text, g.rule)
		case c.rule != "" && g == nil:
			t.Errorf("%q: no cue fired, want %s", c.text, c.rule)
		case c.rule != "" && g.rule != c.rule:
			t.Errorf("%q: %s, want %s", c.text, g.rule, c.rule)
		}
	}
}

// TestProposeProseAndOutput pins propProseSentence on lines a person
// writes and lines a program prints, and propOutputMessage on a pasted
// test run and on a message that quotes a few lines of output.
func TestProposeProseAndOutput(t *testing.T) {
	for _, c := range []struct {
		line  string
		prose bool
	}{
		{"keep the grouping by session and allow switching", true},
		{"can we change the script so it's using `go run cmd/..`?", true},
		{"No initial_attribution in metadata", true}, // three words: prose by form
		{"81/cecbab0b2c/content_hash.txt", false},
		{"Found metadata.json:", false},
		{"Files touched (agent-modified):", true}, // a heading reads as prose by form
		{`  "files_touched": [`, false},
		{"accumulated := userAdded - nonAgent", false},
		{"Error: cmd/entire/cli/strategy/auto_commit.go:87:1: NewAutoCommitStrategy returns interface (ireturn)", false},
		{"main.c:3:5: warning: unused variable x", false},
		{"src/app.ts(12,5): error TS2322: Type string is not assignable", false},
		{"create mode 100644 99/1c62f11ee3/metadata.json", false},
	} {
		if got := propProseSentence(c.line); got != c.prose {
			t.Errorf("propProseSentence(%q) = %v, want %v", c.line, got, c.prose)
		}
	}
	run := "=== Step 12: Inspect metadata ===\nLooking for metadata at: 81/cecbab0b2c/metadata.json\nFound metadata.json:\n{\n  \"checkpoint_id\": \"81cecbab0b2c\",\n  \"files_touched\": [\n    \"main.py\"\n  ]\n}\nFiles in checkpoint directory:\n81/cecbab0b2c/context.md\n81/cecbab0b2c/prompt.txt\n"
	if !propOutputMessage(run) {
		t.Errorf("a pasted test run is not output")
	}
	quote := "the test fails again, this is what I see:\nFAIL: TestX\nexpected 3, got 4\nwe should never compare the counts by hand, use the helper instead\nand keep the old output as it is\n"
	if propOutputMessage(quote) {
		t.Errorf("a message that quotes two lines of output is taken for output")
	}
	if propOutputMessage("one line only: 81/cecbab0b2c/context.md") {
		t.Errorf("a one-line message is taken for output")
	}
}

// TestProposePastedOutputReferences pins the references of a person's
// pasted test run: its listing of files nobody changed is working state,
// a file the agent changed stays, and a path the person typed in prose
// beside it stays.
func TestProposePastedOutputReferences(t *testing.T) {
	s := &agentlog.Session{ID: "p1", Turns: make([]agentlog.Turn, 2)}
	s.Messages = []agentlog.Message{
		{Kind: agentlog.Typed, Turn: 0, Step: 0, Text: "fix the attribution in scripts/e2e.sh"},
		{Kind: agentlog.Typed, Turn: 1, Step: 1, Text: "=== Step 14 ===\nFiles in checkpoint directory:\n81/cecbab0b2c/content_hash.txt\n81/cecbab0b2c/context.md\nscripts/e2e.sh\n/var/folders/gz/h7s/T/tmp.kdWp7xUk8V\nRepo kept for inspection.\n"},
	}
	s.Steps = []agentlog.Step{
		{Turn: 0, Text: "Fixed.", Calls: []agentlog.ToolCall{propCall("Edit", map[string]string{"file_path": "/repo/scripts/e2e.sh"}, "ok")}},
		{Turn: 1, Text: "The run looks right."},
	}
	got := map[string]bool{}
	for _, c := range Propose(s, ProposeOptions{MinConfidence: DefaultMinConfidence}).Candidates {
		if c.Class == fixture.Reference {
			got[c.Literal] = true
		}
	}
	if !got["scripts/e2e.sh"] {
		t.Errorf("the file the person named and the agent changed is missing: %v", got)
	}
	for lit := range got {
		if strings.Contains(lit, "cecbab0b2c") || strings.Contains(lit, "tmp.") {
			t.Errorf("proposed %q from pasted output", lit)
		}
	}
}

// TestProposeWorkLoops pins the files a shell loop changes: the words
// of its list when the body writes to the loop's variable (an in-place
// sed, a formatter's -w, a redirection), a pattern as a glob matched
// segment by segment from the end; a loop that only reads changes
// nothing.
func TestProposeWorkLoops(t *testing.T) {
	s := &agentlog.Session{ID: "l1", Turns: make([]agentlog.Turn, 1)}
	s.Steps = []agentlog.Step{{Turn: 0, Calls: []agentlog.ToolCall{
		propCall("Bash", map[string]string{"command": "for file in cmd/cli/agent/claude.go cmd/cli/agent/gemini.go; do\n  sed -i '' 's/a/b/' \"$file\"\ndone"}, ""),
		propCall("Bash", map[string]string{"command": "for f in cmd/cli/integration_test/*.go; do gofmt -w \"$f\"; done"}, ""),
		propCall("Bash", map[string]string{"command": "for f in docs/*.md; do grep -n TODO \"$f\"; done"}, ""),
	}}}
	w := propWorkOf(s)
	propCheckChanged(t, w, []propChanged{
		{"claude.go", true},
		{"agent/gemini.go", true},
		{"integration_test/hooks.go", true},
		{"hooks_test.go", true},
		{"other/hooks.go", false},
		{"docs/readme.md", false},
		{"integration_test/hooks.txt", false},
	})
}

// TestProposeScratchPaths pins the paths no summary needs: temporary
// and system directories are working state whoever names them.
func TestProposeScratchPaths(t *testing.T) {
	for _, c := range []struct {
		path    string
		scratch bool
	}{
		{"/var/folders/gz/h7sjhvz13cb0gcrzzcncqtyw0000gn/T/tmp.kdWp7xUk8V", true},
		{"/private/var/folders/x/T/go-build123", true},
		{"/tmp/l3/notes.md", true},
		{"/usr/bin/env", true},
		{"/home/runner/work/cli/cli", true},
		{"REDACTED/tmp.7MHvwN4BhP/.git", true},
		{"/Users/soph/Work/cli/tmp/notes.md", false},
		{"docs/architecture/attribution.md", false},
		{"/var/lib/app/config.yaml", false},
	} {
		if got := propScratchPath.MatchString(c.path); got != c.scratch {
			t.Errorf("propScratchPath(%q) = %v, want %v", c.path, got, c.scratch)
		}
	}
}

// TestProposePastedLintLines pins the files named in pasted program
// output (here a linter's, which typedProse leaves out of the prose): the
// one the agent then changed is a reference at the default confidence,
// the one it did not is working state.
func TestProposePastedLintLines(t *testing.T) {
	s := &agentlog.Session{ID: "lint", Turns: make([]agentlog.Turn, 1)}
	s.Messages = []agentlog.Message{{Kind: agentlog.Typed, Turn: 0, Step: 0, Text: "the linter is unhappy:\n\ninternal/store/cachedir.go:14:2: error strings should not be capitalized (ST1005)\ncmd/tool/main.go:40:1: exported function Open should have comment or be unexported\n\ncan you fix the first one?"}}
	s.Steps = []agentlog.Step{{Turn: 0, Text: "Fixed.", Calls: []agentlog.ToolCall{propCall("Edit", map[string]string{"file_path": "/repo/internal/store/cachedir.go"}, "ok")}}}
	got := map[string]float64{}
	for _, c := range Propose(s, ProposeOptions{}).Candidates {
		if c.Class == fixture.Reference {
			got[c.Literal] = c.Confidence
		}
	}
	if c, ok := got["internal/store/cachedir.go:14"]; !ok || c < DefaultMinConfidence {
		t.Errorf("the pasted file the agent fixed: %v (%v), want a reference at %v or more; all %v", c, ok, DefaultMinConfidence, got)
	}
	if c, ok := got["cmd/tool/main.go:40"]; !ok || c >= DefaultMinConfidence {
		t.Errorf("the pasted file nobody changed: %v (%v), want working state below %v", c, ok, DefaultMinConfidence)
	}
}

// TestProposeWorkToolNames pins the tools the work index reads whatever
// the agent names them (a new user's trial found generic and Codex logs
// read as if nothing had been changed): a file tool by another name, a
// shell command given as a list (Codex's ["bash", "-lc", …]), and
// Codex's apply_patch, whose input is the patch as a JSON string.
func TestProposeWorkToolNames(t *testing.T) {
	call := func(name, input string) agentlog.ToolCall {
		return agentlog.ToolCall{Name: name, Input: []byte(input), HasResult: true}
	}
	s := &agentlog.Session{ID: "t1", Turns: make([]agentlog.Turn, 1)}
	s.Steps = []agentlog.Step{{Turn: 0, Calls: []agentlog.ToolCall{
		call("edit_file", `{"path": "internal/store/cachedir.go", "old": "a", "new": "b"}`),
		call("shell", `{"command": ["bash", "-lc", "for f in cmd/a.go cmd/b.go; do sed -i 's/x/y/' \"$f\"; done"]}`),
		call("apply_patch", `"*** Begin Patch\n*** Update File: pkg/flags.go\n@@\n-a\n+b\n*** Add File: pkg/new.go\n+package pkg\n*** End Patch"`),
		call("read_file", `{"path": "README.md"}`),
	}}}
	w := propWorkOf(s)
	propCheckChanged(t, w, []propChanged{
		{"internal/store/cachedir.go", true},
		{"cmd/a.go", true},
		{"b.go", true},
		{"pkg/flags.go", true},
		{"new.go", true},
		{"README.md", false},
	})
}

// propChanged is a mention and whether the work index must call it a
// file the agent changed.
type propChanged struct {
	mention string
	changed bool
}

// propCheckChanged checks w.changed on each case.
func propCheckChanged(t *testing.T, w *propWork, cases []propChanged) {
	t.Helper()
	for _, c := range cases {
		if got := w.changed(c.mention); got != c.changed {
			t.Errorf("changed(%q) = %v, want %v (files %v, globs %v)", c.mention, got, c.changed, w.files, w.globs)
		}
	}
}

// TestProposeLeadInBeforePaste pins that a lead-in before pasted output
// is read as the person's words, and that a later "ignore that lint
// error" says the rule again rather than taking it back (propReversal:
// only "ignore that" alone reverses).
func TestProposeLeadInBeforePaste(t *testing.T) {
	s := propSession([]propMsg{
		{2, "user", "ignore this warning: SA4006 this value of err is never used (staticcheck)"},
		{3, "user", "add a comment into the code to ignore that lint warning"},
	}, 3)
	var got []string
	for _, c := range propConstraints(s, ProposeOptions{}) {
		got = append(got, c.Literal)
	}
	if len(got) == 0 || got[0] != "ignore this warning" {
		t.Errorf("constraints %q, want \"ignore this warning\" first", got)
	}
	for _, c := range []struct {
		body string
		want bool
	}{
		{"SA4006 this value of err is never used (staticcheck)", true},
		{"cmd/hooks.go:332:2: missing cases in switch", true},
		{"Troy", false},
		{"keep the tests fast and the names short", false},
		{"", false},
	} {
		if got := propPasted(c.body); got != c.want {
			t.Errorf("propPasted(%q) = %v, want %v", c.body, got, c.want)
		}
	}
}

// TestProposePickThenSteer pins that a pick among the agent's options
// leaves the steer rule free to read the words that explain it.
func TestProposePickThenSteer(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Set up the local dev install."},
		{2, "user", "I like Option 1, from an enabling perspective:\nin this repo we want to commit the local-dev state"},
	}, 2)
	var got []string
	for _, c := range propConstraints(s, ProposeOptions{}) {
		got = append(got, c.Rule+" "+c.Literal)
	}
	want := []string{"constraint/cue/pick I like Option 1, from an enabling perspective:", "constraint/steer in this repo we want to commit the local-dev state"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
