package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

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
				return nil, &MalformedError{err}
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
// and as each Session.Name. A file that is no agent log by its first
// line (a prompt history, pretty-printed JSON) is refused, as NewReader
// says.
func ReadClaudeCode(r io.Reader, name string) ([]*Session, error) {
	r, err := headChecked(r, name)
	if err != nil {
		return nil, err
	}
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
			if !cr.parsed && !jsonObject(b) { // the file's first line: say what a log is
				return fmt.Errorf("%w (an agent log holds one JSON object a line, and this file's first line is not one: is it a fixture, a report.yaml or another kind of file?)", lineError(cr.s.Name, cr.line, b, 0, err))
			}
			return lineError(cr.s.Name, cr.line, b, 0, err)
		}
	}
	first := !cr.parsed
	cr.parsed = true
	if rec.Type == "" {
		if first && genericLine.Match(b) { // sniffed as Claude Code for its "sessionId"
			return cr.errorf(`record has no "type": a Claude Code log's records all have one, and this line has a "messages" list, so it may be the generic format (read as Claude Code because the line also has a "sessionId"): give --log-format generic`)
		}
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

// jsonObject reports whether line is one JSON object (and nothing
// else), whatever its members: a record whose field has the wrong type
// is one.
func jsonObject(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && json.Valid(line)
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
