package selection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// The candidates file is a Proposal as JSON: Propose makes one,
// WriteCandidates writes it, ParseCandidates and LoadCandidates read it
// back with every problem placed, and `tally review` rewrites it after
// every decision with WriteCandidates again. Every reader and writer of
// the format is in this file.

// WriteCandidates writes p as a candidates file: indented by two spaces,
// with a final newline and without escaping <, > and & (people read these
// files). It is the one writer of the format, for `tally propose` and
// `tally review` alike; it does not validate p (Proposal.Validate does).
func WriteCandidates(w io.Writer, p Proposal) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// LoadCandidates reads and checks the candidates file at path, a regular
// file of at most lim.MaxLine bytes (zero fields: package input's
// defaults; a named pipe or a device is refused without blocking).
func LoadCandidates(path string, lim input.Limits) (Proposal, error) {
	data, err := input.ReadFile(path, lim)
	if err != nil {
		return Proposal{}, fmt.Errorf("reading candidates: %w", err)
	}
	return ParseCandidates(path, data)
}

var (
	proposalFields = []string{"conversation_id", "turns", "compactions_expected", "candidates", "position"}
	itemFields     = []string{"id", "class", "turn", "role", "literal", "probe", "expect", "confidence", "rule", "status", "message", "line"}
	requiredItem   = []string{"id", "class", "turn", "literal", "probe", "expect"}
)

