package input

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenRefusesFIFO pins that a named pipe is refused at once, with a
// message naming it, rather than blocking until a writer comes (os.Open
// on a FIFO waits for one).
func TestOpenRefusesFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system")
	}
	fifo := filepath.Join(t.TempDir(), "fixtures.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Open(fifo, Limits{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("Open(FIFO) = %v, want ErrNotRegular", err)
		}
		want := fifo + ": is a named pipe (FIFO), not a regular file"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("message %q, want it to start %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open(FIFO) blocked")
	}
	if _, err := ReadFile(fifo, Limits{}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(FIFO) = %v, want ErrNotRegular", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "2.json")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	big := write(t, dir, "big.jsonl", strings.Repeat("x\n", 100))
	for _, tc := range []struct {
		name, path string
		lim        Limits
		is         error
		msg        string
		reason     string
	}{
		{"dir", sub, Limits{}, ErrNotRegular, sub + ": is a folder, not a file", "a folder has its own message, not a JSON syntax error"},
		{"device", os.DevNull, Limits{}, ErrNotRegular, os.DevNull + ": is a character device, not a regular file", "/dev/null, /dev/zero or a terminal would read nothing or for ever"},
		{"too big", big, Limits{MaxFile: 100}, ErrTooLarge, big + ": larger than 100 bytes (raise with --max-file)", "the size on disk is checked before reading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "device" && runtime.GOOS == "windows" {
				t.Skip("no /dev/null")
			}
			f, err := Open(tc.path, tc.lim)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, tc.is) || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("Open = %v, want %q (%s)", err, tc.msg, tc.reason)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("setup")
	}
	if _, err := Open(filepath.Join(dir, "missing"), Limits{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want ErrNotExist", err)
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int64
		want     []string // "!N" is a *LineError at line N
		reason   string
	}{
		{"plain", "a\nbb\n\nccc", 3, []string{"a", "bb", "", "ccc"}, "a last line without \\n is a line"},
		{"crlf", "abc\r\nd\r\n", 3, []string{"abc", "d"}, "\\r\\n does not count towards the limit"},
		{"long", "abcd\nok\n", 3, []string{"!1", "ok"}, "a long line is reported and skipped; reading goes on"},
		{"long last", "ok\nabcd", 3, []string{"ok", "!2"}, "a long last line without \\n"},
		{"exact", "abc", 3, []string{"abc"}, "a line of exactly the limit is accepted"},
		{"long cr", "abcd\r\n", 3, []string{"!1"}, "four bytes before \\r\\n are over a limit of 3"},
		{"huge", strings.Repeat("x", 200<<10) + "\nok\n", 100 << 10, []string{"!1", "ok"}, "a line longer than the bufio buffer is dropped without being held"},
		{"empty", "", 3, nil, "no lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLines(strings.NewReader(tc.in), "f.jsonl", tc.max)
			var got []string
			for {
				b, err := l.Next()
				if err == io.EOF {
					break
				}
				var le *LineError
				if errors.As(err, &le) {
					if le.Line != l.Line() || le.File != "f.jsonl" {
						t.Errorf("LineError %+v at line %d", le, l.Line())
					}
					got = append(got, "!"+itoa(le.Line))
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines %q, want %q (%s)", got, tc.want, tc.reason)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestLineErrorMessage(t *testing.T) {
	e := &LineError{File: "a.jsonl", Line: 7, Limit: 16 << 20}
	if got, want := e.Error(), "a.jsonl:7: line longer than 16 MiB (raise with --max-line)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestFileReadLimit(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "f.jsonl", "0123456789")
	f, err := Open(p, Limits{MaxFile: 10})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || len(b) != 10 {
		t.Errorf("ReadAll at the limit = %d bytes, %v", len(b), err)
	}
	f.Close()
	// The file grows after Open: Read notices.
	f, err = Open(p, Limits{MaxFile: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, dir, "f.jsonl", "0123456789ABC")
	if _, err := io.ReadAll(f); !errors.Is(err, ErrTooLarge) {
		t.Errorf("reading a file grown past the limit: %v, want ErrTooLarge", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.json", `{"x": 1}`)
	if b, err := ReadFile(p, Limits{MaxLine: 8}); err != nil || string(b) != `{"x": 1}` {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	_, err := ReadFile(p, Limits{MaxLine: 7})
	if want := p + ": larger than 7 bytes, the most read as one JSON document (raise with --max-line)"; err == nil || err.Error() != want {
		t.Errorf("ReadFile over the line limit = %v, want %q", err, want)
	}
	e := write(t, dir, "e.json", "")
	if b, err := ReadFile(e, Limits{}); err != nil || len(b) != 0 {
		t.Errorf("ReadFile(empty) = %q, %v", b, err)
	}
}

// FuzzLines checks Lines against a plain split on "\n": every line within
// the limit comes back as it was (less a final "\r"), every longer one as
// a *LineError at its number, and nothing else.
func FuzzLines(f *testing.F) {
	f.Add("a\nbb\r\n\nccc", int64(3))
	f.Add("abcd\nok", int64(3))
	f.Add(strings.Repeat("x", 70000)+"\n\r\n", int64(65536))
	f.Fuzz(func(t *testing.T, in string, max int64) {
		if max <= 0 || max > 1<<20 {
			return
		}
		parts := strings.Split(in, "\n")
		if parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		l := NewLines(strings.NewReader(in), "f", max)
		for i, want := range parts {
			want = strings.TrimSuffix(want, "\r")
			b, err := l.Next()
			var le *LineError
			switch {
			case int64(len(want)) > max:
				if !errors.As(err, &le) || le.Line != i+1 {
					t.Fatalf("line %d (%d bytes, limit %d): %q, %v; want a LineError", i+1, len(want), max, b, err)
				}
			case err != nil || string(b) != want:
				t.Fatalf("line %d = %q, %v; want %q", i+1, b, err, want)
			}
		}
		if b, err := l.Next(); err != io.EOF {
			t.Fatalf("after the last line: %q, %v", b, err)
		}
	})
}

// TestReadDir: a folder is listed; a named pipe given as a folder is
// refused as a file is, without blocking.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if es, err := ReadDir(dir); err != nil || len(es) != 1 || es[0].Name() != "b" {
		t.Errorf("ReadDir(dir) = %v, %v", es, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "b")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("ReadDir(file) = %v, want ENOTDIR", err)
	}
	if _, err := ReadDir(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing) = %v, want ErrNotExist", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadDir(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("ReadDir(fifo) = %v, want ENOTDIR", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadDir(fifo) blocked")
	}
}

// TestReadLineHugeLimit: a limit near 2⁶³ (--max-line 9223372036854775807)
// reads every line; the room for the line ending must not overflow.
func TestReadLineHugeLimit(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("{\"a\":1}\r\nsecond\n"))
	for _, want := range []string{`{"a":1}`, "second"} {
		line, long, err := ReadLine(r, nil, math.MaxInt64)
		if err != nil || long || string(line) != want {
			t.Fatalf("ReadLine = %q, long %v, %v; want %q", line, long, err, want)
		}
	}
}

// TestEncoding: UTF-16 and UTF-32, by their byte order marks (Unicode
// Standard, section 23.8, table 23-4) or, for UTF-16 without one, by the
// zero byte of each ASCII character, are named; UTF-8, with or without
// its mark, and gzip are not.
func TestEncoding(t *testing.T) {
	tests := []struct {
		b    string
		want string
	}{
		{"\xff\xfe{\x00", "UTF-16 (little-endian, with a byte order mark)"},
		{"\xfe\xff\x00{", "UTF-16 (big-endian, with a byte order mark)"},
		{"\xff\xfe\x00\x00{\x00\x00\x00", "UTF-32 (little-endian, with a byte order mark)"},
		{"\x00\x00\xfe\xff\x00\x00\x00{", "UTF-32 (big-endian, with a byte order mark)"},
		{"{\x00\"\x00", "UTF-16 (little-endian)"},
		{"{\x00\x00\x00\"\x00\x00\x00", "UTF-32 (little-endian)"},
		{"\x00\x00\x00{\x00\x00\x00\"", "UTF-32 (big-endian)"},
		{"\x00{\x00\"", "UTF-16 (big-endian)"},
		{"{\"a\": 1}", ""},
		{"\xef\xbb\xbf{}", ""},
		{"\x1f\x8b\x08\x00", ""},
		{"{", ""},
	}
	for _, tt := range tests {
		if got := Encoding([]byte(tt.b)); got != tt.want {
			t.Errorf("Encoding(%q) = %q, want %q", tt.b, got, tt.want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("\xff\xfe{\x00}\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, Limits{})
	var ee *EncodingError
	if !errors.As(err, &ee) {
		t.Fatalf("ReadFile of UTF-16: %v, want an *EncodingError", err)
	}
	f, err := Open(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 2 { // every Read says so, not the first alone
		if _, err := f.Read(make([]byte, 4)); !errors.As(err, &ee) {
			t.Fatalf("Read of UTF-16: %v, want an *EncodingError", err)
		}
	}
}
