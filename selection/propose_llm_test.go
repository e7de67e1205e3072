package selection

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/judge"
)

// llmSession is a small session for the LLM proposer's tests.
func llmSession(first string) *agentlog.Session {
	return propSession([]propMsg{
		{1, "user", first},
		{1, "assistant", "Understood."},
		{2, "user", "Follow docs/plan.md for the rest.\n```\nFAIL: pasted\n```"},
	}, 2)
}

// llmScript is a Backend that answers every prompt with reply, counting
// calls, or fails with err.
type llmScript struct {
	reply string
	err   error
	calls int
}

func (b *llmScript) Name() string { return "script/test" }

func (b *llmScript) Complete(_ context.Context, _ string) (string, error) {
	b.calls++
	return b.reply, b.err
}

// TestLLMPrompt: the prompt is the documented template and the session's
// typed and assistant lines, pasted output left out, line breaks shown.
func TestLLMPrompt(t *testing.T) {
	got := LLMProposer{}.Prompt(llmSession("never commit to main"))
	want := LLMPrompt + "[turn 1] user: never commit to main\n[turn 1] assistant: Understood.\n[turn 2] user: Follow docs/plan.md for the rest.\n"
	if got != want {
		t.Errorf("prompt tail:\n%s\nwant\n%s", got[len(LLMPrompt)-20:], want[len(LLMPrompt)-20:])
	}
}

// TestParseLLMReply pins what a reply must be, one case a rule, each
// error naming what was wrong.
func TestParseLLMReply(t *testing.T) {
	s := llmSession("never commit to main")
	item := func(fields string) string { return `{"items": [{` + fields + `}]}` }
	full := `"class": "constraint", "turn": 1, "literal": "never commit to main", "probe": "May it?", "expect": "no", "confidence": 0.9`
	tests := []struct {
		reply, err, reason string
	}{
		{item(full), "", "a complete item"},
		{"```json\n" + item(full) + "\n```", "", "a fenced reply is allowed"},
		{`{"items": []}`, "", "no items"},
		{"", `empty reply, want one JSON object {"items": [...]}`, "empty"},
		{"Sure! Here they are:\n" + item(full) + "\nI hope this helps.", "", "prose around the one object is passed over (a new user's trial)"},
		{"Either " + item(full) + " or " + `{"items": []}`, `the reply holds 2 different objects with the field "items" (reply starts "Either {\"items\": [{\"class\": \"constraint…")`, "two different objects: which is meant cannot be told"},
		{item(full) + "\n\nLet me know if you need anything else.", "", "prose after the object is passed over, as before it (a new user's trial)"},
		{item(full) + " " + item(full), "", "the same object twice is one"},
		{`{"items": [], "items": [{` + full + `}]}`, `"items" is given twice in one object, and tally will not guess which is meant (reply starts "{\"items\": [], \"items\": [{\"class\": \"cons…")`, "a field given twice (a new user's trial)"},
		{item(full + `, "confidence": 0.1`), `"confidence" is given twice in one object, and tally will not guess which is meant (reply starts "{\"items\": [{\"class\": \"constraint\", \"tur…")`, "an item's field given twice"},
		{`{"item": []}`, `not one JSON object of the form {"items": [...]}: json: unknown field "item" (reply starts "{\"item\": []}")`, "an unknown field"},
		{`{}`, `no "items" list`, "no items key"},
		{item(strings.Replace(full, `"class": "constraint", `, "", 1)), "items[0].class: missing", "a missing class"},
		{item(strings.Replace(full, `"constraint"`, `"rule"`, 1)), `items[0].class: "rule" is not a class (want constraint, commitment, open_question or reference)`, "an unknown class"},
		{item(strings.Replace(full, `"turn": 1`, `"turn": 9`, 1)), "items[0].turn: 9 is not a turn of the session (1…2)", "a turn the session does not have"},
		{item(strings.Replace(full, `"turn": 1`, `"turn": 2`, 1)), `items[0].literal: "never commit to main" is not in the text of turn 2`, "a literal said in another turn"},
		{item(strings.Replace(full, `never commit to main`, `never push to main`, 1)), `items[0].literal: "never push to main" is not in the text of turn 1`, "a literal nobody said"},
		{item(strings.Replace(full, `"turn": 1, "literal": "never commit to main"`, `"turn": 2, "literal": "FAIL: pasted"`, 1)), `items[0].literal: "FAIL: pasted" is not in the text of turn 2`, "pasted output is not the session's text"},
		{item(strings.Replace(full, `"probe": "May it?"`, `"probe": " "`, 1)), "items[0].probe: missing or empty", "an empty probe"},
		{item(strings.Replace(full, `, "expect": "no"`, "", 1)), "items[0].expect: missing or empty", "no expected answer"},
		{item(strings.Replace(full, `0.9`, `1.5`, 1)), "items[0].confidence: 1.5 is not between 0 and 1", "a confidence out of range"},
		{item(strings.Replace(full, `, "confidence": 0.9`, "", 1)), "items[0].confidence: missing", "no confidence"},
		{item(strings.Replace(full, `"turn": 1`, `"turn": "1"`, 1)), `an item's turn: a JSON string where the prompt asks for a whole number (reply starts "{\"items\": [{\"class\": \"constraint\", \"tur…")`, "a turn as a string"},
		{item(strings.Replace(full, `"turn": 1`, `"turn": 1.0`, 1)), `an item's turn: a JSON number 1.0 where the prompt asks for a whole number (reply starts "{\"items\": [{\"class\": \"constraint\", \"tur…")`, "a turn written 1.0"},
		{item(strings.Replace(full, `never commit to main`, `never commit to main`, 1)), "", "the literal as said"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			items, err := ParseLLMReply(tt.reply, s)
			if fmt.Sprint(err) != fmt.Sprint(errors.New(tt.err)) && !(tt.err == "" && err == nil) {
				t.Fatalf("got  %v\nwant %s", err, tt.err)
			}
			if tt.err == "" && strings.Contains(tt.reply, "never") && (len(items) != 1 || items[0].Role != "user" || items[0].Turn != 1) {
				t.Errorf("items %+v", items)
			}
		})
	}
}

