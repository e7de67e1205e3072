package review

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// lineEditor edits one line of text in place on a terminal in raw mode:
// typed characters are inserted at the end, Backspace deletes one, Ctrl-W
// a word, Ctrl-U the whole line; Enter accepts, Escape or Ctrl-C cancels.
// It redraws the prompt and text after a deletion, moving up over the
// rows a long line wrapped onto.
//
// Pasted text is inserted as text: a bracketed paste through pasteText
// (each line break a space, a field being one line). Where the terminal
// does not bracket a paste, its line breaks arrive as Enter keys, in one
// read with the text around them: an Enter with more input right after
// it — in the same read, or (on a terminal, after a burst) in a read
// within burstGap — is a line break inside a paste and becomes a space;
// only an Enter that ends what has come ends the edit (a typed Enter
// arrives alone). So a multi-line paste ends up whole on the line, and
// none of it is left to be read as a command.
type lineEditor struct {
	prompt string
	buf    []rune
	width  int // terminal columns
	shown  int // columns drawn: prompt and text
	out    *screen
	cut    bool // a paste was longer than maxPaste and was cut
}

// edit runs the editor; ok is false when the edit was cancelled.
func (e *lineEditor) edit(kr *keyReader) (text string, ok bool, err error) {
	e.draw(false)
	for {
		k, err := kr.next()
		if err != nil {
			return "", false, err
		}
		switch {
		case k.special == keyPaste:
			e.insert(pasteText(k.paste))
			e.cut = e.cut || k.cut
		case k.special == keyEnter && kr.followed():
			e.insert(" ") // a line break inside a paste
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
			e.insert(string(k.r))
		}
	}
}

// insert appends text (printable: a key's rune or pasteText's output)
// and shows it.
func (e *lineEditor) insert(text string) {
	e.buf = append(e.buf, []rune(text)...)
	e.out.raw(text)
	e.shown += utf8.RuneCountInString(text)
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
