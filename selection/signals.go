package selection

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"time"
)

// SignalKind names a production signal.
type SignalKind string

// The two production signals of the source text.
const (
	// RepeatedToolCall: a tool call, within Window turns after a
	// compaction, with the same tool and canonically equal arguments as a
	// call made before that compaction. The only reason an agent re-issues
	// an identical call so soon is that it no longer holds the result.
	RepeatedToolCall SignalKind = "repeated_tool_call"
	// RestatedInstruction: a user message after a compaction that
	// restates an instruction the user gave before it (restate.go).
	RestatedInstruction SignalKind = "restated_instruction"
)

// SignalKinds lists the signals in the order reports show them.
var SignalKinds = []SignalKind{RepeatedToolCall, RestatedInstruction}

// Signal is one signal found in a session: where it shows (Turn), the
// compaction before it and the earlier turn it repeats, with the
// evidence — the tool and canonical arguments of a repeated call, or the
// restating message, the instruction it restates and their score.
type Signal struct {
	Kind           SignalKind      `json:"signal"`
	Turn           int             `json:"turn"`
	CompactionTurn int             `json:"compaction_turn"`
	EvidenceTurn   int             `json:"evidence_turn"`
	Tool           string          `json:"tool,omitempty"`
	Args           json.RawMessage `json:"args,omitempty"`
	Text           string          `json:"text,omitempty"`
	EvidenceText   string          `json:"evidence_text,omitempty"`
	Similarity     float64         `json:"similarity,omitempty"`
	Score          float64         `json:"score,omitempty"`
}

// Flagged is a session with at least one signal. Its JSON is one line of
// `tally signals` output. Week is the ISO week ("2026-W02") of the
// session's first timestamp, or "unknown" when its events have none.
type Flagged struct {
	SessionID string   `json:"session_id"`
	Week      string   `json:"week"`
	Signals   []Signal `json:"signals"`
}

