package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCalibrateNextReport is the second half of issue 14's round trip:
// tally report writes the workbook, a reviewer fills the reviewer's
// columns of every constraint row (the judge's verdict on most, another
// on two, hostile text in a Note, and first a wrongly edited key cell),
// tally calibrate reads them back, and the next report — reviews: in its
// configuration, gates.use: corrected — shows the judge against the
// reviewers and the corrected retention, and decides the constraint
// gates on it.
func TestCalibrateNextReport(t *testing.T) {
	book := reportWorkbook(t)
	rows := itemRows(t, book)
	cells := map[string]string{}
	reviewer := func(v string) string {
		if v == "verbatim" {
			return "supported"
		}
		return v
	}
	// n counts the verdicts filled, judged those of items the judge
	// ruled on: a review of an item found verbatim says nothing of the
	// judge and the report leaves it out.
	var n, judged, flipped int
	for _, r := range rows {
		if r.class != "constraint" {
			continue
		}
		inc, cand := reviewer(r.incVerdict), reviewer(r.candVer)
		// Two disagreements: the reviewer finds a supported item absent.
		if flipped < 2 && cand == "supported" && r.candVer == "supported" {
			cand = "absent"
			flipped++
		}
		if inc != "" {
			cells[fmt.Sprintf("Items!Q%d", r.line)] = inc
			n++
			if r.incVerdict != "verbatim" {
				judged++
			}
		}
		if cand != "" {
			cells[fmt.Sprintf("Items!R%d", r.line)] = cand
			n++
			if r.candVer != "verbatim" {
				judged++
			}
		}
		cells[fmt.Sprintf("Items!S%d", r.line)] = "rev <b>1</b>"
		cells[fmt.Sprintf("Items!T%d", r.line)] = `=HYPERLINK("http://x","y") <script>`
	}
	if flipped != 2 || n < 100 {
		t.Fatalf("filled %d verdicts with %d disagreements; the example changed?", n, flipped)
	}
	// First a wrongly edited key cell: an error naming it, nothing written.
	first := rows[0]
	for _, r := range rows {
		if r.class == "constraint" {
			first = r
			break
		}
	}
	cells[fmt.Sprintf("Items!C%d", first.line)] = first.item + "x"
	fill(t, book, cells)
	out := filepath.Join(t.TempDir(), "reviews.jsonl")
	_, errOut, code := cli(t, "calibrate", book, "-o", out, "--config", exampleConfig)
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("Items!C%d", first.line)) {
		t.Fatalf("edited key cell: exit %d, stderr %q; want exit 1 naming Items!C%d", code, errOut, first.line)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("the reviews file was written despite the error: %v", err)
	}
	fill(t, book, map[string]string{fmt.Sprintf("Items!C%d", first.line): first.item})
	if _, errOut, code := cli(t, "calibrate", book, "-o", out, "--config", exampleConfig); code != 0 {
		t.Fatalf("tally calibrate: exit %d: %s", code, errOut)
	}

	// The next report reads the reviews and decides on the corrected share.
	text := absoluteExampleConfig(t)
	text = regexp.MustCompile(`(?m)^reviews:.*$`).ReplaceAllString(text, "")
	text = regexp.MustCompile(`(?m)^(\s*)use:.*$`).ReplaceAllString(text, "")
	text = strings.Replace(text, "  max_contradictions:", "  use: corrected\n  max_contradictions:", 1)
	text += "\nreviews: " + out + "\n"
	cfg := filepath.Join(t.TempDir(), "report.yaml")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, errOut, code := cli(t, "gate", cfg, "--format", "json")
	if code != 0 && code != 3 {
		t.Fatalf("tally gate: exit %d: %s", code, errOut)
	}
	var g struct {
		Calibration *struct {
			Use       string `json:"use"`
			Reviewed  int    `json:"reviewed"`
			Agreement []struct {
				System  string  `json:"system"`
				Reviews int     `json:"reviews"`
				Table   [][]int `json:"table"`
				Kappa   *float64
			} `json:"judge_against_reviewers"`
			Retention []struct {
				Class      string   `json:"class"`
				System     string   `json:"system"`
				Reviews    int      `json:"reviews"`
				JudgeShare *float64 `json:"judge_share"`
				Corrected  *float64 `json:"corrected"`
				Reason     string   `json:"reason"`
			} `json:"retention"`
		} `json:"calibration"`
		Rows []struct {
			Name      string `json:"row"`
			Candidate struct {
				Status string `json:"status"`
			} `json:"candidate"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &g); err != nil {
		t.Fatalf("gate JSON: %v\n%s", err, stdout)
	}
	c := g.Calibration
	if c == nil || c.Use != "corrected" || c.Reviewed != judged || judged == n {
		t.Fatalf("calibration %+v, want use corrected and %d reviews (of %d filled, the rest of items found verbatim)", c, judged, n)
	}
	if c.Agreement[1].Table[0][1] != 2 {
		t.Errorf("candidate's table %v: want the 2 supported items the reviewer found absent", c.Agreement[1].Table)
	}
	for _, r := range c.Retention {
		switch {
		case r.Class == "constraint" && (r.Corrected == nil || r.Reviews == 0):
			t.Errorf("constraint, %s: no corrected share (%s)", r.System, r.Reason)
		case r.Class == "constraint" && r.System == "candidate" && !(*r.Corrected < *r.JudgeShare):
			t.Errorf("candidate's corrected constraint share %v not below the judge's %v after two items found absent", *r.Corrected, *r.JudgeShare)
		case r.Class != "constraint" && (r.Corrected != nil || r.Reason != "no reviews"):
			t.Errorf("%s, %s: corrected %v reason %q, want none: no reviews", r.Class, r.System, r.Corrected, r.Reason)
		}
	}
	for _, row := range g.Rows {
		if row.Name == "commitment" && row.Candidate.Status != "incomplete" {
			t.Errorf("commitment under gates.use: corrected without reviews: status %q, want incomplete", row.Candidate.Status)
		}
	}
	// The report's Markdown shows the section, the hostile text nowhere
	// unescaped.
	dir := t.TempDir()
	if _, errOut, code := cli(t, "report", cfg, "-o", dir); code != 0 && code != 3 {
		t.Fatalf("tally report: exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"How far to trust the judge", "gates use the corrected"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "<script>") || strings.Contains(string(md), "<script>") {
		t.Error("a reviewer's note reached the report unescaped")
	}
}
