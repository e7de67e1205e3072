package reviews

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// queueRecord is a review queue's row (QueueHeader's columns) with the
// cells given by header.
func queueRecord(cells map[string]string) []string {
	rec := make([]string, len(QueueHeader))
	for h, v := range cells {
		i := slices.Index(QueueHeader, h)
		if i < 0 {
			panic("no column " + h)
		}
		rec[i] = v
	}
	return rec
}

// filledQueue is a review queue of csvCheck's items, filled in: notes
// with the characters a separator or a quote could be confused with.
var filledQueue = [][]string{
	QueueHeader,
	queueRecord(map[string]string{HeaderConversation: "c1", HeaderCompaction: "1", HeaderItem: "i1", HeaderClass: "constraint",
		HeaderIncumbentVerdict: "verbatim", HeaderCandidateVerdict: "absent", HeaderCandidateSample: SampleRandom,
		HeaderCandidateReview: "absent", HeaderReviewer: "Jürgen Müller", HeaderNote: "Semikolon; Komma, \"Zitat\"\nZeile 2"}),
	queueRecord(map[string]string{HeaderConversation: "c2", HeaderCompaction: "1", HeaderItem: "q", HeaderClass: "open_question",
		HeaderIncumbentVerdict: "contradicted", HeaderCandidateVerdict: "supported", HeaderIncumbentSample: SampleCensus,
		HeaderIncumbentReview: "Contradicted ", HeaderReviewer: "Zoë Lefèvre", HeaderNote: "déjà vu\tà droite"}),
}

// encodeCSV writes records as a spreadsheet or tool does: sep between
// fields, every field quoted or only those that need it, CRLF or LF, a
// UTF-8 byte order mark or none.
func encodeCSV(t *testing.T, records [][]string, sep rune, quoteAll, crlf, bom bool) string {
	t.Helper()
	var b bytes.Buffer
	if bom {
		b.WriteString("\ufeff")
	}
	if !quoteAll {
		w := csv.NewWriter(&b)
		w.Comma, w.UseCRLF = sep, crlf
		if err := w.WriteAll(records); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	for _, rec := range records {
		for i, f := range rec {
			if i > 0 {
				b.WriteRune(sep)
			}
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		}
		b.WriteString(eol)
	}
	return b.String()
}

// TestReadCSVSeparators: a review queue saved by the programs reviewers
// use reads as the comma-separated queue does. The separator is found
// from the header row (RFC 4180 §2 names the comma; Excel saves "CSV"
// and "CSV UTF-8" with the list separator of the regional settings, ";"
// in German and French; LibreOffice Calc's Text CSV filter lets the user
// pick the field delimiter and quotes all text cells when asked).
// Found by a trial with German and French reviewers: every file but the
// comma-separated one was refused ("extraneous or missing \" in
// quoted-field", "bare \" in non-quoted-field", "no column").
func TestReadCSVSeparators(t *testing.T) {
	group := make([]string, len(QueueHeader))
	group[0], group[7], group[12], group[17] = GroupItem, "inc", "cand", GroupReview
	withGroup := append([][]string{group}, filledQueue...)
	cases := []struct {
		name, source       string
		records            [][]string
		sep                rune
		quoteAll, crlf, bm bool
		headerLine         int
	}{
		{"comma", "RFC 4180, as tally calibrate queue writes it", filledQueue, ',', false, false, false, 1},
		{"semicolon quoted", "LibreOffice Calc, field delimiter ;, quote all text cells", filledQueue, ';', true, false, false, 1},
		{"semicolon BOM CRLF", "Excel (German regional settings), CSV UTF-8", filledQueue, ';', false, true, true, 1},
		{"comma BOM quoted", "PowerShell 5.1 Export-Csv -Encoding UTF8: a BOM, then \"Conversation\"", filledQueue, ',', true, true, true, 1},
		{"tab", "Excel, Text (Tab delimited)", filledQueue, '\t', false, true, false, 1},
		{"semicolon group row", "the Items sheet saved as CSV with ;, its row of column groups first", withGroup, ';', false, true, true, 2},
		// A first line naming the separator, which Excel reads and does
		// not show (not documented by Microsoft; pandas' and
		// LibreOffice's users meet it in files made for Excel).
		{"sep= line", "a file made for Excel: sep=; on line 1", append([][]string{{"sep=", ""}}, filledQueue...), ';', false, true, true, 2},
		{"sep= line tab", "sep=<tab> on line 1", append([][]string{{"sep=", ""}}, filledQueue...), '\t', false, false, false, 2},
	}
	base, err := ReadCSV(strings.NewReader(encodeCSV(t, filledQueue, ',', false, false, false)), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Collect(base, csvCheck)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Reviews) != 2 || want.Reviews[0].Note != "Semikolon; Komma, \"Zitat\"\nZeile 2" || want.Reviews[1].Verdict != fixture.Contradicted {
		t.Fatalf("the comma-separated queue: %+v", want.Reviews)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := encodeCSV(t, c.records, c.sep, c.quoteAll, c.crlf, c.bm)
			tab, err := ReadCSV(strings.NewReader(text), "q.csv")
			if err != nil {
				t.Fatalf("%s: %v", c.source, err)
			}
			got, err := Collect(tab, csvCheck)
			if err != nil {
				t.Fatalf("%s: %v", c.source, err)
			}
			if !slices.Equal(got.Reviews, want.Reviews) {
				t.Errorf("%s:\n%+v\nwant\n%+v", c.source, got.Reviews, want.Reviews)
			}
			if tab.Rows[0].Line != c.headerLine+1 {
				t.Errorf("%s: first row on line %d, want %d", c.source, tab.Rows[0].Line, c.headerLine+1)
			}
		})
	}
}

