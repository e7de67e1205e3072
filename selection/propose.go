// This file holds `tally propose`: the arrival-time classifier of the
// source text, run over a transcript's original turns, proposing the
// must-survive items a person then only confirms or rejects (`tally
// review`). It has its own small reader of event logs (ReadTranscripts),
// independent of the rest of the package.

package selection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/jsonpos"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// TranscriptEvent is one line of an event log (DESIGN.md, "Event log"):
// a message, a tool call or a compaction at a turn of a session.
type TranscriptEvent struct {
	SessionID string          `json:"session_id"`
	Turn      int             `json:"turn"`
	TS        string          `json:"ts,omitempty"`
	Kind      string          `json:"kind"`           // "message", "tool_call" or "compaction"
	Role      string          `json:"role,omitempty"` // messages: "user" and "assistant" are read
	Text      string          `json:"text,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	// Line is the event's line in its file, 1-based.
	Line int `json:"-"`
}

// Transcript is one session's events, in turn order (events of one turn
// in file order).
type Transcript struct {
	SessionID string
	Events    []TranscriptEvent
}

// Turns is the session's last turn: the highest turn of any event.
func (t Transcript) Turns() int {
	n := 0
	for _, e := range t.Events {
		n = max(n, e.Turn)
	}
	return n
}

// Compactions counts the session's compaction events.
func (t Transcript) Compactions() int {
	n := 0
	for _, e := range t.Events {
		if e.Kind == "compaction" {
			n++
		}
	}
	return n
}

// TranscriptOptions says which events ReadTranscripts keeps.
type TranscriptOptions struct {
	// Session keeps only this session's events; "" keeps every session.
	// Every line is checked either way.
	Session string
	// SkipBad skips malformed lines instead of failing; each skipped line
	// is reported in TranscriptLog.Skipped, never dropped silently.
	SkipBad bool
	// Limits.MaxLine bounds each line (0: input.DefaultMaxLine); a
	// longer one is a malformed line. Limits.MaxFile is for the caller
	// that opens the file (input.Open): ReadTranscripts reads a stream.
	Limits input.Limits
}

// TranscriptLog is what ReadTranscripts read.
type TranscriptLog struct {
	// Sessions holds each session kept, in order of first appearance.
	Sessions []Transcript
	// Skipped has one problem per malformed line skipped under SkipBad.
	Skipped fixture.Problems
}

// propMaxProblems caps the problems reported for one file: a file that
// is not an event log at all would otherwise give one per line.
const propMaxProblems = 100

// ReadTranscripts reads an event log — JSONL, one event per line, blank
// lines ignored, "\n" or "\r\n" endings — holding one session or many,
// and groups its events by session. name is used in problems (normally
// the file's path). It reads lines the way the package's EventReader does:
// keys other than the eight of the format are ignored and null stands for
// an absent ts, role, text or tool.
//
// A line is malformed when it is not one JSON object in UTF-8, gives a
// key twice, lacks session_id, turn or kind, has a value of the wrong
// type, a turn below 1, a ts that is not RFC 3339, a kind other than
// message, tool_call or compaction, a role other than system, user,
// assistant or tool, a message without a role or a text, or a tool call
// without a tool. A session kept whose session_id cannot
// name a folder (it becomes a fixture's conversation_id) is malformed at
// its first line. Each problem is a fixture.Problem naming file, line,
// column and field. Unless opts.SkipBad is set every problem is
// returned, as fixture.Problems (at most 100, then a line saying how many
// more), and no sessions.
func ReadTranscripts(name string, r io.Reader, opts TranscriptOptions) (TranscriptLog, error) {
	var log TranscriptLog
	var probs fixture.Problems
	extra := 0
	problem := func(p fixture.Problem) {
		switch {
		case opts.SkipBad:
			log.Skipped = append(log.Skipped, p)
		case len(probs) < propMaxProblems:
			probs = append(probs, p)
		default:
			extra++
		}
	}
	index := map[string]int{}
	refused := map[string]bool{}
	lines := input.NewLines(r, name, opts.Limits.MaxLine)
	for {
		line, err := lines.Next()
		lineNo := lines.Line()
		if err == io.EOF {
			break
		}
		var le *input.LineError
		if errors.As(err, &le) {
			problem(fixture.Problem{File: name, Line: lineNo, Msg: (&input.LineError{Limit: le.Limit}).Error()})
			continue
		}
		if err != nil {
			return TranscriptLog{}, fmt.Errorf("reading %s: line %d: %w", name, lineNo+1, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, p, bad := propParseEvent(name, lineNo, line)
		if bad {
			problem(p)
			continue
		}
		if opts.Session != "" && ev.SessionID != opts.Session {
			continue
		}
		if refused[ev.SessionID] {
			continue
		}
		i, ok := index[ev.SessionID]
		if !ok {
			if !fixture.ValidConversationID(ev.SessionID) {
				refused[ev.SessionID] = true
				problem(fixture.Problem{File: name, Line: lineNo, Col: 1, Field: "session_id",
					Msg: fmt.Sprintf("%q cannot name a folder (no /, \\, :, control characters, \".\" or \"..\"), and it would be the fixture's conversation_id", propPreview(ev.SessionID))})
				continue
			}
			i = len(log.Sessions)
			index[ev.SessionID] = i
			log.Sessions = append(log.Sessions, Transcript{SessionID: ev.SessionID})
		}
		log.Sessions[i].Events = append(log.Sessions[i].Events, ev)
	}
	if len(probs) > 0 {
		if extra > 0 {
			probs = append(probs, fixture.Problem{File: name, Msg: fmt.Sprintf("%d more problems not shown", extra)})
		}
		return TranscriptLog{}, probs
	}
	for i := range log.Sessions {
		slices.SortStableFunc(log.Sessions[i].Events, func(a, b TranscriptEvent) int { return a.Turn - b.Turn })
	}
	return log, nil
}

// propParseEvent decodes one line of an event log; bad reports a
// malformed line and p is its first problem.
func propParseEvent(file string, lineNo int, line []byte) (ev TranscriptEvent, p fixture.Problem, bad bool) {
	fail := func(off int, field, msg string) (TranscriptEvent, fixture.Problem, bool) {
		return TranscriptEvent{}, fixture.Problem{File: file, Line: lineNo, Col: propColumn(line, off), Field: field, Msg: msg}, true
	}
	ev.Line = lineNo
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, size := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return fail(off, "", fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", line[off]))
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	syntax := func(err error) (TranscriptEvent, fixture.Problem, bool) {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return fail(jsonpos.SyntaxOffset(line, se), "", strings.TrimPrefix(se.Error(), "json: "))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return fail(len(bytes.TrimRight(line, " \t")), "", "unexpected end of line: the JSON object is not complete")
		}
		return fail(int(dec.InputOffset()), "", strings.TrimPrefix(err.Error(), "json: "))
	}
	start := propSkipSpace(line, 0)
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fail(start, "", "want a JSON object (one event), got "+propDescribeToken(tok))
	}
	type member struct {
		off int
		raw json.RawMessage
	}
	members := map[string]member{}
	for dec.More() {
		keyOff := propSkipSpace(line, int(dec.InputOffset()))
		kt, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		if _, dup := members[key]; dup {
			return fail(keyOff, key, "given twice")
		}
		members[key] = member{keyOff, raw}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(propSkipSpace(line, int(dec.InputOffset())), "", "extra data after the event object")
	}
	// str decodes a string value; null and a missing key give ok false.
	str := func(key string) (s string, off int, ok bool, problem bool) {
		m, present := members[key]
		if !present {
			return "", start, false, false
		}
		raw := bytes.TrimSpace(m.raw)
		if string(raw) == "null" {
			return "", m.off, false, false
		}
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return "", m.off, false, true
		}
		return s, m.off, true, false
	}
	wantString := func(key string) (TranscriptEvent, fixture.Problem, bool) {
		return fail(members[key].off, key, "want a string, got "+propDescribeRaw(members[key].raw))
	}
	for _, key := range []string{"session_id", "turn", "kind"} {
		if _, ok := members[key]; !ok {
			return fail(start, "", fmt.Sprintf("missing %q", key))
		}
	}
	id, off, ok, bad := str("session_id")
	if bad || (!ok && members["session_id"].raw != nil) {
		return wantString("session_id")
	}
	if strings.TrimSpace(id) == "" {
		return fail(off, "session_id", "want a non-empty string")
	}
	ev.SessionID = id
	m := members["turn"]
	n, err := strconv.Atoi(string(bytes.TrimSpace(m.raw)))
	switch {
	case err != nil:
		return fail(m.off, "turn", "want a whole number, got "+propDescribeRaw(m.raw))
	case n < 1:
		return fail(m.off, "turn", fmt.Sprintf("must be at least 1 (turns are numbered from 1), got %d", n))
	case n > MaxTurns:
		return fail(m.off, "turn", fmt.Sprintf("must be at most %d, as in every event log, got %d", MaxTurns, n))
	}
	ev.Turn = n
	if ts, off, ok, bad := str("ts"); bad {
		return wantString("ts")
	} else if ok {
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			return fail(off, "ts", fmt.Sprintf("want an RFC 3339 time such as 2026-01-05T04:55:22Z, got %q", propPreview(ts)))
		}
		ev.TS = ts
	}
	kind, off, ok, bad := str("kind")
	if bad || !ok {
		return wantString("kind")
	}
	if kind != "message" && kind != "tool_call" && kind != "compaction" {
		return fail(off, "kind", fmt.Sprintf("want message, tool_call or compaction, got %q", propPreview(kind)))
	}
	ev.Kind = kind
	role, roleOff, roleOK, bad := str("role")
	if bad {
		return wantString("role")
	}
	if role != "" && !slices.Contains(fixture.Roles, role) {
		return fail(roleOff, "role", roleProblem(role))
	}
	ev.Role = role
	text, _, textOK, bad := str("text")
	if bad {
		return wantString("text")
	}
	ev.Text = text
	tool, _, toolOK, bad := str("tool")
	if bad {
		return wantString("tool")
	}
	ev.Tool = tool
	if a, ok := members["args"]; ok {
		ev.Args = a.raw
	}
	switch {
	case kind == "message" && (!roleOK || role == ""):
		return fail(members["kind"].off, "role", "a message needs a non-empty role")
	case kind == "message" && !textOK:
		return fail(members["kind"].off, "text", "a message needs a text")
	case kind == "tool_call" && (!toolOK || tool == ""):
		return fail(members["kind"].off, "tool", "a tool call needs a non-empty tool")
	}
	return ev, fixture.Problem{}, false
}

// propColumn is the 1-based column, in characters, of byte offset off.
func propColumn(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}

// propSkipSpace skips white space, commas and colons from off.
func propSkipSpace(line []byte, off int) int {
	for off < len(line) && strings.IndexByte(" \t\r\n,:", line[off]) >= 0 {
		off++
	}
	return off
}

func propDescribeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return string(v)
	case string:
		return "string " + strconv.Quote(propPreview(v))
	case json.Number:
		return "number " + v.String()
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

func propDescribeRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return "string " + strconv.Quote(propPreview(s))
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean " + string(raw)
	}
	return "number " + propPreview(string(raw))
}

// propPreview shortens s to at most 40 characters for a message.
func propPreview(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:39]) + "…"
}

// ReviewStatus is where a proposed item stands in review.
type ReviewStatus string

// The review statuses. Propose leaves every item pending.
const (
	ReviewPending  ReviewStatus = "pending"
	ReviewAccepted ReviewStatus = "accepted"
	ReviewRejected ReviewStatus = "rejected"
)

// Valid reports whether s is one of the three statuses.
func (s ReviewStatus) Valid() bool {
	return s == ReviewPending || s == ReviewAccepted || s == ReviewRejected
}

// Proposal is a candidates file: a fixture in the making. It has the
// fixture's conversation_id, turns and compactions_expected; its items are
// candidates, each with a confidence, the rule that proposed it and a
// review status; and position is the index of the candidate a review
// shows next (len(candidates) once every candidate has been seen), so an
// interrupted review resumes there.
//
//	{"conversation_id": "sess_2026_01_06_75ad", "turns": 82,
//	 "compactions_expected": 3, "position": 0,
//	 "candidates": [{"id": "c1", "class": "constraint", "turn": 3,
//	   "role": "user", "literal": "leave dual_write_orders off by default",
//	   "probe": "Must the agent leave dual_write_orders off by default?",
//	   "expect": "yes", "confidence": 0.9,
//	   "rule": "constraint/lead-in+obligation", "status": "pending",
//	   "message": "Ground rule: leave dual_write_orders off by default."}]}
type Proposal struct {
	ConversationID      string         `json:"conversation_id"`
	Turns               int            `json:"turns"`
	CompactionsExpected int            `json:"compactions_expected"`
	Candidates          []ProposedItem `json:"candidates"`
	Position            int            `json:"position"`
}

// ProposedItem is one candidate must-survive item: a fixture.Item's
// fields plus what review needs.
type ProposedItem struct {
	ID         string        `json:"id"`
	Class      fixture.Class `json:"class"`
	Turn       int           `json:"turn"`
	Role       string        `json:"role"` // who said it: user or assistant
	Literal    string        `json:"literal"`
	Probe      string        `json:"probe"`
	Expect     string        `json:"expect"`
	Confidence float64       `json:"confidence"` // 0..1
	Rule       string        `json:"rule"`       // the classifier rule that fired
	Status     ReviewStatus  `json:"status"`
	Message    string        `json:"message"` // the whole message it was found in
}

// Item returns the fixture item pi stands for.
func (pi ProposedItem) Item() fixture.Item {
	return fixture.Item{ID: pi.ID, Class: pi.Class, Turn: pi.Turn, Literal: pi.Literal, Probe: pi.Probe, Expect: pi.Expect}
}

// DefaultMinConfidence is the confidence below which `tally propose`
// leaves a candidate out: bare file paths (0.3), questions without a
// sign of a pending decision (0.3) and questions answered later (0.2).
const DefaultMinConfidence = 0.5

// ProposeOptions configures Propose.
type ProposeOptions struct {
	// MinConfidence drops candidates below it. The zero value keeps
	// every candidate; the CLI's default is DefaultMinConfidence.
	MinConfidence float64
}

// Propose runs the arrival-time classifier over a transcript's messages
// (tool calls and system messages are not read) and returns the
// candidates in turn order, ids c1, c2, …, every one pending, position 0.
// Turns is t.Turns() and compactions_expected t.Compactions().
//
// Each message is split into sentences (at . ! ? followed by a space, and
// at line breaks). A short lead-in is set apart first: a phrase of at most
// six words ending in a colon ("Ground rule:", "Question for later:"), a
// connective ("Also,"), or a previous sentence of at most three words
// ("Thinking ahead."). Each sentence gives at most one item, of the class
// whose rule is most confident; only when that is a reference may it give
// several (every reference in it). The rules:
//
// Constraint (user sentences not ending in "?"). A sentence that restates
// an earlier instruction — it opens with a restatement marker ("I said",
// "Again:", "As I mentioned", "Reminder:", "I already told you", "Like I
// said", "Once more:", "Please remember"), or three fifths of its content
// words are in a constraint already proposed — is never a new constraint.
// Otherwise, after the lead-in, a prohibition (never, don't, do not, must
// not, may not, cannot, should not; an opening no, avoid or stop; "no"
// opening a clause after a comma) or a standing obligation (an
// opening always, only, keep, leave, use, target, stick to, make sure,
// ensure, pin or limit, though not "keep going" and the like; or must,
// has to, needs to, is required, follows, goes through anywhere) is a
// constraint: 0.9 with a rule lead-in (one naming a rule,
// requirement, constraint, policy, or "important", "before you start",
// "keep in mind"), 0.8 with another lead-in, 0.7 for a prohibition alone,
// 0.6 for an obligation alone. A rule lead-in before a plain statement
// ("Before you start: commit messages follow Conventional Commits") is
// 0.6. The literal is the sentence after the lead-in, without its final
// full stop.
//
// Commitment (assistant sentences): a sentence that opens with "I'll",
// "I will", "I'm going to", "I am going to" or "I plan to" (or has one
// after a leading clause), 0.9 when it binds a later moment or a
// condition (before, until, once, after, only, not, never, ask, separate,
// against, pinned), 0.7 otherwise. The literal is the sentence without its
// final full stop.
//
// Open question (user sentences ending in "?"): requests ("Can you…",
// "Could you…", "Would you…", "Will you…", "Please…") and questions about
// the work in hand (why, what, how, where, when, who — unless they ask
// what should be done) are not. Otherwise 0.9 after a lead-in that defers
// it ("Question for later:", "Something I haven't decided:", "Not for now,
// but:", "Thinking ahead."), else 0.8 with two or more signs of a pending
// decision (should or shall; we, us or our; an alternative " or ";
// better, acceptable, OK, worth, prefer, still), 0.65 with one, 0.3 with
// none. A question counts as answered — confidence 0.2 — when a later
// message that is not itself a question shares at least half (and at
// least two) of its content words.
//
// Reference (either side): a locator that pins something down — a URL;
// a file with a line (x.go:12), a revision (report.md rev 14) or a section
// (notes/perf.md §4); a document section (runbook section 3.4); a commit
// ("commit" and 7–40 hex digits, 0.85; bare hex with a letter and a digit,
// 0.6); a pull request (PR #12); a ticket (ticket DATA-4073, 0.85; a bare
// key such as DATA-4073, 0.65); a CI build, job or pipeline number (with
// "on <CI>"); a numbered run (bench baseline run 9191); a snapshot; a
// dashboard panel; a branch ("branch x", origin/x). 0.85 for locators with
// a position, 0.8 for numbered ids, 0.75 for sections, runs and dashboard
// panels, 0.7 for branches, 0.6 for a dashboard without a panel. A bare
// path (pkg/x.go) is working state rather than a pinned reference: 0.3.
// A reference already proposed is not proposed again.
//
// Drafted probes and expected answers, per class: a prohibition asks "Is
// the agent forbidden to …?" ("yes"), "Does the user forbid …?" ("yes") or
// "May <subject> …?" ("no"); an obligation "Must the agent …?" ("yes"); a
// plain rule "Does this rule from the user still hold: …?" ("yes"); a
// commitment "What did the assistant commit to about <object>?" (what it
// said it would do); an open question "Has the user decided this question
// yet: …?" ("no — still open"); a reference "Which <kind> does “<the
// sentence, the reference elided>” refer to?" (the reference). "me", "my"
// and "I" of a user become "the user" in a probe. They are drafts: review
// is where a person fixes them.
func Propose(t Transcript, opts ProposeOptions) Proposal {
	p := &propProposer{seenRefs: map[string]bool{}, seenLits: map[string]bool{}}
	p.index(t)
	for i, e := range t.Events {
		if e.Kind != "message" || (e.Role != "user" && e.Role != "assistant") {
			continue
		}
		p.message(i, e)
	}
	out := Proposal{ConversationID: t.SessionID, Turns: t.Turns(), CompactionsExpected: t.Compactions(), Candidates: []ProposedItem{}}
	for _, c := range p.items {
		if c.Confidence < opts.MinConfidence {
			continue
		}
		c.ID = "c" + strconv.Itoa(len(out.Candidates)+1)
		out.Candidates = append(out.Candidates, c)
	}
	return out
}

// propProposer is the classifier's state over one transcript.
type propProposer struct {
	events      []TranscriptEvent
	words       []map[string]bool // content words of each message event
	question    []bool            // the message event is a question
	items       []ProposedItem
	constraints []map[string]bool // content words of each constraint proposed
	seenRefs    map[string]bool
	seenLits    map[string]bool // class + literal already proposed
}

func (p *propProposer) index(t Transcript) {
	p.events = t.Events
	p.words = make([]map[string]bool, len(t.Events))
	p.question = make([]bool, len(t.Events))
	for i, e := range t.Events {
		if e.Kind == "message" {
			p.words[i] = propContentWords(e.Text)
			p.question[i] = strings.HasSuffix(strings.TrimSpace(e.Text), "?")
		}
	}
}

// message classifies the sentences of message event i.
func (p *propProposer) message(i int, e TranscriptEvent) {
	sentences := propSentences(e.Text)
	prev := ""
	for _, s := range sentences {
		p.sentence(i, e, s, prev)
		prev = s
	}
}

// propGuess is one classification of a sentence.
type propGuess struct {
	class      fixture.Class
	literal    string
	probe      string
	expect     string
	confidence float64
	rule       string
}

func (p *propProposer) sentence(i int, e TranscriptEvent, s, prev string) {
	lead, body := propLeadIn(s)
	if lead == "" && propShortSentence(prev) {
		// "Thinking ahead. Is …?": a short sentence before counts as a
		// lead-in only when it names a rule or defers a question.
		if pl := propNormalize(prev); propRuleLead.MatchString(pl) || propDeferLead.MatchString(pl) {
			lead = strings.TrimRight(prev, ".!:;, ")
		}
	}
	var best *propGuess
	consider := func(g *propGuess) {
		if g != nil && (best == nil || g.confidence > best.confidence) {
			best = g
		}
	}
	isQuestion := strings.HasSuffix(s, "?")
	if e.Role == "user" {
		if isQuestion {
			consider(p.openQuestion(i, lead, body))
		} else {
			consider(p.constraint(s, lead, body))
		}
	} else {
		consider(propCommitment(s))
	}
	refs := propReferences(s)
	if len(refs) > 0 {
		top := refs[0]
		for _, r := range refs[1:] {
			if r.confidence > top.confidence {
				top = r
			}
		}
		if best == nil || top.confidence > best.confidence {
			for _, r := range refs {
				if p.seenRefs[r.literal] {
					continue
				}
				p.seenRefs[r.literal] = true
				p.add(e, r)
			}
			return
		}
	}
	if best != nil {
		if best.class == fixture.Constraint {
			p.constraints = append(p.constraints, propContentWords(best.literal))
		}
		p.add(e, *best)
	}
}

func (p *propProposer) add(e TranscriptEvent, g propGuess) {
	key := string(g.class) + "\x00" + g.literal
	if p.seenLits[key] {
		return
	}
	p.seenLits[key] = true
	p.items = append(p.items, ProposedItem{
		Class: g.class, Turn: e.Turn, Role: e.Role, Literal: g.literal, Probe: g.probe, Expect: g.expect,
		Confidence: propClamp(g.confidence), Rule: g.rule, Status: ReviewPending, Message: e.Text,
	})
}

// propSentences splits text into trimmed sentences: after . ! ? (and …)
// followed by white space, and at line breaks. A full stop after a
// common abbreviation (e.g., i.e., vs., etc.) does not end a sentence.
func propSentences(text string) []string {
	var out []string
	flush := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	for i, r := range text {
		switch r {
		case '\n', '\r':
			flush(text[start:i])
			start = i + 1
		case '.', '!', '?', '…':
			end := i + utf8.RuneLen(r)
			if end < len(text) && !propSpace(text[end]) {
				continue
			}
			if r == '.' && propAbbreviation(text[start:end]) {
				continue
			}
			flush(text[start:end])
			start = end
		}
	}
	flush(text[start:])
	return out
}

func propSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// propAbbreviation reports whether s ends with an abbreviation's stop.
func propAbbreviation(s string) bool {
	low := strings.ToLower(s)
	for _, a := range []string{"e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "incl."} {
		if strings.HasSuffix(low, " "+a) || low == a {
			return true
		}
	}
	return false
}

// propShortSentence reports whether s can be a lead-in on its own line:
// at most three words, ending in "." or ":".
func propShortSentence(s string) bool {
	if s == "" || !(strings.HasSuffix(s, ".") || strings.HasSuffix(s, ":")) {
		return false
	}
	return len(strings.Fields(s)) <= 3
}

// propConnectives are lead-ins without a colon.
var propConnectives = []string{"also", "and", "plus", "oh and", "btw", "by the way", "one more thing", "additionally"}

// propLeadIn splits an introductory phrase off s: "Ground rule: x"
// gives ("Ground rule", "x"), "Also, x" gives ("Also", "x"). A colon
// after a path, a number or a long clause is not a lead-in's.
func propLeadIn(s string) (lead, body string) {
	if i := strings.Index(s, ": "); i > 0 && i <= 60 {
		head := s[:i]
		ok := len(strings.Fields(head)) <= 6
		for _, r := range head {
			if !(unicode.IsLetter(r) || r == ' ' || r == '\'' || r == '’' || r == ',') {
				ok = false
				break
			}
		}
		if ok {
			return head, strings.TrimSpace(s[i+2:])
		}
	}
	low := strings.ToLower(s)
	for _, c := range propConnectives {
		if strings.HasPrefix(low, c+", ") {
			return s[:len(c)], strings.TrimSpace(s[len(c)+2:])
		}
	}
	return "", s
}

// propNormalize lower-cases s and straightens its apostrophes.
func propNormalize(s string) string {
	return strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
}

var (
	propRestatement = regexp.MustCompile(`^(i said|i've said|i have said|again[:,]|as i (mentioned|said|told you)|reminder[:,]|i already (told|said)|like i said|once more[:,]|please remember|remember[:,]|to repeat|i told you)`)
	propProhibition = regexp.MustCompile(`\b(never|must not|mustn't|must never|may not|cannot|can't|shouldn't|should not|do not|don't)\b`)
	propProhibitsAt = regexp.MustCompile(`^(no|avoid|stop)\b|[,;] no\b`)
	propObligation  = regexp.MustCompile(`^(always|only|keep|leave|use|target|stick to|make sure|ensure|pin|limit)\b`)
	propNorm        = regexp.MustCompile(`\b(must|has to|have to|needs? to|(is|are) required|required to|follows?|go(es)? through)\b`)
	propTransient   = regexp.MustCompile(`^(keep (going|at it|it up|me (posted|updated|in the loop))|leave it (there|for now|as is))\b`)
	propRuleLead    = regexp.MustCompile(`\b(rule|rules|requirement|constraint|policy|important|before you start|keep (this )?in mind|non-negotiable|heads up|must)\b`)
)

// constraint classifies a user sentence that is not a question.
func (p *propProposer) constraint(s, lead, body string) *propGuess {
	if propRestatement.MatchString(propNormalize(s)) {
		return nil
	}
	lit := strings.TrimRight(body, ". ")
	low := propNormalize(lit)
	if utf8.RuneCountInString(lit) < 8 || propTransient.MatchString(low) {
		return nil
	}
	words := propContentWords(lit)
	for _, c := range p.constraints {
		if propOverlap(words, c) >= 0.6 && len(words) >= 2 {
			return nil // a restatement in other words
		}
	}
	prohibition := propProhibition.MatchString(low) || propProhibitsAt.MatchString(low)
	obligation := propObligation.MatchString(low) || propNorm.MatchString(low)
	ruleLead := lead != "" && propRuleLead.MatchString(propNormalize(lead))
	g := &propGuess{class: fixture.Constraint, literal: lit}
	kind := "obligation"
	if prohibition {
		kind = "prohibition"
	}
	switch {
	case (prohibition || obligation) && ruleLead:
		g.confidence, g.rule = 0.9, "constraint/lead-in+"+kind
	case (prohibition || obligation) && lead != "":
		g.confidence, g.rule = 0.8, "constraint/connective+"+kind
	case prohibition:
		g.confidence, g.rule = 0.7, "constraint/prohibition"
	case obligation:
		g.confidence, g.rule = 0.6, "constraint/obligation"
	case ruleLead:
		g.confidence, g.rule = 0.6, "constraint/lead-in"
	default:
		return nil
	}
	g.probe, g.expect = propConstraintProbe(lit, prohibition, propObligation.MatchString(low))
	return g
}

var (
	propMustNot = regexp.MustCompile(`^(.+?) (must not|mustn't|may not|cannot|can't|should not|shouldn't) (.+)$`)
	propUserMe  = strings.NewReplacer(" me ", " the user ", " my ", " the user's ", " I ", " the user ", " I'm ", " the user is ", " mine ", " the user's ")
)

// propConstraintProbe drafts a constraint's probe and expected answer;
// imperative reports an opening obligation verb.
func propConstraintProbe(lit string, prohibition, imperative bool) (probe, expect string) {
	text := propLowerFirst(lit)
	low := propNormalize(text)
	clause := text
	if i := strings.IndexByte(text, ';'); i > 0 {
		clause = strings.TrimSpace(text[:i])
	}
	switch {
	case strings.HasPrefix(low, "never "):
		probe, expect = "Is the agent forbidden to "+text[len("never "):]+"?", "yes"
	case strings.HasPrefix(low, "don't ") || strings.HasPrefix(low, "don’t "):
		_, rest, _ := strings.Cut(text, " ")
		probe, expect = "Is the agent forbidden to "+rest+"?", "yes"
	case strings.HasPrefix(low, "do not "):
		probe, expect = "Is the agent forbidden to "+text[len("do not "):]+"?", "yes"
	case strings.HasPrefix(low, "no "):
		probe, expect = "Does the user forbid "+text[len("no "):]+"?", "yes"
	case prohibition && propMustNot.MatchString(clause):
		m := propMustNot.FindStringSubmatch(clause)
		probe, expect = "May "+m[1]+" "+m[3]+"?", "no"
	case imperative:
		probe, expect = "Must the agent "+text+"?", "yes"
	default:
		probe, expect = "Does this rule from the user still hold: "+text+"?", "yes"
	}
	return strings.TrimSpace(propUserMe.Replace(" " + probe)), expect
}

// propLowerFirst lower-cases the first letter of s unless the first word
// looks like a name (a second capital, a digit or punctuation in it).
func propLowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	r, size := utf8.DecodeRuneInString(word)
	if !unicode.IsUpper(r) {
		return s
	}
	for _, c := range word[size:] {
		if !unicode.IsLower(c) && c != '\'' && c != '’' {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[size:]
}

var (
	propIWill      = regexp.MustCompile(`^(?:(?:[^,]{1,60}), )?(I'll|I’ll|I will|I'm going to|I’m going to|I am going to|I plan to) (.+)$`)
	propCondition  = regexp.MustCompile(`\b(before|until|once|after|only|not|never|ask|asking|separate|against|pinned|unless)\b`)
	propObjectStop = map[string]bool{"in": true, "into": true, "to": true, "against": true, "until": true, "before": true, "after": true, "once": true, "for": true,
		"at": true, "on": true, "with": true, "from": true, "by": true, "so": true, "and": true, "but": true, "because": true, "when": true, "while": true,
		"if": true, "unless": true, "only": true, "behind": true, "pinned": true, "as": true, "then": true, "first": true, "now": true}
)

// propCommitment classifies an assistant sentence.
func propCommitment(s string) *propGuess {
	lit := strings.TrimRight(s, ". ")
	m := propIWill.FindStringSubmatch(lit)
	if m == nil {
		return nil
	}
	rest := strings.TrimSpace(m[2])
	if utf8.RuneCountInString(rest) < 6 {
		return nil
	}
	g := &propGuess{class: fixture.Commitment, literal: lit, expect: rest, confidence: 0.7, rule: "commitment/i-will"}
	if propCondition.MatchString(propNormalize(lit)) {
		g.confidence, g.rule = 0.9, "commitment/i-will+condition"
	}
	words := strings.Fields(rest)
	var object []string
	for _, w := range words[1:] {
		if propObjectStop[strings.ToLower(strings.Trim(w, ",;"))] || len(object) == 6 {
			break
		}
		object = append(object, strings.TrimRight(w, ",;"))
		if strings.HasSuffix(w, ",") || strings.HasSuffix(w, ";") {
			break
		}
	}
	if len(object) > 0 {
		g.probe = "What did the assistant commit to about " + strings.Join(object, " ") + "?"
	} else {
		n := min(len(words), 4)
		g.probe = "What did the assistant commit to (“" + m[1] + " " + strings.Join(words[:n], " ") + " …”)?"
	}
	return g
}

var (
	propRequest   = regexp.MustCompile(`^(can|could|would|will) (you|u)\b|^(please|mind|show me|can i|could i)\b`)
	propWh        = regexp.MustCompile(`^(why|what|what's|how|how's|where|when|who|which)\b`)
	propDecideWh  = regexp.MustCompile(`\b(should|shall|better|prefer|do we|would we)\b`)
	propDecision  = []*regexp.Regexp{regexp.MustCompile(`^(should|shall)\b|\b(should|shall) (we|i)\b`), regexp.MustCompile(`\b(we|us|our)\b`), regexp.MustCompile(` or `), regexp.MustCompile(`\b(better|acceptable|ok|okay|worth|prefer|still)\b`)}
	propDeferLead = regexp.MustCompile(`\b(later|decided|not for now|thinking ahead|open question|undecided|no rush|down the road|eventually|at some point|to think about)\b`)
)

// openQuestion classifies a user question, event i.
func (p *propProposer) openQuestion(i int, lead, body string) *propGuess {
	low := propNormalize(body)
	if propRequest.MatchString(low) || (propWh.MatchString(low) && !propDecideWh.MatchString(low)) {
		return nil
	}
	if utf8.RuneCountInString(body) < 8 {
		return nil
	}
	signs := 0
	for _, re := range propDecision {
		if re.MatchString(low) {
			signs++
		}
	}
	g := &propGuess{class: fixture.OpenQuestion, literal: body, expect: "no — still open",
		probe: "Has the user decided this question yet: " + propUserMe.Replace(" " + body)[1:]}
	switch {
	case lead != "" && propDeferLead.MatchString(propNormalize(lead)):
		g.confidence, g.rule = 0.9, "open_question/deferred"
	case signs >= 2:
		g.confidence, g.rule = 0.8, "open_question/decision"
	case signs == 1:
		g.confidence, g.rule = 0.65, "open_question/decision-weak"
	default:
		g.confidence, g.rule = 0.3, "open_question/plain"
	}
	if p.answered(i, body) {
		g.confidence, g.rule = 0.2, g.rule+"+answered-later"
	}
	return g
}

// answered reports whether a message after event i that is not a
// question shares at least half, and at least two, of q's content words.
func (p *propProposer) answered(i int, q string) bool {
	words := propContentWords(q)
	need := max(2, (len(words)+1)/2)
	if len(words) < 2 {
		return false
	}
	for j := i + 1; j < len(p.events); j++ {
		if p.words[j] == nil || p.question[j] {
			continue
		}
		n := 0
		for w := range words {
			if p.words[j][w] {
				n++
			}
		}
		if n >= need {
			return true
		}
	}
	return false
}

// propStop are words too common to say what a sentence is about.
var propStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in into on at by for from with without
		as is are was were be been being am do does did done doing have has had having will would shall should can could
		may might must not no nor never it its it's this that these those there here we us our you your i me my he she they
		them their what which who whom whose why how when where all any each every some such only also just than too very
		so up down out over under again once more most other same own let let's please ok okay yes get got go going
		make made keep still now new old one two three before after until while about above below between through during`) {
		propStop[w] = true
	}
}

// propContentWords returns the lower-case words of s that are not stop
// words, with surrounding punctuation removed ("orders.status" and
// "dual_write_orders" stay whole).
func propContentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(propNormalize(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./-#§'", r))
	}) {
		f = strings.Trim(f, "./-'")
		if len(f) >= 2 && !propStop[f] {
			out[f] = true
		}
	}
	return out
}

// propOverlap is the share of a's words that are in b.
func propOverlap(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// propRefPattern is one kind of reference the classifier looks for.
type propRefPattern struct {
	re         *regexp.Regexp
	kind       string // what the probe asks for
	confidence float64
	rule       string
	extendLeft bool // take one more descriptive word before the match
}

const propPath = `(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,9}`

// propRefPatterns, in priority order: where two matches overlap, the
// earlier pattern's wins.
var propRefPatterns = []propRefPattern{
	{re: regexp.MustCompile(`https?://[^\s<>"'()\[\]]+`), kind: "URL", confidence: 0.8, rule: "reference/url"},
	{re: regexp.MustCompile(propPath + `:\d+(?:-\d+)?\b`), kind: "file and line", confidence: 0.85, rule: "reference/file-line"},
	{re: regexp.MustCompile(propPath + ` rev(?:ision)?\.? ?\d+\b`), kind: "document and revision", confidence: 0.85, rule: "reference/revision"},
	{re: regexp.MustCompile(propPath + ` (?:§ ?|section )\d+(?:\.\d+)*`), kind: "document section", confidence: 0.85, rule: "reference/document-section"},
	{re: regexp.MustCompile(`(?i:\bsection )\d+(?:\.\d+)*|§ ?\d+(?:\.\d+)*`), kind: "section", confidence: 0.75, rule: "reference/section", extendLeft: true},
	{re: regexp.MustCompile(`(?i:\bcommit )[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.85, rule: "reference/commit"},
	{re: regexp.MustCompile(`\b(?:PR|MR|[Pp]ull request|[Mm]erge request|[Ii]ssue) ?#?\d+\b`), kind: "pull request", confidence: 0.8, rule: "reference/pull-request"},
	{re: regexp.MustCompile(`(?i:\bticket )[A-Z][A-Z0-9]{1,9}-\d+\b`), kind: "ticket", confidence: 0.85, rule: "reference/ticket"},
	{re: regexp.MustCompile(`(?i:\b(?:build|job|pipeline) )#?\d{2,}(?: on [A-Z][\w.-]*(?: [A-Z][\w.-]*)*)?`), kind: "CI build", confidence: 0.8, rule: "reference/build"},
	{re: regexp.MustCompile(`\b(?:[a-z][\w-]* ){0,2}run #?\d{2,}\b`), kind: "run", confidence: 0.75, rule: "reference/run"},
	{re: regexp.MustCompile(`(?i:\bsnapshot )[\w.:-]*\w`), kind: "snapshot", confidence: 0.8, rule: "reference/snapshot"},
	{re: regexp.MustCompile(`\b(?:the )?[\w-]+ dashboard(?:,? panel \d+)?`), kind: "dashboard panel", confidence: 0.75, rule: "reference/dashboard"},
	{re: regexp.MustCompile(`(?i:\bbranch )[\w./-]*\w|\borigin/[\w./-]*\w`), kind: "branch", confidence: 0.7, rule: "reference/branch"},
	{re: regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b`), kind: "ticket", confidence: 0.65, rule: "reference/ticket-key"},
	{re: regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), kind: "commit", confidence: 0.6, rule: "reference/hex-id"},
	{re: regexp.MustCompile(`(?:[\w.-]+/)+[\w.-]*\w|\b[\w-]+\.(?:md|go|py|ts|tsx|js|jsx|json|ya?ml|toml|txt|sql|sh|rs|java|kt|rb|proto|tf|cfg|ini|lock|mod|sum|csv|xml|html|css)\b`), kind: "file", confidence: 0.3, rule: "reference/path"},
}

// propLeftStop are words a reference's left extension never takes.
var propLeftStop = map[string]bool{"in": true, "at": true, "of": true, "on": true, "see": true, "follow": true, "the": true, "a": true, "an": true,
	"is": true, "are": true, "was": true, "per": true, "from": true, "to": true, "into": true, "and": true, "or": true, "use": true, "against": true,
	"compare": true, "check": true, "read": true, "under": true, "with": true, "by": true, "for": true, "this": true, "that": true, "it": true,
	"its": true, "which": true}

// propNotTickets are upper-case keys that name standards, not tickets.
var propNotTickets = map[string]bool{"UTF": true, "ISO": true, "SHA": true, "AES": true, "HTTP": true, "TLS": true, "SSL": true, "X": true, "CVE": false, "MD": true, "P": true, "IPV": true}

// propReferences returns the references in sentence s, in the order
// they appear, each with a drafted probe.
func propReferences(s string) []propGuess {
	type span struct {
		a, b int
		p    *propRefPattern
	}
	var spans []span
	overlaps := func(a, b int) bool {
		for _, sp := range spans {
			if a < sp.b && sp.a < b {
				return true
			}
		}
		return false
	}
	for k := range propRefPatterns {
		pat := &propRefPatterns[k]
		for _, m := range pat.re.FindAllStringIndex(s, -1) {
			a, b := m[0], m[1]
			lit := strings.TrimRight(s[a:b], ".,;:!?")
			b = a + len(lit)
			if !propRefOK(s, a, b, pat) {
				continue
			}
			if pat.rule == "reference/run" {
				for {
					w, rest, ok := strings.Cut(s[a:b], " ")
					if !ok || !propLeftStop[strings.ToLower(w)] {
						break
					}
					a = b - len(rest)
				}
			}
			if pat.extendLeft {
				a = propExtendLeft(s, a)
			}
			if overlaps(a, b) {
				continue
			}
			spans = append(spans, span{a, b, pat})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var out []propGuess
	for _, sp := range spans {
		lit := s[sp.a:sp.b]
		conf := sp.p.confidence
		if sp.p.rule == "reference/dashboard" && !strings.Contains(lit, "panel") {
			conf = 0.6
		}
		ctx := strings.TrimSpace(strings.TrimRight(s[:sp.a]+"…"+s[sp.b:], ". "))
		probe := "Which " + sp.p.kind + " does “" + ctx + "” refer to?"
		if len(strings.Fields(strings.ReplaceAll(ctx, "…", ""))) < 2 {
			probe = "Which " + sp.p.kind + " was mentioned?"
		}
		out = append(out, propGuess{class: fixture.Reference, literal: lit, probe: probe, expect: lit, confidence: conf, rule: sp.p.rule})
	}
	return out
}

// propRefOK filters matches a regular expression cannot: hex ids need a
// letter and a digit and must stand alone, ticket keys must not name a
// standard, a dashboard needs a name that is not an article.
func propRefOK(s string, a, b int, pat *propRefPattern) bool {
	lit := s[a:b]
	if lit == "" {
		return false
	}
	before := byte(' ')
	if a > 0 {
		before = s[a-1]
	}
	after := byte(' ')
	if b < len(s) {
		after = s[b]
	}
	switch pat.rule {
	case "reference/hex-id":
		return strings.ContainsAny(lit, "0123456789") && strings.ContainsAny(lit, "abcdef") &&
			!strings.ContainsRune("/.-_#", rune(before)) && !strings.ContainsRune("/-_", rune(after))
	case "reference/ticket-key":
		key, _, _ := strings.Cut(lit, "-")
		return !propNotTickets[key] && !strings.ContainsRune("/.-_", rune(before))
	case "reference/dashboard":
		name := strings.TrimPrefix(lit, "the ")
		name, _, _ = strings.Cut(name, " ")
		return !propLeftStop[strings.ToLower(name)]
	case "reference/path":
		// Not a date, a fraction or a bare "a/b" word pair.
		return strings.ContainsAny(lit, ".") || strings.Count(lit, "/") >= 2
	}
	return true
}

// propExtendLeft moves a to take in the word before it ("runbook" in
// "runbook section 3.4") unless that word is a stop word.
func propExtendLeft(s string, a int) int {
	head := strings.TrimRight(s[:a], " ")
	if len(head) == len(s[:a]) || head == "" {
		return a
	}
	i := strings.LastIndexAny(head, " \t(\"“") + 1
	w := head[i:]
	if w == "" || propLeftStop[strings.ToLower(w)] || strings.ContainsAny(w, ",;:.!?") {
		return a
	}
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '/') {
			return a
		}
	}
	return i
}

// propClamp keeps a confidence inside [0, 1]; it guards the invariant
// against future rule edits.
func propClamp(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(1, max(0, x))
}
