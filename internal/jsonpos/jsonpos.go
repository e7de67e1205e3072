// Package jsonpos turns the byte offsets of encoding/json's errors into the
// positions a person can find: the character a syntax error is about.
package jsonpos

import (
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// SyntaxOffset is the byte offset in data of the character se is about.
// encoding/json's Offset is on that character, or one before or after it,
// depending on which of its paths found the error; the character the
// message names settles it.
func SyntaxOffset(data []byte, se *json.SyntaxError) int {
	off := min(max(int(se.Offset), 0), len(data))
	if m := quotedChar.FindStringSubmatch(se.Error()); m != nil {
		if s, err := strconv.Unquote("'" + m[1] + "'"); err == nil {
			r := []rune(s)[0]
			at := func(i int) bool {
				got, _ := utf8.DecodeRune(data[min(max(i, 0), len(data)):])
				return i >= 0 && i < len(data) && got == r
			}
			j := off
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\r' || data[j] == '\n') {
				j++
			}
			switch {
			case at(j):
				return j
			case at(off - 1):
				return off - 1
			case at(off + 1):
				return off + 1
			}
		}
	}
	return max(off-1, 0)
}

var quotedChar = regexp.MustCompile(`^(?:json: )?invalid character '((?:[^'\\]|\\.)+)'`)
