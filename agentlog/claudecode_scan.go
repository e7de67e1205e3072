package agentlog

import (
	"sync"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// This file decodes a Claude Code record on the one JSON lexer
// (internal/jsonscan), without reflection: reading a log is decoding its
// records and little else. The decoder takes the fields ccRecord names
// and skips the rest (a record's toolUseResult, often its largest value,
// is checked and skipped without being decoded). It declines (ok false)
// anything whose meaning under encoding/json it would have to imitate —
// a key of ccRecord's spelled in another case, a known key given twice,
// a value of the wrong type, null where a list element is wanted,
// malformed JSON or UTF-8 — and the record is then decoded by
// json.Unmarshal, which also words the error of a bad line. So the fast
// decoder's results are encoding/json's (FuzzCCDecode holds it to that).

// ccLexers pools the lexers of the fast decoder.
var ccLexers = sync.Pool{New: func() any { return new(jsonscan.Scanner) }}

// ccRecordKeys are the record's keys the decoder reads (the others are
// skipped, as by encoding/json, which the key sets of this file follow).
var ccRecordKeys = jsonscan.NewKeySet("type", "subtype", "sessionId", "uuid", "cwd", "timestamp", // strings
	"isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage", // booleans
	"message", "compactMetadata", "microcompactMetadata", "error", // objects
	"operation", "content") // a queue-operation's strings

// decodeCCRecord decodes line into rec; ok is false when json.Unmarshal
// must decide. Raw values (a part's input, the error) alias line.
func decodeCCRecord(line []byte, rec *ccRecord) (ok bool) {
	return new(ccRepeats).decode(line, rec)
}

// ccRepeats holds a reader's strings that repeat from record to record
// (the sessionId, cwd, model, tool names), so that each is allocated
// once, not once a record.
type ccRepeats struct {
	sessionID, cwd, model string
	names                 map[string]string
	// parts is the last message's list of parts, whose array the next
	// message's list reuses: a record's parts are read (their strings
	// kept) before the next record is decoded.
	parts []ccPart
	// msg is the last record's message, its memory reused likewise.
	msg ccMessage
	// uuid and timestamp are the record's, as read.
	uuid, timestamp []byte
	// Lean, set by the reader, leaves out the uuid of a record the
	// reader skips (not a user, assistant or system record, or a
	// sidechain's) and the timestamp unless the session being read, of
	// sessionId ID, has no start yet (not HaveStart) or the record starts
	// another: the reader reads them in no other record.
	Lean, HaveStart bool
	ID              string
}

// ccMaxNames bounds ccRepeats.names: tool names are few, and a log that
// has more still decodes, allocating the others.
const ccMaxNames = 256

// last returns b as a string, *prev when it holds the same bytes, and
// keeps it in *prev.
func last(prev *string, b []byte) string {
	if string(b) != *prev {
		*prev = string(b)
	}
	return *prev
}

// name returns b as a string, from names when it is there.
func (cs *ccRepeats) name(b []byte) string {
	if n, ok := cs.names[string(b)]; ok {
		return n
	}
	n := string(b)
	if len(cs.names) < ccMaxNames && len(b) <= 64 {
		if cs.names == nil {
			cs.names = map[string]string{}
		}
		cs.names[n] = n
	}
	return n
}

// known returns b as a string, without allocating for the record and
// part types Claude Code writes.
func known(b []byte) string {
	switch string(b) {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "progress":
		return "progress"
	case "file-history-snapshot":
		return "file-history-snapshot"
	case "text":
		return "text"
	case "tool_use":
		return "tool_use"
	case "tool_result":
		return "tool_result"
	case "thinking":
		return "thinking"
	case "compact_boundary":
		return "compact_boundary"
	case "turn_duration":
		return "turn_duration"
	}
	return string(b)
}

// decode decodes line into rec, taking repeated strings from cs.
func (cs *ccRepeats) decode(line []byte, rec *ccRecord) (ok bool) {
	s := ccLexers.Get().(*jsonscan.Scanner)
	defer func() {
		s.Reset(nil)
		ccLexers.Put(s)
	}()
	s.Reset(line)
	cs.uuid, cs.timestamp = cs.uuid[:0], cs.timestamp[:0]
	_, ok = s.Fields(ccRecordKeys, func(k int) (ok bool) {
		switch {
		case k == 0, k == 1: // type, subtype
			str := [...]*string{&rec.Type, &rec.Subtype}[k]
			var b []byte
			b, ok = ccBytes(s)
			*str = known(b)
		case k == 2:
			var b []byte
			b, ok = ccBytes(s)
			rec.SessionID = last(&cs.sessionID, b)
		case k == 4:
			var b []byte
			b, ok = ccBytes(s)
			rec.Cwd = last(&cs.cwd, b)
		case k == 3, k == 5: // uuid, timestamp: made strings below if used
			buf := [...]*[]byte{nil, nil, nil, &cs.uuid, nil, &cs.timestamp}[k]
			var b []byte
			b, ok = ccBytes(s)
			*buf = append((*buf)[:0], b...)
		case k < 10:
			b := [...]*bool{&rec.IsSidechain, &rec.IsMeta, &rec.IsCompactSummary, &rec.IsAPIErrorMessage}[k-6]
			*b, ok = ccBool(s)
		case k == 10:
			if isNull, err := s.Null(); err != nil || isNull {
				return err == nil
			}
			cs.msg = ccMessage{}
			rec.Message = &cs.msg
			ok = cs.decodeCCMessage(s, rec.Message)
		case k == 11, k == 12:
			ok = decodeCCMetadata(s, rec, k == 12)
		case k == 13: // error
			raw, _, err := s.RawValue()
			rec.Error, ok = raw, err == nil
		case k == 14:
			rec.Operation, ok = ccString(s)
		default: // content: a string; a list for encoding/json; anything else read as nothing
			switch s.Peek() {
			case '[':
				return false
			case '"':
				rec.Content.Text, ok = ccString(s)
			default:
				return s.SkipValue() == nil
			}
		}
		return ok
	})
	if !ok || s.End() != nil {
		return false
	}
	if !cs.Lean || !rec.IsSidechain && (rec.Type == "user" || rec.Type == "assistant" || rec.Type == "system") {
		rec.UUID = string(cs.uuid)
	}
	if !cs.Lean || !cs.HaveStart || rec.SessionID != "" && cs.ID != "" && rec.SessionID != cs.ID {
		rec.Timestamp = string(cs.timestamp)
	}
	return true
}

// ccString reads a string, or null as "".
func ccString(s *jsonscan.Scanner) (string, bool) {
	b, _, isNull, err := s.StringOrNull("")
	if err != nil {
		return "", false
	}
	if isNull {
		return "", true
	}
	return string(b), true
}

// ccBytes reads a string's decoded bytes, valid until the next string
// is read, or null as none.
func ccBytes(s *jsonscan.Scanner) ([]byte, bool) {
	b, _, isNull, err := s.StringOrNull("")
	if err != nil || isNull {
		return nil, err == nil
	}
	return b, true
}

// ccBool reads true, false, or null as false.
func ccBool(s *jsonscan.Scanner) (bool, bool) {
	if isNull, err := s.Null(); err != nil || isNull {
		return false, err == nil
	}
	v, err := s.Bool("")
	return v, err == nil
}

// ccInt reads a whole number, or null as 0.
func ccInt(s *jsonscan.Scanner) (int64, bool) {
	if isNull, err := s.Null(); err != nil || isNull {
		return 0, err == nil
	}
	lit, integer, err := s.Number("")
	if err != nil || !integer {
		return 0, false
	}
	return jsonscan.ParseInt(lit)
}

var ccMessageKeys = jsonscan.NewKeySet("id", "model", "content")

// decodeCCMessage decodes a record's message object.
func (cs *ccRepeats) decodeCCMessage(s *jsonscan.Scanner, m *ccMessage) bool {
	_, ok := s.Fields(ccMessageKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			m.ID, ok = ccString(s)
		case 1:
			var b []byte
			b, ok = ccBytes(s)
			m.Model = last(&cs.model, b)
		default:
			ok = cs.decodeCCContent(s, &m.Content.ccContent, true)
		}
		return ok
	})
	return ok
}

