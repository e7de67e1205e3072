package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// Codex is the format of Codex CLI rollouts.
const Codex Format = "codex"

// The Codex CLI rollout format, as read here. Sources (openai/codex):
//
//   - codex-rs/protocol/src/protocol.rs: RolloutLine is {timestamp,
//     …RolloutItem flattened}; RolloutItem is tagged
//     `#[serde(tag = "type", content = "payload")]` with the variants
//     session_meta (SessionMetaLine: SessionMeta flattened, so payload.id
//     is the session id), response_item (ResponseItem), compacted
//     (CompactedItem {message, replacement_history?}), turn_context
//     (TurnContextItem, with model) and event_msg (EventMsg).
//   - codex-rs/protocol/src/models.rs: ResponseItem is tagged by "type":
//     message {role, content: [input_text|output_text|input_image]},
//     reasoning {summary: [summary_text], content?: [reasoning_text|text]},
//     local_shell_call {call_id, status, action}, function_call {name,
//     arguments (a string of JSON), call_id}, function_call_output
//     {call_id, output: FunctionCallOutputPayload}, custom_tool_call
//     {call_id, name, input (a string)}, custom_tool_call_output {call_id,
//     output}, web_search_call, ghost_snapshot, compaction
//     {encrypted_content}. FunctionCallOutputPayload deserializes from a
//     string or a list of content items; older rollouts wrote an object
//     {content, success}.
//   - The injected user-text markers are Codex's contextual user
//     fragments (CONTEXTUAL_USER_MARKERS, and USER_INSTRUCTIONS_OPEN_TAG /
//     ENVIRONMENT_CONTEXT_OPEN_TAG in protocol.rs).
//
// No real rollout was at hand: testdata/codex-*.jsonl were written by hand
// from these definitions.

