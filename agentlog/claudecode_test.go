package agentlog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/internal/input"
)

// TestReadClaudeCode pins what testdata/session.jsonl says, counted by
// hand from the file.
func TestReadClaudeCode(t *testing.T) {
	s, err := Open("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	typed := 0
	for _, m := range s.Messages {
		if m.Typed() {
			typed++
		}
	}
	calls, results, errs := 0, 0, 0
	for _, st := range s.Steps {
		for _, c := range st.Calls {
			calls++
			if c.HasResult {
				results++
			}
			if c.IsError {
				errs++
			}
		}
	}
	for _, c := range []struct {
		what      string
		got, want any
		reason    string
	}{
		{"id", s.ID, "s-1", "sessionId of the first record with one"},
		{"format", s.Format, ClaudeCode, ""},
		{"cwd", s.Cwd, "/src/cli", "cwd of the first record with one (line 2; line 20 has another)"},
		{"step uuids", [][]string{s.Steps[0].UUIDs, s.Steps[1].UUIDs, s.Steps[2].UUIDs, s.Steps[3].UUIDs, s.Steps[4].UUIDs},
			[][]string{{"a1", "a2", "a3"}, {"a4", "a5"}, {"a6"}, {"a8"}, {"a9"}}, "a7 is msg_D's, a sidechain"},
		{"step first uuids", []string{s.Steps[0].UUID, s.Steps[1].UUID, s.Steps[4].UUID}, []string{"a1", "a4", "a9"}, ""},
		{"call uuids", [][2]string{{s.Steps[0].Calls[0].UUID, s.Steps[0].Calls[0].ResultUUID},
			{s.Steps[1].Calls[0].UUID, s.Steps[1].Calls[0].ResultUUID}, {s.Steps[1].Calls[1].UUID, s.Steps[1].Calls[1].ResultUUID},
			{s.Steps[3].Calls[0].UUID, s.Steps[3].Calls[0].ResultUUID}},
			[][2]string{{"a3", "u2"}, {"a4", "u3"}, {"a5", "u4"}, {"a8", "u11"}}, "tool_use lines 5, 8, 9, 22; results lines 7, 10, 11, 23"},
		{"message uuids", messageUUIDs(s), []string{"u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11", "u12", "u13", "u14"}, ""},
		{"turns", len(s.Turns), 4, "lines 2, 15 (/compact), 20 (typed beside an IDE note), 27"},
		{"steps", len(s.Steps), 5, "msg_A (3 records), msg_B (2), msg_C, msg_E, msg_F; msg_D is a sidechain"},
		{"steps per turn", []int{s.Turns[0].Steps, s.Turns[1].Steps, s.Turns[2].Steps, s.Turns[3].Steps}, []int{3, 0, 1, 1}, ""},
		{"records of msg_A", s.Steps[0].Records, 3, "thinking, text, tool_use"},
		{"msg_A thinking", s.Steps[0].Thinking, "The flag goes in main.go.", ""},
		{"msg_A text", s.Steps[0].Text, "I'll look at main.go first.", ""},
		{"tool calls", calls, 4, "tu1 Read, tu2 and tu3 Bash, tu4 Task"},
		{"results", results, 4, "every call has its result"},
		{"errors", errs, 1, "tu2 is_error"},
		{"tu2 result", s.Steps[1].Calls[0].Result, "exit status 1\nFAIL\tgithub.com/x/cli", ""},
		{"tu2 input", string(s.Steps[1].Calls[0].Input), `{"command":"go test ./...","description":"Run the tests"}`, "raw JSON"},
		{"tu3 result", s.Steps[1].Calls[1].Result, "ok", "a list of text parts"},
		{"tu3 result line", s.Steps[1].Calls[1].ResultLine, 11, ""},
		{"orphan results", s.OrphanResults, 1, "tu99 on line 32"},
		{"messages", len(s.Messages), 14, "every user record outside the sidechain"},
		{"typed", typed, 4, "the turns' prompts"},
		{"kinds", kinds(s), []Kind{Typed, ToolResult, ToolResult, ToolResult, SystemReminder, SlashCommand,
			CompactSummary, Meta, CommandOutput, Typed, ToolResult, Interrupted, Typed, ToolResult}, ""},
		{"typed beside an IDE note", s.Messages[9].Text, "now add tests for it", "the IDE note is left out"},
		{"compactions", len(s.Compactions), 1, ""},
		{"compaction", s.Compactions[0], Compaction{Trigger: "manual", PreTokens: 12345, Turn: 1, Step: 3, Message: 6, Line: 16,
			Summary:     "This session is being continued from a previous conversation that ran out of context.\nSummary: add a --verbose flag; tests fail in main.go.",
			SummaryLine: 17, UUID: "y2", SummaryUUID: "u7"}, ""},
		{"microcompactions", s.Microcompactions, []Microcompaction{{Trigger: "auto", PreTokens: 58573, TokensSaved: 20801,
			ToolIDs: []string{"tu1", "tu2"}, Turn: 3, Step: 5, Line: 31}}, ""},
		{"api errors", s.APIErrors, []APIError{{Status: 529, Turn: 2, Step: 4, Line: 26}}, ""},
		{"read", s.Records.Read, map[string]int{"user": 14, "assistant": 8, "system/compact_boundary": 1,
			"system/microcompact_boundary": 1, "system/api_error": 1, "queue-operation/enqueue": 1}, "the enqueued prompt never left the queue: no message"},
		{"skipped", s.Records.Skipped, map[string]int{"file-history-snapshot": 1, "progress": 1, "system/turn_duration": 1,
			"sidechain/assistant": 1, "summary": 1, "x-future": 1}, "x-future is a type not known"},
		{"lines", s.Records.Lines(), 32, "every line counted once"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v (%s)", c.what, c.got, c.want, c.reason)
		}
	}
}

func messageUUIDs(s *Session) []string {
	var u []string
	for _, m := range s.Messages {
		u = append(u, m.UUID)
	}
	return u
}

func kinds(s *Session) []Kind {
	var k []Kind
	for _, m := range s.Messages {
		k = append(k, m.Kind)
	}
	return k
}

// TestOpenGzip reads each format's test file gzipped, under a name that
// may or may not say so: the magic bytes decide, and sniffing the format
// sees through the compression.
func TestOpenGzip(t *testing.T) {
	for _, c := range []struct {
		file, name string
		read       func(io.Reader, string) ([]*Session, error)
	}{
		{"testdata/session.jsonl", "session.jsonl", ReadClaudeCode},
		{"testdata/codex-rollout.jsonl", "rollout.jsonl.gz", func(r io.Reader, name string) ([]*Session, error) {
			s, err := ReadCodex(r, name)
			return []*Session{s}, err
		}},
	} {
		raw, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(raw)
		zw.Close()
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.read(bytes.NewReader(raw), path)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 1 || !reflect.DeepEqual(got, want[0]) {
			t.Errorf("%s: the gzipped file reads differently from the plain one", c.file)
		}
	}
}

func TestOpenRefusesFolder(t *testing.T) {
	_, err := Open(t.TempDir())
	if !errors.Is(err, input.ErrNotRegular) {
		t.Errorf("got %v, want a not-regular-file error", err)
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"the malformed file", "", "testdata/malformed.jsonl:2:104: invalid character ','"},
		{"not an object", "[1]\n", "x.jsonl:1:1: want an object, got a list"},
		{"a field of the wrong type", `{"type":"user","isMeta":"yes","message":{"content":"hi"}}` + "\n", "x.jsonl:1:29: isMeta: want true or false, got a string"},
		{"no type", `{"message":{"content":"hi"}}` + "\n", `x.jsonl:1: record has no "type": a Claude Code log's records all have one (is this file in another format?`},
		{"no type after the first record", `{"type":"pr-link"}` + "\n" + `{"message":{"content":"hi"}}` + "\n", `x.jsonl:2: record has no "type"`},
		// Content errors name the field's path and column (a new user's
		// trial had column 1 and a Go type name).
		{"content of the wrong type", `{"type":"pr-link"}` + "\n" + `{"type":"user","message":{"content":7}}`, "x.jsonl:2:37: message.content: want a string or a list, got a number"},
		{"a part of the wrong type", `{"type":"user","message":{"content":[{"type":"text","text":5}]}}`, "x.jsonl:1:60: message.content[0].text: want a string, got a number"},
		{"a part that is a string", `{"type":"user","message":{"content":["hi"]}}`, "x.jsonl:1:38: message.content[0]: want an object (a part), got a string"},
		{"a tool result of an object", `{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t","content":{"text":"x"}}]}}`, "x.jsonl:1:115: message.content[1].content: want a string or a list, got an object"},
		{"a tool result's part of the wrong type", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":[]}]}]}}`, "x.jsonl:1:111: message.content[0].content[0].text: want a string, got a list"},
		{"a queued prompt's list that holds no parts", `{"type":"queue-operation","operation":"enqueue","content":[1]}`, "x.jsonl:1:60: content[0]: want an object (a part), got a number"},
		{"a user record without message", `{"type":"user"}`, "x.jsonl:1: user record has no message"},
		{"a cut-off line", `{"type":"user","message":{"content":"hi"}`, "x.jsonl:1:"},
	} {
		var err error
		if c.in == "" {
			_, err = Open("testdata/malformed.jsonl")
		} else {
			_, err = ReadClaudeCode(strings.NewReader(c.in), "x.jsonl")
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

func TestKindTyped(t *testing.T) {
	for k := Typed; k <= Queued; k++ {
		want := k == Typed || k == SlashCommand || k == ShellCommand
		if k.Typed() != want || k.String() == "unknown" {
			t.Errorf("%v: Typed() = %v, want %v", k, k.Typed(), want)
		}
	}
}

func FuzzReadClaudeCode(f *testing.F) {
	for _, p := range []string{"testdata/session.jsonl", "testdata/malformed.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"user","isCompactSummary":true,"message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ReadClaudeCode(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		lines := 0
		for i, s := range ss {
			lines += s.Records.Lines()
			if i > 0 && (s.ID == "" || s.ID == ss[i-1].ID) {
				t.Errorf("session %d has id %q after %q", i, s.ID, ss[i-1].ID)
			}
		}
		if lines != bytes.Count(b, []byte("\n"))+btoi(len(b) > 0 && b[len(b)-1] != '\n') {
			t.Errorf("counted %d lines", lines)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestReadClaudeCodeQueued pins the prompts a person types while the
// agent works (testdata/queued.jsonl, written from the queue-operation
// records of the dev set): enqueue then remove is a Queued message of the
// turn it was sent in, placed before the next step; enqueue then dequeue
// is sent as the next prompt, whose user record is the message (not read
// twice); enqueue then popAll went back to the input box and is no
// message; the client's task notification and a bare slash command
// ("/model", which the client runs) through the queue are skipped.
func TestReadClaudeCodeQueued(t *testing.T) {
	s, err := Open("testdata/queued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Messages {
		got = append(got, fmt.Sprintf("%s turn %d step %d line %d person %v: %s", m.Kind, m.Turn, m.Step, m.Line, m.Person(), m.Text))
	}
	want := []string{
		"typed turn 0 step 0 line 1 person true: rename the config loader",
		"tool result turn 0 step 1 line 4 person false: ",
		"queued turn 0 step 1 line 3 person true: keep the old name as an alias",
		"typed turn 1 step 2 line 11 person true: and run the tests",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Turns) != 2 {
		t.Errorf("%d turns, want 2: a queued prompt starts none", len(s.Turns))
	}
	for _, c := range []struct {
		counts map[string]int
		want   map[string]int
	}{
		{s.Records.Read, map[string]int{"user": 3, "assistant": 3, "queue-operation/enqueue": 3, "queue-operation/remove": 3, "queue-operation/dequeue": 1, "queue-operation/popAll": 1}},
		{s.Records.Skipped, map[string]int{"queue-operation/enqueue (injected)": 1, "queue-operation/enqueue (slash command)": 1}},
	} {
		if !reflect.DeepEqual(c.counts, c.want) {
			t.Errorf("counts %v, want %v", c.counts, c.want)
		}
	}
	if s.Records.Lines() != 16 {
		t.Errorf("%d lines counted, want 16", s.Records.Lines())
	}
}

// TestClaudeCodeTextLine pins a step's TextLine: the line of the record
// holding its first text part, after a record of thinking alone (Claude
// Code writes one response as several records sharing message.id).
func TestClaudeCodeTextLine(t *testing.T) {
	log := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"Fix the build."}}
{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"Looking."}]}}
{"type":"assistant","uuid":"a2","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"I'll fix config.go:239."}]}}
{"type":"assistant","uuid":"a3","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/src/config.go"}}]}}
{"type":"assistant","uuid":"a4","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go build ./..."}}]}}
`
	sessions, err := ReadAll(strings.NewReader(log), "t.jsonl", ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || len(sessions[0].Steps) != 1 {
		t.Fatalf("sessions %+v", sessions)
	}
	st := sessions[0].Steps[0]
	if st.Line != 2 || st.TextLine != 3 || st.Records != 4 {
		t.Errorf("step line %d, text line %d, records %d; want 2, 3, 4", st.Line, st.TextLine, st.Records)
	}
	// Each call is on its own record's line (a new user's trial: the
	// evidence pointed at the response's thinking, lines before).
	if len(st.Calls) != 2 || st.Calls[0].Line != 4 || st.Calls[1].Line != 5 {
		t.Errorf("calls %+v: want lines 4 and 5", st.Calls)
	}
}