// decodeCCContent decodes a content field: a string, a list of parts or
// null; a message's (top) list in cs.parts's array.
func (cs *ccRepeats) decodeCCContent(s *jsonscan.Scanner, c *ccContent, top bool) bool {
	switch s.Peek() {
	case '"':
		b, err := s.String("")
		if err != nil {
			return false
		}
		c.Text = string(b)
		return true
	case 'n':
		return s.Literal("null") == nil
	case '[':
	default:
		return false
	}
	c.List = true
	if s.BeginArray("", "") != nil {
		return false
	}
	c.Parts = []ccPart{} // as encoding/json leaves an empty list
	if top && cs.parts != nil {
		clear(cs.parts) // the last message's strings, not to be kept alive
		c.Parts, cs.parts = cs.parts[:0], nil
	}
	for i := 0; ; i++ {
		more, err := s.Element(i)
		if err != nil {
			return false
		}
		if !more {
			if top {
				cs.parts = c.Parts
			}
			return true
		}
		c.Parts = append(c.Parts, ccPart{})
		if !cs.decodeCCPart(s, &c.Parts[len(c.Parts)-1]) {
			return false
		}
	}
}

var ccPartKeys = jsonscan.NewKeySet("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error")

// decodeCCPart decodes one part of a content list.
func (cs *ccRepeats) decodeCCPart(s *jsonscan.Scanner, p *ccPart) bool {
	_, ok := s.Fields(ccPartKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			var b []byte
			b, ok = ccBytes(s)
			p.Type = known(b)
		case 1:
			p.Text, ok = ccString(s)
		case 2:
			p.Thinking, ok = ccString(s)
		case 3:
			p.ID, ok = ccString(s)
		case 4:
			var b []byte
			b, ok = ccBytes(s)
			p.Name = cs.name(b)
		case 5:
			raw, _, err := s.RawValue()
			p.Input, ok = raw, err == nil
		case 6:
			p.ToolUseID, ok = ccString(s)
		case 7:
			ok = cs.decodeCCContent(s, &p.Content, false)
		default:
			p.IsError, ok = ccBool(s)
		}
		return ok
	})
	return ok
}

