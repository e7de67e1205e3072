// Package review is the terminal review of `tally review`: a person goes
// through the candidate items `tally propose` wrote, one at a time, and
// accepts, rejects or corrects each; the accepted ones become a fixture.
//
// The candidates file is selection.Proposal as JSON, read with Parse or
// Load (every problem with file, line, column and field) and checked with
// Validate; Fixture turns its accepted items into a fixture.Fixture; Store
// writes both files atomically after every change, so quitting and
// running again resumes where the review stopped.
//
// The interface is a state machine over an io.Reader of key presses and
// an io.Writer of screen output (Review.Run), so it is tested without a
// terminal; RunTerminal puts a real terminal in raw mode around it.
package review