// TestParseLLMReplyOriginalText: a literal the model copied across the
// prompt's " / " for a line break, or with typographic quotes for the
// person's straight ones, is stored as the session wrote it, so that
// the verbatim check can find it (a new user's trial: "Use X / 2. Y"
// was stored, a text no context holds); one found only in tally's list
// of the turn's actions is a reference or nothing.
func TestParseLLMReplyOriginalText(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "don't push to main\nuntil the tests pass; it's \"frozen\""},
		{1, "assistant", "Understood."},
	}, 1)
	s.Steps[0].Calls = append(s.Steps[0].Calls, agentlog.ToolCall{Name: "Edit", Input: []byte(`{"file_path":"/repo/cmd/edited.go"}`)})
	item := func(lit, class string) string {
		return `{"items": [{"class": "` + class + `", "turn": 1, "literal": ` + lit + `, "probe": "May it?", "expect": "no", "confidence": 0.9}]}`
	}
	got, err := ParseLLMReply(item(`"don't push to main / until the tests pass; it’s “frozen”"`, "constraint"), s)
	if err != nil {
		t.Fatal(err)
	}
	if want := "don't push to main\nuntil the tests pass; it's \"frozen\""; got[0].Literal != want {
		t.Errorf("literal %q, want the session's own %q", got[0].Literal, want)
	}
	// German and French quotes, as the model writes them straight (a
	// re-check trial).
	de := propSession([]propMsg{{1, "user", "Behalte den „alten“ Endpunkt und «la route» bitte."}, {1, "assistant", "ok"}}, 1)
	got, err = ParseLLMReply(item(`"Behalte den \"alten\" Endpunkt und \"la route\""`, "constraint"), de)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Behalte den „alten“ Endpunkt und «la route»"; got[0].Literal != want {
		t.Errorf("literal %q, want the session's own %q", got[0].Literal, want)
	}
	// French guillemets have a space inside, often a no-break one; the
	// model writes them straight and without it, or keeps them.
	fr := propSession([]propMsg{{1, "user", "Surtout, «\u00a0ne touche pas\u00a0» aux migrations\u202f!"}, {1, "assistant", "ok"}}, 1)
	for _, lit := range []string{`"\"ne touche pas\" aux migrations !"`, `"« ne touche pas » aux migrations"`, `"ne touche pas"`} {
		got, err = ParseLLMReply(item(lit, "constraint"), fr)
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if !strings.Contains(fr.Messages[0].Text, got[0].Literal) || !strings.Contains(got[0].Literal, "ne touche pas") {
			t.Errorf("%s: literal %q is not the session's own text", lit, got[0].Literal)
		}
	}
	prompt := LLMProposer{}.Prompt(s)
	if !strings.Contains(prompt, "edited.go") {
		t.Fatalf("the prompt lists no action:\n%s", prompt[len(LLMPrompt):])
	}
	_, err = ParseLLMReply(item(`"/repo/cmd/edited.go"`, "constraint"), s)
	if want := `items[0].literal: "/repo/cmd/edited.go" is only in tally's list of the turn's actions, which names files and commands, not a constraint`; err == nil || err.Error() != want {
		t.Errorf("a constraint from the actions line: %v, want %s", err, want)
	}
	if _, err := ParseLLMReply(item(`"/repo/cmd/edited.go"`, "reference"), s); err != nil {
		t.Errorf("a reference from the actions line: %v", err)
	}
}

