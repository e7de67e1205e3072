package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonscan"
)

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
	{"<plugins>", Meta},
	{"<subagents>", Meta},
	{"<turn_aborted>", Interrupted},
	{"<subagent_notification>", Notification},
	{"<agent_message_board_notification>", Notification},
	{"<user_shell_command>", ShellCommand},
}

// cxTagKind classifies a Codex user text by how it starts, after white
// space and ignoring case, as Codex's own check of its fragments does
// (a new user's trial: "  <ENVIRONMENT_CONTEXT>" was read as typed).
func cxTagKind(s string) (Kind, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, t := range cxTags {
		if len(s) >= len(t.prefix) && strings.EqualFold(s[:len(t.prefix)], t.prefix) {
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
