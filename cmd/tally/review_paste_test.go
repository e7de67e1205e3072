package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tally-eval/tally/cmd/tally/internal/review"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/selection"
)

// The new user's trial paste: two lines, each ended as a terminal sends
// a pasted line break (CR), and what the probe must hold after it.
const (
	trialPaste = "Bitte prüfen: gilt das noch?\rAntwort: ja, laut Ticket.\r"
	trialProbe = "Bitte prüfen: gilt das noch? Antwort: ja, laut Ticket."
)

// Bracketed paste (xterm ctlseqs, "Bracketed Paste Mode"): CSI ? 2004 h
// turns it on, CSI ? 2004 l off; a paste comes as ESC [ 200 ~ … ESC [ 201 ~.
const (
	bracketedOn  = "\x1b[?2004h"
	bracketedOff = "\x1b[?2004l"
	pasted       = "\x1b[200~" + trialPaste + "\x1b[201~"
)

// person is how long a person takes, at the least, between seeing the
// screen change and the next key: well beyond the time in which the
// review takes a read for the rest of a paste.
const person = 300 * time.Millisecond

// proposeExample writes the example session's candidates into dir and
// returns the candidates file, the fixture to write and a function
// describing the candidates on disk: "id=status … @position".
func proposeExample(t *testing.T) (cands, fx string, statuses func() (string, selection.Proposal)) {
	t.Helper()
	dir := t.TempDir()
	cands = filepath.Join(dir, "cands.json")
	fx = filepath.Join(dir, "fx.json")
	if _, e, code := cliIn(t, nil, "propose", exampleLog, "--session", exampleSession, "--min-confidence", exampleMinConfidence, "-o", cands); code != 0 {
		t.Fatal(e)
	}
	return cands, fx, func() (string, selection.Proposal) {
		p, err := selection.LoadCandidates(cands, input.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, c := range p.Candidates {
			s = append(s, c.ID+"="+string(c.Status))
		}
		return fmt.Sprintf("%s @%d", strings.Join(s, " "), p.Position), p
	}
}

// TestReviewPTYPaste is the new user's trial under a pseudo-terminal: p,
// Ctrl-U, a two-line paste, Enter. The probe holds the whole paste on one
// line and every candidate stays undecided (before the fix the paste's
// second line was read as keys: "Antwort" rejected the next candidate,
// "ja" and "laut" accepted others, "Ticket" opened another edit). Then a
// paste outside an edit — bracketed, and as a terminal without
// bracketed paste sends it — is ignored with a message. review turns
// bracketed paste on with its screen and off when it ends.
func TestReviewPTYPaste(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tally under a pseudo-terminal")
	}
	cands, fx, statuses := proposeExample(t)
	r := startPTY(t, tallyProgram(t), "review", cands, "-o", fx)
	r.expect(bracketedOn)
	r.expect("item 1 of 3 · c1 · constraint · turn 3")
	r.expect(review.Keys)

	r.send("p")
	r.expect("probe> ")
	r.send("\x15")
	r.expect("\x1b[Jprobe> ")
	// The paste, split inside its end marker (a long paste arrives in
	// more than one read).
	r.send(pasted[:len(pasted)-3])
	time.Sleep(20 * time.Millisecond)
	r.send(pasted[len(pasted)-3:])
	r.expect(trialProbe + " ")
	time.Sleep(person)
	r.send("\r")
	r.expect("» probe updated")
	if got, p := statuses(); got != "c1=pending c2=pending c3=pending @0" || p.Candidates[0].Probe != trialProbe {
		t.Errorf("after the paste into the probe: %s, probe %q", got, p.Candidates[0].Probe)
	}

	time.Sleep(person)
	r.send(pasted)
	r.expect("» pasted text ignored: press p or e to edit a field first")
	time.Sleep(person)
	r.send(trialPaste) // as a terminal without bracketed paste sends it
	r.expect("» pasted text ignored (")
	if got, _ := statuses(); got != "c1=pending c2=pending c3=pending @0" {
		t.Errorf("a paste outside an edit decided: %s", got)
	}

	time.Sleep(person)
	r.send("q")
	r.expect(bracketedOff)
	r.expect("0 of 3 decided (0 accepted, 0 rejected)")
	if code := r.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got, p := statuses(); got != "c1=pending c2=pending c3=pending @0" || p.Candidates[0].Probe != trialProbe {
		t.Errorf("at the end: %s, probe %q", got, p.Candidates[0].Probe)
	}
}

// TestReviewPTYSignal: a signal gives the terminal back at once —
// bracketed paste off, the main screen — with the decision made before
// it saved. SIGTERM, in the middle of an edit, ends the review with a
// non-zero exit: 143 from the tally program (main's SIGTERM), 1 from the
// test binary standing in for it (the review's error). SIGQUIT (kill
// -QUIT; Ctrl-\ is a key in raw mode) has Go's default action after it —
// the stacks and exit 2 — and left the terminal raw before (a new user's
// trial).
func TestReviewPTYSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tally under a pseudo-terminal")
	}
	for _, c := range []struct {
		sig   syscall.Signal
		edit  bool   // the signal comes in the middle of an edit
		after string // what the output shows after the terminal is back
		codes []int
	}{
		{syscall.SIGTERM, true, "1 of 3 decided (1 accepted, 0 rejected)", []int{exitSIGTERM, exitInput}},
		{syscall.SIGQUIT, false, "SIGQUIT", []int{2}},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			cands, fx, statuses := proposeExample(t)
			r := startPTY(t, tallyProgram(t), "review", cands, "-o", fx)
			r.expect(bracketedOn)
			r.expect(review.Keys)
			r.send("a")
			r.expect("item 2 of 3")
			if c.edit {
				r.send("p")
				r.expect("probe> ")
			}
			if err := r.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			r.expect(bracketedOff + "\x1b[?1049l")
			r.expect(c.after)
			if code := r.exit(); !slices.Contains(c.codes, code) {
				t.Errorf("exit %d after %v, want one of %v", code, c.sig, c.codes)
			}
			if got, _ := statuses(); got != "c1=accepted c2=pending c3=pending @1" {
				t.Errorf("after %v: %s", c.sig, got)
			}
		})
	}
}
