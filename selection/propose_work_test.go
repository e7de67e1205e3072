package selection

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// TestProposeObjectionTable runs every rule of propObjections on its
// example (it must fire) and its near miss (it must not), as
// TestProposeRuleTable does for the other tables.
func TestProposeObjectionTable(t *testing.T) {
	for _, r := range propObjections {
		t.Run(r.name, func(t *testing.T) {
			if r.example == "" || r.nearMiss == "" || r.class != fixture.Constraint {
				t.Fatal("a rule needs an example, a near miss and the constraint class")
			}
			if _, ok := propFires([]propRule{r}, propNormalize(r.example)); !ok {
				t.Errorf("does not fire on its example %q", r.example)
			}
			if _, ok := propFires([]propRule{r}, propNormalize(r.nearMiss)); ok {
				t.Errorf("fires on its near miss %q", r.nearMiss)
			}
		})
	}
}

// TestProposeObjectionCases pins which objection rule, if any, reads a
// few questions from the dev set's sessions.
func TestProposeObjectionCases(t *testing.T) {
	for _, c := range []struct{ text, rule string }{
		{"can we rebase our branch onto the release branch instead of main please?", "objection/lasting-request"},
		{"can you use a switch case instead of linked ifelse?", "objection/lasting-request"},
		{"can you check if there would be issues with a https url instead of a git url?", ""},
		{"can you do a web search if others have the DNS issue too?", ""},
		{"Do we need all the logic in promptShellCompletion and setupShellCompletionNonInteractive to be duplicated?", "objection/just-for"},
		{"do we have this code block copied multiple times now?", "objection/just-for"},
		{"do we have a test for this?", ""},
		{"the issue is that this only works if the user has access to the upstream repo, right?", "objection/problem"},
		{"but while that test is running my local git config is messed up, right?", "objection/right"},
	} {
		r, ok := propFires(propObjections, propNormalize(c.text))
		if got := map[bool]string{true: r.name}[ok]; got != c.rule {
			t.Errorf("%q: %q, want %q", c.text, got, c.rule)
		}
	}
	// A belief checked with "right?" is below the default cut: on the
	// labelled sets it was a constraint 2 times in 10.
	s := propSession([]propMsg{{1, "user", "Add the test."}, {2, "user", "but while that test is running my local git config is messed up, right?"}}, 2)
	for _, c := range Propose(s, ProposeOptions{MinConfidence: DefaultMinConfidence}).Candidates {
		if c.Turn == 2 {
			t.Errorf("proposed at the default cut: %+v", c)
		}
	}
}

// propCall is a tool call with its input and result.
func propCall(name string, input map[string]string, result string) agentlog.ToolCall {
	b, _ := json.Marshal(input)
	return agentlog.ToolCall{Name: name, Input: b, HasResult: true, Result: result}
}

