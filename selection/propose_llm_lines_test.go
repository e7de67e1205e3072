package selection

import (
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// TestLLMLines: after each turn's lines the prompt lists what the
// assistant did by its tools — files edited or written, git and gh
// commands with their output's first line — each once, failed calls left
// out, and a literal copied from that line is a literal of the turn.
func TestLLMLines(t *testing.T) {
	line := `{"session_id":"g","messages":[` +
		`{"role":"user","content":"Fix the parser."},` +
		`{"role":"assistant","content":"Fixing it.","tool_calls":[` +
		`{"id":"c1","type":"function","function":{"name":"Edit","arguments":{"file_path":"internal/parse/parse.go"}}},` +
		`{"id":"c2","type":"function","function":{"name":"Edit","arguments":{"file_path":"internal/parse/parse.go"}}},` +
		`{"id":"c3","type":"function","function":{"name":"Write","arguments":{"file_path":"docs/x.md"}}},` +
		`{"id":"c4","type":"function","function":{"name":"Edit","arguments":{"file_path":"nope.go"}}},` +
		`{"id":"c5","type":"function","function":{"name":"Bash","arguments":{"command":"git commit -m 'fix parser'"}}},` +
		`{"id":"c6","type":"function","function":{"name":"Bash","arguments":{"command":"go test ./..."}}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"tool","tool_call_id":"c2","content":"ok"},` +
		`{"role":"tool","tool_call_id":"c3","content":"ok"},{"role":"tool","tool_call_id":"c4","content":"not found","is_error":true},` +
		`{"role":"tool","tool_call_id":"c5","content":"[main 1a2b3c4] fix parser\n 1 file changed"},{"role":"tool","tool_call_id":"c6","content":"ok"},` +
		`{"role":"user","content":"Thanks."}]}`
	ss, err := agentlog.ReadAll(strings.NewReader(line), "g.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	got := llmSessionLines(llmLines(ss[0]))
	want := "[turn 1] user: Fix the parser.\n" +
		"[turn 1] assistant: Fixing it.\n" +
		"[turn 1] actions: edited internal/parse/parse.go; wrote docs/x.md; ran `git commit -m 'fix parser'` → [main 1a2b3c4] fix parser\n" +
		"[turn 2] user: Thanks.\n"
	if got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	items, err := ParseLLMReply(`{"items":[{"class":"reference","turn":1,"literal":"1a2b3c4","probe":"Which commit fixed the parser?","expect":"1a2b3c4","confidence":0.9}]}`, ss[0])
	if err != nil || len(items) != 1 || items[0].Role != "assistant" {
		t.Errorf("a literal from the actions line: %+v, %v", items, err)
	}
}
