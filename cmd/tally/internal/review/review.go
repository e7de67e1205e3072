package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tally-eval/tally/selection"
)

// Keys is the key line shown under every candidate.
const Keys = "a accept · r reject · p edit probe · e edit expected · b back · q quit"

// Review is one review session over a proposal. It is a state machine
// driven by key presses: Run reads keys from an io.Reader and draws on an
// io.Writer, so the same code runs on a terminal (RunTerminal) and in
// tests.
//
// The keys: a accepts the candidate shown and r rejects it, and either
// moves on to the next; p edits its probe and e its expected answer (the
// current text is put on the line to change; Enter keeps the edit,
// Escape or Ctrl-C cancels, Backspace, Ctrl-W and Ctrl-U delete a
// character, a word, the line); b (or ←) goes back one candidate, to
// change its decision; q (or Ctrl-C, Ctrl-D, or the end of the input)
// quits. After the last candidate a closing page says the review is
// complete; b goes back from there too.
//
// Pasted text is never read as keys. While a field is edited, a paste is
// inserted as one line (each line break a space; see lineEditor). Outside
// an edit, a paste is ignored, with a message: a bracketed paste (which
// RunTerminal turns on), and keys that arrive together in one read (a
// paste on a terminal without bracketed paste; see Run).
//
// Every change — a decision, an edit, a move — is passed to Save before
// the next key is read, so a review stopped at any point resumes at the
// same candidate with the same decisions.
type Review struct {
	// Proposal is reviewed in place: statuses, probes, expected answers
	// and the position change as the person works.
	Proposal *selection.Proposal
	// Save persists the proposal; an error ends the review with it.
	Save func(*selection.Proposal) error
	// Output names the fixture being written, for the screen.
	Output string
	// Width is the terminal's width in columns (0: 80).
	Width int
	// Clear clears the screen before each page (on a terminal).
	Clear bool
	// shown, when set, runs once, when the first page is composed and
	// about to be written (and no key has been read): RunTerminal
	// discards there the keys typed before the person could see a
	// candidate, so that none typed after it can be lost.
	shown func() error
	// wait, when set, reports whether a key can be read within d (d < 0:
	// whenever one comes); RunTerminal sets it (see keyReader).
	wait func(d time.Duration) (bool, error)
}

// Outcome is how a review ended.
type Outcome struct {
	// Complete is true when no candidate is pending.
	Complete bool
	// Counts are the candidates by status at the end.
	Counts Counts
}

// Run reviews r.Proposal, reading keys from in and drawing on out, until
// the person quits or in ends. It returns the outcome, or the first error
// from Save, from reading in (other than its end) or from writing out.
func (r *Review) Run(in io.Reader, out io.Writer) (Outcome, error) {
	p := r.Proposal
	if err := p.Validate(); err != nil {
		return Outcome{}, err
	}
	kr := &keyReader{in: in, wait: r.wait}
	scr := &screen{w: out}
	msg := ""
	if p.Position > 0 && p.Position < len(p.Candidates) {
		msg = fmt.Sprintf("resumed at candidate %d of %d", p.Position+1, len(p.Candidates))
	}
	for first := true; ; first = false {
		if first && r.shown != nil {
			var page bytes.Buffer
			r.draw(&screen{w: &page}, msg)
			if err := r.shown(); err != nil {
				return r.outcome(), err
			}
			scr.raw(page.String())
		} else {
			r.draw(scr, msg)
		}
		if scr.err != nil {
			return r.outcome(), scr.err
		}
		msg = ""
		k, err := kr.next()
		if errors.Is(err, io.EOF) {
			return r.outcome(), nil
		}
		if err != nil {
			return r.outcome(), err
		}
		atEnd := p.Position >= len(p.Candidates)
		changed := false
		switch {
		case k.special == keyPaste || k.burst:
			// A key that did not arrive alone is not a decision: a
			// person typing sends one key per read, so several keys in
			// one read are a paste on a terminal without bracketed
			// paste ("Antwort: ja" would reject and accept candidates),
			// or keys typed while the review was busy (saving), before
			// the page they would decide was on the screen — as with
			// the keys discarded before the first page, a key is a
			// decision only when the person has seen what it decides.
			// So the whole read is dropped, the first key with the rest
			// ("Bitte" must not go back), and the message says why; a
			// person whose keys were dropped types the one meant again.
			// On a terminal, reads that follow within burstGap continue
			// the paste and are dropped too (keyReader).
			n, err := kr.drain()
			if errors.Is(err, io.EOF) {
				return r.outcome(), nil
			}
			if err != nil {
				return r.outcome(), err
			}
			msg = pasteIgnored(k.special == keyPaste, n+1, atEnd)
		case k.r == 'q' || k.r == 'Q' || k.special == keyCtrlC || k.special == keyCtrlD:
			return r.outcome(), nil
		case k.r == 'b' || k.r == 'B' || k.special == keyLeft:
			if p.Position == 0 {
				msg = "already at the first candidate"
				break
			}
			p.Position--
			changed = true
		case k.r == 'a' || k.r == 'A' || k.r == 'r' || k.r == 'R':
			if atEnd {
				msg = "nothing to decide here: b goes back, q quits"
				break
			}
			c := &p.Candidates[p.Position]
			c.Status = selection.ReviewAccepted
			if k.r == 'r' || k.r == 'R' {
				c.Status = selection.ReviewRejected
			}
			msg = fmt.Sprintf("%s %s", c.ID, c.Status)
			p.Position++
			changed = true
		case k.r == 'p' || k.r == 'P' || k.r == 'e' || k.r == 'E':
			if atEnd {
				msg = "nothing to edit here: b goes back, q quits"
				break
			}
			c := &p.Candidates[p.Position]
			field, dst := "probe", &c.Probe
			if k.r == 'e' || k.r == 'E' {
				field, dst = "expect", &c.Expect
			}
			ed := &lineEditor{prompt: field + "> ", buf: []rune(Printable(*dst)), width: r.width(), out: scr}
			scr.raw("\r\n")
			text, ok, err := ed.edit(kr)
			switch {
			case errors.Is(err, io.EOF):
				return r.outcome(), nil
			case err != nil:
				return r.outcome(), err
			case !ok:
				msg = field + ": edit cancelled"
			case strings.TrimSpace(text) == "":
				msg = field + " left as it was: it cannot be empty"
			case strings.TrimSpace(text) == *dst:
				msg = field + " unchanged"
			default:
				*dst = strings.TrimSpace(text)
				msg = field + " updated"
				changed = true
			}
			if ed.cut && ok {
				msg += fmt.Sprintf(" (a paste was cut to its first %d KiB)", maxPaste>>10)
			}
		case k.special != none:
			// Enter, Escape, →, Backspace and other control keys mean
			// nothing here: redraw.
		default:
			msg = fmt.Sprintf("no key %q — %s", Printable(string(k.r)), Keys)
		}
		if changed {
			if err := r.Save(p); err != nil {
				return r.outcome(), err
			}
		}
	}
}

