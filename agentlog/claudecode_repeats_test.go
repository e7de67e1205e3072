package agentlog

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCCRepeats: one reader's decoder, which keeps the sessionId, cwd,
// model and tool names of the records before, decodes each record as
// encoding/json does on its own, when those strings change, come back
// or are null from one record to the next.
func TestCCRepeats(t *testing.T) {
	lines := []string{
		`{"type":"user","sessionId":"a","cwd":"/x","message":{"content":"hi"}}`,
		`{"type":"assistant","sessionId":"a","cwd":"/x","message":{"id":"m1","model":"m-1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`,
		`{"type":"assistant","sessionId":"a","cwd":"/y","message":{"id":"m2","model":"m-2","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}`,
		`{"type":"assistant","sessionId":null,"cwd":null,"message":{"id":"m3","model":null,"content":[{"type":"tool_use","id":"t3","name":"Bash","input":{}}]}}`,
		`{"type":"assistant","sessionId":"b","cwd":"/x","message":{"id":"m4","model":"m-1","content":[{"type":"tool_use","id":"t4","name":"B\u0061sh","input":{}}]}}`,
		`{"type":"progress","sessionId":"a","cwd":"/x","subtype":"compact_boundary"}`,
		`{"type":"system","subtype":"turn_duration","sessionId":"a"}`,
		`{"type":"other","subtype":"new","sessionId":""}`,
	}
	if data, err := os.ReadFile("testdata/session.jsonl"); err == nil {
		lines = append(lines, string(data))
	}
	if dir := os.Getenv("TALLY_REAL_LOGS"); dir != "" {
		for _, p := range realLogs(t) {
			lines = append(lines, string(gunzip(t, p)))
		}
	}
	var cs ccRepeats
	n := 0
	for _, text := range lines {
		for line := range bytes.SplitSeq([]byte(text), []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var fast, slow ccRecord
			if !cs.decode(line, &fast) {
				continue
			}
			n++
			if err := json.Unmarshal(line, &slow); err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%.200s:\nfast %+v\njson %+v (%v)", line, fast, slow, err)
			}
		}
	}
	t.Logf("%d records", n)
}

// TestCCSessionStart: each session of a file of several starts at its
// first record's timestamp, the reader's decoder leaving out the
// timestamps of the records after it.
func TestCCSessionStart(t *testing.T) {
	log := `{"type":"user","sessionId":"a","timestamp":"2026-01-01T10:00:00Z","message":{"content":"one"}}
{"type":"progress","sessionId":"a","timestamp":"2026-01-01T10:00:05Z"}
{"type":"user","sessionId":"b","timestamp":"2026-01-02T11:00:00Z","message":{"content":"two"}}
{"type":"user","sessionId":"b","timestamp":"2026-01-02T11:00:09Z","message":{"content":"three"}}
{"type":"user","timestamp":"2026-01-03T12:00:00Z","message":{"content":"no id"}}
{"type":"progress","sessionId":"c","timestamp":"2026-01-04T13:00:00Z"}
`
	sessions, err := ReadClaudeCode(strings.NewReader(log), "cat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-01-01T10:00:00Z", "2026-01-02T11:00:00Z", "2026-01-04T13:00:00Z"}
	if len(sessions) != len(want) {
		t.Fatalf("%d sessions, want %d", len(sessions), len(want))
	}
	for i, s := range sessions {
		if got := s.Start.UTC().Format(time.RFC3339); got != want[i] {
			t.Errorf("session %d (%s) starts %s, want %s", i, s.ID, got, want[i])
		}
	}
}
