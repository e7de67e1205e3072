package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// This file holds the hand-made cases and the example's report that
// the tests build.

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

// caseItems are the items of each hand-made fixture: one per class.
var caseItems = []struct {
	id    string
	class fixture.Class
}{{"c1", fixture.Constraint}, {"c2", fixture.Commitment}, {"c3", fixture.OpenQuestion}, {"c4", fixture.Reference}}

// caseConversations are the hand-made fixtures.
var caseConversations = []string{"conv_a", "conv_b"}

// verdictsFor returns one verdict line per item per conversation at
// compaction 1 for system sys: verbatim, except where override names
// "conv/item" → verdict.
func verdictsFor(sys string, override map[string]fixture.Verdict) string {
	var b strings.Builder
	for _, conv := range caseConversations {
		for _, it := range caseItems {
			v := fixture.Verbatim
			if o, ok := override[conv+"/"+it.id]; ok {
				v = o
			}
			fmt.Fprintf(&b, `{"system":%q,"conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":%q}`+"\n", sys, conv, it.id, it.class, v)
		}
	}
	return b.String()
}

// writeCase writes two hand-made fixtures, each system's verdicts and a
// configuration (extra appended to it) into a temporary folder, and
// returns the configuration's path.
func writeCase(t testing.TB, inc, cand, extra string) string {
	t.Helper()
	dir := t.TempDir()
	var fx strings.Builder
	for _, conv := range caseConversations {
		fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":40,"compactions_expected":1,"must_survive":[`, conv)
		for i, it := range caseItems {
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
