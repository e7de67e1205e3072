package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSignalsWritesAllOrNone: the flagged sessions (-o) and the weekly
// sample are one set of files: when the sample cannot be written (a folder
// stands at its path), the flagged file is not written either.
func TestSignalsWritesAllOrNone(t *testing.T) {
	dir := t.TempDir()
	flagged, sample := filepath.Join(dir, "flagged.jsonl"), filepath.Join(dir, "sample.jsonl")
	if err := os.Mkdir(sample, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, "signals", quarterly+"/events/week-01.jsonl", "-o", flagged, "--sample-out", sample)
	if code != exitInput {
		t.Fatalf("exit %d, want %d: %s", code, exitInput, errOut)
	}
	if _, err := os.Stat(flagged); !os.IsNotExist(err) {
		t.Errorf("flagged.jsonl was written beside a sample that failed (%v)", err)
	}
	list, _ := os.ReadDir(dir)
	if len(list) != 1 {
		t.Errorf("the folder holds %d entries, want only the sample's folder", len(list))
	}
	// Both paths free: both files.
	if err := os.Remove(sample); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cli(t, "signals", quarterly+"/events/week-01.jsonl", "-o", flagged, "--sample-out", sample); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{flagged, sample} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}
