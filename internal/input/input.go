// Package input opens the files tally reads, with limits: only regular
// files (a named pipe, a device or a socket could block a run forever or
// never end; a folder gets a message of its own), at most MaxFile bytes
// per file, and at most MaxLine bytes per line of a JSONL file or per
// JSON document read whole. Every error names the file, and the line when
// there is one, and says which command-line flag raises the limit
// (--max-line, --max-file), so that one corrupt or hostile input costs
// bounded memory and time and a clear message rather than a crash.
//
// The defaults: a line (or a document read whole) of 64 MiB, a file of
// 4 GiB. A line is one fixture, one verdict record, one session or event:
// the largest real ones are a few MiB (a fixture with thousands of items,
// a tool result pasted into an event), and a reader holds one line, plus
// the parse tree of it, in memory; 64 MiB keeps that below about a GiB
// even for a file with no newline at all. A JSONL file is streamed, so
// its size does not bound memory: the file limit stops a run reading a
// runaway input (a log still being appended to, a file of zeros) for
// ever. 4 GiB is about twenty times the largest verdict file a quarterly
// report can need (100,000 items × 3 compactions × 2 systems × 300 bytes).
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Default limits, used for a zero field of Limits.
const (
	DefaultMaxLine int64 = 64 << 20
	DefaultMaxFile int64 = 4 << 30
)

// Limits bounds what a reader accepts. A zero field means its default.
type Limits struct {
	// MaxLine is the longest line of a line-oriented file, in bytes
	// without its line ending, and the largest file read whole as one
	// JSON document (ReadFile).
	MaxLine int64
	// MaxFile is the largest file, in bytes.
	MaxFile int64
}

// Line returns the line limit in force: MaxLine, or DefaultMaxLine.
func (l Limits) Line() int64 {
	if l.MaxLine > 0 {
		return l.MaxLine
	}
	return DefaultMaxLine
}

// File returns the file limit in force: MaxFile, or DefaultMaxFile.
func (l Limits) File() int64 {
	if l.MaxFile > 0 {
		return l.MaxFile
	}
	return DefaultMaxFile
}

// Errors to test for with errors.Is.
var (
	// ErrNotRegular: the path is a folder, a named pipe, a device or a
	// socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: a line or a file is over its limit.
	ErrTooLarge = errors.New("over the input limit")
)