// TestLLMProposer: items come back in turn order with ids, rule and role,
// an item listed twice once; a cached reply is not asked again; a backend's failure and a bad reply
// are errors naming the backend.
func TestLLMProposer(t *testing.T) {
	s := llmSession("never commit to main")
	b := &llmScript{reply: `{"items": [
		{"class": "reference", "turn": 2, "literal": "docs/plan.md", "probe": "Which plan?", "expect": "docs/plan.md", "confidence": 0.7},
		{"class": "constraint", "turn": 1, "literal": "never commit to main", "probe": "May it commit to main?", "expect": "no", "confidence": 0.9},
		{"class": "constraint", "turn": 1, "literal": "never  commit to main", "probe": "Again?", "expect": "no", "confidence": 0.8},
		{"class": "open_question", "turn": 2, "literal": "Follow docs/plan.md", "probe": "Open?", "expect": "no", "confidence": 0.2},
		{"class": "constraint", "turn": 1, "literal": "to", "probe": "Too short to measure?", "expect": "yes", "confidence": 0.9}]}`}
	cache, err := judge.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := LLMProposer{Backend: b, Cache: cache}
	for range 2 {
		got, err := p.Propose(context.Background(), s, ProposeOptions{MinConfidence: DefaultMinConfidence})
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, c := range got.Candidates {
			rows = append(rows, fmt.Sprintf("%s %d %s %s %s %q", c.ID, c.Turn, c.Class, c.Role, c.Rule, c.Literal))
		}
		want := []string{`c1 1 constraint user llm/script/test "never commit to main"`, `c2 2 reference user llm/script/test "docs/plan.md"`}
		if strings.Join(rows, "\n") != strings.Join(want, "\n") || got.ConversationID != "s1" || got.Turns != 2 {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
		}
		if err := got.Validate(); err != nil {
			t.Errorf("not a valid candidates file: %v", err)
		}
	}
	if b.calls != 1 || cache.Stats().Hits != 1 {
		t.Errorf("%d calls, cache %+v: want one call, then a hit", b.calls, cache.Stats())
	}
	_, err = LLMProposer{Backend: &llmScript{err: errors.New("connection refused")}}.Propose(context.Background(), s, ProposeOptions{})
	if fmt.Sprint(err) != "llm proposer: connection refused" {
		t.Errorf("backend failure: %v", err)
	}
	_, err = LLMProposer{Backend: &llmScript{reply: "no idea"}}.Propose(context.Background(), s, ProposeOptions{})
	if !strings.HasPrefix(fmt.Sprint(err), "llm proposer: script/test's reply (3 asked): not one JSON object") {
		t.Errorf("bad reply: %v", err)
	}
	// A reply that did not parse is not cached: asked 1 + DefaultLLMReasks
	// times each run.
	bad, other := &llmScript{reply: "no idea"}, llmSession("keep the flag off")
	LLMProposer{Backend: bad, Cache: cache}.Propose(context.Background(), other, ProposeOptions{})
	LLMProposer{Backend: bad, Cache: cache, Reasks: judge.NoReasks}.Propose(context.Background(), other, ProposeOptions{})
	if bad.calls != 1+DefaultLLMReasks+1 {
		t.Errorf("a bad reply was cached, or re-asked wrongly: %d calls", bad.calls)
	}
}

// llmSequence is a Backend that answers with its replies in turn,
// keeping the prompts.
type llmSequence struct {
	replies, prompts []string
}

func (b *llmSequence) Name() string { return "script/test" }

func (b *llmSequence) Complete(_ context.Context, prompt string) (string, error) {
	b.prompts = append(b.prompts, prompt)
	r := b.replies[0]
	b.replies = b.replies[1:]
	return r, nil
}