// TestProposeWork pins the event model of references: what the agent
// only read, explained or looked at is working state (below the
// default confidence); what its tool calls acted on is kept.
func TestProposeWork(t *testing.T) {
	s := &agentlog.Session{ID: "w1", Turns: make([]agentlog.Turn, 1)}
	s.Messages = []agentlog.Message{{Kind: agentlog.Typed, Turn: 0, Step: 0, Text: "Fix the retry bug, then reply on the review."}}
	s.Steps = []agentlog.Step{
		{Turn: 0, Text: "Reading `internal/queue/worker.go` and `internal/queue/retry.go`.", Calls: []agentlog.ToolCall{
			propCall("Read", map[string]string{"file_path": "/repo/internal/queue/worker.go"}, "…"),
			propCall("Bash", map[string]string{"command": "git log --oneline -3"}, "a1b2c3d fix: retry\n9f8e7d6 feat: queue"),
			propCall("Bash", map[string]string{"command": "gh pr view 41"}, "title: old"),
		}},
		{Turn: 0, Text: "The session id `5e6f7a8b` and the example hash `abc1234` are not commits.", Calls: []agentlog.ToolCall{
			propCall("Edit", map[string]string{"file_path": "/repo/internal/queue/retry.go", "old_string": "a", "new_string": "b"}, "ok"),
			propCall("Bash", map[string]string{"command": "git mv docs/old.md docs/queue.md && git commit -m \"move deadbee1\""}, "[fix/retry-cap 77aa88b] move"),
			propCall("Bash", map[string]string{"command": "gh api repos/o/r/pulls/42/comments/123456789/replies -f body=done"}, "{}"),
			propCall("Bash", map[string]string{"command": "cd internal && sed -i 's/3/5/' queue/limits.go"}, ""),
		}},
		{Turn: 0, Text: "Done: changed internal/queue/retry.go:88 (see `internal/queue/worker.go:12` for the caller), moved docs/queue.md, raised the cap in `internal/queue/limits.go`, committed 77aa88b and a1b2c3d on fix/retry-cap, replied on #42 (comment 123456789); PR #41 and branch feature/old-idea are unrelated. Section 2 explains it."},
	}
	p := Propose(s, ProposeOptions{MinConfidence: DefaultMinConfidence})
	got := map[string]string{}
	for _, c := range p.Candidates {
		if c.Class == fixture.Reference {
			got[c.Literal] = c.Rule
		}
	}
	for _, want := range []string{"internal/queue/retry.go", "docs/queue.md", "internal/queue/limits.go", "77aa88b", "a1b2c3d", "fix/retry-cap", "#42", "123456789"} {
		found := false
		for lit := range got {
			if strings.HasPrefix(lit, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing %q in %v", want, got)
		}
	}
	for _, not := range []string{"internal/queue/worker.go", "internal/queue/worker.go:12", "5e6f7a8b", "abc1234", "PR #41", "feature/old-idea", "branch feature/old-idea", "Section 2", "deadbee1"} {
		if r, ok := got[not]; ok {
			t.Errorf("proposed %q (%s): only read, explained or looked at", not, r)
		}
	}
	// A file and its file:line are one reference: retry.go is proposed
	// once.
	n := 0
	for lit := range got {
		if strings.Contains(lit, "retry.go") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("retry.go proposed %d times in %v, want once", n, got)
	}
}

// TestProposeWorkPersonAndScope pins the person-typed side: a path a
// person types is kept whatever the agent did with it; a scope
// deferral, a dislike asked as a question, an objection setting a
// default and a test-first phrasing are constraints; a decision to keep
// something is a commitment without "I'll".
func TestProposeWorkPersonAndScope(t *testing.T) {
	s := &agentlog.Session{ID: "w2", Turns: make([]agentlog.Turn, 5)}
	s.Messages = []agentlog.Message{
		{Kind: agentlog.Typed, Turn: 0, Step: 0, Text: "Look at pkg/limits/config.go, but let's do the rename as a separate PR."},
		{Kind: agentlog.Typed, Turn: 1, Step: 1, Text: "I don't like the name pending, any other suggestions?"},
		{Kind: agentlog.Typed, Turn: 2, Step: 2, Text: "Should we skip the upload by default?"},
		{Kind: agentlog.Typed, Turn: 3, Step: 3, Text: "Create a test that reproduces it and fails before fixing it."},
	}
	s.Steps = []agentlog.Step{
		{Turn: 0, Text: "Noted.", Calls: []agentlog.ToolCall{propCall("Read", map[string]string{"file_path": "/r/pkg/limits/config.go"}, "")}},
		{Turn: 1, Text: "How about queued?"},
		{Turn: 2, Text: "Yes."},
		{Turn: 3, Text: "The old helper is still used by two callers. Leaving it in place is correct."},
	}
	p := Propose(s, ProposeOptions{MinConfidence: DefaultMinConfidence})
	want := map[string]string{
		"pkg/limits/config.go":                                        "reference/path",
		"let's do the rename as a separate PR":                        "constraint/prohibition/defer",
		"I don't like the name pending, any other suggestions":        "constraint/prohibition/dislike",
		"Should we skip the upload by default?":                       "constraint/objection/default",
		"Create a test that reproduces it and fails before fixing it": "constraint/obligation/test-first",
		"Leaving it in place is correct":                              "commitment/keep-decision",
	}
	for lit, rule := range want {
		ok := false
		for _, c := range p.Candidates {
			if strings.HasSuffix(c.Literal, lit) && c.Rule == rule {
				ok = true
			}
		}
		if !ok {
			t.Errorf("no %s %q in %+v", rule, lit, p.Candidates)
		}
	}
}

// FuzzProposeWork feeds arbitrary tool inputs and results to the work
// index: it must not panic, and a file_path it reads from an input that
// encoding/json decodes as an object with a string file_path (and no
// member that folds to it) is the one encoding/json reads, for valid
// UTF-8.
func FuzzProposeWork(f *testing.F) {
	f.Add(`{"file_path":"/r/a.go","old_string":"x"}`, "Edit", "ok")
	f.Add(`{"command":"git commit -m \"x\" && sed -i 's/a/b/' f.go > out.txt"}`, "Bash", "[main 1a2b3c4] x")
	f.Add(`{"command":"gh api repos/o/r/pulls/7/comments/123456789/replies -f body=x"}`, "Bash", "")
	f.Add(`{"command":"git log --oneline"}`, "Bash", "* 0123abc a\n| 4567def b\n9f8e7d6..a1b2c3d main -> main")
	f.Add(`not json`, "Write", "")
	f.Fuzz(func(t *testing.T, input, name, result string) {
		s := &agentlog.Session{Steps: []agentlog.Step{{Calls: []agentlog.ToolCall{{Name: name, Input: []byte(input), HasResult: true, Result: result}}}}}
		w := propWorkOf(s)
		_ = w.changed(input)
		_ = w.commit(result)
		file, _, _ := propCallInput([]byte(input))
		var m map[string]any
		if !utf8.ValidString(input) || json.Unmarshal([]byte(input), &m) != nil {
			return // invalid UTF-8: encoding/json reads U+FFFD, the scanner declines
		}
		fp, ok := m["file_path"].(string)
		if !ok || m["notebook_path"] != nil {
			return
		}
		for k := range m {
			if k != "file_path" && strings.EqualFold(k, "file_path") {
				return
			}
		}
		if file != fp {
			t.Errorf("file_path %q, encoding/json reads %q", file, fp)
		}
	})
}

// TestProposeWorkRefused pins that a file change the person refused
// still names a file of the work (the person stopped the agent to
// redirect it), and that a change that failed does not.
func TestProposeWorkRefused(t *testing.T) {
	refused := propCall("Edit", map[string]string{"file_path": "/repo/cmd/cli/agent_test.go"}, "Error: "+propRefusedResult+" The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "+propRejectMarker+"\nbranch and PR.")
	refused.IsError = true
	failed := propCall("Edit", map[string]string{"file_path": "/repo/cmd/cli/setup.go"}, "<tool_use_error>String to replace not found in file.</tool_use_error>")
	failed.IsError = true
	w := propWorkOf(&agentlog.Session{Steps: []agentlog.Step{{Calls: []agentlog.ToolCall{refused, failed}}}})
	if !w.changed("agent_test.go") {
		t.Error("the refused edit's file is not a file of the work")
	}
	if w.changed("setup.go") {
		t.Error("the failed edit's file is a file of the work")
	}
}

// TestProposeHexKind pins that a hex id is asked for as what the word
// before it names, and as a commit otherwise.
func TestProposeHexKind(t *testing.T) {
	for _, c := range []struct{ s, kind string }{
		{"Found entire-checkpoint: 3a1f9c2b7d4e in the trailer.", "checkpoint id"},
		{`the state file has "session_id": "a6c3cac2f45b" now`, "session id"},
		{"Rewound to checkpoint `e3402324506f` as asked.", "checkpoint id"},
		{"Committed as `6984823`.", "commit"},
		{"git bisect says commit ab70bc2 is the first bad one.", "commit"},
	} {
		refs := propReferencesIn(c.s, "assistant", nil)
		if len(refs) != 1 || refs[0].kind != c.kind || !strings.HasPrefix(refs[0].probe, "Which "+c.kind+" ") {
			t.Errorf("%q: %+v, want one %s", c.s, refs, c.kind)
		}
	}
}
