package selection

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// TestProposeSteer pins the steer rule (propose_steer.go) on follow-up
// messages: what it proposes and at which confidence (0.5 for a
// standing want, propSteerStanding; 0.4 else), or that it proposes
// nothing, and why. Each case is a session of a first prompt and the
// message at turn 2 (or the message alone at turn 1).
func TestProposeSteer(t *testing.T) {
	const first = "Add a retry to the webhook sender."
	tests := []struct {
		name string
		turn int
		text string
		want string // "" when the rule proposes nothing
		conf float64
	}{
		{"a correction", 2, "I think it's fine to run the tests in parallel, can you revert that?", "I think it's fine to run the tests in parallel, can you revert that?", 0.4},
		{"a proposal as a question, with a reference", 2, "why not add .entire/.gitignore?", "why not add .entire/.gitignore?", 0.5},
		{"a decision about the output", 2, "let's drop the '-' before each commit", "let's drop the '-' before each commit", 0.4},
		{"the directive sentence over an opening remark", 2, "OK, that's part of it. I'd like all those assertions replaced with a single comparison.", "I'd like all those assertions replaced with a single comparison", 0.5},
		{"a reference in a sentence that steers", 2, "can we rebase our branch onto `soph/one-to-one` instead of main please?", "can we rebase our branch onto `soph/one-to-one` instead of main please?", 0.5},
		{"a standing want", 2, "i do also want to send the command flags and arguments", "i do also want to send the command flags and arguments", 0.5},
		{"a regret, not a rule", 2, "um, sorry, I should have mentioned this earlier - we did a status replacement for shadow file tracking", "um, sorry, I should have mentioned this earlier - we did a status replacement for shadow file tracking", 0.4},
		{"the first prompt is the task", 1, "Rewrite the exporter to stream rows instead of buffering them.", "", 0},
		{"an acknowledgement", 2, "yes, go ahead!", "", 0},
		{"a request for information", 2, "what does the retry budget default to?", "", 0},
		{"a question that asks, not proposes", 2, "how are the webhooks signed?", "", 0},
		{"a routine step", 2, "commit and push", "", 0},
		{"a failure reported", 2, "tests are failing again", "", 0},
		{"a lead-in alone", 2, "How about this logic:", "", 0},
		{"a reference and nothing asked", 2, "Rollback steps are in runbook section 9.4.", "", 0},
		{"a reminder", 2, "you forgot the retry budget", "", 0},
		{"a pasted review comment", 2, "The RunGitCommand function is defined in testenv.go but never called anywhere in the codebase. This is dead code that adds maintenance burden.", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []propMsg{{1, "user", first}, {1, "assistant", "Done."}}
			if tt.turn == 1 {
				msgs = []propMsg{{1, "user", tt.text}}
			} else {
				msgs = append(msgs, propMsg{tt.turn, "user", tt.text})
			}
			var got []ProposedItem
			for _, c := range Propose(propSession(msgs, tt.turn), ProposeOptions{}).Candidates {
				if c.Rule == "constraint/steer" {
					got = append(got, c)
				}
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("proposed %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Literal != tt.want || got[0].Turn != tt.turn || got[0].Confidence != tt.conf || got[0].Expect != "yes" {
				t.Fatalf("got %+v, want one steer %q at turn %d, confidence %.1f", got, tt.want, tt.turn, tt.conf)
			}
		})
	}
}

