package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/html"
	"github.com/tally-eval/tally/report/notebook"
)

// FuzzParseSelection is an external test: it renders what it accepts
// with report/html, which imports report.

// selErrPos matches the position report.ParseSelection puts after the file's
// name in a syntax or type error.
var selErrPos = regexp.MustCompile(`^sel\.json:([0-9]+):([0-9]+): `)

// selectionNotebook shows the selection alone (task success must end a
// notebook).
var selectionNotebook = func() *notebook.Notebook {
	nb, err := notebook.Parse("sel.md", []byte("```tally\nselection\n```\n\n```tally\ntask-success\n```\n"))
	if err != nil {
		panic(err)
	}
	return nb
}()

// FuzzParseSelection: any input gives an error naming the file (and,
// for JSON errors, a line and column inside it) or a selection read
// from valid JSON, with every string in UTF-8, that the HTML report's
// selection cell renders; never a panic.
func FuzzParseSelection(f *testing.F) {
	if data, err := os.ReadFile("../examples/quarterly/selection.json"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		`{"budget":40,"seed":1,"sessions":[{"session_id":"s1","turns":97,"incident":true,"reason":"r"}],"warnings":["w"]}`,
		`{"budget":-9223372036854775808,"random":{"size":-1,"sessions":{"mean":1e308,"low":-1e308}}}`,
		"{\n  \"budget\": \"forty\"\n}", "{\n  \"budget\": 4,,\n}", `{"sessions":[{"session_id":"\u202e<b>\u0000"}]}`,
		"{\"warnings\":[\"\xff\"]}", `null`, `[]`, `{`, ``, `{"budget":1.5}`, `{"selected":{"annotation_hours":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := report.ParseSelection("sel.json", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "sel.json:") {
				t.Fatalf("error %q does not name the file", msg)
			}
			if m := selErrPos.FindStringSubmatch(msg); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				if line < 1 || line > bytes.Count(data, []byte("\n"))+1 || col < 1 {
					t.Fatalf("error %q: line %d, column %d outside the input", msg, line, col)
				}
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		strs := append([]string{}, s.Warnings...)
		for _, x := range s.Sessions {
			strs = append(strs, x.SessionID, x.Reason)
		}
		for _, x := range strs {
			if !utf8.ValidString(x) {
				t.Fatalf("accepted invalid UTF-8 %q", x)
			}
		}
		var out bytes.Buffer
		if err := html.Write(&out, &report.Report{Selection: s}, selectionNotebook); err != nil {
			t.Fatalf("rendering an accepted selection: %v", err)
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatal("the selection renders as invalid UTF-8")
		}
	})
}
