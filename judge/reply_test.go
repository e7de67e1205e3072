package judge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
		reason string
		in     string
		want   Reply
		errHas string // non-empty: an error containing this is expected
	}{
		{
			reason: "bare object",
			in:     `{"reasoning": "turn 19 says so", "answer": "develop", "verdict": "supported"}`,
			want:   Reply{Reasoning: "turn 19 says so", Answer: "develop", Verdict: fixture.Supported},
		},
		{
			reason: "json code fence with prose around it",
			in:     "Let me check.\n```json\n{\"answer\": \"no\", \"verdict\": \"absent\"}\n```\nHope that helps!",
			want:   Reply{Answer: "no", Verdict: fixture.Absent},
		},
		{
			reason: "verdict in any case, padded with spaces",
			in:     `{"answer":"yes","verdict":"  Contradicted\n"}`,
			want:   Reply{Answer: "yes", Verdict: fixture.Contradicted},
		},
		{
			reason: "braces and escaped quotes inside strings",
			in:     `Note {this}: {"reasoning": "it says \"use {x}\" } here", "answer": "{x}", "verdict": "supported"} trailing }`,
			want:   Reply{Reasoning: `it says "use {x}" } here`, Answer: "{x}", Verdict: fixture.Supported},
		},
		{
			reason: "an earlier object without a verdict is skipped",
			in:     `{"note": 1} then {"verdict": "absent"}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{
			reason: "a verdict nested in a wrapper object is found",
			in:     `{"result": {"answer": "develop", "verdict": "supported"}}`,
			want:   Reply{Answer: "develop", Verdict: fixture.Supported},
		},
		{
			reason: "field names in any case",
			in:     `{"Answer": "rev 14", "VERDICT": "supported"}`,
			want:   Reply{Answer: "rev 14", Verdict: fixture.Supported},
		},
		{
			reason: "a boolean answer is kept as its JSON text",
			in:     `{"answer": true, "verdict": "supported"}`,
			want:   Reply{Answer: "true", Verdict: fixture.Supported},
		},
		{
			reason: "null answer is empty",
			in:     `{"answer": null, "verdict": "absent"}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{
			reason: "a broken object before a good one",
			in:     `{"verdict": "supported", } and {"verdict": "absent"}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{
			reason: "chain of thought: an example verdict in prose, then a different final one — ambiguous, never the first",
			in:     "If the context stated it I would reply {\"verdict\": \"supported\"}, but it does not.\nFinal: {\"reasoning\":\"not in context\",\"answer\":\"\",\"verdict\":\"absent\"}",
			errHas: "the reply gives more than one verdict: supported, absent",
		},
		{
			reason: "three objects, two verdicts: each named once, in order",
			in:     `{"verdict":"Absent"} {"verdict":"contradicted"} {"verdict":"absent"}`,
			errHas: "more than one verdict: absent, contradicted",
		},
		{
			reason: "one object giving the field twice, in different case",
			in:     `{"verdict": "supported", "Verdict": "absent"}`,
			errHas: "more than one verdict: supported, absent",
		},
		{
			reason: "a placeholder verdict before the real one is a second value, shown quoted",
			in:     `Reply as {"verdict": "<supported|absent>"}. {"verdict": "absent"}`,
			errHas: `more than one verdict: "<supported|absent>", absent`,
		},
		{
			reason: "several objects with the same verdict are one verdict; the last gives the answer",
			in:     `Draft: {"answer": "main", "verdict": "supported"} Final: {"answer": "develop", "verdict": " Supported"}`,
			want:   Reply{Answer: "develop", Verdict: fixture.Supported},
		},
		{
			reason: "a verdict nested in an object that has one is not a second verdict",
			in:     `{"verdict": "absent", "detail": {"verdict": "supported"}}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{reason: "a verdict outside the three", in: `{"verdict": "partially"}`, errHas: `verdict "partially" is not one of supported, absent, contradicted`},
		{reason: "verbatim is not the judge's to give", in: `{"verdict": "verbatim"}`, errHas: "is not one of"},
		{reason: "error is not the judge's to give", in: `{"verdict": "error"}`, errHas: "is not one of"},
		{reason: "a verdict that is not a string", in: `{"verdict": 3}`, errHas: `"verdict" field must be a string, got the JSON value 3`},
		{reason: "a null verdict", in: `{"verdict": null}`, errHas: "missing or null"},
		{reason: "no JSON at all", in: "The item is supported.", errHas: "no JSON object"},
		{reason: "unbalanced", in: `{"verdict": "absent"`, errHas: "no JSON object"},
		{reason: "an object answer", in: `{"answer": {"a": 1}, "verdict": "absent"}`, errHas: `"answer" field`},
		{reason: "empty", in: "", errHas: "no JSON object"},
		{
			reason: "a chain of thought: an example verdict, 63 code blocks, the answer (the 64th brace used to end the search)",
			in:     `Example {"verdict":"supported"} ` + strings.Repeat("if x {y} ", 63) + `{"verdict":"absent"}`,
			errHas: "more than one verdict: supported, absent",
		},
		{
			reason: "the verdict after 500 code blocks is read",
			in:     strings.Repeat("if x {y} ", 500) + `so {"answer": "no", "verdict": "absent"}`,
			want:   Reply{Answer: "no", Verdict: fixture.Absent},
		},
		{
			reason: "the verdict after half a megabyte of unclosed braces is read",
			in:     strings.Repeat("{", MaxReplyBytes/2) + `{"verdict": "absent"}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{
			reason: "unclosed braces with quotes between them, then the verdict",
			in:     strings.Repeat(`{ he said "hi`, 2000) + ` {"verdict": "contradicted"}`,
			want:   Reply{Verdict: fixture.Contradicted},
		},
		{
			reason: "a verdict nested in an object without one",
			in:     `{"result": {"verdict": "absent"}}`,
			want:   Reply{Verdict: fixture.Absent},
		},
		{
			reason: "too deeply nested to read in full: an error, not a partial read",
			in:     strings.Repeat(`{"a":`, 30000) + `{"verdict": "absent"}` + strings.Repeat("}", 30000),
			errHas: "too many braces",
		},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got, err := ParseReply(tt.in)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("ParseReply(%q) = %+v, %v; want an error containing %q", tt.in, got, err, tt.errHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseReply(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseReplyNoJSONIsErrNoJSON(t *testing.T) {
	if _, err := ParseReply("supported"); !errors.Is(err, ErrNoJSON) {
		t.Fatalf("err = %v, want ErrNoJSON", err)
	}
}

func TestParseReplyTooLong(t *testing.T) {
	s := `{"verdict":"absent"}` + strings.Repeat(" ", MaxReplyBytes)
	if _, err := ParseReply(s); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("err = %v, want a length error", err)
	}
}

// A reply of nothing but braces must fail quickly (each brace's match is
// settled by the first scan).
func TestParseReplyManyBraces(t *testing.T) {
	s := strings.Repeat("{", MaxReplyBytes/2)
	if _, err := ParseReply(s); !errors.Is(err, ErrNoJSON) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseAgreement(t *testing.T) {
	tests := []struct {
		reason string
		in     string
		want   bool
		errHas string
	}{
		{reason: "yes", in: `{"agree": "yes"}`, want: true},
		{reason: "no, in a fence", in: "```json\n{\"agree\": \"no\"}\n```", want: false},
		{reason: "case and space", in: `{"agree": " YES "}`, want: true},
		{reason: "prose around", in: `They match. {"agree":"yes"} Done.`, want: true},
		{reason: "boolean is not strict enough", in: `{"agree": true}`, errHas: "must be a string, got the JSON value true"},
		{reason: "hedged", in: `{"agree": "yes, mostly"}`, errHas: `agree "yes, mostly" is not "yes" or "no"`},
		{reason: "maybe", in: `{"agree": "maybe"}`, errHas: "is not"},
		{reason: "two objects that disagree are ambiguous, not the first", in: `I might say {"agree": "yes"} but {"agree": "no"}`, errHas: "the reply gives more than one agree value: yes, no"},
		{reason: "one object giving agree twice", in: `{"agree": "yes", "agree": "no"}`, errHas: "more than one agree value: yes, no"},
		{reason: "the same value twice is one answer", in: `{"agree": "yes"} so: {"agree": "YES"}`, want: true},
		{reason: "missing", in: `{"verdict": "supported"}`, errHas: "no JSON object"},
		{reason: "prose only", in: "Yes, they agree.", errHas: "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got, err := ParseAgreement(tt.in)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("ParseAgreement(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.errHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseAgreement(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// A judge that keeps giving two verdicts is re-asked, told why, and
// recorded error — never recorded as the first verdict it wrote.
func TestModelTwoVerdictsIsError(t *testing.T) {
	cot := "If the context stated it I would reply {\"verdict\": \"supported\"}, but it does not.\nFinal: {\"reasoning\":\"not in context\",\"answer\":\"\",\"verdict\":\"absent\"}"
	b := &scripted{name: "test/cot", reply: brain(cot, `{"agree":"yes"}`)}
	a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != fixture.Error || a.Calls != 1+DefaultReasks || !strings.Contains(a.Reason, "more than one verdict: supported, absent") {
		t.Fatalf("answer %+v, want error after %d calls naming both verdicts", a, 1+DefaultReasks)
	}
	if p := b.prompt(1); !strings.Contains(p, "could not be used: the reply gives more than one verdict") {
		t.Fatalf("the re-ask does not say why:\n%s", p)
	}
}
