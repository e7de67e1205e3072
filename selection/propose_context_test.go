package selection

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// TestProposePickOptions pins how a pick is resolved against the options
// the agent listed, in the four ways agents on the dev set's sessions
// list them: the last list when a message has two, an option written
// "Option N" for "option N"; and that a pick naming no listed option is
// left alone.
func TestProposePickOptions(t *testing.T) {
	numbered := "Review done.\n\n#### 1. Subtle coupling in the guard (minor)\n\ntext\n\n#### 2. Carry-forward is intentional\n\n#### 5. Missing test: partial failure\n\nSuggestions are mostly about points 1, 2."
	labelled := "Two fix options:\n\n**Option A**: Set `BaseCommit` when creating warning state\n- simpler\n\n**Option B**: Initialize missing fields when the conflict resolves\n\nWhich approach do you prefer?"
	heading := "### Option 1\nWrapper in the committed file\n\n### Option 2: Local dev requires removing hooks\n"
	table := "Remaining:\n\n| # | Issue |\n|---|-------|\n| 2 | Hash prefix collision guard |\n| 4 | Dedup migrate-and-persist |\n"
	wide := "| # | Comment | Location | Issue |\n|---|---|---|---|\n| 5 | 2734651404 | explain.go:486 | O(N*M) isAncestorOf performance |\n| 7 | 2734662587 | explain.go:405 | Unnecessary wrapper runExplainDefault |\n"
	twoLists := "Both are active because:\n1. Both have state files\n2. Both have a base commit\n\n**Possible fixes:**\n\n1. **Check if condensed but no new work**\n2. **Require the current-session file**\n\nWhich approach do you prefer?"
	inline := "Remaining tasks: #2 (filter stale sessions), #3 (fix log routing), #4 (investigate reset cleanup)."
	for _, c := range []struct {
		agent, pick string
		want        []string // label: text; nil when unresolved
	}{
		{numbered, "do 1,2 and 5", []string{"1: Subtle coupling in the guard (minor)", "2: Carry-forward is intentional", "5: Missing test: partial failure"}},
		{labelled, "Option A", []string{"A: Set `BaseCommit` when creating warning state"}},
		{labelled, "I like option b", []string{"B: Initialize missing fields when the conflict resolves"}},
		{heading, "I like Option 1, from an enabling perspective:", []string{"1: Wrapper in the committed file"}},
		{table, "all four", []string{"2: Hash prefix collision guard", "4: Dedup migrate-and-persist"}},
		{inline, "yeah let's tackle 2 and 3", []string{"2: filter stale sessions", "3: fix log routing"}},
		{twoLists, "let's go with option 1", []string{"1: Check if condensed but no new work"}},
		{twoLists, "both", []string{"1: Check if condensed but no new work", "2: Require the current-session file"}},
		{heading + "\n**Option 1** - commit the wrapper\n", "1", []string{"1: commit the wrapper"}},
		{wide, "skip 5, 7 and do the rest", []string{"5: O(N*M) isAncestorOf performance", "7: Unnecessary wrapper runExplainDefault"}},
		{numbered, "let's fix 3 too", nil},
		{"No options here, just a report.", "do 1", nil},
	} {
		var got []string
		for _, o := range propPickOptions(c.agent, c.pick) {
			got = append(got, o.label+": "+o.text)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || (got == nil) != (c.want == nil) {
			t.Errorf("%q: got %q, want %q", c.pick, got, c.want)
		}
	}
	long := "1. " + strings.Repeat("word ", 40)
	if o := propOptions(long); len(o) != 1 || utf8.RuneCountInString(o[0].text) > propOptionMaxRunes+1 || !strings.HasSuffix(o[0].text, "…") {
		t.Errorf("a long option: %+v", o)
	}
}

// TestProposePickProbe pins the probe drafted for a pick in a session:
// the options' words, so a judge can find the choice in a summary; the
// literal stays the person's words.
func TestProposePickProbe(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Review the branch."},
		{1, "assistant", "Found three things:\n\n1. Unchecked error in the fetch\n2. Missing timeout on the push\n3. Dead code in cleanup.go\n\nWhich should I fix?"},
		{2, "user", "do 1 and 3"},
	}, 2)
	got := propConstraints(s, ProposeOptions{})
	want := "Does the user's choice still hold: of the options the agent listed, 1 (“Unchecked error in the fetch”) and 3 (“Dead code in cleanup.go”)?"
	if len(got) != 1 || got[0].Literal != "do 1 and 3" || got[0].Probe != want || got[0].Expect != "yes" {
		t.Errorf("got %+v, want the pick with probe %q", got, want)
	}
}

