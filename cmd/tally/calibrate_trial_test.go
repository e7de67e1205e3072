package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrialCorrectedGateRowShowsItsFigure: under gates.use: corrected a
// retained-share row is decided on the corrected share, so the gate table
// must show that share beside the status it decided. Found by a trial of
// the calibration workflow on the hand-made quarter: the row printed the
// judge's "6/6 100.0%" beside "≥ 90.0%" and "fail", a status the figure
// shown contradicts.
//
// The quarter's reference class for ledger-v2 has 6 item-compactions, 5
// verbatim and 1 the judge called supported (nw-search-1021, compaction 1,
// k2). One review says that item is absent. The stratum (1 item) is
// reviewed in full, so the correction is defined, and by hand:
//
//	judge:     (5 verbatim + 1 supported)/6 = 6/6 = 100.0%
//	corrected: (5 verbatim + 1·(0 of 1 reviews supported))/6 = 5/6 = 83.3%
//
// 83.3% is below the 90% gate: the row fails, and must say 83.3%.
func TestTrialCorrectedGateRowShowsItsFigure(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	dir := t.TempDir()
	copyTree(t, ownQuarter, dir)
	for _, sys := range []string{"ledger-v2", "ledger-v3"} {
		_, errOut, code := cli(t, "check", "--fixtures", filepath.Join(dir, "fixtures"),
			"--contexts", filepath.Join(dir, "contexts", sys), "--system", sys,
			"--judge", "command", "--command", filepath.Join(dir, "judge.sh"), "--cache", "",
			"-o", filepath.Join(dir, "verdicts", sys+".jsonl"))
		if code != exitOK {
			t.Fatalf("check %s: exit %d\n%s", sys, code, errOut)
		}
	}

	// The item's fingerprint is the verdict record's.
	type record struct {
		System       string `json:"system"`
		Conversation string `json:"conversation_id"`
		Compaction   int    `json:"compaction"`
		ItemID       string `json:"item_id"`
		Class        string `json:"class"`
		Verdict      string `json:"verdict"`
		Item         string `json:"item"`
	}
	f, err := os.Open(filepath.Join(dir, "verdicts", "ledger-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec *record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Conversation == "nw-search-1021" && r.Compaction == 1 && r.ItemID == "k2" {
			rec = &r
		}
	}
	f.Close()
	if rec == nil || rec.Verdict != "supported" || rec.Class != "reference" {
		t.Fatalf("ledger-v2's verdict on nw-search-1021/1/k2: %+v, want a supported reference", rec)
	}
	review, err := json.Marshal(map[string]any{
		"conversation_id": rec.Conversation, "compaction": rec.Compaction, "item_id": rec.ItemID,
		"class": rec.Class, "system": rec.System, "item": rec.Item,
		"judge_verdict": "supported", "verdict": "absent", "reviewer": "trial",
		"source": "queue.csv", "sample": "random",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reviews.jsonl"), append(review, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "report.yaml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(cfg), "\ngates:\n", "\ngates:\n  use: corrected\n", 1)
	text += "\nreviews: reviews.jsonl\n"
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	rowOf := func(t *testing.T, text, prefix string) string {
		t.Helper()
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
		t.Fatalf("no line starting %q in\n%s", prefix, text)
		return ""
	}
	out, errOut, code := cli(t, "gate", cfgPath)
	if code != exitGateFail {
		t.Fatalf("gate: exit %d, want %d\n%s%s", code, exitGateFail, out, errOut)
	}
	outDir := filepath.Join(dir, "out")
	if _, errOut, code := cli(t, "report", cfgPath, "-o", outDir); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	md, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text, prefix string
	}{
		{"tally gate", out, "reference "},
		{"report.md", string(md), "| reference | ≥ 90.0% |"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row := rowOf(t, tc.text, tc.prefix)
			if !strings.Contains(row, "fail") {
				t.Fatalf("the incumbent's reference row does not fail on its corrected 83.3%%:\n%s", row)
			}
			if !strings.Contains(row, "83.3%") {
				t.Errorf("the row fails on the corrected share, 5/6 = 83.3%%, but does not show it:\n%s", row)
			}
		})
	}
}
