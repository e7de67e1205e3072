// Package agentlog reads the logs coding agents really write into one
// event model: a Session of turns, steps, tool calls with their results,
// user messages marked typed or injected, and compactions with their
// summaries. It reads Claude Code's session JSONL
// (~/.claude/projects/…/<sessionId>.jsonl), Codex CLI rollouts
// (~/.codex/sessions/…/rollout-*.jsonl), a generic format of
// OpenAI-style chat messages with tool calls, and tally's own event log
// (tally.go), gzipped or not; Open tells
// them apart by the first line (Sniff), OpenAll takes the format by name,
// and NewReader reads a log of many sessions one session at a time, in
// memory bounded by its largest session, skipping malformed lines when
// asked (Options.SkipBad).
//
// The model's choices:
//
//   - A turn is one person-typed prompt and everything until the next.
//     Steps and messages before the first typed prompt (a session that
//     opens with a compaction summary, say) have Turn -1.
//   - A step is one model response. Claude Code writes one API response
//     as several assistant records (one per content block) sharing
//     message.id; they are grouped into one Step, even when tool results
//     arrive between them. A record without an id is a step of its own.
//   - A tool call carries its result, joined by tool_use_id: the result's
//     text (the text parts of a list result; other parts, such as images,
//     are counted as "[image]") and is_error. A result whose call is not
//     in the session is counted in Session.OrphanResults.
//   - Every user record is a Message, marked typed or injected, with the
//     reason as its Kind; see Kind for the rules, taken from the dev set.
//   - A compaction is a system compact_boundary record: its trigger and
//     preTokens from compactMetadata, its position (the turn it happened
//     in and the number of steps before it), and the summary text from
//     the isCompactSummary user record that follows it. A microcompaction
//     (microcompact_boundary: old tool results cleared, no summary) is
//     kept apart in Session.Microcompactions.
//   - A failed model request is an APIError, not a step: a system
//     api_error record (with its HTTP status), or an assistant record
//     with isApiErrorMessage (the client's message about the failure).
//   - A Claude Code log holds one session per run of records with the
//     same sessionId: a file of concatenated logs (cat a.jsonl b.jsonl)
//     is several sessions, a new one starting at each record whose
//     sessionId differs from the current session's. A record without a
//     sessionId belongs to the current session; lines are numbered from
//     the top of the file.
//   - Sidechain records (isSidechain: a sub-agent's own conversation) are
//     counted and skipped, as "sidechain/<type>": the main thread sees a
//     sub-agent as its Task tool call and that call's result.
//   - A server tool's call (server_tool_use: web_search) is a ToolCall,
//     its result the *_tool_result part of the same response (an error
//     when that is an object). Other parts that are neither text nor
//     calls (image, document, redacted_thinking) are counted in
//     Session.Dropped as "content part/<type>".
//   - A prompt the person typed while the agent worked is only in
//     queue-operation records (enqueue with its text, or its parts when an
//     image went with it; remove when it was
//     sent mid-turn, dequeue when sent as the next prompt, popAll when
//     taken back): a removed one is a Message of kind Queued, in the turn
//     it was sent in, starting none (Message.Person, not Typed).
//   - A user record with no content at all (null, "" or []) is counted
//     as "user (empty)" and starts no turn.
//   - Records that carry no conversation (progress, file-history-snapshot,
//     a queued task notification or slash command, summary titles,
//     pr-link, and system records other than compact_boundary,
//     microcompact_boundary and api_error) are
//     counted as skipped by type, as are types this reader does not know,
//     so a caller can say what was not read. Session.Records has the
//     counts; every line is counted exactly once.
//   - A line that is not a JSON object, or whose fields have the wrong
//     JSON types, is an error naming file:line:column and the field's
//     path (message.content[1].content); nothing is skipped silently.
package agentlog
