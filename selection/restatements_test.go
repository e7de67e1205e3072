package selection

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// readRestateSession reads one hand-made Claude Code session from
// testdata/restate.
func readRestateSession(t *testing.T, name string) *agentlog.Session {
	t.Helper()
	s, err := agentlog.Open(filepath.Join("testdata", "restate", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantRestatement is one expected flag: the message's uuid, the cue ("" for
// the near-verbatim rule) and the earlier message's uuid ("" when none).
type wantRestatement struct {
	uuid, cue, earlier string
}

// The hand-made sessions in testdata/restate (written for this test, in
// Claude Code's format): each message's uuid says what it is, and the
// reason says why it is or is not a restatement.
var restateCases = []struct {
	file   string
	reason string
	want   []wantRestatement
	// relaxed are the flags with the compaction condition relaxed, when
	// they differ from want.
	relaxed []wantRestatement
}{
	{"forgot_steps", `"you forgot to perform some steps" after the summary dropped the ground rules; a second "you forgot" about gofmt, which no typed message asked for; a system reminder saying "don't forget" is injected, never counted`,
		[]wantRestatement{{"forgot", "you forgot", "rules"}, {"forgot-gofmt", "you forgot", ""}}, nil},
	{"dont_forget_atdd", `"Don't forget to maintain proper ATDD" restates the first prompt's way of working`,
		[]wantRestatement{{"atdd-again", "don't forget", "atdd"}}, nil},
	{"near_verbatim", `"never push directly to main, open a pull request from a feature branch" repeats the first prompt without a cue; "run the linter again" asks for the same work again and "commit this" is two words`,
		[]wantRestatement{{"repeat", "", "rule"}}, nil},
	{"near_verbatim_cjk", `the same rule in Japanese, written without spaces, said again in another order after the compaction (as near_verbatim is in English): read as character pairs, the two share most of their words (a new user's trial found no Japanese or Chinese repeat flagged)`,
		[]wantRestatement{{"repeat", "", "rule"}}, nil},
	{"variant_cjk", `"build everything and tell me the results" after "test everything and …", in Japanese: one word swapped asks for a variant, as in English (a re-check trial found it flagged)`,
		nil, nil},
	{"told_you", `"I told you …", "As I said, …" and "Again: …" each restate one of three instructions`,
		[]wantRestatement{{"told", "I told you", "tabs"}, {"said", "as I said", "api"}, {"again-colon", "again:", "deps"}}, nil},
	{"pasted_again", `"try again." in a pasted git error (fenced and not), "remove the tests again" meaning undo, cue phrases inside pasted logs and a quoted line, the person's own "I forgot to mention", "do you remember …?", command output, and an accepted plan (the agent's words) saying "Don't forget …": none restates`,
		nil, nil},
	{"resend_after_hook", `the same prompt sent again after a hook blocked it before any reply is a resend`,
		nil, nil},
	{"repeat_lookalikes", `after the compaction: the logger instruction said twice restates nothing the compaction dropped (the relaxed figure counts it); the release instruction copied and edited (windows added) is a revision; "now api/refunds.go: port its handler …" after "… api/orders.go …" is the next of a series; "… the canary cluster" after "… the staging cluster" is a variant`,
		nil, []wantRestatement{{"logger-again", "", "logger"}}},
	{"window", `"Remember to use UTC" seven turns after the compaction is outside the default window of five turns`,
		nil, []wantRestatement{{"late", "remember to", "utc"}}},
	{"no_compaction", `"don't forget to update docs/cli.md" follows no compaction: only the relaxed figure counts it`,
		nil, []wantRestatement{{"docs-again", "don't forget", "docs-rule"}}},
}

func checkRestatements(t *testing.T, s *agentlog.Session, got []Restatement, want []wantRestatement) {
	t.Helper()
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.Message.UUID)
	}
	var wantIDs []string
	for _, w := range want {
		wantIDs = append(wantIDs, w.uuid)
	}
	if !slices.Equal(gotIDs, wantIDs) {
		for _, r := range got {
			t.Logf("flagged %s cue=%q earlier=%s sim=%.2f common=%v", r.Message.UUID, r.Cue, r.Earlier.UUID, r.Similarity, r.Common)
		}
		t.Fatalf("flagged %v, want %v", gotIDs, wantIDs)
	}
	for i, w := range want {
		r := got[i]
		if r.Cue != w.cue {
			t.Errorf("%s: cue %q, want %q", w.uuid, r.Cue, w.cue)
		}
		if w.earlier != "" && (!r.HasEarlier || r.Earlier.UUID != w.earlier) {
			t.Errorf("%s: earlier %q (has %v), want %q", w.uuid, r.Earlier.UUID, r.HasEarlier, w.earlier)
		}
		m := s.Messages[r.Message.Index]
		if m.UUID != r.Message.UUID || m.Line != r.Message.Line || m.Turn != r.Message.Turn || m.Text != r.Message.Text {
			t.Errorf("%s: evidence %+v does not match message %d", w.uuid, r.Message, r.Message.Index)
		}
	}
}

func TestFindRestatements(t *testing.T) {
	for _, c := range restateCases {
		t.Run(c.file, func(t *testing.T) {
			s := readRestateSession(t, c.file)
			t.Log(c.reason)
			checkRestatements(t, s, FindRestatements(s, DefaultRepeatWindow), c.want)
			relaxed := c.relaxed
			if relaxed == nil {
				relaxed = c.want
			}
			checkRestatements(t, s, findRestatements(s, RepeatWindow{}, true), relaxed)
		})
	}
}

// TestRestatementEvidence pins the positions a reviewer reads, from the
// hand-made session: the compaction is its 7th record (after the first
// two turns' six records), the reminder the 13th.
func TestRestatementEvidence(t *testing.T) {
	s := readRestateSession(t, "dont_forget_atdd")
	got := FindRestatements(s, DefaultRepeatWindow)
	if len(got) != 1 {
		t.Fatalf("got %d restatements, want 1", len(got))
	}
	r := got[0]
	c := s.Compactions[0]
	if r.Compaction != 0 || r.CompactionLine != c.Line || r.CompactionUUID != c.UUID || r.CompactionTurn != c.Turn || r.CompactionStep != c.Step {
		t.Errorf("compaction evidence %d/%d/%q, want 0/%d/%q", r.Compaction, r.CompactionLine, r.CompactionUUID, c.Line, c.UUID)
	}
	// Turns: atdd 0, refund-policy 1 (the compaction is in it), endpoint 2,
	// atdd-again 3. Steps: two before the compaction, one after it.
	if r.TurnsAfter != 2 || r.StepsAfter != 1 {
		t.Errorf("distances %d turns, %d steps; want 2 and 1", r.TurnsAfter, r.StepsAfter)
	}
	if r.Message.Line != 13 || r.Earlier.Line != 1 || r.Earlier.Turn != 0 {
		t.Errorf("lines %d and %d (earlier turn %d), want 13 and 1 (turn 0)", r.Message.Line, r.Earlier.Line, r.Earlier.Turn)
	}
	if r.Sentence == "" || r.Score < 1 {
		t.Errorf("sentence %q, score %v: want the cue's sentence and a score of at least 1", r.Sentence, r.Score)
	}
}

func TestRestatementWindowSteps(t *testing.T) {
	s := readRestateSession(t, "told_you")
	// "told" comes one step after the compaction, "said" two, "again-colon" three.
	got := FindRestatements(s, RepeatWindow{Steps: 2})
	var ids []string
	for _, r := range got {
		ids = append(ids, r.Message.UUID)
	}
	if want := []string{"told", "said"}; !slices.Equal(ids, want) {
		t.Errorf("with a window of two steps: %v, want %v", ids, want)
	}
}

// ExampleFindRestatements reads a hand-made Claude Code session in which
// the person reminds the agent, after a compaction, of the way of
// working set in the first prompt. Its score is 1 for the cue plus the
// share of its content words (4 of 8: acceptanc, atdd, com, endpoint,
// first, maintain, proper, test) that the first prompt has.
func ExampleFindRestatements() {
	s, err := agentlog.Open(filepath.Join("testdata", "restate", "dont_forget_atdd.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range FindRestatements(s, DefaultRepeatWindow) {
		fmt.Printf("line %d, %d turns and %d step after the compaction at line %d\n", r.Message.Line, r.TurnsAfter, r.StepsAfter, r.CompactionLine)
		fmt.Printf("cue %q in %q\n", r.Cue, r.Sentence)
		fmt.Printf("restates line %d: %q\n", r.Earlier.Line, r.Earlier.Text)
		fmt.Printf("shared words %v, score %.2f\n", r.Common, r.Score)
	}
	// Output:
	// line 13, 2 turns and 1 step after the compaction at line 7
	// cue "don't forget" in "Don't forget to maintain proper ATDD — the acceptance test for the endpoint comes first."
	// restates line 1: "We do ATDD on this project: write the failing acceptance test in features/ first, then the code that makes it pass."
	// shared words [acceptanc atdd first test], score 1.50
}

// TestRestatementQueued pins a reminder typed while the agent worked
// (testdata/restate/queued_reminder.jsonl, written for the test): Claude
// Code logs it only as queue-operation records, and agentlog reads it as
// a Queued message of the turn it was sent in. "you forgot: …" after the
// compaction restates the first prompt's rule; the evidence names the
// enqueue record's line, the queued message having no uuid.
func TestRestatementQueued(t *testing.T) {
	s := readRestateSession(t, "queued_reminder")
	got := FindRestatements(s, DefaultRepeatWindow)
	if len(got) != 1 {
		t.Fatalf("got %d restatements, want 1: %+v", len(got), got)
	}
	r := got[0]
	if r.Cue != "you forgot" || !r.HasEarlier || r.Earlier.UUID != "rule" || r.Message.Line != 7 || r.Message.Turn != 1 {
		t.Errorf("cue %q, earlier %q (%v), message line %d turn %d; want \"you forgot\", \"rule\", line 7, turn 1", r.Cue, r.Earlier.UUID, r.HasEarlier, r.Message.Line, r.Message.Turn)
	}
	if s.Messages[r.Message.Index].Kind != agentlog.Queued {
		t.Errorf("flagged a %s message, want the queued one", s.Messages[r.Message.Index].Kind)
	}
}