// TestReadCSVNoSeparator: a header row that names the columns under no
// separator is one problem naming the separators tried; one that names
// some under a separator says which are missing under it; a "sep=" line
// naming another separator, or one the header row does not use, is
// named.
func TestReadCSVNoSeparator(t *testing.T) {
	cases := []struct{ reason, text, want string }{
		{"no separator gives the columns", "Conversation|Compaction|Item\nc1|1|i1\n",
			`x.csv:1:1: no column "Conversation", "Compaction", "Item", "Class", "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row (with ",", ";" or tab between the columns): want the reviewer's columns as tally report writes them`},
		{"some columns under ;", "Conversation;Compaction;Item;Class;Review\n",
			`x.csv:1:1: no column "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row (read with ";" between the columns; tried ",", ";" and tab): want the reviewer's columns as tally report writes them`},
		{"a CSV syntax error under every separator", "\"Conversation,Compaction\n",
			`x.csv:1:26: extraneous or missing " in quoted-field, reading the header row with "," between the columns (tried ",", ";" and tab)`},
		{"a sep= line naming another separator", "sep=|\n" + strings.Join(QueueHeader, "|") + "\n",
			`x.csv:1:1: "sep=|" names a separator tally does not read: save the file with ",", ";" or tab between the columns`},
		{"a sep= line and a header under another separator", "sep=;\n" + strings.Join(QueueHeader, ",") + "\n",
			`x.csv:2:1: no column "Conversation", "Compaction", "Item", "Class", "Incumbent: reviewer's verdict", "Candidate: reviewer's verdict" in the header row (read with ";" between the columns, as the sep= line on line 1 says): want the reviewer's columns as tally report writes them`},
		{"empty but for a BOM", "\ufeff\r\n", `x.csv:1:1: empty: want a header line with the Items sheet's columns`},
		// report's DIR/queue.csv, given for calibrate queue's queue.csv
		// (a new user's trial): both were named queue.csv.
		{"the replay queue", "conversation_id,change,reference,candidate,reference_kind,reviewer,caused_by_compaction,notes\ns1,lost,pass,fail,test,ana,yes,\n",
			"x.csv:1:1: this is the replay queue `tally report` writes (DIR/queue.csv: the discordant task-success conversations), not a review queue: its reviewer columns are the reviewers' own, and tally does not read them back; calibrate reads the queue `tally calibrate queue` writes, or the report workbook's Items sheet"},
	}
	for _, c := range cases {
		_, err := ReadCSV(strings.NewReader(c.text), "x.csv")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.reason, err, c.want)
		}
	}
}

