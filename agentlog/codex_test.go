package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadCodex pins what testdata/codex-rollout.jsonl says, counted by
// hand from the file (written from codex-rs/protocol/src/protocol.rs and
// models.rs: see codex.go).
// cxTestSummaryPrefix is Codex's whole summary prefix
// (codex-rs/core/templates/compact/summary_prefix.md), with its double
// space.
const cxTestSummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:"

// The start-up context of testdata/codex-rollout.jsonl's first
// compaction's replacement history.
const (
	cxTestAgents = "# AGENTS.md instructions for /src/cli\n\n<INSTRUCTIONS>\nRun go test before you finish.\n</INSTRUCTIONS>"
	cxTestEnv    = "<environment_context>\n  <cwd>/src/cli</cwd>\n</environment_context>"
)

func TestReadCodex(t *testing.T) {
	s, err := Open("testdata/codex-rollout.jsonl") // sniffed
	if err != nil {
		t.Fatal(err)
	}
	call := func(st, c int) ToolCall { return s.Steps[st].Calls[c] }
	for _, c := range []struct {
		what      string
		got, want any
		reason    string
	}{
		{"id", s.ID, "cx-1", "session_meta payload.id"},
		{"cwd", s.Cwd, "/src/cli", "session_meta payload.cwd"},
		{"no uuids", s.Steps[0].UUID + call(0, 0).UUID + call(0, 0).ResultUUID + s.Messages[2].UUID, "", "a rollout keeps no record uuids"},
		{"format", s.Format, Codex, "sniffed from the first line"},
		{"kinds", kinds(s), []Kind{Meta, Meta, Typed, Typed, Interrupted},
			"environment_context and AGENTS.md are injected; the developer message is not a user message"},
		{"turns", s.Turns, []Turn{{Message: 2, FirstStep: 0, Steps: 4}, {Message: 3, FirstStep: 4, Steps: 3}}, "lines 6 and 21"},
		{"prompt text", s.Messages[3].Text, "now document it", "the image part is left out"},
		{"steps", len(s.Steps), 7, "reasoning+c1 | c2 | c3 | text | c4 | web search | text: a tool output, a user message or a compaction ends a step"},
		{"web search", s.Steps[5].Calls[0].Name + "|" + string(s.Steps[5].Calls[0].Input), `web_search|{"type":"search","query":"go flag package"}`, "a web_search_call is a call, its action the input"},
		{"step 0", s.Steps[0].Thinking + "|" + s.Steps[0].Model + "|" + strconv.Itoa(s.Steps[0].Records) + "|" + strconv.Itoa(s.Steps[0].Line),
			"Looking for the flag parsing.|gpt-5-codex|2|8", "reasoning summary, the turn_context model"},
		{"step 3 text", s.Steps[3].Text, "Added the flag; tests pass.", ""},
		{"step 4 model", s.Steps[4].Model, "gpt-5.1-codex", "the second turn_context"},
		{"step 6", s.Steps[6].Text + "|" + strconv.Itoa(s.Steps[6].Turn), "Done.|1", "after a web search, a compaction and an unknown line"},
		{"c1", call(0, 0).Name + "|" + string(call(0, 0).Input) + "|" + strconv.Itoa(call(0, 0).ResultLine),
			`shell|{"command": ["bash", "-lc", "go test ./..."], "workdir": "/src/cli"}|10`, "arguments decoded to their JSON"},
		{"c1 error", call(0, 0).IsError, true, "metadata.exit_code 1"},
		{"c2", call(1, 0).Name + "|" + call(1, 0).Result, "apply_patch|Success. Updated the following files:\nM main.go", "custom tool"},
		{"c2 error", call(1, 0).IsError, false, ""},
		{"c3", call(2, 0).Name + "|" + call(2, 0).Result, "local_shell|ok\tgithub.com/x/cli", "output as {content, success}"},
		{"c3 input", string(call(2, 0).Input), `{"type":"exec","command":["go","test","./..."],"timeout_ms":null,"working_directory":null,"env":null,"user":null}`, "the action"},
		{"c4", string(call(4, 0).Input) + "|" + strconv.Itoa(btoi(call(4, 0).IsError)), `"not json"|1`, "arguments kept as a string; Exit code: 2"},
		{"orphans", s.OrphanResults, 1, "c99"},
		{"compactions", s.Compactions, []Compaction{
			{Turn: 0, Step: 4, Message: 3, Line: 18, PreTokens: 181840, Summary: cxTestSummaryPrefix + "\nSummary: added --verbose to main.go; go test passes.", SummaryLine: 18, Kept: []string{cxTestAgents, cxTestEnv, "add a --verbose flag"}},
			{Turn: 1, Step: 6, Message: 5, Line: 27, PreTokens: 181840, Kept: []string{"add a --verbose flag", "now document it"}, Encrypted: true},
		}, "the first keeps the person's message of its replacement history, not the injected ones or the summary; the second, remote, keeps its summary encrypted; tokens before are the last token_count's last_token_usage.total_tokens"},
		{"read", s.Records.Read, map[string]int{"session_meta": 1, "response_item/message/user": 5, "turn_context": 2,
			"response_item/reasoning": 1, "response_item/function_call": 2, "response_item/function_call_output": 4,
			"response_item/custom_tool_call": 1, "response_item/custom_tool_call_output": 1, "response_item/local_shell_call": 1,
			"response_item/message/assistant": 2, "compacted": 2, "response_item/web_search_call": 1}, "a web search is a call"},
		{"skipped", s.Records.Skipped, map[string]int{"response_item/message/developer": 1, "event_msg/user_message": 1,
			"event_msg/token_count": 1, "event_msg/agent_message": 1, "event_msg/context_compacted": 1,
			"response_item/ghost_snapshot": 1, "x_future": 1, "(blank line)": 1},
			"events repeat the response items; x_future is a type not known"},
		{"lines", s.Records.Lines(), 31, "every line counted once"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v (%s)", c.what, c.got, c.want, c.reason)
		}
	}
}

func TestReadCodexErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"not JSON", "{\"type\":\"compacted\",,}\n", "x.jsonl:1:21: invalid character ','"},
		{"not an object", "[1]\n", "x.jsonl:1:1: want an object, got a list"},
		{"no type", `{"payload":{}}`, `x.jsonl:1: record has no "type"`},
		{"no payload", `{"type":"response_item"}`, "x.jsonl:1: response_item record has no payload object"},
		{"a payload field of the wrong type", "\n" + `{"type":"response_item","payload":{"type":"message","role":7}}`,
			"x.jsonl:2:60: role: want a string, got a number"},
		{"an output of the wrong type", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":5}}`,
			"x.jsonl:1:35: output is 5…, not a string, a list or an object"},
		// A role Codex does not write dropped the person's prompt in
		// silence (a new user's trial).
		{"an unknown role", `{"type":"response_item","payload":{"type":"message","role":"User","content":[]}}`, `x.jsonl:1:53: role: "User" is not a role Codex writes`},
		{"a null role", `{"type":"response_item","payload":{"type":"message","role":null,"content":[]}}`, `x.jsonl:1:53: role: missing or null is not a role Codex writes`},
		// cat a/*.jsonl > all.jsonl read as one session (a new user's
		// trial); a fork's copied session_meta is not this (TestCodexFork).
		{"two rollouts joined", `{"type":"session_meta","payload":{"id":"a"}}` + "\n" +
			`{"type":"session_meta","payload":{"id":"b","forked_from_id":"c"}}`,
			`x.jsonl:2:40: session_meta: payload.id "b" is another session than "a", which is not forked from it (forked_from_id): the file joins several rollouts`},
		{"an event of the wrong type", `{"type":"event_msg","payload":{"type":1}}`, "x.jsonl:1:39: type: want a string, got a number"},
	} {
		_, err := ReadCodex(strings.NewReader(c.in), "x.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		line   string
		want   Format
		reason string
	}{
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, Codex, ""},
		{`{"timestamp":"t","type": "response_item","payload":{}}`, Codex, "a rollout without its session_meta"},
		{`{"id":"0199","timestamp":"2025-06-01T10:00:00Z","instructions":null,"git":{}}`, Codex, "an older rollout's header: the Codex reader says that format is not read"},
		{`{"type":"user","sessionId":"s","message":{"content":"\"messages\": [1]"}}`, ClaudeCode, "an escaped key inside a string"},
		{`{"type":"user","sessionId":"s","message":{"content":"hi"}}`, ClaudeCode, ""},
		{`{"session_id":"g","messages":[]}`, Generic, ""},
		{`{"messages" : [{"role":"user","content":"hi"}]}`, Generic, "no session_id"},
		{`not json at all`, ClaudeCode, "the Claude Code reader reports the error"},
		{``, Generic, "a blank first line is skipped: the next line decides"},
	} {
		if got := Sniff([]byte(c.line + "\n{\"messages\":[]}")); got != c.want {
			t.Errorf("%s: got %s, want %s (%s)", c.line, got, c.want, c.reason)
		}
	}
}

