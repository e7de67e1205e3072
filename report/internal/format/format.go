// Package format holds the small text formats that the report's model
// (its rule and replay sentences) and its renderers share: percentage
// points, a confidence level, a p-value, a plural. It knows nothing of
// the report; it formats numbers and words.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// SignedPoints formats a difference of rates as signed percentage
// points with one decimal, with a true minus sign.
func SignedPoints(d float64) string {
	s := fmt.Sprintf("%+.1f", 100*d)
	if s == "-0.0" || s == "+0.0" {
		return "0.0"
	}
	return strings.Replace(s, "-", "−", 1)
}

// Points formats a fraction as percentage points with one
// decimal, without a sign.
func Points(d float64) string { return fmt.Sprintf("%.1f", 100*d) }

// Confidence formats a confidence level such as 0.95 as "95%".
func Confidence(c float64) string { return fmt.Sprintf("%.4g%%", 100*c) }

// P formats a p-value: three significant decimals, "< 0.0001"
// below that.
func P(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 0.0001:
		return "< 0.0001"
	case p < 0.001:
		return fmt.Sprintf("%.4f", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// PIs is "p = 0.054", or "p < 0.0001" below that: a p-value after
// its name, never "p = < 0.0001".
func PIs(p float64) string {
	v := P(p)
	if strings.HasPrefix(v, "<") {
		return "p " + v
	}
	return "p = " + v
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Hidden reports whether r changes how text reads without showing
// itself: a format character (Unicode category Cf) — a bidirectional
// control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069),
// which can make text read differently from what it is ("evil\u202E"
// shown as "live"), a zero-width one (U+200B, U+2060, U+FEFF), a soft
// hyphen (U+00AD), a tag character (U+E0001, U+E0020 to U+E007F: text
// smuggled past a reader) — or a Hangul filler (U+115F, U+1160, U+3164,
// U+FFA0), a letter drawn as blank space; each makes two texts that
// differ look the same. Not the joiners U+200C and U+200D: emoji
// sequences and Persian or Indic text need them. Every rendering shows
// such a character as its escape (Escape), so the HTML, the workbook
// and the Markdown agree.
func Hidden(r rune) bool {
	switch r {
	case 0x200c, 0x200d:
		return false
	case 0x115f, 0x1160, 0x3164, 0xffa0:
		return true
	}
	return r >= 0xad && unicode.Is(unicode.Cf, r)
}

// Invisible reports whether a rendering shows r as its escape (Escape)
// rather than as itself: a control character (C0, DEL, C1) or a Hidden
// one. A newline is one too; each rendering says what it does with it.
func Invisible(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || Hidden(r)
}

// Escape is the visible text of a character a rendering must not let
// through as it is: \t and \r, \xHH for another control character (C0,
// DEL, C1), \uHHHH for a Hidden one (\UHHHHHHHH beyond U+FFFF).
func Escape(r rune) string {
	switch {
	case r == '\t':
		return `\t`
	case r == '\r':
		return `\r`
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return fmt.Sprintf(`\x%02X`, r)
	case r > 0xffff:
		return fmt.Sprintf(`\U%08X`, r)
	}
	return fmt.Sprintf(`\u%04X`, r)
}

// Visible shows in s, as their escapes (Escape), the characters
// the HTML report shows so: control characters other than newline, tab
// and CR, which a cell holds as they are (XML 1.0 cannot hold the
// others, which had read back as U+FFFD), and the bidirectional and
// zero-width ones (Hidden), so a cell cannot read "+SUM(1,2)
// live" where the HTML shows the override that made it (a
// stakeholder's trial). The workbook's cells and the replay's queue.csv
// are written so.
func Visible(s string) string {
	i := strings.IndexFunc(s, visibleEscapes)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if visibleEscapes(r) {
			b.WriteString(Escape(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// visibleEscapes is whether Visible escapes r.
func visibleEscapes(r rune) bool {
	return r != '\n' && r != '\t' && r != '\r' && Invisible(r)
}

// Cut is the byte index at which to cut s to keep at most max runes
// without splitting a character as a reader sees it (a grapheme cluster,
// Unicode Standard Annex #29: a letter and its combining accents, a flag's
// two regional indicators, an emoji with its skin tone or joined parts):
// len(s) when s has at most max runes, else the end of the last whole
// cluster within the first max runes (0 when even the first is longer).
func Cut(s string, max int) int {
	if max < 0 || utf8.RuneCountInString(s) <= max {
		return len(s)
	}
	end, runes, state := 0, 0, -1
	for rest := s; rest != ""; {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		runes += utf8.RuneCountInString(cluster)
		if runes > max {
			break
		}
		end += len(cluster)
	}
	return end
}

// Percent formats a share as a percentage number without the sign, with
// one decimal, or with as many more (up to four) as it takes not to show
// a share below 1 as 100.0 or one above 0 as 0.0: 32999 of 33000 is
// "99.997", not "100.0", so that a row marked worse does not read 100.0%
// against 100.0%. Past four more, it is ">99.9999" or "<0.0001".
func Percent(x float64) string {
	v := 100 * x
	for d := 1; d < 5; d++ {
		scale := math.Pow10(d)
		r := math.Round(v*scale) / scale
		if (x >= 1 || r < 100) && (x <= 0 || r > 0) {
			return strconv.FormatFloat(v, 'f', d, 64)
		}
	}
	if x > 0.5 {
		return ">99.9999"
	}
	return "<0.0001"
}

// Threshold formats a gate's share as a percentage number without the
// sign, as it was written: 0.95 is "95", 0.99999 is "99.999" (not
// 99.99900000000001, the float's own digits), rounded to a millionth of
// a point.
func Threshold(x float64) string {
	return strconv.FormatFloat(math.Round(100*x*1e6)/1e6, 'f', -1, 64)
}

// Boundary is the largest index at most end at which s may be cut
// without splitting a character as a reader sees it (a grapheme cluster,
// UAX #29), as Cut is for a count of runes.
func Boundary(s string, end int) int {
	if end >= len(s) {
		return len(s)
	}
	at, state := 0, -1
	for rest := s; rest != ""; {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if at+len(cluster) > end {
			break
		}
		at += len(cluster)
	}
	return at
}
