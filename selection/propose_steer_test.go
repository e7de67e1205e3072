package selection

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// TestProposeSteer pins the steer rule (propose_steer.go) on follow-up
// messages: what it proposes at confidence 0.4, or that it proposes
// nothing, and why. Each case is a session of a first prompt and the
// message at turn 2 (or the message alone at turn 1).
func TestProposeSteer(t *testing.T) {
	const first = "Add a retry to the webhook sender."
	tests := []struct {
		name string
		turn int
		text string
		want string // "" when the rule proposes nothing
	}{
		{"a correction", 2, "I think it's fine to run the tests in parallel, can you revert that?", "I think it's fine to run the tests in parallel, can you revert that?"},
		{"a proposal as a question, with a reference", 2, "why not add .entire/.gitignore?", "why not add .entire/.gitignore?"},
		{"a decision about the output", 2, "let's drop the '-' before each commit", "let's drop the '-' before each commit"},
		{"the directive sentence over an opening remark", 2, "OK, that's part of it. I'd like all those assertions replaced with a single comparison.", "I'd like all those assertions replaced with a single comparison"},
		{"a reference in a sentence that steers", 2, "can we rebase our branch onto `soph/one-to-one` instead of main please?", "can we rebase our branch onto `soph/one-to-one` instead of main please?"},
		{"the first prompt is the task", 1, "Rewrite the exporter to stream rows instead of buffering them.", ""},
		{"an acknowledgement", 2, "yes, go ahead!", ""},
		{"a request for information", 2, "what does the retry budget default to?", ""},
		{"a question that asks, not proposes", 2, "how are the webhooks signed?", ""},
		{"a routine step", 2, "commit and push", ""},
		{"a failure reported", 2, "tests are failing again", ""},
		{"a lead-in alone", 2, "How about this logic:", ""},
		{"a reference and nothing asked", 2, "Rollback steps are in runbook section 9.4.", ""},
		{"a reminder", 2, "you forgot the retry budget", ""},
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
			if len(got) != 1 || got[0].Literal != tt.want || got[0].Turn != tt.turn || got[0].Confidence != propSteerConfidence || got[0].Expect != "yes" {
				t.Fatalf("got %+v, want one steer %q at turn %d", got, tt.want, tt.turn)
			}
		})
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
	for _, c := range Propose(s, ProposeOptions{}).Candidates {
		if c.Class == fixture.Constraint {
			got = append(got, fmt.Sprintf("%d %s %s", c.Turn, c.Rule, c.Literal))
		}
	}
	want := []string{"1 constraint/steer the only way to suppress this warning is via flag, not prompt interactive"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
