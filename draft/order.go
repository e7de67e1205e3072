package draft

import "github.com/tally-eval/tally/agentlog"

// eventKind is what an entry of a session's stream is.
type eventKind uint8

const (
	evMessage eventKind = iota
	evStep
	evCompaction
)

// event is one entry of a session in the order it happened: an index into
// Session.Messages, Steps or Compactions.
type event struct {
	kind eventKind
	i    int
}

// messageBeforeCompaction reports whether message i (an index into
// Session.Messages) came before compaction c: every reader counts the
// messages before a compaction (Compaction.Message), in every format,
// lines or none.
func messageBeforeCompaction(i int, c agentlog.Compaction) bool { return i < c.Message }

// stream returns s's messages, steps and compactions in the order they
// happened: a message or a compaction that Step steps preceded comes
// before step Step (as selection.Propose orders messages and steps), and
// messages and compactions between the same two steps are ordered by
// messageBeforeCompaction.
func stream(s *agentlog.Session) []event {
	out := make([]event, 0, len(s.Messages)+len(s.Steps)+len(s.Compactions))
	mi, ci := 0, 0
	// flush emits the messages and compactions that come before step
	// upTo (all that remain when upTo is len(s.Steps)).
	flush := func(upTo int) {
		for {
			mOK := mi < len(s.Messages) && (upTo == len(s.Steps) || s.Messages[mi].Step <= upTo)
			cOK := ci < len(s.Compactions) && (upTo == len(s.Steps) || s.Compactions[ci].Step <= upTo)
			switch {
			case mOK && cOK:
				if messageBeforeCompaction(mi, s.Compactions[ci]) {
					out = append(out, event{evMessage, mi})
					mi++
				} else {
					out = append(out, event{evCompaction, ci})
					ci++
				}
			case mOK:
				out = append(out, event{evMessage, mi})
				mi++
			case cOK:
				out = append(out, event{evCompaction, ci})
				ci++
			default:
				return
			}
		}
	}
	for i := range s.Steps {
		flush(i)
		out = append(out, event{evStep, i})
	}
	flush(len(s.Steps))
	return out
}

// turns numbers the fixture turns of a session (see the package
// comment): the fixture turn of each message and step, the turn each
// kept compaction's context serves (0 for a compaction left out), and
// the number of turns.
type turns struct {
	message, step, context []int
	n                      int
}

// numberTurns walks the stream and numbers its fixture turns; keep says
// which compactions are in the fixture.
func numberTurns(s *agentlog.Session, evs []event, keep []bool) turns {
	t := turns{message: make([]int, len(s.Messages)), step: make([]int, len(s.Steps)), context: make([]int, len(s.Compactions))}
	turn, started := 1, false
	for i, e := range evs {
		switch e.kind {
		case evMessage:
			if s.Messages[e.i].Typed() {
				if started {
					turn++
				}
				started = true
			}
			t.message[e.i] = turn
		case evStep:
			t.step[e.i] = turn
		case evCompaction:
			if !keep[e.i] {
				continue
			}
			started = true
			if nextIsPrompt(s, evs[i+1:], keep) {
				t.context[e.i] = turn + 1 // the prompt's turn
			} else {
				turn++ // the rest of this typed turn, from the context
				t.context[e.i] = turn
			}
		}
	}
	t.n = turn
	return t
}

// nextIsPrompt reports whether the next step, typed message or kept
// compaction in rest is a typed message.
func nextIsPrompt(s *agentlog.Session, rest []event, keep []bool) bool {
	for _, e := range rest {
		switch e.kind {
		case evMessage:
			if s.Messages[e.i].Typed() {
				return true
			}
		case evStep:
			return false
		case evCompaction:
			if keep[e.i] {
				return false
			}
		}
	}
	return false
}

// Prefix returns the part of s before compaction k (0-based): the
// messages and steps that precede it, the turns that begin in them (their
// step counts cut at the compaction), and the compactions,
// microcompactions and API errors before it. The slices share s's arrays;
// a caller must not change them.
func Prefix(s *agentlog.Session, k int) *agentlog.Session {
	c := s.Compactions[k]
	nm := 0
	for nm < len(s.Messages) && messageBeforeCompaction(nm, c) {
		nm++
	}
	ns := c.Step
	before := func(step, line int) bool { return step < ns || step == ns && (line < c.Line || c.Line == 0) }
	p := *s
	p.Messages = s.Messages[:nm:nm]
	p.Steps = s.Steps[:ns:ns]
	p.Compactions = s.Compactions[:k:k]
	p.Turns = nil
	for _, t := range s.Turns {
		if t.Message >= nm {
			break
		}
		t.Steps = max(0, min(t.Steps, ns-t.FirstStep))
		p.Turns = append(p.Turns, t)
	}
	p.Microcompactions = nil
	for _, m := range s.Microcompactions {
		if before(m.Step, m.Line) {
			p.Microcompactions = append(p.Microcompactions, m)
		}
	}
	p.APIErrors = nil
	for _, e := range s.APIErrors {
		if before(e.Step, e.Line) {
			p.APIErrors = append(p.APIErrors, e)
		}
	}
	return &p
}
