package judge

import (
	"context"
	"fmt"
	"io"

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
// errors naming it. Its lines are read by fixture.RecordReader, under
// the one set of rules for verdict lines; the first line with problems
// is the error, naming the file, line, column and field of each.
func LoadRecorded(path string, lim input.Limits) (*Recorded, error) {
	f, err := input.Open(path, lim)
	if err != nil {
		return nil, fmt.Errorf("recorded verdicts: %w", err)
	}
	defer f.Close()
	return readRecorded(fixture.NewRecordReaderSize(f, path, lim.MaxLine), path)
}

// ReadRecorded reads verdict lines from r; name stands for the file in
// errors. Blank lines are skipped. Every line must be a verdict record
// as fixture.RecordReader reads it (only Record's fields, each once; a
// compaction from 1; a valid verdict and class; system,
// conversation_id and item_id not blank); a key seen twice with
// different contents is an error naming both lines. A line may be up to
// input.DefaultMaxLine long.
func ReadRecorded(r io.Reader, name string) (*Recorded, error) {
	return readRecorded(fixture.NewRecordReader(r, name), name)
}

// readRecorded is ReadRecorded on the records of rr.
func readRecorded(rr *fixture.RecordReader, name string) (*Recorded, error) {
	rec := &Recorded{records: map[recordKey]fixture.Record{}}
	lineOf := map[recordKey]int{}
	for {
		x, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // Problems naming the file, or a read error
		}
		line := rr.Line()
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
