package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownQuarter is a quarter written by hand, the way a new user brings their
// own data: four fixtures of a data-platform agent in four files, two
// systems with names of their own (ledger-v2 in production, ledger-v3
// proposed), a keyword judge script, 30 replay pairs and a report.yaml. No
// file in it was made by examples/gen.
const ownQuarter = "testdata/ownquarter"

// exampleFigures are numbers and names that belong to examples/quarterly
// (and the source text it reproduces). None may appear in a report built
// from other data: a cell that printed one would be showing a stakeholder
// the example's figures as theirs.
var exampleFigures = []string{
	"166/200", "168/200", "0.83", "200 conversations", "521", "10185", "10,185",
	"71/80", "71 of 80", "44/51", "96/103", "58/61", "1572", "6320", "6,320", "4331",
	"sess_2026", "incumbent.jsonl", "candidate.jsonl",
}

// figureAt is the offset of fig in text where it stands as a figure of its
// own — not inside a longer number or word, such as "521" inside a SHA-256
// or "0.83" inside "0.8300" — or -1.
func figureAt(text, fig string) int {
	word := func(b byte) bool {
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for off := 0; ; {
		i := strings.Index(text[off:], fig)
		if i < 0 {
			return -1
		}
		i += off
		before := i > 0 && (word(text[i-1]) || text[i-1] == '.' && i > 1 && word(text[i-2]))
		after := i+len(fig) < len(text) && word(text[i+len(fig)])
		if !before && !after {
			return i
		}
		off = i + 1
	}
}

// copyTree copies the folder src into dst (file modes kept, so that the
// judge script stays executable).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// xlsxText is the text of every XML part of a workbook, concatenated: the
// shared strings and the sheets' inline values.
func xlsxText(t *testing.T, path string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var b strings.Builder
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".xml") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestOwnQuarterEndToEnd runs a user's own quarter through check → report →
// gate: the verdicts the hand-written judge must give, the decision, the
// exit codes, and that no figure of the bundled example leaks into the
// report.
func TestOwnQuarterEndToEnd(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	dir := t.TempDir()
	copyTree(t, ownQuarter, dir)
	judgeScript := filepath.Join(dir, "judge.sh")
	cache := filepath.Join(dir, "cache")

	// The verdicts were designed with the contexts: the candidate drops
	// two constraints (billing k2, alerts k1 at its second compaction) and
	// inverts one commitment (the ingest backfill at its second).
	want := map[string]map[string][2]int{ // system → class → {retained, contradicted}
		"ledger-v2": {"constraint": {7, 0}, "commitment": {3, 0}, "open_question": {3, 0}, "reference": {6, 0}},
		"ledger-v3": {"constraint": {5, 0}, "commitment": {3, 1}, "open_question": {3, 0}, "reference": {6, 0}},
	}
	for _, sys := range []string{"ledger-v2", "ledger-v3"} {
		out, errOut, code := cli(t, "check", "--fixtures", filepath.Join(dir, "fixtures"),
			"--contexts", filepath.Join(dir, "contexts", sys), "--system", sys,
			"--judge", "command", "--command", judgeScript, "--cache", cache,
			"-o", filepath.Join(dir, "verdicts", sys+".jsonl"), "--format", "json")
		if code != exitOK {
			t.Fatalf("check %s: exit %d\n%s", sys, code, errOut)
		}
		var got checkOut
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("check %s: %v\n%s", sys, err, out)
		}
		if got.Fixtures != 4 || got.Contexts != 6 || got.Checks != 21 {
			t.Errorf("check %s: %d fixtures, %d contexts, %d checks; want 4, 6, 21", sys, got.Fixtures, got.Contexts, got.Checks)
		}
		for class, w := range want[sys] {
			row := got.class(t, class)
			if row.Retained != w[0] || row.Contradicted != w[1] || row.Error != 0 {
				t.Errorf("check %s %s: retained %d, contradicted %d, error %d; want %d, %d, 0",
					sys, class, row.Retained, row.Contradicted, row.Error, w[0], w[1])
			}
		}
	}

	config := filepath.Join(dir, "report.yaml")
	outDir := filepath.Join(dir, "out")
	out, errOut, code := cli(t, "report", config, "-o", outDir)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	const verdict = "verdict: blocks — rows that got worse under the candidate: constraint, contradictions\n"
	if !strings.HasPrefix(out, verdict) {
		t.Errorf("report's first line:\n%s\nwant %q", out, verdict)
	}

	out, _, code = cli(t, "gate", config)
	if code != exitGateFail || !strings.HasPrefix(out, verdict) {
		t.Errorf("gate: exit %d, want %d (blocks)\n%s", code, exitGateFail, out)
	}

	md, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(outDir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"report.md":   string(md),
		"report.html": string(html),
		"report.xlsx": xlsxText(t, filepath.Join(outDir, "report.xlsx")),
	}
	for name, text := range outputs {
		for _, fig := range exampleFigures {
			if i := figureAt(text, fig); i >= 0 {
				lo, hi := max(0, i-80), min(len(text), i+len(fig)+80)
				t.Errorf("%s shows the example's %q: …%s…", name, fig, text[lo:hi])
			}
		}
		// Its own figures: the replay's 22/30 against 20/30 (the
		// workbook keeps counts in number cells), and its own names.
		own := []string{"22/30", "20/30", "ledger-v2", "ledger-v3", "nw-ingest-1002"}
		if name == "report.xlsx" {
			own = own[2:]
		}
		for _, own := range own {
			if !strings.Contains(text, own) {
				t.Errorf("%s does not show %q", name, own)
			}
		}
	}
	// Task success is the last line of the Markdown, reported not gated.
	lines := strings.Split(strings.TrimRight(string(md), "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "Task success") && !strings.Contains(last, "task success") {
		t.Errorf("report.md's last line is not task success: %q", last)
	}
}

// TestOwnQuarterDeadJudge: a judge that fails on every call leaves every
// judged item an error verdict. check writes them and exits 4; the report
// built on them cannot pass a row it could not decide, and gate exits 3.
func TestOwnQuarterDeadJudge(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, ownQuarter, dir)
	dead := filepath.Join(dir, "dead.sh")
	if err := os.WriteFile(dead, []byte("#!/bin/sh\ncat >/dev/null\necho 'model server unreachable' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, sys := range []string{"ledger-v2", "ledger-v3"} {
		judgeScript := filepath.Join(dir, "judge.sh")
		if sys == "ledger-v3" {
			judgeScript = dead
		}
		path := filepath.Join(dir, "verdicts", sys+".jsonl")
		_, errOut, code := cli(t, "check", "--fixtures", filepath.Join(dir, "fixtures"),
			"--contexts", filepath.Join(dir, "contexts", sys), "--system", sys,
			"--judge", "command", "--command", judgeScript, "--cache", "", "-o", path)
		wantCode := exitOK
		if sys == "ledger-v3" {
			wantCode = exitIncomplete
		}
		if code != wantCode {
			t.Fatalf("check %s: exit %d, want %d\n%s", sys, code, wantCode, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("check %s wrote no verdicts: %v", sys, err)
		}
		verdicts[sys] = string(b)
	}
	// The candidate's 13 judged item-compactions (21 less the 8 found
	// verbatim) are errors, never absent.
	if n := strings.Count(verdicts["ledger-v3"], `"verdict":"error"`); n != 13 {
		t.Errorf("ledger-v3: %d error verdicts, want 13", n)
	}
	if strings.Contains(verdicts["ledger-v3"], `"verdict":"absent"`) {
		t.Error("a failed judge call was recorded as absent")
	}
	out, _, code := cli(t, "gate", filepath.Join(dir, "report.yaml"))
	if code != exitGateFail || !strings.Contains(out, "undecided") {
		t.Errorf("gate over error verdicts: exit %d, want %d with undecided rows\n%s", code, exitGateFail, out)
	}
	if bytes.Contains([]byte(out), []byte("does not block")) {
		t.Errorf("gate passed a change it could not judge:\n%s", out)
	}
	// report --format json says why it blocks: the undecided rows, and
	// the headline every output gives.
	out, errOut, code := cli(t, "report", filepath.Join(dir, "report.yaml"), "-o", filepath.Join(dir, "out"), "--format", "json")
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	var rep struct {
		Blocks    bool     `json:"blocks"`
		Headline  string   `json:"headline"`
		Undecided []string `json:"undecided"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Blocks || len(rep.Undecided) == 0 || !strings.Contains(rep.Headline, "undecided") {
		t.Errorf("report JSON: blocks %v, undecided %q, headline %q", rep.Blocks, rep.Undecided, rep.Headline)
	}
}
