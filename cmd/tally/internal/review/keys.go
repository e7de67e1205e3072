package review

import (
	"bufio"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// key is one key press: a printable rune, or one of the special keys.
type key struct {
	r       rune
	special special
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
	keyOther // a control key or escape sequence with no meaning here
)

// readKey reads one key press from br. A terminal in raw mode sends
// Enter as "\r" (a pipe as "\n"), Backspace as 0x7f or 0x08, and arrow
// keys as escape sequences that arrive together ("\x1b[D"); an Escape
// with nothing buffered after it is the Escape key itself.
func readKey(br *bufio.Reader) (key, error) {
	b, err := br.ReadByte()
	if err != nil {
		return key{}, err
	}
	switch b {
	case '\r', '\n':
		return key{special: keyEnter}, nil
	case 0x7f, 0x08:
		return key{special: keyBackspace}, nil
	case 0x03:
		return key{special: keyCtrlC}, nil
	case 0x04:
		return key{special: keyCtrlD}, nil
	case 0x15:
		return key{special: keyCtrlU}, nil
	case 0x17:
		return key{special: keyCtrlW}, nil
	case '\t':
		return key{r: ' '}, nil
	case 0x1b:
		if br.Buffered() == 0 {
			return key{special: keyEsc}, nil
		}
		next, _ := br.ReadByte()
		if next != '[' && next != 'O' {
			_ = br.UnreadByte()
			return key{special: keyEsc}, nil
		}
		// A CSI or SS3 sequence: parameters, then a final byte @..~.
		for br.Buffered() > 0 {
			c, _ := br.ReadByte()
			if c < 0x40 || c > 0x7e {
				continue
			}
			switch c {
			case 'D':
				return key{special: keyLeft}, nil
			case 'C':
				return key{special: keyRight}, nil
			}
			return key{special: keyOther}, nil
		}
		return key{special: keyOther}, nil
	}
	if b < 0x20 {
		return key{special: keyOther}, nil
	}
	if b < utf8.RuneSelf {
		return key{r: rune(b)}, nil
	}
	_ = br.UnreadByte()
	r, _, err := br.ReadRune()
	if err != nil {
		return key{}, err
	}
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return key{special: keyOther}, nil
	}
	return key{r: r}, nil
}

// lineEditor edits one line of text in place on a terminal in raw mode:
// typed characters are inserted at the end, Backspace deletes one, Ctrl-W
// a word, Ctrl-U the whole line; Enter accepts, Escape or Ctrl-C cancels.
// It redraws the prompt and text after a deletion, moving up over the
// rows a long line wrapped onto.
type lineEditor struct {
	prompt string
	buf    []rune
	width  int // terminal columns
	shown  int // columns drawn: prompt and text
	out    *screen
}

// edit runs the editor; ok is false when the edit was cancelled.
func (e *lineEditor) edit(br *bufio.Reader) (text string, ok bool, err error) {
	e.draw(false)
	for {
		k, err := readKey(br)
		if err != nil {
			return "", false, err
		}
		switch {
		case k.special == keyEnter:
			e.out.raw("\r\n")
			return string(e.buf), true, nil
		case k.special == keyEsc || k.special == keyCtrlC || k.special == keyCtrlD:
			e.out.raw("\r\n")
			return "", false, nil
		case k.special == keyBackspace:
			if len(e.buf) > 0 {
				e.buf = e.buf[:len(e.buf)-1]
				e.draw(true)
			}
		case k.special == keyCtrlU:
			e.buf = e.buf[:0]
			e.draw(true)
		case k.special == keyCtrlW:
			s := strings.TrimRight(string(e.buf), " ")
			if i := strings.LastIndexByte(s, ' '); i >= 0 {
				s = s[:i+1]
			} else {
				s = ""
			}
			e.buf = []rune(s)
			e.draw(true)
		case k.special == none:
			e.buf = append(e.buf, k.r)
			e.out.raw(string(k.r))
			e.shown++
		}
	}
}

// draw writes the prompt and the text; over the previous drawing when
// redraw is set.
func (e *lineEditor) draw(redraw bool) {
	if redraw {
		e.out.raw("\r")
		if rows := (e.shown - 1) / max(e.width, 1); rows > 0 && e.shown > 0 {
			e.out.raw("\x1b[" + strconv.Itoa(rows) + "A")
		}
		e.out.raw("\x1b[J")
	}
	text := string(e.buf)
	e.out.raw(e.prompt + text)
	e.shown = utf8.RuneCountInString(e.prompt) + len(e.buf)
}
