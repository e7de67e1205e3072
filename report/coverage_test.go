package report

import (
	"fmt"
	"github.com/tally-eval/tally/report/internal/casefile"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// printedVerdicts is verdictsFor with each record's item fingerprint, and
// without the records of skip ("conv/item").
func printedVerdicts(sys string, skip ...string) string {
	var b strings.Builder
	for _, conv := range casefile.Conversations {
		for i, it := range casefile.Items {
			if strings.Contains(strings.Join(skip, " "), conv+"/"+it.ID) {
				continue
			}
			fmt.Fprintf(&b, `{"system":%q,"conversation_id":%q,"compaction":1,"item_id":%q,"class":%q,"verdict":"verbatim","item":%q}`+"\n",
				sys, conv, it.ID, it.Class, casefile.FixtureItem(conv, i).Fingerprint())
		}
	}
	return b.String()
}

// TestBuildVerdictsMatchFixtures: a verdict whose item has changed since
// it was written is refused at its line; a record at a compaction the
// fixture does not expect likewise; and the fixtures and items no system
// checked, and records without a fingerprint, are said in warnings.
func TestBuildVerdictsMatchFixtures(t *testing.T) {
	warnings := func(t *testing.T, inc, cand string) []string {
		t.Helper()
		r := buildCase(t, casefile.Write(t, inc, cand, ""))
		var out []string
		for _, w := range r.Warnings {
			if !strings.Contains(w, "no retained-share gate") && !strings.Contains(w, "cluster-robust") {
				out = append(out, w)
			}
		}
		return out
	}
	t.Run("all checked, all fingerprinted", func(t *testing.T) {
		if w := warnings(t, printedVerdicts("incumbent"), printedVerdicts("candidate")); len(w) != 0 {
			t.Errorf("warnings %q, want none", w)
		}
	})
	t.Run("an item no system checked, stated before one checked at the same compaction", func(t *testing.T) {
		w := warnings(t, printedVerdicts("incumbent", "conv_a/c2"), printedVerdicts("candidate", "conv_a/c2"))
		if len(w) != 1 || !strings.HasPrefix(w[0], "1 item-compaction has no verdict in either system") || !strings.Contains(w[0], "(conv_a/c2 at compaction 1)") {
			t.Errorf("warnings %q", w)
		}
	})
	t.Run("a verdict missing at an earlier compaction only (a file cut short)", func(t *testing.T) {
		// Two compactions; c1 (turn 2) has a verdict at compaction 2 but
		// none at 1, where c2 (turn 3) has one: c1 was live at 1.
		two := func(sys string) string {
			var b strings.Builder
			for _, comp := range []int{1, 2} {
				for _, line := range strings.SplitAfter(printedVerdicts(sys), "\n") {
					if line == "" || comp == 1 && strings.Contains(line, `"conv_a","compaction":1,"item_id":"c1"`) {
						continue
					}
					b.WriteString(strings.Replace(line, `"compaction":1`, fmt.Sprintf(`"compaction":%d`, comp), 1))
				}
			}
			return b.String()
		}
		path := casefile.Write(t, two("incumbent"), two("candidate"), "")
		fx := filepath.Join(filepath.Dir(path), "fixtures.jsonl")
		text, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fx, []byte(strings.ReplaceAll(string(text), `"compactions_expected":1`, `"compactions_expected":2`)), 0o644); err != nil {
			t.Fatal(err)
		}
		var w []string
		for _, x := range buildCase(t, path).Warnings {
			if strings.Contains(x, "item-compaction") {
				w = append(w, x)
			}
		}
		if len(w) != 1 || !strings.HasPrefix(w[0], "1 item-compaction has no verdict in either system") || !strings.Contains(w[0], "(conv_a/c1 at compaction 1)") {
			t.Errorf("warnings %q", w)
		}
	})
	t.Run("the last item unchecked may have been stated after the last compaction", func(t *testing.T) {
		if w := warnings(t, printedVerdicts("incumbent", "conv_a/c4"), printedVerdicts("candidate", "conv_a/c4")); len(w) != 0 {
			t.Errorf("warnings %q, want none: c4 is the latest item and may never have been live", w)
		}
	})
	t.Run("a fixture no system checked", func(t *testing.T) {
		all := "conv_b/c1 conv_b/c2 conv_b/c3 conv_b/c4"
		w := warnings(t, printedVerdicts("incumbent", all), printedVerdicts("candidate", all))
		if len(w) != 1 || !strings.HasPrefix(w[0], "1 fixture has no verdict in either system (conv_b)") {
			t.Errorf("warnings %q", w)
		}
	})
	t.Run("records without fingerprints", func(t *testing.T) {
		w := warnings(t, casefile.Verdicts("incumbent", nil), printedVerdicts("candidate"))
		if len(w) != 1 || w[0] != "incumbent: 8 verdict records carry no item fingerprint (written by an older tally), so an edit to their fixture item since cannot be detected; re-run tally check" {
			t.Errorf("warnings %q", w)
		}
	})

	// An edited fixture: the verdicts no longer describe its items.
	path := casefile.Write(t, printedVerdicts("incumbent"), printedVerdicts("candidate"), "")
	dir := filepath.Dir(path)
	fx, err := os.ReadFile(filepath.Join(dir, "fixtures.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(fx), `"literal":"literal conv_a c2"`, `"literal":"literal conv_a c2, edited"`, 1)
	if edited == string(fx) {
		t.Fatal("the fixture edit did not apply")
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures.jsonl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	cand := printedVerdicts("candidate") + `{"system":"candidate","conversation_id":"conv_b","compaction":2,"item_id":"c1","class":"constraint","verdict":"verbatim"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "cand.jsonl"), []byte(cand), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(cfg, Options{})
	want := []string{
		`DIR/inc.jsonl:2:129: item: item c2 of fixture conv_a has changed since this verdict was written (its class, turn, literal, probe or expected answer): re-run tally check`,
		`DIR/cand.jsonl:2:129: item: item c2 of fixture conv_a has changed since this verdict was written (its class, turn, literal, probe or expected answer): re-run tally check`,
		`DIR/cand.jsonl:9:63: compaction: fixture conv_b expects 1 compactions, so there is no compaction 2`,
	}
	if err == nil || strings.ReplaceAll(err.Error(), dir, "DIR") != strings.Join(want, "\n") {
		t.Errorf("got\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

// TestBuildRobustIntervalHonest: where every conversation retained all its
// items the cluster-robust standard error is 0, and the report gives no
// cluster-robust interval rather than a zero-width one; and a report over
// fewer than 20 conversations says its cluster-robust intervals run too
// narrow (Cameron & Miller 2015).
func TestBuildRobustIntervalHonest(t *testing.T) {
	r := buildCase(t, casefile.Write(t, printedVerdicts("incumbent"),
		casefile.Verdicts("candidate", map[string]fixture.Verdict{"conv_a/c1": fixture.Absent}), ""))
	inc, cand := r.Classes[0].Incumbent, r.Classes[0].Candidate
	if !math.IsNaN(inc.Robust.Lower) || !math.IsNaN(inc.Robust.Upper) {
		t.Errorf("2/2 retained in 2 conversations: cluster-robust interval %+v, want none", inc.Robust)
	}
	if inc.Wilson.Lower >= 1 || inc.Wilson.Upper != 1 {
		t.Errorf("the Wilson interval must stand: %+v", inc.Wilson)
	}
	if !(cand.Clustered.RobustStandardError > 0) || math.IsNaN(cand.Robust.Lower) {
		t.Errorf("1/2 retained: cluster-robust %+v, interval %+v, want one", cand.Clustered, cand.Robust)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.HasPrefix(w, "the cluster-robust intervals rest on 2 conversations; with fewer than about 20 clusters")
	}
	if !found {
		t.Errorf("no few-clusters warning in %q", r.Warnings)
	}
}
