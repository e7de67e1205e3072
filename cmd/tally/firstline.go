package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tally-eval/tally/internal/input"
)

// firstLine is the first line of the file at path that is not blank,
// read from its first 64 KiB (cut there if longer), and whether the file
// is gzipped (then the line is not read: "" and true). Commands use it to
// tell what kind of file they were given before reading it.
func firstLine(path string, lim input.Limits) (line []byte, gzipped bool, err error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		if errors.As(err, new(*input.EncodingError)) { // it names the file
			return nil, false, err
		}
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	head = head[:n]
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return nil, true, nil
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return head, false, nil
}