// pasteIgnored is the message for a paste outside an edit: a bracketed
// one, or n keys that arrived together (one: a key in a read that came
// right after such keys, see keyReader).
func pasteIgnored(bracketed bool, n int, atEnd bool) string {
	what := "pasted text ignored"
	switch {
	case bracketed:
	case n > 1:
		what += fmt.Sprintf(" (%d keys arrived at once)", n)
	default:
		what += " (a key arrived right after pasted text)"
	}
	if atEnd {
		return what + ": b goes back, q quits"
	}
	return what + ": press p or e to edit a field first"
}

func (r *Review) outcome() Outcome {
	c := Count(*r.Proposal)
	return Outcome{Complete: c.Pending == 0, Counts: c}
}

func (r *Review) width() int {
	if r.Width <= 0 {
		return 80
	}
	return r.Width
}

// draw writes one page: the header with progress, the candidate (or the
// closing page), the keys and the message of the last action.
func (r *Review) draw(s *screen, msg string) {
	p := r.Proposal
	w := r.width()
	if r.Clear {
		s.raw("\x1b[H\x1b[2J")
	}
	n := len(p.Candidates)
	c := Count(*p)
	decided := c.Accepted + c.Rejected
	title := "tally review · " + Printable(p.ConversationID)
	if r.Output != "" {
		title += " → " + Printable(r.Output)
	}
	s.wrapped(title, w)
	s.wrapped(fmt.Sprintf("%s %d of %d decided · %d accepted · %d rejected · %d pending", bar(decided, n, 20), decided, n, c.Accepted, c.Rejected, c.Pending), w)
	s.line("")
	if p.Position >= n {
		s.line("Review complete.")
		if c.Pending > 0 {
			s.line(fmt.Sprintf("%d candidates are still pending: b goes back to them.", c.Pending))
		}
		out := "the fixture"
		if r.Output != "" {
			out = Printable(r.Output)
		}
		s.wrapped(fmt.Sprintf("%s holds the %d accepted items; it is saved after every decision.", out, c.Accepted), w)
		s.line("")
		s.line("b back · q quit")
	} else {
		it := p.Candidates[p.Position]
		s.wrapped(fmt.Sprintf("item %d of %d · %s · %s · turn %d · said by %s · confidence %.2f",
			p.Position+1, n, Printable(it.ID), Printable(string(it.Class)), it.Turn, Printable(orDash(it.Role)), it.Confidence), w)
		where := ""
		if it.Line > 0 {
			where = fmt.Sprintf(" · log line %d", it.Line)
		}
		s.wrapped(fmt.Sprintf("rule %s · status %s%s", Printable(orDash(it.Rule)), Printable(string(it.Status)), where), w)
		s.line("")
		for _, f := range [][2]string{{"message", it.Message}, {"literal", it.Literal}, {"probe", it.Probe}, {"expect", it.Expect}} {
			if f[0] == "message" && f[1] == "" {
				continue
			}
			for i, l := range wrap(Printable(f[1]), w-10) {
				label := ""
				if i == 0 {
					label = f[0] + ":"
				}
				s.line(fmt.Sprintf("%-9s %s", label, l))
			}
		}
		s.line("")
		s.wrapped(Keys, w)
	}
	if msg != "" {
		s.wrapped("» "+msg, w)
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// bar draws done/total as a bar of width cells.
func bar(done, total, width int) string {
	filled := width
	if total > 0 {
		filled = done * width / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}
