package selection

import (
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// TestRestatementsOneLine: a generic-format session is one line, so
// messages and compactions are ordered by position in the session
// (Compaction.Message), not by line. A first trial with a user's own
// generic file found the restatement flagged in the other three formats
// and never in this one.
func TestRestatementsOneLine(t *testing.T) {
	line := `{"session_id":"g","messages":[` +
		`{"role":"user","content":"Fix the failing test. Never push to main."},` +
		`{"role":"assistant","content":"On it."},` +
		`{"role":"user","content":"Now the docs."},` +
		`{"role":"assistant","content":"Done."},` +
		`{"role":"user","content":"you forgot: never push to main"},` +
		`{"role":"assistant","content":"Understood."}],` +
		`"compactions":[{"after_message":3,"summary":"Fixing the test."}]}`
	ss, err := agentlog.ReadAll(strings.NewReader(line), "g.jsonl", "")
	if err != nil || len(ss) != 1 {
		t.Fatalf("%v, %d sessions", err, len(ss))
	}
	rs := FindRestatements(ss[0], DefaultRepeatWindow)
	if len(rs) != 1 || rs[0].Message.Text != "you forgot: never push to main" || !strings.HasPrefix(rs[0].Earlier.Text, "Fix the failing test") {
		t.Fatalf("restatements %+v, want the reminder after the compaction, with the instruction before it", rs)
	}
	// The same reminder before the compaction restates nothing after one.
	ss[0].Compactions[0].Message = len(ss[0].Messages)
	if rs := FindRestatements(ss[0], DefaultRepeatWindow); len(rs) != 0 {
		t.Errorf("with the compaction after every message: %+v", rs)
	}
}
