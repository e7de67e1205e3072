// Package review is the terminal review of `tally review`: a person goes
// through the candidate items `tally propose` wrote, one at a time, and
// accepts, rejects or corrects each; the accepted ones become a fixture.
//
// The candidates file is package selection's (selection.Proposal as JSON,
// read with selection.LoadCandidates, written with
// selection.WriteCandidates); Store writes it and the fixture its accepted
// items make (selection.Proposal.Fixture) atomically after every change,
// so quitting and running again resumes where the review stopped. Only
// the CLI uses this package, hence its place under cmd/tally.
//
// The interface is a state machine over an io.Reader of key presses and
// an io.Writer of screen output (Review.Run), so it is tested without a
// terminal; RunTerminal puts a real terminal in raw mode, with
// bracketed paste on, around it. Keys are read by keyReader, which tells
// a paste from typing (see Review), so that pasted text is never taken
// for decisions.
package review
