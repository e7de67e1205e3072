package agentlog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// ccRecord is the part of a Claude Code record the reader uses.
type ccRecord struct {
	Type                 string         `json:"type"`
	Subtype              string         `json:"subtype"`
	SessionID            string         `json:"sessionId"`
	UUID                 string         `json:"uuid"`
	Cwd                  string         `json:"cwd"`
	Timestamp            string         `json:"timestamp"`
	IsSidechain          bool           `json:"isSidechain"`
	IsMeta               bool           `json:"isMeta"`
	IsCompactSummary     bool           `json:"isCompactSummary"`
	Message              *ccMessage     `json:"message"`
	CompactMetadata      *ccCompactMeta `json:"compactMetadata"`
	MicrocompactMetadata *struct {
		Trigger          string   `json:"trigger"`
		PreTokens        int64    `json:"preTokens"`
		TokensSaved      int64    `json:"tokensSaved"`
		CompactedToolIDs []string `json:"compactedToolIds"`
	} `json:"microcompactMetadata"`
	// Error is an object with a status on a system api_error record and
	// a string on an assistant isApiErrorMessage record.
	Error             json.RawMessage `json:"error"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	// Operation and Content are a queue-operation record's: what happened
	// to a prompt the person typed while the agent was working (enqueue,
	// remove, dequeue, popAll), and the prompt on enqueue (a string, or a
	// list of parts when it was sent with an image).
	Operation string         `json:"operation"`
	Content   ccLooseContent `json:"content"`
}

// ccCompactMeta is a compact_boundary's compactMetadata. A partial
// compaction (later Claude Code versions) keeps the most recent messages
// word for word after its summary: PreservedSegment names the first and
// last of them, which the file holds before the boundary.
type ccCompactMeta struct {
	Trigger          string     `json:"trigger"`
	PreTokens        int64      `json:"preTokens"`
	PreservedSegment *ccSegment `json:"preservedSegment"`
}

// ccSegment is a partial compaction's preservedSegment: the uuids of the
// first and the last message it kept.
type ccSegment struct {
	HeadUUID string `json:"headUuid"`
	TailUUID string `json:"tailUuid"`
}

// ccLooseContent is a record's top-level content: a string or a list of
// parts (a queue-operation's), anything else read as nothing. A list that
// is not one of parts is kept as Err, for the records that read it to
// report (other records' content is not read).
type ccLooseContent struct {
	ccContent
	Err error
}

// UnmarshalJSON decodes a string or a list of parts and ignores any
// other value.
func (c *ccLooseContent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '"' || b[0] == '[') {
		if err := c.ccContent.UnmarshalJSON(b); err != nil {
			c.ccContent, c.Err = ccContent{}, prefixPath(err, "content")
		}
	}
	return nil
}

// ccMessage is a record's message.
type ccMessage struct {
	ID      string       `json:"id"`
	Model   string       `json:"model"`
	Content ccMsgContent `json:"content"`
}

// ccMsgContent is a message's content, whose errors name their path from
// the record (message.content[2].content).
type ccMsgContent struct{ ccContent }

// UnmarshalJSON decodes the content and places its error. A message's
// content is a string or a list: an object is an error here (only a
// server tool's result part may hold one).
func (c *ccMsgContent) UnmarshalJSON(b []byte) error {
	err := c.ccContent.UnmarshalJSON(b)
	if err == nil && c.Object {
		err = &contentError{Msg: "want a string or a list, got an object"}
	}
	return prefixPath(err, "message", "content")
}

// ccContent is a content field: a string, or a list of parts (the
// message's, or a tool result's), or an object (a server tool's error
// result: web_search_tool_result_error, or web_fetch's document), kept
// only as Object and its "type" as ObjectType. It is
// decoded in the record's one decode, so the line is not scanned again
// for it.
type ccContent struct {
	Text       string
	Parts      []ccPart
	List       bool
	Object     bool
	ObjectType string
}

// contentError is a content value of the wrong shape, at Path from the
// record (PathColumn's steps), so that its error names the field and its
// column rather than encoding/json's offset in the content.
type contentError struct {
	Path []string
	Msg  string
}

func (e *contentError) Error() string { return pathName(e.Path) + ": " + e.Msg }

// pathName is a PathColumn path as a person reads it:
// message.content[2].content.
func pathName(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// prefixPath puts steps before the path of a contentError; other errors
// (and nil) pass unchanged.
func prefixPath(err error, steps ...string) error {
	var ce *contentError
	if errors.As(err, &ce) {
		ce.Path = append(slices.Clip(steps), ce.Path...)
	}
	return err
}

// jsonKind is the kind of JSON value b holds, as errors word it.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// UnmarshalJSON decodes a string, a list of parts, an object (kept as
// Object) or null. A list's parts must be objects; an error names its
// path from the content (contentError).
func (c *ccContent) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case len(b) > 0 && b[0] == '{':
		c.Object = true
		var typed struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &typed) == nil {
			c.ObjectType = typed.Type
		}
		return nil
	case string(b) == "null":
		return nil
	case len(b) == 0 || b[0] != '[':
		return &contentError{Msg: "want a string or a list, got " + jsonKind(b)}
	}
	c.List = true
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return &contentError{Msg: jsonMessage(err)}
	}
	c.Parts = make([]ccPart, len(raws))
	for i, r := range raws {
		at := "[" + strconv.Itoa(i) + "]"
		if jsonKind(r) != "an object" {
			return &contentError{Path: []string{at}, Msg: "want an object (a part), got " + jsonKind(r)}
		}
		if err := json.Unmarshal(r, &c.Parts[i]); err != nil {
			var ce *contentError
			if errors.As(err, &ce) { // the part's own content
				return prefixPath(err, at, "content")
			}
			ce = &contentError{Path: []string{at}, Msg: jsonMessage(err)}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" { // the part's field, by name
				ce.Path = append(ce.Path, strings.Split(te.Field, ".")...)
				ce.Msg = strings.TrimPrefix(ce.Msg, te.Field+": ")
			}
			return ce
		}
	}
	return nil
}

// ccPart is one part of a message's content list.
type ccPart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   ccContent       `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ccReader holds the state of one read: the file's lines and the
// session being read.
type ccReader struct {
	name  string
	lines *input.Lines
	s     *Session
	line  int
	steps map[string]int    // message.id → index in s.Steps
	calls map[string][2]int // tool_use id → step, call
	// summaryDue is the index of a compaction waiting for its summary.
	summaryDue int
	// queued are the prompts the person typed while the agent worked,
	// waiting in the queue (queue).
	queued []ccQueued
	// done is a session ended by a record of another sessionId; returned
	// counts the sessions next has returned.
	done     *Session
	returned int
	// first is the line of the current session's first record with a
	// sessionId; ended maps the sessionIds of the sessions read so far
	// to theirs, so that one coming back is an error.
	first int
	ended map[string]int
	// parsed is whether a line of the file parsed as a JSON record.
	parsed bool
	// bad, when set, takes a malformed line's error, and the line is
	// skipped (Options.SkipBad).
	bad func(error)
	// b is the line being read, to place an error found after decoding.
	b []byte
	// repeats holds the strings that repeat from record to record.
	repeats ccRepeats
	// rec is the record being read, its memory reused for the next.
	rec ccRecord
}

// newCCReader starts reading a Claude Code log.
func newCCReader(r io.Reader, name string, o Options) *ccReader {
	cr := &ccReader{name: name, lines: input.NewLines(r, name, o.MaxLine), bad: o.bad()}
	cr.reset()
	return cr
}

// reset starts a new session.
func (cr *ccReader) reset() {
	cr.s = &Session{Name: cr.name, Format: ClaudeCode,
		Records: Counts{Read: map[string]int{}, Skipped: map[string]int{}}}
	cr.steps = map[string]int{}
	cr.calls = map[string][2]int{}
	cr.summaryDue = -1
	cr.queued = nil
}

// next returns the log's next session, or io.EOF after the last. A
// session ends where a record's sessionId differs from the session's
// (records without one belong to the session being read). An empty log
// (no line at all) yields no session. A log none of whose records is of
// a type Claude Code writes is an error that says so: it is another
// format, read as this one.
func (cr *ccReader) next() (*Session, error) {
	for cr.done == nil {
		if cr.s == nil {
			return nil, io.EOF
		}
		b, err := cr.lines.Next()
		if err == io.EOF {
			s := cr.s
			cr.s = nil
			if s.Records.Lines() == 0 {
				return nil, io.EOF
			}
			if cr.returned == 0 {
				if err := notClaudeCode(s); err != nil {
					return nil, err
				}
			}
			cr.returned++
			return s, nil
		}
		if err != nil {
			var le *input.LineError
			if !errors.As(err, &le) {
				return nil, fmt.Errorf("%s:%d: %w", cr.name, cr.lines.Line()+1, err)
			}
			// a line over the limit names file and line
		} else {
			cr.line = cr.lines.Line()
			err = cr.record(b)
		}
		if err != nil {
			if cr.bad == nil {
				return nil, err
			}
			cr.bad(err)
			cr.skip(MalformedLine)
		}
	}
	s := cr.done
	cr.done = nil
	cr.returned++
	return s, nil
}

// ccTypes are the record types Claude Code writes (system records by
// subtype): a log with none of them is not a Claude Code log.
var ccTypes = []string{"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation", "pr-link"}

// notClaudeCode reports a log read as Claude Code that has lines but no
// record of a type Claude Code writes: another format, read as this one
// because its first line did not say otherwise or --log-format said so.
func notClaudeCode(s *Session) error {
	var other []string
	for _, n := range s.Records.Read {
		if n > 0 {
			return nil
		}
	}
	for kind := range s.Records.Skipped {
		k := strings.TrimPrefix(kind, "sidechain/")
		if i := strings.IndexByte(k, '/'); i >= 0 {
			k = k[:i]
		}
		if slices.Contains(ccTypes, k) {
			return nil
		}
		if kind != "(blank line)" && kind != MalformedLine {
			other = append(other, kind)
		}
	}
	if len(other) == 0 {
		return nil
	}
	sort.Strings(other)
	return fmt.Errorf("%s: no record of a Claude Code log in %d lines (record types %s): another format? Name it with --log-format (one of %v)",
		s.Name, s.Records.Lines(), strings.Join(other, ", "), Formats)
}

// ReadClaudeCode reads a Claude Code session log (JSONL, not gzipped:
// see Open) line by line, holding one line at a time (at most
// input.DefaultMaxLine bytes) and the sessions read. A log holds one
// session per sessionId, in order: a file of several concatenated logs
// (cat a.jsonl b.jsonl) is several sessions, a new one starting at each
// record whose sessionId differs from the current session's; records
// without a sessionId belong to the current one. name is used in errors
// and as each Session.Name.
func ReadClaudeCode(r io.Reader, name string) ([]*Session, error) {
	cr := newCCReader(r, name, Options{})
	var out []*Session
	for {
		s, err := cr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// errorf is an error at the current line.
func (cr *ccReader) errorf(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", cr.s.Name, cr.line, fmt.Sprintf(format, a...))
}

// fieldError places a contentError at its field's column in the line
// being read; other errors are at the line.
func (cr *ccReader) fieldError(err error) error {
	var ce *contentError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s:%d:%d: %w", cr.s.Name, cr.line, jsonscan.PathColumn(cr.b, ce.Path...), err)
	}
	return cr.errorf("%v", err)
}

// drop counts what was read but left out of the session's events
// (Session.Dropped).
func (cr *ccReader) drop(what string) {
	if cr.s.Dropped == nil {
		cr.s.Dropped = map[string]int{}
	}
	cr.s.Dropped[what]++
}

func (cr *ccReader) skip(kind string) { cr.s.Records.Skipped[kind]++ }
func (cr *ccReader) read(kind string) { cr.s.Records.Read[kind]++ }

// record reads one line.
func (cr *ccReader) record(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		cr.skip("(blank line)")
		return nil
	}
	rec := &cr.rec
	*rec = ccRecord{}
	cr.b = b
	cr.repeats.Lean, cr.repeats.HaveStart, cr.repeats.ID = true, !cr.s.Start.IsZero(), cr.s.ID
	if !cr.repeats.decode(b, rec) { // encoding/json decides, and words the error
		*rec = ccRecord{}
		if err := json.Unmarshal(b, rec); err != nil {
			var ce *contentError
			if errors.As(err, &ce) {
				return cr.fieldError(err)
			}
			if !cr.parsed { // the file's first record: say what a log is
				return fmt.Errorf("%w (an agent log holds one JSON object a line, and this file's first line is not one: is it a fixture, a report.yaml or another kind of file?)", lineError(cr.s.Name, cr.line, b, 0, err))
			}
			return lineError(cr.s.Name, cr.line, b, 0, err)
		}
	}
	first := !cr.parsed
	cr.parsed = true
	if rec.Type == "" {
		if first { // another format read as Claude Code's: say so
			return cr.errorf(`record has no "type": a Claude Code log's records all have one (is this file in another format? --log-format codex, generic or tally, or no --log-format to tell by the first line)`)
		}
		return cr.errorf(`record has no "type"`)
	}
	if rec.SessionID != "" && cr.s.ID != "" && rec.SessionID != cr.s.ID {
		if first, ok := cr.ended[rec.SessionID]; ok {
			return fmt.Errorf("%s:%d: sessionId %q comes back after another session's records (its first record is at line %d): a log holds each session's records together", cr.name, cr.line, rec.SessionID, first)
		}
		if cr.ended == nil {
			cr.ended = map[string]int{}
		}
		cr.ended[cr.s.ID] = cr.first
		cr.done = cr.s // a new session starts here
		cr.reset()
	}
	if cr.s.ID == "" && rec.SessionID != "" {
		cr.s.ID = rec.SessionID
		cr.first = cr.line
	}
	if cr.s.Cwd == "" && rec.Cwd != "" {
		cr.s.Cwd = rec.Cwd
	}
	if cr.s.Start.IsZero() && rec.Timestamp != "" {
		cr.s.Start = parseTime(rec.Timestamp)
	}
	kind := rec.Type
	if rec.Type == "system" {
		kind = "system/" + rec.Subtype
	}
	if rec.IsSidechain {
		cr.skip("sidechain/" + kind)
		return nil
	}
	switch kind {
	case "user":
		return cr.user(rec)
	case "assistant":
		if rec.IsAPIErrorMessage { // the client's note of a failed request
			cr.s.APIErrors = append(cr.s.APIErrors, APIError{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: cr.line})
			kind = "assistant/api_error"
			break
		}
		return cr.assistant(rec)
	case "system/compact_boundary":
		c := Compaction{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Message: len(cr.s.Messages), Line: cr.line, UUID: rec.UUID}
		if m := rec.CompactMetadata; m != nil {
			c.Trigger, c.PreTokens = m.Trigger, m.PreTokens
			if p := m.PreservedSegment; p != nil {
				c.Kept, c.KeptAfter = cr.preserved(p.HeadUUID, p.TailUUID), true
			}
		}
		cr.s.Compactions = append(cr.s.Compactions, c)
		cr.summaryDue = len(cr.s.Compactions) - 1
	case "system/microcompact_boundary":
		c := Microcompaction{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: cr.line}
		if m := rec.MicrocompactMetadata; m != nil {
			c.Trigger, c.PreTokens, c.TokensSaved, c.ToolIDs = m.Trigger, m.PreTokens, m.TokensSaved, m.CompactedToolIDs
		}
		cr.s.Microcompactions = append(cr.s.Microcompactions, c)
	case "queue-operation":
		var err error
		if kind, err = cr.queue(rec); kind == "" || err != nil {
			return err
		}
	case "system/api_error":
		e := APIError{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: cr.line}
		var body struct {
			Status int `json:"status"`
		}
		if len(rec.Error) > 0 && rec.Error[0] == '{' {
			if err := json.Unmarshal(rec.Error, &body); err != nil {
				return cr.errorf("error: %v", err)
			}
		}
		e.Status = body.Status
		cr.s.APIErrors = append(cr.s.APIErrors, e)
	default:
		cr.skip(kind)
		return nil
	}
	cr.read(kind)
	return nil
}

// preserved is the text of the messages from the record of uuid head to
// that of uuid tail, in the order read: the person's and the injected
// ones, and the agent's steps (its text; a step with only tool calls
// names them), which a partial compaction keeps word for word. When
// either record is not in the session (a log cut at its start), nothing
// is kept and the segment is counted in Dropped, not guessed.
func (cr *ccReader) preserved(head, tail string) []string {
	s := cr.s
	lineOf := func(uuid string) int {
		for i := range s.Messages {
			if s.Messages[i].UUID == uuid {
				return s.Messages[i].Line
			}
		}
		for i := range s.Steps {
			if slices.Contains(s.Steps[i].UUIDs, uuid) {
				return s.Steps[i].Line
			}
		}
		return 0
	}
	from, to := lineOf(head), lineOf(tail)
	if from == 0 || to == 0 || to < from {
		cr.drop("compactMetadata.preservedSegment (not in the log)")
		return nil
	}
	type piece struct {
		line int
		text string
	}
	var ps []piece
	for _, m := range s.Messages {
		if m.Line >= from && m.Line <= to && strings.TrimSpace(m.Text) != "" {
			ps = append(ps, piece{m.Line, m.Text})
		}
	}
	for _, st := range s.Steps {
		if st.Line < from || st.Line > to {
			continue
		}
		text := st.Text
		if text == "" && len(st.Calls) > 0 {
			names := make([]string, len(st.Calls))
			for i, c := range st.Calls {
				names[i] = c.Name
			}
			text = "[" + strings.Join(names, ", ") + "]"
		}
		if strings.TrimSpace(text) != "" {
			ps = append(ps, piece{st.Line, text})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].line < ps[j].line })
	kept := make([]string, len(ps))
	for i, p := range ps {
		kept[i] = p.text
	}
	return kept
}

