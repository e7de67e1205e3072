package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The event logs in Claude Code's session format (one JSON record a
// line, as Claude Code writes ~/.claude/projects/…/<session>.jsonl), so
// the bundled example goes through the same reader as real logs
// (agentlog). What is written, and why:
//
//   - Every turn of the plan starts with a record a person typed (a user
//     record whose content is the prompt), because a turn is a typed
//     prompt and everything until the next. A plan turn with no user
//     message gets a short continuation prompt ("ok, go ahead"); a few
//     prompts carry an <ide_opened_file> note as a first text part, which
//     the client injects.
//   - A compaction runs right after the prompt of its turn: a system
//     compact_boundary record (parentUuid null, logicalParentUuid the
//     prompt, compactMetadata with trigger "auto" and the tokens before)
//     and the isCompactSummary user record with the summary the agent
//     continued from (the incumbent summariser's for the fixture
//     sessions, a plain account of the work so far for the others).
//   - Each model response is one message id; each of its content parts is
//     a record of its own (tool_use parts one a record, a parallel pair
//     sharing the id), and each tool result comes back in a user record
//     of its own whose parentUuid is the record of its tool_use.
//   - Tools are Claude Code's, with its input schemas (toolInput): Read,
//     Grep, Edit and Bash (tests, git, make, ls), Bash with a free-text
//     description drawn per call, so two identical commands may differ
//     in it.
//   - Results (toolOutput) are short but shaped like Claude Code's: Read
//     lines numbered with "→" and a <system-reminder> after them, Grep
//     matches, Edit's confirmation, a failing command's "Exit code 1"
//     with is_error, an edit the person rejected followed by the client's
//     "[Request interrupted by user for tool use]".
//
// Everything random here draws from the session's own "claudecode/"
// stream, so writing the logs in this format changes no other draw.

// ccVersion and ccModel are the client version and model the records
// name.
const (
	ccVersion = "2.1.14"
	ccModel   = "claude-sonnet-4-5-20250929"
)

// ccHead is the fields that Claude Code's user, assistant and system
// records hold after parentUuid (and a boundary's logicalParentUuid), in
// its order: embedded, they are written in its place.
type ccHead struct {
	IsSidechain bool   `json:"isSidechain"`
	UserType    string `json:"userType"`
	Cwd         string `json:"cwd"`
	SessionID   string `json:"sessionId"`
	Version     string `json:"version"`
	GitBranch   string `json:"gitBranch"`
}

// ccUser is a user record. Field order follows Claude Code's.
type ccUser struct {
	ParentUUID *string `json:"parentUuid"`
	ccHead
	Type                      string `json:"type"`
	Message                   ccMsg  `json:"message"`
	IsMeta                    bool   `json:"isMeta,omitempty"`
	IsVisibleInTranscriptOnly bool   `json:"isVisibleInTranscriptOnly,omitempty"`
	IsCompactSummary          bool   `json:"isCompactSummary,omitempty"`
	UUID                      string `json:"uuid"`
	Timestamp                 string `json:"timestamp"`
}

