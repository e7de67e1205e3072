package agentlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"regexp"

	"github.com/tally-eval/tally/internal/input"
)

// Formats are the formats read, for flags and messages.
var Formats = []Format{ClaudeCode, Codex, Generic}

var (
	// A Codex rollout line is {"timestamp", "type": <a RolloutItem tag>,
	// "payload"}: the tag comes before the payload.
	codexLine = regexp.MustCompile(`"type"\s*:\s*"(session_meta|response_item|compacted|turn_context|event_msg)"`)
	// A generic line has a top-level "messages" list (a quote escaped
	// inside a string does not count).
	genericLine = regexp.MustCompile(`(^|[^\\])"messages"\s*:\s*\[`)
	ccLine      = regexp.MustCompile(`(^|[^\\])"sessionId"\s*:`)
)

// Sniff says which format a file is in from the start of its first
// line: a Codex rollout when it has "type" set to a rollout item's tag
// (session_meta, response_item, compacted, turn_context, event_msg) and
// a "payload"; the generic format when it has a "messages" list and no
// "sessionId"; else Claude Code (whose records have "sessionId" and
// "type").
func Sniff(first []byte) Format {
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	switch {
	case codexLine.Match(first) && bytes.Contains(first, []byte(`"payload"`)):
		return Codex
	case genericLine.Match(first) && !ccLine.Match(first):
		return Generic
	}
	return ClaudeCode
}

// ReadAll reads the sessions in r in format f, or in the format Sniff
// finds when f is "". A Codex file holds one session, a generic file one
// a line, and a Claude Code file one per run of records with the same
// sessionId (see ReadClaudeCode).
func ReadAll(r io.Reader, name string, f Format) ([]*Session, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if f == "" {
		head, _ := br.Peek(br.Size())
		f = Sniff(head)
	}
	var s *Session
	var err error
	switch f {
	case ClaudeCode:
		return ReadClaudeCode(br, name)
	case Codex:
		s, err = ReadCodex(br, name)
	case Generic:
		return ReadGeneric(br, name)
	default:
		return nil, fmt.Errorf("%s: unknown format %q (want one of %v)", name, f, Formats)
	}
	if err != nil {
		return nil, err
	}
	return []*Session{s}, nil
}

// OpenAll reads the sessions in the file at path, gzipped or not (as
// Open), in format f, or in the format Sniff finds when f is "".
func OpenAll(path string, f Format) ([]*Session, error) {
	file, err := input.Open(path, input.Limits{})
	if err != nil {
		return nil, err
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		return ReadAll(zr, path, f)
	}
	return ReadAll(br, path, f)
}

// readOne reads the one session of a stream, sniffing its format.
func readOne(r io.Reader, path string) (*Session, error) {
	ss, err := ReadAll(r, path, "")
	if err != nil {
		return nil, err
	}
	if len(ss) != 1 {
		return nil, fmt.Errorf("%s: holds %d sessions, not one (read it with OpenAll)", path, len(ss))
	}
	return ss[0], nil
}