// queue reads a queue-operation record and returns the kind it is
// counted as read, or "" when it counted it as skipped. Claude Code writes one when the person types a prompt while
// the agent is working (enqueue, with the text) and again when the
// prompt leaves the queue: remove when the client sent it to the model in
// the middle of the turn (no user record holds it: the summary of a later
// compaction quotes it), dequeue when it was sent as the next prompt (a
// user record follows and holds it), popAll when the person took the
// queued prompts back into the input box (not sent). A removed prompt is
// a Message of kind Queued in the turn it was sent in, before the next
// step; an enqueued text that opens with an injected tag (a task or
// agent notification) is the client's, not the person's, and a bare
// slash command ("/model") is the client's to run: neither is one.
func (cr *ccReader) queue(rec *ccRecord) (string, error) {
	switch rec.Operation {
	case "enqueue":
		if rec.Content.Err != nil {
			return "", cr.fieldError(rec.Content.Err)
		}
		text, other := rec.Content.Text, []string(nil)
		for _, p := range rec.Content.Parts { // a prompt sent with an image
			if p.Type == "text" {
				text = join(text, p.Text)
			} else {
				other = append(other, p.Type)
			}
		}
		if strings.TrimSpace(text) == "" { // nothing to read: an image alone, an empty list
			for _, t := range other {
				cr.drop("content part/" + t)
			}
			cr.queued = append(cr.queued, ccQueued{line: -1})
			cr.skip("queue-operation/enqueue (no text)")
			return "", nil
		}
		if k, ok := tagKind(text); ok && !k.Typed() {
			cr.queued = append(cr.queued, ccQueued{line: -1})
			cr.skip("queue-operation/enqueue (injected)")
			return "", nil
		}
		if ccClientCommand.MatchString(text) {
			cr.queued = append(cr.queued, ccQueued{line: -1})
			cr.skip("queue-operation/enqueue (slash command)")
			return "", nil
		}
		for _, t := range other {
			cr.drop("content part/" + t)
		}
		cr.queued = append(cr.queued, ccQueued{text: text, line: cr.line})
		return "queue-operation/enqueue", nil
	case "remove":
		if len(cr.queued) > 0 {
			q := cr.queued[0]
			cr.queued = cr.queued[1:]
			if q.line >= 0 {
				cr.s.Messages = append(cr.s.Messages, Message{Kind: Queued, Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: q.line, Text: q.text})
			}
		}
		return "queue-operation/remove", nil
	case "dequeue":
		if len(cr.queued) > 0 {
			cr.queued = cr.queued[1:]
		}
		return "queue-operation/dequeue", nil
	case "popAll":
		cr.queued = cr.queued[:0]
		return "queue-operation/popAll", nil
	}
	return "queue-operation/" + rec.Operation, nil
}

