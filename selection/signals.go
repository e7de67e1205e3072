package selection

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
)

// SignalKind names a production signal.
type SignalKind string

// The two production signals of the source text.
const (
	// RepeatedToolCall: a tool call after a compaction, within the
	// window, that is the same call as one made before it and signals a
	// lost result (FindToolRepeats, FlaggedRepeats: a repeat that asks
	// again for a result the agent had, or redoes a side effect, which
	// is severe).
	RepeatedToolCall SignalKind = "repeated_tool_call"
	// RestatedInstruction: a message a person typed after a compaction,
	// within the window, that restates an instruction typed before it
	// (FindRestatements).
	RestatedInstruction SignalKind = "restated_instruction"
)

// SignalKinds lists the signals in the order reports show them.
var SignalKinds = []SignalKind{RepeatedToolCall, RestatedInstruction}

// Signal is one signal found in a session, with the evidence a reviewer
// needs to judge it: both calls, or both messages, with their places,
// and the compaction between them.
//
// Turns and steps are numbered from 1 as a person counts them: Turn 1
// is the session's first typed prompt and what follows it (0: before
// it; in a tally event log, the log's own turn numbers); a call's Step
// is the number of the model response that made it, a message's the
// number of responses before it.
type Signal struct {
	Kind SignalKind `json:"signal"`
	// Severe marks a repeat that redoes a side effect (a push, a
	// deploy, a write to another system).
	Severe bool `json:"severe"`
	// Turn and Step place the repeat or the restating message;
	// EvidenceTurn the first call or the earlier message (0 for a
	// restatement flagged by its cue alone, with no earlier message).
	Turn         int `json:"turn"`
	Step         int `json:"step"`
	EvidenceTurn int `json:"evidence_turn"`
	// The compaction before it: its turn, line and uuid (when the log has
	// record uuids).
	CompactionTurn int    `json:"compaction_turn"`
	CompactionLine int    `json:"compaction_line"`
	CompactionUUID string `json:"compaction_uuid,omitempty"`
	// TurnsAfter and StepsAfter are the distances from the compaction:
	// for a repeat, turns since the compaction's turn (0: the same turn)
	// and steps since it (1: the first step after it); for a
	// restatement, typed turns since the compaction's turn and model
	// steps between the compaction and the message.
	TurnsAfter int `json:"turns_after"`
	StepsAfter int `json:"steps_after"`
	// Reason says in a few words why it was flagged.
	Reason string `json:"reason"`

	// A repeated tool call: its kind (lost_result or side_effect), the
	// call before the compaction and the repeat.
	RepeatKind RepeatKind    `json:"repeat_kind,omitempty"`
	First      *CallEvidence `json:"first_call,omitempty"`
	Call       *CallEvidence `json:"call,omitempty"`
	// Summary is the head of the compaction's summary (its first 1,200
	// bytes): whether it kept the first call's result is most of what a
	// reviewer needs to judge a lost result.
	Summary string `json:"summary,omitempty"`
	// SummaryEncrypted is true when the log holds the compaction's
	// summary only encrypted (a Codex remote compaction): no summary to
	// read, and not because there was none.
	SummaryEncrypted bool `json:"summary_encrypted,omitempty"`

	// A restatement: the message, the earlier one it restates (nil when
	// its cue alone flagged it), the cue and its sentence ("" for a
	// near-verbatim repeat), the share of its content words the earlier
	// one has, the shared words and the score.
	Message    *MessageEvidence `json:"message,omitempty"`
	Earlier    *MessageEvidence `json:"earlier,omitempty"`
	Cue        string           `json:"cue,omitempty"`
	Sentence   string           `json:"sentence,omitempty"`
	Similarity float64          `json:"similarity,omitempty"`
	Common     []string         `json:"common,omitempty"`
	Score      float64          `json:"score,omitempty"`
}

// CallEvidence is one tool call: what it was and where.
type CallEvidence struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
	// ID is the tool_use id ("" in logs without one).
	ID string `json:"id,omitempty"`
	// Turn and Step are numbered from 1 (see Signal); Line is the line
	// of the step's first record.
	Turn    int  `json:"turn"`
	Step    int  `json:"step"`
	Line    int  `json:"line"`
	IsError bool `json:"is_error"`
	// UUID is the record holding the call, ResultUUID the one holding
	// its result ("" when the log has no record uuids).
	UUID       string `json:"uuid,omitempty"`
	ResultUUID string `json:"result_uuid,omitempty"`
	// Result is the head of the call's result (its first 400 bytes; ""
	// when none came back).
	Result string `json:"result,omitempty"`
}

