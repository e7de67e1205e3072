package selection

import (
	"io"
	"strings"
	"testing"
)

// TestLineReaderLimit: a line of exactly the limit is read, one byte
// more is too long, whether the line is found whole in the bufio buffer
// (the path that does not copy) or is longer than the buffer, with "\n"
// or "\r\n".
func TestLineReaderLimit(t *testing.T) {
	big := 300 << 10 // longer than the 256 KiB buffer
	at, over := strings.Repeat("y", big), strings.Repeat("y", big+1)
	for _, tc := range []struct {
		name, in string
		max      int64
		want     []string // "!" for a line too long
	}{
		{"at the limit", "12345\n123456\nab\n", 5, []string{"12345", "!", "ab"}},
		{"crlf", "12345\r\n123456\r\n", 5, []string{"12345", "!"}},
		{"last line without newline", "ab\n123456", 5, []string{"ab", "!"}},
		{"last line at the limit", "ab\n12345", 5, []string{"ab", "12345"}},
		{"longer than the buffer", at + "\r\n" + over + "\n" + at, int64(big), []string{at, "!", at}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tc.in), tc.max)
			var got []string
			for {
				line, _, err := lr.next()
				if err == io.EOF {
					break
				}
				switch {
				case err == errLineTooLong:
					got = append(got, "!")
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, string(line))
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %d lines %.40q, want %.40q", len(got), got, tc.want)
			}
		})
	}
}
