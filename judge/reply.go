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

// scanBudget bounds the work of finding a reply's JSON objects: at most
// scanBudget bytes per byte of the reply, and scanBudgetBase besides, are
// scanned for braces or handed to the JSON decoder. A reply of a few
// objects among prose and code costs a few times its length; one that
// would cost more (thousands of nested objects) is an error, never read
// in part.
const (
	scanBudget     = 64
	scanBudgetBase = 64 << 10
)

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

// ParseReply reads a judge's reply: the balanced JSON objects in s that
// decode and have a "verdict" field, wherever they sit (bare, inside a
// ```json code fence, or between sentences of prose). Braces inside JSON
// strings are handled; field names match case-insensitively. The verdict
// is trimmed and lower-cased and must be supported, absent or
// contradicted. A reply whose objects give different verdicts — a
// chain-of-thought reply that writes one verdict as an example and
// another as its answer, or one object with the field twice — is an
// error ("the reply gives more than one verdict: supported, absent"),
// never read as one of them; several objects with the same verdict are
// one verdict, and the last of them gives the answer and the reasoning.
// "answer" and "reasoning" are optional; a number or boolean there is
// kept as its JSON text.
func ParseReply(s string) (Reply, error) {
	obj, err := findOne(s, "verdict", "verdict")
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

// ParseAgreement reads a reply to the agreement question: the balanced
// JSON objects in s with an "agree" field (found as ParseReply finds its
// objects), whose value must be the string "yes" or "no" (trimmed, any
// case). Anything else — a boolean, "maybe", "yes, mostly", a missing
// field — is an error, and so are objects that give different values
// ("the reply gives more than one agree value: yes, no").
func ParseAgreement(s string) (bool, error) {
	obj, err := findOne(s, "agree", "agree value")
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

// findOne returns the fields of the last balanced JSON object in s that
// decodes and has field want, after checking that every such object, and
// every field of theirs named want, gives the same value (strings
// compared trimmed and case-folded); different values are an error
// naming them, what being the field's name in it.
func findOne(s, want, what string) (map[string]json.RawMessage, error) {
	objs, err := findObjects(s, want)
	if err != nil {
		return nil, err
	}
	var seen []string // distinct values, as shown in the error
	index := map[string]bool{}
	for _, o := range objs {
		for _, raw := range o.values {
			k, shown := valueKey(raw)
			if !index[k] {
				index[k] = true
				seen = append(seen, shown)
			}
		}
	}
	if len(seen) > 1 {
		return nil, fmt.Errorf("the reply gives more than one %s: %s", what, strings.Join(seen, ", "))
	}
	return objs[len(objs)-1].fields, nil
}

// FindObject returns the text of the JSON object in s that has the field
// want (case-insensitively), found as ParseReply finds its objects: prose,
// code fences and objects without the field around it are passed over.
// No such object is an error wrapping ErrNoJSON; so are several that are
// not the same text, since which is meant cannot be told.
func FindObject(s, want string) (string, error) {
	objs, err := findObjects(s, want)
	if err != nil {
		return "", err
	}
	for _, o := range objs[1:] {
		if o.text != objs[0].text {
			return "", fmt.Errorf("the reply holds %d different objects with the field %q", len(objs), want)
		}
	}
	return objs[0].text, nil
}

// found is one object findObjects found: its fields, and every value of
// the field looked for (more than one when the object repeats it, in any
// case).
type found struct {
	fields map[string]json.RawMessage
	values []json.RawMessage
	text   string // the object as the reply wrote it
}

// findObjects returns, in order, every balanced JSON object in s that
// decodes and has field want (case-insensitively). Every opening brace is
// tried, however many: the search resumes after an object it returns, so
// an object nested in one found is not returned again; one nested in an
// object without the field is. A reply whose search would cost more than
// the scan budget is an error, so no object is ever silently left out.
func findObjects(s, want string) ([]found, error) {
	if len(s) > MaxReplyBytes {
		return nil, fmt.Errorf("reply is %d bytes, more than the %d a judge reply may be", len(s), MaxReplyBytes)
	}
	m := braceMatcher{s: s}
	budget := scanBudget*len(s) + scanBudgetBase
	var objs []found
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := m.match(i)
		if end >= 0 {
			m.work += end + 1 - i // the decoding
		}
		if m.work > budget {
			return nil, fmt.Errorf("the reply nests too many braces to be read in full (more than %d bytes of work for %d bytes)", budget, len(s))
		}
		if end < 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s[i:end+1]), &obj) != nil {
			continue
		}
		if _, ok := lookup(obj, want); ok {
			objs = append(objs, found{fields: obj, values: fieldValues(s[i:end+1], want), text: s[i : end+1]})
			i = end
		}
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%w with a %q field in the reply", ErrNoJSON, want)
	}
	return objs, nil
}

// braceMatcher finds the brace closing an opening brace of s, skipping
// braces inside JSON strings, and remembers what each scan learns: a scan
// from the brace at i passes every brace it meets outside a string in the
// state a scan starting there would begin in (outside a string), so it
// settles the match of each of them too. Every brace of a reply full of
// unclosed braces is thus settled by one scan, not one scan each.
type braceMatcher struct {
	s     string
	memo  []int32 // per byte: 0 unknown, -1 unclosed, else the closing index + 1
	stack []int
	work  int // bytes scanned
}

// match returns the index of the brace closing the one at s[i], or -1.
func (m *braceMatcher) match(i int) int {
	if m.memo == nil {
		m.memo = make([]int32, len(m.s))
	}
	if v := m.memo[i]; v != 0 {
		if v < 0 {
			return -1
		}
		return int(v) - 1
	}
	m.stack = m.stack[:0]
	inString, escaped := false, false
	for j := i; j < len(m.s); j++ {
		m.work++
		c := m.s[j]
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
			m.stack = append(m.stack, j)
		case '}':
			open := m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
			m.memo[open] = int32(j + 1)
			if len(m.stack) == 0 {
				return j
			}
		}
	}
	for _, open := range m.stack {
		m.memo[open] = -1
	}
	return -1
}

// fieldValues returns the value of every top-level field of the JSON
// object text whose name is want in any case, repeats included (a map
// keeps only one of them).
func fieldValues(text, want string) []json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return vals
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return vals
		}
		if name, ok := t.(string); ok && strings.EqualFold(name, want) {
			vals = append(vals, raw)
		}
	}
	return vals
}

// valueKey is what two values of a field are compared by — a string
// trimmed and lower-cased, anything else its compact JSON text — and how
// the value is shown in an error: bare when it is a plain word, quoted
// otherwise.
func valueKey(raw json.RawMessage) (key, shown string) {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		key = strings.ToLower(strings.TrimSpace(str))
		if key != "" && len(key) <= 20 && strings.IndexFunc(key, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			return "s" + key, key
		}
		return "s" + key, quoteShort(str)
	}
	text := strings.Join(strings.Fields(string(raw)), " ")
	return "j" + text, quoteShort(text)
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
