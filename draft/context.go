package draft

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// contextMessages returns the incumbent's compacted context of compaction
// k: the messages it kept word for word (agentlog.Compaction.Kept), its
// summary, then the injected user messages after it until the
// agent's next step, the next typed prompt or the next compaction, each a
// user message (see the package comment).
func contextMessages(s *agentlog.Session, evs []event, k int) []fixture.Message {
	at := 0
	for i, e := range evs {
		if e.kind == evCompaction && e.i == k {
			at = i
			break
		}
	}
	var out []fixture.Message
	summary, at0 := false, 0 // at0: the summary's index in out
loop:
	for _, e := range evs[at+1:] {
		switch e.kind {
		case evStep, evCompaction:
			break loop
		case evMessage:
			m := s.Messages[e.i]
			if m.Typed() {
				break loop
			}
			if m.Kind == agentlog.CompactSummary && !summary {
				summary, at0 = true, len(out)
			}
			if strings.TrimSpace(m.Text) != "" {
				out = append(out, userMessage(m.Text))
			}
		}
	}
	if !summary {
		out = append([]fixture.Message{userMessage(s.Compactions[k].Summary)}, out...)
	}
	// What the compaction kept word for word comes before its summary
	// (Codex keeps the person's messages) or after it (a partial Claude
	// Code compaction keeps its last messages), as in the context it
	// built.
	var kept []fixture.Message
	for _, text := range s.Compactions[k].Kept {
		kept = append(kept, userMessage(text))
	}
	if s.Compactions[k].KeptAfter && at0 < len(out) {
		return append(append(out[:at0+1:at0+1], kept...), out[at0+1:]...)
	}
	return append(kept, out...)
}

func userMessage(text string) fixture.Message {
	return fixture.Message{Role: "user", Parts: []fixture.Part{{Type: fixture.TextPart, Text: text}}}
}

// contextJSON is a context file (fixture.Context's format).
type contextJSON struct {
	ConversationID string        `json:"conversation_id"`
	Compaction     int           `json:"compaction"`
	Turn           int           `json:"turn"`
	System         string        `json:"system,omitempty"`
	Messages       []messageJSON `json:"messages"`
}

type messageJSON struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type partJSON struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// WriteContext writes c in the context format fixture.ParseContext reads
// (CONTEXTS/<conversation_id>/<n>.json): indented by two spaces, with a
// final newline, without escaping <, > and &. A message of one text part
// is written with a string content, any other as a list of parts.
func WriteContext(w io.Writer, c fixture.Context) error {
	out := contextJSON{ConversationID: c.ConversationID, Compaction: c.Compaction, Turn: c.Turn, System: c.System, Messages: []messageJSON{}}
	for _, m := range c.Messages {
		mj := messageJSON{Role: m.Role}
		if len(m.Parts) == 1 && m.Parts[0].Type == fixture.TextPart {
			mj.Content = m.Parts[0].Text
		} else {
			parts := make([]partJSON, len(m.Parts))
			for i, p := range m.Parts {
				parts[i] = partJSON{Type: p.Type, Text: p.Text}
			}
			mj.Content = parts
		}
		out.Messages = append(out.Messages, mj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
