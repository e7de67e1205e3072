package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/reviews"
)

// calibrateCount is one class and system's reviews in a calibrate run.
type calibrateCount struct {
	Class     string `json:"class"`
	System    string `json:"system"`
	Read      int    `json:"read"`
	New       int    `json:"new"`
	Replaced  int    `json:"replaced"`
	Unchanged int    `json:"unchanged"`
	Unsure    int    `json:"unsure"`
}

// calibrateChange is one review that replaced another of its key.
type calibrateChange struct {
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	ItemID         string `json:"item_id"`
	System         string `json:"system"`
	Was            string `json:"was"`
	Now            string `json:"now"`
}

// calibrateJSON is the JSON contract of `tally calibrate`.
type calibrateJSON struct {
	Source string `json:"source"`
	Output string `json:"output"`
	// Checked is true when the rows were checked against a report's
	// configuration (--config).
	Checked bool `json:"checked"`
	// Rows counts the rows with a reviewer's verdict, Scanned all item
	// rows read.
	Rows     int               `json:"rows"`
	Scanned  int               `json:"scanned"`
	Counts   []calibrateCount  `json:"counts"`
	Replaced []calibrateChange `json:"replaced"`
	// Agreement: of Reviewed reviews read of judged items, Equal are the
	// judge's verdict; Verbatim reviews of items found verbatim are left
	// out.
	Agreement struct {
		Equal    int `json:"equal"`
		Reviewed int `json:"reviewed"`
		// Verbatim counts the reviews of items found verbatim, left
		// out: no judge was asked.
		Verbatim int `json:"verbatim"`
	} `json:"agreement"`
	// NotRecorded counts what the table held that no review records:
	// rows with a Reviewer or Note but no reviewer's verdict, and unsure
	// rows whose Note is filled (unsure is counted, not recorded); each
	// names its first few rows by the Note cell (the Reviewer cell when
	// the Note is empty).
	NotRecorded struct {
		NoVerdict   unrecordedJSON `json:"no_verdict"`
		UnsureNotes unrecordedJSON `json:"unsure_notes"`
	} `json:"not_recorded"`
	// Total is the number of reviews in the output file.
	Total int `json:"total"`
	// Judge is the judge against the reviewers, per system, over every
	// review in the output file.
	Judge []agreementJSON `json:"judge_against_reviewers"`
}

// unrecordedJSON counts rows whose text is not recorded, naming the
// first few by their cell ("FILE:LINE:COL" in a CSV, "FILE: SHEET!CELL"
// in a workbook).
type unrecordedJSON struct {
	Rows int      `json:"rows"`
	At   []string `json:"at"`
}

func newUnrecordedJSON(u reviews.Unrecorded) unrecordedJSON {
	out := unrecordedJSON{Rows: u.Rows, At: u.At}
	if out.At == nil {
		out.At = []string{}
	}
	return out
}

