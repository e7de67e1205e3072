package agentlog

import (
	"bufio"
	"compress/gzip"
	"fmt"

	"github.com/tally-eval/tally/internal/input"
)

// Open reads the one session in the log at path, gzipped or not (the
// gzip magic bytes decide, not the name), in the format Sniff finds
// (OpenAll reads a generic file of several sessions, or a format given).
// Only regular files are read (see internal/input.Open), with the
// default limits.
func Open(path string) (*Session, error) {
	f, err := input.Open(path, input.Limits{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		return readOne(zr, path)
	}
	return readOne(br, path)
}
