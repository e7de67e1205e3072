package jsonscan

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// check scans one whole text, returning the first error.
func check(data string) *Error {
	var s Scanner
	s.Reset([]byte(data))
	if err := s.SkipValue(); err != nil {
		return err
	}
	return s.End()
}

// TestAcceptsWhatEncodingJSONAccepts: the reference is encoding/json's
// json.Valid (RFC 8259), with invalid UTF-8 in strings rejected besides.
func TestAcceptsWhatEncodingJSONAccepts(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `-12.0E-1`, `true`, `false`, `null`,
		` {"a" : [1, {"b": null}, "x\u00e9\"\\\/\b\f\n\r\t"] } `,
		`"\ud83d\ude00"`, `"\ud800"`, `"é∑😀"`,
		`{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
		`tru`, `nul`, `"abc`, "\"a\tb\"", `"\x"`, `"\u12"`, `{"a":1}}`, `[`, ``, ` `,
		"\"\xff\"", "\"a\xc3\"", `[1]x`, `{"a":{"b":[}}`,
		`"\ud800\u000"`, `"\ud800\u12"`, // a bad low half after a lone high one
	} {
		want := json.Valid([]byte(in)) && utf8.ValidString(in)
		if got := check(in) == nil; got != want {
			t.Errorf("%q: accepted %v, encoding/json %v (%v)", in, got, want, check(in))
		}
	}
}

// TestErrors pins each message and its offset, counted by hand.
func TestErrors(t *testing.T) {
	tests := []struct {
		in   string
		off  int
		msg  string
		file bool // scanned as a document
	}{
		{`{"a":1,}`, 6, "trailing comma before '}', which JSON does not allow", false},
		{`[1 2]`, 3, "invalid character '2' after array element (want ',' or ']')", false},
		{`{"a" 1}`, 5, "invalid character '1' after object key (want ':')", false},
		{`{"a":1`, 6, "unexpected end of line: the JSON value is not complete", false},
		{`{"a":1`, 6, "unexpected end of file: the JSON value is not complete", true},
		{`"abc`, 0, "unterminated string: the line ends before its closing quote", false},
		{"[\"é\xff\"]", 4, "invalid UTF-8 (byte 0xff) in string literal", false},
		{`"\q"`, 2, "invalid character 'q' in string escape code", false},
		{`[tru]`, 4, "invalid character ']' in literal true (expecting 'e')", false},
		{`{"a":1} x`, 8, "invalid character 'x' after top-level value", false},
		{`1.x`, 2, "invalid character 'x' after decimal point in numeric literal", false},
	}
	for _, tt := range tests {
		var s Scanner
		if tt.file {
			s.ResetDocument([]byte(tt.in))
		} else {
			s.Reset([]byte(tt.in))
		}
		err := s.SkipValue()
		if err == nil {
			err = s.End()
		}
		if err == nil || err.Off != tt.off || err.Msg != tt.msg {
			t.Errorf("%q: got %+v, want offset %d %q", tt.in, err, tt.off, tt.msg)
		}
	}
}

