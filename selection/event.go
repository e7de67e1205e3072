package selection

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// Kind is the kind of an event-log line.
type Kind string

// The event kinds.
const (
	KindMessage    Kind = "message"
	KindToolCall   Kind = "tool_call"
	KindCompaction Kind = "compaction"
)

// Event is one line of an event log (DESIGN.md, "Event log"):
// {"session_id","turn","ts"?,"kind":"message"|"tool_call"|"compaction",
// "role"?,"text"?,"tool"?,"args"?}. A message has a role and a text, a
// tool call a tool (its args may be absent); a compaction has neither.
// A role, where given, is one of fixture.Roles: system, user, assistant,
// tool.
type Event struct {
	SessionID string
	Turn      int
	TS        time.Time // zero when the line has none
	Kind      Kind
	Role      string
	Text      string
	Tool      string
	// Args are the tool call's arguments in canonical JSON: members
	// sorted by key, no white space, strings escaped one fixed way, so
	// that two calls are identical exactly when their Args are equal.
	// Nil when the line has none.
	Args []byte
}

// rawEvent is an event as the decoder leaves it: every byte slice
// aliases the line or a reused buffer, and the text is decoded only when
// asked for (only users' messages are read).
type rawEvent struct {
	session []byte
	turn    int
	ts      []byte // raw RFC 3339 text, checked
	kind    Kind
	role    []byte
	tool    []byte
	args    []byte // canonical JSON (in the scanner's buffer)
	hasArgs bool
	text    []byte // the raw string body, escapes not decoded
	textEsc bool   // whether text has escapes
	textOff int    // offset of the text's opening quote in line
	hasText bool
	line    []byte
}

// eventDecoder decodes event lines, reusing its buffers.
type eventDecoder struct {
	sc      jsonscan.Scanner
	ev      rawEvent
	session []byte // copy of the session id (the key may alias the scanner's buffer)
	ts      []byte
	role    []byte
	tool    []byte
	args    []byte
	textBuf []byte
}

// decode parses one line. Keys other than the eight of the format are
// ignored; a key given twice is an error.
func (d *eventDecoder) decode(line []byte) (*rawEvent, *jsonscan.Error) {
	sc := &d.sc
	sc.Reset(line)
	ev := &d.ev
	*ev = rawEvent{line: line}
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
	seen := 0
	kindOff := 0
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
			d.session = append(d.session[:0], b...)
			ev.session = d.session
		case fTurn:
			n, err := sc.Integer("turn", 1, MaxTurns)
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
				if !validTime(b) {
					return nil, sc.Errorf(off, "ts", "want an RFC 3339 time such as 2026-01-05T04:55:22Z, got %q", b)
				}
				d.ts = append(d.ts[:0], b...)
				ev.ts = d.ts
			}
		case fKind:
			kindOff = sc.Pos()
			b, off, _, err := sc.StringOrNull("kind")
			if err != nil {
				return nil, err
			}
			switch string(b) {
			case string(KindMessage):
				ev.kind = KindMessage
			case string(KindToolCall):
				ev.kind = KindToolCall
			case string(KindCompaction):
				ev.kind = KindCompaction
			default:
				return nil, sc.Errorf(off, "kind", "want message, tool_call or compaction, got %q", b)
			}
		case fRole:
			b, off, isNull, err := sc.StringOrNull("role")
			if err != nil {
				return nil, err
			}
			if !isNull && len(b) > 0 && !slices.Contains(fixture.Roles, string(b)) {
				return nil, sc.Errorf(off, "role", "%s", roleProblem(string(b)))
			}
			if !isNull {
				d.role = append(d.role[:0], b...)
				ev.role = d.role
			}
		case fText:
			off := sc.Pos()
			if isNull, err := sc.Null(); err != nil {
				return nil, err
			} else if !isNull {
				raw, esc, err := sc.RawString("text")
				if err != nil {
					return nil, err
				}
				ev.text, ev.textEsc, ev.textOff, ev.hasText = raw, esc, off, true
			}
		case fTool:
			b, _, isNull, err := sc.StringOrNull("tool")
			if err != nil {
				return nil, err
			}
			if !isNull {
				d.tool = append(d.tool[:0], b...)
				ev.tool = d.tool
			}
		case fArgs:
			var err *jsonscan.Error
			if d.args, err = sc.Canonical(d.args[:0]); err != nil {
				return nil, err
			}
			ev.args, ev.hasArgs = d.args, true
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
	case KindMessage:
		if len(ev.role) == 0 {
			return nil, sc.Errorf(kindOff, "role", "a message needs a non-empty role")
		}
		if !ev.hasText {
			return nil, sc.Errorf(kindOff, "text", "a message needs a text")
		}
	case KindToolCall:
		if len(ev.tool) == 0 {
			return nil, sc.Errorf(kindOff, "tool", "a tool call needs a non-empty tool")
		}
	}
	return ev, nil
}