// ParseCandidates reads a candidates file — one JSON object, a Proposal
// — from data; name is used in problems (normally the file's path).
//
// Required: conversation_id, turns, compactions_expected and candidates,
// and in each candidate id, class, turn, literal, probe and expect.
// Optional: position (default 0), and a candidate's status (default
// pending), confidence (default 0), role, rule, message and line. Every problem
// is reported, as fixture.Problems with line, column and field: malformed
// JSON or UTF-8 (only that problem then), unknown or repeated fields,
// missing fields and values of the wrong type, and everything
// Proposal.Validate checks.
func ParseCandidates(name string, data []byte) (Proposal, error) {
	d := &checker{file: name, data: data, pos: map[string]int{}}
	root, err := d.tree()
	if err != nil {
		return Proposal{}, err
	}
	p := d.proposal(root)
	if root.kind == 'o' {
		d.check(&p)
	}
	if len(d.probs) > 0 {
		slices.SortStableFunc(d.probs, func(a, b fixture.Problem) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return Proposal{}, d.probs
	}
	return p, nil
}

// Validate checks a proposal built or changed in code against the rules
// ParseCandidates applies to values, returning fixture.Problems without
// positions: a conversation_id that can name a folder, turns at least 1,
// compactions_expected not negative, unique non-blank ids, known classes,
// turns inside 1..turns, non-blank literal, probe and expect, confidence
// in [0, 1], a known status and position inside 0..len(candidates).
func (p Proposal) Validate() error {
	d := &checker{}
	d.check(&p)
	if len(d.probs) > 0 {
		return d.probs
	}
	return nil
}

// Fixture returns the fixture p's accepted candidates make, in turn order
// (ties in candidate order), keeping their ids — verdict records name
// items by id, so an id must not change when a later decision accepts or
// rejects another item. It is checked with fixture.Fixture.Validate.
func (p Proposal) Fixture() (fixture.Fixture, error) {
	f := fixture.Fixture{ConversationID: p.ConversationID, Turns: p.Turns, CompactionsExpected: p.CompactionsExpected, MustSurvive: []fixture.Item{}}
	for _, c := range p.Candidates {
		if c.Status == ReviewAccepted {
			f.MustSurvive = append(f.MustSurvive, c.Item())
		}
	}
	slices.SortStableFunc(f.MustSurvive, func(a, b fixture.Item) int { return a.Turn - b.Turn })
	if err := f.Validate(); err != nil {
		return fixture.Fixture{}, err
	}
	return f, nil
}

// checker collects the problems of one candidates file.
type checker struct {
	file  string
	data  []byte
	pos   map[string]int // path → byte offset of the value (nil: no positions)
	probs fixture.Problems
}

// add records a problem with the value at path, located at byte offset
// off, or where the value at path starts when off is negative.
func (d *checker) add(path string, off int, msg string) {
	p := fixture.Problem{File: d.file, Field: path, Msg: msg}
	if d.data != nil {
		if o, ok := d.pos[path]; ok && off < 0 {
			off = o
		}
		p.Line, p.Col = jsonscan.Position(d.data, off)
	}
	d.probs = append(d.probs, p)
}

// node is a parsed JSON value with the offset where it starts.
type node struct {
	off   int
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	str   string
	num   json.Number
	keys  []string
	koffs []int
	vals  []*node
	elems []*node
}

// tree parses d.data into nodes with their offsets, on the one lexer.
func (d *checker) tree() (*node, error) {
	fail := func(off int, msg string) error {
		line, col := jsonscan.Position(d.data, off)
		return fixture.Problems{{File: d.file, Line: line, Col: col, Msg: msg}}
	}
	if !utf8.Valid(d.data) {
		off := 0
		for off < len(d.data) {
			r, size := utf8.DecodeRune(d.data[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, fail(off, fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", d.data[off]))
	}
	var s jsonscan.Scanner
	s.ResetDocument(d.data)
	var walk func(depth int) (*node, *jsonscan.Error)
	walk = func(depth int) (*node, *jsonscan.Error) {
		c := s.Peek()
		n := &node{off: s.Pos()}
		if depth > 64 && (c == '{' || c == '[') {
			return nil, &jsonscan.Error{Off: n.off, Msg: "nested more than 64 deep"}
		}
		switch {
		case c == '{':
			n.kind = 'o'
			if err := s.BeginObject("", "an object"); err != nil {
				return nil, err
			}
			for i := 0; ; i++ {
				k, koff, more, err := s.Member(i)
				if err != nil {
					return nil, err
				}
				if !more {
					break
				}
				key := string(k)
				val, err := walk(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys, n.koffs, n.vals = append(n.keys, key), append(n.koffs, koff), append(n.vals, val)
			}
		case c == '[':
			n.kind = 'a'
			if err := s.BeginArray("", "an array"); err != nil {
				return nil, err
			}
			for i := 0; ; i++ {
				more, err := s.Element(i)
				if err != nil {
					return nil, err
				}
				if !more {
					break
				}
				val, err := walk(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, val)
			}
		case c == '"':
			b, err := s.String("")
			if err != nil {
				return nil, err
			}
			n.kind, n.str = 's', string(b)
		case c == '-' || '0' <= c && c <= '9':
			lit, _, err := s.Number("")
			if err != nil {
				return nil, err
			}
			n.kind, n.num = 'n', json.Number(lit)
		case c == 't' || c == 'f':
			if _, err := s.Bool(""); err != nil {
				return nil, err
			}
			n.kind = 'b'
		case c == 'n':
			if err := s.Literal("null"); err != nil {
				return nil, err
			}
			n.kind = 'z'
		default:
			return nil, s.SkipValue() // words the error
		}
		return n, nil
	}
	root, err := walk(0)
	if err == nil {
		if e := s.End(); e != nil {
			return nil, fail(e.Off, "extra data after the candidates object")
		}
		return root, nil
	}
	if err.EOF && err.Off == len(d.data) {
		// At the last character, not past the file's final newline.
		return nil, fail(len(bytes.TrimRight(d.data, " \t\r\n")), err.Msg)
	}
	return nil, fail(err.Off, err.Msg)
}

// describe names a value's type, and its value when short.
func describe(n *node) string {
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "string " + strconv.Quote(propPreview(n.str))
	case 'n':
		return "number " + propPreview(n.num.String())
	case 'b':
		return "a boolean"
	}
	return "null"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// members matches an object's members to names, reporting unknown and
// repeated keys, and records each value's position.
func (d *checker) members(n *node, path string, names []string) map[string]*node {
	out := map[string]*node{}
	for i, k := range n.keys {
		switch {
		case !slices.Contains(names, k):
			d.add(path, n.koffs[i], fmt.Sprintf("unknown field %q (want %s)", propPreview(k), strings.Join(names, ", ")))
		case out[k] != nil:
			d.add(join(path, k), n.koffs[i], "repeated field")
		default:
			out[k] = n.vals[i]
			d.pos[join(path, k)] = n.vals[i].off
		}
	}
	return out
}

func (d *checker) str(m map[string]*node, path, key string, required bool, owner *node) (string, bool) {
	n := m[key]
	if n == nil {
		if required {
			d.add(join(path, key), owner.off, "missing")
		}
		return "", false
	}
	if n.kind != 's' {
		d.add(join(path, key), n.off, "want a string, got "+describe(n))
		return "", false
	}
	return n.str, true
}

func (d *checker) integer(m map[string]*node, path, key string, required bool, owner *node) (int, bool) {
	n := m[key]
	if n == nil {
		if required {
			d.add(join(path, key), owner.off, "missing")
		}
		return 0, false
	}
	v, err := strconv.Atoi(n.num.String())
	if n.kind != 'n' || err != nil {
		if n.kind == 'n' && !strings.ContainsAny(n.num.String(), ".eE") {
			d.add(join(path, key), n.off, "number "+propPreview(n.num.String())+" is out of range")
		} else {
			d.add(join(path, key), n.off, "want a whole number, got "+describe(n))
		}
		return 0, false
	}
	return v, true
}

// proposal decodes the root object, reporting shape and type problems.
// Values of the wrong type are left at their zero value and marked in
// d.pos as unchecked (removed), so check does not report them twice.
func (d *checker) proposal(root *node) Proposal {
	var p Proposal
	if root.kind != 'o' {
		d.add("", root.off, "want a JSON object (one candidates file), got "+describe(root))
		return p
	}
	m := d.members(root, "", proposalFields)
	var ok bool
	if p.ConversationID, ok = d.str(m, "", "conversation_id", true, root); !ok {
		d.skip("conversation_id")
	}
	if p.Turns, ok = d.integer(m, "", "turns", true, root); !ok {
		d.skip("turns")
	}
	if p.CompactionsExpected, ok = d.integer(m, "", "compactions_expected", true, root); !ok {
		d.skip("compactions_expected")
	}
	if _, present := m["position"]; present {
		if p.Position, ok = d.integer(m, "", "position", false, root); !ok {
			d.skip("position")
		}
	}
	list := m["candidates"]
	switch {
	case list == nil:
		d.add("candidates", root.off, "missing")
		d.skip("position")
	case list.kind != 'a':
		d.add("candidates", list.off, "want an array of candidates, got "+describe(list))
		d.skip("position")
	default:
		p.Candidates = make([]ProposedItem, len(list.elems))
		for i, e := range list.elems {
			p.Candidates[i] = d.item(e, fmt.Sprintf("candidates[%d]", i))
		}
	}
	return p
}

// skipped marks a value already reported; check leaves it alone.
const skipped = -2

func (d *checker) skip(path string) {
	if d.pos != nil {
		d.pos[path] = skipped
	}
}

func (d *checker) item(n *node, path string) ProposedItem {
	var it ProposedItem
	if n.kind != 'o' {
		d.add(path, n.off, "want an object (a candidate), got "+describe(n))
		for _, k := range itemFields {
			d.skip(join(path, k))
		}
		return it
	}
	m := d.members(n, path, itemFields)
	s := func(key string, dst *string) {
		v, ok := d.str(m, path, key, slices.Contains(requiredItem, key), n)
		if !ok {
			d.skip(join(path, key))
		}
		*dst = v
	}
	s("id", &it.ID)
	var class, status string
	s("class", &class)
	it.Class = fixture.Class(class)
	s("role", &it.Role)
	s("literal", &it.Literal)
	s("probe", &it.Probe)
	s("expect", &it.Expect)
	s("rule", &it.Rule)
	s("message", &it.Message)
	if _, present := m["status"]; present {
		s("status", &status)
		it.Status = ReviewStatus(status)
	} else {
		it.Status = ReviewPending
	}
	if t, ok := d.integer(m, path, "turn", true, n); ok {
		it.Turn = t
	} else {
		d.skip(join(path, "turn"))
	}
	if _, present := m["line"]; present {
		if l, ok := d.integer(m, path, "line", false, n); ok {
			it.Line = l
		} else {
			d.skip(join(path, "line"))
		}
	}
	if c := m["confidence"]; c != nil {
		f, err := c.num.Float64()
		if c.kind != 'n' || err != nil {
			d.add(join(path, "confidence"), c.off, "want a number from 0 to 1, got "+describe(c))
			d.skip(join(path, "confidence"))
		} else {
			it.Confidence = f
		}
	}
	return it
}

// check applies the rules on values. With positions (Parse), values
// marked skipped were reported already.
func (d *checker) check(p *Proposal) {
	ok := func(path string) bool { return d.pos == nil || d.pos[path] != skipped }
	blank := func(path, s string) {
		if ok(path) && strings.TrimSpace(s) == "" {
			if s == "" {
				d.add(path, -1, "empty")
			} else {
				d.add(path, -1, "blank: only white space")
			}
		}
	}
	blank("conversation_id", p.ConversationID)
	if ok("conversation_id") && strings.TrimSpace(p.ConversationID) != "" && !fixture.ValidConversationID(p.ConversationID) {
		d.add("conversation_id", -1, fmt.Sprintf("%q cannot name a folder (no /, \\, :, control characters, \".\" or \"..\")", propPreview(p.ConversationID)))
	}
	turnsOK := ok("turns") && p.Turns >= 1
	if ok("turns") && p.Turns < 1 {
		d.add("turns", -1, fmt.Sprintf("must be at least 1, got %d", p.Turns))
	}
	if ok("compactions_expected") && p.CompactionsExpected < 0 {
		d.add("compactions_expected", -1, fmt.Sprintf("must not be negative, got %d", p.CompactionsExpected))
	}
	if ok("position") && (p.Position < 0 || p.Position > len(p.Candidates)) {
		d.add("position", -1, fmt.Sprintf("%d is outside 0..%d (the number of candidates)", p.Position, len(p.Candidates)))
	}
	first := map[string]int{}
	for i, c := range p.Candidates {
		path := fmt.Sprintf("candidates[%d]", i)
		f := func(k string) string { return path + "." + k }
		blank(f("id"), c.ID)
		if ok(f("id")) && strings.TrimSpace(c.ID) != "" {
			if j, dup := first[c.ID]; dup {
				d.add(f("id"), -1, fmt.Sprintf("duplicate id %q (first at candidates[%d])", propPreview(c.ID), j))
			} else {
				first[c.ID] = i
			}
		}
		if ok(f("class")) && !c.Class.Valid() {
			d.add(f("class"), -1, fmt.Sprintf("%q is not a class (want constraint, commitment, open_question or reference)", propPreview(string(c.Class))))
		}
		if ok(f("turn")) {
			switch {
			case turnsOK && (c.Turn < 1 || c.Turn > p.Turns):
				d.add(f("turn"), -1, fmt.Sprintf("%d is outside 1..%d (turns)", c.Turn, p.Turns))
			case !turnsOK && c.Turn < 1:
				d.add(f("turn"), -1, fmt.Sprintf("%d is not a turn (turns are numbered from 1)", c.Turn))
			}
		}
		blank(f("literal"), c.Literal)
		blank(f("probe"), c.Probe)
		blank(f("expect"), c.Expect)
		if ok(f("line")) && c.Line < 0 {
			d.add(f("line"), -1, fmt.Sprintf("%d is not a line (lines are numbered from 1; 0 or none when unknown)", c.Line))
		}
		if ok(f("confidence")) && !(c.Confidence >= 0 && c.Confidence <= 1) {
			d.add(f("confidence"), -1, fmt.Sprintf("%v is outside 0..1", c.Confidence))
		}
		if ok(f("status")) && !c.Status.Valid() {
			d.add(f("status"), -1, fmt.Sprintf("%q is not a status (want pending, accepted or rejected)", propPreview(string(c.Status))))
		}
	}
}