func newCalibrateCmd(opts *options) *cobra.Command {
	var (
		output, config string
		lim            limitFlags
	)
	cmd := &cobra.Command{
		Use:   "calibrate REPORT.xlsx|REVIEWS.csv -o REVIEWS.jsonl [--config report.yaml]",
		Short: "Read reviewers' verdicts back from a report workbook's Items sheet into a reviews file",
		Long: `calibrate reads the reviewer's columns of a report workbook's Items sheet
(as tally report writes it), of a CSV with the same headers, or of a review
queue (tally calibrate queue) filled in, and records
every row where a reviewer gave a system's verdict — "Incumbent: reviewer's
verdict" and "Candidate: reviewer's verdict", each supported, absent,
contradicted or unsure — with the Reviewer and Note cells, as text, never
evaluated. "unsure" is counted, not recorded. A row with a Reviewer or
Note but no reviewer's verdict records nothing, and the note of an unsure
row is not recorded: both are counted and their first rows named. A queue's "Incumbent: sample"
and "Candidate: sample" columns (census or random, else empty) mark each
system's review with how the queue drew it; any other value is an error.

A CSV may separate its columns with ",", ";" (Excel in a German or French
locale, LibreOffice) or a tab: the separator is the one under which the
header row names the columns. A UTF-8 byte order mark is skipped; a CSV
that is not UTF-8 is refused. A CSV keeps the value a spreadsheet showed,
not what was typed: a note it took for a formula comes back computed
(=SUM(1,2) as 3, which tally cannot tell from text), or as an error value
(#NAME?, Err:509), which is refused naming its cell; the workbook keeps
the formula as typed. A workbook without an Items sheet is read when it
has one sheet (a review queue saved as .xlsx); the header row is found
among the first rows.

The reviews go into REVIEWS.jsonl, one line per item-compaction and system;
reviewing accumulates: a new review is appended, a changed review of a key
already in the file replaces it (each is named), and the file is replaced
atomically, all or nothing.

With --config, every reviewed row is checked against that report's
fixtures and verdicts: a row that matches no item-compaction, an edited key
cell (conversation, compaction, item, class) or judge verdict, and a
workbook from another report (its Provenance sheet's configuration SHA-256
is not this configuration's) are errors naming the sheet, row and column,
and nothing is written. A CSV needs --config (it does not name the
systems). An unknown verdict word is always an error.

Prints, per class and system, the reviews read, new, replaced, unchanged
and unsure, and how many reviewed verdicts equal the judge's; then, per
system over every review in the file, the judge against the reviewers:
the table of verdicts, Cohen's κ with its interval (at the report's
confidence with --config, else 95%), and how many of
the judge's contradictions the reviewers confirmed.`,
		Example: "  tally calibrate out/report.xlsx -o reviews.jsonl --config examples/quarterly/report.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: work(func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return usagef("-o REVIEWS.jsonl must name the reviews file to add to, not be empty")
			}
			if err := usableFolder("-o "+output+": its folder", filepath.Dir(output)); err != nil {
				return err
			}
			src := args[0]
			ext := strings.ToLower(filepath.Ext(src))
			if ext != ".xlsx" && ext != ".csv" {
				return usagef("%s: want a report workbook (.xlsx) or a CSV of its Items sheet (.csv)", src)
			}
			var chk *reviews.Check
			confidence := report.DefaultConfidence
			if config != "" {
				var err error
				if chk, confidence, err = calibrateCheck(config, lim.Limits); err != nil {
					return err
				}
			}
			t, err := readReviewTable(src, ext, lim.Limits)
			if err != nil {
				return err
			}
			got, err := reviews.Collect(t, chk)
			if err != nil {
				return err
			}
			kept, err := reviews.Load(output, lim.Limits)
			if err != nil {
				return err
			}
			merged, changes := reviews.Merge(kept, got.Reviews)
			created, err := createFolder(output)
			if err != nil {
				return err
			}
			if err := reviews.WriteFile(output, merged); err != nil {
				removeFolders(created)
				return err
			}
			out := newCalibrateJSON(src, output, chk != nil, got, kept, changes)
			out.Total = len(merged)
			if out.Judge, err = newAgreement(merged, got.Systems[:], confidence); err != nil {
				return err
			}
			if opts.format == "json" {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return writeCalibrateText(cmd.OutOrStdout(), &out)
		}),
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the reviews file (JSONL) to add the reviews to; created when missing (its folder too), replaced atomically")
	cmd.Flags().StringVar(&config, "config", "", "the report's configuration (report.yaml): check every reviewed row against its fixtures and verdicts")
	lim.register(cmd)
	cmd.AddCommand(newCalibrateQueueCmd(opts))
	return cmd
}

// readReviewTable reads the reviewed table at src, a workbook or a CSV.
func readReviewTable(src, ext string, lim input.Limits) (*reviews.Table, error) {
	if ext == ".xlsx" {
		return reviews.ReadSheet(src, lim)
	}
	f, err := input.Open(src, lim)
	if err != nil {
		return nil, fmt.Errorf("reading reviews: %w", err)
	}
	defer f.Close()
	return reviews.ReadCSV(f, src)
}

// calibrateCheck builds the report the configuration at path describes
// and returns what reviews are checked against: its item-compactions
// with their classes, fingerprints and judge verdicts, its systems and
// its configuration's SHA-256; and the report's confidence level.
func calibrateCheck(path string, lim input.Limits) (*reviews.Check, float64, error) {
	cfg, err := report.LoadConfig(path)
	if err != nil {
		return nil, 0, err
	}
	r, err := report.Build(cfg, report.Options{Generated: time.Unix(0, 0).UTC(), Version: version, Limits: lim})
	if err != nil {
		return nil, 0, err
	}
	chk := &reviews.Check{Name: path, Systems: [2]string{r.Incumbent, r.Candidate}, Items: make(map[reviews.ItemKey]reviews.Known, len(r.Items))}
	for _, in := range r.Provenance.Inputs {
		if in.Role == report.RoleConfig {
			chk.ConfigSHA256 = in.SHA256
		}
	}
	for i := range r.Items {
		it := &r.Items[i]
		fp := it.Incumbent.Item
		if fp == "" {
			fp = it.Candidate.Item
		}
		chk.Items[reviews.ItemKey{ConversationID: it.ConversationID, Compaction: it.Compaction, ItemID: it.ItemID}] = reviews.Known{
			Class: it.Class, Item: fp, Judge: [2]fixture.Verdict{it.Incumbent.Verdict, it.Candidate.Verdict}}
	}
	return chk, r.Confidence, nil
}

