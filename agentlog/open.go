package agentlog

import (
	"fmt"

	"github.com/tally-eval/tally/internal/input"
)

// Open reads the one session in the log at path, gzipped or not (the
// gzip magic bytes decide, not the name), in the format Sniff finds
// (OpenAll reads a file of several sessions, or a format given). Only
// regular files are read (see internal/input.Open), with the default
// limits.
func Open(path string) (*Session, error) {
	f, err := input.Open(path, input.Limits{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := ReadAll(f, path, "")
	if err != nil {
		return nil, err
	}
	if len(ss) != 1 {
		return nil, fmt.Errorf("%s: holds %d sessions, not one (read it with OpenAll)", path, len(ss))
	}
	return ss[0], nil
}
