package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// MaxReplyBytes is the longest reply the parsers read; longer replies are
// an error (a judge asked for a short JSON object has gone astray).
const MaxReplyBytes = 1 << 20

// maxCandidates bounds how many opening braces the parsers try, so a
// reply full of braces costs linear time, not quadratic.
const maxCandidates = 64

// ErrNoJSON is wrapped by the parsers' error when a reply holds no JSON
// object with the field they look for.
var ErrNoJSON = errors.New("no JSON object")

// Reply is a judge's parsed answer to the verdict question.
type Reply struct {
	Reasoning string          `json:"reasoning"`
	Answer    string          `json:"answer"`
	Verdict   fixture.Verdict `json:"verdict"`
}

// judgeVerdicts are the verdicts a model judge may give.
var judgeVerdicts = []fixture.Verdict{fixture.Supported, fixture.Absent, fixture.Contradicted}

// ParseReply reads a judge's reply: the first balanced JSON object in s
// that decodes and has a "verdict" field, wherever it sits (bare, inside
// a ```json code fence, or between sentences of prose). Braces inside JSON
// strings are handled; field names match case-insensitively. The verdict
// is trimmed and lower-cased and must be supported, absent or
// contradicted. "answer" and "reasoning" are optional; a number or boolean
// there is kept as its JSON text.
func ParseReply(s string) (Reply, error) {
	obj, err := findObject(s, "verdict")
	if err != nil {
		return Reply{}, err
	}
	v, err := stringField(obj, "verdict", false)
	if err != nil {
		return Reply{}, err
	}
	verdict := fixture.Verdict(strings.ToLower(strings.TrimSpace(v)))
	ok := false
	for _, x := range judgeVerdicts {
		ok = ok || verdict == x
	}
	if !ok {
		return Reply{}, fmt.Errorf("verdict %s is not one of supported, absent, contradicted", quoteShort(v))
	}
	answer, err := stringField(obj, "answer", true)
	if err != nil {
		return Reply{}, err
	}
	reasoning, err := stringField(obj, "reasoning", true)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Reasoning: strings.TrimSpace(reasoning), Answer: strings.TrimSpace(answer), Verdict: verdict}, nil
}

// ParseAgreement reads a reply to the agreement question: the first
// balanced JSON object in s with an "agree" field (found as ParseReply
// finds its object), whose value must be the string "yes" or "no"
// (trimmed, any case). Anything else — a boolean, "maybe", "yes, mostly",
// a missing field — is an error.
func ParseAgreement(s string) (bool, error) {
	obj, err := findObject(s, "agree")
	if err != nil {
		return false, err
	}
	v, err := stringField(obj, "agree", false)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("agree %s is not \"yes\" or \"no\"", quoteShort(v))
}

// findObject returns the fields of the first balanced JSON object in s
// that decodes and has field want (case-insensitively).
func findObject(s, want string) (map[string]json.RawMessage, error) {
	if len(s) > MaxReplyBytes {
		return nil, fmt.Errorf("reply is %d bytes, more than the %d a judge reply may be", len(s), MaxReplyBytes)
	}
	tried := 0
	for i := 0; i < len(s) && tried < maxCandidates; i++ {
		if s[i] != '{' {
			continue
		}
		tried++
		end := matchBrace(s, i)
		if end < 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s[i:end+1]), &obj) != nil {
			continue
		}
		if _, ok := lookup(obj, want); ok {
			return obj, nil
		}
	}
	return nil, fmt.Errorf("%w with a %q field in the reply", ErrNoJSON, want)
}

// matchBrace returns the index of the brace closing the one at s[i], or
// -1, skipping braces inside JSON strings.
func matchBrace(s string, i int) int {
	depth, inString, escaped := 0, false, false
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
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// lookup finds a field by name, preferring an exact match to a
// case-insensitive one.
func lookup(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// stringField reads a field as a string. A missing or null field is ""
// when optional; a number or boolean becomes its JSON text when optional
// and is an error otherwise.
func stringField(obj map[string]json.RawMessage, name string, optional bool) (string, error) {
	raw, ok := lookup(obj, name)
	if !ok || string(raw) == "null" {
		if optional {
			return "", nil
		}
		return "", fmt.Errorf("the %q field is missing or null", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	if optional && len(raw) > 0 && raw[0] != '{' && raw[0] != '[' {
		return string(raw), nil
	}
	value := strings.Join(strings.Fields(firstBytes(raw, errorBodyBytes)), " ")
	return "", fmt.Errorf("the %q field must be a string, got the JSON value %s", name, value)
}

// quoteShort quotes untrusted text for an error message, cut to 200 bytes.
func quoteShort(s string) string {
	const limit = 200
	if len(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", s[:cut])
}
