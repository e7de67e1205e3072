package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// Generic is tally's documented format for logs of any other agent.
const Generic Format = "generic"

// The generic format is JSON Lines, one session per line (a file of one
// session is a file of one line; pretty-printed JSON, or a bare list of
// messages, is refused with an error that says so: use `jq -c`). Each
// line is an object:
//
//	{"session_id": "s-1", "cwd": "/src",
//	 "messages": [
//	   {"role": "system", "content": "You are …"},
//	   {"role": "user", "content": "add a --verbose flag"},
//	   {"role": "user", "content": "<env>cwd=/src</env>", "injected": "meta"},
//	   {"role": "assistant", "content": [{"type": "text", "text": "Looking."}],
//	    "reasoning": "the flag goes in main.go",
//	    "tool_calls": [{"id": "c1", "type": "function",
//	      "function": {"name": "read", "arguments": "{\"path\":\"main.go\"}"}}]},
//	   {"role": "tool", "tool_call_id": "c1", "content": "package main …", "is_error": false}],
//	 "compactions": [{"after_message": 4, "summary": "…", "trigger": "auto", "tokens_before": 120000}]}
//
// "session_id" is required, once per file. "cwd", the working directory
// (Session.Cwd), and "started", when the session started (an RFC 3339
// time, Session.Start), are optional. The messages are OpenAI
// chat-completions messages, with three additions: "injected" on a user,
// system or assistant message, "is_error" on a tool message, and
// "reasoning" on an assistant message. How they map:
//
//   - content is a string or a list of parts; the text of "text",
//     "input_text" and "output_text" parts is joined by "\n", other parts
//     are counted as "[type]" in tool results and in Session.Dropped
//     elsewhere.
//   - A user message is a Message, typed unless it has "injected": a
//     string naming a Kind that is not typed ("meta", "system reminder",
//     "command output", "compaction summary", "queued", …; see
//     Kind.String) gives that kind, true gives Meta, false or null leaves
//     it typed, and any other string is an error.
//   - A user, system, developer or assistant message marked "compaction
//     summary" is a compaction at its index when "compactions" lists
//     none there, and gives its text to a listed one without a summary
//     (many harnesses write the summariser's output as an assistant
//     message). On an assistant message any other "injected" but false
//     or null is an error: a response is the model's.
//   - An assistant message is a Step (no ID), unless it is a summary,
//     its tool_calls its calls: arguments is a string of JSON (kept as
//     that JSON when valid) or a JSON value. Its "refusal" (Chat
//     Completions' content null and a refusal string) and "refusal"
//     parts are text too: what the model said.
//   - A tool message is the result of the call tool_call_id names (an
//     orphan result when none does); is_error marks a failure.
//   - system and developer messages are instructions, not in the model.
//     Any other role is an error.
//   - A compaction happened after the first after_message messages
//     (0 ≤ after_message ≤ len(messages)), with its summary, trigger and
//     tokens_before.
//
// Errors name file:line(:column), and the message's index and column
// when it is at fault. Session.Records counts "session" lines read and
// blank lines skipped.

// gSession is one line of the generic format.
type gSession struct {
	SessionID   string             `json:"session_id"`
	Cwd         string             `json:"cwd"`
	Started     string             `json:"started"`
	Messages    *[]json.RawMessage `json:"messages"`
	Compactions []json.RawMessage  `json:"compactions"`
	// CamelID is a "sessionId", to say so when "session_id" is missing.
	CamelID json.RawMessage `json:"sessionId"`
}

