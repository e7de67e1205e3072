package agentlog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tally-eval/tally/internal/input"
)

// The first lines of prompt histories. Claude Code's are as its
// ~/.claude/history.jsonl holds them (a new user's trial, and the brief
// of this fix: display, pastedContents, timestamp in milliseconds,
// project, and in later versions sessionId); Codex's as
// codex-rs/core/src/message_history.rs (openai/codex) documents
// HistoryEntry: {"conversation_id"|"session_id", "ts" in seconds,
// "text"}.
const (
	claudeHistoryLine   = `{"display":"Please add rate limiting.","pastedContents":{},"timestamp":1772442000000,"project":"/home/dev/svc"}`
	claudeHistoryLineID = `{"display":"/compact","pastedContents":{},"timestamp":1772442000000,"project":"/home/dev/web","sessionId":"b2b2b2b2-0000-4000-8000-000000000002"}`
	codexHistoryLine    = `{"session_id":"a","ts":1758532443,"text":"Add keys"}`
	codexHistoryLineOld = `{"conversation_id":"a","ts":1758532443,"text":"Add keys"}`
)

// TestPromptHistory: PromptHistory names a prompt history by its first
// line that is not blank, and nothing else.
func TestPromptHistory(t *testing.T) {
	claude := "Claude Code's prompt history (~/.claude/history.jsonl)"
	codex := "Codex's prompt history (~/.codex/history.jsonl)"
	for _, c := range []struct {
		name, first, want, reason string
	}{
		{"Claude Code", claudeHistoryLine + "\n", claude, "display and a numeric timestamp"},
		{"Claude Code with sessionId", claudeHistoryLineID + "\n", claude, "later versions add sessionId"},
		{"Claude Code, last line without a line break", claudeHistoryLine, claude, "a one-line file"},
		{"Codex", codexHistoryLine + "\n" + codexHistoryLine + "\n", codex, "session_id, ts, text"},
		{"Codex, conversation_id", codexHistoryLineOld + "\n", codex, "message_history.rs's HistoryEntry"},
		{"after blank lines", "\n \r\n" + codexHistoryLine + "\n", codex, "blank lines are skipped, as Sniff skips them"},
		{"a Claude Code record", `{"type":"user","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n", "", "its timestamp is a string, and it has a type"},
		{"a Claude Code record with a display in it", `{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","input":{"display":"x","timestamp":1}}]}}`, "", "the keys must be the line's own"},
		{"a tally event", `{"kind":"message","session_id":"s","ts":1,"text":"hi"}`, "", `an event log has "kind"`},
		{"a generic session", `{"session_id":"s","ts":1,"text":"x","messages":[]}`, "", `a generic session has "messages"`},
		{"a line cut short", `{"display":"x","timestamp":17724`, "", "not an object: nothing is guessed"},
		{"ts as a string", `{"session_id":"a","ts":"1758532443","text":"Add keys"}`, "", "ts is a number in both formats"},
		{"empty", "", "", ""},
		{"YAML", "display: x\ntimestamp: 1\n", "", "not JSON"},
	} {
		if got := PromptHistory([]byte(c.first)); got != c.want {
			t.Errorf("%s: got %q, want %q (%s)", c.name, got, c.want, c.reason)
		}
	}
}

// TestRefusedFiles: a file whose first line shows that it is no agent
// log is refused by every reader, sniffed or named, with one line that
// says what it is and what to give instead (a new user's trial: a
// prompt history, a session pretty-printed with json.dump(indent=2) and
// a bare list of messages each got an error about their JSON).
func TestRefusedFiles(t *testing.T) {
	pretty := "{\n  \"session_id\": \"s\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n"
	const prettyErr = "x.jsonl:1:1: the file holds one JSON object spread over several lines (pretty-printed), and a session must be one line: jq -c . x.jsonl > x.lines.jsonl"
	const listErr = `x.jsonl:1:1: the file is a JSON list of chat messages, not a session: the generic format is one session a line, an object holding its messages, {"session_id": "…", "messages": [ … ]} (jq -c '{session_id: "ID", messages: .}' x.jsonl > x.lines.jsonl)`
	cases := []struct {
		name, text, want string
	}{
		{"Claude Code's prompt history", claudeHistoryLine + "\n" + claudeHistoryLineID + "\n",
			"x.jsonl: this is Claude Code's prompt history (~/.claude/history.jsonl), not a session log: the sessions are under ~/.claude/projects"},
		{"Codex's prompt history", codexHistoryLine + "\n",
			"x.jsonl: this is Codex's prompt history (~/.codex/history.jsonl), not a session log: the sessions are under ~/.codex/sessions"},
		{"pretty-printed, { alone", pretty, prettyErr},
		{"pretty-printed, an object open at the end of line 1", `{"session_id": "s", "messages": [` + "\n" + `{"role": "user", "content": "hi"}]}` + "\n", prettyErr},
		{"pretty-printed after a blank line", "\n" + pretty, strings.Replace(prettyErr, ":1:1:", ":2:1:", 1)},
		{"a list of messages on one line", `[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]` + "\n", listErr},
		{"a list of messages pretty-printed", "[\n  {\n    \"role\": \"user\",\n    \"content\": \"hi\"\n  }\n]\n", listErr},
		{"a list of sessions pretty-printed", "[\n  {\"session_id\": \"s\", \"messages\": [{\"role\": \"user\"}]}\n]\n",
			`x.jsonl:1:1: the file holds one JSON list spread over several lines (pretty-printed), and an agent log holds one JSON object a line: write its elements one a line (jq -c '.[]' x.jsonl > x.lines.jsonl)`},
		// A re-check trial: sessions exported as one list on one line.
		{"a list of sessions on one line", `[{"session_id":"s","messages":[{"role":"user","content":"hi"}]},{"session_id":"t","messages":[]}]` + "\n",
			`x.jsonl:1:1: the file is one JSON list, and an agent log holds one JSON object a line: write its elements one a line (jq -c '.[]' x.jsonl > x.lines.jsonl)`},
	}
	for _, c := range cases {
		for _, f := range append([]Format{""}, Formats...) {
			_, err := ReadAll(strings.NewReader(c.text), "x.jsonl", f)
			if err == nil || err.Error() != c.want {
				t.Errorf("%s, format %q: got %v, want %s", c.name, f, err, c.want)
			}
		}
		// The Read… functions refuse it too.
		var errs []error
		_, err := ReadClaudeCode(strings.NewReader(c.text), "x.jsonl")
		errs = append(errs, err)
		_, err = ReadCodex(strings.NewReader(c.text), "x.jsonl")
		errs = append(errs, err)
		_, err = ReadGeneric(strings.NewReader(c.text), "x.jsonl")
		errs = append(errs, err)
		_, err = ReadTally(strings.NewReader(c.text), "x.jsonl")
		errs = append(errs, err)
		for i, err := range errs {
			if err == nil || err.Error() != c.want {
				t.Errorf("%s, Read function %d: got %v, want %s", c.name, i, err, c.want)
			}
		}
	}
}

// TestNotRefused: files that look a little like the refused ones are
// read by their reader, whose own error (if any) stands.
func TestNotRefused(t *testing.T) {
	for _, c := range []struct {
		name, text string
		f          Format
		want       string // an error's start, or "" for none
		reason     string
	}{
		{"a one-line file cut short", `{"session_id": "s", "messages": [`, Generic, "x.jsonl:1:", "no line follows: a line cut short, not pretty-printed"},
		{"a list of numbers", "[1, 2]\n", "", "x.jsonl:1:1: want an object, got a list (an agent log holds one JSON object a line", "no chat messages in it"},
		{"a generic session", `{"session_id":"s","messages":[{"role":"user","content":"hi"}]}` + "\n", "", "", ""},
	} {
		_, err := ReadAll(strings.NewReader(c.text), "x.jsonl", c.f)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v (%s)", c.name, err, c.reason)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "pretty-printed")):
			t.Errorf("%s: got %v, want an error starting %q (%s)", c.name, err, c.want, c.reason)
		}
	}
}

// TestRefusedSkipBad: under SkipBad a refused file is one session none
// of whose lines is read, each counted as malformed and its error passed
// to Bad, as Options.SkipBad says of a malformed line (so a folder read
// with --skip-bad goes on past it, and the two counts agree).
func TestRefusedSkipBad(t *testing.T) {
	text := codexHistoryLine + "\n\n" + codexHistoryLine + "\n"
	var bad []string
	rd, err := NewReader(strings.NewReader(text), "h.jsonl", Options{SkipBad: true, Bad: func(err error) { bad = append(bad, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("second Next: %v, want io.EOF", err)
	}
	want := []string{
		"h.jsonl:1: this is Codex's prompt history (~/.codex/history.jsonl), not a session log: the sessions are under ~/.codex/sessions",
		"h.jsonl:3: this is Codex's prompt history (~/.codex/history.jsonl), not a session log: the sessions are under ~/.codex/sessions",
	}
	if !s.Unread() || s.Records.Skipped[MalformedLine] != 2 || s.Records.Skipped["(blank line)"] != 1 || strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Errorf("unread %v, skipped %v, bad %q; want unread, 2 malformed and 1 blank line, bad %q", s.Unread(), s.Records.Skipped, bad, want)
	}
}

// TestFirstLineNote: the note that a file's first line is not a JSON
// object is added only when it is not one; a first record whose field
// has the wrong type is a JSON object (a new user's trial got the note
// on Claude Code's history.jsonl, whose first line is one).
func TestFirstLineNote(t *testing.T) {
	const note = "(an agent log holds one JSON object a line, and this file's first line is not one"
	for _, c := range []struct {
		name, text, want string
		note             bool
	}{
		{"a field of the wrong type", `{"type":"user","sessionId":"s","isSidechain":"no"}` + "\n", "x.jsonl:1:", false},
		{"a field of the wrong type after a blank line", "\n" + `{"type":"user","sessionId":"s","isSidechain":"no"}` + "\n", "x.jsonl:2:", false},
		{"YAML", "gate:\n  margin: 0.05\n", "x.jsonl:1:1: invalid character", true},
		{"a list", "[1]\n", "x.jsonl:1:1: want an object, got a list", true},
		{"an object with a syntax error", `{"type":"user",}` + "\n", "x.jsonl:1:", true},
	} {
		_, err := ReadAll(strings.NewReader(c.text), "x.jsonl", ClaudeCode)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), note) != c.note {
			t.Errorf("%s: got %v, want an error starting %q, with the note: %v", c.name, err, c.want, c.note)
		}
	}
}

// TestSniffedCamelCase: a line with a "messages" list and a "sessionId"
// (a framework's camelCase metadata beside the generic format's fields)
// is sniffed as Claude Code, as README's table says; the error then says
// that it may be the generic format and how to read it as that.
func TestSniffedCamelCase(t *testing.T) {
	line := `{"session_id":"s","messages":[{"role":"user","content":"hi"}],"metadata":{"sessionId":"s"}}` + "\n"
	if f := Sniff([]byte(line)); f != ClaudeCode {
		t.Fatalf("sniffed %s, want claude-code (the documented rule)", f)
	}
	_, err := ReadAll(strings.NewReader(line), "x.jsonl", "")
	want := `x.jsonl:1: record has no "type": a Claude Code log's records all have one, and this line has a "messages" list, so it may be the generic format (read as Claude Code because the line also has a "sessionId"): give --log-format generic`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	ss, err := ReadAll(strings.NewReader(line), "x.jsonl", Generic)
	if err != nil || len(ss) != 1 || len(ss[0].Turns) != 1 {
		t.Errorf("read as generic: %d sessions, %v; want 1 of 1 turn", len(ss), err)
	}
}

// FuzzFirstLine: the checks of a file's first line never panic, and a
// file they refuse is refused by every reader alike.
func FuzzFirstLine(f *testing.F) {
	for _, s := range []string{claudeHistoryLine, codexHistoryLineOld, "{\n}", "[\n{\"role\":\"user\"}\n]", `[{"role":"user"}]`, "{\"a\": [\n1]}\n", "\n\n{", `{"display":"x","timestamp":-}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = PromptHistory(b)
		e := headProblem("fuzz.jsonl", b)
		if e == nil || len(b) >= 64<<10 || bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || input.Encoding(b) != "" {
			return // refused, if at all, before the first line is looked at
		}
		for _, fm := range Formats {
			_, err := ReadAll(bytes.NewReader(b), "fuzz.jsonl", fm)
			var he *headError
			if !errors.As(err, &he) || err.Error() != e.Error() {
				t.Fatalf("format %s: %v, want %v", fm, err, e)
			}
		}
	})
}

// TestJQAdvice: the jq command offered for a gzipped file decompresses
// it first, as jq reads no gzip (a re-check trial's advice failed).
func TestJQAdvice(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"s.json", "jq -c . s.json > s.jsonl"},
		{"s.jsonl", "jq -c . s.jsonl > s.lines.jsonl"},
		{"s.jsonl.gz", "gunzip -c s.jsonl.gz | jq -c . > s.lines.jsonl"},
		{"s.json.gz", "gunzip -c s.json.gz | jq -c . > s.jsonl"},
	} {
		if got := jq(".", c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPromptHistoryIn: a prompt history is told from a file's start,
// gzipped or not, as a folder walk meets it; a session log is not one.
func TestPromptHistoryIn(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, claudeHistoryLine+"\n")
	zw.Close()
	for _, c := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"plain", strings.NewReader(codexHistoryLine + "\n"), "Codex's prompt history (~/.codex/history.jsonl)"},
		{"gzipped", &gz, "Claude Code's prompt history (~/.claude/history.jsonl)"},
		{"a session", strings.NewReader(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"), ""},
		{"not gzip after the magic", strings.NewReader("\x1f\x8bnot gzip"), ""},
	} {
		if got := PromptHistoryIn(c.r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
