package reviews

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// Reader reads reviews, one JSON object per line (JSONL), holding one
// line in memory at a time and, to find a key reviewed twice, each key
// read with its line. Blank lines are skipped; a line may end in "\n" or
// "\r\n".
type Reader struct {
	name  string
	lines *input.Lines
	first map[Key]int // the line of each key read
	s     jsonscan.Scanner
	err   error // sticky read error
}

// NewReader returns a reader of the reviews in r; name (normally the
// file's path) is used in problems. A line may be up to maxLine bytes
// (input.DefaultMaxLine when maxLine ≤ 0).
func NewReader(r io.Reader, name string, maxLine int64) *Reader {
	return &Reader{name: name, lines: input.NewLines(r, name, maxLine), first: map[Key]int{}}
}

// Next returns the next review, or io.EOF after the last one.
//
// A line with problems yields fixture.Problems naming the file, line,
// column and field of each — malformed JSON; an unknown, repeated or
// missing field; a wrong JSON type; an empty conversation_id, item_id
// or system; a compaction below 1; an unknown class, judge_verdict or
// verdict; a key (conversation_id, compaction, item_id, system) reviewed
// on an earlier line, naming that line — and the reader moves on: call
// Next again to read past it. A line over the line limit is such a
// problem too. A read error is returned wrapped with the file and line,
// and again by every later call.
func (r *Reader) Next() (Review, error) {
	if r.err != nil {
		return Review{}, r.err
	}
	for {
		line, err := r.lines.Next()
		n := r.lines.Line()
		if err == io.EOF {
			r.err = io.EOF
			return Review{}, io.EOF
		}
		var le *input.LineError
		if errors.As(err, &le) {
			return Review{}, fixture.Problems{{File: r.name, Line: n, Msg: (&input.LineError{Limit: le.Limit}).Error()}}
		}
		if err != nil {
			r.err = fmt.Errorf("reading reviews: %s:%d: %w", r.name, n+1, err)
			return Review{}, r.err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rv, probs := r.parse(line, n)
		if len(probs) > 0 {
			return Review{}, probs
		}
		k := rv.Key()
		if at, dup := r.first[k]; dup {
			return Review{}, fixture.Problems{{File: r.name, Line: n, Col: jsonscan.ValueColumn(line, "conversation_id"), Field: "conversation_id",
				Msg: fmt.Sprintf("a second review of %s (first at line %d): a file holds one review per item, compaction and system", k, at)}}
		}
		r.first[k] = n
		return rv, nil
	}
}

// Line returns the number of the line Next read last.
func (r *Reader) Line() int { return r.lines.Line() }

// ReadAll reads every review of r, collecting the problems of every line
// (the first fixture.MaxListed, and a count of the rest): it returns the
// reviews, or the problems as fixture.Problems, or a read error.
func ReadAll(r io.Reader, name string, maxLine int64) ([]Review, error) {
	rd := NewReader(r, name, maxLine)
	var (
		out   []Review
		probs fixture.ProblemList
	)
	for {
		rv, err := rd.Next()
		if err == io.EOF {
			break
		}
		if ps := fixture.AsProblems(err); ps != nil {
			probs.Add(ps...)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rv)
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Load reads the reviews file at path under lim (zero fields: package
// input's defaults). A file that does not exist is no reviews and no
// error: reviewing starts with an empty file.
func Load(path string, lim input.Limits) ([]Review, error) {
	f, err := input.Open(path, lim)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %w", err)
	}
	defer f.Close()
	return ReadAll(f, path, lim.Line())
}

// parse parses one review from line, whose number is lineNo, reporting
// every problem.
func (r *Reader) parse(line []byte, lineNo int) (Review, fixture.Problems) {
	var probs fixture.Problems
	add := func(off int, field, format string, args ...any) {
		probs = append(probs, fixture.Problem{File: r.name, Line: lineNo, Col: jsonscan.Column(line, off), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	syntax := func(e *jsonscan.Error) (Review, fixture.Problems) {
		msg, off := e.Msg, e.Off
		if e.EOF {
			msg, off = "unexpected end of line: want one JSON object (one review) on one line", len(line)
		}
		add(off, e.Field, "%s", msg)
		return Review{}, probs
	}
	s := &r.s
	s.Reset(line)
	if err := s.BeginObject("", "a JSON object (one review)"); err != nil {
		return syntax(err)
	}
	start := 0
	var (
		vals [12]string
		offs [12]int
		comp int
	)
	for i := range offs {
		offs[i] = -1
	}
	seen := [12]bool{}
	for i := 0; ; i++ {
		key, keyOff, more, err := s.Member(i)
		if err != nil {
			return syntax(err)
		}
		if !more {
			break
		}
		k := indexOf(reviewFields, string(key))
		raw, valOff, err := s.RawValue()
		if err != nil {
			return syntax(err)
		}
		switch {
		case k < 0:
			add(keyOff, preview(string(key)), "unknown field (want %s)", list(reviewFields))
			continue
		case seen[k]:
			add(keyOff, reviewFields[k], "repeated field")
			continue
		}
		seen[k] = true
		if k == 1 {
			var v int64
			ok := raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9'
			if ok {
				v, ok = jsonscan.ParseInt(raw)
			}
			if !ok || v > 1<<31-1 || v < -1<<31 {
				add(valOff, reviewFields[k], "want a whole number, got %s", describe(raw))
				continue
			}
			comp, offs[k] = int(v), valOff
			continue
		}
		if raw[0] != '"' {
			add(valOff, reviewFields[k], "want a string, got %s", describe(raw))
			continue
		}
		vals[k], offs[k] = string(jsonscan.AppendUnescaped(nil, raw[1:len(raw)-1])), valOff
	}
	if err := s.End(); err != nil {
		add(err.Off, "", "more after the JSON object: want one review per line")
	}
	for k, ok := range seen {
		if !ok && required(k) {
			add(start, reviewFields[k], "missing")
		}
	}
	rv := Review{ConversationID: vals[0], Compaction: comp, ItemID: vals[2], Class: fixture.Class(vals[3]), System: vals[4],
		Item: vals[5], JudgeVerdict: fixture.Verdict(vals[6]), Verdict: fixture.Verdict(vals[7]), Reviewer: vals[8], Note: vals[9], Source: vals[10], Sample: vals[11]}
	for _, p := range rv.check(func(k int) int {
		if offs[k] < 0 {
			return 1
		}
		return 0
	}) {
		add(offs[p.k], p.field, "%s", p.msg)
	}
	if len(probs) > 0 {
		slices.SortStableFunc(probs, func(a, b fixture.Problem) int { return a.Col - b.Col })
		return Review{}, probs
	}
	return rv, nil
}

// describe names the JSON value at the start of raw, in the lexer's
// words.
func describe(raw []byte) string {
	var s jsonscan.Scanner
	s.Reset(raw)
	return s.Describe()
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}
