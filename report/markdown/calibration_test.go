package markdown

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/internal/sample"
)

// calibrationSection is the text of "How far to trust the judge", up to
// the next section.
func calibrationSection(t *testing.T, text string) string {
	t.Helper()
	at := strings.Index(text, "## How far to trust the judge\n")
	if at < 0 {
		t.Fatalf("no calibration section:\n%s", text)
	}
	s := text[at:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return s
}

// TestWriteCalibration renders the example with the reviews of
// sample.CalibratedConfig (its header says how they were drawn) and
// checks the section against what that draw makes by hand.
func TestWriteCalibration(t *testing.T) {
	r := sample.Calibrated(t)
	got := markdown(t, r)
	sample.Golden(t, "calibrated.golden", string(got))
	text := string(got)
	sec := calibrationSection(t, text)
	for _, want := range []struct{ text, why string }{
		{escape(r.Calibration.Sentence) + "\n", "the model's sentence, escaped"},
		{"| row | system | judge | corrected (the gates use this) | reviews used | κ |", "gates.use: corrected marks the corrected column"},
		// The incumbent's constraints: 71/80 retained; 5 supported and 3
		// absent reviewed, of 21 + 9 = 30 judged.
		{"| constraint | incumbent | 71/80 = 88.8% (80.0–94.0%) | ", "the judge's share from the gates table"},
		{" | 8 of 30 judged | ", "the incumbent's constraint reviews"},
		// The candidate's references: 5 supported reviews and 1 of 4
		// absent: that stratum has fewer than 2.
		{"| reference | candidate | 57/61 = 93.4% (84.3–97.4%) | none: 1 of the judge's 2 verdicts has too few reviews (each needs 2, or its one item reviewed) | 6 of 41 judged |", "a row without a corrected share says why"},
		// Incumbent: 5 supported reviews in each of 4 classes, the 2nd
		// each time called absent: 16 and 4; 3 absent per class, all
		// agreed: 12; its 2 contradictions (commitment, open question)
		// confirmed.
		{"| supported or verbatim | 16 | 4 | 0 |\n| absent | 0 | 12 | 0 |\n| contradicted | 0 | 0 | 2 |", "the incumbent's 3×3 table"},
		// κ by hand: N = 34, p_o = 30/34; margins rows 20, 12, 2 and
		// columns 16, 16, 2: p_e = (320 + 192 + 4)/34² = 516/1156;
		// κ = (1020 − 516)/(1156 − 516) = 504/640 = 0.7875 → 0.79.
		{"34 reviews, 30 of them the judge's verdict; κ = 0.79 (95% interval ", "the incumbent's κ"},
		{"; contradictions confirmed: 2 of 2.", "the incumbent's contradictions"},
		// Candidate: absent 3 + 3 + 3 + 1 = 10, its 1st constraint called
		// supported; contradictions 1 + 2 + 4 = 7, its 1st open question
		// called absent.
		{"| supported or verbatim | 16 | 4 | 0 |\n| absent | 1 | 9 | 0 |\n| contradicted | 0 | 1 | 6 |", "the candidate's 3×3 table"},
		// N = 37, p_o = 31/37; rows 20, 10, 7, columns 17, 14, 6:
		// p_e = (340 + 140 + 42)/1369 = 522/1369; κ = (1147 − 522)/(1369 − 522)
		// = 625/847 = 0.7379 → 0.74.
		{"37 reviews, 31 of them the judge's verdict; κ = 0.74 (95% interval ", "the candidate's κ"},
		{"; contradictions confirmed: 6 of 7.", "the candidate's contradictions"},
	} {
		if !strings.Contains(sec, want.text) {
			t.Errorf("%s: the section lacks %q", want.why, want.text)
		}
	}
	// Before the notes, after the backlog.
	if b, c, n := strings.Index(text, "## Backlog"), strings.Index(text, "## How far"), strings.Index(text, "## Notes"); !(b < c && c < n) {
		t.Errorf("the section is at %d, the backlog at %d and the notes at %d", c, b, n)
	}
	// Every row of the class table has six cells, of a 3×3 table four.
	page := render(t, sec)
	for _, tbl := range regexp.MustCompile(`(?s)<table>.*?</table>`).FindAllString(page, -1) {
		want := 4
		if strings.Contains(tbl, "reviews used") {
			want = 6
		}
		for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(tbl, -1) {
			if n := strings.Count(row, "<td") + strings.Count(row, "<th"); n != want {
				t.Errorf("a table row with %d cells, want %d: %s", n, want, row)
			}
		}
	}

	// gates.use: judge marks the judge's column instead.
	r.Calibration.Use = report.UseJudge
	if sec := calibrationSection(t, string(markdown(t, r))); !strings.Contains(sec, "| row | system | judge (the gates use this) | corrected | reviews used | κ |") {
		t.Errorf("gates.use: judge does not mark the judge's column:\n%s", sec)
	}
	// Without reviews, no section.
	r.Calibration = nil
	if text := string(markdown(t, r)); strings.Contains(text, "How far to trust the judge") {
		t.Error("a report without reviews has a calibration section")
	}
}

// TestWriteCalibrationHostile: the system names, a reason and the
// sentence hold hostile text; the section shows each as text, adds no
// table cell, and makes no tag or link.
func TestWriteCalibrationHostile(t *testing.T) {
	r := hostileCase(t)
	c := sample.HostileCalibration(r)
	h := sample.HostileStrings
	c.Retention[1].Reason = "| x | <script>alert(5)</script> @octocat https://evil.example"
	c.Sentence = "see [this](javascript:alert(6)) | <b>bold</b>\n# heading"
	sec := calibrationSection(t, string(markdown(t, r)))
	page := render(t, sec)
	if strings.Contains(page, "raw HTML omitted") {
		t.Error("raw HTML reached the rendered page")
	}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !allowed[strings.ToLower(m[2])] {
			t.Errorf("tag <%s%s> in the rendered page", m[1], m[2])
		}
	}
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(page, -1) {
		if n := strings.Count(row, "<td") + strings.Count(row, "<th"); n != 6 && n != 4 {
			t.Errorf("a table row with %d cells: %s", n, row)
		}
	}
	if n := strings.Count(page, "<h2") + strings.Count(page, "<h1"); n != 1 {
		t.Errorf("%d headings of level 1 or 2, want the section's own", n)
	}
	text := textOf(page)
	for _, want := range []string{
		"see [this](javascript:alert(6)) | <b>bold</b> # heading",
		"none: | x | <script>alert(5)</script> @octocat https://evil.example",
		"none: " + h["script"] + h["hyperlink"],
		"The judge against the reviewers: incumbent “old|sys”",
		"The judge against the reviewers: candidate “new`sys`”",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered section's text lacks %q", want)
		}
	}
	for _, want := range []string{"@\u200Boctocat", "https:\u200B//evil.example"} {
		if !strings.Contains(page, want) {
			t.Errorf("the rendered section lacks %q", want)
		}
	}
}

// TestWriteCalibrationDegenerateKappa: a κ whose standard error is 0
// (every review on one side of the table) has no interval, and the
// agreement line says so as tally calibrate does, not "interval 0.00 to
// 0.00" (a new user's trial met it with 0 of 19 reviews agreeing).
func TestWriteCalibrationDegenerateKappa(t *testing.T) {
	r := sample.Calibrated(t)
	a := &r.Calibration.Agreement[0]
	a.Kappa.Kappa, a.Kappa.StandardError = 0, 0
	a.Kappa.Interval.Lower, a.Kappa.Interval.Upper = 0, 0
	sec := calibrationSection(t, string(markdown(t, r)))
	if !strings.Contains(sec, "; κ = 0.00 (no interval: its standard error is 0); contradictions confirmed:") {
		t.Errorf("no degenerate κ wording in:\n%s", sec)
	}
	if strings.Contains(sec, "interval 0.00 to 0.00") || strings.Contains(sec, "interval +0.00 to +0.00") {
		t.Errorf("a degenerate interval printed:\n%s", sec)
	}
}