// ccClientCommand is a queued slash command ("/model", "/exit"): the
// client runs it, the model never sees it.
var ccClientCommand = regexp.MustCompile(`^\s*/[A-Za-z][\w:-]*\s*$`)

// ccQueued is a prompt in the queue: its text and the line of its
// enqueue record (-1 for the client's own text).
type ccQueued struct {
	text string
	line int
}

// message returns a record's message and its content: a string, or a
// list of parts.
func (cr *ccReader) message(rec *ccRecord) (m *ccMessage, text string, parts []ccPart, err error) {
	if rec.Message == nil {
		return nil, "", nil, cr.errorf("%s record has no message", rec.Type)
	}
	m = rec.Message
	return m, m.Content.Text, m.Content.Parts, nil
}

// assistant adds a record's parts to its step.
func (cr *ccReader) assistant(rec *ccRecord) error {
	m, text, parts, err := cr.message(rec)
	if err != nil {
		return err
	}
	i, ok := cr.steps[m.ID]
	if !ok || m.ID == "" {
		i = len(cr.s.Steps)
		cr.s.Steps = append(cr.s.Steps, Step{ID: m.ID, Turn: len(cr.s.Turns) - 1, Line: cr.line, Model: m.Model, UUID: rec.UUID})
		if m.ID != "" {
			cr.steps[m.ID] = i
		}
		if t := len(cr.s.Turns) - 1; t >= 0 {
			cr.s.Turns[t].Steps++
		}
	}
	st := &cr.s.Steps[i]
	st.Records++
	if rec.UUID != "" {
		st.UUIDs = append(st.UUIDs, rec.UUID)
	}
	if text != "" {
		st.Text = join(st.Text, text)
		if st.TextLine == 0 {
			st.TextLine = cr.line
		}
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			st.Text = join(st.Text, p.Text)
			if st.TextLine == 0 && p.Text != "" {
				st.TextLine = cr.line
			}
		case "thinking":
			st.Thinking = join(st.Thinking, p.Thinking)
		case "tool_use", "server_tool_use": // a server tool (web search) runs in the request
			if p.ID != "" {
				cr.calls[p.ID] = [2]int{i, len(st.Calls)}
			}
			st.Calls = append(st.Calls, ToolCall{ID: p.ID, Name: p.Name, Input: bytes.Clone(p.Input), UUID: rec.UUID, Line: cr.line})
		default:
			// A server tool's result (web_search_tool_result) comes in the
			// same message as its call.
			if strings.HasSuffix(p.Type, "_tool_result") && p.ToolUseID != "" {
				cr.result(p, rec.UUID)
				continue
			}
			cr.drop("content part/" + p.Type) // redacted_thinking, …
		}
	}
	cr.read("assistant")
	return nil
}