// ccCompactKeys are compactMetadata's keys; ccMicroKeys
// microcompactMetadata's, which adds two.
var (
	ccCompactKeys = jsonscan.NewKeySet("trigger", "preTokens", "preservedSegment")
	ccMicroKeys   = jsonscan.NewKeySet("trigger", "preTokens", "tokensSaved", "compactedToolIds")
	ccSegmentKeys = jsonscan.NewKeySet("headUuid", "tailUuid")
)

// decodeCCMetadata decodes compactMetadata, or microcompactMetadata when
// micro is set.
func decodeCCMetadata(s *jsonscan.Scanner, rec *ccRecord, micro bool) bool {
	if isNull, err := s.Null(); err != nil || isNull {
		return err == nil
	}
	keys := ccCompactKeys
	if micro {
		keys = ccMicroKeys
	}
	var trigger string
	var pre, saved int64
	var ids []string
	var seg *ccSegment
	_, ok := s.Fields(keys, func(k int) (ok bool) {
		switch {
		case k == 0:
			trigger, ok = ccString(s)
		case k == 1:
			pre, ok = ccInt(s)
		case k == 2 && !micro:
			seg, ok = decodeCCSegment(s)
		case k == 2:
			saved, ok = ccInt(s)
		default:
			ids, ok = ccStrings(s)
		}
		return ok
	})
	if !ok {
		return false
	}
	if micro {
		rec.MicrocompactMetadata = &struct {
			Trigger          string   `json:"trigger"`
			PreTokens        int64    `json:"preTokens"`
			TokensSaved      int64    `json:"tokensSaved"`
			CompactedToolIDs []string `json:"compactedToolIds"`
		}{trigger, pre, saved, ids}
	} else {
		rec.CompactMetadata = &ccCompactMeta{Trigger: trigger, PreTokens: pre, PreservedSegment: seg}
	}
	return true
}

// decodeCCSegment decodes compactMetadata.preservedSegment, or null as
// nil.
func decodeCCSegment(s *jsonscan.Scanner) (seg *ccSegment, ok bool) {
	if isNull, err := s.Null(); err != nil || isNull {
		return nil, err == nil
	}
	seg = &ccSegment{}
	_, ok = s.Fields(ccSegmentKeys, func(k int) (ok bool) {
		if k == 0 {
			seg.HeadUUID, ok = ccString(s)
		} else {
			seg.TailUUID, ok = ccString(s)
		}
		return ok
	})
	return seg, ok
}

// ccStrings reads a list of strings, or null as nil.
func ccStrings(s *jsonscan.Scanner) ([]string, bool) {
	if isNull, err := s.Null(); err != nil || isNull {
		return nil, err == nil
	}
	if s.BeginArray("", "") != nil {
		return nil, false
	}
	out := []string{}
	for i := 0; ; i++ {
		more, err := s.Element(i)
		if err != nil {
			return nil, false
		}
		if !more {
			return out, true
		}
		if s.Peek() != '"' {
			return nil, false
		}
		b, err := s.String("")
		if err != nil {
			return nil, false
		}
		out = append(out, string(b))
	}
}