// FuzzProposePickOptions checks that reading an agent's options and
// resolving a pick against them never panics, and that every option
// resolved is one the agent's message lists.
func FuzzProposePickOptions(f *testing.F) {
	f.Add("1. one\n2. two", "do 1 and 2")
	f.Add("**Option A**: x\n**Option B**: y", "Option B")
	f.Add("| 3 | z |", "all of them")
	f.Add("#2 (a) #3 (b)", "2")
	f.Fuzz(func(t *testing.T, agent, pick string) {
		opts := propOptions(agent)
		for _, o := range propPickOptions(agent, pick) {
			found := false
			for _, k := range opts {
				found = found || k == o
			}
			if !found {
				t.Fatalf("resolved %+v, not among %+v", o, opts)
			}
		}
	})
}

// TestProposeListContext pins that a constraint naming items of the
// agent's list keeps its probe with the items' words after it.
func TestProposeListContext(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Go through the review comments."},
		{1, "assistant", "| # | Comment | Issue |\n|---|---|---|\n| 5 | 2734651404 | O(N*M) performance |\n| 7 | 2734662587 | Unnecessary wrapper |\n| 8 | 2734662589 | Exported unused functions |"},
		{2, "user", "skip 5, 7, 8 and do the rest"},
	}, 2)
	var got []string
	for _, c := range Propose(s, ProposeOptions{}).Candidates {
		if c.Class == fixture.Constraint && c.Literal == "skip 5, 7, 8 and do the rest" {
			got = append(got, c.Probe)
		}
	}
	want := "In the agent's list just before: 5 (“O(N*M) performance”), 7 (“Unnecessary wrapper”) and 8 (“Exported unused functions”)."
	if len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("probes %q, want one ending %q", got, want)
	}
}

// TestProposeReferent pins that a short constraint pointing back with a
// pronoun gets the agent's offer or question it answers, and nothing
// when the agent had only reported.
func TestProposeReferent(t *testing.T) {
	for _, c := range []struct{ agent, want string }{
		{"Found the cause. I'll add a Source field to track where sessions came from.", " The agent had just said: “I'll add a Source field to track where sessions came from”."},
		{"Fixed. All tests pass!", ""},
	} {
		s := propSession([]propMsg{{1, "user", "Find out why the hook fails."}, {1, "assistant", c.agent}, {2, "user", "no, that is overkill"}}, 2)
		var got []string
		for _, it := range Propose(s, ProposeOptions{}).Candidates {
			if it.Literal == "no, that is overkill" {
				got = append(got, it.Probe)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "Does this rule from the user still hold: “no, that is overkill”?") || !strings.HasSuffix(got[0], "?"+c.want) {
			t.Errorf("after %q: probes %q, want one ending %q", c.agent, got, "?"+c.want)
		}
	}
}

// TestProposeLine pins that a candidate carries the log line of the
// message it was found in: a typed prompt's, the agent's step's.
func TestProposeLine(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Ground rule: never push to main."},
		{1, "assistant", "Got it - I won't amend commits going forward."},
	}, 1)
	for i := range s.Messages {
		s.Messages[i].Line = 3
	}
	for i := range s.Steps {
		s.Steps[i].Line = 9
	}
	got := map[string]int{}
	for _, c := range Propose(s, ProposeOptions{}).Candidates {
		got[c.Role] = c.Line
	}
	if got["user"] != 3 || got["assistant"] != 9 {
		t.Errorf("lines by role %v, want user 3, assistant 9", got)
	}
}