// ccAssistant is an assistant record.
type ccAssistant struct {
	ParentUUID *string `json:"parentUuid"`
	ccHead
	Message   ccMsg  `json:"message"`
	Type      string `json:"type"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
}

// ccBoundary is a system compact_boundary record.
type ccBoundary struct {
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID string  `json:"logicalParentUuid"`
	ccHead
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	Content         string `json:"content"`
	IsMeta          bool   `json:"isMeta"`
	Timestamp       string `json:"timestamp"`
	UUID            string `json:"uuid"`
	Level           string `json:"level"`
	CompactMetadata struct {
		Trigger   string `json:"trigger"`
		PreTokens int    `json:"preTokens"`
	} `json:"compactMetadata"`
}

// ccSnapshot is a file-history-snapshot record.
type ccSnapshot struct {
	Type             string         `json:"type"`
	MessageID        string         `json:"messageId"`
	Snapshot         ccSnapshotBody `json:"snapshot"`
	IsSnapshotUpdate bool           `json:"isSnapshotUpdate"`
}

type ccSnapshotBody struct {
	MessageID          string   `json:"messageId"`
	TrackedFileBackups struct{} `json:"trackedFileBackups"`
	Timestamp          string   `json:"timestamp"`
}

// ccTurnDuration is a system turn_duration record.
type ccTurnDuration struct {
	ParentUUID *string `json:"parentUuid"`
	ccHead
	Type       string `json:"type"`
	Subtype    string `json:"subtype"`
	DurationMs int64  `json:"durationMs"`
	Timestamp  string `json:"timestamp"`
	UUID       string `json:"uuid"`
	IsMeta     bool   `json:"isMeta"`
}

// ccMsg is a record's message. Content is a string or a list of parts.
type ccMsg struct {
	Model      string  `json:"model,omitempty"`
	ID         string  `json:"id,omitempty"`
	Type       string  `json:"type,omitempty"`
	Role       string  `json:"role"`
	Content    any     `json:"content"`
	StopReason *string `json:"stop_reason,omitempty"`
}

// ccPart is one content part: text, tool_use or tool_result.
type ccPart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

// ccCall is where one planned tool call was written.
type ccCall struct {
	Turn      int    // plan turn
	Key       string // the plan's call key
	Tool      string // Claude Code's tool name
	ToolUseID string
	UUID      string // the record holding the tool_use
	IsError   bool
}

// ccSession is what writing one session in Claude Code's format
// produced: the records and where the calls and compactions went.
type ccSession struct {
	Data        []byte
	Calls       []ccCall
	Compactions map[int]string // plan turn → boundary uuid
	Prompts     map[int]string // plan turn → uuid of the typed prompt
	Stats       ccStats
}

// ccStats counts what a session's log holds, for the README.
type ccStats struct {
	Records, Prompts, IDENotes, Continuations, AssistantRecords, Results int
	// Skipped counts the records a reader skips: file-history snapshots
	// and turn durations.
	Skipped int
	// Failed counts error results by cause: "test" (exit code 1), "edit"
	// (the old string not found), "rejected" (the person said no).
	Failed map[string]int
}

// add adds o's counts to s.
func (s *ccStats) add(o ccStats) {
	s.Records += o.Records
	s.Prompts += o.Prompts
	s.IDENotes += o.IDENotes
	s.Continuations += o.Continuations
	s.AssistantRecords += o.AssistantRecords
	s.Results += o.Results
	s.Skipped += o.Skipped
	if s.Failed == nil {
		s.Failed = map[string]int{}
	}
	for k, v := range o.Failed {
		s.Failed[k] += v
	}
}

// ccWriter writes one session.
type ccWriter struct {
	l      *sessionLog
	r      *rand.Rand
	enc    *json.Encoder
	buf    *bytes.Buffer
	cwd    string
	branch string
	at     time.Time
	parent string // uuid of the last record, "" at the start
	out    *ccSession
}

// newUUID draws a version-4 UUID.
func newUUID(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID draws an Anthropic-style id: prefix and 22 base-62 characters.
func newID(r *rand.Rand, prefix string) string {
	b := []byte(prefix)
	for range 22 {
		b = append(b, base62[r.IntN(len(base62))])
	}
	return string(b)
}

// ccUsers are the home folders the sessions' working directories are in.
var ccUsers = []string{"dana", "sam", "alex", "kim", "ravi", "jo", "mika", "lee"}

// writeClaudeCode renders the session in Claude Code's format. summary
// gives the summary text of its compaction at a plan turn ("" for the
// plain one).
func (l *sessionLog) writeClaudeCode(seed uint64, summary func(turn int) string) (*ccSession, error) {
	r := stream(seed, "claudecode/"+l.s.ID)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_, repo, _ := strings.Cut(l.th.Repo, "/")
	w := &ccWriter{l: l, r: r, enc: enc, buf: &buf,
		cwd:    "/home/" + pick(r, ccUsers) + "/src/" + repo,
		branch: pick(r, []string{"main", "main", "fix/" + l.th.Service, "feat/" + l.th.Service + "-" + pick(r, modules)}),
		at:     l.s.Started,
		out:    &ccSession{Compactions: map[int]string{}, Prompts: map[int]string{}, Stats: ccStats{Failed: map[string]int{}}},
	}
	for t := 1; t <= l.s.Turns; t++ {
		if err := w.turn(t, summary); err != nil {
			return nil, fmt.Errorf("%s turn %d: %w", l.s.ID, t, err)
		}
	}
	w.out.Data = buf.Bytes()
	return w.out, nil
}

// tick advances the clock by lo..hi seconds and some milliseconds.
func (w *ccWriter) tick(lo, hi int) string {
	w.at = w.at.Add(time.Duration(between(w.r, lo, hi))*time.Second + time.Duration(w.r.IntN(1000))*time.Millisecond)
	return w.at.Format("2006-01-02T15:04:05.000Z")
}

// parentPtr is the current parent as parentUuid (null at the start).
func (w *ccWriter) parentPtr() *string {
	if w.parent == "" {
		return nil
	}
	p := w.parent
	return &p
}

// head is the session's fields of a record.
func (w *ccWriter) head() ccHead {
	return ccHead{UserType: "external", Cwd: w.cwd, SessionID: w.l.s.ID, Version: ccVersion, GitBranch: w.branch}
}

func (w *ccWriter) user(content any, ts string, mod func(*ccUser)) (string, error) {
	rec := ccUser{ParentUUID: w.parentPtr(), ccHead: w.head(), Type: "user", Message: ccMsg{Role: "user", Content: content}, UUID: newUUID(w.r), Timestamp: ts}
	if mod != nil {
		mod(&rec)
	}
	w.parent = rec.UUID
	w.out.Stats.Records++
	return rec.UUID, w.enc.Encode(rec)
}

func (w *ccWriter) assistant(msgID string, part ccPart, ts string) (string, error) {
	rec := ccAssistant{ParentUUID: w.parentPtr(), ccHead: w.head(), Type: "assistant", UUID: newUUID(w.r), Timestamp: ts,
		Message: ccMsg{Model: ccModel, ID: msgID, Type: "message", Role: "assistant", Content: []ccPart{part}}}
	w.parent = rec.UUID
	w.out.Stats.Records++
	w.out.Stats.AssistantRecords++
	return rec.UUID, w.enc.Encode(rec)
}

// continuations are the prompts of plan turns in which the user says
// nothing of substance: the person still has to send something for the
// agent to go on.
// They are short (two words at most that say anything), as people send
// them, so that sending one twice restates nothing.
var continuations = []string{
	"continue", "go on", "ok, go ahead", "yes", "yes please", "keep going", "sure", "ok", "next", "proceed",
	"do it", "go ahead", "ok, continue", "fine", "yep", "carry on", "alright", "ok next",
}

// turn writes plan turn t: the prompt, the compaction if one runs, the
// tool calls and their results, and the assistant's message.
func (w *ccWriter) turn(t int, summary func(int) string) error {
	l, r := w.l, w.r
	p := l.turn(t)
	text := p.User
	if text == "" {
		text = pick(r, continuations)
		w.out.Stats.Continuations++
	}
	var content any = text
	if t > 1 && p.User == "" && chance(r, 0.04) {
		// The IDE tells the agent which file the person has open; the
		// prompt itself is the second part.
		note := fmt.Sprintf("<ide_opened_file>The user opened the file %s in the IDE. This may or may not be related to the current task.</ide_opened_file>", w.cwd+"/"+pick(r, l.th.Files))
		content = []ccPart{{Type: "text", Text: note}, {Type: "text", Text: text}}
		w.out.Stats.IDENotes++
	}
	lo, hi := 20, 240 // the person reads and types
	if t == 1 {
		lo, hi = 0, 0
	}
	id, err := w.user(content, w.tick(lo, hi), nil)
	if err != nil {
		return err
	}
	w.out.Prompts[t] = id
	w.out.Stats.Prompts++
	promptAt := w.at
	// The client notes which files it could restore to this prompt: a
	// record with no session id, which a reader skips.
	snap := ccSnapshot{Type: "file-history-snapshot", MessageID: id, Snapshot: ccSnapshotBody{MessageID: id, TrackedFileBackups: struct{}{},
		Timestamp: w.at.Add(time.Duration(100+r.IntN(400)) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")}}
	if err := w.enc.Encode(snap); err != nil {
		return err
	}
	w.out.Stats.Records++
	w.out.Stats.Skipped++
	if p.Compaction {
		if err := w.compaction(t, summary(t)); err != nil {
			return err
		}
	}
	// The calls, one response each or, now and then, two in parallel.
	for i := 0; i < len(p.Calls); {
		n := 1
		if i+1 < len(p.Calls) && chance(r, 0.25) {
			n = 2
		}
		if err := w.step(t, p.Calls[i:i+n], i+n == len(p.Calls) && p.Assistant == ""); err != nil {
			return err
		}
		i += n
	}
	if p.Assistant != "" || len(p.Calls) == 0 && p.Assistant == "" && p.Item < 0 {
		msg := p.Assistant
		if msg == "" {
			msg = fill(r, l.th, pick(r, backgroundAssistant))
		}
		if _, err := w.assistant(newID(r, "msg_01"), ccPart{Type: "text", Text: msg}, w.tick(3, 25)); err != nil {
			return err
		}
	}
	if chance(r, 0.2) { // newer clients note how long the turn took
		d := ccTurnDuration{ParentUUID: w.parentPtr(), ccHead: w.head(),
			Type: "system", Subtype: "turn_duration", Timestamp: w.tick(0, 1), UUID: newUUID(r)}
		d.DurationMs = w.at.Sub(promptAt).Milliseconds()
		w.parent = d.UUID
		if err := w.enc.Encode(d); err != nil {
			return err
		}
		w.out.Stats.Records++
		w.out.Stats.Skipped++
	}
	return nil
}

// compaction writes the boundary and the summary record after it.
func (w *ccWriter) compaction(t int, body string) error {
	l, r := w.l, w.r
	if body == "" {
		body = plainSummary(l, t)
	}
	b := ccBoundary{LogicalParentUUID: w.parent, ccHead: w.head(), Type: "system", Subtype: "compact_boundary", Content: "Conversation compacted",
		Timestamp: w.tick(30, 90), UUID: newUUID(r), Level: "info"}
	b.CompactMetadata.Trigger = "auto"
	b.CompactMetadata.PreTokens = between(r, CompactionThreshold, CompactionThreshold+6_000)
	w.parent = b.UUID
	w.out.Compactions[t] = b.UUID
	w.out.Stats.Records++
	if err := w.enc.Encode(b); err != nil {
		return err
	}
	text := "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n" +
		body + "\n\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on."
	_, err := w.user(text, b.Timestamp, func(u *ccUser) { u.IsVisibleInTranscriptOnly, u.IsCompactSummary = true, true })
	return err
}

// plainSummary is the summary of a compaction at plan turn c for a
// session no summariser wrote one for: the task and the work so far.
func plainSummary(l *sessionLog, c int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of turns 1–%d:\nTask: %s.\nProgress:\n", c-1, l.th.Goal)
	for _, p := range progress(l, c-1).lines() {
		b.WriteString("- " + p + "\n")
	}
	b.WriteString("Current request: " + l.turn(c).userOr("continue"))
	return b.String()
}

// userOr is the turn's user message, or def.
func (p *turnPlan) userOr(def string) string {
	if p.User == "" {
		return def
	}
	return p.User
}

// step writes one model response making calls, then their results.
// last marks the turn's last response, after which a rejected edit
// interrupts the turn.
func (w *ccWriter) step(t int, calls []toolCall, last bool) error {
	r := w.r
	msgID := newID(r, "msg_01")
	type pending struct {
		id, uuid string
		c        toolCall
		tool     string
	}
	var ps []pending
	for i, c := range calls {
		tool, input := w.toolInput(c)
		id := newID(r, "toolu_01")
		lo, hi := 2, 12
		if i > 0 {
			lo, hi = 0, 1
		}
		uuid, err := w.assistant(msgID, ccPart{Type: "tool_use", ID: id, Name: tool, Input: input}, w.tick(lo, hi))
		if err != nil {
			return err
		}
		ps = append(ps, pending{id, uuid, c, tool})
	}
	for i, pc := range ps {
		out, isErr := w.toolOutput(pc.c)
		rejected := last && i == len(ps)-1 && pc.c.Tool == "edit_file" && !isErr && chance(r, 0.08) && !pc.c.Sure
		if rejected {
			out, isErr = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", true
		}
		w.parent = pc.uuid
		part := ccPart{Type: "tool_result", ToolUseID: pc.id, Content: &out}
		if isErr || chance(r, 0.5) { // Claude Code writes is_error on some results only
			part.IsError = &isErr
		}
		if _, err := w.user([]ccPart{part}, w.tick(0, 20), nil); err != nil {
			return err
		}
		w.out.Stats.Results++
		if isErr {
			switch {
			case rejected:
				w.out.Stats.Failed["rejected"]++
			case pc.c.Tool == "edit_file":
				w.out.Stats.Failed["edit"]++
			default:
				w.out.Stats.Failed["test"]++
			}
		}
		w.out.Calls = append(w.out.Calls, ccCall{Turn: t, Key: pc.c.key(), Tool: pc.tool, ToolUseID: pc.id, UUID: pc.uuid, IsError: isErr})
		if rejected {
			if _, err := w.user([]ccPart{{Type: "text", Text: "[Request interrupted by user for tool use]"}}, w.tick(0, 1), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// claudeCodeLogs writes every logged session in Claude Code's format:
// the sessions by id, and the week files (index 1..Weeks), each the
// concatenation of the sessions that started that week, in the order of
// q.Logs. A fixture session's compactions carry the incumbent
// summariser's summary (its compaction block); the others a plain one.
func (q *Quarter) claudeCodeLogs() (map[string]*ccSession, [][]byte, error) {
	summaries := make(map[string]map[int]string)
	for _, bc := range q.Built[SystemIncumbent] {
		id := bc.Conv.s.ID
		if summaries[id] == nil {
			summaries[id] = make(map[int]string)
		}
		var texts []string
		if len(bc.JSON.Messages) > 0 {
			switch x := bc.JSON.Messages[0].Content.(type) {
			case string:
				texts = append(texts, x)
			case []partJSON:
				for _, p := range x {
					texts = append(texts, p.Text)
				}
			}
		}
		summaries[id][bc.JSON.Turn] = strings.Join(texts, "\n")
	}
	out := make(map[string]*ccSession, len(q.Logs))
	weeks := make([]bytes.Buffer, Weeks+1)
	for _, l := range q.Logs {
		byTurn := summaries[l.s.ID]
		cs, err := l.writeClaudeCode(q.Seed, func(t int) string { return byTurn[t] })
		if err != nil {
			return nil, nil, err
		}
		out[l.s.ID] = cs
		weeks[l.s.Week()].Write(cs.Data)
	}
	data := make([][]byte, Weeks+1)
	for w := 1; w <= Weeks; w++ {
		data[w] = weeks[w].Bytes()
	}
	return out, data, nil
}

// locateTruth names, on each truth line, the records of the Claude Code
// logs it points at: the two calls (or the restating prompt and the
// instruction's), and the compaction's boundary.
func (q *Quarter) locateTruth(logs map[string]*ccSession) error {
	for _, l := range q.Logs {
		cs := logs[l.s.ID]
		find := func(turn int, c toolCall) (ccCall, error) {
			for _, x := range cs.Calls {
				if x.Turn == turn && x.Key == c.key() {
					return x, nil
				}
			}
			return ccCall{}, fmt.Errorf("%s turn %d: no call %s in the log", l.s.ID, turn, c.key())
		}
		for i := range l.truth {
			tr := &l.truth[i]
			if tr.CompactionTurn > 0 {
				tr.CompactionUUID = cs.Compactions[tr.CompactionTurn]
			}
			if tr.Tool == "" {
				tr.UUID, tr.EvidenceUUID = cs.Prompts[tr.Turn], cs.Prompts[tr.EvidenceTurn]
				continue
			}
			a, err := find(tr.Turn, tr.call)
			if err != nil {
				return err
			}
			b, err := find(tr.EvidenceTurn, tr.evidence)
			if err != nil {
				return err
			}
			tr.UUID, tr.EvidenceUUID, tr.ClaudeCodeTool = a.UUID, b.UUID, a.Tool
			if tr.ChangeTurn > 0 {
				ch, err := find(tr.ChangeTurn, tr.change)
				if err != nil {
					return err
				}
				tr.ChangeUUID = ch.UUID
			}
		}
	}
	return nil
}
