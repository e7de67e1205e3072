package agentlog

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"time"
	"unicode/utf8"

	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// Tally is tally's own event log (DESIGN.md, "Event log"; README, "The
// event-log format"), the format examples/gen wrote before real logs
// were read.
const Tally Format = "tally"

// The tally event log is JSONL, one event a line:
//
//	{"session_id","turn","ts"?,"kind":"message"|"tool_call"|"compaction",
//	 "role"?,"text"?,"tool"?,"args"?}
//
// A file holds several sessions, each one's events together and in turn
// order. How the events map to the model:
//
//   - A session is a run of events with the same session_id. A
//     session_id that comes back after another's run, or a turn lower
//     than the one before it, is a malformed line (with SkipBad, skipped:
//     the whole returning run, line by line).
//   - The log numbers its turns: turn n is Session.Turns[n-1], and every
//     number up to a session's highest is a turn, so turns keep their
//     numbers. A turn with no user message has Message -1 (memory: a
//     Turn is 24 bytes, so a session's turns cost 24 bytes per number up
//     to its highest, at most MaxTallyTurn).
//   - A user message is a typed Message at its turn, the turn's prompt
//     (a second user message in one turn is typed too, and not the
//     prompt). An assistant message is a Step with its text. A tool call
//     is a ToolCall with the tool's name and its args in canonical JSON
//     (members sorted by key, no white space), without id or result; it
//     belongs to the step before it when that step is of the same turn
//     and nothing but tool calls came between, else it is a step of its
//     own, without text. A compaction is a Compaction at its turn,
//     without trigger, tokens or summary.
//   - system and tool messages carry nothing the model holds: they are
//     skipped, counted as "message/system" and "message/tool". Blank
//     lines are skipped as "(blank line)".
//   - Session.Start is the first ts; Step.Line, Message.Line and
//     Compaction.Line are the event's line.
//
// A line is malformed when it is not one JSON object, gives a key twice,
// lacks session_id, turn or kind, has a value of the wrong type, a turn
// outside 1…MaxTallyTurn, a ts that is not RFC 3339, a kind other than
// the three, a role other than system, user, assistant and tool, a
// message without a role or a text, or a tool call without a tool. Its
// error is "FILE:LINE:COL: FIELD: MESSAGE".

// MaxTallyTurn is the highest turn of a tally event log.
const MaxTallyTurn = 1 << 24

// tallyRoles are the roles of a message.
var tallyRoles = []string{"system", "user", "assistant", "tool"}

// tallyEvent is one decoded line; its slices alias the line or the
// decoder's buffers.
type tallyEvent struct {
	session []byte
	turn    int
	ts      []byte
	kind    byte // 'm', 't', 'c'
	role    []byte
	text    []byte // raw, escapes not decoded
	textEsc bool
	hasText bool
	tool    []byte
	args    []byte
	hasArgs bool
}

// tallyReader reads a tally event log one session at a time.
type tallyReader struct {
	name  string
	lines *input.Lines
	bad   func(error)
	sc    jsonscan.Scanner
	ev    tallyEvent
	// session, ts, role and tool hold copies of the line's strings (a
	// decoded key may alias the scanner's buffer); args and text are
	// canonical args and decoded text.
	session, ts, role, tool, args, text []byte

	s *Session
	// stepOpen is whether a tool call joins the last step: the last
	// event of the session was an assistant message or a tool call.
	stepOpen bool
	// lastTurn and last are the turn and line of its last event.
	lastTurn, last int
	// ends maps a hash of each finished session's id to the line its
	// run ended at (to find a session whose events are not together);
	// skipping is the id of a returning run being skipped.
	ends     map[uint64]int
	skipping []byte
	// pending counts blank and skipped lines before the first session.
	pending Counts
	done    *Session
	eof     bool
}

var tallySeed = maphash.MakeSeed()

func newTallyReader(r io.Reader, name string, o Options) *tallyReader {
	return &tallyReader{name: name, lines: input.NewLines(r, name, o.MaxLine), bad: o.bad(), ends: map[uint64]int{},
		pending: Counts{Read: map[string]int{}, Skipped: map[string]int{}}}
}