// TestCollectCSVErrorValue: a CSV holds the value a cell showed. A
// Reviewer, Note or reviewer's-verdict cell that a spreadsheet took for
// a formula and could not compute comes back as an error value (Excel's,
// from ERROR.TYPE's documentation and Excel.ErrorCellValueType; Calc's
// Err:5xx, from "Error Codes in LibreOffice Calc"): a problem naming the
// cell, never a note. A formula it could compute comes back as its value
// (=SUM(1,2) as 3), which cannot be told from text: recorded as it is.
// Found by a trial: notes "=1+*2"-like came back as "Err:510".
func TestCollectCSVErrorValue(t *testing.T) {
	note := func(n string) string {
		return "c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,,absent,ana," + n + "\n"
	}
	for _, v := range []string{"Err:510", "Err:509", "#NAME?", "#VALUE!", "#REF!", "#DIV/0!", "#N/A", "#NUM!", "#NULL!", "#SPILL!", "#CALC!", " #NAME? ",
		// Localized Excel and Calc (a re-check trial's German #WERT!
		// was recorded as a note): German, French, Spanish, Italian,
		// Dutch, Polish, Turkish.
		"#WERT!", "#BEZUG!", "#NV", "#ZAHL!", "#NOM?", "#VALEUR!", "#NOMBRE!", "#¡VALOR!", "#¿NOMBRE?", "#N/D", "#N/B", "#NAZWA?", "#DEĞER!", "#YOK",
		// and the #N/A of Russian, Hungarian, Czech, Danish (a second
		// re-check trial).
		"#Н/Д", "#HIÁNYZIK", "#NENÍ_K_DISPOZICI", "#I/T"} {
		tab, err := ReadCSV(strings.NewReader(csvHeader+note(v)), "r.csv")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Collect(tab, csvCheck)
		want := `r.csv:2:20: Note: "` + strings.TrimSpace(v) + `" is a spreadsheet's error value, not text a reviewer typed: the spreadsheet took the cell for a formula (text starting with =, +, - or @), and a CSV keeps only the value a formula showed; type the text behind an apostrophe ('=…) and save again, or read the workbook (.xlsx) instead, which keeps a formula as typed`
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", v, err, want)
		}
	}
	// In the Reviewer and verdict cells too, each named.
	text := csvHeader + "c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,#VALUE!,absent,#NAME?,\n"
	tab, err := ReadCSV(strings.NewReader(text), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Collect(tab, csvCheck)
	if err == nil || !strings.Contains(err.Error(), `r.csv:2:19: Reviewer: "#NAME?" is a spreadsheet's error value`) ||
		!strings.Contains(err.Error(), `r.csv:2:17: Incumbent: reviewer's verdict: "#VALUE!" is a spreadsheet's error value`) {
		t.Errorf("reviewer and verdict cells: %v", err)
	}
	// Text that only looks like one, and a computed value, are notes.
	for _, v := range []string{"3", "#N/A bei Kandidat", "Err:51", "err:510", "#name?", "#wert!", "#123", "# WERT!", "#TODO!", "#WICHTIG!", "#LGTM!", "#FIXME?"} {
		tab, err := ReadCSV(strings.NewReader(csvHeader+note(v)), "r.csv")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(tab, csvCheck)
		if err != nil || len(got.Reviews) != 1 || got.Reviews[0].Note != v {
			t.Errorf("%q: %v %+v", v, err, got)
		}
	}
}

// TestCollectUnrecorded: a row with a Note or Reviewer but no reviewer's
// verdict, and an unsure row's note, are never dropped unsaid: counted,
// the first MaxUnrecordedListed named by their cell. Found by a trial:
// "Nur Notiz, kein Urteil — wichtig!" appeared nowhere.
func TestCollectUnrecorded(t *testing.T) {
	text := csvHeader +
		"c1,1,i1,constraint,,,,verbatim,,,,absent,,,,TRUE,,,,Nur Notiz, kein Urteil\n" + // line 2: a note, no verdict
		"c1,2,i1,constraint,,,,supported,,,,not checked,,,,FALSE,unsure,,bo,weiß nicht\n" + // line 3: unsure with a note
		"c2,1,q,open_question,,,,contradicted,,,,supported,,,,TRUE,unsure,supported,bo,recorded\n" + // line 4: the note is recorded
		"c2,1,z,open_question,,,,,,,,,,,,,,,ana,\n" + // line 5: a reviewer, no verdict
		"c2,1,y,open_question,,,,,,,,,,,,,,,,\n" // line 6: nothing
	for i := 0; i < MaxUnrecordedListed; i++ {
		text += "c3,1,n,constraint,,,,,,,,,,,,,,,, note\n" // lines 7…
	}
	tab, err := ReadCSV(strings.NewReader(text), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(tab, csvCheck)
	if err != nil {
		t.Fatal(err)
	}
	want := Unrecorded{Rows: 2 + MaxUnrecordedListed, At: []string{"r.csv:2:20", "r.csv:5:19", "r.csv:7:20", "r.csv:8:20", "r.csv:9:20"}}
	if got.NoVerdict.Rows != want.Rows || !slices.Equal(got.NoVerdict.At, want.At) {
		t.Errorf("no verdict: %+v, want %+v", got.NoVerdict, want)
	}
	if got.UnsureNotes.Rows != 1 || !slices.Equal(got.UnsureNotes.At, []string{"r.csv:3:20"}) {
		t.Errorf("unsure notes: %+v", got.UnsureNotes)
	}
	if got.Scanned != 6+MaxUnrecordedListed-1 || got.Rows != 2 {
		t.Errorf("scanned %d, rows %d", got.Scanned, got.Rows)
	}
}
