package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
	"github.com/tally-eval/tally/power"
	"github.com/tally-eval/tally/report/internal/format"
	"github.com/tally-eval/tally/reviews"
)

// Replay outcomes and reference kinds, as written in replay pairs.
const (
	Success       = "success"
	Failure       = "failure"
	Uncompacted   = "uncompacted"
	AcceptedTrace = "accepted_trace"
)

// ReferenceKinds lists the reference kinds in the order reports show
// them.
var ReferenceKinds = []string{Uncompacted, AcceptedTrace}

// MaxReplayLine bounds one line of a replay file: a pair is four short
// fields.
const MaxReplayLine = 64 << 10

var replayFields = []string{"conversation_id", "reference", "candidate", "reference_kind"}

// LoadReplay reads the replay pairs in the JSONL file at path, under lim
// (zero fields: package input's defaults): a path that is no regular file
// or a file larger than lim.MaxFile is an error naming it, and a line may
// be at most lim.MaxLine bytes as well as MaxReplayLine.
func LoadReplay(path string, lim input.Limits) ([]ReplayPair, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("reading replay pairs: %w", err)
	}
	defer f.Close()
	return readReplay(f, path, lim.Line())
}

// ReadReplay reads replay pairs, one JSON object per line:
// {"conversation_id","reference":"success"|"failure",
// "candidate":"success"|"failure","reference_kind":"uncompacted"|"accepted_trace"}.
// Blank lines are skipped; a line may end in "\n" or "\r\n".
//
// Every problem is reported (up to 100 per file), as fixture.Problems
// naming the file, line, column and field: malformed JSON, an unknown,
// repeated or missing field, a wrong type or value, a conversation_id
// used twice. A file with no pairs is an error. A read error is returned
// wrapped with the file and line.
func ReadReplay(r io.Reader, name string) ([]ReplayPair, error) {
	return readReplay(r, name, MaxReplayLine)
}

// readReplay is ReadReplay with lines of at most min(maxLine,
// MaxReplayLine) bytes.
func readReplay(r io.Reader, name string, maxLine int64) ([]ReplayPair, error) {
	var (
		pairs []ReplayPair
		probs fixture.ProblemList
		first = map[string]int{}
	)
	err := eachJSONLine(r, name, maxLine, "replay pairs", "a replay pair is one short JSON object", &probs, func(line []byte, lineNo int) {
		p, lp := parseReplayLine(name, line, lineNo)
		if len(lp) > 0 {
			probs.Add(lp...)
			return
		}
		if at, dup := first[p.ConversationID]; dup {
			probs.Add(fixture.Problem{File: name, Line: lineNo, Col: jsonscan.ValueColumn(line, "conversation_id"), Field: "conversation_id",
				Msg: fmt.Sprintf("duplicate conversation_id %q (first at line %d); each conversation is replayed once", previewText(p.ConversationID), at)})
			return
		}
		first[p.ConversationID] = lineNo
		pairs = append(pairs, p)
	})
	if err != nil {
		return nil, err
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s: no replay pairs (want one JSON object per line: conversation_id, reference, candidate, reference_kind)", name)
	}
	return pairs, nil
}