// ReadTally reads a tally event log (not gzipped: see OpenAll), every
// session of it. name is used in errors and as each Session.Name. A file
// that is no agent log by its first line (a prompt history,
// pretty-printed JSON) is refused, as NewReader says.
func ReadTally(r io.Reader, name string) ([]*Session, error) {
	r, err := headChecked(r, name)
	if err != nil {
		return nil, err
	}
	t := newTallyReader(r, name, Options{})
	var out []*Session
	for {
		s, err := t.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// counts is where the current line is counted: the session being read,
// or the lines before the first.
func (t *tallyReader) counts() Counts {
	if t.s != nil {
		return t.s.Records
	}
	return t.pending
}

// next returns the next session, or io.EOF after the last.
func (t *tallyReader) next() (*Session, error) {
	for t.done == nil && !t.eof {
		b, err := t.lines.Next()
		if err == io.EOF {
			t.eof = true
			break
		}
		if err != nil {
			var le *input.LineError
			if !errors.As(err, &le) {
				return nil, fmt.Errorf("%s:%d: %w", t.name, t.lines.Line()+1, err)
			}
		} else {
			err = t.line(b)
		}
		if err != nil {
			if t.bad == nil {
				return nil, &MalformedError{err}
			}
			t.bad(err)
			t.counts().Skipped[MalformedLine]++
		}
	}
	if s := t.done; s != nil {
		t.done = nil
		return s, nil
	}
	if s := t.s; s != nil {
		t.s = nil
		return s, nil
	}
	return nil, io.EOF
}

// errorf is a problem at byte offset off of the current line.
func (t *tallyReader) errorf(line []byte, off int, field, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if field != "" {
		msg = field + ": " + msg
	}
	return fmt.Errorf("%s:%d:%d: %s", t.name, t.lines.Line(), jsonscan.Column(line, off), msg)
}

// line reads one line into the session.
func (t *tallyReader) line(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		t.counts().Skipped["(blank line)"]++
		return nil
	}
	ev, e := t.decode(b)
	if e != nil {
		return t.errorf(b, e.Off, e.Field, "%s", e.Msg)
	}
	if t.skipping != nil {
		if bytes.Equal(ev.session, t.skipping) {
			return t.errorf(b, 0, "session_id", "skipped with the rest of session %q's returning events", preview(ev.session))
		}
		t.skipping = nil
	}
	if t.s == nil || string(ev.session) != t.s.ID {
		if end, ok := t.ends[maphash.Bytes(tallySeed, ev.session)]; ok {
			t.skipping = append(t.skipping[:0], ev.session...)
			return t.errorf(b, 0, "session_id", "the events of session %q are not together: an earlier run of them ends at line %d", preview(ev.session), end)
		}
		t.start(ev)
	} else if ev.turn < t.lastTurn {
		return t.errorf(b, 0, "turn", "turn %d comes after turn %d of session %q: a session's events must be in turn order", ev.turn, t.lastTurn, preview(ev.session))
	}
	t.add(ev)
	return nil
}

// start ends the session being read and starts ev's.
func (t *tallyReader) start(ev *tallyEvent) {
	if t.s != nil {
		t.ends[maphash.Bytes(tallySeed, []byte(t.s.ID))] = t.last
		t.done = t.s
	}
	t.s = &Session{Name: t.name, ID: string(ev.session), Format: Tally,
		Records: Counts{Read: map[string]int{}, Skipped: map[string]int{}}}
	for k, n := range t.pending.Skipped { // lines before the first session
		t.s.Records.Skipped[k] += n
	}
	clear(t.pending.Skipped)
	t.stepOpen, t.lastTurn = false, 0
}

// add adds an event of the current session.
func (t *tallyReader) add(ev *tallyEvent) {
	s := t.s
	line := t.lines.Line()
	t.last = line
	t.lastTurn = ev.turn
	if s.Start.IsZero() && ev.ts != nil {
		s.Start, _ = tallyTime(ev.ts)
	}
	for len(s.Turns) < ev.turn {
		s.Turns = append(s.Turns, Turn{Message: -1, FirstStep: len(s.Steps)})
	}
	turn := ev.turn - 1
	switch ev.kind {
	case 'c':
		s.Compactions = append(s.Compactions, Compaction{Turn: turn, Step: len(s.Steps), Message: len(s.Messages), Line: line})
		s.Records.Read["compaction"]++
		t.stepOpen = false
	case 't':
		if !t.stepOpen || s.Steps[len(s.Steps)-1].Turn != turn {
			t.step(turn, line, "")
		}
		st := &s.Steps[len(s.Steps)-1]
		st.Records++
		call := ToolCall{Name: string(ev.tool), Input: []byte("null"), Line: line}
		if ev.hasArgs {
			call.Input = bytes.Clone(ev.args)
		}
		st.Calls = append(st.Calls, call)
		s.Records.Read["tool_call"]++
		t.stepOpen = true
	case 'm':
		role := string(ev.role)
		switch role {
		case "user":
			if s.Turns[turn].Message < 0 {
				s.Turns[turn].Message = len(s.Messages)
			}
			s.Messages = append(s.Messages, Message{Kind: Typed, Turn: turn, Step: len(s.Steps), Line: line, Text: t.decodedText(ev)})
			s.Records.Read["message/user"]++
			t.stepOpen = false
		case "assistant":
			t.step(turn, line, t.decodedText(ev))
			s.Steps[len(s.Steps)-1].Records++
			s.Records.Read["message/assistant"]++
			t.stepOpen = true
		default:
			s.Records.Skipped["message/"+role]++
		}
	}
}

// step starts a step at turn.
func (t *tallyReader) step(turn, line int, text string) {
	s := t.s
	st := Step{Turn: turn, Line: line, Text: text}
	if text != "" {
		st.TextLine = line
	}
	s.Steps = append(s.Steps, st)
	s.Turns[turn].Steps++
}

// decodedText is the event's text with its escapes decoded.
func (t *tallyReader) decodedText(ev *tallyEvent) string {
	if !ev.textEsc {
		return string(ev.text)
	}
	t.text = jsonscan.AppendUnescaped(t.text[:0], ev.text)
	return string(t.text)
}

// decode parses one line. Keys other than the eight of the format are
// ignored; a key given twice is an error.
func (t *tallyReader) decode(line []byte) (*tallyEvent, *jsonscan.Error) {
	sc := &t.sc
	sc.Reset(line)
	ev := &t.ev
	*ev = tallyEvent{}
	if err := sc.BeginObject("", "a JSON object (one event)"); err != nil {
		return nil, err
	}
	const (
		fSession = 1 << iota
		fTurn
		fTS
		fKind
		fRole
		fText
		fTool
		fArgs
	)
	seen, kindOff := 0, 0
	for i := 0; ; i++ {
		key, keyOff, ok, err := sc.Member(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		bit := 0
		switch string(key) {
		case "session_id":
			bit = fSession
		case "turn":
			bit = fTurn
		case "ts":
			bit = fTS
		case "kind":
			bit = fKind
		case "role":
			bit = fRole
		case "text":
			bit = fText
		case "tool":
			bit = fTool
		case "args":
			bit = fArgs
		default:
			if err := sc.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if seen&bit != 0 {
			return nil, sc.Errorf(keyOff, string(key), "given twice")
		}
		seen |= bit
		switch bit {
		case fSession:
			b, off, _, err := sc.StringOrNull("session_id")
			if err != nil {
				return nil, err
			}
			if len(b) == 0 {
				return nil, sc.Errorf(off, "session_id", "want a non-empty string")
			}
			t.session = append(t.session[:0], b...)
			ev.session = t.session
		case fTurn:
			n, err := sc.Integer("turn", 1, MaxTallyTurn)
			if err != nil {
				return nil, err
			}
			ev.turn = n
		case fTS:
			b, off, isNull, err := sc.StringOrNull("ts")
			if err != nil {
				return nil, err
			}
			if !isNull {
				if _, ok := tallyTime(b); !ok {
					return nil, sc.Errorf(off, "ts", "want an RFC 3339 time such as 2026-01-05T04:55:22Z, got %q", preview(b))
				}
				t.ts = append(t.ts[:0], b...)
				ev.ts = t.ts
			}
		case fKind:
			kindOff = sc.Pos()
			b, off, _, err := sc.StringOrNull("kind")
			if err != nil {
				return nil, err
			}
			switch string(b) {
			case "message":
				ev.kind = 'm'
			case "tool_call":
				ev.kind = 't'
			case "compaction":
				ev.kind = 'c'
			default:
				return nil, sc.Errorf(off, "kind", "want message, tool_call or compaction, got %q", preview(b))
			}
		case fRole:
			b, off, isNull, err := sc.StringOrNull("role")
			if err != nil {
				return nil, err
			}
			if !isNull && len(b) > 0 && !isTallyRole(b) {
				return nil, sc.Errorf(off, "role", "%q is not a role (want system, user, assistant or tool)", preview(b))
			}
			if !isNull {
				t.role = append(t.role[:0], b...)
				ev.role = t.role
			}
		case fText:
			if isNull, err := sc.Null(); err != nil {
				return nil, err
			} else if !isNull {
				raw, esc, err := sc.RawString("text")
				if err != nil {
					return nil, err
				}
				ev.text, ev.textEsc, ev.hasText = raw, esc, true
			}
		case fTool:
			b, _, isNull, err := sc.StringOrNull("tool")
			if err != nil {
				return nil, err
			}
			if !isNull {
				t.tool = append(t.tool[:0], b...)
				ev.tool = t.tool
			}
		case fArgs:
			var err *jsonscan.Error
			if t.args, err = sc.Canonical(t.args[:0]); err != nil {
				return nil, err
			}
			ev.args, ev.hasArgs = t.args, true
		}
	}
	if err := sc.End(); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		bit  int
		name string
	}{{fSession, "session_id"}, {fTurn, "turn"}, {fKind, "kind"}} {
		if seen&f.bit == 0 {
			return nil, sc.Errorf(0, "", "missing %q", f.name)
		}
	}
	switch ev.kind {
	case 'm':
		if len(ev.role) == 0 {
			return nil, sc.Errorf(kindOff, "role", "a message needs a non-empty role")
		}
		if !ev.hasText {
			return nil, sc.Errorf(kindOff, "text", "a message needs a text")
		}
	case 't':
		if len(ev.tool) == 0 {
			return nil, sc.Errorf(kindOff, "tool", "a tool call needs a non-empty tool")
		}
	}
	return ev, nil
}

func isTallyRole(b []byte) bool {
	for _, r := range tallyRoles {
		if string(b) == r {
			return true
		}
	}
	return false
}

// preview shortens a value quoted in a message to 40 characters.
func preview(b []byte) string {
	if utf8.RuneCount(b) <= 40 {
		return string(b)
	}
	return string([]rune(string(b))[:39]) + "…"
}

// tallyTime parses an RFC 3339 time, with a fast path for the common
// "2026-01-06T16:22:22Z".
func tallyTime(b []byte) (time.Time, bool) {
	if len(b) == 20 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' && b[19] == 'Z' {
		var v [6]int
		for i, r := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
			for _, c := range b[r[0]:r[1]] {
				if c < '0' || c > '9' {
					goto slow
				}
				v[i] = v[i]*10 + int(c-'0')
			}
		}
		if v[1] >= 1 && v[1] <= 12 && v[2] >= 1 && v[3] <= 23 && v[4] <= 59 && v[5] <= 59 {
			t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC)
			if t.Day() == v[2] { // not 31 February
				return t, true
			}
		}
		return time.Time{}, false
	}
slow:
	t, err := time.Parse(time.RFC3339, string(b))
	return t, err == nil
}
