package sample

import (
	"testing"
	"time"

	"github.com/tally-eval/tally/report"
)

// This file holds the example's report and the building of a hand-made
// case (report/internal/casefile writes its files) for the renderers'
// tests.

// QuarterlyConfig is the example's configuration, relative to the folder
// of a renderer's package (report/NAME), where its tests run.
const QuarterlyConfig = "../../examples/quarterly/report.yaml"

// QuarterlyTime is the fixed timestamp of the example's golden report.
var QuarterlyTime = time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)

// Quarterly builds the example's report.
func Quarterly(t testing.TB) *report.Report {
	t.Helper()
	cfg, err := report.LoadConfig(QuarterlyConfig)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(cfg, report.Options{Generated: QuarterlyTime, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// BuildCase builds the report of a case.
func BuildCase(t testing.TB, path string) *report.Report {
	t.Helper()
	cfg, err := report.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(cfg, report.Options{Generated: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