// TestLLMProposerReask: a reply that does not parse is asked again with
// its problem said, and the reply that parses is the one cached, under
// the first prompt's key.
func TestLLMProposerReask(t *testing.T) {
	s := llmSession("never commit to main")
	good := `{"items": [{"class": "constraint", "turn": 1, "literal": "never commit to main", "probe": "May it?", "expect": "no", "confidence": 0.9}]}`
	b := &llmSequence{replies: []string{`{"items": [{"class": "rule"}]}`, good}}
	cache, err := judge.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := LLMProposer{Backend: b, Cache: cache}.Propose(context.Background(), s, ProposeOptions{})
	if err != nil || len(got.Candidates) != 1 || len(b.prompts) != 2 {
		t.Fatalf("got %+v, %v after %d asks; want one item after 2", got, err, len(b.prompts))
	}
	if want := `could not be used: items[0].class: "rule" is not a class`; !strings.Contains(b.prompts[1], want) || !strings.HasPrefix(b.prompts[1], b.prompts[0]) {
		t.Errorf("the second prompt does not say why: %q", b.prompts[1][len(b.prompts[0]):])
	}
	again, err := LLMProposer{Backend: &llmScript{err: errors.New("not called")}, Cache: cache}.Propose(context.Background(), s, ProposeOptions{})
	if err != nil || len(again.Candidates) != 1 {
		t.Errorf("the parsed reply was not cached: %+v, %v", again, err)
	}
}

// TestLLMProposerPlan: of an accepted plan (the agent's words sent as
// the person's) the model's constraints and open questions are left
// out, its references kept; the person's own line of the same turn
// keeps its constraint, even in words the plan has too.
func TestLLMProposerPlan(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Implement the following plan:\n\n# Plan\n\n- Never touch `setup.go`.\n- Should we also cover Gemini?\n- And keep the old flag working."},
		{1, "user", "and keep the old flag working"},
	}, 1)
	b := &llmScript{reply: `{"items": [
		{"class": "constraint", "turn": 1, "literal": "Never touch ` + "`setup.go`" + `.", "probe": "May it touch setup.go?", "expect": "no", "confidence": 0.9},
		{"class": "open_question", "turn": 1, "literal": "Should we also cover Gemini?", "probe": "Gemini?", "expect": "open", "confidence": 0.8},
		{"class": "reference", "turn": 1, "literal": "setup.go", "probe": "Which file?", "expect": "setup.go", "confidence": 0.7},
		{"class": "constraint", "turn": 1, "literal": "keep the old flag working", "probe": "Must the old flag work?", "expect": "yes", "confidence": 0.8}]}`}
	got, err := LLMProposer{Backend: b}.Propose(context.Background(), s, ProposeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, c := range got.Candidates {
		rows = append(rows, fmt.Sprintf("%s %s", c.Class, c.Literal))
	}
	want := []string{"reference setup.go", "constraint keep the old flag working"}
	if !slices.Equal(rows, want) {
		t.Errorf("got %q, want %q", rows, want)
	}
}

// TestLLMProposerCommand runs the proposer through judge's command
// backend and a scripted judge (testdata/propose_llm/judge.sh), counting
// the script's runs: the second proposal comes from the cache.
func TestLLMProposerCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripted judge is a POSIX shell script")
	}
	calls := filepath.Join(t.TempDir(), "calls")
	t.Setenv("TALLY_TEST_CALLS", calls)
	b, err := judge.NewCommand(judge.CommandConfig{Argv: []string{"testdata/propose_llm/judge.sh"}, Label: "script"})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := judge.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := LLMProposer{Backend: b, Cache: cache}
	for range 2 {
		got, err := p.Propose(context.Background(), llmSession("never commit to main"), ProposeOptions{MinConfidence: DefaultMinConfidence})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Candidates) != 2 || got.Candidates[0].Literal != "never commit to main" || got.Candidates[1].Literal != "docs/plan.md" {
			t.Errorf("candidates %+v", got.Candidates)
		}
	}
	if n, _ := os.ReadFile(calls); strings.Count(string(n), "call") != 1 {
		t.Errorf("the script ran %d times, want 1 (then the cache)", strings.Count(string(n), "call"))
	}
	_, err = p.Propose(context.Background(), llmSession("say something odd"), ProposeOptions{})
	if !strings.Contains(fmt.Sprint(err), "command/script's reply (3 asked): not one JSON object") {
		t.Errorf("odd reply: %v", err)
	}
}