// gMessage is one chat message.
type gMessage struct {
	Role       string          `json:"role"`
	Content    gContent        `json:"content"`
	Reasoning  string          `json:"reasoning"`
	Refusal    string          `json:"refusal"`
	ToolCalls  []gToolCall     `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	IsError    bool            `json:"is_error"`
	Injected   json.RawMessage `json:"injected"`
}

// gContent is a message's content: a string or a list of parts (not an
// object), its errors naming their path from the message.
type gContent struct{ ccContent }

// UnmarshalJSON decodes the content and places its error. A "refusal"
// part (the chat-completions API's, and the Responses API's) keeps its
// "refusal" as its Text.
func (c *gContent) UnmarshalJSON(b []byte) error {
	err := c.ccContent.UnmarshalJSON(b)
	if err == nil && c.Object {
		err = &contentError{Msg: "want a string or a list, got an object"}
	}
	if err == nil && slices.ContainsFunc(c.Parts, func(p ccPart) bool { return p.Type == "refusal" }) {
		var raws []json.RawMessage
		_ = json.Unmarshal(b, &raws) // a list of objects: ccContent read it
		for i := range c.Parts {
			if c.Parts[i].Type != "refusal" || i >= len(raws) {
				continue
			}
			var p struct {
				Refusal string `json:"refusal"`
			}
			if e := json.Unmarshal(raws[i], &p); e != nil {
				err = &contentError{Path: []string{"[" + strconv.Itoa(i) + "]", "refusal"}, Msg: strings.TrimPrefix(jsonMessage(e), "refusal: ")}
				break
			}
			c.Parts[i].Text = p.Refusal
		}
	}
	return prefixPath(err, "content")
}

type gToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type gCompaction struct {
	AfterMessage *int   `json:"after_message"`
	Summary      string `json:"summary"`
	Trigger      string `json:"trigger"`
	TokensBefore int64  `json:"tokens_before"`
}

// ReadGeneric reads a file of the generic format (not gzipped: see
// OpenAll), one session per line. name is used in errors and as each
// Session.Name; blank lines are counted on the session that follows them
// (or the last one). A file that is no agent log by its first line (a
// prompt history, pretty-printed JSON) is refused, as NewReader says.
func ReadGeneric(r io.Reader, name string) ([]*Session, error) {
	r, err := headChecked(r, name)
	if err != nil {
		return nil, err
	}
	g := newGenericReader(r, name, Options{})
	var out []*Session
	for {
		s, err := g.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// genericReader reads a generic file one session at a time, holding the
// session read last until the next one or the end says which lines are
// counted on it.
type genericReader struct {
	name  string
	lines *input.Lines
	bad   func(error)
	// blank and malformed count the lines since the last session.
	blank, malformed int
	held             *Session
	eof              bool
	// ids holds the line of each session id read.
	ids map[string]int
}

func newGenericReader(r io.Reader, name string, o Options) *genericReader {
	return &genericReader{name: name, lines: input.NewLines(r, name, o.MaxLine), bad: o.bad(), ids: map[string]int{}}
}

// count puts the lines counted since the last session on s.
func (g *genericReader) count(s *Session) {
	if g.blank > 0 {
		s.Records.Skipped["(blank line)"] += g.blank
	}
	if g.malformed > 0 {
		s.Records.Skipped[MalformedLine] += g.malformed
	}
	g.blank, g.malformed = 0, 0
}

// next returns the next session, or io.EOF after the last.
func (g *genericReader) next() (*Session, error) {
	for !g.eof {
		b, err := g.lines.Next()
		if err == io.EOF {
			g.eof = true
			break
		}
		var s *Session
		if err != nil {
			var le *input.LineError
			if !errors.As(err, &le) {
				return nil, fmt.Errorf("%s:%d: %w", g.name, g.lines.Line()+1, err)
			}
		} else if len(bytes.TrimSpace(b)) == 0 {
			g.blank++
			continue
		} else if s, err = genericSession(b, g.name, g.lines.Line()); err == nil {
			// One session per line: a session id twice is a session
			// split in two, or two sessions one id.
			if first, ok := g.ids[s.ID]; ok {
				s, err = nil, fmt.Errorf("%s:%d: session_id %q is the session of line %d too", g.name, g.lines.Line(), s.ID, first)
			} else {
				g.ids[s.ID] = g.lines.Line()
			}
		}
		if err != nil {
			if g.bad == nil {
				return nil, &MalformedError{err}
			}
			g.bad(err)
			g.malformed++
			continue
		}
		g.count(s)
		if held := g.held; held != nil {
			g.held = s
			return held, nil
		}
		g.held = s
	}
	s := g.held
	if s == nil {
		return nil, io.EOF
	}
	g.held = nil
	g.count(s)
	return s, nil
}

// genericSession reads one line.
func genericSession(b []byte, name string, line int) (*Session, error) {
	var g gSession
	if err := json.Unmarshal(b, &g); err != nil {
		if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
			return nil, fmt.Errorf(`%s:%d:%d: a list, not a session: the generic format is one session a line, an object holding its messages, {"session_id": "…", "messages": [ … ]}`, name, line, jsonscan.Column(b, bytes.IndexByte(b, '[')))
		}
		return nil, lineError(name, line, b, 0, err)
	}
	// errorf places a problem at the column of the top-level member key
	// (1 for the line's start when key is "").
	errorf := func(key, format string, a ...any) error {
		col := 1
		if key != "" {
			col = jsonscan.ValueColumn(b, key)
		}
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, fmt.Sprintf(format, a...))
	}
	if g.Messages == nil {
		return nil, errorf("", `session has no "messages"`)
	}
	if g.SessionID == "" {
		if len(g.CamelID) > 0 {
			return nil, errorf("sessionId", `session has no "session_id" (it has a "sessionId", which the generic format does not read: rename it "session_id")`)
		}
		return nil, errorf("", `session has no "session_id"`)
	}
	raws := *g.Messages
	msgs := make([]gMessage, len(raws))
	bases := make([]int, len(raws)) // each message's byte offset in the line
	at := 0                         // where to look for the next message's bytes
	for i, raw := range raws {
		if k := bytes.Index(b[at:], raw); k >= 0 {
			bases[i] = at + k
			at = bases[i] + len(raw)
		}
		if err := json.Unmarshal(raw, &msgs[i]); err != nil {
			var ce *contentError
			if errors.As(err, &ce) {
				col := jsonscan.Column(b, bases[i]) + jsonscan.PathColumn(raw, ce.Path...) - 1
				return nil, fmt.Errorf("%s:%d:%d: messages[%d].%s", name, line, col, i, ce)
			}
			return nil, fmt.Errorf("%s:%d:%d: messages[%d]: %s", name, line, jsonColumn(b, bases[i], err), i, jsonMessage(err))
		}
	}
	// encoding/json lets a name given twice in one object win silently
	// over the first ("role" twice: which did the harness mean?).
	var sc jsonscan.Scanner
	sc.Reset(b)
	if key, off, found, _ := sc.DuplicateKey(); found {
		where := ""
		for i, raw := range raws {
			if bases[i] <= off && off < bases[i]+len(raw) {
				where = fmt.Sprintf("messages[%d]: ", i)
			}
		}
		return nil, fmt.Errorf("%s:%d:%d: %s%q is given twice in one object, and tally will not guess which is meant", name, line, jsonscan.Column(b, off), where, key)
	}
	// msgErrorf places a problem at message i's first character.
	msgErrorf := func(i int, format string, a ...any) error {
		return fmt.Errorf("%s:%d:%d: messages[%d]: %s", name, line, jsonscan.Column(b, bases[i]), i, fmt.Sprintf(format, a...))
	}
	s := &Session{Name: name, ID: g.SessionID, Cwd: g.Cwd, Format: Generic,
		Records: Counts{Read: map[string]int{"session": 1}, Skipped: map[string]int{}}}
	if g.Started != "" {
		if s.Start = parseTime(g.Started); s.Start.IsZero() {
			return nil, errorf("started", "started: %q is not an RFC 3339 time", g.Started)
		}
	}
	comps := make([]gCompaction, len(g.Compactions))
	for i, raw := range g.Compactions {
		if err := json.Unmarshal(raw, &comps[i]); err != nil {
			col := jsonscan.PathColumn(b, "compactions", "["+strconv.Itoa(i)+"]") + jsonColumn(raw, 0, err) - 1
			msg := jsonMessage(err)
			if strings.HasPrefix(msg, "want ") {
				return nil, fmt.Errorf("%s:%d:%d: compactions[%d]: %s", name, line, col, i, msg)
			}
			return nil, fmt.Errorf("%s:%d:%d: compactions[%d].%s", name, line, col, i, msg)
		}
	}
	for i, c := range comps {
		if c.AfterMessage == nil {
			return nil, errorf("compactions", "compactions[%d] has no after_message", i)
		}
		if n := *c.AfterMessage; n < 0 || n > len(msgs) {
			return nil, errorf("compactions", "compactions[%d]: after_message %d is not in 0…%d", i, n, len(msgs))
		}
	}
	kinds := make([]Kind, len(msgs))
	for i := range msgs {
		k, err := injectedKind(msgs[i].Injected)
		if err != nil {
			return nil, msgErrorf(i, "%v", err)
		}
		kinds[i] = k
		switch role := msgs[i].Role; {
		case k == CompactSummary && (role == "user" || role == "system" || role == "developer" || role == "assistant"):
			// Many harnesses write the summariser's output as an
			// assistant message.
			comps = summaryCompaction(comps, i, msgs[i].Content.text())
		case role == "assistant" && !k.Typed():
			return nil, msgErrorf(i, "injected: %s is not a reason tally knows on an assistant message (only \"compaction summary\": a response is the model's), null or false", msgs[i].Injected)
		}
	}
	sort.SliceStable(comps, func(i, j int) bool { return *comps[i].AfterMessage < *comps[j].AfterMessage })
	calls := map[string][2]int{}
	for i := 0; i <= len(msgs); i++ {
		for len(comps) > 0 && *comps[0].AfterMessage == i {
			c := comps[0]
			comps = comps[1:]
			cp := Compaction{Trigger: c.Trigger, PreTokens: c.TokensBefore,
				Turn: len(s.Turns) - 1, Step: len(s.Steps), Message: len(s.Messages), Line: line, Summary: c.Summary}
			if c.Summary != "" {
				cp.SummaryLine = line
			}
			s.Compactions = append(s.Compactions, cp)
		}
		if i == len(msgs) {
			break
		}
		m := &msgs[i]
		text := m.Content.text()
		// Every message is on the session's one line: its index is
		// where a reviewer finds it (a new user's trial saw line 1 on
		// all evidence), given where Claude Code gives a record's uuid.
		at := "messages[" + strconv.Itoa(i) + "]"
		if m.Role != "tool" {
			for _, p := range m.Content.Parts {
				if !genericTextPart(p.Type) {
					if s.Dropped == nil {
						s.Dropped = map[string]int{}
					}
					s.Dropped["content part/"+p.Type]++
				}
			}
		}
		switch m.Role {
		case "system", "developer":
		case "user":
			msg := Message{Turn: len(s.Turns) - 1, Step: len(s.Steps), Line: line, Text: text, Kind: kinds[i], UUID: at}
			if msg.Kind.Typed() {
				msg.Turn = len(s.Turns)
				s.Turns = append(s.Turns, Turn{Message: len(s.Messages), FirstStep: len(s.Steps)})
			}
			s.Messages = append(s.Messages, msg)
		case "assistant":
			if kinds[i] == CompactSummary { // the compaction's summary, not a step
				continue
			}
			if m.Refusal != "" { // what the model said instead of an answer
				text = join(text, m.Refusal)
			}
			st := Step{Turn: len(s.Turns) - 1, Line: line, Records: 1, Text: text, Thinking: m.Reasoning, UUID: at, UUIDs: []string{at}}
			if text != "" {
				st.TextLine = line
			}
			for _, tc := range m.ToolCalls {
				if tc.ID != "" {
					calls[tc.ID] = [2]int{len(s.Steps), len(st.Calls)}
				}
				st.Calls = append(st.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: jsonArgument(tc.Function.Arguments), Line: line, UUID: at})
			}
			s.Steps = append(s.Steps, st)
			if t := len(s.Turns) - 1; t >= 0 {
				s.Turns[t].Steps++
			}
		case "tool":
			for _, p := range m.Content.Parts {
				if !genericTextPart(p.Type) {
					text = join(text, "["+p.Type+"]")
				}
			}
			call, ok := calls[m.ToolCallID]
			if !ok {
				s.OrphanResults++
				continue
			}
			c := &s.Steps[call[0]].Calls[call[1]]
			c.HasResult, c.Result, c.IsError, c.ResultLine, c.ResultUUID = true, text, m.IsError, line, at
		default:
			return nil, msgErrorf(i, "role %q is not system, developer, user, assistant or tool", m.Role)
		}
	}
	return s, nil
}

// genericTextPart is whether a content part of this type is text: the
// chat-completions API's "text" and the Responses API's "input_text" and
// "output_text", and both APIs' "refusal" (its "refusal" read as its
// text, gContent).
func genericTextPart(typ string) bool {
	return typ == "text" || typ == "input_text" || typ == "output_text" || typ == "refusal"
}

// text is the content's text: the string, or its text parts joined by
// "\n" (genericTextPart).
func (c ccContent) text() string {
	text := c.Text
	for _, p := range c.Parts {
		if genericTextPart(p.Type) {
			text = join(text, p.Text)
		}
	}
	return text
}

// summaryCompaction records the compaction a message marked "compaction
// summary" at index i stands for: the one listed at after_message i gets
// the message's text as its summary when it has none; with none listed
// there, the message makes one.
func summaryCompaction(comps []gCompaction, i int, text string) []gCompaction {
	for k := range comps {
		if *comps[k].AfterMessage == i {
			if comps[k].Summary == "" {
				comps[k].Summary = text
			}
			return comps
		}
	}
	return append(comps, gCompaction{AfterMessage: &i, Summary: text})
}

// jsonColumn is the column, in characters from 1, of encoding/json's
// error err in a value that starts at byte base of line: its offset
// counts the bytes read, so the bad byte is the one before it; with no
// offset, the value's first character.
func jsonColumn(line []byte, base int, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset > 0:
		return jsonscan.Column(line, base+int(se.Offset)-1)
	case errors.As(err, &te) && te.Offset > 0:
		return jsonscan.Column(line, base+int(te.Offset)-1)
	}
	return jsonscan.Column(line, base)
}

// jsonMessage words encoding/json's error err for a person: a value of
// the wrong type is "FIELD: want a string, got a number", not Go's
// struct and field names.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err.Error()
	}
	want := "a " + te.Type.String()
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "a whole number"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.Bool:
		want = "true or false"
	case reflect.Slice, reflect.Array:
		want = "a list"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	got := te.Value
	switch got {
	case "number", "string", "object", "array", "bool":
		got = map[string]string{"number": "a number", "string": "a string", "object": "an object", "array": "a list", "bool": "true or false"}[got]
	}
	if te.Field == "" {
		return "want " + want + ", got " + got
	}
	return te.Field + ": want " + want + ", got " + got
}

// injectedKind reads a message's "injected" field (genericSession says
// which roles may carry which).
func injectedKind(raw json.RawMessage) (Kind, error) {
	switch {
	case len(raw) == 0, string(raw) == "null", string(raw) == "false":
		return Typed, nil
	case string(raw) == "true":
		return Meta, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Typed, fmt.Errorf("injected: %v", err)
		}
		for k := range kindNames {
			if kindNames[k] == s && !Kind(k).Typed() {
				return Kind(k), nil
			}
		}
		return Typed, fmt.Errorf("injected: %q is not a reason tally knows (%s), true or false", s, injectedNames())
	}
	return Typed, fmt.Errorf("injected is %.20s, not a string or a boolean", raw)
}

// injectedNames lists the reasons "injected" may name, quoted.
func injectedNames() string {
	var names []string
	for k := range kindNames {
		if !Kind(k).Typed() {
			names = append(names, strconv.Quote(kindNames[k]))
		}
	}
	return strings.Join(names, ", ")
}