// Has reports whether the session shows a signal of kind k.
func (f *Flagged) Has(k SignalKind) bool {
	for _, s := range f.Signals {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// UnknownWeek is the week of a session whose events carry no timestamp.
const UnknownWeek = "unknown"

// Limits that keep one pathological session within bounded memory: the
// distinct tool calls and the user messages a session remembers. Later
// ones are still checked against what is remembered, and a warning names
// the session.
const (
	MaxSessionCalls        = 1 << 20
	MaxSessionUserMessages = 4096
)

// callSeen is what a session remembers of one distinct tool call: the
// turn and epoch (compactions before it) of its latest issue, and the
// turn of the latest issue in an earlier epoch than that (0: none).
type callSeen struct {
	turn, epoch, prevTurn int32
}

// userMsg is one remembered user message. Its words are computed when
// first needed: most sessions never compact, and their messages are
// never compared.
type userMsg struct {
	turn, epoch int
	text        string
	w           words
	normalised  bool
}

// callSeed seeds the hash of tool calls: the hashes are only compared
// within one run.
var callSeed = maphash.MakeSeed()

// detector finds the signals of one session at a time, from its events
// in order.
type detector struct {
	window    int
	threshold float64

	norm  normaliser
	cur   words
	key   []byte
	calls map[uint64]callSeen
	users []userMsg

	id             string
	week           string
	epoch          int // compactions so far
	lastCompaction int
	lastTurn       int
	events         int
	signals        []Signal
	warned         bool
	warnings       []string
}

func newDetector(window int, threshold float64) *detector {
	return &detector{window: window, threshold: threshold, calls: make(map[uint64]callSeen)}
}

// start begins a session.
func (d *detector) start(id string) {
	d.id, d.week = id, UnknownWeek
	d.epoch, d.lastCompaction, d.lastTurn, d.events = 0, 0, 0, 0
	d.signals, d.warned = nil, false
	clear(d.calls)
	for i := range d.users {
		d.users[i] = userMsg{w: words{content: d.users[i].w.content[:0]}}
	}
	d.users = d.users[:0]
}

// add processes one event of the current session.
func (d *detector) add(ev *rawEvent, dec *eventDecoder) {
	if d.week == UnknownWeek && ev.ts != nil {
		if t, ok := parseTime(ev.ts); ok {
			d.week = isoWeek(t)
		}
	}
	d.events++
	d.lastTurn = ev.turn
	switch ev.kind {
	case KindCompaction:
		d.epoch++
		d.lastCompaction = ev.turn
	case KindToolCall:
		d.toolCall(ev)
	case KindMessage:
		if string(ev.role) == "user" {
			d.userMessage(ev.turn, dec.decodedText(ev))
		}
	}
}

func (d *detector) toolCall(ev *rawEvent) {
	d.key = append(d.key[:0], ev.tool...)
	d.key = append(d.key, 0)
	if ev.hasArgs {
		d.key = append(d.key, ev.args...)
	} else {
		d.key = append(d.key, "null"...)
	}
	h := maphash.Bytes(callSeed, d.key)
	t := int32(ev.turn)
	seen, ok := d.calls[h]
	if ok {
		evidence := seen.prevTurn
		if seen.epoch < int32(d.epoch) {
			evidence = seen.turn
		}
		if evidence > 0 && d.epoch > 0 && ev.turn-d.lastCompaction <= d.window {
			s := Signal{Kind: RepeatedToolCall, Turn: ev.turn, CompactionTurn: d.lastCompaction,
				EvidenceTurn: int(evidence), Tool: string(ev.tool)}
			if ev.hasArgs {
				s.Args = json.RawMessage(append([]byte(nil), ev.args...))
			}
			d.signals = append(d.signals, s)
		}
		if seen.epoch < int32(d.epoch) {
			seen.prevTurn = seen.turn
		}
		seen.turn, seen.epoch = t, int32(d.epoch)
		d.calls[h] = seen
		return
	}
	if len(d.calls) >= MaxSessionCalls {
		d.warnLimit(fmt.Sprintf("more than %d distinct tool calls", MaxSessionCalls))
		return
	}
	d.calls[h] = callSeen{turn: t, epoch: int32(d.epoch)}
}

func (d *detector) userMessage(turn int, raw []byte) {
	text := string(raw)
	if d.epoch > 0 {
		d.norm.normalise(text, &d.cur)
	}
	if d.epoch > 0 && len(d.cur.content) > 0 {
		best, bestSim, bestJac, at := -1.0, 0.0, 0.0, -1
		for i := range d.users {
			u := &d.users[i]
			if u.epoch >= d.epoch {
				break // stated after the latest compaction, as is every later one
			}
			if !u.normalised {
				d.norm.normalise(u.text, &u.w)
				u.normalised = true
			}
			score, sim, jac, common := restateScore(&d.cur, &u.w)
			if common > 0 && (score > best || score == best && jac > bestJac) {
				best, bestSim, bestJac, at = score, sim, jac, i
			}
		}
		if at >= 0 && best >= d.threshold {
			u := &d.users[at]
			d.signals = append(d.signals, Signal{Kind: RestatedInstruction, Turn: turn, CompactionTurn: d.lastCompaction,
				EvidenceTurn: u.turn, Text: text, EvidenceText: u.text,
				Similarity: round4(bestSim), Score: round4(best)})
		}
	}
	if len(d.users) >= MaxSessionUserMessages {
		d.warnLimit(fmt.Sprintf("more than %d user messages", MaxSessionUserMessages))
		return
	}
	n := len(d.users)
	if n < cap(d.users) {
		d.users = d.users[:n+1] // reuse the content slice left there
	} else {
		d.users = append(d.users, userMsg{})
	}
	u := &d.users[n]
	u.turn, u.epoch, u.text, u.normalised = turn, d.epoch, text, false
	if d.epoch > 0 {
		u.w.content = append(u.w.content[:0], d.cur.content...)
		u.w.restateCue, u.w.instructCue = d.cur.restateCue, d.cur.instructCue
		u.normalised = true
	}
}

func (d *detector) warnLimit(what string) {
	if !d.warned {
		d.warned = true
		d.warnings = append(d.warnings, fmt.Sprintf("session %s: %s; later ones are checked but not remembered", d.id, what))
	}
}

// finish ends the session, returning it when flagged.
func (d *detector) finish() (Flagged, bool) {
	if len(d.signals) == 0 {
		return Flagged{}, false
	}
	return Flagged{SessionID: d.id, Week: d.week, Signals: d.signals}, true
}

// isoWeek formats t's ISO 8601 week, as "2026-W02".
func isoWeek(t time.Time) string {
	y, w := t.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