// newCalibrateJSON counts a calibrate run: per class and system, and
// the agreement of the reviews read with the judge.
func newCalibrateJSON(src, output string, checked bool, got *reviews.Collected, kept []reviews.Review, changes []reviews.Change) calibrateJSON {
	out := calibrateJSON{Source: src, Output: output, Checked: checked, Rows: got.Rows, Scanned: got.Scanned,
		Counts: []calibrateCount{}, Replaced: []calibrateChange{}}
	out.NotRecorded.NoVerdict = newUnrecordedJSON(got.NoVerdict)
	out.NotRecorded.UnsureNotes = newUnrecordedJSON(got.UnsureNotes)
	type ck struct{ class, system string }
	at := map[ck]int{}
	count := func(r reviews.Review) *calibrateCount {
		k := ck{string(r.Class), r.System}
		i, ok := at[k]
		if !ok {
			i = len(out.Counts)
			at[k] = i
			out.Counts = append(out.Counts, calibrateCount{Class: k.class, System: k.system})
		}
		return &out.Counts[i]
	}
	old := make(map[reviews.Key]reviews.Review, len(kept))
	for _, r := range kept {
		old[r.Key()] = r
	}
	for i, r := range got.Reviews {
		c := count(r)
		c.Read++
		switch changes[i] {
		case reviews.Added:
			c.New++
		case reviews.Replaced:
			c.Replaced++
			was := old[r.Key()]
			out.Replaced = append(out.Replaced, calibrateChange{ConversationID: r.ConversationID, Compaction: r.Compaction,
				ItemID: r.ItemID, System: r.System, Was: string(was.Verdict), Now: string(r.Verdict)})
		case reviews.Unchanged:
			c.Unchanged++
		}
		if r.JudgeVerdict == fixture.Verbatim {
			out.Agreement.Verbatim++
			continue
		}
		out.Agreement.Reviewed++
		if r.Agrees() {
			out.Agreement.Equal++
		}
	}
	for _, r := range got.Unsure {
		count(r).Unsure++
	}
	classOrder := func(c string) int { return slices.Index(fixture.Classes, fixture.Class(c)) }
	slices.SortStableFunc(out.Counts, func(a, b calibrateCount) int {
		if d := classOrder(a.Class) - classOrder(b.Class); d != 0 {
			return d
		}
		return slices.Index(got.Systems[:], a.System) - slices.Index(got.Systems[:], b.System)
	})
	return out
}

// maxListedChanges bounds the replaced reviews named one per line; the
// rest are counted.
const maxListedChanges = 20

func writeCalibrateText(w io.Writer, out *calibrateJSON) error {
	how := "not checked against a report (no --config)"
	if out.Checked {
		how = "checked against the report's fixtures and verdicts"
	}
	fmt.Fprintf(w, "%s: %d of %d item rows reviewed, %s\n", out.Source, out.Rows, out.Scanned, how)
	tw := table(w)
	fmt.Fprintln(tw, "class\tsystem\tread\tnew\treplaced\tunchanged\tunsure (not recorded)")
	var sum calibrateCount
	for _, c := range out.Counts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", c.Class, c.System, c.Read, c.New, c.Replaced, c.Unchanged, c.Unsure)
		sum.Read += c.Read
		sum.New += c.New
		sum.Replaced += c.Replaced
		sum.Unchanged += c.Unchanged
		sum.Unsure += c.Unsure
	}
	fmt.Fprintf(tw, "all\t\t%d\t%d\t%d\t%d\t%d\n", sum.Read, sum.New, sum.Replaced, sum.Unchanged, sum.Unsure)
	if err := tw.Flush(); err != nil {
		return err
	}
	writeUnrecorded(w, out.NotRecorded.NoVerdict, "with a note or reviewer but no reviewer's verdict: not recorded (fill a reviewer's verdict to record it)")
	writeUnrecorded(w, out.NotRecorded.UnsureNotes, "marked unsure with a note: the note is not recorded (unsure is counted, not recorded)")
	for i, c := range out.Replaced {
		if i == maxListedChanges {
			fmt.Fprintf(w, "… and %d more replaced reviews\n", len(out.Replaced)-i)
			break
		}
		change := fmt.Sprintf("was %s, now %s", c.Was, c.Now)
		if c.Was == c.Now {
			change = fmt.Sprintf("still %s, another reviewer, note or judge verdict", c.Now)
		}
		fmt.Fprintf(w, "replaced: conversation %q compaction %d item %q, %s: %s\n", c.ConversationID, c.Compaction, c.ItemID, c.System, change)
	}
	a := out.Agreement
	if a.Reviewed == 0 {
		fmt.Fprintln(w, "agreement with the judge: no reviewed verdicts (a row counts once a reviewer's verdict is supported, absent or contradicted)")
	} else {
		fmt.Fprintf(w, "agreement with the judge: %d of %d reviewed verdicts equal the judge's (%.1f%%)\n",
			a.Equal, a.Reviewed, 100*float64(a.Equal)/float64(a.Reviewed))
	}
	if a.Verbatim > 0 {
		fmt.Fprintf(w, "%s of items found verbatim not counted: the substring check settled them, no judge was asked\n", plural(a.Verbatim, "review"))
	}
	fmt.Fprintf(w, "%s: %d reviews\n", out.Output, out.Total)
	return writeAgreementText(w, out.Output, out.Judge)
}

// writeUnrecorded says how many rows u counts, what happened to them, and
// where the first ones are; nothing when there are none.
func writeUnrecorded(w io.Writer, u unrecordedJSON, what string) {
	if u.Rows == 0 {
		return
	}
	at := strings.Join(u.At, ", ")
	if more := u.Rows - len(u.At); more > 0 {
		at += fmt.Sprintf(" and %d more", more)
	}
	fmt.Fprintf(w, "%s %s: %s\n", plural(u.Rows, "row"), what, at)
}
