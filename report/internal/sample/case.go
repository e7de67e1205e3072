package sample

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
)

// This file holds the hand-made cases and the example's report that the
// renderers' tests build. The report package's own tests keep a copy of
// the case writers: they cannot import this package, which imports
// report.

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

// CaseItems are the items of each hand-made fixture: one per class.
var CaseItems = []struct {
	id    string
	class fixture.Class
}{{"c1", fixture.Constraint}, {"c2", fixture.Commitment}, {"c3", fixture.OpenQuestion}, {"c4", fixture.Reference}}

// CaseConversations are the hand-made fixtures.
var CaseConversations = []string{"conv_a", "conv_b"}

// Verdicts returns one verdict line per item per conversation at
// compaction 1 for system sys: verbatim, except where override names
// "conv/item" → verdict.
func Verdicts(sys string, override map[string]fixture.Verdict) string {
	var b strings.Builder
	for _, conv := range CaseConversations {
		for _, it := range CaseItems {
			v := fixture.Verbatim
			if o, ok := override[conv+"/"+it.id]; ok {
				v = o
			}
			fmt.Fprintf(&b, `{"system":%q,"conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":%q}`+"\n", sys, conv, it.id, it.class, v)
		}
	}
	return b.String()
}

// WriteCase writes two hand-made fixtures, each system's verdicts and a
// configuration (extra appended to it) into a temporary folder, and
// returns the configuration's path.
func WriteCase(t testing.TB, inc, cand, extra string) string {
	t.Helper()
	dir := t.TempDir()
	var fx strings.Builder
	for _, conv := range CaseConversations {
		fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":40,"compactions_expected":1,"must_survive":[`, conv)
		for i, it := range CaseItems {
			if i > 0 {
				fx.WriteString(",")
			}
			fmt.Fprintf(&fx, `{"id":%q,"class":%q,"turn":%d,"literal":"literal %s %s","probe":"probe?","expect":"yes"}`, it.id, it.class, 2+i, conv, it.id)
		}
		fx.WriteString("]}\n")
	}
	cfg := `title: hand-made
fixtures: fixtures.jsonl
systems:
  incumbent: {verdicts: inc.jsonl}
  candidate: {verdicts: cand.jsonl}
` + extra
	for name, data := range map[string]string{"fixtures.jsonl": fx.String(), "inc.jsonl": inc, "cand.jsonl": cand, "report.yaml": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "report.yaml")
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
