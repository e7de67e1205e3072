package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// ccRecord is the part of a Claude Code record the reader uses.
type ccRecord struct {
	Type                 string         `json:"type"`
	Subtype              string         `json:"subtype"`
	SessionID            string         `json:"sessionId"`
	UUID                 string         `json:"uuid"`
	Cwd                  string         `json:"cwd"`
	Timestamp            string         `json:"timestamp"`
	IsSidechain          bool           `json:"isSidechain"`
	IsMeta               bool           `json:"isMeta"`
	IsCompactSummary     bool           `json:"isCompactSummary"`
	Message              *ccMessage     `json:"message"`
	CompactMetadata      *ccCompactMeta `json:"compactMetadata"`
	MicrocompactMetadata *struct {
		Trigger          string   `json:"trigger"`
		PreTokens        int64    `json:"preTokens"`
		TokensSaved      int64    `json:"tokensSaved"`
		CompactedToolIDs []string `json:"compactedToolIds"`
	} `json:"microcompactMetadata"`
	// Error is an object with a status on a system api_error record and
	// a string on an assistant isApiErrorMessage record.
	Error             json.RawMessage `json:"error"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	// Operation and Content are a queue-operation record's: what happened
	// to a prompt the person typed while the agent was working (enqueue,
	// remove, dequeue, popAll), and the prompt on enqueue (a string, or a
	// list of parts when it was sent with an image).
	Operation string         `json:"operation"`
	Content   ccLooseContent `json:"content"`
}

// ccCompactMeta is a compact_boundary's compactMetadata. A partial
// compaction (later Claude Code versions) keeps the most recent messages
// word for word after its summary: PreservedSegment names the first and
// last of them, which the file holds before the boundary.
type ccCompactMeta struct {
	Trigger          string     `json:"trigger"`
	PreTokens        int64      `json:"preTokens"`
	PreservedSegment *ccSegment `json:"preservedSegment"`
}

// ccSegment is a partial compaction's preservedSegment: the uuids of the
// first and the last message it kept.
type ccSegment struct {
	HeadUUID string `json:"headUuid"`
	TailUUID string `json:"tailUuid"`
}

// ccLooseContent is a record's top-level content: a string or a list of
// parts (a queue-operation's), anything else read as nothing. A list that
// is not one of parts is kept as Err, for the records that read it to
// report (other records' content is not read).
type ccLooseContent struct {
	ccContent
	Err error
}

// UnmarshalJSON decodes a string or a list of parts and ignores any
// other value.
func (c *ccLooseContent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '"' || b[0] == '[') {
		if err := c.ccContent.UnmarshalJSON(b); err != nil {
			c.ccContent, c.Err = ccContent{}, prefixPath(err, "content")
		}
	}
	return nil
}

// ccMessage is a record's message.
type ccMessage struct {
	ID      string       `json:"id"`
	Model   string       `json:"model"`
	Content ccMsgContent `json:"content"`
}

// ccMsgContent is a message's content, whose errors name their path from
// the record (message.content[2].content).
type ccMsgContent struct{ ccContent }

// UnmarshalJSON decodes the content and places its error. A message's
// content is a string or a list: an object is an error here (only a
// server tool's result part may hold one).
func (c *ccMsgContent) UnmarshalJSON(b []byte) error {
	err := c.ccContent.UnmarshalJSON(b)
	if err == nil && c.Object {
		err = &contentError{Msg: "want a string or a list, got an object"}
	}
	return prefixPath(err, "message", "content")
}

// ccContent is a content field: a string, or a list of parts (the
// message's, or a tool result's), or an object (a server tool's error
// result: web_search_tool_result_error, or web_fetch's document), kept
// only as Object and its "type" as ObjectType. It is
// decoded in the record's one decode, so the line is not scanned again
// for it.
type ccContent struct {
	Text       string
	Parts      []ccPart
	List       bool
	Object     bool
	ObjectType string
}

// contentError is a content value of the wrong shape, at Path from the
// record (PathColumn's steps), so that its error names the field and its
// column rather than encoding/json's offset in the content.
type contentError struct {
	Path []string
	Msg  string
}

func (e *contentError) Error() string { return pathName(e.Path) + ": " + e.Msg }

// pathName is a PathColumn path as a person reads it:
// message.content[2].content.
func pathName(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// prefixPath puts steps before the path of a contentError; other errors
// (and nil) pass unchanged.
func prefixPath(err error, steps ...string) error {
	var ce *contentError
	if errors.As(err, &ce) {
		ce.Path = append(slices.Clip(steps), ce.Path...)
	}
	return err
}

// jsonKind is the kind of JSON value b holds, as errors word it.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// UnmarshalJSON decodes a string, a list of parts, an object (kept as
// Object) or null. A list's parts must be objects; an error names its
// path from the content (contentError).
func (c *ccContent) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case len(b) > 0 && b[0] == '{':
		c.Object = true
		var typed struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &typed) == nil {
			c.ObjectType = typed.Type
		}
		return nil
	case string(b) == "null":
		return nil
	case len(b) == 0 || b[0] != '[':
		return &contentError{Msg: "want a string or a list, got " + jsonKind(b)}
	}
	c.List = true
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return &contentError{Msg: jsonMessage(err)}
	}
	c.Parts = make([]ccPart, len(raws))
	for i, r := range raws {
		at := "[" + strconv.Itoa(i) + "]"
		if jsonKind(r) != "an object" {
			return &contentError{Path: []string{at}, Msg: "want an object (a part), got " + jsonKind(r)}
		}
		if err := json.Unmarshal(r, &c.Parts[i]); err != nil {
			var ce *contentError
			if errors.As(err, &ce) { // the part's own content
				return prefixPath(err, at, "content")
			}
			ce = &contentError{Path: []string{at}, Msg: jsonMessage(err)}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" { // the part's field, by name
				ce.Path = append(ce.Path, strings.Split(te.Field, ".")...)
				ce.Msg = strings.TrimPrefix(ce.Msg, te.Field+": ")
			}
			return ce
		}
	}
	return nil
}

// ccPart is one part of a message's content list.
type ccPart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   ccContent       `json:"content"`
	IsError   bool            `json:"is_error"`
}
