package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

func TestRecordedLookups(t *testing.T) {
	r, err := LoadRecorded("testdata/verdicts.jsonl", input.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (a blank line and an identical repeat skipped)", r.Len())
	}
	q := func(system string, compaction int, item string, class fixture.Class) Question {
		return Question{System: system, ConversationID: "sess_2026_03_11_a4f1", Compaction: compaction, ItemID: item, Class: class}
	}
	tests := []struct {
		reason string
		q      Question
		want   Answer
	}{
		{"verbatim, no judge named", q("incumbent", 1, "c1", fixture.Constraint),
			Answer{Verdict: fixture.Verbatim, Judge: RecordedJudgeName}},
		{"supported with its judge", q("incumbent", 1, "c2", fixture.Commitment),
			Answer{Verdict: fixture.Supported, Answer: "develop", Judge: "openai/qwen2.5-7b-instruct"}},
		{"the system is part of the key", q("candidate", 1, "c2", fixture.Commitment),
			Answer{Verdict: fixture.Contradicted, Answer: "main", Expect: "develop", Judge: "openai/qwen2.5-7b-instruct",
				Reason: "the judge found the answer supported, but its answer disagrees with the expected answer"}},
		{"the compaction is part of the key", q("candidate", 1, "c3", fixture.OpenQuestion),
			Answer{Verdict: fixture.Error, Judge: RecordedJudgeName, Reason: NoRecordedVerdict}},
		{"a missing record is an error verdict, not absent", q("candidate", 2, "c9", fixture.Reference),
			Answer{Verdict: fixture.Error, Judge: RecordedJudgeName, Reason: "no recorded verdict"}},
		{"a class mismatch is an error verdict", q("candidate", 2, "c3", fixture.Constraint),
			Answer{Verdict: fixture.Error, Answer: "unknown", Judge: RecordedJudgeName,
				Reason: `the recorded verdict is for class "open_question", the fixture's item is "constraint"`}},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got, err := r.Judge(context.Background(), tt.q)
			if err != nil || got != tt.want {
				t.Fatalf("Judge = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Judge(ctx, tests[0].q); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestRecordedMalformed(t *testing.T) {
	const good = `{"system":"s","conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","verdict":"absent"}`
	// The rules and the messages are fixture.RecordReader's, the one
	// reader of verdict lines; columns counted by hand (1-based, in
	// characters), missing keys placed at the object's start.
	missing := func(line int, keys ...string) string {
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "v.jsonl:%d:1: %s: missing\n", line, k)
		}
		return b.String()
	}
	tests := []struct {
		reason string
		text   string
		want   string // the whole error
	}{
		{"a syntax error names line and column", good + "\n\n" + `{"system":"s", "verdict": absent}`,
			`v.jsonl:3:27: invalid character 'a' looking for beginning of value`},
		{"a wrong type names the value's column", `{"system":"s","compaction" : "one"}`,
			missing(1, "conversation_id", "item_id", "class", "verdict") + `v.jsonl:1:30: compaction: must be a whole number, got string "one"`},
		{"an unknown field", good + "\n" + `{"system":"s","verdikt":"absent"}`,
			missing(2, "conversation_id", "compaction", "item_id", "class", "verdict") + `v.jsonl:2:15: unknown field "verdikt" (did you mean "verdict"?)`},
		{"an unclosed object", `{"system":"s"`,
			`v.jsonl:1:14: unexpected end of input: the object at line 1, column 1 is not closed`},
		{"two values on a line", good + " " + good,
			`v.jsonl:1:107: invalid character '{' after top-level value`},
		{"a bad verdict and missing keys", `{"system":"s","compaction":1,"class":"constraint","verdict":"lost"}`,
			missing(1, "conversation_id", "item_id") + `v.jsonl:1:61: verdict: "lost" is not a verdict (want verbatim, supported, absent, contradicted or error)`},
		{"a bad class", strings.Replace(good, "constraint", "rule", 1),
			`v.jsonl:1:74: class: "rule" is not a class (want constraint, commitment, open_question or reference)`},
		{"a conflicting duplicate", good + "\n" + strings.Replace(good, "absent", "supported", 1),
			`v.jsonl:2: a second, different verdict for system "s", conversation "c", compaction 1, item "i" (the first is on line 1)`},
		// Before one reader, encoding/json let these through: 0 is an int,
		// and the last of two keys wins. RecordReader refused them.
		{"compaction 0 and a repeated verdict key, as RecordReader reads them",
			strings.Replace(good, `"compaction":1`, `"compaction":0`, 1)[:len(good)-1] + `,"verdict":"supported"}`,
			`v.jsonl:1:50: compaction: must be at least 1 (compactions are numbered from 1), got 0` + "\n" +
				`v.jsonl:1:106: verdict: repeated field (first at column 87)`},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			_, err := ReadRecorded(strings.NewReader(tt.text), "v.jsonl")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant    %s", err, tt.want)
			}
		})
	}
	if _, err := LoadRecorded("testdata/missing.jsonl", input.Limits{}); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Fatalf("missing file: %v", err)
	}
}
