package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/reviews"
)

// filledQueueRecords runs tally calibrate queue on the example quarter
// without reviews and fills the queue as a reviewer would: every drawn
// system's verdict the judge's, a note in German on each row; then a
// note on a row whose verdicts it clears (line noVerdict) and unsure
// with a note on another (line unsure). It returns the records, the
// configuration, and those lines.
func filledQueueRecords(t *testing.T) (recs [][]string, config string, noVerdict, unsure int) {
	t.Helper()
	config = unreviewedConfig(t)
	_, q := runQueue(t, config, filepath.Join(t.TempDir(), "queue.csv"))
	recs, err := csv.NewReader(bytes.NewReader(q)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	verdictCol := [2]int{queueCol(t, reviews.HeaderIncumbentVerdict), queueCol(t, reviews.HeaderCandidateVerdict)}
	sampleCol := [2]int{queueCol(t, reviews.HeaderIncumbentSample), queueCol(t, reviews.HeaderCandidateSample)}
	reviewCol := [2]int{queueCol(t, reviews.HeaderIncumbentReview), queueCol(t, reviews.HeaderCandidateReview)}
	for _, r := range recs[1:] {
		for s := range 2 {
			if r[sampleCol[s]] == "" {
				continue
			}
			v := r[verdictCol[s]]
			if v == string(fixture.Verbatim) {
				v = string(fixture.Supported)
			}
			r[reviewCol[s]] = v
		}
		r[queueCol(t, reviews.HeaderReviewer)] = "Jürgen Müller"
		r[queueCol(t, reviews.HeaderNote)] = "Größe passt; Komma, \"Zitat\""
	}
	noVerdict, unsure = 3, 5
	r := recs[noVerdict-1]
	r[reviewCol[0]], r[reviewCol[1]] = "", ""
	r[queueCol(t, reviews.HeaderNote)] = "Nur Notiz, kein Urteil — wichtig!"
	r = recs[unsure-1]
	for s := range 2 {
		if r[reviewCol[s]] != "" {
			r[reviewCol[s]] = "unsure"
		}
	}
	r[queueCol(t, reviews.HeaderNote)] = "weiß nicht"
	return recs, config, noVerdict, unsure
}

// saveQueue writes records as the named program saves a CSV: sep between
// the fields, every field quoted or only as needed, a UTF-8 byte order
// mark and CRLF line ends.
func saveQueue(t *testing.T, path string, recs [][]string, sep rune, quoteAll, bom bool) {
	t.Helper()
	var b bytes.Buffer
	if bom {
		b.WriteString("\ufeff")
	}
	if quoteAll {
		for _, rec := range recs {
			for i, f := range rec {
				if i > 0 {
					b.WriteRune(sep)
				}
				b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
			}
			b.WriteString("\r\n")
		}
	} else {
		w := csv.NewWriter(&b)
		w.Comma, w.UseCRLF = sep, bom
		if err := w.WriteAll(recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// saveQueueBook writes records as LibreOffice Calc saves the queue's CSV
// as .xlsx: one sheet, named after the file, the headers on row 1, the
// compaction a number.
func saveQueueBook(t *testing.T, path string, recs [][]string) {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "queue"); err != nil {
		t.Fatal(err)
	}
	for r, rec := range recs {
		for c, v := range rec {
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			var err error
			if n, nerr := strconv.Atoi(v); nerr == nil && r > 0 && c == 1 {
				err = f.SetCellValue("queue", ref, float64(n))
			} else {
				err = f.SetCellStr("queue", ref, v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
}

// TestCalibrateLocales: the review queue filled in and saved by the
// programs German and French reviewers use gives the same reviews as the
// comma-separated queue: semicolons, a byte order mark and CRLF (Excel's
// "CSV UTF-8" with German regional settings), every field quoted behind
// a byte order mark (PowerShell 5.1 Export-Csv -Encoding UTF8), and the
// queue saved as a one-sheet workbook (LibreOffice Calc). Each run writes
// into a folder that does not exist yet, as tally review -o does, and
// says, in text and JSON, the row with a note but no verdict and the
// unsure row's note, by their cells. Found by a trial: each of these was
// refused or dropped silently.
func TestCalibrateLocales(t *testing.T) {
	recs, config, noVerdict, unsure := filledQueueRecords(t)
	dir := t.TempDir()
	noteCol := queueCol(t, reviews.HeaderNote) + 1
	cases := []struct {
		name, source string
		save         func(path string)
		at           func(line int) string
	}{
		{"comma.csv", "tally calibrate queue's own format (RFC 4180)", func(p string) { saveQueue(t, p, recs, ',', false, false) }, nil},
		{"excel_de.csv", "Excel, German regional settings, CSV UTF-8", func(p string) { saveQueue(t, p, recs, ';', false, true) }, nil},
		{"libreoffice.csv", "LibreOffice Calc, field delimiter ;, quote all text cells", func(p string) { saveQueue(t, p, recs, ';', true, false) }, nil},
		{"powershell.csv", "PowerShell 5.1 Export-Csv -Encoding UTF8", func(p string) { saveQueue(t, p, recs, ',', true, true) }, nil},
		{"libreoffice.xlsx", "LibreOffice Calc, the queue saved as .xlsx", func(p string) { saveQueueBook(t, p, recs) }, nil},
	}
	var want []reviews.Review
	for i, c := range cases {
		src := filepath.Join(dir, c.name)
		c.save(src)
		out := filepath.Join(dir, "new", strconv.Itoa(i), "reviews.jsonl")
		stdout, errOut, code := cli(t, "calibrate", src, "-o", out, "--config", config, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.source, code, errOut)
		}
		var js calibrateJSON
		if err := json.Unmarshal([]byte(stdout), &js); err != nil {
			t.Fatal(err)
		}
		cell := func(line int) string { return src + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(noteCol) }
		if strings.HasSuffix(src, ".xlsx") {
			cell = func(line int) string {
				ref, _ := excelize.CoordinatesToCellName(noteCol, line)
				return src + ": queue!" + ref
			}
		}
		nr := js.NotRecorded
		if nr.NoVerdict.Rows != 1 || !slices.Equal(nr.NoVerdict.At, []string{cell(noVerdict)}) ||
			nr.UnsureNotes.Rows != 1 || !slices.Equal(nr.UnsureNotes.At, []string{cell(unsure)}) {
			t.Errorf("%s: not recorded %+v, want %s and %s", c.source, nr, cell(noVerdict), cell(unsure))
		}
		got, err := reviews.Load(out, input.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			got[j].Source = ""
		}
		if i == 0 {
			want = got
			if len(want) < 10 || want[0].Note != "Größe passt; Komma, \"Zitat\"" {
				t.Fatalf("%s: %d reviews, the first %+v", c.source, len(want), want)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the reviews differ from the comma-separated queue's", c.source)
		}
	}

	// The text output says both, by their cells.
	src := filepath.Join(dir, cases[1].name)
	stdout, errOut, code := cli(t, "calibrate", src, "-o", filepath.Join(dir, "text.jsonl"), "--config", config)
	for _, line := range []string{
		"1 row with a note or reviewer but no reviewer's verdict: not recorded (fill a reviewer's verdict to record it): " + src + ":" + strconv.Itoa(noVerdict) + ":" + strconv.Itoa(noteCol) + "\n",
		"1 row marked unsure with a note: the note is not recorded (unsure is counted, not recorded): " + src + ":" + strconv.Itoa(unsure) + ":" + strconv.Itoa(noteCol) + "\n",
	} {
		if code != 0 || !strings.Contains(stdout, line) {
			t.Errorf("exit %d %s, stdout:\n%s\nwant the line\n%s", code, errOut, stdout, line)
		}
	}
}

// TestCalibrateErrorValueCSV: a note a spreadsheet turned into a formula
// it could not compute comes back from a CSV as an error value
// (LibreOffice's Err:510): exit 1 naming the cell, nothing written, and
// no output folder made.
func TestCalibrateErrorValueCSV(t *testing.T) {
	recs, config, _, _ := filledQueueRecords(t)
	recs[1][queueCol(t, reviews.HeaderNote)] = "Err:510"
	dir := t.TempDir()
	src := filepath.Join(dir, "arrow.csv")
	saveQueue(t, src, recs, ';', false, true)
	out := filepath.Join(dir, "new", "reviews.jsonl")
	_, errOut, code := cli(t, "calibrate", src, "-o", out, "--config", config)
	want := "tally: " + src + ":2:" + strconv.Itoa(queueCol(t, reviews.HeaderNote)+1) + `: Note: "Err:510" is a spreadsheet's error value`
	if code != exitInput || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and\n%s…", code, errOut, want)
	}
	if _, err := os.Stat(filepath.Dir(out)); !os.IsNotExist(err) {
		t.Errorf("the output folder: %v, want none made", err)
	}
	// A file in the way of the folder is one line naming it.
	block := filepath.Join(dir, "file")
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = cli(t, "calibrate", src, "-o", filepath.Join(block, "reviews.jsonl"), "--config", config)
	if want := "tally: -o " + filepath.Join(block, "reviews.jsonl") + ": its folder " + block + ": is a file, not a folder\n"; code == 0 || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}
