package reviews

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// QueueRow is one row of a review queue (tally calibrate queue): an
// item-compaction drawn for one system or both, with what a reviewer
// needs to judge it.
type QueueRow struct {
	ConversationID string
	Compaction     int
	ItemID         string
	Class          fixture.Class
	// Literal, Probe and Expect are the item's text, as the fixtures give
	// it.
	Literal, Probe, Expect string
	// Judge, Answer and Reason are the incumbent's then the candidate's
	// judge verdict ("" when the system has no record of the
	// item-compaction, written "not checked"), the judge's answer and its
	// reason.
	Judge          [2]fixture.Verdict
	Answer, Reason [2]string
	// Context is the path of each system's compacted context, "" when it
	// is not known.
	Context [2]string
	// Sample is how the queue drew the item-compaction for each system:
	// SampleCensus, SampleRandom, or "" when it was not drawn for that
	// system.
	Sample [2]string
}

// QueueHeader is the header line of a review queue: the Items sheet's
// key, item and judge columns, each system's context and sample, and
// the reviewer's columns, empty for the reviewer to fill. ReadCSV reads
// a filled queue back, sample columns included.
var QueueHeader = []string{
	HeaderConversation, HeaderCompaction, HeaderItem, HeaderClass, "Literal", "Probe", "Expect",
	HeaderIncumbentVerdict, "Incumbent answer", "Incumbent reason", "Incumbent context", HeaderIncumbentSample,
	HeaderCandidateVerdict, "Candidate answer", "Candidate reason", "Candidate context", HeaderCandidateSample,
	HeaderIncumbentReview, HeaderCandidateReview, HeaderReviewer, HeaderNote,
}

// check reports what is wrong with q as a queue row, or nil.
func (q *QueueRow) check() error {
	switch {
	case strings.TrimSpace(q.ConversationID) == "" || strings.TrimSpace(q.ItemID) == "":
		return fmt.Errorf("no conversation or item")
	case q.Compaction < 1:
		return fmt.Errorf("compaction %d: compactions are numbered from 1", q.Compaction)
	case !q.Class.Valid():
		return fmt.Errorf("%q is not a class (want %s)", preview(string(q.Class)), list(classNames()))
	case q.Sample == [2]string{}:
		return fmt.Errorf("drawn for neither system")
	}
	for _, s := range q.Sample {
		if s != "" && s != SampleCensus && s != SampleRandom {
			return fmt.Errorf("%q is not how a review queue draws (want %s or %s, or leave it empty)", preview(s), SampleCensus, SampleRandom)
		}
	}
	for _, v := range q.Judge {
		if v != "" && !v.Valid() {
			return fmt.Errorf("%q is not a judge's verdict", preview(string(v)))
		}
	}
	return nil
}

// compareQueueRows orders rows by conversation, compaction and item.
func compareQueueRows(a, b QueueRow) int {
	return cmp.Or(cmp.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Compaction, b.Compaction), cmp.Compare(a.ItemID, b.ItemID))
}

// WriteQueue writes rows as a review queue CSV: a UTF-8 byte order mark
// (for Excel), QueueHeader, then one
// line per row sorted by conversation, compaction and item, the
// reviewer's columns empty. Every cell goes through CSVCell, so that no
// text from the fixtures or the judge is a formula to a spreadsheet;
// ReadCSV takes the mark off again. A row that is not valid (no key, a
// compaction below 1, an unknown class, judge verdict or sample, or drawn
// for neither system) or a second row of one item-compaction is an error,
// and nothing is written.
func WriteQueue(w io.Writer, rows []QueueRow) error {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, compareQueueRows)
	for i := range rows {
		q := &rows[i]
		if err := q.check(); err != nil {
			return fmt.Errorf("review queue: conversation %q compaction %d item %q: %w", preview(q.ConversationID), q.Compaction, preview(q.ItemID), err)
		}
		if i > 0 && compareQueueRows(rows[i-1], *q) == 0 {
			return fmt.Errorf("review queue: conversation %q compaction %d item %q: two rows of one item-compaction", preview(q.ConversationID), q.Compaction, preview(q.ItemID))
		}
	}
	// A UTF-8 byte order mark first: Excel on Windows reads a CSV
	// without one in the system's code page, and a reviewer's "für"
	// comes back as "fÃ¼r" (ReadCSV skips it).
	if _, err := io.WriteString(w, jsonscan.BOM); err != nil {
		return fmt.Errorf("review queue: %w", err)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(QueueHeader); err != nil {
		return fmt.Errorf("review queue: %w", err)
	}
	rec := make([]string, len(QueueHeader))
	for i := range rows {
		q := &rows[i]
		rec = append(rec[:0], q.ConversationID, strconv.Itoa(q.Compaction), q.ItemID, string(q.Class), q.Literal, q.Probe, q.Expect)
		for s := range 2 {
			judge := string(q.Judge[s])
			if judge == "" {
				judge = notChecked
			}
			rec = append(rec, judge, q.Answer[s], q.Reason[s], q.Context[s], q.Sample[s])
		}
		rec = append(rec, "", "", "", "")
		for j := range rec {
			rec[j] = CSVCell(rec[j])
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("review queue: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("review queue: %w", err)
	}
	return nil
}

// WriteQueueFile replaces the file at path with the review queue of rows
// (WriteQueue), atomically: a reader sees the old file or the new one,
// never part of it, and an invalid row leaves the file as it was.
func WriteQueueFile(path string, rows []QueueRow) error {
	if err := WriteQueue(io.Discard, rows); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteQueue(w, rows) })
}

// CSVCell neutralises a cell that a spreadsheet would read as a formula:
// one starting with =, +, -, @, tab, CR or NUL gets a leading ' (OWASP's
// advice against CSV injection), as report.CSVCell does for the report's
// CSV files; ReadCSV removes it.
func CSVCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r\x00", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
