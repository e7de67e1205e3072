package review

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// key is one input event: a printable rune, one of the special keys, or
// a bracketed paste.
type key struct {
	r       rune
	special special
	// paste is the text of a bracketed paste (special keyPaste) as the
	// terminal sent it, at most maxPaste bytes of it; cut is set when
	// more was sent and dropped.
	paste string
	cut   bool
	// burst is set when the key did not arrive alone: its read brought
	// other keys too, or it continues such a read (see keyReader). A
	// person typing sends one key per read; a terminal pasting without
	// bracketed paste sends the text at once.
	burst bool
}

type special int

const (
	none special = iota
	keyEnter
	keyEsc
	keyBackspace
	keyCtrlC
	keyCtrlD
	keyCtrlU
	keyCtrlW
	keyLeft
	keyRight
	keyPaste // a bracketed paste: key.paste holds the text
	keyOther // a control key or escape sequence with no meaning here
)

// Bracketed paste mode, from xterm's "Control Sequences" (ctlseqs),
// section "Bracketed Paste Mode": after CSI ? 2004 h the terminal sends
// pasted text wrapped in ESC [ 200 ~ … ESC [ 201 ~, so a program can
// tell it from typed keys; CSI ? 2004 l turns it off. A terminal that
// does not know the mode ignores both.
const (
	pasteOn    = "\x1b[?2004h"
	pasteOff   = "\x1b[?2004l"
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Limits and timings of the key reader. They matter only with a wait
// function (a terminal); a plain io.Reader is read as it comes.
const (
	// maxPaste bounds the text kept from one bracketed paste: a probe or
	// an expected answer is a sentence or two, and 16 KiB is some two
	// hundred lines of text. The reader goes on reading (and dropping)
	// past it up to the end marker, so the rest of a long paste is never
	// taken for keys; the key is marked cut and the review says so.
	maxPaste = 16 << 10
	// escWait is how long an Escape at the end of a read waits for the
	// rest of an escape sequence that may have been split across reads
	// (a slow link, a long paste): vim's defaults.vim ttimeoutlen. An
	// Escape with nothing after it in that time is the Escape key.
	escWait = 100 * time.Millisecond
	// seqWait is how long the rest of a sequence already begun (CSI or
	// SS3 after ESC [ or ESC O, a UTF-8 character, a bracketed paste
	// between its markers) may take to arrive; past it, what arrived is
	// taken as it is, so a terminal that never sends a paste's end
	// marker cannot make the review stop answering.
	seqWait = time.Second
	// burstGap: a read that comes within this time after a read that
	// was a burst continues it (a paste longer than one read arrives as
	// reads in quick succession; a person's next key comes after the
	// screen has changed, a few hundred milliseconds later).
	burstGap = 50 * time.Millisecond
	// maxSeq bounds the parameter and intermediate bytes of a CSI or SS3
	// sequence; a longer one is not a key and is dropped.
	maxSeq = 32
)

// errStopped is returned by a wait function once the review is stopped
// (by a signal: see RunTerminal).
var errStopped = errors.New("review stopped")

// keyReader reads input events from a terminal in raw mode. A terminal
// sends Enter as "\r" (a pipe as "\n"), Backspace as 0x7f or 0x08, arrow
// keys as escape sequences ("\x1b[D"), and with bracketed paste on a
// paste as one sequence (pasteStart, the text, pasteEnd); any of them
// may be split across reads, and the reader puts them back together.
//
// It reads in, one Read at a time, and remembers where each read began,
// to mark the keys that did not arrive alone (key.burst). With wait set
// (a terminal), it can also tell whether more input is coming: an Escape
// ending a read waits escWait for the rest of a sequence before it is
// the Escape key, and reads that follow a burst within burstGap are part
// of it.
type keyReader struct {
	in io.Reader
	// wait reports whether input can be read without blocking, waiting
	// up to d for it; with d < 0 it waits as long as it takes. An error
	// (errStopped) ends the reading. nil: in is never waited on, only
	// read.
	wait  func(d time.Duration) (bool, error)
	buf   []byte // read and not yet parsed
	chunk [4096]byte
	err   error // the error that ended reading, returned once buf is used up
	fresh bool  // buf begins where a read began: none of its keys parsed yet
	// inBurst: the last key was a burst (or a paste), so a read that
	// follows within burstGap continues it; contd: the read being
	// parsed does.
	inBurst, contd bool
}

// next returns the next input event.
func (kr *keyReader) next() (key, error) {
	if len(kr.buf) == 0 {
		kr.contd = kr.inBurst && kr.wait != nil && kr.more(burstGap)
		if !kr.contd && !kr.more(-1) {
			if kr.err == nil {
				kr.err = io.ErrNoProgress
			}
			return key{}, kr.err
		}
	}
	start := kr.fresh
	kr.fresh = false
	k := kr.parse()
	k.burst = kr.contd || !start || len(kr.buf) > 0
	kr.inBurst = k.burst || k.special == keyPaste
	return k, nil
}

// drain reads and drops the keys left from the current read, counting
// them: what remains of a burst.
func (kr *keyReader) drain() (int, error) {
	n := 0
	for len(kr.buf) > 0 {
		if _, err := kr.next(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// followed reports whether more input comes right after the last key:
// bytes left from its read or, on a terminal and after a burst, a read
// within burstGap, which then continues the burst. When none comes in
// that time the burst is over, and the next read begins afresh.
func (kr *keyReader) followed() bool {
	if len(kr.buf) > 0 {
		return true
	}
	if kr.inBurst && kr.wait != nil {
		kr.contd = kr.more(burstGap)
		kr.inBurst = kr.contd
	}
	return kr.contd && len(kr.buf) > 0
}

// more reads more input into buf if some arrives within d, or with
// d < 0 whenever it does (with a wait function; without one it reads,
// blocking), and reports whether it did; when it did not, kr.err says
// why, or nothing did arrive in time.
func (kr *keyReader) more(d time.Duration) bool {
	if kr.err != nil {
		return false
	}
	if kr.wait != nil {
		ok, err := kr.wait(d)
		if err != nil {
			kr.err = err
			return false
		}
		if !ok {
			return false
		}
	}
	for range 100 { // as bufio.Reader does with reads of nothing
		n, err := kr.in.Read(kr.chunk[:])
		if n > 0 {
			if len(kr.buf) == 0 {
				kr.fresh = true
			}
			kr.buf = append(kr.buf, kr.chunk[:n]...)
		}
		if err != nil {
			kr.err = err
		}
		if n > 0 || err != nil {
			return n > 0
		}
	}
	kr.err = io.ErrNoProgress
	return false
}

// skip drops n parsed bytes.
func (kr *keyReader) skip(n int) { kr.buf = kr.buf[n:] }

// controlKeys are the one-byte control keys with a meaning.
var controlKeys = map[byte]special{'\n': keyEnter, 0x7f: keyBackspace, 0x08: keyBackspace,
	0x03: keyCtrlC, 0x04: keyCtrlD, 0x15: keyCtrlU, 0x17: keyCtrlW}

// parse takes one event from buf, which is not empty.
func (kr *keyReader) parse() key {
	b := kr.buf[0]
	switch {
	case b == '\r':
		// "\r\n" in one read is one line break (a paste from a system
		// that ends lines so); a terminal sends a typed Enter as "\r".
		if len(kr.buf) > 1 && kr.buf[1] == '\n' {
			kr.skip(2)
		} else {
			kr.skip(1)
		}
		return key{special: keyEnter}
	case controlKeys[b] != none:
		kr.skip(1)
		return key{special: controlKeys[b]}
	case b == '\t':
		kr.skip(1)
		return key{r: ' '}
	case b == 0x1b:
		return kr.escape()
	case b < 0x20:
		kr.skip(1)
		return key{special: keyOther}
	case b < utf8.RuneSelf:
		kr.skip(1)
		return key{r: rune(b)}
	}
	for !utf8.FullRune(kr.buf) && kr.more(seqWait) {
	}
	r, n := utf8.DecodeRune(kr.buf)
	kr.skip(n)
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return key{special: keyOther}
	}
	return key{r: r}
}

// escape parses what begins with ESC in buf: a CSI (ESC [) or SS3
// (ESC O) sequence — parameter and intermediate bytes, then a final byte
// @ to ~ — a bracketed paste, or the Escape key. ESC followed by another
// byte, or by nothing (within escWait on a terminal), is the Escape key,
// and the byte after it is a key of its own.
func (kr *keyReader) escape() key {
	if len(kr.buf) == 1 && (kr.wait == nil || !kr.more(escWait)) {
		kr.skip(1)
		return key{special: keyEsc}
	}
	if kr.buf[1] != '[' && kr.buf[1] != 'O' {
		kr.skip(1)
		return key{special: keyEsc}
	}
	for i := 2; ; i++ {
		for i >= len(kr.buf) {
			if !kr.more(seqWait) { // cut off: drop what came
				kr.skip(len(kr.buf))
				return key{special: keyOther}
			}
		}
		c := kr.buf[i]
		switch {
		case c >= 0x40 && c <= 0x7e:
			seq := string(kr.buf[:i+1])
			kr.skip(i + 1)
			switch {
			case seq == pasteStart:
				return kr.paste()
			case c == 'D':
				return key{special: keyLeft}
			case c == 'C':
				return key{special: keyRight}
			}
			return key{special: keyOther}
		case c < 0x20 || c > 0x7e || i-2 >= maxSeq:
			// Not a sequence after all: drop it up to here, and read
			// the byte that broke it as a key of its own.
			kr.skip(i)
			return key{special: keyOther}
		}
	}
}

// paste reads a bracketed paste's text, its start marker already read,
// up to and without the end marker. It keeps maxPaste bytes and drops
// the rest (a character cut in two there is dropped by pasteText); a paste whose end marker
// does not come (within seqWait on a terminal, or before the input ends)
// ends with what came.
func (kr *keyReader) paste() key {
	var text []byte
	cut := false
	keep := func(b []byte) {
		if room := maxPaste - len(text); len(b) > room {
			b, cut = b[:max(room, 0)], true
		}
		text = append(text, b...)
	}
	for {
		if i := bytes.Index(kr.buf, []byte(pasteEnd)); i >= 0 {
			keep(kr.buf[:i])
			kr.skip(i + len(pasteEnd))
			break
		}
		// Keep all but what may be the start of a split end marker.
		if n := len(kr.buf) - (len(pasteEnd) - 1); n > 0 {
			keep(kr.buf[:n])
			kr.skip(n)
		}
		if !kr.more(seqWait) {
			keep(kr.buf)
			kr.skip(len(kr.buf))
			break
		}
	}
	return key{special: keyPaste, paste: string(text), cut: cut}
}

// pasteText makes a paste one line of text for a field: each line break
// (CR, LF, CRLF, NEL, U+2028, U+2029) becomes one space, as do a tab
// and the other space characters (Unicode Zs, such as a no-break space);
// other control characters, format characters (the bidirectional ones
// among them) and invalid UTF-8 are dropped, as they are when typed.
func pasteText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r':
			if strings.HasPrefix(s[i+n:], "\n") {
				n++
			}
			b.WriteByte(' ')
		case r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029 || r == '\t' || unicode.Is(unicode.Zs, r):
			b.WriteByte(' ')
		case r == utf8.RuneError || !unicode.IsPrint(r):
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}
