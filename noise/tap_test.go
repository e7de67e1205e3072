package noise

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tally-eval/tally/internal/input"
)

// checkTap reads text through a lineTap with input.Lines (the line rules
// of fixture.RecordReader), releasing each line as the record reader's
// caller does, and checks that every non-blank line is at hand, byte for
// byte, right after it is read, and that the tap holds no more than the
// line, the reader's buffer and one cut line.
func checkTap(t *testing.T, text string, r io.Reader) {
	t.Helper()
	tap := newLineTap(r)
	lr := input.NewLines(tap, "f", 0)
	for {
		got, err := lr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n := lr.Line()
		tap.release(n)
		if len(bytes.TrimSpace(got)) > 0 && len(got) < keepLine {
			kept, ok := tap.text(n)
			if !ok || string(bytes.TrimSuffix(kept, []byte("\r"))) != string(got) {
				t.Fatalf("line %d: tap has %q (%v), the reader read %q", n, kept, ok, got)
			}
		}
		if held := len(tap.data); held > 2*(len(got)+64<<10+keepLine) {
			t.Fatalf("line %d: the tap holds %d bytes", n, held)
		}
	}
}

func TestLineTap(t *testing.T) {
	for _, text := range []string{
		"",
		"a",
		"a\n",
		"a\nb\n\n  \n\t\nc",
		"a\r\nb\r\n",
		"\n\n\nx\n",
		strings.Repeat("0123456789\n", 50000), // many lines, past the reader's buffer
		"x\n" + strings.Repeat("y", 3*keepLine) + "\nz\n", // a cut line
		strings.Repeat(" ", 2*keepLine) + "\nq\n",         // a long blank line
	} {
		checkTap(t, text, strings.NewReader(text))
		checkTap(t, text, iotest.OneByteReader(strings.NewReader(text)))
	}
}

// TestColumnAfterBlankLines: the column of a problem on a record after
// blank lines and with spaces inside it, counted in characters.
func TestColumnAfterBlankLines(t *testing.T) {
	a := "\n\n" + line("s", "c", 1, "i", "constraint", "verbatim") +
		"\r\n" + `  { "system" : "s", "conversation_id":"c","compaction":1,"item_id":  "i","class":"constraint","verdict":"absent"}` + "\n"
	_, err := Compare(strings.NewReader(a), strings.NewReader(a), "a", "b", 0.95)
	// Line 4 is a lone "\r", blank. On line 5 two spaces and "{ " are 1–4,
	// `"system"` 5–12, " : " 13–15, `"s",` 16–19, a space 20,
	// `"conversation_id":` 21–38, `"c",` 39–42, `"compaction":1,` 43–57,
	// `"item_id":` 58–67, two spaces 68–69: the value is at 70.
	want := `a:5:70: item_id: item "i" of "c" at compaction 1 already has a verdict in this file (line 3): a file holds one record per item and compaction`
	if got := errLines(err); len(got) < 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestColumnOfCutLine: a record longer than keepLine is reported at
// column 1, its line still right.
func TestColumnOfCutLine(t *testing.T) {
	ok := line("s", "c", 1, "i", "constraint", "verbatim")
	long := strings.Replace(ok, `}`, `,"answer":"`+strings.Repeat("x", keepLine)+`"}`, 1)
	_, err := Compare(strings.NewReader(ok+long), strings.NewReader(ok), "a", "b", 0.95)
	if got := errLines(err); len(got) != 1 || !strings.HasPrefix(got[0], "a:2:1: item_id: ") {
		t.Errorf("got %q", got)
	}
}

func FuzzLineTap(f *testing.F) {
	f.Add("a\nb\r\n\n c \n", 3)
	f.Add("\n\n", 1)
	f.Add(strings.Repeat("ab\n", 1000), 7)
	f.Fuzz(func(t *testing.T, text string, chunk int) {
		if chunk < 1 || chunk > 1<<16 {
			chunk = 1
		}
		checkTap(t, text, &chunked{s: text, n: chunk})
	})
}

// chunked reads s at most n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
