package report

import (
	"testing"
	"time"
)

// This file holds the example's report and the building of a hand-made
// case (report/internal/casefile writes its files) that the tests use.

// quarterlyConfig is the example's configuration, relative to this
// package's folder.
const quarterlyConfig = "../examples/quarterly/report.yaml"

// quarterlyTime is the fixed timestamp of the example's golden report.
var quarterlyTime = time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)

// quarterlyReport builds the example's report.
func quarterlyReport(t testing.TB) *Report {
	t.Helper()
	cfg, err := LoadConfig(quarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{Generated: quarterlyTime, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// buildCase builds the report of a case.
func buildCase(t testing.TB, path string) *Report {
	t.Helper()
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{Generated: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
