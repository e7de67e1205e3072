package agentlog

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestConcatenatedClaudeCode reads logs joined as `cat a.jsonl b.jsonl`
// makes them: one session per run of records with the same sessionId.
func TestConcatenatedClaudeCode(t *testing.T) {
	one, err := os.ReadFile("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// testdata/session.jsonl is session s-1, 32 lines; its line 1 (a
	// file-history-snapshot) has no sessionId.
	two := bytes.ReplaceAll(one, []byte(`"sessionId":"s-1"`), []byte(`"sessionId":"s-2"`))
	path := filepath.Join(t.TempDir(), "both.jsonl")
	if err := os.WriteFile(path, append(append([]byte{}, one...), two...), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := OpenAll(path, "") // sniffed
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 {
		t.Fatalf("%d sessions, want 2", len(ss))
	}
	alone, err := Open("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a, b := ss[0], ss[1]
	for _, c := range []struct {
		what      string
		got, want any
		reason    string
	}{
		{"ids", []string{a.ID, b.ID}, []string{"s-1", "s-2"}, ""},
		{"first session's lines", a.Records.Lines(), 33, "its 32, and line 33: s-2's snapshot, which has no sessionId"},
		{"second session's lines", b.Records.Lines(), 31, "lines 34–64"},
		{"snapshots", []int{a.Records.Skipped["file-history-snapshot"], b.Records.Skipped["file-history-snapshot"]}, []int{2, 0}, ""},
		{"first session's steps", a.Steps, alone.Steps, "as read alone"},
		{"first session's messages", a.Messages, alone.Messages, "as read alone"},
		{"second session's first prompt", [2]any{b.Messages[0].Line, b.Messages[0].Text}, [2]any{34, "Add a --verbose flag to the CLI."}, "lines count from the top of the file"},
		{"second session's turns", len(b.Turns), len(alone.Turns), ""},
		{"second session's compaction line", b.Compactions[0].Line, alone.Compactions[0].Line + 32, ""},
		{"second session's orphans", b.OrphanResults, alone.OrphanResults, "calls are joined within a session"},
		{"names", []string{a.Name, b.Name}, []string{path, path}, ""},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v (%s)", c.what, c.got, c.want, c.reason)
		}
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "holds 2 sessions") {
		t.Errorf("Open of two sessions: got %v, want an error saying it holds 2", err)
	}
}

func TestClaudeCodeSessionBoundaries(t *testing.T) {
	rec := func(id, text string) string {
		if id == "" {
			return `{"type":"user","message":{"content":"` + text + `"}}` + "\n"
		}
		return `{"type":"user","sessionId":"` + id + `","message":{"content":"` + text + `"}}` + "\n"
	}
	for _, c := range []struct {
		name, log string
		want      [][]string // per session: id, then the texts
		reason    string
	}{
		{"empty", "", nil, "an empty log holds no session"},
		{"one", rec("a", "x") + rec("a", "y"), [][]string{{"a", "x", "y"}}, ""},
		{"no ids", rec("", "x") + rec("", "y"), [][]string{{"", "x", "y"}}, "no sessionId anywhere: one session"},
		{"id later", rec("", "x") + rec("a", "y") + rec("b", "z"), [][]string{{"a", "x", "y"}, {"b", "z"}}, "a record without an id belongs to the current session"},
		{"without id after a change", rec("a", "x") + rec("b", "y") + rec("", "z"), [][]string{{"a", "x"}, {"b", "y", "z"}}, ""},
		{"blank line between", rec("a", "x") + "\n" + rec("b", "y"), [][]string{{"a", "x"}, {"b", "y"}}, "the blank line is counted on a"},
	} {
		ss, err := ReadClaudeCode(strings.NewReader(c.log), "x.jsonl")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got [][]string
		for _, s := range ss {
			g := []string{s.ID}
			for _, m := range s.Messages {
				g = append(g, m.Text)
			}
			got = append(got, g)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q (%s)", c.name, got, c.want, c.reason)
		}
	}
}