// TestProposeSteerConfidence pins which steering sentences the steer
// rule proposes at the default cut (a standing want) and which below it.
func TestProposeSteerConfidence(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want float64
	}{
		{"there should be only _one_ way for us to get the git author in this codebase", 0.5},
		{"in this repo we want to commit the local-dev state", 0.5},
		{"Adress them but be careful not to screw over existing functionality", 0.5},
		{"can you use a switch case instead of linked ifelse?", 0.5},
		{"should it be for all tests, not just integration tests?", 0.5},
		{"why can't we not just use real booleans?", 0.5},
		{"should we also log a warning in that block?", 0.4},
		{"should these be checkpoints?", 0.4},
		{"I should have mentioned this earlier", 0.4},
		{"okay, so I've got that test repo open, what do I need to test manually?", 0.4},
		{"But why do you think session logs shouldn't be overwritten?", 0.4},
		{"let's drop the '-' before each commit", 0.4},
		{"add a test that checks we are sending the full command", 0.4},
		{"is there any way to not repeat the whole error?", 0.5},
		{"any chance we can consolidate this code?", 0.5},
		{"is there a way to see the logs?", 0.4},
		{"using the git cli for this should be fine", 0.4},
		{"hmm, we should be seeing some lastInteractions come through now", 0.4},
		{"If the config has no Raw, this can panic and break integration tests instead of fixing them", 0.4},
		{"hmm, we seem to be missing checkpoints again, this explain is back to 19 instead of 26", 0.4},
	} {
		if got := propSteerConfidenceOf(c.lit, false); got != c.want {
			t.Errorf("%q: %.1f, want %.1f", c.lit, got, c.want)
		}
	}
}

// TestProposeSteerOnce pins that a message a constraint rule read gets
// no steer, and that the steer rule does not say again an earlier
// constraint in other words.
func TestProposeSteerOnce(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Ground rule: never modify anything under infra/terraform."},
		{2, "user", "Also, don't deploy to staging without asking me first."},
		{3, "user", "modify nothing under infra/terraform, ever"},
	}, 3)
	for _, c := range Propose(s, ProposeOptions{}).Candidates {
		if c.Rule == "constraint/steer" {
			t.Errorf("steer %+v", c)
		}
	}
}

