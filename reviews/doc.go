// Package reviews is the format of reviewers' verdicts and its one reader
// and writer, and the reading of a filled-in Items sheet into reviews.
//
// A review is a person's verdict on one item at one compaction for one
// system: whether the system's compacted context carries the item
// (supported), leaves it out (absent) or says the opposite
// (contradicted). Verbatim is the judge's own substring check and needs
// no review. Reviews are kept in a JSONL file, one line per reviewed
// item-compaction and system:
//
//	{"conversation_id","compaction","item_id","class","system","item"?,
//	 "judge_verdict"?,"verdict","reviewer"?,"note"?,"source"?,"sample"?}
//
// where item is the item's fingerprint from the verdict records
// (fixture.Item.Fingerprint) when it was known, judge_verdict the judge's
// verdict the reviewer saw, verdict the reviewer's (supported, absent or
// contradicted), source the workbook or CSV the review was read from,
// and sample how a review queue drew the item-compaction: census (every
// contradiction is reviewed) or random (drawn from the items the judge
// gave one verdict), left out when a reviewer picked it.
// Reader reads the file streaming, Writer and WriteFile write it
// (WriteFile atomically), and Merge adds new reviews to old ones, a
// changed review of a key replacing the old one in place, so that
// reviewing accumulates across reports.
//
// ReadSheet and ReadCSV read the reviewer's columns of a report
// workbook's Items sheet (as report/xlsx writes it), of a workbook of one
// sheet (a review queue a spreadsheet saved as .xlsx) or of a CSV with
// the same headers, the header row found among the first rows; a CSV's
// separator (",", ";" or tab) is the one under which the header row names
// the columns. Collect turns the filled-in rows into reviews, checked
// against the report's items when they are known, and counts the rows
// whose text it does not record (a note without a verdict, an unsure
// row's note).
//
// WriteQueue and WriteQueueFile write a review queue (tally calibrate
// queue): a CSV of the item-compactions drawn for review, with the Items
// sheet's key, item and judge columns, two sample columns ("Incumbent:
// sample", "Candidate: sample") and the reviewer's columns to fill, no
// cell a formula. ReadCSV reads it back filled, and Collect marks each
// review with its system's sample.
package reviews
