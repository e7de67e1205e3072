package agentlog

import (
	"encoding/json"
	"strings"
	"time"
)

// Format names a log format.
type Format string

// The formats read.
const (
	ClaudeCode Format = "claude-code"
)

// Session is one agent session read from a log.
type Session struct {
	// Name is the file name given to the reader (used in errors).
	Name string
	// ID is the session's id as the log gives it (Claude Code: sessionId
	// of the first record that has one).
	ID     string
	Format Format
	// Cwd is the session's working directory, "" when the log gives none
	// (Claude Code: the cwd of the first record that has one; Codex:
	// session_meta's payload.cwd, else the first turn_context's cwd;
	// generic: the session's optional "cwd").
	Cwd string
	// Start is the time of the session's first record that has one
	// (Claude Code: timestamp; Codex: the line's timestamp; generic: the
	// session's optional "started"; tally: ts), zero when none has.
	Start time.Time

	Turns            []Turn
	Steps            []Step
	Messages         []Message
	Compactions      []Compaction
	Microcompactions []Microcompaction
	APIErrors        []APIError

	// OrphanResults counts tool results whose call is not in the session.
	OrphanResults int
	// Dropped counts what was read but left out of the model, by what it
	// is ("content part/image_url": a message's part that is not text),
	// nil when nothing was.
	Dropped map[string]int
	// Records counts the lines read and skipped, by record type.
	Records Counts
}

// Counts is the number of records read and skipped, by type: "user",
// "assistant", "system/compact_boundary", "progress", "sidechain/user", …
// Every line of the log is counted once, in Read or in Skipped.
type Counts struct {
	Read    map[string]int
	Skipped map[string]int
}

// Lines is the number of lines counted, read and skipped.
func (c Counts) Lines() int {
	n := 0
	for _, v := range c.Read {
		n += v
	}
	for _, v := range c.Skipped {
		n += v
	}
	return n
}

// Turn is one person-typed prompt and everything until the next.
type Turn struct {
	// Message is the index of the prompt in Session.Messages.
	Message int
	// FirstStep is the index in Session.Steps of the turn's first step
	// (equal to len(Steps) at the prompt); Steps is how many it has.
	FirstStep, Steps int
}

// Step is one model response.
type Step struct {
	// ID is the response's id (Claude Code: message.id).
	ID string
	// Turn is the index of the turn it belongs to, -1 before the first.
	Turn int
	// Line is the line of the step's first record; Records is the number
	// of records grouped into it. TextLine is the line of the record
	// holding its first text part (0 when it has no text): Claude Code
	// often writes a response's thinking first.
	Line, Records int
	TextLine      int
	Model         string
	// Text and Thinking are the text and thinking parts, joined by "\n".
	Text, Thinking string
	Calls          []ToolCall
	// UUID is the uuid of the step's first record and UUIDs those of all
	// its records, in order (Claude Code; the generic format's message
	// index, "messages[7]"; empty in other formats).
	UUID  string
	UUIDs []string
}

// ToolCall is one tool_use part with its result.
type ToolCall struct {
	ID, Name string
	Input    json.RawMessage
	// HasResult is whether a result came back; Result is its text and
	// IsError the tool_result's is_error. ResultLine is its line.
	HasResult  bool
	Result     string
	IsError    bool
	ResultLine int
	// Line is the line of the record holding the call (a model response
	// spans several records: its thinking, its text, each tool_use).
	Line int
	// UUID is the uuid of the record holding the tool_use and ResultUUID
	// that of the record holding its result (Claude Code; the generic
	// format's message indexes, "messages[7]"; empty in other formats).
	UUID, ResultUUID string
}

// Message is one user record: a prompt a person typed, or text the
// client injected in the user's role.
type Message struct {
	Kind Kind
	// Turn is the turn it belongs to (for a typed message, the turn it
	// starts); Step is the number of steps before it.
	Turn, Step int
	Line       int
	// Text is the message's text: the string content, or the text parts
	// joined by "\n" (tool results are on their calls, not here).
	Text string
	// ToolResults is the number of tool_result parts it carried.
	ToolResults int
	// UUID is the record's uuid (Claude Code; the generic format's
	// message index, "messages[7]"; empty in other formats).
	UUID string
}

// Typed is whether a person typed the message as a prompt that starts
// a turn.
func (m Message) Typed() bool { return m.Kind.Typed() }

// Person is whether a person wrote the message: a typed prompt, or one
// queued while the agent worked (Queued).
func (m Message) Person() bool { return m.Kind.Typed() || m.Kind == Queued }

// Kind says who wrote a user message. The rules, in order, from the
// Claude Code dev set:
//
//	isCompactSummary                          → CompactSummary
//	tool_result parts and no other text       → ToolResult
//	isMeta (skill text, command caveats)      → Meta
//	<local-command-stdout|stderr|caveat>,
//	  <bash-stdout>, <bash-stderr>             → CommandOutput
//	<system-reminder>                         → SystemReminder
//	<task-notification>, <agent-notification> → Notification
//	<ide_opened_file>, <ide_selection>        → IDEContext
//	[Request interrupted by user…]            → Interrupted
//	Operation stopped by hook…,
//	  (Subagent)Stop hook feedback:…          → HookOutput
//	<command-name>, <command-message>         → SlashCommand (typed)
//	<bash-input>                              → ShellCommand (typed)
//	anything else                             → Typed
//
// and a prompt the person typed while the agent worked, sent in the
// middle of a turn (a queue-operation enqueue, then remove) → Queued: a
// person's words that start no turn.
//
// The tags are matched at the start of the text (after spaces). In a
// list content, text parts that begin with an injected tag are left out
// of Text when other text remains, so a prompt sent with an IDE note or
// beside a tool result is still typed.
type Kind uint8

