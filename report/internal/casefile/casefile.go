// Package casefile writes the hand-made report cases that the tests of
// report and of its renderers build: two fixtures with one item of each
// class, each system's verdict records, and a configuration naming them.
// It is test support, in one copy: it imports no package of the report,
// so report's own tests can use it too.
package casefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// Item is one item of each hand-made fixture.
type Item struct {
	ID    string
	Class fixture.Class
}

// Items are the items of each hand-made fixture: one per class, item i
// stated at turn 2+i.
var Items = []Item{{"c1", fixture.Constraint}, {"c2", fixture.Commitment}, {"c3", fixture.OpenQuestion}, {"c4", fixture.Reference}}

// Conversations are the hand-made fixtures' conversation ids.
var Conversations = []string{"conv_a", "conv_b"}

// FixtureItem is item i of conversation conv's fixture, exactly as Write
// writes it.
func FixtureItem(conv string, i int) fixture.Item {
	it := Items[i]
	return fixture.Item{ID: it.ID, Class: it.Class, Turn: 2 + i,
		Literal: fmt.Sprintf("literal %s %s", conv, it.ID), Probe: "probe?", Expect: "yes"}
}

// Verdicts returns one verdict line per item per conversation at
// compaction 1 for system sys: verbatim, except where override names
// "conv/item" → verdict. The lines carry no item fingerprint.
func Verdicts(sys string, override map[string]fixture.Verdict) string {
	var b strings.Builder
	for _, conv := range Conversations {
		for _, it := range Items {
			v := fixture.Verbatim
			if o, ok := override[conv+"/"+it.ID]; ok {
				v = o
			}
			fmt.Fprintf(&b, `{"system":%q,"conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":%q}`+"\n", sys, conv, it.ID, it.Class, v)
		}
	}
	return b.String()
}

// Write writes the two fixtures (fixtures.jsonl, one compaction each),
// each system's verdicts (inc.jsonl, cand.jsonl) and a configuration
// (report.yaml, extra appended to it) into a temporary folder, and
// returns the configuration's path.
func Write(t testing.TB, inc, cand, extra string) string {
	t.Helper()
	dir := t.TempDir()
	var fx strings.Builder
	for _, conv := range Conversations {
		fmt.Fprintf(&fx, `{"conversation_id":%q,"turns":40,"compactions_expected":1,"must_survive":[`, conv)
		for i := range Items {
			if i > 0 {
				fx.WriteString(",")
			}
			it := FixtureItem(conv, i)
			fmt.Fprintf(&fx, `{"id":%q,"class":%q,"turn":%d,"literal":%q,"probe":%q,"expect":%q}`, it.ID, it.Class, it.Turn, it.Literal, it.Probe, it.Expect)
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
