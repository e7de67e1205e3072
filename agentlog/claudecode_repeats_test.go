package agentlog

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
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
