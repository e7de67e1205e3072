package judge

import (
	"strings"
	"testing"

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
