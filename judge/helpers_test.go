package judge

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// scripted is a Backend whose replies a test writes: reply gets the
// 0-based call number and the prompt.
type scripted struct {
	name  string
	reply func(n int, prompt string) (string, error)

	mu      sync.Mutex
	prompts []string
}

func (s *scripted) Name() string { return s.name }

func (s *scripted) Complete(ctx context.Context, prompt string) (string, error) {
	s.mu.Lock()
	n := len(s.prompts)
	s.prompts = append(s.prompts, prompt)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return s.reply(n, prompt)
}

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}

func (s *scripted) prompt(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompts[i]
}

// isAgreement tells the agreement question from the verdict question.
func isAgreement(prompt string) bool {
	return strings.Contains(prompt, "Do these two answers to the question agree?")
}

// brain replies verdict to verdict questions and agree to agreement
// questions.
func brain(verdict, agree string) func(int, string) (string, error) {
	return func(_ int, prompt string) (string, error) {
		if isAgreement(prompt) {
			return agree, nil
		}
		return verdict, nil
	}
}

// sampleQuestion is item c2 of the source text's fixture.
func sampleQuestion() Question {
	return Question{
		System: "candidate", ConversationID: "sess_2026_03_11_a4f1", Compaction: 1, ItemID: "c2",
		Class: "commitment", Probe: "Which branch should the PR target?", Expect: "develop",
		Context: "[pinned] never modify anything under /migrations\n[summary] The agent will open the PR against the develop branch.",
	}
}

func openCache(t testing.TB) *Cache {
	t.Helper()
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
