package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// RecordedJudgeName fills Answer.Judge for a recorded verdict that names
// no judge, and for a missing one.
const RecordedJudgeName = "recorded"

// NoRecordedVerdict is the Reason of the error verdict for a question the
// verdict file has no line for.
const NoRecordedVerdict = "no recorded verdict"

// recordKey identifies one item at one compaction of one system.
type recordKey struct {
	system, conversation string
	compaction           int
	item                 string
}

// Recorded is a Judge that replays a verdict file (JSONL of
// fixture.Record) instead of asking a model: a question is answered by the
// line with its system, conversation_id, compaction and item_id.
type Recorded struct {
	records map[recordKey]fixture.Record
}

// LoadRecorded reads a verdict file into memory, under lim (zero
// fields: package input's defaults): a path that is no regular file, a
// line longer than lim.MaxLine and a file larger than lim.MaxFile are
// errors naming it. Errors name the file, line and (for JSON syntax)
// column.
func LoadRecorded(path string, lim input.Limits) (*Recorded, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("recorded verdicts: %w", err)
	}
	defer f.Close()
	return readRecorded(f.Lines(), path)
}

// ReadRecorded reads verdict lines from r; name stands for the file in
// errors. Blank lines are skipped. Every line must be one JSON object
// with only Record's fields, a valid verdict and class, and the keys
// system, conversation_id and item_id; a key seen twice with different
// contents is an error naming both lines. A line may be up to
// input.DefaultMaxLine long.
func ReadRecorded(r io.Reader, name string) (*Recorded, error) {
	return readRecorded(input.NewLines(r, name, 0), name)
}

// readRecorded is ReadRecorded on the lines of lr.
func readRecorded(lr *input.Lines, name string) (*Recorded, error) {
	rec := &Recorded{records: map[recordKey]fixture.Record{}}
	lineOf := map[recordKey]int{}
	for {
		text, err := lr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, input.ErrTooLarge) {
			return nil, err // names the file and the line
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lr.Line()+1, err)
		}
		line := lr.Line()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		x, col, err := decodeRecord(text)
		if err != nil {
			if col > 0 {
				return nil, fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
			}
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		k := recordKey{x.System, x.ConversationID, x.Compaction, x.ItemID}
		if prev, ok := rec.records[k]; ok {
			if prev != x {
				return nil, fmt.Errorf("%s:%d: a second, different verdict for system %q, conversation %q, compaction %d, item %q (the first is on line %d)",
					name, line, x.System, x.ConversationID, x.Compaction, x.ItemID, lineOf[k])
			}
			continue
		}
		rec.records[k], lineOf[k] = x, line
	}
	return rec, nil
}

// decodeRecord decodes and validates one line; col is the 1-based column
// of a JSON error, or 0 when no column applies.
func decodeRecord(text []byte) (x fixture.Record, col int64, err error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return x, syn.Offset, errors.New(strings.TrimPrefix(syn.Error(), "json: "))
		case errors.As(err, &typ):
			return x, valueColumn(text, typ.Field, typ.Offset), fmt.Errorf("field %q must be %s, not a JSON %s", typ.Field, typ.Type, typ.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return x, int64(len(text)), errors.New("the JSON object is not closed")
		}
		return x, 0, errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return x, dec.InputOffset() + 1, errors.New("more than one JSON value on the line")
	}
	var problems []string
	if x.System == "" {
		problems = append(problems, "no system")
	}
	if x.ConversationID == "" {
		problems = append(problems, "no conversation_id")
	}
	if x.ItemID == "" {
		problems = append(problems, "no item_id")
	}
	if x.Compaction < 0 {
		problems = append(problems, fmt.Sprintf("compaction %d is negative", x.Compaction))
	}
	if !x.Class.Valid() {
		problems = append(problems, fmt.Sprintf("class %q is not one of constraint, commitment, open_question, reference", x.Class))
	}
	if !x.Verdict.Valid() {
		problems = append(problems, fmt.Sprintf("verdict %q is not one of verbatim, supported, absent, contradicted, error", x.Verdict))
	}
	if len(problems) > 0 {
		return x, 0, errors.New(strings.Join(problems, "; "))
	}
	return x, 0, nil
}

// valueColumn is the 1-based column where the value of the top-level
// field ends before offset begins: json reports a type error at the
// value's end, and a person looks for its start. It falls back to offset.
func valueColumn(text []byte, field string, offset int64) int64 {
	if offset > int64(len(text)) {
		return offset
	}
	i := bytes.LastIndex(text[:offset], []byte(`"`+field+`"`))
	if i < 0 {
		return offset
	}
	j := i + len(field) + 2
	for j < int(offset) && (text[j] == ' ' || text[j] == '\t' || text[j] == ':') {
		j++
	}
	return int64(j) + 1
}

// Len is the number of distinct verdicts held.
func (r *Recorded) Len() int { return len(r.records) }

// Judge returns the recorded verdict for q, or an error verdict with
// Reason NoRecordedVerdict. A recorded class other than q's (when both are
// set) is an error verdict too: the verdict file and the fixture disagree
// about the item.
func (r *Recorded) Judge(ctx context.Context, q Question) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, fmt.Errorf("judge %s: %w", describe(q), err)
	}
	x, ok := r.records[recordKey{q.System, q.ConversationID, q.Compaction, q.ItemID}]
	if !ok {
		return Answer{Verdict: fixture.Error, Judge: RecordedJudgeName, Reason: NoRecordedVerdict}, nil
	}
	a := Answer{Verdict: x.Verdict, Answer: x.Answer, Expect: x.Expect, Judge: x.Judge, Reason: x.Reason}
	if a.Judge == "" {
		a.Judge = RecordedJudgeName
	}
	if q.Class != "" && x.Class != q.Class {
		a.Verdict = fixture.Error
		a.Reason = fmt.Sprintf("the recorded verdict is for class %q, the fixture's item is %q", x.Class, q.Class)
	}
	return a, nil
}