// The kinds of user message.
const (
	Typed Kind = iota
	SlashCommand
	ShellCommand
	CompactSummary
	ToolResult
	Meta
	CommandOutput
	SystemReminder
	Notification
	IDEContext
	Interrupted
	HookOutput
	// Queued is a prompt the person typed while the agent was working,
	// sent to the model in the middle of a turn (Claude Code's
	// queue-operation records): the person's words, but no turn of its
	// own (Typed is false; Person is true).
	Queued
)

var kindNames = [...]string{
	Typed:          "typed",
	SlashCommand:   "slash command",
	ShellCommand:   "shell command",
	CompactSummary: "compaction summary",
	ToolResult:     "tool result",
	Meta:           "meta",
	CommandOutput:  "command output",
	SystemReminder: "system reminder",
	Notification:   "notification",
	IDEContext:     "IDE context",
	Interrupted:    "interrupted",
	HookOutput:     "hook output",
	Queued:         "queued",
}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Typed is whether a person typed a message of this kind.
func (k Kind) Typed() bool { return k <= ShellCommand }

// Compaction is one compaction of the context, with its summary.
type Compaction struct {
	// Trigger is compactMetadata.trigger ("auto", "manual"); PreTokens
	// is compactMetadata.preTokens, the context's tokens before.
	Trigger   string
	PreTokens int64
	// Turn is the turn it happened in (-1 before the first); Step is the
	// number of steps before it and Message the number of messages
	// (Session.Messages) before it, so a message of index i came before
	// it when i < Message, in every format (the generic format puts a
	// whole session on one line, where lines cannot order them); Line
	// is the boundary record's line.
	Turn, Step, Message, Line int
	// Summary is the text of the isCompactSummary record after the
	// boundary: the compacted context the agent continued from.
	// SummaryLine is its line (0 when there was none).
	Summary     string
	SummaryLine int
	// Kept are the messages the compaction carried word for word into
	// the context it made, in order: before its summary, or after it when
	// KeptAfter is set. Codex keeps the person's own messages (the most
	// recent 20,000 tokens of them, as Codex counts tokens), before the
	// summary. Claude Code's summary replaces the whole conversation and
	// keeps none, but for a partial compaction of later versions
	// (compactMetadata.preservedSegment), which keeps its most recent
	// messages after the summary: each typed, injected or tool-result
	// message's text and each step's text (a step of tool calls alone as
	// their names in brackets), from the segment's first record to its
	// last.
	Kept      []string
	KeptAfter bool
	// Encrypted is whether the log holds the summary only encrypted
	// (Codex's remote compaction): Summary is then empty, and the
	// context the agent continued from cannot be read whole.
	Encrypted bool
	// UUID is the boundary record's uuid and SummaryUUID the summary
	// record's (Claude Code; empty in formats without record uuids).
	UUID, SummaryUUID string
}

// Microcompaction is a microcompact_boundary: old tool results cleared
// from the context, with no summary.
type Microcompaction struct {
	Trigger                string
	PreTokens, TokensSaved int64
	// ToolIDs are the tool calls whose results were cleared.
	ToolIDs          []string
	Turn, Step, Line int
}

// APIError is a failed model request: a system api_error record (with
// the HTTP status), or an assistant record with isApiErrorMessage (the
// client's message about it, Status 0), which is not a step.
type APIError struct {
	Status           int
	Turn, Step, Line int
}

// Unread reports whether no record of s was read: every line was
// skipped, as malformed (Options.SkipBad) or by its type, and none was a
// sub-agent's (SubAgentOnly). Such a file holds no conversation — a
// Codex history.jsonl or session index read with --skip-bad, a rollout
// of a layout no reader knows, a log of titles alone — and is no
// session: its lines are counted, the session is not.
func (s *Session) Unread() bool {
	for _, n := range s.Records.Read {
		if n > 0 {
			return false
		}
	}
	return !s.SubAgentOnly()
}

// SubAgentOnly reports whether every record of s that carries
// conversation was a sub-agent's (Claude Code's isSidechain): a
// sub-agent's own transcript, such as the <session>/subagents/agent-*.jsonl
// files of later Claude Code versions, which carry their parent's
// sessionId but none of the parent's conversation. It is not a session:
// the parent's log holds the sub-agent's call and its result.
func (s *Session) SubAgentOnly() bool {
	if len(s.Records.Read) > 0 {
		for _, n := range s.Records.Read {
			if n > 0 {
				return false
			}
		}
	}
	for k, n := range s.Records.Skipped {
		if n > 0 && strings.HasPrefix(k, "sidechain/") {
			return true
		}
	}
	return false
}