// cxLine is one rollout line: the payload is decoded by type.
type cxLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// cxItem is a response_item payload, and the payloads of session_meta,
// compacted and turn_context (the fields they use do not collide).
type cxItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   []cxPart        `json:"content"`
	Summary   []cxPart        `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    cxOutput        `json:"output"`
	// Cwd is a session_meta's working directory, ForkedFrom the
	// session a fork copied (SessionMeta.forked_from_id).
	Cwd        string `json:"cwd"`
	ForkedFrom string `json:"forked_from_id"`
	// Message and ReplacementHistory are a compacted item's.
	Message            string   `json:"message"`
	ReplacementHistory []cxItem `json:"replacement_history"`
}

// cxPart is a content item of a message or a reasoning item.
type cxPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// cxOutput is a tool output: a string, a list of content items, or an
// object {content, success}.
type cxOutput struct {
	Text    string
	Success *bool
}

// UnmarshalJSON decodes the three shapes of an output. Its errors hide
// encoding/json's offsets, which count from the output, not the line.
func (o *cxOutput) UnmarshalJSON(b []byte) error {
	var err error
	switch {
	case len(b) > 0 && b[0] == '"':
		err = json.Unmarshal(b, &o.Text)
	case len(b) > 0 && b[0] == '[':
		var parts []cxPart
		err = json.Unmarshal(b, &parts)
		for _, p := range parts {
			if p.Type == "input_text" || p.Type == "output_text" || p.Type == "text" {
				o.Text = join(o.Text, p.Text)
			} else {
				o.Text = join(o.Text, "["+p.Type+"]")
			}
		}
	case len(b) > 0 && b[0] == '{':
		var v struct {
			Content string `json:"content"`
			Success *bool  `json:"success"`
		}
		err = json.Unmarshal(b, &v)
		o.Text, o.Success = v.Content, v.Success
	case string(b) == "null":
	default:
		return fmt.Errorf("output is %.20s…, not a string, a list or an object", b)
	}
	if err != nil {
		return fmt.Errorf("output: %s", err.Error())
	}
	return nil
}

// cxReader holds the state of one read.
type cxReader struct {
	s     *Session
	line  int
	b     []byte            // the current line
	calls map[string][2]int // call_id → step, call
	step  int               // the step being added to, -1 when none
	model string            // the model of the last turn_context
	// tokens is the last token_count event's last_token_usage.total_tokens.
	tokens int64
	// metaCwd is whether Session.Cwd came from a session_meta, which a
	// turn_context's does not replace.
	metaCwd bool
	// sessions are the session ids this rollout may hold: its own and,
	// for a fork, the sessions it copied (forked_from_id), whose
	// session_meta lines come with the copied history.
	sessions map[string]bool
	// metaLine is the line of the session_meta that gave Session.ID.
	metaLine int
}

// ReadCodex reads a Codex CLI rollout (JSONL, not gzipped: see Open)
// line by line, holding one line at a time. name is used in errors and
// as Session.Name. How the rollout maps to the model:
//
//   - session_meta: Session.ID is the first one's payload.id, Session.Cwd
//     the first payload.cwd (or, when no session_meta has one, the first
//     turn_context's cwd). A later session_meta of another session,
//     one no earlier session_meta names forked_from_id, is another
//     rollout joined to this one: an error here (NewReader reads each).
//   - A user message (response_item message, role user) is a Message:
//     injected when all its text parts start with a contextual fragment
//     Codex adds (<environment_context>, <user_instructions>,
//     "# AGENTS.md instructions", <INSTRUCTIONS>, <skill> → Meta;
//     <turn_aborted> → Interrupted; <subagent_notification>,
//     <agent_message_board_notification> → Notification), else typed
//     (<user_shell_command>, a command the person ran, is ShellCommand).
//     Image parts are left out of Text. developer and system messages
//     are instructions, skipped by type.
//   - A step is the run of model items (assistant message, reasoning,
//     function_call, custom_tool_call, local_shell_call) between two
//     input items (a user message, a tool output, a compaction): the
//     rollout keeps no response ids. Thinking is the reasoning's summary
//     (and its content when stored); Model is the last turn_context's.
//   - Tool calls carry their *_output, joined by call_id. Input is the
//     JSON a function_call's arguments string holds (the string itself
//     when it is not JSON), a custom tool's input string, a local shell
//     call's action. IsError is success false, a JSON output whose
//     metadata.exit_code is not 0, or an output starting "Exit code: N",
//     N ≠ 0. An output whose call is not in the rollout is an orphan.
//   - compacted is a Compaction at its line (see compacted): Summary is
//     its message, Kept the person's messages Codex carried over. A
//     rollout records no trigger (left empty).
//   - event_msg lines repeat the response items or carry no
//     conversation; they are skipped, counted as "event_msg/<type>", as
//     are ghost_snapshot and encrypted compaction items
//     and unknown types. Every line is counted once.
//   - A line that is not a JSON object, has no "type", or whose fields
//     have the wrong JSON types is an error naming file:line:column.
func ReadCodex(r io.Reader, name string) (*Session, error) {
	return readCodex(r, name, Options{})
}

// readCodex is ReadCodex under o's line limit, skipping malformed lines
// when o says so: the file's one session (ReadCodex's caller wants one).
func readCodex(r io.Reader, name string, o Options) (*Session, error) {
	cs := newCodexSessions(r, name, o)
	s, err := cs.next()
	if err == io.EOF {
		return cs.cr.s, nil // no line: an empty session
	}
	if err != nil {
		return nil, err
	}
	if cs.held != nil {
		return nil, fmt.Errorf("%s:%d:%d: session_meta: payload.id %q is another session than %q, which is not forked from it (forked_from_id): the file joins several rollouts; read it with NewReader, or give each its own file",
			name, cs.first, jsonscan.PathColumn(cs.held, "payload", "id"), cs.nextID, s.ID)
	}
	return s, nil
}

// codexSessions reads the rollouts of one file in turn. Codex writes one
// per file, but files joined with cat hold several: a session_meta of a
// session the current rollout neither is nor was forked from (see
// cxReader.meta) starts the next, as a new sessionId does in a Claude
// Code log.
type codexSessions struct {
	name  string
	lines *input.Lines
	bad   func(error)
	cr    *cxReader
	// held is the line that started the next session, read before it
	// was due; first is its number.
	held   []byte
	first  int
	nextID string
	// ended maps the ids of the sessions returned to their first line.
	ended map[string]int
	eof   bool
}

func newCodexSessions(r io.Reader, name string, o Options) *codexSessions {
	cs := &codexSessions{name: name, lines: input.NewLines(r, name, o.MaxLine), bad: o.bad(), ended: map[string]int{}}
	cs.reset()
	return cs
}

// reset starts a new session.
func (cs *codexSessions) reset() {
	cs.cr = &cxReader{
		s: &Session{Name: cs.name, Format: Codex,
			Records: Counts{Read: map[string]int{}, Skipped: map[string]int{}}},
		calls: map[string][2]int{},
		step:  -1,
	}
}

// next returns the next session, or io.EOF after the last. A line over
// the limit is an error naming file and line; with Options.SkipBad it,
// or a line the reader fails at, is passed to Options.Bad, counted as
// MalformedLine, and reading goes on.
func (cs *codexSessions) next() (*Session, error) {
	if cs.eof {
		return nil, io.EOF
	}
	if cs.held != nil {
		cs.reset()
		b := cs.held
		cs.held = nil
		if err := cs.line(cs.first, b); err != nil {
			return nil, err
		}
	}
	for {
		b, err := cs.lines.Next()
		if err == io.EOF {
			cs.eof = true
			if cs.cr.s.Records.Lines() == 0 {
				return nil, io.EOF
			}
			return cs.cr.s, nil
		}
		if err != nil {
			var le *input.LineError
			if !errors.As(err, &le) {
				return nil, fmt.Errorf("%s:%d: %w", cs.name, cs.lines.Line()+1, err)
			}
			// a line over the limit names file and line
			if err := cs.skipBad(err); err != nil {
				return nil, err
			}
			continue
		}
		var ns *newSession
		err = cs.line(cs.lines.Line(), b)
		if errors.As(err, &ns) {
			if first, ok := cs.ended[ns.id]; ok {
				return nil, fmt.Errorf("%s:%d:%d: session_meta: session %q comes back after another session's lines (its session_meta is at line %d): a file holds each rollout whole", cs.name, cs.lines.Line(), jsonscan.PathColumn(b, "payload", "id"), ns.id, first)
			}
			cs.ended[cs.cr.s.ID] = cs.cr.metaLine
			cs.held, cs.first, cs.nextID = append([]byte(nil), b...), cs.lines.Line(), ns.id
			return cs.cr.s, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// line reads line b, number n, of the current session.
func (cs *codexSessions) line(n int, b []byte) error {
	cs.cr.line, cs.cr.b = n, b
	err := cs.cr.record(b)
	var ns *newSession
	if err == nil || errors.As(err, &ns) {
		return err
	}
	return cs.skipBad(err)
}

// skipBad passes err to Options.Bad and counts the line as malformed, or
// returns err when bad lines are not skipped.
func (cs *codexSessions) skipBad(err error) error {
	if cs.bad == nil {
		return err
	}
	cs.bad(err)
	cs.cr.skip(MalformedLine)
	return nil
}

// newSession is the session_meta of another session: cxReader.meta's
// signal that the next session starts at this line.
type newSession struct{ id string }

func (e *newSession) Error() string { return "session_meta of session " + e.id }

// lineError is an encoding/json error in line b (number line of file
// name), placed at its column (jsonColumn) and worded for a person
// (jsonMessage); base is the offset in b of the bytes that were decoded.
func lineError(name string, line int, b []byte, base int, err error) error {
	return fmt.Errorf("%s:%d:%d: %s", name, line, jsonColumn(b, base, err), jsonMessage(err))
}

func (cr *cxReader) errorf(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", cr.s.Name, cr.line, fmt.Sprintf(format, a...))
}

func (cr *cxReader) skip(kind string) { cr.s.Records.Skipped[kind]++ }
func (cr *cxReader) read(kind string) { cr.s.Records.Read[kind]++ }

// decode decodes the payload into v, with errors placed in the line.
func (cr *cxReader) decode(payload json.RawMessage, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		base := max(bytes.Index(cr.b, payload), 0)
		return lineError(cr.s.Name, cr.line, cr.b, base, err)
	}
	return nil
}

// record reads one line.
func (cr *cxReader) record(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		cr.skip("(blank line)")
		return nil
	}
	var ln cxLine
	if err := json.Unmarshal(b, &ln); err != nil {
		return lineError(cr.s.Name, cr.line, b, 0, err)
	}
	if ln.Type == "" {
		return cr.errorf(`record has no "type" (tally reads rollouts whose every line is {"timestamp", "type", "payload"}; an older rollout of bare items, opened by a header line and {"record_type": …}, is not read)`)
	}
	if cr.s.Start.IsZero() && ln.Timestamp != "" {
		cr.s.Start = parseTime(ln.Timestamp)
	}
	switch ln.Type {
	case "session_meta", "response_item", "compacted", "turn_context":
		if len(ln.Payload) == 0 || ln.Payload[0] != '{' {
			return cr.errorf("%s record has no payload object", ln.Type)
		}
	case "event_msg":
		// Events repeat what the response items say (user_message,
		// agent_message, agent_reasoning) or carry no conversation
		// (token_count, task_started, …): counted by their type.
		var ev struct {
			Type string `json:"type"`
			// Info is a token_count's (TokenUsageInfo in
			// codex-rs/protocol/src/protocol.rs).
			Info *struct {
				LastTokenUsage struct {
					TotalTokens int64 `json:"total_tokens"`
				} `json:"last_token_usage"`
			} `json:"info"`
		}
		if len(ln.Payload) > 0 && ln.Payload[0] == '{' {
			if err := cr.decode(ln.Payload, &ev); err != nil {
				return err
			}
		}
		if ev.Type == "token_count" && ev.Info != nil {
			// The last request's size: the context's tokens before a
			// compaction that follows.
			cr.tokens = ev.Info.LastTokenUsage.TotalTokens
		}
		cr.skip("event_msg/" + ev.Type)
		return nil
	default:
		cr.skip(ln.Type)
		return nil
	}
	var it cxItem
	if ln.Type == "turn_context" {
		// Only the model: its other fields (summary, …) have other shapes.
		var tc struct {
			Model string `json:"model"`
			Cwd   string `json:"cwd"`
		}
		if err := cr.decode(ln.Payload, &tc); err != nil {
			return err
		}
		cr.model = tc.Model
		if cr.s.Cwd == "" && !cr.metaCwd {
			cr.s.Cwd = tc.Cwd
		}
		cr.read(ln.Type)
		return nil
	}
	if err := cr.decode(ln.Payload, &it); err != nil {
		return err
	}
	switch ln.Type {
	case "session_meta":
		if err := cr.meta(&it); err != nil {
			return err
		}
		if it.Cwd != "" && !cr.metaCwd {
			cr.s.Cwd, cr.metaCwd = it.Cwd, true
		}
		cr.read(ln.Type)
	case "compacted":
		cr.compacted(&it)
		cr.read(ln.Type)
	case "response_item":
		return cr.item(&it)
	}
	return nil
}

// meta reads a session_meta's id. Codex writes one per rollout; a
// resumed session appends without a new one, and a fork's rollout
// (forked_from_id) copies the sessions it came from, their session_meta
// lines too. Any other session's session_meta means rollouts were
// joined into one file (cat a/*.jsonl > all.jsonl): it returns
// *newSession, and the next session starts at this line.
func (cr *cxReader) meta(it *cxItem) error {
	if cr.sessions == nil {
		cr.sessions = map[string]bool{}
	}
	switch {
	case it.ID == "" || cr.sessions[it.ID]:
	case cr.s.ID == "":
		cr.s.ID, cr.metaLine = it.ID, cr.line
	default:
		return &newSession{it.ID}
	}
	cr.sessions[it.ID] = true
	if it.ForkedFrom != "" {
		cr.sessions[it.ForkedFrom] = true
	}
	return nil
}

// compacted adds a compaction (codex-rs/core/src/compact.rs and
// compact_remote.rs). The context Codex builds is its start-up context,
// the person's own messages and the summary (build_compacted_history),
// written whole as replacement_history by later versions:
//
//   - Summary is the item's message; when that is empty, a user message
//     of replacement_history that starts with Codex's summary prefix;
//     a remote compaction keeps its summary only encrypted (a
//     "compaction" item), and Encrypted says so.
//   - Kept are the user messages of replacement_history but the summary
//     (the start-up context, then the person's), or, when the item has
//     none, those messages as Codex builds them (kept).
func (cr *cxReader) compacted(it *cxItem) {
	cr.step = -1
	c := Compaction{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Message: len(cr.s.Messages), Line: cr.line, Summary: it.Message, PreTokens: cr.tokens}
	if it.ReplacementHistory == nil {
		c.Kept = cr.kept()
	} else {
		c.Kept = []string{}
	}
	for i := range it.ReplacementHistory {
		h := &it.ReplacementHistory[i]
		switch {
		case h.Type == "compaction" || h.Type == "compaction_summary":
			c.Encrypted = c.Summary == ""
		case h.Type == "message" && h.Role == "user":
			text := partsText(h.Content)
			if strings.HasPrefix(strings.TrimSpace(text), cxSummaryPrefix) {
				if it.Message == "" {
					c.Summary = text
				}
				continue
			}
			c.Kept = append(c.Kept, text)
		}
	}
	if c.Summary != "" {
		c.SummaryLine, c.Encrypted = cr.line, false
	}
	cr.s.Compactions = append(cr.s.Compactions, c)
}

// cxSummaryPrefix opens the summary message of a Codex compaction
// (codex-rs/core/templates/compact/summary_prefix.md).
const cxSummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process."

// cxKeptTokens is the budget of the person's messages a Codex compaction
// keeps (COMPACT_USER_MESSAGE_MAX_TOKENS in codex-rs/core/src/compact.rs).
const cxKeptTokens = 20_000

// kept returns the messages a compaction with no replacement_history
// kept, as build_compacted_history builds them: the start-up context
// (the injected messages before the first typed one: AGENTS.md, the
// environment), then the typed messages so far, newest first while they
// fit in cxKeptTokens tokens of 4 bytes each (approx_token_count,
// codex-rs/utils/string/src/truncate.rs), the one that does not fit cut
// to what is left, its middle elided; then in their order.
func (cr *cxReader) kept() []string {
	var startup []string
	for i := range cr.s.Messages {
		m := &cr.s.Messages[i]
		if m.Kind.Typed() {
			break
		}
		if m.Kind == Meta {
			startup = append(startup, m.Text)
		}
	}
	out := []string{}
	left := cxKeptTokens
	for i := len(cr.s.Messages) - 1; i >= 0 && left > 0; i-- {
		m := &cr.s.Messages[i]
		if m.Kind != Typed {
			continue
		}
		n := (len(m.Text) + 3) / 4
		if n <= left {
			out = append(out, m.Text)
			left -= n
			continue
		}
		out = append(out, elideMiddle(m.Text, left*4))
		break
	}
	slices.Reverse(out)
	return append(startup, out...)
}

// elideMiddle cuts text to about max bytes, keeping its start and its
// end (at rune boundaries) around a marker that says how many tokens
// were left out, as Codex's truncate_text does.
func elideMiddle(text string, max int) string {
	if len(text) <= max {
		return text
	}
	head, tail := max/2, len(text)-(max-max/2)
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	for tail < len(text) && !utf8.RuneStart(text[tail]) {
		tail++
	}
	return text[:head] + fmt.Sprintf("…%d tokens truncated…", (tail-head+3)/4) + text[tail:]
}

// partsText joins the text parts of a content list.
func partsText(parts []cxPart) string {
	var s string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			s = join(s, p.Text)
		}
	}
	return s
}

// item reads a response_item.
func (cr *cxReader) item(it *cxItem) error {
	kind := "response_item/" + it.Type
	switch it.Type {
	case "message":
		kind += "/" + it.Role
		switch it.Role {
		case "user":
			cr.user(it)
		case "assistant":
			st := cr.current()
			st.Text = join(st.Text, partsText(it.Content))
			if st.TextLine == 0 && st.Text != "" {
				st.TextLine = cr.line
			}
		case "developer", "system": // instructions, not a user record
			cr.skip(kind)
			return nil
		default:
			// A role Codex does not write ("User", null) would drop a
			// person's prompt in silence.
			col := 1
			if k := bytes.Index(cr.b, []byte(`"role"`)); k >= 0 {
				col = jsonscan.Column(cr.b, k)
			}
			role := strconv.Quote(it.Role)
			if it.Role == "" {
				role = "missing or null"
			}
			return fmt.Errorf("%s:%d:%d: role: %s is not a role Codex writes (user, assistant, developer or system)", cr.s.Name, cr.line, col, role)
		}
	case "reasoning":
		st := cr.current()
		th := partsText(it.Summary)
		if t := partsText(it.Content); t != "" {
			th = join(th, t)
		}
		if th != "" {
			st.Thinking = join(st.Thinking, th)
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		st := cr.current()
		call := ToolCall{ID: it.CallID, Name: it.Name, Line: cr.line}
		switch it.Type {
		case "function_call":
			call.Input = jsonArgument(it.Arguments)
		case "custom_tool_call":
			call.Input = bytes.Clone(it.Input)
		case "local_shell_call":
			call.Name = "local_shell"
			call.Input = bytes.Clone(it.Action)
		}
		if it.CallID != "" {
			cr.calls[it.CallID] = [2]int{cr.step, len(st.Calls)}
		}
		st.Calls = append(st.Calls, call)
	case "function_call_output", "custom_tool_call_output":
		cr.step = -1
		at, ok := cr.calls[it.CallID]
		if !ok {
			cr.s.OrphanResults++
			break
		}
		call := &cr.s.Steps[at[0]].Calls[at[1]]
		call.HasResult, call.Result, call.ResultLine = true, it.Output.Text, cr.line
		call.IsError = outputFailed(it.Output)
	case "web_search_call":
		// A search the model ran through the API's own tool: a call
		// named web_search whose input is its action ({"type":
		// "search", "query": …}); the rollout keeps no results.
		st := cr.current()
		st.Calls = append(st.Calls, ToolCall{ID: it.ID, Name: "web_search", Input: bytes.Clone(it.Action), Line: cr.line})
	default: // ghost_snapshot, compaction (encrypted), other
		cr.skip(kind)
		return nil
	}
	cr.read(kind)
	return nil
}

// current returns the step being built, starting one when none is,
// and counts the record in it.
func (cr *cxReader) current() *Step {
	if cr.step < 0 {
		cr.step = len(cr.s.Steps)
		cr.s.Steps = append(cr.s.Steps, Step{Turn: len(cr.s.Turns) - 1, Line: cr.line, Model: cr.model})
		if t := len(cr.s.Turns) - 1; t >= 0 {
			cr.s.Turns[t].Steps++
		}
	}
	st := &cr.s.Steps[cr.step]
	st.Records++
	return st
}

// jsonArgument returns a function_call's arguments as JSON: the JSON the
// string holds when it holds valid JSON, else the field as it is.
func jsonArgument(raw json.RawMessage) json.RawMessage {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return bytes.Clone(raw)
}

// outputFailed is whether a tool output reports a failure: success false,
// a JSON output whose metadata.exit_code is not 0 (the shell tool's
// output), a text output whose line says "Process exited with code N"
// (exec_command's) or that starts "Exit code: N", with N ≠ 0.
func outputFailed(o cxOutput) bool {
	if o.Success != nil {
		return !*o.Success
	}
	t := strings.TrimSpace(o.Text)
	if strings.HasPrefix(t, "{") {
		var v struct {
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &v) == nil && v.Metadata.ExitCode != nil {
			return *v.Metadata.ExitCode != 0
		}
		return false
	}
	// exec_command's output (codex-rs/core/src/tools/handlers/
	// unified_exec.rs) says "Process exited with code N" on a line.
	for line := range strings.Lines(t) {
		if rest, ok := strings.CutPrefix(line, "Process exited with code "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			return err == nil && n != 0
		}
	}
	if rest, ok := strings.CutPrefix(t, "Exit code: "); ok {
		end := strings.IndexAny(rest, "\r\n ")
		if end < 0 {
			end = len(rest)
		}
		n, err := strconv.Atoi(rest[:end])
		return err == nil && n != 0
	}
	return false
}

// cxTags maps the start of a Codex user text to its kind: the contextual
// fragments Codex injects in the user's role.
var cxTags = []struct {
	prefix string
	kind   Kind
}{
	{"<environment_context>", Meta},
	{"<user_instructions>", Meta},
	{"# AGENTS.md instructions", Meta},
	{"<INSTRUCTIONS>", Meta},
	{"<skill>", Meta},
	{"<turn_aborted>", Interrupted},
	{"<subagent_notification>", Notification},
	{"<agent_message_board_notification>", Notification},
	{"<user_shell_command>", ShellCommand},
}

// cxTagKind classifies a Codex user text by how it starts.
func cxTagKind(s string) (Kind, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, t := range cxTags {
		if strings.HasPrefix(s, t.prefix) {
			return t.kind, true
		}
	}
	return Typed, false
}

// user adds a user message: typed unless all its text parts are
// injected fragments (then the first one's kind says why).
func (cr *cxReader) user(it *cxItem) {
	cr.step = -1
	msg := Message{Turn: len(cr.s.Turns) - 1, Step: len(cr.s.Steps), Line: cr.line}
	var typed, injected []string
	kind := Typed
	for _, p := range it.Content {
		if p.Type != "input_text" && p.Type != "text" {
			continue
		}
		if k, ok := cxTagKind(p.Text); ok {
			if k.Typed() {
				typed = append(typed, p.Text)
				kind = k
				continue
			}
			injected = append(injected, p.Text)
			if len(injected) == 1 {
				msg.Kind = k
			}
		} else {
			typed = append(typed, p.Text)
		}
	}
	if len(typed) > 0 {
		msg.Kind, msg.Text = kind, strings.Join(typed, "\n")
	} else {
		msg.Text = strings.Join(injected, "\n")
	}
	if msg.Kind.Typed() {
		msg.Turn = len(cr.s.Turns)
		cr.s.Turns = append(cr.s.Turns, Turn{Message: len(cr.s.Messages), FirstStep: len(cr.s.Steps)})
	}
	cr.s.Messages = append(cr.s.Messages, msg)
}