// user adds a user record: a message, and the results of tool calls.
func (cr *ccReader) user(rec *ccRecord) error {
	_, text, parts, err := cr.message(rec)
	if err != nil {
		return err
	}
	if text == "" && len(parts) == 0 && !rec.IsCompactSummary {
		// No content at all (null, "" or []): nothing was said, so no
		// turn starts here.
		cr.skip("user (empty)")
		return nil
	}
	msg := Message{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: cr.line, UUID: rec.UUID}
	var typed, injected []string // text parts, split by their tag
	injectedKind := Typed
	for j, p := range parts {
		switch p.Type {
		case "text":
			if k, ok := tagKind(p.Text); ok && !k.Typed() {
				injected = append(injected, p.Text)
				if injectedKind == Typed {
					injectedKind = k
				}
			} else {
				typed = append(typed, p.Text)
			}
		case "tool_result":
			if p.Content.Object {
				return cr.fieldError(&contentError{Path: []string{"message", "content", "[" + strconv.Itoa(j) + "]", "content"}, Msg: "want a string or a list, got an object"})
			}
			msg.ToolResults++
			cr.result(p, rec.UUID)
		default: // an image or a document the person pasted, …
			cr.drop("content part/" + cmp.Or(p.Type, "(no type)"))
		}
	}
	switch {
	case !rec.Message.Content.List:
		msg.Text = text
	case len(typed) > 0:
		msg.Text = strings.Join(typed, "\n")
	default:
		msg.Text = strings.Join(injected, "\n")
	}
	switch {
	case rec.IsCompactSummary:
		msg.Kind = CompactSummary
		if cr.summaryDue < 0 { // a summary with no boundary before it
			cr.s.Compactions = append(cr.s.Compactions, Compaction{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Message: len(cr.s.Messages)})
			cr.summaryDue = len(cr.s.Compactions) - 1
		}
		c := &cr.s.Compactions[cr.summaryDue]
		c.Summary, c.SummaryLine, c.SummaryUUID = msg.Text, cr.line, rec.UUID
		cr.summaryDue = -1
	case msg.ToolResults > 0 && len(typed) == 0:
		msg.Kind = ToolResult
	case rec.IsMeta:
		msg.Kind = Meta
	case len(typed) == 0 && len(injected) > 0:
		msg.Kind = injectedKind
	default:
		msg.Kind, _ = tagKind(msg.Text)
	}
	if msg.Kind.Typed() {
		msg.Turn = len(cr.s.Turns)
		cr.s.Turns = append(cr.s.Turns, Turn{Message: len(cr.s.Messages), FirstStep: len(cr.s.Steps)})
	}
	cr.s.Messages = append(cr.s.Messages, msg)
	cr.read("user")
	return nil
}

