package agentlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tally-eval/tally/internal/input"
)

// A file's first line can say that no reader will read it, whatever the
// format: a prompt history beside the session logs, a session
// pretty-printed over many lines, a bare list of chat messages. Every
// reader (NewReader, and ReadClaudeCode, ReadCodex, ReadGeneric and
// ReadTally) refuses such a file with one line saying what it is and
// what to give instead, rather than an error about its first line's
// JSON.

// promptHistory is a kind of prompt-history file: its name, and where
// the sessions are.
type promptHistory struct{ name, sessions string }

var (
	// Claude Code appends each prompt typed to ~/.claude/history.jsonl:
	// {"display": "...", "pastedContents": {}, "timestamp": <ms>,
	// "project": "/path"}, and in later versions a "sessionId".
	claudeHistory = promptHistory{"Claude Code's prompt history (~/.claude/history.jsonl)", "~/.claude/projects"}
	// Codex CLI appends each prompt to ~/.codex/history.jsonl:
	// {"session_id": "...", "ts": <s>, "text": "..."}, in some versions
	// "conversation_id" for "session_id" (openai/codex,
	// codex-rs/core/src/message_history.rs: HistoryEntry).
	codexHistory = promptHistory{"Codex's prompt history (~/.codex/history.jsonl)", "~/.codex/sessions"}
)

// PromptHistory names the prompt history whose start first is, or
// returns "" when its first line that is not blank is not one: "Claude
// Code's prompt history (~/.claude/history.jsonl)" for an object with a
// "display" string and a numeric "timestamp" but no "type", "message"
// or "messages" (a session record's timestamp is a string), "Codex's
// prompt history (~/.codex/history.jsonl)" for one with a "session_id"
// (or "conversation_id") string, a numeric "ts" and a "text" string but
// no "type", "kind" or "messages". Such a file lists the prompts a person typed, across sessions, and is
// no session log: the readers refuse it, and a caller walking a folder
// can leave it out.
func PromptHistory(first []byte) string {
	h, _ := promptHistoryOf(first)
	return h.name
}

// promptHistoryOf is PromptHistory's finding, with where the sessions
// are.
func promptHistoryOf(first []byte) (promptHistory, bool) {
	line, _, _ := firstLine(first)
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !(bytes.Contains(line, []byte(`"display"`)) || bytes.Contains(line, []byte(`"ts"`))) {
		return promptHistory{}, false // cheap: most first lines stop here
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return promptHistory{}, false
	}
	is := func(key string, kind byte) bool {
		v, ok := m[key]
		if !ok || len(v) == 0 {
			return false
		}
		if kind == '0' {
			return v[0] == '-' || '0' <= v[0] && v[0] <= '9'
		}
		return v[0] == kind
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case is("display", '"') && is("timestamp", '0') && !has("type", "message", "messages"):
		return claudeHistory, true
	case (is("session_id", '"') || is("conversation_id", '"')) && is("ts", '0') && is("text", '"') && !has("type", "kind", "messages"):
		return codexHistory, true
	}
	return promptHistory{}, false
}

// firstLine is the first line of head that is not blank (without its
// line break), its number from 1, and whether head holds another line
// that is not blank after it.
func firstLine(head []byte) (line []byte, n int, more bool) {
	n = 1
	for {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return head, n, false
		}
		if len(bytes.TrimSpace(head[:i])) > 0 {
			return head[:i], n, len(bytes.TrimSpace(head[i+1:])) > 0
		}
		head = head[i+1:]
		n++
	}
}

// headError is a file refused by its first line (headProblem): msg, at
// line:col of file name when line is not 0.
type headError struct {
	name      string
	line, col int
	msg       string
}

