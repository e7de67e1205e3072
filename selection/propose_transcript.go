package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonpos"
)

// This file holds the reader of event logs `tally propose` runs on
// (ReadTranscripts), independent of the package's EventReader.

// TranscriptEvent is one line of an event log (DESIGN.md, "Event log"):
// a message, a tool call or a compaction at a turn of a session.
type TranscriptEvent struct {
	SessionID string          `json:"session_id"`
	Turn      int             `json:"turn"`
	TS        string          `json:"ts,omitempty"`
	Kind      string          `json:"kind"`           // "message", "tool_call" or "compaction"
	Role      string          `json:"role,omitempty"` // messages: "user" and "assistant" are read
	Text      string          `json:"text,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	// Line is the event's line in its file, 1-based.
	Line int `json:"-"`
}

// Transcript is one session's events, in turn order (events of one turn
// in file order).
type Transcript struct {
	SessionID string
	Events    []TranscriptEvent
}

// Turns is the session's last turn: the highest turn of any event.
func (t Transcript) Turns() int {
	n := 0
	for _, e := range t.Events {
		n = max(n, e.Turn)
	}
	return n
}

// Compactions counts the session's compaction events.
func (t Transcript) Compactions() int {
	n := 0
	for _, e := range t.Events {
		if e.Kind == "compaction" {
			n++
		}
	}
	return n
}

// Session is t as an agentlog.Session, for Propose: each turn of t a
// turn of the session (a turn without a user message too, so turns keep
// their numbers), user messages typed prompts, assistant messages steps,
// compaction events compactions. Tool calls are left out.
func (t Transcript) Session() *agentlog.Session {
	s := &agentlog.Session{ID: t.SessionID, Turns: make([]agentlog.Turn, t.Turns())}
	for _, e := range t.Events {
		switch {
		case e.Kind == "compaction":
			s.Compactions = append(s.Compactions, agentlog.Compaction{Turn: e.Turn - 1, Step: len(s.Steps), Line: e.Line})
		case e.Kind == "message" && e.Role == "user":
			s.Messages = append(s.Messages, agentlog.Message{Turn: e.Turn - 1, Step: len(s.Steps), Line: e.Line, Text: e.Text})
		case e.Kind == "message" && e.Role == "assistant":
			s.Steps = append(s.Steps, agentlog.Step{Turn: e.Turn - 1, Line: e.Line, Text: e.Text})
		}
	}
	return s
}

// TranscriptOptions says which events ReadTranscripts keeps.
type TranscriptOptions struct {
	// Session keeps only this session's events; "" keeps every session.
	// Every line is checked either way.
	Session string
	// SkipBad skips malformed lines instead of failing; each skipped line
	// is reported in TranscriptLog.Skipped, never dropped silently.
	SkipBad bool
	// Limits.MaxLine bounds each line (0: input.DefaultMaxLine); a
	// longer one is a malformed line. Limits.MaxFile is for the caller
	// that opens the file (input.Open): ReadTranscripts reads a stream.
	Limits input.Limits
}

// TranscriptLog is what ReadTranscripts read.
type TranscriptLog struct {
	// Sessions holds each session kept, in order of first appearance.
	Sessions []Transcript
	// Skipped has one problem per malformed line skipped under SkipBad.
	Skipped fixture.Problems
}

// propMaxProblems caps the problems reported for one file: a file that
// is not an event log at all would otherwise give one per line.
const propMaxProblems = 100

// ReadTranscripts reads an event log — JSONL, one event per line, blank
// lines ignored, "\n" or "\r\n" endings — holding one session or many,
// and groups its events by session. name is used in problems (normally
// the file's path). It reads lines the way the package's EventReader does:
// keys other than the eight of the format are ignored and null stands for
// an absent ts, role, text or tool.
//
// A line is malformed when it is not one JSON object in UTF-8, gives a
// key twice, lacks session_id, turn or kind, has a value of the wrong
// type, a turn below 1, a ts that is not RFC 3339, a kind other than
// message, tool_call or compaction, a role other than system, user,
// assistant or tool, a message without a role or a text, or a tool call
// without a tool. A session kept whose session_id cannot
// name a folder (it becomes a fixture's conversation_id) is malformed at
// its first line. Each problem is a fixture.Problem naming file, line,
// column and field. Unless opts.SkipBad is set every problem is
// returned, as fixture.Problems (at most 100, then a line saying how many
// more), and no sessions.
func ReadTranscripts(name string, r io.Reader, opts TranscriptOptions) (TranscriptLog, error) {
	var log TranscriptLog
	var probs fixture.Problems
	extra := 0
	problem := func(p fixture.Problem) {
		switch {
		case opts.SkipBad:
			log.Skipped = append(log.Skipped, p)
		case len(probs) < propMaxProblems:
			probs = append(probs, p)
		default:
			extra++
		}
	}
	index := map[string]int{}
	refused := map[string]bool{}
	lines := input.NewLines(r, name, opts.Limits.MaxLine)
	for {
		line, err := lines.Next()
		lineNo := lines.Line()
		if err == io.EOF {
			break
		}
		var le *input.LineError
		if errors.As(err, &le) {
			problem(fixture.Problem{File: name, Line: lineNo, Msg: (&input.LineError{Limit: le.Limit}).Error()})
			continue
		}
		if err != nil {
			return TranscriptLog{}, fmt.Errorf("reading %s: line %d: %w", name, lineNo+1, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, p, bad := propParseEvent(name, lineNo, line)
		if bad {
			problem(p)
			continue
		}
		if opts.Session != "" && ev.SessionID != opts.Session {
			continue
		}
		if refused[ev.SessionID] {
			continue
		}
		i, ok := index[ev.SessionID]
		if !ok {
			if !fixture.ValidConversationID(ev.SessionID) {
				refused[ev.SessionID] = true
				problem(fixture.Problem{File: name, Line: lineNo, Col: 1, Field: "session_id",
					Msg: fmt.Sprintf("%q cannot name a folder (no /, \\, :, control characters, \".\" or \"..\"), and it would be the fixture's conversation_id", propPreview(ev.SessionID))})
				continue
			}
			i = len(log.Sessions)
			index[ev.SessionID] = i
			log.Sessions = append(log.Sessions, Transcript{SessionID: ev.SessionID})
		}
		log.Sessions[i].Events = append(log.Sessions[i].Events, ev)
	}
	if len(probs) > 0 {
		if extra > 0 {
			probs = append(probs, fixture.Problem{File: name, Msg: fmt.Sprintf("%d more problems not shown", extra)})
		}
		return TranscriptLog{}, probs
	}
	for i := range log.Sessions {
		slices.SortStableFunc(log.Sessions[i].Events, func(a, b TranscriptEvent) int { return a.Turn - b.Turn })
	}
	return log, nil
}

// propParseEvent decodes one line of an event log; bad reports a
// malformed line and p is its first problem.
func propParseEvent(file string, lineNo int, line []byte) (ev TranscriptEvent, p fixture.Problem, bad bool) {
	fail := func(off int, field, msg string) (TranscriptEvent, fixture.Problem, bool) {
		return TranscriptEvent{}, fixture.Problem{File: file, Line: lineNo, Col: propColumn(line, off), Field: field, Msg: msg}, true
	}
	ev.Line = lineNo
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, size := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return fail(off, "", fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", line[off]))
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	syntax := func(err error) (TranscriptEvent, fixture.Problem, bool) {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return fail(jsonpos.SyntaxOffset(line, se), "", strings.TrimPrefix(se.Error(), "json: "))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return fail(len(bytes.TrimRight(line, " \t")), "", "unexpected end of line: the JSON object is not complete")
		}
		return fail(int(dec.InputOffset()), "", strings.TrimPrefix(err.Error(), "json: "))
	}
	start := propSkipSpace(line, 0)
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fail(start, "", "want a JSON object (one event), got "+propDescribeToken(tok))
	}
	type member struct {
		off int
		raw json.RawMessage
	}
	members := map[string]member{}
	for dec.More() {
		keyOff := propSkipSpace(line, int(dec.InputOffset()))
		kt, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		if _, dup := members[key]; dup {
			return fail(keyOff, key, "given twice")
		}
		members[key] = member{keyOff, raw}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(propSkipSpace(line, int(dec.InputOffset())), "", "extra data after the event object")
	}
	// str decodes a string value; null and a missing key give ok false.
	str := func(key string) (s string, off int, ok bool, problem bool) {
		m, present := members[key]
		if !present {
			return "", start, false, false
		}
		raw := bytes.TrimSpace(m.raw)
		if string(raw) == "null" {
			return "", m.off, false, false
		}
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return "", m.off, false, true
		}
		return s, m.off, true, false
	}
	wantString := func(key string) (TranscriptEvent, fixture.Problem, bool) {
		return fail(members[key].off, key, "want a string, got "+propDescribeRaw(members[key].raw))
	}
	for _, key := range []string{"session_id", "turn", "kind"} {
		if _, ok := members[key]; !ok {
			return fail(start, "", fmt.Sprintf("missing %q", key))
		}
	}
	id, off, ok, bad := str("session_id")
	if bad || (!ok && members["session_id"].raw != nil) {
		return wantString("session_id")
	}
	if strings.TrimSpace(id) == "" {
		return fail(off, "session_id", "want a non-empty string")
	}
	ev.SessionID = id
	m := members["turn"]
	n, err := strconv.Atoi(string(bytes.TrimSpace(m.raw)))
	switch {
	case err != nil:
		return fail(m.off, "turn", "want a whole number, got "+propDescribeRaw(m.raw))
	case n < 1:
		return fail(m.off, "turn", fmt.Sprintf("must be at least 1 (turns are numbered from 1), got %d", n))
	case n > MaxTurns:
		return fail(m.off, "turn", fmt.Sprintf("must be at most %d, as in every event log, got %d", MaxTurns, n))
	}
	ev.Turn = n
	if ts, off, ok, bad := str("ts"); bad {
		return wantString("ts")
	} else if ok {
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			return fail(off, "ts", fmt.Sprintf("want an RFC 3339 time such as 2026-01-05T04:55:22Z, got %q", propPreview(ts)))
		}
		ev.TS = ts
	}
	kind, off, ok, bad := str("kind")
	if bad || !ok {
		return wantString("kind")
	}
	if kind != "message" && kind != "tool_call" && kind != "compaction" {
		return fail(off, "kind", fmt.Sprintf("want message, tool_call or compaction, got %q", propPreview(kind)))
	}
	ev.Kind = kind
	role, roleOff, roleOK, bad := str("role")
	if bad {
		return wantString("role")
	}
	if role != "" && !slices.Contains(fixture.Roles, role) {
		return fail(roleOff, "role", roleProblem(role))
	}
	ev.Role = role
	text, _, textOK, bad := str("text")
	if bad {
		return wantString("text")
	}
	ev.Text = text
	tool, _, toolOK, bad := str("tool")
	if bad {
		return wantString("tool")
	}
	ev.Tool = tool
	if a, ok := members["args"]; ok {
		ev.Args = a.raw
	}
	switch {
	case kind == "message" && (!roleOK || role == ""):
		return fail(members["kind"].off, "role", "a message needs a non-empty role")
	case kind == "message" && !textOK:
		return fail(members["kind"].off, "text", "a message needs a text")
	case kind == "tool_call" && (!toolOK || tool == ""):
		return fail(members["kind"].off, "tool", "a tool call needs a non-empty tool")
	}
	return ev, fixture.Problem{}, false
}

// propColumn is the 1-based column, in characters, of byte offset off.
func propColumn(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}

// propSkipSpace skips white space, commas and colons from off.
func propSkipSpace(line []byte, off int) int {
	for off < len(line) && strings.IndexByte(" \t\r\n,:", line[off]) >= 0 {
		off++
	}
	return off
}

func propDescribeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return string(v)
	case string:
		return "string " + strconv.Quote(propPreview(v))
	case json.Number:
		return "number " + v.String()
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

func propDescribeRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return "string " + strconv.Quote(propPreview(s))
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean " + string(raw)
	}
	return "number " + propPreview(string(raw))
}

// propPreview shortens s to at most 40 characters for a message.
func propPreview(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:39]) + "…"
}
