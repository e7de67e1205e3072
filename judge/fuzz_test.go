package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// FuzzParseReply: any input gives an error or a reply with one of the
// three judge verdicts; never a panic.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"reasoning":"r","answer":"develop","verdict":"supported"}`,
		"```json\n{\"verdict\": \"Absent\"}\n```",
		`prose {"a": "}"} {"verdict": " contradicted "}`,
		`{"verdict": "maybe"}`, `{"verdict": 1}`, `{"verdict"`, `{{{{`, `"\"{`, "",
		`{"answer": [1,2], "verdict": "absent"}`, "{\"verdict\": \"supported\xff\"}",
		`I would say {"verdict": "supported"} but {"verdict": "absent"}`, `{"verdict": "absent", "Verdict": "absent"}`,
		`Example {"verdict":"supported"} ` + strings.Repeat("if x {y} ", 63) + `{"verdict":"absent"}`,
		`{ he said "hi { {"verdict": "absent"}`, `{"result": {"verdict": "absent"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReply(s)
		if err != nil {
			return
		}
		if r.Verdict != fixture.Supported && r.Verdict != fixture.Absent && r.Verdict != fixture.Contradicted {
			t.Fatalf("ParseReply(%q) accepted verdict %q", s, r.Verdict)
		}
	})
}

// FuzzFindObjects: the memoised search finds the same objects, at the
// same places, as trying every opening brace with a fresh scan.
func FuzzFindObjects(f *testing.F) {
	for _, s := range []string{
		`prose {"a": "}"} {"verdict": "x"}`, `{ he said "hi { {"verdict": "absent"}`, `{"result": {"verdict": "absent"}}`,
		`{"verdict": "a {"} "{" {"verdict": "b"}`, `{{{"verdict":1}`, `"\"{"verdict":2}"`, `{"x": "\\"} {"verdict": 3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		got, err := findObjects(s, "verdict")
		want := bruteObjects(s, "verdict")
		if err != nil && !errors.Is(err, ErrNoJSON) {
			t.Fatalf("findObjects(%q): %v", s, err)
		}
		if len(got) != len(want) {
			t.Fatalf("findObjects(%q) found %d objects, trying every brace finds %d", s, len(got), len(want))
		}
		for i := range got {
			if fmt.Sprint(got[i].values) != fmt.Sprint(want[i]) {
				t.Fatalf("findObjects(%q) object %d: %s, want %s", s, i, got[i].values, want[i])
			}
		}
	})
}

// bruteObjects is findObjects the slow way: each opening brace matched
// by a fresh scan. It returns each object's values of want.
func bruteObjects(s, want string) [][]json.RawMessage {
	var out [][]json.RawMessage
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := -1
		depth, inString, escaped := 0, false, false
	scan:
		for j := i; j < len(s); j++ {
			c := s[j]
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = j
					break scan
				}
			}
		}
		if end < 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s[i:end+1]), &obj) != nil {
			continue
		}
		if _, ok := lookup(obj, want); ok {
			out = append(out, fieldValues(s[i:end+1], want))
			i = end
		}
	}
	return out
}

// FuzzParseAgreement: any input gives an error or a yes/no; never a panic,
// and "yes" and "no" are never both read from one reply.
func FuzzParseAgreement(f *testing.F) {
	for _, s := range []string{
		`{"agree":"yes"}`, `{"agree":"NO"}`, "```\n{\"agree\": \"yes\"}\n```", `{"agree": true}`,
		`{"agree": "yes", "agree": "no"}`, `{"agree"`, `}{`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a1, err1 := ParseAgreement(s)
		a2, err2 := ParseAgreement(s)
		if (err1 == nil) != (err2 == nil) || a1 != a2 {
			t.Fatalf("ParseAgreement(%q) is not deterministic", s)
		}
		if err1 == nil && !strings.Contains(strings.ToLower(s), "agree") {
			t.Fatalf("ParseAgreement(%q) = %v without an agree field", s, a1)
		}
		if err1 != nil && a1 {
			t.Fatalf("ParseAgreement(%q) = true with an error", s)
		}
	})
}

// recordedErrLine matches the start of ReadRecorded's errors: the file
// and the line.
var recordedErrLine = regexp.MustCompile(`^v\.jsonl:([0-9]+)(:[0-9]+)?: `)

// FuzzReadRecorded: any verdict file gives an error naming the file and
// a line in it, or verdicts that are each complete and valid — system,
// conversation and item named, compaction from 1, a class and a
// verdict from their lists, strings in UTF-8 — at most one per line,
// each answered back by Judge; never a panic.
func FuzzReadRecorded(f *testing.F) {
	if data, err := os.ReadFile("testdata/verdicts.jsonl"); err == nil {
		f.Add(data)
	}
	const good = `{"system":"s","conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","verdict":"absent"}`
	for _, s := range []string{
		good + "\n" + good + "\r\n",
		good + "\n" + strings.Replace(good, "absent", "verbatim", 1),
		`{"system":"s","conversation_id":"c","compaction":-1,"item_id":"i","class":"x","verdict":"y"}`,
		`{"system":"s","compaction":"1"}`, `{"system":1}`, `{"x":1}`, `{`, `{} {}`, `[]`, `null`, "\n\n \t\n",
		"{\"system\":\"\xff\",\"conversation_id\":\"c\",\"compaction\":0,\"item_id\":\"i\",\"class\":\"reference\",\"verdict\":\"error\"}",
		`{"system":"s","conversation_id":"c","compaction":1e3,"item_id":"i","class":"constraint","verdict":"absent"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadRecorded(bytes.NewReader(data), "v.jsonl")
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			m := recordedErrLine.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("error %q does not name the file and line", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines+1 {
				t.Fatalf("error %q names line %d of %d", err, n, lines)
			}
			return
		}
		nonBlank := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if r.Len() > nonBlank {
			t.Fatalf("%d verdicts from %d lines", r.Len(), nonBlank)
		}
		for k, x := range r.records {
			if x.System == "" || x.ConversationID == "" || x.ItemID == "" || x.Compaction < 1 || !x.Class.Valid() || !x.Verdict.Valid() {
				t.Fatalf("accepted %+v", x)
			}
			for _, s := range []string{x.System, x.ConversationID, x.ItemID, x.Answer, x.Judge, x.Expect, x.Reason} {
				if !utf8.ValidString(s) {
					t.Fatalf("accepted invalid UTF-8 %q in %+v", s, x)
				}
			}
			if k != (recordKey{x.System, x.ConversationID, x.Compaction, x.ItemID}) {
				t.Fatalf("record %+v under key %+v", x, k)
			}
			a, err := r.Judge(context.Background(), Question{System: x.System, ConversationID: x.ConversationID, Compaction: x.Compaction, ItemID: x.ItemID, Class: x.Class})
			if err != nil || a.Verdict != x.Verdict || a.Answer != x.Answer || a.Reason != x.Reason || a.Judge == "" {
				t.Fatalf("Judge for %+v = %+v, %v", x, a, err)
			}
		}
	})
}