// result attaches a tool_result part (or a server tool's result), from
// the record uuid, to its call. A server tool's result may be an object:
// an error when its type says so (web_search_tool_result_error), else a
// result (web_fetch's document), each named by its type.
func (cr *ccReader) result(p ccPart, uuid string) {
	text, isError := p.Content.Text, p.IsError
	if c := p.Content; c.Object {
		text = "[" + cmp.Or(c.ObjectType, p.Type) + "]"
		isError = isError || strings.HasSuffix(c.ObjectType, "_error")
	}
	for _, q := range p.Content.Parts {
		if q.Type == "text" {
			text = join(text, q.Text)
		} else {
			text = join(text, "["+q.Type+"]")
		}
	}
	at, ok := cr.calls[p.ToolUseID]
	if !ok {
		cr.s.OrphanResults++
		return
	}
	call := &cr.s.Steps[at[0]].Calls[at[1]]
	call.HasResult, call.Result, call.IsError, call.ResultLine, call.ResultUUID = true, text, isError, cr.line, uuid
}

// tagPrefixes maps the start of a user text to its kind.
var tagPrefixes = []struct {
	prefix string
	kind   Kind
}{
	{"<local-command-stdout>", CommandOutput},
	{"<local-command-stderr>", CommandOutput},
	{"<local-command-caveat>", CommandOutput},
	{"<bash-stdout>", CommandOutput},
	{"<bash-stderr>", CommandOutput},
	{"<system-reminder>", SystemReminder},
	{"<task-notification>", Notification},
	{"<agent-notification>", Notification},
	{"<ide_opened_file>", IDEContext},
	{"<ide_selection>", IDEContext},
	{"[Request interrupted by user", Interrupted},
	{"Operation stopped by hook", HookOutput},
	// A Stop or SubagentStop hook that blocks the end of a turn: Claude
	// Code sends its reason as a user message, with isMeta in some
	// versions and without it in others (public transcript parsers list
	// the prefix as injected).
	{"Stop hook feedback:", HookOutput},
	{"SubagentStop hook feedback:", HookOutput},
	{"<command-name>", SlashCommand},
	{"<command-message>", SlashCommand},
	{"<bash-input>", ShellCommand},
}

// tagKind classifies a text by how it starts; ok is false (and the kind
// Typed) when no rule matches.
func tagKind(s string) (Kind, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, t := range tagPrefixes {
		if strings.HasPrefix(s, t.prefix) {
			return t.kind, true
		}
	}
	return Typed, false
}

// join appends b to a with "\n" between.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
