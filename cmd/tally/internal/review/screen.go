package review

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// screen writes to the terminal, remembering the first write error (the
// review stops on it).
type screen struct {
	w   io.Writer
	err error
}

// raw writes s as it is: s holds only text made safe by Printable and the
// program's own control sequences.
func (s *screen) raw(text string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, text)
	}
}

// line writes s and a line break. The break is "\r\n" because a terminal
// in raw mode does not turn "\n" into one.
func (s *screen) line(text string) { s.raw(text + "\r\n") }

// wrapped writes text (already Printable) wrapped to width columns.
func (s *screen) wrapped(text string, width int) {
	for _, l := range wrap(text, width) {
		s.line(l)
	}
}

// Printable makes untrusted text safe to write to a terminal: a line
// break becomes " ⏎ ", a tab a space, and every other control character —
// the escape that starts a terminal control sequence among them — and
// every bidirectional formatting character (which can reorder what a
// person reads) becomes U+FFFD, as does invalid UTF-8.
func Printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\n':
			b.WriteString(" ⏎ ")
		case r == '\r':
			if !strings.HasPrefix(s[i+1:], "\n") {
				b.WriteString(" ⏎ ")
			}
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || bidi(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// bidi reports the bidirectional embedding, override and isolate
// characters (U+202A–U+202E, U+2066–U+2069) and the marks U+200E,
// U+200F and U+061C.
func bidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// wrap breaks text into lines of at most width characters, at spaces
// where it can; a word longer than width is cut.
func wrap(text string, width int) []string {
	width = max(width, 10)
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(text) {
		w := []rune(word)
		for len(w) > width {
			if len(cur) > 0 {
				lines = append(lines, string(cur))
				cur = nil
			}
			lines = append(lines, string(w[:width]))
			w = w[width:]
		}
		switch {
		case len(cur) == 0:
			cur = w
		case len(cur)+1+len(w) <= width:
			cur = append(append(cur, ' '), w...)
		default:
			lines = append(lines, string(cur))
			cur = w
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
