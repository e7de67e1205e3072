package selection

import (
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// TestProposeReviewText pins which typed messages hold a code review's
// comment the person pasted (propose_review.go) and which of their
// lines it is. The comments are worded as GitHub Copilot's and Cursor
// Bugbot's reviews word theirs on the dev set's sessions.
func TestProposeReviewText(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"a Copilot comment",
			"FetchMetadataBranch runs git fetch with context.Background() and no timeout. Consider using context.WithTimeout for this network operation to avoid indefinite hangs.",
			"FetchMetadataBranch runs git fetch with context.Background() and no timeout. Consider using context.WithTimeout for this network operation to avoid indefinite hangs."},
		{"a Bugbot finding, title and severity",
			"Wrapper hooks not recognized for removal\nHigh Severity\nThe new localDev mode installs hooks with a wrapper prefix, but this prefix is not added to entireHookPrefixes, so isEntireHook() skips them.",
			"Wrapper hooks not recognized for removal\nHigh Severity\nThe new localDev mode installs hooks with a wrapper prefix, but this prefix is not added to entireHookPrefixes, so isEntireHook() skips them."},
		{"a person's lead-in on the line",
			"can you also check: When reusing a checkpoint without new content, the code doesn't retrieve the AgentType from the session. Consider retrieving AgentType from the session being reused.",
			"When reusing a checkpoint without new content, the code doesn't retrieve the AgentType from the session. Consider retrieving AgentType from the session being reused."},
		{"the person's own line beside the paste",
			"The getAllChangedFilesBetweenTrees function reads the content of every file twice. This could cause slow commits for large repositories.\ncan't we get a hash from git for each file instead?",
			"The getAllChangedFilesBetweenTrees function reads the content of every file twice. This could cause slow commits for large repositories."},
		{"a person's spec in the third person, no finding",
			"The command string sent to posthog only contains the last command of cobra. If \"entire session list\" is sending \"list\" it should send \"entire session list\".", ""},
		{"a person's words", "I think we should consider moving readConfig() into the config package, it is unused elsewhere and misleading.", ""},
		{"too short", "lint fail: unused variable x_y", ""},
		{"a lower-case lead-in and a numbered finding",
			"now do: Medium: YAGNI Violations\n1.\ngetSessionIDFromCheckpoint() (rewind.go:775-817) - duplicates logic available through ReadCheckpointMetadata()",
			"Medium: YAGNI Violations\n1.\ngetSessionIDFromCheckpoint() (rewind.go:775-817) - duplicates logic available through ReadCheckpointMetadata()"},
		{"a lower-case lead-in that opens with a letter outside ASCII",
			"überprüfe das: Medium: YAGNI Violations\n1.\ngetSessionIDFromCheckpoint() (rewind.go:775-817) - duplicates logic available through ReadCheckpointMetadata()",
			"Medium: YAGNI Violations\n1.\ngetSessionIDFromCheckpoint() (rewind.go:775-817) - duplicates logic available through ReadCheckpointMetadata()"},
		{"a consequence worded as a reviewer words it",
			"In EnsureSetup(), the error from InstallGitHook(true) is returned without context. Wrapping this error would make failures easier to diagnose.",
			"In EnsureSetup(), the error from InstallGitHook(true) is returned without context. Wrapping this error would make failures easier to diagnose."},
		{"a bug walked through, leading to its consequence",
			"In CalculateAttribution, the user edits are only counted for files in filesTouched. Edits to other files are dropped, leading to inflated agent percentages.",
			"In CalculateAttribution, the user edits are only counted for files in filesTouched. Edits to other files are dropped, leading to inflated agent percentages."},
	} {
		if got := propReviewText(c.text); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestProposeReviewPaste pins what propose makes of a pasted review: no
// constraint from the comment, its file a reference, and the person's
// own words beside it read as theirs.
func TestProposeReviewPaste(t *testing.T) {
	s := propSession([]propMsg{
		{1, "user", "Fix the attribution bugs on this branch."},
		{1, "assistant", "Done."},
		{2, "user", "The RunGitCommand function is defined in testenv.go but never called anywhere in the codebase. Consider removing it to avoid unnecessary maintenance burden.\nI don't want any new helpers in testenv.go though"},
	}, 2)
	var cons, refs []string
	for _, c := range Propose(s, ProposeOptions{MinConfidence: 0.4}).Candidates {
		switch c.Class {
		case fixture.Constraint:
			cons = append(cons, c.Literal)
		case fixture.Reference:
			refs = append(refs, c.Literal)
		}
	}
	if len(cons) != 1 || cons[0] != "I don't want any new helpers in testenv.go though" {
		t.Errorf("constraints %q, want only the person's own line", cons)
	}
	if len(refs) != 1 || refs[0] != "testenv.go" {
		t.Errorf("references %q, want testenv.go", refs)
	}
}