// NotRegularError is returned by Open for a path that is not a regular
// file (after following symbolic links).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error names the path and what it is instead of a regular file.
func (e *NotRegularError) Error() string {
	if e.Mode.IsDir() {
		return e.Path + ": is a folder, not a file"
	}
	return fmt.Sprintf("%s: is %s, not a regular file (tally reads only regular files: copy the data to one)", e.Path, kindOf(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// kindOf names a file type for a message.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// LineError is a line longer than the line limit. Line is 1-based. For
// a document read whole (ReadFile), Line is 0. With File empty, the
// message leaves file and line to the caller's wrapping.
type LineError struct {
	File  string
	Line  int
	Limit int64
}

// Error is "FILE:LINE: line longer than SIZE (raise with --max-line)".
func (e *LineError) Error() string {
	if e.File == "" { // the caller names file and line
		return fmt.Sprintf("line longer than %s (raise with --max-line)", Size(e.Limit))
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: larger than %s, the most read as one JSON document (raise with --max-line)", e.File, Size(e.Limit))
	}
	return fmt.Sprintf("%s:%d: line longer than %s (raise with --max-line)", e.File, e.Line, Size(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *LineError) Is(target error) bool { return target == ErrTooLarge }

// FileError is a file larger than the file limit.
type FileError struct {
	File  string
	Limit int64
}

// Error is "FILE: larger than SIZE (raise with --max-file)".
func (e *FileError) Error() string {
	return fmt.Sprintf("%s: larger than %s (raise with --max-file)", e.File, Size(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *FileError) Is(target error) bool { return target == ErrTooLarge }

// File is a regular file open for reading, whose Read fails with a
// *FileError once more than the file limit has been read.
type File struct {
	f    *os.File
	name string
	lim  Limits
	size int64 // from stat when opened
	read int64
	// encErr is the file's encoding, when tally does not read it: every
	// Read returns it.
	encErr *EncodingError
}

// Open opens the regular file at path for reading. A folder, a named
// pipe, a device or a socket is refused with a *NotRegularError before it
// is opened (opening a named pipe would wait for a writer); a file whose
// size is already over the file limit is refused with a *FileError.
func Open(path string, lim Limits) (*File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, info, lim); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced since the Stat: check what was
	// opened.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := check(path, info, lim); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, name: path, lim: lim, size: info.Size()}, nil
}

func check(path string, info fs.FileInfo, lim Limits) error {
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if info.Size() > lim.File() {
		return &FileError{File: path, Limit: lim.File()}
	}
	return nil
}

// CheckRegular returns a *NotRegularError when the entry at path (symbolic
// links followed) is not a regular file, and the Stat error when there is
// none; it opens nothing.
func CheckRegular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return nil
}

// Name returns the path the file was opened with.
func (f *File) Name() string { return f.name }

// Size returns the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Read reads from the file, failing with a *FileError when the file has
// grown past the file limit since it was opened.
func (f *File) Read(p []byte) (int, error) {
	if f.encErr != nil {
		return 0, f.encErr
	}
	n, err := f.f.Read(p)
	if f.read == 0 && n > 0 {
		if enc := Encoding(p[:n]); enc != "" {
			f.encErr = &EncodingError{File: f.name, Encoding: enc}
			return 0, f.encErr
		}
	}
	f.read += int64(n)
	if f.read > f.lim.File() {
		return n, &FileError{File: f.name, Limit: f.lim.File()}
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Lines returns a reader of the file's lines under the line limit.
func (f *File) Lines() *Lines { return NewLines(f, f.name, f.lim.Line()) }

// ReadFile reads the whole regular file at path, which is one JSON
// document: it is bounded by the line limit (a *LineError with Line 0)
// as well as the file limit.
func ReadFile(path string, lim Limits) ([]byte, error) {
	f, err := Open(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max := min(lim.Line(), lim.File())
	if f.size > max {
		return nil, &LineError{File: path, Limit: max}
	}
	// One byte more than the size seen, to notice growth without a
	// second allocation in the common case.
	buf := make([]byte, 0, f.size+1)
	for {
		n, err := f.f.Read(buf[len(buf):cap(buf)])
		if len(buf) == 0 && n > 0 {
			if enc := Encoding(buf[:n]); enc != "" {
				return nil, &EncodingError{File: path, Encoding: enc}
			}
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, &LineError{File: path, Limit: max}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// EncodingError is a file in an encoding tally does not read: UTF-16 or
// UTF-32, as Windows Notepad's "Unicode" or PowerShell 5's ">" save a
// file. Every file tally reads is UTF-8.
type EncodingError struct {
	File, Encoding string
}

func (e *EncodingError) Error() string {
	hint := ""
	if strings.HasPrefix(e.Encoding, "UTF-16 (little-endian") {
		hint = " (Windows Notepad's \"Unicode\" and PowerShell 5's > write it so)"
	}
	return fmt.Sprintf("%s is %s, not UTF-8%s: save it as UTF-8", e.File, e.Encoding, hint)
}

// Encoding names the encoding the first bytes of a file, b, show when it
// is one tally does not read: UTF-32 or UTF-16 by their byte order mark,
// or without one by the zero bytes around an ASCII character (JSON, YAML
// and CSV start with ASCII). It returns "" for anything else,
// UTF-8 with or without its byte order mark (which each format's reader
// takes or refuses) and gzip included.
func Encoding(b []byte) string {
	switch {
	case len(b) >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0:
		return "UTF-32 (little-endian, with a byte order mark)"
	case len(b) >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF:
		return "UTF-32 (big-endian, with a byte order mark)"
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return "UTF-16 (little-endian, with a byte order mark)"
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return "UTF-16 (big-endian, with a byte order mark)"
	case len(b) >= 4 && b[0] != 0 && b[0] < 0x80 && b[1] == 0 && b[2] == 0 && b[3] == 0:
		return "UTF-32 (little-endian)"
	case len(b) >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0 && b[3] < 0x80:
		return "UTF-32 (big-endian)"
	case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0 && b[0] < 0x80 && b[2] < 0x80:
		return "UTF-16 (little-endian)"
	case len(b) >= 4 && b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0 && b[1] < 0x80 && b[3] < 0x80:
		return "UTF-16 (big-endian)"
	}
	return ""
}
