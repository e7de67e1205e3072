package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tally-eval/tally/fixture"
)

// reviewLine is a review as the reviews format documents it (doc.go of
// package reviews), encoded by encoding/json: the reference the
// calibrate output is compared with, independent of reviews.Writer.
type reviewLine struct {
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	ItemID         string `json:"item_id"`
	Class          string `json:"class"`
	System         string `json:"system"`
	Item           string `json:"item,omitempty"`
	JudgeVerdict   string `json:"judge_verdict,omitempty"`
	Verdict        string `json:"verdict"`
	Reviewer       string `json:"reviewer,omitempty"`
	Note           string `json:"note,omitempty"`
	Source         string `json:"source,omitempty"`
}

func encodeLines(t *testing.T, lines []reviewLine) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// exampleRecords reads the example quarter's verdict records of both
// systems, by key and system.
func exampleRecords(t *testing.T) map[string]fixture.Record {
	t.Helper()
	out := map[string]fixture.Record{}
	for _, sys := range []string{"incumbent", "candidate"} {
		f, err := os.Open(filepath.Join(quarterly, "verdicts", sys+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rd := fixture.NewRecordReader(f, f.Name())
		for {
			r, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out[recKey(r.ConversationID, r.Compaction, r.ItemID, r.System)] = r
		}
		f.Close()
	}
	return out
}

func recKey(conv string, comp int, item, sys string) string {
	return fmt.Sprint(conv, "\x00", comp, "\x00", item, "\x00", sys)
}

// reportWorkbook writes the example quarter's report into a new folder
// and returns the workbook's path.
func reportWorkbook(t *testing.T) string {
	t.Helper()
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	dir := t.TempDir()
	if _, errOut, code := cli(t, "report", exampleConfig, "-o", dir); code != 0 {
		t.Fatalf("tally report: exit %d: %s", code, errOut)
	}
	return filepath.Join(dir, "report.xlsx")
}

// sheetRow is one item row of the workbook: its number and key.
type sheetRow struct {
	line                int
	conv, comp, item    string
	class               string
	incVerdict, candVer string
}

// itemRows reads the workbook's item rows.
func itemRows(t *testing.T, path string) []sheetRow {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Items")
	if err != nil {
		t.Fatal(err)
	}
	var out []sheetRow
	for i, r := range rows[2:] {
		if len(r) < 12 {
			continue
		}
		out = append(out, sheetRow{line: i + 3, conv: r[0], comp: r[1], item: r[2], class: r[3], incVerdict: r[7], candVer: r[11]})
	}
	return out
}

// fill sets cells of the workbook's sheets as a reviewer would, each a
// string cell, and saves it.
func fill(t *testing.T, path string, cells map[string]string) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for ref, v := range cells {
		sheet, cell, _ := strings.Cut(ref, "!")
		if err := f.SetCellStr(sheet, cell, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
}

// pick returns the first item row whose verdicts satisfy ok.
func pick(t *testing.T, rows []sheetRow, skip map[int]bool, ok func(r sheetRow) bool) sheetRow {
	t.Helper()
	for _, r := range rows {
		if !skip[r.line] && ok(r) {
			skip[r.line] = true
			return r
		}
	}
	t.Fatal("no item row fits")
	return sheetRow{}
}

// TestCalibrateRoundTrip is issue 14's round trip: tally report writes
// the example's workbook, a reviewer fills the reviewer's columns (some
// verdicts, an unsure, hostile text in Reviewer and Note), tally
// calibrate reads them back into the reviews file, exactly; a second run
// changes nothing, and a changed verdict replaces its review in place.
func TestCalibrateRoundTrip(t *testing.T) {
	book := reportWorkbook(t)
	rows := itemRows(t, book)
	recs := exampleRecords(t)
	used := map[int]bool{}
	// Rows chosen by the judge's verdicts, so that agreement and
	// disagreement are both exercised.
	contra := pick(t, rows, used, func(r sheetRow) bool { return r.candVer == "contradicted" })
	absent := pick(t, rows, used, func(r sheetRow) bool { return r.candVer == "absent" && r.incVerdict == "supported" })
	unsure := pick(t, rows, used, func(r sheetRow) bool { return r.incVerdict == "supported" && r.candVer == "supported" })
	verb := pick(t, rows, used, func(r sheetRow) bool { return r.incVerdict == "verbatim" })
	// A reviewer who types =HYPERLINK(…) in a spreadsheet makes a
	// formula cell: it is recorded as typed, never as its value.
	formula := pick(t, rows, used, func(r sheetRow) bool { return r.candVer == "supported" })

	hyperlink := `=HYPERLINK("http://evil.example/x","click")`
	long := strings.Repeat("long note ", 3000) // 30,000 characters, within a cell's 32,767
	ctrl := "@x \x01\x1f bell\x07\ttab\r\nnext line <b>&amp;</b>"
	ctrl = strings.NewReplacer(`\x01`, "\x01", `\x1f`, "\x1f", `\x07`, "\x07", `\t`, "\t", `\r`, "\r", `\n`, "\n").Replace(ctrl)
	// XML 1.0 cannot hold C0 controls other than tab, CR and LF: the
	// workbook keeps each as U+FFFD (excelize's SetCellStr, as Excel
	// would not store them either), and that is what is recorded.
	ctrlKept := "@x \uFFFD\uFFFD bell\uFFFD\ttab\r\nnext line <b>&amp;</b>"
	at := func(col string, r sheetRow) string { return fmt.Sprintf("Items!%s%d", col, r.line) }
	fill(t, book, map[string]string{
		// Q: incumbent's reviewer's verdict, R: candidate's, S: Reviewer, T: Note.
		at("R", contra): "absent", at("S", contra): hyperlink, at("T", contra): "+cmd|' /C calc'!A0",
		at("Q", absent): "supported", at("R", absent): " Absent ", at("S", absent): "ana", at("T", absent): ctrl,
		at("Q", unsure): "unsure", at("R", unsure): "supported", at("S", unsure): "-2+3", at("T", unsure): long,
		at("Q", verb):    "supported",
		at("R", formula): "contradicted",
	})
	setFormula(t, book, at("T", formula), `HYPERLINK("http://evil.example/y","open me")`)
	out := filepath.Join(t.TempDir(), "reviews.jsonl")
	stdout, errOut, code := cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errOut)
	}
	rec := func(r sheetRow, sys string) fixture.Record {
		n, _ := strconv.Atoi(r.comp)
		x, ok := recs[recKey(r.conv, n, r.item, sys)]
		if !ok {
			t.Fatalf("no %s record for row %d", sys, r.line)
		}
		return x
	}
	line := func(r sheetRow, sys, verdict, reviewer, note string) reviewLine {
		x := rec(r, sys)
		return reviewLine{ConversationID: x.ConversationID, Compaction: x.Compaction, ItemID: x.ItemID, Class: string(x.Class),
			System: sys, Item: x.Item, JudgeVerdict: string(x.Verdict), Verdict: verdict, Reviewer: reviewer, Note: note, Source: book}
	}
	// In sheet order, the incumbent before the candidate on a row.
	want := map[int][]reviewLine{
		contra.line:  {line(contra, "candidate", "absent", hyperlink, "+cmd|' /C calc'!A0")},
		absent.line:  {line(absent, "incumbent", "supported", "ana", ctrlKept), line(absent, "candidate", "absent", "ana", ctrlKept)},
		unsure.line:  {line(unsure, "candidate", "supported", "-2+3", long)},
		verb.line:    {line(verb, "incumbent", "supported", "", "")},
		formula.line: {line(formula, "candidate", "contradicted", "", `=HYPERLINK("http://evil.example/y","open me")`)},
	}
	var wantLines []reviewLine
	for _, r := range rows {
		wantLines = append(wantLines, want[r.line]...)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sameLines(t, "reviews file", string(got), encodeLines(t, wantLines))
	// Counts: 6 reviews, 1 unsure. Agreement by hand from the judge's
	// verdicts the rows were picked by: contradicted→absent no,
	// supported→supported yes, absent→absent yes, supported→supported
	// yes, supported→contradicted no: 3 of 5; verbatim→supported is left
	// out (no judge was asked).
	for _, s := range []string{
		fmt.Sprintf("%s: 5 of %d item rows reviewed, checked against the report's fixtures and verdicts\n", book, len(rows)),
		"agreement with the judge: 3 of 5 reviewed verdicts equal the judge's (60.0%)\n",
		"1 review of items found verbatim not counted: the substring check settled them, no judge was asked\n",
		out + ": 6 reviews\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
	wantAll(t, stdout, "6 6 0 0 1")

	// Again: nothing new, the file unchanged.
	stdout, errOut, code = cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	if code != 0 {
		t.Fatalf("second calibrate: exit %d: %s", code, errOut)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, got) {
		t.Errorf("a second run changed the reviews file:\n%s", again)
	}
	wantAll(t, stdout, "6 0 0 6 1")

	// A changed verdict replaces its review in place, and is said.
	fill(t, book, map[string]string{at("R", absent): "contradicted"})
	stdout, errOut, code = cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	if code != 0 {
		t.Fatalf("third calibrate: exit %d: %s", code, errOut)
	}
	wantAll(t, stdout, "6 0 1 5 1")
	x := rec(absent, "candidate")
	if s := fmt.Sprintf("replaced: conversation %q compaction %d item %q, candidate: was absent, now contradicted", x.ConversationID, x.Compaction, x.ItemID); !strings.Contains(stdout, s) {
		t.Errorf("output lacks %q:\n%s", s, stdout)
	}
	for i := range wantLines {
		if wantLines[i].ConversationID == x.ConversationID && wantLines[i].Compaction == x.Compaction && wantLines[i].ItemID == x.ItemID && wantLines[i].System == "candidate" {
			wantLines[i].Verdict = "contradicted"
		}
	}
	got, _ = os.ReadFile(out)
	sameLines(t, "after a changed verdict", string(got), encodeLines(t, wantLines))
}

// TestCalibrateBadWorkbook: a wrongly edited key cell and a bad verdict
// word are each one error naming the sheet, row and column; exit 1, and
// the reviews file is left as it was.
func TestCalibrateBadWorkbook(t *testing.T) {
	book := reportWorkbook(t)
	rows := itemRows(t, book)
	used := map[int]bool{}
	good := pick(t, rows, used, func(r sheetRow) bool { return r.incVerdict == "supported" })
	edited := pick(t, rows, used, func(r sheetRow) bool { return r.class == "constraint" })
	badWord := pick(t, rows, used, func(r sheetRow) bool { return r.candVer == "supported" })
	renamed := pick(t, rows, used, func(r sheetRow) bool { return true })
	at := func(col string, r sheetRow) string { return fmt.Sprintf("Items!%s%d", col, r.line) }
	fill(t, book, map[string]string{
		at("Q", good):   "supported",
		at("D", edited): "commitment", at("Q", edited): "absent",
		at("R", badWord): "supportd",
		at("C", renamed): "c99", at("R", renamed): "absent",
	})
	out := filepath.Join(t.TempDir(), "reviews.jsonl")
	before := `{"conversation_id":"x","compaction":1,"item_id":"i","class":"constraint","system":"incumbent","verdict":"absent"}` + "\n"
	if err := os.WriteFile(out, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	if code != exitInput {
		t.Errorf("exit %d, want %d", code, exitInput)
	}
	type bad struct {
		r    sheetRow
		line string
	}
	wantBad := []bad{
		{edited, fmt.Sprintf("tally: %s: Items!D%d: Class: \"commitment\" was edited: item %q of conversation %q is of class constraint in %s's fixtures", book, edited.line, edited.item, edited.conv, exampleConfig)},
		{badWord, fmt.Sprintf("tally: %s: Items!R%d: Candidate: reviewer's verdict: \"supportd\" is not supported, absent, contradicted or unsure", book, badWord.line)},
		{renamed, fmt.Sprintf("tally: %s: Items!C%d: Item: \"c99\" is no item of conversation %q compaction %s in %s: the row matches no item-compaction (was the key cell edited?)", book, renamed.line, renamed.conv, renamed.comp, exampleConfig)},
	}
	// Problems come in row order.
	for i := 0; i < len(wantBad); i++ {
		for j := i + 1; j < len(wantBad); j++ {
			if wantBad[j].r.line < wantBad[i].r.line {
				wantBad[i], wantBad[j] = wantBad[j], wantBad[i]
			}
		}
	}
	var want strings.Builder
	for _, b := range wantBad {
		want.WriteString(b.line + "\n")
	}
	if errOut != want.String() {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want.String())
	}
	if got, _ := os.ReadFile(out); string(got) != before {
		t.Errorf("the reviews file was changed:\n%s", got)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("files left beside the reviews file: %v", ents)
	}
}

// TestCalibrateOtherReport: a workbook whose configuration is not the
// given one's is refused, naming the Provenance cell.
func TestCalibrateOtherReport(t *testing.T) {
	book := reportWorkbook(t)
	rows := itemRows(t, book)
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	prov, _ := f.GetRows("Provenance")
	f.Close()
	line := 0
	for i, r := range prov {
		if len(r) > 3 && r[0] == "input" && r[1] == "configuration" {
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatal("no configuration row on the Provenance sheet")
	}
	other := strings.Repeat("ab", 32)
	fill(t, book, map[string]string{fmt.Sprintf("Items!Q%d", rows[0].line): "supported", fmt.Sprintf("Provenance!D%d", line): other})
	out := filepath.Join(t.TempDir(), "reviews.jsonl")
	_, errOut, code := cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	sum, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("tally: %s: Provenance!D%d: SHA-256: the workbook's configuration has SHA-256 %s…, %s has %x: the workbook is from another report, or %s was edited since tally report wrote it (adding reviews: does that): run tally report again and review its workbook\n",
		book, line, other[:40], exampleConfig, sha256Sum(sum), exampleConfig)
	if code != exitInput || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a reviews file was written: %v", err)
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// sameLines compares two texts line by line, naming the first line that
// differs (shortened: a review may hold a long note).
func sameLines(t *testing.T, what, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	short := func(s string) string {
		if len(s) > 400 {
			return s[:200] + "…" + s[len(s)-200:]
		}
		return s
	}
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			t.Fatalf("%s: line %d (of %d, want %d):\n got: %s\nwant: %s", what, i+1, len(g), len(w), short(a), short(b))
		}
	}
}

// wantAll checks the "all" row of calibrate's counts: read, new,
// replaced, unchanged, unsure.
func wantAll(t *testing.T, stdout, counts string) {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "all" {
			if got := strings.Join(f[1:], " "); got != counts {
				t.Errorf("all: %s, want %s (read new replaced unchanged unsure):\n%s", got, counts, stdout)
			}
			return
		}
	}
	t.Errorf("no all row:\n%s", stdout)
}

// TestCalibrateWithoutConfig: without --config the workbook's Provenance
// sheet names the systems and the judge verdicts are the sheet's; no
// fingerprint is known. JSON output counts the same.
func TestCalibrateWithoutConfig(t *testing.T) {
	book := reportWorkbook(t)
	rows := itemRows(t, book)
	r := pick(t, rows, map[int]bool{}, func(r sheetRow) bool { return r.candVer == "contradicted" })
	fill(t, book, map[string]string{fmt.Sprintf("Items!R%d", r.line): "contradicted", fmt.Sprintf("Items!Q%d", r.line): "unsure"})
	out := filepath.Join(t.TempDir(), "reviews.jsonl")
	stdout, errOut, code := cli(t, "calibrate", book, "-o", out, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	comp, _ := strconv.Atoi(r.comp)
	want := encodeLines(t, []reviewLine{{ConversationID: r.conv, Compaction: comp, ItemID: r.item, Class: r.class, System: "candidate",
		JudgeVerdict: "contradicted", Verdict: "contradicted", Source: book}})
	got, _ := os.ReadFile(out)
	sameLines(t, "reviews file", string(got), want)
	var js calibrateJSON
	if err := json.Unmarshal([]byte(stdout), &js); err != nil {
		t.Fatal(err)
	}
	if js.Checked || js.Rows != 1 || js.Total != 1 || js.Agreement.Equal != 1 || js.Agreement.Reviewed != 1 || len(js.Counts) != 2 ||
		js.Counts[0].System != "incumbent" || js.Counts[0].Unsure != 1 || js.Counts[1].System != "candidate" || js.Counts[1].New != 1 {
		t.Errorf("json: %s", stdout)
	}
}

func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"calibrate", "r.xlsx"}, exitUsage, "tally: -o REVIEWS.jsonl must name the reviews file to add to, not be empty (see tally --help)\n"},
		{[]string{"calibrate", "r.txt", "-o", "x.jsonl"}, exitUsage, "tally: r.txt: want a report workbook (.xlsx) or a CSV of its Items sheet (.csv) (see tally --help)\n"},
		{[]string{"calibrate", filepath.Join(t.TempDir(), "none.xlsx"), "-o", "x.jsonl"}, exitInput, ""},
	} {
		_, errOut, code := cli(t, tc.args...)
		if code != tc.code || tc.err != "" && errOut != tc.err {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

// setFormula makes a cell of the workbook a formula, as a spreadsheet
// does with text typed starting with "=".
func setFormula(t *testing.T, path, ref, formula string) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, cell, _ := strings.Cut(ref, "!")
	if err := f.SetCellFormula(sheet, cell, formula); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
}
