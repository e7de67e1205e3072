package draft

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// ConversationID is the fixture's conversation id for session s: its id
// when that can name a folder (fixture.ValidConversationID), else the id
// with "/", "\", ":" and control characters replaced by "_", else the
// log's file name without its folder and its .gz, .jsonl or .json
// endings, cleaned the same way, else "session".
func ConversationID(s *agentlog.Session) string {
	if valid(s.ID) {
		return s.ID
	}
	if id := clean(s.ID); valid(id) {
		return id
	}
	base := filepath.Base(s.Name)
	for _, ext := range []string{".gz", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	if id := clean(base); valid(id) {
		return id
	}
	return "session"
}

func valid(id string) bool { return strings.TrimSpace(id) != "" && fixture.ValidConversationID(id) }

// clean replaces each character a conversation id may not hold by "_".
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || unicode.IsControl(r) || r == utf8.RuneError {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(s, "_"))
}