// eachJSONLine calls do with each line of r that is not blank, without
// its line end, and the line's number (from 1). A line longer than
// MaxReplayLine is skipped and added to probs, with hint saying what a
// line should be, as is one longer than maxLine (the --max-line limit,
// when it is lower); a read error ends it, wrapped with what is read (the
// file's kind), name and the line.
func eachJSONLine(r io.Reader, name string, maxLine int64, what, hint string, probs *fixture.ProblemList, do func(line []byte, lineNo int)) error {
	if maxLine <= 0 {
		maxLine = MaxReplayLine
	}
	lr := input.NewLines(r, name, min(maxLine, MaxReplayLine))
	for {
		line, err := lr.Next()
		lineNo := lr.Line()
		if err == io.EOF {
			return nil
		}
		var le *input.LineError
		if errors.As(err, &le) {
			p := fixture.Problem{File: name, Line: lineNo, Col: 1, Msg: fmt.Sprintf("line longer than %d bytes; %s", MaxReplayLine, hint)}
			if maxLine < MaxReplayLine {
				p.Col, p.Msg = 0, (&input.LineError{Limit: maxLine}).Error()
			}
			probs.Add(p)
			continue
		}
		if err != nil {
			return fmt.Errorf("reading %s: %s:%d: %w", what, name, lineNo+1, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		do(line, lineNo)
	}
}

// field is one field of a flat JSON object read by parseObjectLine.
type lineField struct {
	name     string
	isInt    bool // a whole number; otherwise a string
	optional bool // may be left out
}

// value is one field's value as read: its text or number, and the byte
// offset of the value (-1 when the field is missing or was not of its
// type, which is already a problem).
type lineValue struct {
	str string
	num int64
	off int
}

// parseObjectLine parses one JSON object of string and integer fields,
// all required, on one line, reporting every problem: malformed JSON
// (with the position of the fault), an unknown, repeated or missing
// field, a value of the wrong type.
func parseObjectLine(name string, line []byte, lineNo int, fields []lineField) ([]lineValue, []fixture.Problem) {
	var probs []fixture.Problem
	add := func(off int, field, format string, args ...any) {
		probs = append(probs, fixture.Problem{File: name, Line: lineNo, Col: jsonscan.Column(line, off), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	vals := make([]lineValue, len(fields))
	for i := range vals {
		vals[i].off = -1
	}
	// syntax reports a syntax error; a line that ends too soon, whatever
	// it was in, is one message.
	syntax := func(e *jsonscan.Error) ([]lineValue, []fixture.Problem) {
		msg, off := e.Msg, e.Off
		if e.EOF {
			msg, off = "unexpected end of line: want one JSON object on one line", len(line)
		}
		add(off, "", "%s", msg)
		return nil, probs
	}
	var s jsonscan.Scanner
	s.Reset(line)
	start := 0
	switch c := s.Peek(); {
	case c == '{':
		start = s.Pos()
	case c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || '0' <= c && c <= '9':
		add(s.Pos(), "", "want a JSON object, got %s", jsonKind(line[s.Pos():]))
		return nil, probs
	default:
		return syntax(s.SkipValue())
	}
	if err := s.BeginObject("", "a JSON object"); err != nil {
		return syntax(err)
	}
	seen := make([]bool, len(fields))
	for i := 0; ; i++ {
		key, keyOff, more, err := s.Member(i)
		if err != nil {
			return syntax(err)
		}
		if !more {
			break
		}
		k := string(key)
		raw, valOff, err := s.RawValue()
		if err != nil {
			return syntax(err)
		}
		j := slices.IndexFunc(fields, func(f lineField) bool { return f.name == k })
		switch {
		case j < 0:
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.name
			}
			add(keyOff, k, "unknown field (want %s)", strings.Join(names, ", "))
			continue
		case seen[j]:
			add(keyOff, k, "repeated field")
			continue
		}
		seen[j] = true
		if fields[j].isInt {
			if c := raw[0]; c != '-' && (c < '0' || c > '9') {
				add(valOff, k, "want a whole number, got %s", jsonKind(raw))
				continue
			}
			v, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil { // a fraction, an exponent, or out of range
				add(valOff, k, "want a whole number, got %s", previewText(string(raw)))
				continue
			}
			vals[j] = lineValue{num: v, off: valOff}
			continue
		}
		if raw[0] != '"' {
			add(valOff, k, "want a string, got %s", jsonKind(raw))
			continue
		}
		vals[j] = lineValue{str: string(jsonscan.AppendUnescaped(nil, raw[1:len(raw)-1])), off: valOff}
	}
	if err := s.End(); err != nil {
		add(err.Off, "", "more after the JSON object: want one object per line")
	}
	for i, f := range fields {
		if !seen[i] && !f.optional {
			add(start, f.name, "missing")
		}
	}
	return vals, probs
}

// parseReplayLine parses one replay pair, reporting every problem.
func parseReplayLine(name string, line []byte, lineNo int) (ReplayPair, []fixture.Problem) {
	vals, probs := parseObjectLine(name, line, lineNo, []lineField{{name: "conversation_id"}, {name: "reference"}, {name: "candidate"}, {name: "reference_kind"}})
	if vals == nil {
		return ReplayPair{}, probs
	}
	add := func(off int, field, format string, args ...any) {
		probs = append(probs, fixture.Problem{File: name, Line: lineNo, Col: jsonscan.Column(line, off), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	check := func(i int, allowed ...string) {
		v := vals[i]
		if v.off < 0 || slices.Contains(allowed, v.str) {
			return
		}
		add(v.off, replayFields[i], "%q is not %s", previewText(v.str), strings.Join(allowed, " or "))
	}
	check(1, Success, Failure)
	check(2, Success, Failure)
	check(3, ReferenceKinds...)
	if v := vals[0]; v.off >= 0 && strings.TrimSpace(v.str) == "" {
		add(v.off, "conversation_id", "empty")
	}
	if len(probs) > 0 {
		slices.SortStableFunc(probs, func(a, b fixture.Problem) int { return a.Col - b.Col })
		return ReplayPair{}, probs
	}
	return ReplayPair{ConversationID: vals[0].str, Reference: vals[1].str, Candidate: vals[2].str, ReferenceKind: vals[3].str}, nil
}

// jsonKind names the JSON value at the start of b, for a message, in
// the lexer's words (jsonscan.Scanner.Describe): "an object", "the
// number 7", ….
func jsonKind(b []byte) string {
	var s jsonscan.Scanner
	s.Reset(b)
	return s.Describe()
}

// AnalyzeReplay computes the paired task-success analysis of pairs:
// the McNemar tests and paired intervals at the given confidence, the
// reference kinds, the review queue of discordant conversations — the
// lost ones (reference succeeded, candidate failed) first, then the
// gained, each in input order — and the sentence saying what the
// difference is worth, graded by the rule ReplayRule states against
// drop, the drop in task success of interest (a fraction in (0,1)).
//
// The caveats (the χ² approximation with few discordant pairs, accepted
// traces as references) are the Replay's own Warnings: they belong with
// task success, at the bottom of a report, not among its warnings.
func AnalyzeReplay(pairs []ReplayPair, confidence, drop float64) (*Replay, error) {
	if !(drop > 0 && drop < 1) {
		return nil, fmt.Errorf("replay: the drop of interest must be strictly between 0 and 1, got %v", drop)
	}
	var t power.Table
	kinds := map[string]*power.Table{}
	var lost, gained []ReplayPair
	for _, p := range pairs {
		kt := kinds[p.ReferenceKind]
		if kt == nil {
			kt = &power.Table{}
			kinds[p.ReferenceKind] = kt
		}
		for _, tt := range []*power.Table{&t, kt} {
			switch {
			case p.Reference == Success && p.Candidate == Success:
				tt.A++
			case p.Reference == Success:
				tt.B++
			case p.Candidate == Success:
				tt.C++
			default:
				tt.D++
			}
		}
		switch {
		case p.Reference == Success && p.Candidate != Success:
			lost = append(lost, p)
		case p.Reference != Success && p.Candidate == Success:
			gained = append(gained, p)
		}
	}
	res, err := power.McNemar(t, confidence)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	r := &Replay{Result: res, ReferenceKinds: map[string]int{}}
	for _, k := range ReferenceKinds {
		if kt := kinds[k]; kt != nil {
			r.ReferenceKinds[k] = kt.Pairs()
			r.ByKind = append(r.ByKind, ReplayKind{Kind: k, Table: *kt})
		}
	}
	r.Discordant = append(lost, gained...)
	r.Drop = drop
	r.Grade, r.Sentence = GradeReplay(res, drop)
	r.Rule = ReplayRule(res.Confidence, drop)
	for _, w := range res.Warnings {
		r.Warnings = append(r.Warnings, "task success: "+w)
	}
	if n := r.ReferenceKinds[AcceptedTrace]; n > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"task success: %d of %d references are accepted traces, not uncompacted runs (those conversations do not fit the window uncompacted); for them the replay is a regression test against a known-good trace, not against ground truth",
			n, res.Pairs))
	}
	return r, nil
}

// ReplayRule states how the task-success sentence is graded, at a
// confidence level and a drop of interest d (fractions).
func ReplayRule(confidence, drop float64) string {
	return fmt.Sprintf("Graded by the exact McNemar test at α = %.4g and the %s Newcombe interval of the difference, against a drop of interest d = %s points: "+
		"significant when p < α; otherwise inconclusive when the interval's lower end is below −%s points (a drop of d is not ruled out); otherwise consistent with no change. "+
		"Task success is reported, not gated.",
		1-confidence, format.Confidence(confidence), format.Points(drop), format.Points(drop))
}

// GradeReplay grades the replay's difference by the rule ReplayRule
// states and says in words what it is worth.
func GradeReplay(res power.Result, drop float64) (grade, sentence string) {
	exact, _ := res.Test(power.TestExact)
	iv, _ := res.Interval(power.IntervalNewcombe)
	t := res.Table
	// α to 12 decimals, so that 1 − 0.95 is 0.05 and p = 0.05 is not
	// below it.
	alpha := math.Round((1-res.Confidence)*1e12) / 1e12
	switch {
	case exact.PValue < alpha:
		grade = GradeSignificant
	case !(iv.Lower >= -drop): // NaN counts as not ruled out
		grade = GradeInconclusive
	default:
		grade = GradeNoChange
	}
	ivText := fmt.Sprintf("%s newcombe interval %s to %s points", format.Confidence(res.Confidence), format.SignedPoints(iv.Lower), format.SignedPoints(iv.Upper))
	d := format.Points(drop)
	dir := "higher"
	if res.Difference < 0 {
		dir = "lower"
	}
	var b strings.Builder
	if res.Discordant == 0 {
		fmt.Fprintf(&b, "The two runs agree on all %d conversations (%s): the replay saw no difference", res.Pairs, ivText)
		if grade == GradeInconclusive {
			fmt.Fprintf(&b, ", but it is inconclusive: with %d conversations the interval does not rule out a drop of as much as %s points, more than the %s-point drop of interest. More replayed conversations would settle it.", res.Pairs, format.Points(-iv.Lower), d)
		} else {
			fmt.Fprintf(&b, "; the interval rules out a drop of %s points or more: consistent with no change.", d)
		}
		return grade, b.String()
	}
	fmt.Fprintf(&b, "The difference, %s points (%s)", format.SignedPoints(res.Difference), ivText)
	switch grade {
	case GradeSignificant:
		fmt.Fprintf(&b, ", is significant: the exact McNemar test rules out chance alone at the %s level (%s), so task success under the candidate is %s.",
			format.Confidence(alpha), format.PIs(exact.PValue), dir)
		if iv.Lower <= 0 && iv.Upper >= 0 {
			b.WriteString(" The interval still includes 0, so the evidence is weak; more replayed conversations would settle it.")
		}
	case GradeInconclusive:
		fmt.Fprintf(&b, ", is inconclusive: %d lost against %d gained could be chance (exact McNemar %s), but a drop of as much as %s points is not ruled out, more than the %s-point drop of interest. More replayed conversations would settle it.",
			t.B, t.C, format.PIs(exact.PValue), format.Points(-iv.Lower), d)
	default:
		fmt.Fprintf(&b, ", is not evidence of anything, in either direction: %d gained against %d lost is what chance alone often gives (exact McNemar %s), and the interval rules out a drop of %s points or more: consistent with no change.",
			t.C, t.B, format.PIs(exact.PValue), d)
		if iv.Lower > 0 || iv.Upper < 0 {
			fmt.Fprintf(&b, " The interval leaves out 0, but the exact test does not rule out chance at the %s level.", format.Confidence(alpha))
		}
	}
	b.WriteString(" It is reported, not gated; the per-item rows decide the change.")
	return grade, b.String()
}

// QueueHeader is the header of the review queue CSV.
var QueueHeader = []string{"conversation_id", "change", "reference", "candidate", "reference_kind", "reviewer", "caused_by_compaction", "notes"}

// WriteQueue writes the review queue of r — one row per discordant
// conversation, lost before gained — as CSV for reviewers (UTF-8 with a
// byte order mark, which Excel needs to read it as UTF-8), with empty
// columns for their name, their finding and their notes. A cell that
// starts with =, +, -, @, tab, CR or NUL is prefixed with ' (OWASP's
// advice against formula injection).
func WriteQueue(w io.Writer, r *Replay) error {
	// A UTF-8 byte order mark first, for Excel on Windows, which reads
	// a CSV without one in the system's code page.
	if _, err := io.WriteString(w, jsonscan.BOM); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(QueueHeader); err != nil {
		return err
	}
	for _, p := range r.Discordant {
		change := "lost"
		if p.Reference != Success {
			change = "gained"
		}
		row := []string{p.ConversationID, change, p.Reference, p.Candidate, p.ReferenceKind, "", "", ""}
		for i := range row {
			// Shown as the workbook shows it: a bidi override in an id
			// cannot read as other text in a spreadsheet.
			row[i] = CSVCell(format.Visible(row[i]))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVCell neutralises a cell that a spreadsheet would read as a formula:
// one starting with =, +, -, @, tab, CR or NUL gets a leading ' — the one
// rule, reviews.CSVCell, that the review queue's CSV follows too.
func CSVCell(s string) string { return reviews.CSVCell(s) }
