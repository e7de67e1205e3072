package agentlog

import (
	"bytes"
	"io"
	"regexp"

	"github.com/tally-eval/tally/internal/input"
)

// Formats are the formats read, for flags and messages.
var Formats = []Format{ClaudeCode, Codex, Generic, Tally}

var (
	// A Codex rollout line is {"timestamp", "type": <a RolloutItem tag>,
	// "payload"}: the tag comes before the payload.
	codexLine = regexp.MustCompile(`"type"\s*:\s*"(session_meta|response_item|compacted|turn_context|event_msg)"`)
	// A generic line has a top-level "messages" list (a quote escaped
	// inside a string does not count).
	genericLine = regexp.MustCompile(`(^|[^\\])"messages"\s*:\s*\[`)
	ccLine      = regexp.MustCompile(`(^|[^\\])"sessionId"\s*:`)
	// A tally event has "kind" set to one of its three kinds and a
	// "session_id".
	tallyKind    = regexp.MustCompile(`(^|[^\\])"kind"\s*:\s*"(message|tool_call|compaction)"`)
	tallySession = regexp.MustCompile(`(^|[^\\])"session_id"\s*:`)
)

// Sniff says which format a file is in from the start of its first
// line that is not blank (blank lines are skipped by every reader): a Codex rollout when it has "type" set to a rollout item's tag
// (session_meta, response_item, compacted, turn_context, event_msg) and
// a "payload"; tally's event log when it has "kind" set to message,
// tool_call or compaction, a "session_id" and no "sessionId"; the
// generic format when it has a "messages" list and no "sessionId"; else
// Claude Code (whose records have "sessionId" and "type").
func Sniff(first []byte) Format {
	for {
		i := bytes.IndexByte(first, '\n')
		if i < 0 || len(bytes.TrimSpace(first[:i])) > 0 {
			break
		}
		first = first[i+1:]
	}
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	switch {
	case codexLine.Match(first) && bytes.Contains(first, []byte(`"payload"`)):
		return Codex
	case bytes.Contains(first, []byte(`"instructions"`)) && bytes.Contains(first, []byte(`"id"`)) && bytes.Contains(first, []byte(`"timestamp"`)) && !bytes.Contains(first, []byte(`"type"`)):
		// An older Codex rollout's header line, before its lines were
		// wrapped as {timestamp, type, payload}: read as Codex, whose
		// error says that format is not read.
		return Codex
	case tallyKind.Match(first) && tallySession.Match(first) && !ccLine.Match(first):
		return Tally
	case genericLine.Match(first) && !ccLine.Match(first):
		return Generic
	}
	return ClaudeCode
}

// ReadAll reads the sessions in r, gzipped or not, in format f, or in
// the format Sniff finds when f is "". A Codex file holds one session, a
// generic file one a line, and a Claude Code file one per run of records
// with the same sessionId (see ReadClaudeCode). It holds every session
// in memory: NewReader reads them one at a time.
func ReadAll(r io.Reader, name string, f Format) ([]*Session, error) {
	rd, err := NewReader(r, name, Options{Format: f})
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []*Session
	for {
		s, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// OpenAll reads the sessions in the file at path, gzipped or not (as
// Open), in format f, or in the format Sniff finds when f is "".
func OpenAll(path string, f Format) ([]*Session, error) {
	file, err := input.Open(path, input.Limits{})
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ReadAll(file, path, f)
}
