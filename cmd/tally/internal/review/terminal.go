package review

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/term"
)

// ErrNoTerminal is returned (wrapped) by RunTerminal when its input or
// output is not a terminal.
var ErrNoTerminal = errors.New("not a terminal")

// ErrInterrupted is returned (wrapped, naming the signal) by RunTerminal
// when a signal (SIGINT, SIGTERM, SIGHUP) stopped the review. Every
// decision made before it is saved.
var ErrInterrupted = errors.New("review interrupted")

// The terminal's alternate screen (xterm ctlseqs, "Alternate Screen
// Buffer", CSI ? 1049 h and l): the review draws there and the shell's
// screen comes back as it was when it ends.
const (
	altScreenOn  = "\x1b[?1049h"
	altScreenOff = "\x1b[?1049l"
)

// RunTerminal runs r on a terminal: in is put in raw mode (each key press
// arrives at once, nothing is echoed) for the review and restored
// afterwards, the review draws on the terminal's alternate screen (left
// again at the end, so the shell's screen comes back as it was), and
// r.Width is taken from the terminal. Output goes to out.
//
// Bracketed paste mode is on for the review (xterm ctlseqs, "Bracketed
// Paste Mode": CSI ? 2004 h, then pasted text comes wrapped in
// ESC [ 200 ~ … ESC [ 201 ~), so that a paste is read as text, never as
// keys (see Review). The terminal is given back as it was — bracketed
// paste off (CSI ? 2004 l), the main screen, the terminal's own mode —
// however the review ends: a quit, the end of the input, an error, a
// panic, or a signal (SIGINT, SIGTERM, SIGHUP; Ctrl-C in raw mode is a
// key, and quits). On a signal the terminal is restored at once and the
// review stops: RunTerminal returns what was decided so far and an error
// wrapping ErrInterrupted. SIGQUIT restores the terminal and then has its
// default action (every goroutine's stack, exit 2), decisions made
// before it being saved as they were made.
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
	scr := &terminalWriter{w: out}
	var once sync.Once
	restore := func() {
		once.Do(func() {
			scr.end(pasteOff + altScreenOff)
			_ = term.Restore(fd, state)
		})
	}
	defer restore()

	stop := make(chan struct{})
	done := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	var caught os.Signal // written before stop is closed
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		select {
		case s := <-sigs:
			restore()
			if s == syscall.SIGQUIT {
				requit()
				return
			}
			caught = s
			close(stop)
		case <-done:
		}
	}()
	defer signal.Stop(sigs)
	defer close(done)

	if w, _, err := term.GetSize(int(out.Fd())); err == nil && w > 0 {
		r.Width = w
	}
	r.Clear = true
	r.wait = waiter(fd, stop)
	r.shown = func() error {
		if err := discardInput(fd); err != nil {
			return fmt.Errorf("discarding keys typed before the review: %w", err)
		}
		return nil
	}
	if _, err := io.WriteString(scr, altScreenOn+pasteOn); err != nil {
		return Outcome{}, fmt.Errorf("writing to the terminal: %w", err)
	}
	o, err := r.Run(in, scr)
	if errors.Is(err, errStopped) {
		return o, fmt.Errorf("%w (%v): every decision made before it is saved", ErrInterrupted, caught)
	}
	return o, err
}

// requit gives SIGQUIT its default action again and sends it to this
// process, once the terminal is restored: the Go runtime prints every
// goroutine's stack and exits 2, as it would have without the review,
// and the shell is left usable (a new user's trial found it raw).
func requit() {
	signal.Reset(syscall.SIGQUIT)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(syscall.SIGQUIT)
	}
}

// terminalWriter is the review's output. Once ended (the terminal
// restored, perhaps by a signal while a page was being drawn), what the
// review still writes is dropped rather than drawn over the shell's
// screen.
type terminalWriter struct {
	mu    sync.Mutex
	w     io.Writer
	ended bool
}

// Write writes p, or drops it once t has ended.
func (t *terminalWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return len(p), nil
	}
	return t.w.Write(p)
}

// end writes s, the last output, and ends t.
func (t *terminalWriter) end(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		_, _ = io.WriteString(t.w, s)
		t.ended = true
	}
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
