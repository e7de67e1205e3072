package agentlog

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestClaudeCodeOtherParts reads the content parts the dev set's Claude
// Code versions do not write, in the shapes of Anthropic's Messages API
// documentation (image and document blocks; redacted_thinking; the web
// search server tool's server_tool_use and web_search_tool_result, whose
// error is an object of type web_search_tool_result_error) and of a
// queue-operation whose prompt was sent with an image (content a list of
// parts, as later Claude Code versions write it). A new user's trial
// found the queued prompt dropped as injected and the other parts
// counted nowhere.
func TestClaudeCodeOtherParts(t *testing.T) {
	log := strings.Join([]string{
		`{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":[{"type":"text","text":"Fix the flaky retry test."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"server_tool_use","id":"srv1","name":"web_search","input":{"query":"go test -count flaky"}},{"type":"web_search_tool_result","tool_use_id":"srv1","content":[{"type":"web_search_result","url":"https://go.dev/doc","title":"Go"}]},{"type":"server_tool_use","id":"srv2","name":"web_search","input":{"query":"retry backoff"}},{"type":"web_search_tool_result","tool_use_id":"srv2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},{"type":"text","text":"Looking."}]}}`,
		`{"type":"queue-operation","sessionId":"s","operation":"enqueue","content":[{"type":"text","text":"Also: never log at info."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`,
		`{"type":"queue-operation","sessionId":"s","operation":"remove"}`,
		`{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"spec"}}]}}`,
	}, "\n")
	ss, err := ReadClaudeCode(strings.NewReader(log), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if len(s.Turns) != 2 {
		t.Fatalf("%d turns, want 2 (the prompt, and the document-only prompt)", len(s.Turns))
	}
	if got := s.Messages[s.Turns[0].Message].Text; got != "Fix the flaky retry test." {
		t.Errorf("first prompt %q", got)
	}
	var queued []string
	for _, m := range s.Messages {
		if m.Kind == Queued {
			queued = append(queued, m.Text)
		}
	}
	if len(queued) != 1 || queued[0] != "Also: never log at info." {
		t.Errorf("queued prompts %q, want the one sent with an image", queued)
	}
	calls := s.Steps[0].Calls
	if len(calls) != 2 || calls[0].Name != "web_search" || string(calls[0].Input) != `{"query":"go test -count flaky"}` {
		t.Fatalf("calls %+v, want the two web searches", calls)
	}
	if !calls[0].HasResult || calls[0].IsError || calls[0].Result != "[web_search_result]" {
		t.Errorf("first search's result %+v", calls[0])
	}
	if !calls[1].HasResult || !calls[1].IsError {
		t.Errorf("second search's error result %+v", calls[1])
	}
	want := map[string]int{"content part/image": 2, "content part/document": 1, "content part/redacted_thinking": 1}
	if !maps.Equal(s.Dropped, want) {
		t.Errorf("dropped %v, want %v", s.Dropped, want)
	}
	if n := s.Records.Skipped["queue-operation/enqueue (injected)"]; n != 0 {
		t.Errorf("the queued prompt was counted as injected")
	}
}

// TestSubAgentOnly: a sub-agent's own transcript (later Claude Code
// versions write <session>/subagents/agent-*.jsonl, every record
// isSidechain under the parent's sessionId) is not a session; a session
// with a main-chain record is.
func TestSubAgentOnly(t *testing.T) {
	sub := `{"type":"user","sessionId":"p","isSidechain":true,"agentId":"a1","message":{"role":"user","content":"Find the flaky test."}}` + "\n" +
		`{"type":"assistant","sessionId":"p","isSidechain":true,"agentId":"a1","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Found it."}]}}`
	main := sub + "\n" + `{"type":"user","sessionId":"p","message":{"role":"user","content":"Thanks."}}`
	for _, c := range []struct {
		log  string
		want bool
	}{{sub, true}, {main, false}, {`{"type":"summary","summary":"t"}`, false}} {
		ss, err := ReadClaudeCode(strings.NewReader(c.log), "x.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if got := ss[0].SubAgentOnly(); got != c.want {
			t.Errorf("SubAgentOnly = %v, want %v for\n%s", got, c.want, c.log)
		}
	}
}

// TestStopHookFeedback: a blocking Stop hook's reason, sent as a user
// message without isMeta (as some Claude Code versions write it), is hook
// output, not a person's prompt.
func TestStopHookFeedback(t *testing.T) {
	log := `{"type":"user","sessionId":"s","message":{"role":"user","content":"Fix the test."}}` + "\n" +
		`{"type":"user","sessionId":"s","isSynthetic":true,"message":{"role":"user","content":"Stop hook feedback:\n[~/.claude/hooks/check.sh]: Never finish without running the tests."}}` + "\n" +
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"SubagentStop hook feedback: go on"}]}}`
	ss, err := ReadClaudeCode(strings.NewReader(log), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if len(s.Turns) != 1 || s.Messages[1].Kind != HookOutput || s.Messages[2].Kind != HookOutput {
		t.Errorf("%d turns, kinds %v %v; want 1 turn and hook output twice", len(s.Turns), s.Messages[1].Kind, s.Messages[2].Kind)
	}
}

// partialLog is a Claude Code session with a partial compaction (later
// versions: compactMetadata.preservedSegment names the first and last
// message kept word for word after the summary, written before the
// boundary), in the shape public transcript tools document.
const partialLog = `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"Never push to main."}}
{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Understood."}]}}
{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":"Use tabs in the Makefile."}}
{"type":"assistant","sessionId":"s","uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{}}]}}
{"type":"user","sessionId":"s","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
{"type":"assistant","sessionId":"s","uuid":"a3","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Tabs it is."}]}}
{"type":"system","subtype":"compact_boundary","sessionId":"s","uuid":"b1","compactMetadata":{"trigger":"auto","preTokens":9000,"preservedSegment":{"headUuid":"u2","anchorUuid":"s1","tailUuid":"a3"}}}
{"type":"user","sessionId":"s","uuid":"s1","isCompactSummary":true,"message":{"role":"user","content":"Summary: the person asked for no pushes to main."}}
{"type":"user","sessionId":"s","uuid":"u4","message":{"role":"user","content":"Go on."}}`

// TestPartialCompaction: a partial compaction's preserved messages are
// Kept, after the summary, in the order written; a segment whose records
// are not in the log keeps nothing and is counted.
func TestPartialCompaction(t *testing.T) {
	ss, err := ReadClaudeCode(strings.NewReader(partialLog), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c := ss[0].Compactions[0]
	want := []string{"Use tabs in the Makefile.", "[Edit]", "Tabs it is."}
	if !slices.Equal(c.Kept, want) || !c.KeptAfter || c.Trigger != "auto" || c.PreTokens != 9000 {
		t.Errorf("kept %q (after %v), trigger %q, pre-tokens %d; want %q after the summary", c.Kept, c.KeptAfter, c.Trigger, c.PreTokens, want)
	}
	cut := strings.Replace(partialLog, `"headUuid":"u2"`, `"headUuid":"gone"`, 1)
	ss, err = ReadClaudeCode(strings.NewReader(cut), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if c := ss[0].Compactions[0]; len(c.Kept) != 0 || ss[0].Dropped["compactMetadata.preservedSegment (not in the log)"] != 1 {
		t.Errorf("a segment not in the log: kept %q, dropped %v", c.Kept, ss[0].Dropped)
	}
}

// TestContentObjects: a message's content that is an object is an error
// naming its field, like a number (a re-check trial found it read as
// nothing); a server tool's result that is an object is an error only
// when its type says so (web_fetch's document is a result); a queued
// prompt with no text (an image alone) is counted as such, not as
// injected.
func TestContentObjects(t *testing.T) {
	_, err := ReadClaudeCode(strings.NewReader(`{"type":"user","sessionId":"s","message":{"role":"user","content":{"text":"Never deploy on Fridays."}}}`), "x.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl:1:67: message.content: want a string or a list, got an object") {
		t.Errorf("object content: %v", err)
	}
	log := `{"type":"user","sessionId":"s","message":{"role":"user","content":"Read the docs page."}}
{"type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"server_tool_use","id":"f1","name":"web_fetch","input":{"url":"https://go.dev"}},{"type":"web_fetch_tool_result","tool_use_id":"f1","content":{"type":"web_fetch_result","url":"https://go.dev","content":{"type":"document"}}}]}}
{"type":"queue-operation","sessionId":"s","operation":"enqueue","content":[{"type":"image","source":{}}]}`
	ss, err := ReadClaudeCode(strings.NewReader(log), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if c := s.Steps[0].Calls[0]; !c.HasResult || c.IsError || c.Result != "[web_fetch_result]" {
		t.Errorf("web_fetch's result: %+v", c)
	}
	if s.Records.Skipped["queue-operation/enqueue (no text)"] != 1 || s.Dropped["content part/image"] != 1 {
		t.Errorf("a queued image alone: skipped %v, dropped %v", s.Records.Skipped, s.Dropped)
	}
}

// TestEmptyUserRecord: a user record with no content at all (null, "" or
// []) starts no turn and is counted as skipped; a part without a type is
// counted as such (a re-check trial saw phantom turns and "content
// part/").
func TestEmptyUserRecord(t *testing.T) {
	log := `{"type":"user","sessionId":"s","message":{"role":"user","content":"Fix it."}}
{"type":"user","sessionId":"s","message":{"role":"user","content":[]}}
{"type":"user","sessionId":"s","message":{"role":"user","content":null}}
{"type":"user","sessionId":"s","message":{"role":"user","content":""}}
{"type":"user","sessionId":"s","message":{"role":"user","content":[{"text":"x"}]}}`
	ss, err := ReadClaudeCode(strings.NewReader(log), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if len(s.Turns) != 2 || s.Records.Skipped["user (empty)"] != 3 || s.Dropped["content part/(no type)"] != 1 {
		t.Errorf("%d turns, skipped %v, dropped %v; want 2 turns (the prompt and the typeless part's), 3 empty, 1 typeless part", len(s.Turns), s.Records.Skipped, s.Dropped)
	}
}