func FuzzReadCodex(f *testing.F) {
	b, err := os.ReadFile("testdata/codex-rollout.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[]}]}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_image"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadCodex(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if s.Records.Lines() != bytes.Count(b, []byte("\n"))+btoi(len(b) > 0 && b[len(b)-1] != '\n') {
			t.Errorf("counted %d lines", s.Records.Lines())
		}
	})
}

// TestCodexFork: a fork's rollout holds its own session_meta, then the
// history it copied with the session_meta of the session it came from,
// and of that session's parent (forked_from_id, codex-rs/protocol's
// SessionMeta; RolloutRecorder writes the new session's meta first). It
// is one session, the first id.
func TestCodexFork(t *testing.T) {
	in := `{"type":"session_meta","payload":{"id":"f2","forked_from_id":"f1"}}
{"type":"session_meta","payload":{"id":"f1","forked_from_id":"f0"}}
{"type":"session_meta","payload":{"id":"f0"}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]}}
{"type":"session_meta","payload":{"id":"f1"}}
`
	s, err := ReadCodex(strings.NewReader(in), "fork.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "f2" || len(s.Turns) != 1 || s.Records.Read["session_meta"] != 4 {
		t.Errorf("got id %q, %d turns, %d session_meta read; want f2, 1, 4", s.ID, len(s.Turns), s.Records.Read["session_meta"])
	}
}

// TestCodexCwd: a session_meta's cwd wins over a turn_context's, which is
// used when no session_meta has one.
func TestCodexCwd(t *testing.T) {
	for _, c := range []struct{ log, want string }{
		{`{"type":"turn_context","payload":{"cwd":"/a","model":"m"}}` + "\n" +
			`{"type":"session_meta","payload":{"id":"x","cwd":"/b"}}` + "\n" +
			`{"type":"turn_context","payload":{"cwd":"/c","model":"m"}}`, "/b"},
		{`{"type":"session_meta","payload":{"id":"x"}}` + "\n" +
			`{"type":"turn_context","payload":{"cwd":"/a","model":"m"}}` + "\n" +
			`{"type":"turn_context","payload":{"cwd":"/c","model":"m"}}`, "/a"},
		{`{"type":"session_meta","payload":{"id":"x"}}`, ""},
	} {
		s, err := ReadCodex(strings.NewReader(c.log), "t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if s.Cwd != c.want {
			t.Errorf("cwd %q, want %q, in\n%s", s.Cwd, c.want, c.log)
		}
	}
}

// TestReadCodexKept checks the person's messages a compaction without
// replacement_history kept, against build_compacted_history
// (codex-rs/core/src/compact.rs): the typed messages, newest first while
// they fit in 20,000 tokens of ceil(bytes/4), the one that does not fit
// cut with its middle elided, the older ones dropped; injected messages
// are not the person's.
func TestReadCodexKept(t *testing.T) {
	user := func(text string) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2025-09-14T10:00:00Z", "type": "response_item",
			"payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": text}}}})
		return string(b)
	}
	big := strings.Repeat("y", 90_000)
	log := strings.Join([]string{
		`{"timestamp":"2025-09-14T10:00:00Z","type":"session_meta","payload":{"id":"k1","cwd":"/src"}}`,
		user("<environment_context>\n  <cwd>/src</cwd>\n</environment_context>"),
		user("oldest, dropped"),
		user("<environment_context>\n  <cwd>/elsewhere</cwd>\n</environment_context>"),
		user(big),
		user("newest"),
		`{"timestamp":"2025-09-14T10:00:01Z","type":"compacted","payload":{"message":"the summary"}}`,
	}, "\n")
	s, err := ReadCodex(strings.NewReader(log), "k.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Compactions) != 1 {
		t.Fatalf("%d compactions, want 1", len(s.Compactions))
	}
	kept := s.Compactions[0].Kept
	// The start-up context is the injected message before the first
	// typed one; the environment message after it is not.
	if len(kept) != 3 || kept[0] != "<environment_context>\n  <cwd>/src</cwd>\n</environment_context>" || kept[2] != "newest" {
		t.Fatalf("kept %d messages (%.40q…), want the start-up context, the cut one and \"newest\"", len(kept), kept)
	}
	// 20,000 tokens less "newest" (2 tokens) is 79,992 bytes of the big
	// one, start and end kept around the marker.
	cut := kept[1]
	if !strings.HasPrefix(cut, strings.Repeat("y", 39_996)+"…") || !strings.HasSuffix(cut, "…"+strings.Repeat("y", 39_996)) || !strings.Contains(cut, "tokens truncated") {
		t.Errorf("the cut message is %d bytes: %.60q…%.60q", len(cut), cut, cut[max(0, len(cut)-60):])
	}
	if s.Compactions[0].Summary != "the summary" || s.Compactions[0].Encrypted {
		t.Errorf("summary %q, encrypted %v", s.Compactions[0].Summary, s.Compactions[0].Encrypted)
	}
}

