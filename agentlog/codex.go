package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
//     have the wrong JSON types is an error naming file:line:column. A
//     file that is no agent log by its first line (a prompt history,
//     pretty-printed JSON) is refused, as NewReader says.
func ReadCodex(r io.Reader, name string) (*Session, error) {
	r, err := headChecked(r, name)
	if err != nil {
		return nil, err
	}
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
		return &MalformedError{err}
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
