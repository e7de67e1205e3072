package draft

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// ConversationID is the fixture's conversation id for session s: its id
// when that can name a folder on every system (fixture.ValidConversationID
// and windowsSafe), else the id with "/", "\", ":", control characters
// and the characters Windows refuses in a name (< > " | ? *) replaced by
// "_", a trailing dot or space by "_", and "_" put after a name Windows
// keeps for a device (CON, NUL, COM1, …: "CON_", "nul_.txt"), and one
// over 200 bytes cut, with a hash of the whole after it; else the log's file name
// without its folder and its .gz, .jsonl or .json endings, cleaned the
// same way; else "session". Drafts are shared between machines, and a
// folder named "a|b" or "CON" cannot be checked out on Windows.
func ConversationID(s *agentlog.Session) string {
	if id := IDOf(s.ID); id != "" {
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

// IDOf is the conversation id ConversationID gives a session whose id
// is id, when the id alone gives one: id itself, or cleaned; "" when the
// log's file name would be used instead. A report matches the sessions a
// selection names to the fixtures drafted from them by it.
func IDOf(id string) string {
	if valid(id) {
		return id
	}
	if c := clean(id); valid(c) {
		return c
	}
	return ""
}

func valid(id string) bool {
	return strings.TrimSpace(id) != "" && fixture.ValidConversationID(id) && windowsSafe(id) && len(id) <= maxIDBytes
}

// maxIDBytes is the longest conversation id a draft takes as it is: a
// folder name, and with ".json" a file name, must stay under the 255
// bytes most file systems allow. A longer id is cut, with a hash of the
// whole so that two cut alike stay apart.
const maxIDBytes = 200

// windowsSafe reports whether id can name a folder on Windows too: none
// of < > " | ? *, no trailing dot or space, and not a reserved device
// name, alone or before an extension ("CON", "nul.txt"); Microsoft,
// "Naming Files, Paths, and Namespaces".
func windowsSafe(id string) bool {
	if strings.ContainsAny(id, `<>"|?*`) || strings.HasSuffix(id, ".") || strings.HasSuffix(id, " ") {
		return false
	}
	return !reservedName(id)
}

// reservedName reports whether id, up to its first dot, is a device name
// Windows reserves, in any case.
func reservedName(id string) bool {
	stem, _, _ := strings.Cut(strings.ToUpper(id), ".")
	stem = strings.TrimRight(stem, " ")
	switch stem {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if n, ok := strings.CutPrefix(stem, "COM"); ok || strings.HasPrefix(stem, "LPT") {
		if !ok {
			n = stem[3:]
		}
		return len(n) == 1 && n[0] >= '0' && n[0] <= '9' || n == "¹" || n == "²" || n == "³"
	}
	return false
}

// clean replaces each character a conversation id may not hold by "_",
// and makes a name Windows refuses one it takes.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || unicode.IsControl(r) || r == utf8.RuneError || strings.ContainsRune(`<>"|?*`, r) {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(s, "_"))
	if strings.Trim(s, ". ") == "" { // nothing usable: left invalid
		return s
	}
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, " ") {
		s = s[:len(s)-1] + "_"
	}
	if len(s) > maxIDBytes {
		sum := sha256.Sum256([]byte(s))
		cut := maxIDBytes - 17
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "-" + hex.EncodeToString(sum[:8])
	}
	if reservedName(s) { // "_" after the device name: "CON_", "nul_.txt"
		stem, rest, dot := strings.Cut(s, ".")
		s = stem + "_"
		if dot {
			s += "." + rest
		}
	}
	return s
}