func (e *headError) Error() string {
	switch {
	case e.line == 0:
		return fmt.Sprintf("%s: %s", e.name, e.msg)
	case e.col == 0:
		return fmt.Sprintf("%s:%d: %s", e.name, e.line, e.msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.name, e.line, e.col, e.msg)
}

// headProblem is the error for a file whose start, head, says that it is
// no agent log (see above), or nil.
func headProblem(name string, head []byte) *headError {
	if h, ok := promptHistoryOf(head); ok {
		return &headError{name: name, msg: fmt.Sprintf("this is %s, not a session log: the sessions are under %s", h.name, h.sessions)}
	}
	line, n, more := firstLine(head)
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' && line[0] != '[' {
		return nil
	}
	// A line that is a JSON value's start and no more, with more lines
	// after it, is pretty-printed JSON (json.dump(…, indent=2)): no
	// reader's line is whole. A first line cut short at the end of the
	// file is not: its reader says where it ends.
	pretty := more && errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(new(json.RawMessage)), io.ErrUnexpectedEOF)
	if line[0] == '[' {
		// A list of chat messages (its first "role" before any
		// "messages") is a session's messages without the session.
		if r := bytes.Index(head, []byte(`"role"`)); r >= 0 && (pretty || json.Valid(line)) {
			if m := bytes.Index(head, []byte(`"messages"`)); m < 0 || r < m {
				return &headError{name: name, line: n, col: 1, msg: fmt.Sprintf(`the file is a JSON list of chat messages, not a session: the generic format is one session a line, an object holding its messages, {"session_id": "…", "messages": [ … ]} (%s)`, jq(`'{session_id: "ID", messages: .}'`, name))}
			}
		}
		if pretty {
			return &headError{name: name, line: n, col: 1, msg: fmt.Sprintf(`the file holds one JSON list spread over several lines (pretty-printed), and an agent log holds one JSON object a line: write its elements one a line (%s)`, jq(`'.[]'`, name))}
		}
		if json.Valid(line) && bytes.HasPrefix(bytes.TrimLeft(line[1:], " \t"), []byte("{")) {
			// Sessions exported as one list on one line (a re-check
			// trial got a list error with a --skip-bad hint).
			return &headError{name: name, line: n, col: 1, msg: fmt.Sprintf(`the file is one JSON list, and an agent log holds one JSON object a line: write its elements one a line (%s)`, jq(`'.[]'`, name))}
		}
		return nil
	}
	if pretty && bytes.Contains(head, []byte(`"conversation_id"`)) { // a fixture's key
		return &headError{name: name, line: n, col: 1, msg: fmt.Sprintf(`the file holds one JSON object spread over several lines (pretty-printed) with a "conversation_id": a fixture? An agent log holds one JSON object a line (a session pretty-printed becomes one with %s)`, jq(".", name))}
	}
	if pretty {
		return &headError{name: name, line: n, col: 1, msg: "the file holds one JSON object spread over several lines (pretty-printed), and a session must be one line: " + jq(".", name)}
	}
	return nil
}

// jq is the command that rewrites the file name one JSON value a line
// with jq's filter: "jq -c FILTER NAME > NAME.jsonl", or from gunzip for
// a gzipped file (jq reads no gzip: a re-check trial's advice failed).
func jq(filter, name string) string {
	if plain, ok := strings.CutSuffix(name, ".gz"); ok {
		return fmt.Sprintf("gunzip -c %s | jq -c %s > %s", name, filter, jsonlName(plain))
	}
	return fmt.Sprintf("jq -c %s %s > %s", filter, name, jsonlName(name))
}

// jsonlName is the name to suggest for a file rewritten one object a
// line: name with .jsonl for its .json, or before its .jsonl.
func jsonlName(name string) string {
	switch {
	case strings.HasSuffix(name, ".json"):
		return strings.TrimSuffix(name, ".json") + ".jsonl"
	case strings.HasSuffix(name, ".jsonl"):
		return strings.TrimSuffix(name, ".jsonl") + ".lines.jsonl"
	}
	return name + ".jsonl"
}

// headChecked is r wrapped in a buffer whose start (as much as the
// buffer holds) headProblem has passed: the start of a Read… function's
// read.
func headChecked(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if e := headProblem(name, head); e != nil {
		return nil, e
	}
	return br, nil
}

// refused reads a file refused as a whole (headProblem's e) under
// Options.SkipBad: it reads none of its lines, and counts each as
// MalformedLine on one session (Session.Unread), passing e at that line
// to o.Bad, as for any malformed line.
func refused(r io.Reader, name string, f Format, o Options, e *headError) func() (*Session, error) {
	lines := input.NewLines(r, name, o.MaxLine)
	done := false
	return func() (*Session, error) {
		if done {
			return nil, io.EOF
		}
		done = true
		s := &Session{Name: name, Format: f, Records: Counts{Read: map[string]int{}, Skipped: map[string]int{}}}
		bad := o.bad()
		for {
			b, err := lines.Next()
			if err == io.EOF {
				return s, nil
			}
			var le *input.LineError
			switch {
			case err != nil && !errors.As(err, &le):
				return nil, fmt.Errorf("%s:%d: %w", name, lines.Line()+1, err)
			case err == nil && len(bytes.TrimSpace(b)) == 0:
				s.Records.Skipped["(blank line)"]++
			default:
				s.Records.Skipped[MalformedLine]++
				at := *e
				at.line, at.col = lines.Line(), 0
				bad(&at)
			}
		}
	}
}
