package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
)

// errorExample copies examples/quarterly into a temporary folder with
// the first n retained candidate constraint verdicts made error verdicts,
// and returns the copy's report.yaml.
func errorExample(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, quarterly, dir)
	path := filepath.Join(dir, "verdicts", "candidate.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if n > 0 && rec["class"] == "constraint" && (rec["verdict"] == "verbatim" || rec["verdict"] == "supported") {
			rec["verdict"] = "error"
			out, _ := json.Marshal(rec)
			lines[i] = string(out)
			n--
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "report.yaml")
}

// TestReportErrorShare: with 10 retained candidate constraint verdicts
// made errors, no output states 60/80 = 75.0% with an interval (which
// counts the errors as not retained); each states the range, 60–70 of
// 80, 75.0–87.5%, in report.Share's words.
func TestReportErrorShare(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	config := errorExample(t, 10)
	outDir := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := cli(t, "report", config, "-o", outDir); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	gateText, _, _ := cli(t, "gate", config)
	gateOut, _, _ := cli(t, "gate", config, "--format", "json")
	wrong := []string{"75.0% (64.5–83.2%)", "64.5–83.2%", "60/80 = 75.0%", "60/80 · "}
	for _, c := range []struct{ name, text, want string }{
		{"report.md", read("report.md"), "60–70 of 80 = 75.0–87.5%, no interval; 1 contradicted, 10 errors"},
		{"report.html", read("report.html"), "60–70 of 80 · <strong>75.0–87.5%</strong>"},
		{"report.xlsx", xlsxText(t, filepath.Join(outDir, "report.xlsx")), "75.0–87.5%"},
		{"gate", gateText, "60–70 of 80 = 75.0–87.5%, no interval, 10 errors"},
		{"gate --format json", gateOut, `"retained_share_range": {`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s does not show the range %q", c.name, c.want)
		}
		for _, w := range wrong {
			if i := strings.Index(c.text, w); i >= 0 {
				t.Errorf("%s counts errors as not retained: …%s…", c.name, c.text[max(0, i-100):min(len(c.text), i+60)])
			}
		}
	}
	// The workbook names the range in report.Share's one text form.
	if !strings.Contains(xlsxText(t, filepath.Join(outDir, "report.xlsx")), "60–70 of 80 = 75.0–87.5%, no interval") {
		t.Error("report.xlsx does not state the range in report.Share's text form")
	}
	var g gateJSON
	if err := json.Unmarshal([]byte(gateOut), &g); err != nil {
		t.Fatal(err)
	}
	cand := g.Rows[0].Candidate
	if g.Rows[0].Row != "constraint" || cand.Share != nil || cand.ShareRange == nil ||
		cand.ShareRange.Lower != 60.0/80 || cand.ShareRange.Upper != 70.0/80 {
		t.Errorf("gate JSON constraint candidate %+v (range %+v): want no share, range 60/80–70/80", cand, cand.ShareRange)
	}
}

// TestCheckReportShareAgree: check's text states a class with errors in
// report.Share's words, the words the report uses for the same counts.
func TestCheckReportShareAgree(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "broken.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho 'no JSON here'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cli(t, "check", "--fixtures", quarterly+"/fixtures", "--contexts", quarterly+"/contexts/incumbent",
		"--system", "incumbent", "--judge", "command", "--command", script, "--reasks", "0", "--cache", "",
		"-o", filepath.Join(dir, "v.jsonl"))
	if code != exitIncomplete {
		t.Fatalf("exit %d, want %d (incomplete): %s", code, exitIncomplete, stderr)
	}
	// 50 of the 80 constraint checks are verbatim (no judge); the 30
	// others all fail.
	want := report.Share{Counts: fixture.Counts{Items: 80, Verbatim: 50, Errors: 30}, Confidence: 0.95}.String()
	if want != "50–80 of 80 = 62.5–100.0%, no interval" {
		t.Fatalf("report.Share says %q", want)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "constraint ") {
			if !strings.Contains(line, want) || !strings.Contains(line, "incomplete: 30 errors") {
				t.Errorf("check's constraint line %q; want %q and no interval", line, want)
			}
			return
		}
	}
	t.Fatalf("no constraint line:\n%s", stdout)
}

// TestHeadlineEverywhere: every output of the example gives the decision
// in report.Decision.Headline's words, verbatim.
func TestHeadlineEverywhere(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1775433600")
	config := filepath.Join(quarterly, "report.yaml")
	cfg, err := report.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(cfg, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	headline := r.Decision.Headline()
	if headline != "blocks — rows that got worse under the candidate: contradictions" {
		t.Fatalf("Headline() = %q", headline)
	}
	outDir := filepath.Join(t.TempDir(), "out")
	reportOut, errOut, code := cli(t, "report", config, "-o", outDir)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	gateOut, _, _ := cli(t, "gate", config)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The Markdown escapes the underscore of open_question; the HTML's
	// text is read without its tags.
	md := strings.ReplaceAll(read("report.md"), `\_`, "_")
	page := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(read("report.html"), ""))
	for name, text := range map[string]string{
		"tally report": reportOut, "tally gate": gateOut, "report.md": md, "report.html": page,
		"report.xlsx": xlsxText(t, filepath.Join(outDir, "report.xlsx")),
	} {
		if !strings.Contains(text, headline) {
			t.Errorf("%s does not give the verdict as %q", name, headline)
		}
	}
	for name, text := range map[string]string{"tally report": reportOut, "tally gate": gateOut} {
		if !strings.HasPrefix(text, "verdict: "+headline+"\n") {
			t.Errorf("%s's first line is not the headline:\n%s", name, text)
		}
	}
}