// TestTypedReads: each reader names the field and what it wanted.
func TestTypedReads(t *testing.T) {
	var s Scanner
	read := func(in string, f func() *Error) string {
		s.Reset([]byte(in))
		if err := f(); err != nil {
			return err.Error()
		}
		return ""
	}
	tests := []struct {
		in   string
		f    func() *Error
		want string
	}{
		{`"x"`, func() *Error { _, e := s.Integer("n", 0, 9); return e }, `n: want a whole number, got a string`},
		{`10`, func() *Error { _, e := s.Integer("n", 0, 9); return e }, `n: want a whole number from 0 to 9, got 10`},
		{`1.5`, func() *Error { _, e := s.Integer("n", 0, 9); return e }, `n: want a whole number, got 1.5`},
		{`[1]`, func() *Error { _, e := s.String("s"); return e }, `s: want a string, got an array`},
		{`null`, func() *Error { _, e := s.Bool("b"); return e }, `b: want true or false, got null`},
		{`{}`, func() *Error { return s.BeginArray("l", "a list") }, `l: want a list, got an object`},
		{`12`, func() *Error { return s.BeginObject("o", "an object") }, `o: want an object, got the number 12`},
		{`[1,{"a":}]`, func() *Error { _, e := s.String("s"); return e }, `invalid character '}' looking for beginning of value`},
	}
	for _, tt := range tests {
		if got := read(tt.in, tt.f); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStrings: decoded strings equal encoding/json's.
func TestStrings(t *testing.T) {
	for _, in := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"é and \n"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		var s Scanner
		s.Reset([]byte(in))
		got, err := s.String("")
		if err != nil || string(got) != want {
			t.Errorf("String(%s) = %q, %v; want %q", in, got, err, want)
		}
		s.Reset([]byte(in))
		raw, _, err := s.RawString("")
		if err != nil || string(AppendUnescaped(nil, raw)) != want {
			t.Errorf("AppendUnescaped(%s) = %q, %v; want %q", raw, AppendUnescaped(nil, raw), err, want)
		}
	}
}

// TestCanonical: key order, white space and string escaping do not
// matter; anything else does.
func TestCanonical(t *testing.T) {
	canon := func(in string) string {
		var s Scanner
		s.Reset([]byte(in))
		out, err := s.Canonical(nil)
		if err == nil {
			err = s.End()
		}
		if err != nil {
			t.Fatalf("Canonical(%s): %v", in, err)
		}
		return string(out)
	}
	if a, b := canon(`{ "b" : [1, {"y":2,"x":1}], "a":"\u0041"}`), `{"a":"A","b":[1,{"x":1,"y":2}]}`; a != b {
		t.Errorf("got %s, want %s", a, b)
	}
	if a, b := canon(`{"a":1.0}`), canon(`{"a":1}`); a == b {
		t.Errorf("1.0 and 1 canonicalise alike: %s", a)
	}
	// More members than the insertion sort handles.
	var sb strings.Builder
	sb.WriteString("{")
	for i := 20; i > 0; i-- {
		if i < 20 {
			sb.WriteString(",")
		}
		sb.WriteString(`"k` + string(rune('a'+i)) + `":` + string(rune('0'+i%10)))
	}
	sb.WriteString("}")
	out := canon(sb.String())
	if canon(out) != out || !json.Valid([]byte(out)) || !strings.HasPrefix(out, `{"kb":1,"kc":2`) {
		t.Errorf("sorted 20 members: %s", out)
	}
}

// TestPosition: lines end at "\n", columns count characters.
func TestPosition(t *testing.T) {
	data := []byte("{\r\n  \"é\": x}\n")
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {10, 2, 7}, {100, 3, 1},
	}
	for _, tt := range tests {
		if l, c := Position(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
	if c := Column([]byte(`"é€"x`), 6); c != 4 {
		t.Errorf("Column = %d, want 4", c)
	}
}

func TestDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if err := check(deep); err == nil || !strings.Contains(err.Msg, "nested more than") {
		t.Errorf("%d-deep array: %v", MaxDepth+1, err)
	}
	ok := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	if err := check(ok); err != nil {
		t.Errorf("%d-deep object: %v", MaxDepth, err)
	}
}

// naivePos is the definition Lines.Pos must meet: count lines up to off,
// then runes from the line's start.
func naivePos(data []byte, first, off int) (int, int) {
	off = min(max(off, 0), len(data))
	start := strings.LastIndexByte(string(data[:off]), "\n"[0]) + 1
	return first + strings.Count(string(data[:off]), "\n"), utf8.RuneCount(data[start:off]) + 1
}

// TestLinesPos compares Lines.Pos (and Position) with the naive count
// on long lines that mix ASCII, multi-byte characters and invalid UTF-8
// (each invalid byte is one column), at every offset near the index's
// marks.
func TestLinesPos(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "日本", "😀", "\xff", "\xe6\x97", "\n", " ", "\"x\":1,", "\x80\x80"}
	for trial := range 20 {
		var b strings.Builder
		n := 1 + rng.IntN(5*markStep)
		for b.Len() < n {
			p := pieces[rng.IntN(len(pieces))]
			if p == "\n" && rng.IntN(50) != 0 { // mostly long lines
				continue
			}
			b.WriteString(p)
		}
		data := []byte(b.String())
		l := NewLines(data, 3)
		offs := []int{0, len(data), -1, len(data) + 5}
		for range 300 {
			offs = append(offs, rng.IntN(len(data)+1))
		}
		sort.Ints(offs)
		for _, off := range offs {
			gl, gc := l.Pos(off)
			wl, wc := naivePos(data, 3, off)
			if gl != wl || gc != wc {
				t.Fatalf("trial %d: Pos(%d) = %d:%d, want %d:%d", trial, off, gl, gc, wl, wc)
			}
			if pl, pc := Position(data, off); pl != wl-2 || pc != wc {
				t.Fatalf("trial %d: Position(%d) = %d:%d, want %d:%d", trial, off, pl, pc, wl-2, wc)
			}
		}
	}
}