// TestOutputFailed holds outputFailed to the outputs Codex's tools write
// (codex-rs/core/src/tools/handlers/unified_exec.rs for exec_command;
// shell's JSON with metadata.exit_code; "Exit code: N" text).
func TestOutputFailed(t *testing.T) {
	no := false
	for _, c := range []struct {
		out  cxOutput
		want bool
	}{
		{cxOutput{Text: "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 1\nOutput:\nFAIL"}, true},
		{cxOutput{Text: "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 0\nOutput:\nok"}, false},
		{cxOutput{Text: "Process running with session ID 7\nOutput:\n"}, false},
		{cxOutput{Text: "the log said: Process exited with code 1 earlier"}, false},
		{cxOutput{Text: `{"output":"x","metadata":{"exit_code":2}}`}, true},
		{cxOutput{Text: "Exit code: 2\nWall time: 1s"}, true},
		{cxOutput{Text: "ok", Success: &no}, true},
	} {
		if got := outputFailed(c.out); got != c.want {
			t.Errorf("%.50q: failed %v, want %v", c.out.Text, got, c.want)
		}
	}
}

// TestCodexJoined: rollouts joined with cat are read one session each,
// as Claude Code logs are; a fork after its parent is its own session,
// the parent's copied session_meta inside it; a session that comes back
// after another is an error.
func TestCodexJoined(t *testing.T) {
	meta := func(id, from string) string {
		if from != "" {
			return `{"type":"session_meta","payload":{"id":"` + id + `","forked_from_id":"` + from + `"}}` + "\n"
		}
		return `{"type":"session_meta","payload":{"id":"` + id + `"}}` + "\n"
	}
	user := func(text string) string {
		return `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}` + "\n"
	}
	for _, c := range []struct {
		name, in string
		want     []string // id:turns of each session
		err      string
	}{
		{"two rollouts", meta("a", "") + user("one") + user("two") + meta("b", "") + user("three"), []string{"a:2", "b:1"}, ""},
		{"a parent, then its fork", meta("p", "") + user("one") + meta("f", "p") + meta("p", "") + user("one") + user("two"), []string{"p:1", "f:2"}, ""},
		{"one comes back", meta("a", "") + user("one") + meta("b", "") + meta("a", ""), nil,
			`j.jsonl:4:40: session_meta: session "a" comes back after another session's lines (its session_meta is at line 1)`},
	} {
		ss, err := ReadAll(strings.NewReader(c.in), "j.jsonl", Codex)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%s: got %v, want an error starting %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, s := range ss {
			got = append(got, fmt.Sprintf("%s:%d", s.ID, len(s.Turns)))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCodexTagKind: Codex's injected fragments are known after white
// space and in any case, as codex-rs's own check trims and folds them
// (a new user's trial: "  <ENVIRONMENT_CONTEXT>" and "<plugins>" were
// read as typed prompts, and propose offered a plugin list as the
// person's constraint).
func TestCodexTagKind(t *testing.T) {
	for _, c := range []struct {
		text string
		kind Kind
		ok   bool
	}{
		{"<environment_context>\n<cwd>/a</cwd>\n</environment_context>", Meta, true},
		{"  <ENVIRONMENT_CONTEXT>\n<cwd>/a</cwd>", Meta, true},
		{"<plugins>\n- github: PR tools\n</plugins>", Meta, true},
		{"<subagents>\n- reviewer\n</subagents>", Meta, true},
		{"# agents.md instructions for /src", Meta, true},
		{"<Turn_Aborted>", Interrupted, true},
		{"<user_shell_command>git log</user_shell_command>", ShellCommand, true},
		{"please keep <plugins> as they are", Typed, false},
		{"<", Typed, false},
	} {
		k, ok := cxTagKind(c.text)
		if k != c.kind || ok != c.ok {
			t.Errorf("%q: %v %v, want %v %v", c.text, k, ok, c.kind, c.ok)
		}
	}
}