// MessageEvidence is one typed message: its text and where it is.
type MessageEvidence struct {
	Text string `json:"text"`
	// Turn is numbered from 1; Step is the number of model responses
	// before it; Line is its line in the log.
	Turn int    `json:"turn"`
	Step int    `json:"step"`
	Line int    `json:"line"`
	UUID string `json:"uuid,omitempty"`
}

// Flagged is a session with at least one signal. Its JSON is one line of
// `tally signals` output. Week is the ISO week ("2026-W02") the session
// started in (agentlog.Session.Start), or "unknown" when its log gives
// no time. Signals are in order: severe repeats, the other repeats, then
// restatements.
type Flagged struct {
	SessionID string          `json:"session_id"`
	File      string          `json:"file"`
	Format    agentlog.Format `json:"format"`
	Week      string          `json:"week"`
	Signals   []Signal        `json:"signals"`
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

// Severe reports whether the session has a severe signal.
func (f *Flagged) Severe() bool {
	for _, s := range f.Signals {
		if s.Severe {
			return true
		}
	}
	return false
}

// UnknownWeek is the week of a session whose log carries no time.
const UnknownWeek = "unknown"

// SessionSignals finds the signals of one session within w: the
// repeated tool calls FlaggedRepeats keeps (severe first) and the
// restatements, each with its evidence.
func SessionSignals(s *agentlog.Session, w RepeatWindow) []Signal {
	if len(s.Compactions) == 0 { // both signals follow a compaction
		return nil
	}
	var out []Signal
	for _, r := range FlaggedRepeats(FindToolRepeats(s, w)) {
		c := s.Compactions[r.Compaction]
		first, call := callEvidence(s, r.First), callEvidence(s, r.Repeat)
		out = append(out, Signal{Kind: RepeatedToolCall, Severe: r.Severe,
			Turn: call.Turn, Step: call.Step, EvidenceTurn: first.Turn,
			CompactionTurn: c.Turn + 1, CompactionLine: r.CompactionLine, CompactionUUID: r.CompactionUUID,
			TurnsAfter: r.TurnsAfter, StepsAfter: r.StepsAfter, Reason: r.Reason,
			RepeatKind: r.Kind, First: first, Call: call, Summary: head(c.Summary, summaryHead), SummaryEncrypted: c.Encrypted})
	}
	for _, r := range FindRestatements(s, w) {
		sig := Signal{Kind: RestatedInstruction, Message: messageEvidence(r.Message),
			CompactionTurn: r.CompactionTurn + 1, CompactionLine: r.CompactionLine, CompactionUUID: r.CompactionUUID,
			TurnsAfter: r.TurnsAfter, StepsAfter: r.StepsAfter,
			Cue: r.Cue, Sentence: r.Sentence, Score: round4(r.Score)}
		sig.Turn, sig.Step = sig.Message.Turn, sig.Message.Step
		if r.HasEarlier {
			sig.Earlier = messageEvidence(r.Earlier)
			sig.EvidenceTurn = sig.Earlier.Turn
			sig.Similarity, sig.Common = round4(r.Similarity), r.Common
		}
		if r.Cue != "" {
			sig.Reason = fmt.Sprintf("says %q", r.Cue)
		} else {
			sig.Reason = "repeats an earlier instruction nearly word for word"
		}
		out = append(out, sig)
	}
	return out
}

// How much of a call's result and of a compaction's summary a flag
// carries: enough to judge it without opening the log.
const (
	resultHead  = 400
	summaryHead = 1200
)

func callEvidence(s *agentlog.Session, c CallRef) *CallEvidence {
	e := &CallEvidence{Tool: c.Tool, Input: c.Input, ID: c.ID, Turn: c.Turn + 1, Step: c.Step + 1, Line: c.Line,
		IsError: c.IsError, UUID: c.UUID, ResultUUID: c.ResultUUID}
	if c.Step >= 0 && c.Step < len(s.Steps) {
		for _, call := range s.Steps[c.Step].Calls {
			if call.ID == c.ID && call.HasResult {
				e.Result = head(call.Result, resultHead)
				break
			}
		}
	}
	return e
}

// head is the first n bytes of text, cut at a character's start, with
// "…" when cut.
func head(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + "…"
}

func messageEvidence(m MessageRef) *MessageEvidence {
	return &MessageEvidence{Text: m.Text, Turn: m.Turn + 1, Step: m.Step, Line: m.Line, UUID: m.UUID}
}

// isoWeek formats t's ISO 8601 week, as "2026-W02".
func isoWeek(t time.Time) string {
	y, w := t.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
