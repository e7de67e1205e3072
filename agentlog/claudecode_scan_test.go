package agentlog

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// FuzzCCDecode: what the fast decoder accepts, it decodes exactly as
// json.Unmarshal does.
func FuzzCCDecode(f *testing.F) {
	if data, err := os.ReadFile("testdata/session.jsonl"); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	for _, s := range []string{
		`{"type":"system","subtype":"microcompact_boundary","microcompactMetadata":{"trigger":"auto","preTokens":5,"tokensSaved":2,"compactedToolIds":["a",null]}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":1e3}}`,
		`{"Type":"user","message":{"content":"hi"}}`,
		`{"type":"user","i\u017fMeta":true,"message":{"content":"hi"}}`,                             // LONG S: encoding/json reads isMeta
		`{"type":"system","compactMetadata":{"trigger":"auto","preTo\u212aens":7,"tokensSaved":1}}`, // KELVIN SIGN: preTokens
		`{"type":"user","type":"assistant","message":null,"error":{"status":529},"isMeta":null}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"\u00e9"}],"is_error":true},null]}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast ccRecord
		if !decodeCCRecord(line, &fast) {
			return
		}
		var slow ccRecord
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json: %v", line, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\njson %+v", line, fast, slow)
		}
	})
}

// TestCCDecodeRealLogs: every line of the real sessions takes the fast
// path (declining is safe but slow), and decodes as encoding/json does.
func TestCCDecodeRealLogs(t *testing.T) {
	files := realLogs(t)
	declined, lines := 0, 0
	for _, p := range files {
		for _, line := range bytes.Split(gunzip(t, p), []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			lines++
			var fast, slow ccRecord
			if !decodeCCRecord(line, &fast) {
				declined++
				continue
			}
			if err := json.Unmarshal(line, &slow); err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s: a line decodes differently: %v", p, err)
			}
		}
	}
	t.Logf("%d lines, %d declined by the fast decoder", lines, declined)
	if declined > 0 {
		t.Errorf("%d of %d lines declined by the fast decoder", declined, lines)
	}
}
