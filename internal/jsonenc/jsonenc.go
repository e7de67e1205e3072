// Package jsonenc writes JSON strings byte for byte as encoding/json does,
// for the hand-written encoders on tally's hot paths (verdict records,
// canonical tool-call arguments).
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaping exactly as
// encoding/json does with HTML escaping off: `"`, `\`, control
// characters, U+2028 and U+2029. s must be valid UTF-8.
func AppendString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9; any other
			// byte of a multi-byte character passes through.
			if c != 0xE2 || i+2 >= len(s) || s[i+1] != 0x80 || (s[i+2] != 0xA8 && s[i+2] != 0xA9) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, "89"[s[i+2]-0xA8])
			i += 3
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