// TestStopEnd compares the eight-bytes-at-a-time scan with a byte
// loop at every offset of texts that put each kind of byte, and each
// pair of kinds (a borrow from one must not hide or fake another), at
// each place of a word.
func TestStopEnd(t *testing.T) {
	specials := []byte{'"', '\\', 0, 0x1f, 0x20, 0x7f, 0x80, 0xff, '!', '[', 'a', 0x21, 0x5b, 0x5d, 0xa2, 0xdc}
	for _, c := range specials {
		for _, c2 := range specials {
			for at := range 20 {
				for at2 := at; at2 < at+10 && at2 < 24; at2++ {
					data := []byte(strings.Repeat("abcdefgh", 3))
					data[at2] = c2
					data[at] = c
					for i := range data {
						want, wantHigh := i, false
						for ; want < len(data); want++ {
							if b := data[want]; b == '"' || b == '\\' || b < 0x20 {
								break
							}
							wantHigh = wantHigh || data[want] >= 0x80
						}
						if got, high := stopEnd(data, i); got != want || high != wantHigh {
							t.Fatalf("byte %#x at %d and %#x at %d, from %d: stopEnd = %d, %v, want %d, %v", c, at, c2, at2, i, got, high, want, wantHigh)
						}
					}
				}
			}
		}
	}
}

// TestLongStrings holds String and SkipValue to encoding/json on random
// strings of up to 40 bytes drawn from the bytes that stop a word's scan
// or need checking (quotes, escapes, control characters, bytes of valid
// and broken UTF-8): the scans of eight bytes at a time meet them at
// every place of a word, which short fuzz inputs seldom reach.
func TestLongStrings(t *testing.T) {
	pieces := []string{"a", "bcdefgh", `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\x`, `\u12`, "\x01", "\"", "é", "😀", "\xff", "\xe2\x82", "\xc3", " "}
	rng := rand.New(rand.NewPCG(12, 1))
	for trial := range 100000 {
		b := []byte{'"'}
		for len(b) < 40 {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
			if rng.IntN(12) == 0 {
				break
			}
		}
		if rng.IntN(8) != 0 {
			b = append(b, '"')
		}
		var want string
		jerr := json.Unmarshal(b, &want)
		if jerr == nil && !utf8.Valid(b) { // the scanner takes only UTF-8
			jerr = errors.New("invalid UTF-8")
		}
		var s Scanner
		s.Reset(b)
		got, err := s.String("")
		if err == nil {
			err = s.End()
		}
		if (err == nil) != (jerr == nil) || err == nil && string(got) != want {
			t.Fatalf("trial %d: %q: String = %q, %v; encoding/json %q, %v", trial, b, got, err, want, jerr)
		}
		s.Reset(b)
		serr := s.SkipValue()
		if serr == nil {
			serr = s.End()
		}
		if (serr == nil) != (jerr == nil) {
			t.Fatalf("trial %d: %q: SkipValue %v; encoding/json %v", trial, b, serr, jerr)
		}
	}
}
