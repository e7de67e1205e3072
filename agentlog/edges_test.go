package agentlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/internal/input"
)

// readAllSessions reads every session of text in format f ("" to
// sniff), as ReadAll does.
func readAllSessions(t *testing.T, text string, f Format) ([]*Session, error) {
	t.Helper()
	return ReadAll(strings.NewReader(text), "x.jsonl", f)
}

// TestLogEdges: what a new user's own files do (the cases a first trial
// of the readers found going wrong): an empty file holds no session, a
// blank first line does not change the format sniffed, a file of another
// format read as Claude Code is an error saying so, and a session whose
// records come back after another session's is an error.
func TestLogEdges(t *testing.T) {
	codex, err := os.ReadFile("testdata/codex-rollout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tallyLog, err := os.ReadFile("testdata/tally.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a := `{"type":"user","sessionId":"A","uuid":"1","message":{"role":"user","content":"one"}}` + "\n"
	b := `{"type":"user","sessionId":"B","uuid":"2","message":{"role":"user","content":"two"}}` + "\n"
	cases := []struct {
		name     string
		text     string
		format   Format
		sessions int
		err      string
	}{
		{"empty file", "", "", 0, ""},
		{"empty file read as Claude Code", "", ClaudeCode, 0, ""},
		{"only blank lines", "\n\n", ClaudeCode, 1, ""},
		{"Codex after a blank line", "\n" + string(codex), "", 1, ""},
		{"tally log after a blank line", "\r\n" + string(tallyLog), "", 2, ""},
		{"Codex read as Claude Code", string(codex), ClaudeCode, 0, "no record of a Claude Code log in"},
		{"only summary records (Claude Code writes such files)", `{"type":"summary","summary":"s","leafUuid":"u"}` + "\n", "", 1, ""},
		{"a pretty-printed JSON file (a fixture)", "{\n  \"conversation_id\": \"x\"\n}\n", "", 0, `x.jsonl:1:1: the file holds one JSON object spread over several lines (pretty-printed) with a "conversation_id": a fixture?`},
		{"a one-line fixture", `{"conversation_id":"x","turns":[]}` + "\n", "", 0, `x.jsonl:1: record has no "type"`},
		{"a YAML file", "gate:\n  margin: 0.05\n", "", 0, "this file's first line is not one: is it a fixture"},
		{"A then B", a + b, "", 2, ""},
		{"A, B, then A again", a + b + a, "", 0, `x.jsonl:3: sessionId "A" comes back after another session's records (its first record is at line 1)`},
	}
	for _, c := range cases {
		ss, err := readAllSessions(t, c.text, c.format)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case len(ss) != c.sessions:
			t.Errorf("%s: %d sessions, want %d", c.name, len(ss), c.sessions)
		}
	}
	if ss, _ := readAllSessions(t, "\n"+string(codex), ""); len(ss) == 1 && ss[0].Format != Codex {
		t.Errorf("a Codex rollout after a blank line is read as %s", ss[0].Format)
	}
}

// TestLogEncodings: a log with a UTF-8 byte order mark, or in UTF-16 (as
// Windows Notepad and PowerShell 5 save files), is one error line that
// says so, not an invalid character 'ï' nor an empty log (a new user's
// trial).
func TestLogEncodings(t *testing.T) {
	dir := t.TempDir()
	line := `{"session_id":"s","messages":[{"role":"user","content":"hi"}]}` + "\n"
	utf16 := []byte{0xff, 0xfe}
	for _, r := range line {
		utf16 = append(utf16, byte(r), 0)
	}
	tests := []struct{ name, data, want string }{
		{"bom.jsonl", "\xef\xbb\xbf" + line, "bom.jsonl:1:1: starts with a UTF-8 byte order mark, which JSON does not allow (save the file as UTF-8 without BOM)"},
		{"utf16.jsonl", string(utf16), "utf16.jsonl is UTF-16 (little-endian, with a byte order mark), not UTF-8"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := input.Open(path, input.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewReader(f, tt.name, Options{})
		f.Close()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.want)
		}
	}
}
