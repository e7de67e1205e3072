package html

import (
	"html"
	"strings"
	"testing"

	"github.com/tally-eval/tally/report/internal/markup"
	"github.com/tally-eval/tally/report/internal/sample"
)

// section is the text of the page from the heading "How far to trust
// the judge" to the next heading ("Provenance").
func section(t *testing.T, text string) string {
	t.Helper()
	at := strings.Index(text, "\nHow far to trust the judge\n")
	if at < 0 {
		t.Fatalf("no calibration section in:\n%s", text)
	}
	s := text[at+1:]
	if end := strings.Index(s, "\nProvenance\n"); end >= 0 {
		s = s[:end]
	}
	return s
}

// TestWriteCalibration renders the example with the reviews of
// sample.CalibratedConfig (its header says how they were drawn) through
// the default notebook, and checks the calibration cell against what
// that draw makes by hand.
func TestWriteCalibration(t *testing.T) {
	r := sample.Calibrated(t)
	text := textContent(render(t, r, nil))
	sample.Golden(t, "calibrated.golden", text)
	sec := section(t, text)
	c := r.Calibration
	for _, want := range []struct{ text, why string }{
		{"prediction-powered inference (Angelopoulos et al., Science,\n2023)", "the notebook's paragraph on the correction"},
		{c.Sentence, "the model's sentence"},
		{"class system judge corrected the gates use this reviews used κ", "gates.use: corrected marks the corrected column"},
		// The incumbent's constraints: 71/80 retained; 5 supported and 3
		// absent reviewed, of 21 + 9 = 30 judged.
		{"constraint incumbent 71/80 · 88.8% Wilson 80.0–94.0% " + markup.Pct(c.Retention[0].Share) + " " +
			markup.Interval(c.Retention[0].Interval.Lower, c.Retention[0].Interval.Upper) + " 8 of 30 judged", "the incumbent's constraints"},
		// The candidate's references: 1 of 4 absent reviewed.
		{"candidate 57/61 · 93.4% Wilson 84.3–97.4% none 1 of the judge's 2 verdicts has too few reviews (each needs 2, or its one item reviewed) 6 of 41 judged", "a row without a corrected share says why"},
		// Incumbent: 5 supported reviews in each of 4 classes, the 2nd
		// called absent: 16 and 4; 3 absent per class, agreed: 12; its 2
		// contradictions confirmed. κ = 504/640 = 0.7875 (see the
		// Markdown test for the arithmetic).
		{"The judge against the reviewers: the incumbent\njudge ↓ reviewer → supported absent contradicted\nsupported or verbatim 16 4 0\nabsent 0 12 0\ncontradicted 0 0 2\n34 reviews, 30 of them the judge's verdict; κ = 0.79", "the incumbent's table"},
		{"contradictions confirmed: 2 of 2.", "the incumbent's contradictions"},
		// Candidate: κ = 625/847 = 0.738.
		{"supported or verbatim 16 4 0\nabsent 1 9 0\ncontradicted 0 1 6\n37 reviews, 31 of them the judge's verdict; κ = 0.74", "the candidate's table"},
		{"contradictions confirmed: 6 of 7.", "the candidate's contradictions"},
	} {
		if !strings.Contains(sec, want.text) {
			t.Errorf("%s: the section does not read %q", want.why, want.text)
		}
	}
	// After "What this gate can see", before the provenance.
	if i, j := strings.Index(text, "\nWhat this gate can see\n"), strings.Index(text, "\nHow far to trust the judge\n"); i < 0 || j < i {
		t.Errorf("the calibration section (at %d) is not after What this gate can see (at %d)", j, i)
	}

	// Without reviews, a note on how to add them.
	r.Calibration = nil
	sec = section(t, textContent(render(t, r, nil)))
	for _, want := range []string{"No reviews are configured", "tally calibrate queue --config report.yaml -o queue.csv",
		"tally calibrate queue.csv -o reviews.jsonl --config report.yaml", "reviews: reviews.jsonl"} {
		if !strings.Contains(sec, want) {
			t.Errorf("without reviews, the section does not read %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "judge ↓ reviewer →") {
		t.Error("without reviews, the section has a table")
	}
}

// TestWriteCalibrationHostile: system names, reasons and the sentence
// hold hostile text; the cell escapes each.
func TestWriteCalibrationHostile(t *testing.T) {
	r := sample.Hostile()
	c := sample.HostileCalibration(r)
	h := sample.HostileStrings
	page := render(t, r, nil)
	for _, tag := range tags(page) {
		low := strings.ToLower(tag)
		if strings.HasPrefix(low, "<script") || strings.Contains(low, "onerror") {
			t.Errorf("hostile input became markup: %q", tag)
		}
	}
	for _, want := range []struct{ escaped, why string }{
		{`<p class="calibration">judge said ` + html.EscapeString(h["img"]), "the sentence"},
		{html.EscapeString(c.Retention[1].Reason), "a reason"},
		{"the judge against the reviewers: the incumbent <strong>" + html.EscapeString(h["script"]) + "</strong>", "the incumbent's name"},
		{"the judge against the reviewers: the candidate <strong>" + html.EscapeString(h["dde"]) + "</strong>", "the candidate's name"},
	} {
		if !strings.Contains(strings.ToLower(page), strings.ToLower(want.escaped)) {
			t.Errorf("%s: %q not in the page", want.why, want.escaped)
		}
	}
}