// TestProposeAnswerText pins how an answer to the agent's
// multiple-choice question (Claude Code's AskUserQuestion result, as the
// dev set's logs write it) is read: the answers, one per line, without
// the agent's questions.
func TestProposeAnswerText(t *testing.T) {
	for _, c := range []struct {
		name string
		call agentlog.ToolCall
		want string
	}{
		{"a typed answer", agentlog.ToolCall{Name: "AskUserQuestion", HasResult: true,
			Result: `User has answered your questions: "Plan ready. What would you like to do next?"="the only way to suppress this warning is via flag, not prompt interactive". You can now continue with the user's answers in mind.`},
			"the only way to suppress this warning is via flag, not prompt interactive"},
		{"two answers, one quoting", agentlog.ToolCall{Name: "AskUserQuestion", HasResult: true,
			Result: `User has answered your questions: "Amend or new commit?"="New commit", "Which name?"="call it \"steps\"". You can now continue with the user's answers in mind.`},
			"New commit\ncall it \"steps\""},
		{"no answer", agentlog.ToolCall{Name: "AskUserQuestion", HasResult: true, Result: "The user doesn't want to proceed with this tool use."}, ""},
		{"no result", agentlog.ToolCall{Name: "AskUserQuestion"}, ""},
	} {
		if got := propAnswerText(c.call); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestProposeSteerAnswer pins that a rule the person typed as an answer
// to the agent's question is proposed, even in the first turn: an answer
// is never the task's first prompt.
func TestProposeSteerAnswer(t *testing.T) {
	s := propSession([]propMsg{{1, "user", "Add an option to disable the multi-session warning."}, {1, "assistant", "Plan ready."}}, 1)
	s.Steps[0].Calls = []agentlog.ToolCall{{Name: "AskUserQuestion", HasResult: true,
		Result: `User has answered your questions: "What would you like to do next?"="the only way to suppress this warning is via flag, not prompt interactive". You can now continue with the user's answers in mind.`}}
	var got []string
	for _, c := range propConstraints(s, ProposeOptions{}) {
		got = append(got, fmt.Sprintf("%d %s %s", c.Turn, c.Rule, c.Literal))
	}
	want := []string{"1 constraint/steer/answer the only way to suppress this warning is via flag, not prompt interactive"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestProposeSteerRefusal pins what the steer rule makes of the words a
// person typed when refusing a tool call (Claude Code's result, as the
// dev set's logs write it): a redirection is proposed at the default cut
// even when short, a report of what the person sees below it, and the
// text Claude Code writes when the person chose to clarify the agent's
// questions is not the person's. Of several sentences the one that
// directs is proposed.
func TestProposeSteerRefusal(t *testing.T) {
	for _, c := range []struct {
		said string
		want string // "" when nothing is proposed
		conf float64
	}{
		{"too slow.", "too slow", 0.5},
		{"pull rebase first", "pull rebase first", 0.5},
		{"branch and PR.", "branch and PR", 0.5},
		{"main is clean", "main is clean", 0.4},
		{"I'm running `./entire status` after a build", "I'm running `./entire status` after a build", 0.4},
		// An imperative after a remark is what the refusal says to do;
		// a routine step after one is not.
		{"we do have that field on the other sessions too. Make one implementation for both agents, the simplest possible", "Make one implementation for both agents, the simplest possible", 0.5},
		{"huh, that's what my expectation says. Try again.", "huh, that's what my expectation says", 0.4},
		{propClarifyMarker + "\n    This means they may have additional information, context or questions for you.", "", 0},
	} {
		s := propSession([]propMsg{{1, "user", "Run the integration tests and fix what fails."}, {1, "assistant", "Running them."}}, 1)
		s.Steps[0].Calls = []agentlog.ToolCall{{Name: "Bash", HasResult: true, IsError: true,
			Result: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). " + propRejectMarker + "\n" + c.said}}
		got := propConstraints(s, ProposeOptions{})
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("%q: proposed %+v", c.said, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Literal != c.want || got[0].Confidence != c.conf || got[0].Rule != "constraint/steer/refusal" {
			t.Errorf("%q: got %+v, want one steer %q at %.1f", c.said, got, c.want, c.conf)
		}
	}
}

// TestProposeSteerQueued pins that a prompt the person typed while the
// agent worked on the first one is read as a follow-up: it is not the
// task statement, whatever its turn.
func TestProposeSteerQueued(t *testing.T) {
	s := propSession([]propMsg{{1, "user", "Standardise the spelling to US English in the docs."}, {1, "assistant", "Working on it."}}, 1)
	s.Messages = append(s.Messages, agentlog.Message{Kind: agentlog.Queued, Turn: 0, Step: 1, Text: "can scope this to the files of this PR only"})
	var got []string
	for _, c := range propConstraints(s, ProposeOptions{MinConfidence: 0.4}) {
		got = append(got, fmt.Sprintf("%d %s %s", c.Turn, c.Rule, c.Literal))
	}
	want := []string{"1 constraint/steer can scope this to the files of this PR only"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestProposeSteerProbe pins the steer rule's probe for each kind of
// sentence: a question asked, a request (an imperative, a polite
// question, a refusal's words that direct) and a report. A review of 361
// drafted probes found questions and reports drafted as requests.
func TestProposeSteerProbe(t *testing.T) {
	const (
		asked   = "Did the user raise this question, which later work must respect: “%s”?"
		request = "Does this request from the user still hold: “%s”?"
		said    = "Did the user say this, which later work must respect: “%s”?"
		suggest = "Did the user suggest this, which later work must respect: “%s”?"
	)
	for _, c := range []struct {
		lit     string
		refusal bool
		form    string
	}{
		{"should we move paths.EntireSessionID too?", false, asked},
		{"why not adding .entire/.gitignore?", false, asked},
		{"how do we detect other sessions", false, asked},
		{"can we maybe refactor that too?", false, request},
		{"yes, then please go back and change your replies to include the fix sha", false, request},
		{"Lets do the implementation too", false, request},
		{"rebase off parent, push", false, request},
		{"too slow", true, request},
		{"too slow", false, said},
		{"we have an import cycle now", false, said},
		{"running `mise run test:ci` shows a bunch of errors in the integration tests", false, said},
		{"How about instead we keep the old name and add an alias?", false, suggest},
		{"hmm, what about a flag instead?", false, suggest},
		{"what about the other sessions?", false, asked},
	} {
		if got, want := propSteerProbe(c.lit, c.refusal), fmt.Sprintf(c.form, c.lit); got != want {
			t.Errorf("%q (refusal %v): %s, want %s", c.lit, c.refusal, got, want)
		}
	}
}
