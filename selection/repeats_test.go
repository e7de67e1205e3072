package selection

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

func readRepeatSession(t *testing.T, name string) *agentlog.Session {
	t.Helper()
	path := filepath.Join("testdata", "repeats", name+".jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ss, err := agentlog.ReadClaudeCode(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("%s: %d sessions, want 1", path, len(ss))
	}
	return ss[0]
}

// wantRepeat is one expected repeat: its kind and the lines of the two
// calls' steps in the test log.
type wantRepeat struct {
	kind              RepeatKind
	firstLine, line   int
	turns, stepsAfter int
}

func TestFindToolRepeats(t *testing.T) {
	cases := []struct {
		file   string
		reason string
		want   []wantRepeat
	}{
		{"lost_read", "an overlapping range of the same file (./ cleaned), unchanged: the result was lost",
			[]wantRepeat{{LostResult, 2, 6, 0, 1}}},
		{"reread_after_edit", "the agent edited the file between the reads",
			[]wantRepeat{{RereadAfterEdit, 2, 8, 0, 1}}},
		{"read_after_failed_edit", "a failed edit changes nothing: the re-read is a lost result",
			[]wantRepeat{{LostResult, 2, 8, 0, 1}}},
		{"read_other_range", "a Read of another part of the file is not a repeat", nil},
		{"rerun_tests", "tests re-run after an edit; description, timeout and whitespace ignored",
			[]wantRepeat{{RerunAfterChange, 2, 8, 0, 1}}},
		{"tests_unchanged", "tests re-run with nothing changed: the result was lost",
			[]wantRepeat{{LostResult, 2, 6, 0, 1}}},
		{"orientation", "git status and ls (./cmd is cmd) to see where things stand",
			[]wantRepeat{{Orientation, 2, 8, 0, 1}, {Orientation, 4, 10, 0, 2}}},
		{"side_effect_reply", "a second reply to the same review comment, other words and a comment line: severe",
			[]wantRepeat{{SideEffect, 2, 7, 1, 1}}},
		{"push", "a push after a new commit pushes something new", []wantRepeat{{RerunAfterChange, 2, 8, 0, 1}}},
		{"push_again", "the same push with no new commit", []wantRepeat{{SideEffect, 2, 6, 0, 1}}},
		{"grep", "same pattern and path, output mode ignored; a search for text the agent edited is a re-run",
			[]wantRepeat{{LostResult, 2, 10, 0, 1}, {RerunAfterChange, 4, 12, 0, 2}}},
		{"window", "a repeat of a post-compaction call is not new; six turns after is out of the window",
			[]wantRepeat{{LostResult, 2, 8, 0, 1}}},
		{"bookkeeping", "the agent's own task list set again", []wantRepeat{{Bookkeeping, 2, 6, 0, 1}}},
		{"cwd_read", "in /repo, ./a//parse.go is /repo/a/parse.go, and a Grep with no path searches /repo/",
			[]wantRepeat{{LostResult, 2, 8, 0, 1}, {LostResult, 4, 10, 0, 2}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := FindToolRepeats(readRepeatSession(t, c.file), DefaultRepeatWindow)
			if len(got) != len(c.want) {
				t.Fatalf("%s: got %d repeats %v, want %d", c.reason, len(got), got, len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Kind != w.kind || g.First.Line != w.firstLine || g.Repeat.Line != w.line || g.TurnsAfter != w.turns || g.StepsAfter != w.stepsAfter {
					t.Errorf("%s: repeat %d is %s (lines %d→%d, %d turns, %d steps), want %s (lines %d→%d, %d turns, %d steps)",
						c.reason, i, g.Kind, g.First.Line, g.Repeat.Line, g.TurnsAfter, g.StepsAfter, w.kind, w.firstLine, w.line, w.turns, w.stepsAfter)
				}
				if g.Severe != (w.kind == SideEffect) {
					t.Errorf("%s: repeat %d severe = %v", c.reason, i, g.Severe)
				}
				if g.First.ID == "" || g.Repeat.ID == "" || g.CompactionLine == 0 || len(g.Repeat.Input) == 0 ||
					g.First.UUID == "" || g.Repeat.UUID == "" || g.First.ResultUUID == "" || g.Repeat.ResultUUID == "" || g.CompactionUUID == "" {
					t.Errorf("%s: repeat %d lacks its evidence: %+v", c.reason, i, g)
				}
			}
		})
	}
}

func TestFlaggedRepeatsSevereFirst(t *testing.T) {
	rs := []ToolRepeat{
		{Kind: LostResult, Reason: "a"},
		{Kind: Orientation},
		{Kind: SideEffect, Severe: true, Reason: "b"},
		{Kind: RereadAfterEdit},
		{Kind: LostResult, Reason: "c"},
	}
	got := FlaggedRepeats(rs)
	var reasons string
	for _, r := range got {
		reasons += r.Reason
	}
	if reasons != "bac" {
		t.Errorf("flagged in order %q, want side effects first then lost results in order: %q", reasons, "bac")
	}
}

func TestRepeatWindowSteps(t *testing.T) {
	s := readRepeatSession(t, "orientation")
	got := FindToolRepeats(s, RepeatWindow{Turns: 5, Steps: 1})
	if len(got) != 1 || got[0].StepsAfter != 1 {
		t.Errorf("a one-step window keeps the first step after the compaction only, got %v", got)
	}
}

// TestRepeatEvidenceUUIDs: a flag names the records of both calls, their
// results and the compaction boundary by uuid.
func TestRepeatEvidenceUUIDs(t *testing.T) {
	got := FindToolRepeats(readRepeatSession(t, "lost_read"), DefaultRepeatWindow)
	if len(got) != 1 {
		t.Fatalf("got %d repeats, want 1", len(got))
	}
	r := got[0]
	if u := [5]string{r.First.UUID, r.First.ResultUUID, r.Repeat.UUID, r.Repeat.ResultUUID, r.CompactionUUID}; u != [5]string{"r2", "r3", "r6", "r7", "r4"} {
		t.Errorf("uuids (first, its result, repeat, its result, boundary) %v, want [r2 r3 r6 r7 r4]", u)
	}
	// The two ranges (offset 1, limit 50; offset 20, limit 10) are said,
	// so a reviewer sees how much of the read asks again.
	if want := "read again (lines 20–29, after lines 1–50), unchanged since the first read"; r.Reason != want {
		t.Errorf("reason %q, want %q", r.Reason, want)
	}
}

// TestRepeatPathsWithoutCwd: with no cwd, a relative path is only
// cleaned, so it is not the absolute one.
func TestRepeatPathsWithoutCwd(t *testing.T) {
	s := readRepeatSession(t, "cwd_read")
	s.Cwd = ""
	for _, r := range FindToolRepeats(s, DefaultRepeatWindow) {
		if r.Repeat.Tool == "Read" {
			t.Errorf("with no cwd, a/parse.go repeats /repo/a/parse.go: %v", r)
		}
	}
}

// TestRepeatLostAtEarlierCompaction: a repeat after the second
// compaction of a call made before the first is blamed on the second
// (its window) and says the first dropped the result (a new user's
// trial: 4 flags on the dev set named only the later compaction).
func TestRepeatLostAtEarlierCompaction(t *testing.T) {
	read := func() agentlog.Step {
		return agentlog.Step{Calls: []agentlog.ToolCall{{ID: "x", Name: "Read", Input: []byte(`{"file_path":"/repo/a.go"}`), HasResult: true, Line: 1}}}
	}
	s := &agentlog.Session{
		Steps:       []agentlog.Step{read(), {}, {}, read()},
		Compactions: []agentlog.Compaction{{Step: 1, Line: 10}, {Step: 3, Line: 20}},
	}
	got := FindToolRepeats(s, DefaultRepeatWindow)
	if len(got) != 1 {
		t.Fatalf("got %d repeats, want 1", len(got))
	}
	r := got[0]
	if r.Compaction != 1 || r.CompactionLine != 20 || r.LostAt != 0 ||
		!strings.HasSuffix(r.Reason, "; the first call was before the compaction at line 10 too, which first dropped its result") {
		t.Errorf("compaction %d (line %d), lost at %d, reason %q; want 1 (line 20), lost at 0, and the reason naming line 10", r.Compaction, r.CompactionLine, r.LostAt, r.Reason)
	}
}
