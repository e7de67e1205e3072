package selection

import "testing"

// TestProposeAbsolutePath: a path is proposed as written, its leading
// "/" or "~/" kept (a new user saw "/Users/soph/…" proposed as
// "Users/soph/…").
func TestProposeAbsolutePath(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"The test repo is at /Users/soph/Work/entire/test/test1234 now.", "/Users/soph/Work/entire/test/test1234"},
		{"Config lives in ~/.config/entire/settings.json.", "~/.config/entire/settings.json"},
		{"Changed cmd/entire/cli/resume.go to log the agent.", "cmd/entire/cli/resume.go"},
	} {
		var lits []string
		for _, g := range propReferences(c.text, "user") {
			lits = append(lits, g.literal)
		}
		found := false
		for _, l := range lits {
			found = found || l == c.want
		}
		if !found {
			t.Errorf("%q: proposed %q, want %q among them", c.text, lits, c.want)
		}
	}
}