// FuzzParseLLMReply: a model's reply, whatever it is, either parses into
// items that belong to the session or is an error; never a panic.
func FuzzParseLLMReply(f *testing.F) {
	f.Add(`{"items": [{"class": "constraint", "turn": 1, "literal": "never commit to main", "probe": "May it?", "expect": "no", "confidence": 0.9}]}`)
	f.Add("```json\n{\"items\": []}\n```")
	f.Add(`{"items": [{"class": "reference", "turn": 2, "literal": " / ", "probe": "x", "expect": "y", "confidence": 1e308}]} x`)
	s := llmSession("never commit to main")
	f.Fuzz(func(t *testing.T, reply string) {
		items, err := ParseLLMReply(reply, s)
		if err != nil {
			return
		}
		for _, it := range items {
			if !it.Class.Valid() || it.Turn < 1 || it.Turn > len(s.Turns) || it.Literal == "" || !(it.Confidence >= 0 && it.Confidence <= 1) {
				t.Fatalf("bad item %+v", it)
			}
		}
	})
}

// TestHybrid pins how Hybrid joins two proposals: the rules'
// references, constraints and commitments and the model's items but
// references, in turn order with the rules' first within a turn, ids
// renumbered, position reset; a rule's constraint or commitment the
// model also proposes (same turn, same item) is left out, and so are the
// rules' open questions and the model's references.
func TestHybrid(t *testing.T) {
	rules := Proposal{ConversationID: "s1", Turns: 3, CompactionsExpected: 1, Position: 2, Candidates: []ProposedItem{
		{ID: "c1", Class: fixture.Constraint, Turn: 1, Literal: "never push"},
		{ID: "c2", Class: fixture.Reference, Turn: 2, Literal: "pkg/x.go"},
		{ID: "c3", Class: fixture.Commitment, Turn: 1, Literal: "leaving it in place"},
		{ID: "c4", Class: fixture.Reference, Turn: 3, Literal: "#42"},
		{ID: "c5", Class: fixture.Commitment, Turn: 3, Literal: "Deferred — no current callers"},
		{ID: "c6", Class: fixture.OpenQuestion, Turn: 3, Literal: "should we cache?"},
		{ID: "c7", Class: fixture.Constraint, Turn: 2, Literal: "I'd go with option 4"},
	}}
	model := Proposal{ConversationID: "s1", Turns: 3, CompactionsExpected: 1, Candidates: []ProposedItem{
		{ID: "c1", Class: fixture.Reference, Turn: 1, Literal: "README.md"},
		{ID: "c2", Class: fixture.Constraint, Turn: 2, Literal: "I'd go with option 4"},
		{ID: "c3", Class: fixture.Commitment, Turn: 1, Literal: "I'll leave it in place"},
	}}
	got := Hybrid(rules, model)
	want := []string{"c1 constraint 1 never push", "c2 commitment 1 I'll leave it in place", "c3 reference 2 pkg/x.go", "c4 constraint 2 I'd go with option 4",
		"c5 reference 3 #42", "c6 commitment 3 Deferred — no current callers"}
	var have []string
	for _, c := range got.Candidates {
		have = append(have, fmt.Sprintf("%s %s %d %s", c.ID, c.Class, c.Turn, c.Literal))
	}
	if !slices.Equal(have, want) {
		t.Errorf("Hybrid gave\n%q\nwant\n%q", have, want)
	}
	if got.Position != 0 || got.ConversationID != "s1" || got.Turns != 3 || got.CompactionsExpected != 1 {
		t.Errorf("Hybrid's header %+v", got)
	}
	if rules.Candidates[0].ID != "c1" || len(rules.Candidates) != 7 {
		t.Errorf("Hybrid changed its argument: %+v", rules.Candidates)
	}
}

// TestLLMSquash pins how a reply's literal is looked for in a turn's
// text: white space and the prompt's line breaks (" / ", one or several
// for a blank line) are one space, and a typographic apostrophe or quote
// is the ASCII one (a new user's trial: "let’s" for "let's", and a
// literal copied across a blank line).
func TestLLMSquash(t *testing.T) {
	for _, c := range []struct{ text, literal string }{
		{"let's go with the second approach", "let’s go with the second approach"},
		{"Two ways to do this:\n\n1. Read the flag", "Two ways to do this: / / 1. Read"},
		{"fall back to ~/.cache.\n2. Use os.UserCacheDir()", "fall back to ~/.cache. / 2. Use os.UserCacheDir()"},
		{"say “done” when done", `say "done" when`},
	} {
		if !strings.Contains(llmSquash(c.text), llmSquash(c.literal)) {
			t.Errorf("%q not found in %q (%q, %q)", c.literal, c.text, llmSquash(c.literal), llmSquash(c.text))
		}
	}
	if strings.Contains(llmSquash("never commit to main"), llmSquash("never push to main")) {
		t.Errorf("a different literal matched")
	}
}
