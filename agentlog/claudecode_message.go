package agentlog

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"
)

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
