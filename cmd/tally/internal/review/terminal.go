package review

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"
)

// ErrNoTerminal is returned (wrapped) by RunTerminal when its input or
// output is not a terminal.
var ErrNoTerminal = errors.New("not a terminal")

// RunTerminal runs r on a terminal: in is put in raw mode (each key press
// arrives at once, nothing is echoed) for the review and restored
// afterwards, the review draws on the terminal's alternate screen (left
// again at the end, so the shell's screen comes back as it was), and
// r.Width is taken from the terminal. Output goes to out.
//
// Keys typed before the first candidate is on the screen (buffered by the
// terminal while tally started) are discarded just before it is written:
// a key press is a decision only when the person has seen what it
// decides.
func RunTerminal(in, out *os.File, r *Review) (Outcome, error) {
	if err := CheckTerminal(in, out); err != nil {
		return Outcome{}, err
	}
	fd := int(in.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return Outcome{}, fmt.Errorf("putting the terminal in raw mode: %w", err)
	}
	defer term.Restore(fd, state)
	if w, _, err := term.GetSize(int(out.Fd())); err == nil && w > 0 {
		r.Width = w
	}
	r.Clear = true
	r.shown = func() error {
		if err := discardInput(fd); err != nil {
			return fmt.Errorf("discarding keys typed before the review: %w", err)
		}
		return nil
	}
	fmt.Fprint(out, "\x1b[?1049h")
	defer fmt.Fprint(out, "\x1b[?1049l")
	return r.Run(in, out)
}

// CheckTerminal reports, wrapping ErrNoTerminal, which of in and out is
// not a terminal.
func CheckTerminal(in, out *os.File) error {
	switch {
	case in == nil || !term.IsTerminal(int(in.Fd())):
		return fmt.Errorf("stdin is %w", errNotOne)
	case out == nil || !term.IsTerminal(int(out.Fd())):
		return fmt.Errorf("stdout is %w", errNotOne)
	}
	return nil
}

// errNotOne words ErrNoTerminal for CheckTerminal's messages.
var errNotOne = notOne{}

type notOne struct{}

func (notOne) Error() string        { return "not one" }
func (notOne) Is(target error) bool { return target == ErrNoTerminal }
