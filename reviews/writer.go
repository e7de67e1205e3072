package reviews

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/jsonenc"
)

// Writer writes reviews as JSONL: one compact JSON object per line,
// fields in the order of Review's declaration, empty optional fields
// (item, judge_verdict, reviewer, note, source) left out, no HTML
// escaping. Text is written as JSON strings, control characters escaped:
// a note that looks like a formula stays text. Output is buffered: call
// Flush at the end.
type Writer struct {
	lines *jsonenc.Lines
	buf   []byte
}

// NewWriter returns a writer of reviews to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{lines: jsonenc.NewLines(w, "reviews")}
}

// Write validates r (see Review.Validate) and writes it as one line. An
// invalid review is not written; the writer stays usable. A write error
// is returned by this and every later call.
func (w *Writer) Write(r Review) error {
	if err := w.lines.Err(); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("writing review of %s: %w", r.Key(), err)
	}
	w.buf = appendReview(w.buf[:0], r)
	return w.lines.Write(w.buf)
}

// Flush writes any buffered reviews to the underlying writer.
func (w *Writer) Flush() error { return w.lines.Flush() }

// WriteFile replaces the file at path with rs, atomically: a reader sees
// the old file or the new one, never part of it, and a review that does
// not validate leaves the file as it was.
func WriteFile(path string, rs []Review) error {
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("writing %s: review of %s: %w", path, r.Key(), err)
		}
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		w := NewWriter(out)
		for _, r := range rs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}

// appendReview appends r's JSON line, with its "\n".
func appendReview(b []byte, r Review) []byte {
	b = append(b, `{"conversation_id":`...)
	b = jsonenc.AppendString(b, r.ConversationID)
	b = append(b, `,"compaction":`...)
	b = strconv.AppendInt(b, int64(r.Compaction), 10)
	b = append(b, `,"item_id":`...)
	b = jsonenc.AppendString(b, r.ItemID)
	b = append(b, `,"class":`...)
	b = jsonenc.AppendString(b, string(r.Class))
	b = append(b, `,"system":`...)
	b = jsonenc.AppendString(b, r.System)
	if r.Item != "" {
		b = append(b, `,"item":`...)
		b = jsonenc.AppendString(b, r.Item)
	}
	if r.JudgeVerdict != "" {
		b = append(b, `,"judge_verdict":`...)
		b = jsonenc.AppendString(b, string(r.JudgeVerdict))
	}
	b = append(b, `,"verdict":`...)
	b = jsonenc.AppendString(b, string(r.Verdict))
	for _, f := range [...]struct{ key, val string }{
		{`,"reviewer":`, r.Reviewer}, {`,"note":`, r.Note}, {`,"source":`, r.Source}, {`,"sample":`, r.Sample},
	} {
		if f.val != "" {
			b = append(b, f.key...)
			b = jsonenc.AppendString(b, f.val)
		}
	}
	return append(b, "}\n"...)
}