// roleProblem says that r is not one of fixture.Roles, the roles of a
// chat message (an empty role is a message's problem: it needs one).
func roleProblem(r string) string {
	rs := fixture.Roles
	return fmt.Sprintf("%q is not a role (want %s or %s)", propPreview(r), strings.Join(rs[:len(rs)-1], ", "), rs[len(rs)-1])
}

// decodedText returns the event's text with escapes decoded, in a buffer
// reused by the next call.
func (d *eventDecoder) decodedText(ev *rawEvent) []byte {
	if !ev.textEsc {
		return ev.text
	}
	d.textBuf = jsonscan.AppendUnescaped(d.textBuf[:0], ev.text) // checked by decode
	return d.textBuf
}

// validTime reports whether b is an RFC 3339 time.
func validTime(b []byte) bool {
	_, ok := parseTime(b)
	return ok
}

// event converts a raw event into an Event that shares no memory with
// the decoder.
func (d *eventDecoder) event(ev *rawEvent) Event {
	e := Event{SessionID: string(ev.session), Turn: ev.turn, Kind: ev.kind, Role: string(ev.role), Tool: string(ev.tool)}
	if ev.ts != nil {
		e.TS, _ = parseTime(ev.ts)
	}
	if ev.hasText {
		e.Text = string(d.decodedText(ev))
	}
	if ev.hasArgs {
		e.Args = append([]byte(nil), ev.args...)
	}
	return e
}

// EventReader reads an event log, one JSON object per line (JSONL),
// holding one line in memory at a time. Blank lines are skipped.
type EventReader struct {
	name string
	lr   lineReader
	dec  eventDecoder
	err  error
}

// NewEventReader returns a reader of the events in r; name (normally the
// file's path) is used in problems. A line may be up to MaxLineBytes
// long; see NewEventReaderSize.
func NewEventReader(r io.Reader, name string) *EventReader {
	return NewEventReaderSize(r, name, 0)
}

// NewEventReaderSize is NewEventReader accepting lines of up to maxLine
// bytes (MaxLineBytes when maxLine ≤ 0): a longer line is a problem at
// its line, "line longer than SIZE (raise with --max-line)", and is
// skipped.
func NewEventReaderSize(r io.Reader, name string, maxLine int64) *EventReader {
	return &EventReader{name: name, lr: newLineReader(r, maxLine)}
}

// Next returns the next event, or io.EOF after the last one.
//
// A malformed line yields a fixture.Problem naming the file, line, column
// and field, and the reader moves on: call Next again to read past it. A
// read error is returned wrapped with the file and line, and again by
// every later call.
func (r *EventReader) Next() (Event, error) {
	ev, err := r.next()
	if err != nil {
		return Event{}, err
	}
	return r.dec.event(ev), nil
}

// next is Next without the copy: the event is valid until the next call.
func (r *EventReader) next() (*rawEvent, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, n, err := r.lr.next()
		switch {
		case err == io.EOF:
			r.err = io.EOF
			return nil, io.EOF
		case err == errLineTooLong:
			return nil, r.lr.longProblem(r.name, n)
		case err != nil:
			r.err = fmt.Errorf("reading events: %s:%d: %w", r.name, n, err)
			return nil, r.err
		}
		if blank(line) {
			continue
		}
		ev, e := r.dec.decode(line)
		if e != nil {
			return nil, problemAt(r.name, n, line, e)
		}
		return ev, nil
	}
}

// Line returns the number of the line Next read last.
func (r *EventReader) Line() int { return r.lr.line }

// Bytes returns the number of bytes read so far.
func (r *EventReader) Bytes() int64 { return r.lr.bytes }

// ParseEvent decodes one event-log line (without its newline). name and
// lineNo place problems; the event shares no memory with line.
func ParseEvent(name string, lineNo int, line []byte) (Event, error) {
	var d eventDecoder
	ev, e := d.decode(line)
	if e != nil {
		return Event{}, problemAt(name, lineNo, line, e)
	}
	return d.event(ev), nil
}
