package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// checkTable is one system's results: per class, verdict counts over
// every (fixture, compaction, live item).
type checkTable map[fixture.Class]map[fixture.Verdict]int

func (t checkTable) retained(c fixture.Class) int {
	return t[c][fixture.Verbatim] + t[c][fixture.Supported]
}

func (t checkTable) live(c fixture.Class) int {
	n := 0
	for _, k := range t[c] {
		n += k
	}
	return n
}

func (t checkTable) total(v fixture.Verdict) int {
	n := 0
	for _, c := range fixture.Classes {
		n += t[c][v]
	}
	return n
}

// checkCommitted does what tally check --judge recorded does, from the
// committed files alone: for each item live at a compaction, verbatim if
// its literal is in the rendered context, else the recorded verdict. It
// fails on a live non-verbatim item without a record, a record for an
// item that is verbatim or not live, or a record used twice.
func checkCommitted(t *testing.T) map[string]checkTable {
	t.Helper()
	tables, _ := checkCommittedPairs(t)
	return tables
}

// pairKey names one item at one compaction of one fixture.
type pairKey struct {
	conv       string
	compaction int
	item       string
}

// checkCommittedPairs is checkCommitted, with each system's verdict for
// every live item-compaction besides.
func checkCommittedPairs(t *testing.T) (map[string]checkTable, map[string]map[pairKey]fixture.Verdict) {
	t.Helper()
	fixtures, err := fixture.Load(filepath.Join(committed, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) != FixtureBudget {
		t.Fatalf("%d fixtures, want %d", len(fixtures), FixtureBudget)
	}
	type key struct {
		system, conv string
		compaction   int
		item         string
	}
	recs := make(map[key]fixture.Record)
	f, err := os.Open(filepath.Join(committed, "judge", "recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rr := fixture.NewRecordReader(f, "recorded.jsonl")
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		k := key{rec.System, rec.ConversationID, rec.Compaction, rec.ItemID}
		if _, dup := recs[k]; dup {
			t.Errorf("recorded twice: %+v", k)
		}
		if rec.Judge != RecordedJudge || rec.Answer == "" {
			t.Errorf("%+v: judge %q, answer %q", k, rec.Judge, rec.Answer)
		}
		recs[k] = rec
	}
	tables := make(map[string]checkTable)
	verdicts := make(map[string]map[pairKey]fixture.Verdict)
	for _, system := range Systems {
		verdicts[system] = make(map[pairKey]fixture.Verdict)
		tab := make(checkTable)
		for _, c := range fixture.Classes {
			tab[c] = make(map[fixture.Verdict]int)
		}
		for _, fx := range fixtures {
			paths, err := fixture.ContextFiles(filepath.Join(committed, "contexts", system), fx.ConversationID)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != fx.CompactionsExpected {
				t.Errorf("%s %s: %d contexts, compactions_expected %d", system, fx.ConversationID, len(paths), fx.CompactionsExpected)
			}
			for _, p := range paths {
				ctx, err := fixture.LoadContext(p)
				if err != nil {
					t.Fatal(err)
				}
				rendered := fixture.Render(ctx)
				for _, it := range fx.MustSurvive {
					k := key{system, fx.ConversationID, ctx.Compaction, it.ID}
					rec, recorded := recs[k]
					delete(recs, k)
					if !it.LiveAt(ctx) {
						if recorded {
							t.Errorf("%+v: a record for an item not live (turn %d ≥ %d)", k, it.Turn, ctx.Turn)
						}
						if fixture.IsVerbatim(rendered, it.Literal) {
							t.Errorf("%+v: the literal of an item stated later is in the context", k)
						}
						continue
					}
					v := fixture.Verbatim
					switch {
					case fixture.IsVerbatim(rendered, it.Literal):
						if recorded {
							t.Errorf("%+v: verbatim in the context, yet recorded as %s", k, rec.Verdict)
						}
					case !recorded:
						t.Errorf("%+v: live, not verbatim, and no recorded verdict", k)
						continue
					default:
						v = rec.Verdict
						if rec.Class != it.Class {
							t.Errorf("%+v: recorded class %s, fixture class %s", k, rec.Class, it.Class)
						}
						if v == fixture.Supported && rec.Answer != it.Expect {
							t.Errorf("%+v: supported with answer %q, expected %q", k, rec.Answer, it.Expect)
						}
					}
					tab[it.Class][v]++
					verdicts[system][pairKey{fx.ConversationID, ctx.Compaction, it.ID}] = v
				}
			}
		}
		tables[system] = tab
	}
	for k := range recs {
		t.Errorf("a record matches no live item of any context: %+v", k)
	}
	return tables, verdicts
}

// TestIncumbentTable: the incumbent's per-class results reproduce the
// source text's table exactly.
func TestIncumbentTable(t *testing.T) {
	tab := checkCommitted(t)[SystemIncumbent]
	want := []struct {
		class          fixture.Class
		retained, live int
	}{
		{fixture.Constraint, 71, 80},
		{fixture.Commitment, 44, 51},
		{fixture.OpenQuestion, 96, 103},
		{fixture.Reference, 58, 61},
	}
	for _, w := range want {
		if got, live := tab.retained(w.class), tab.live(w.class); got != w.retained || live != w.live {
			t.Errorf("incumbent %s: %d of %d retained, want %d of %d", w.class, got, live, w.retained, w.live)
		}
	}
	if n := tab.total(fixture.Contradicted); n != 2 {
		t.Errorf("incumbent: %d contradicted, want 2", n)
	}
	if n := tab.total(fixture.Error); n != 0 {
		t.Errorf("incumbent: %d errors", n)
	}
	t.Logf("incumbent: %v", tab)
}

// TestCandidateTable: the candidate keeps constraints, commitments and
// references about level, loses open questions and contradicts more.
func TestCandidateTable(t *testing.T) {
	tables := checkCommitted(t)
	inc, cand := tables[SystemIncumbent], tables[SystemCandidate]
	for _, c := range fixture.Classes {
		if cand.live(c) != inc.live(c) {
			t.Errorf("%s: %d live pairs in the candidate, %d in the incumbent", c, cand.live(c), inc.live(c))
		}
	}
	if got := cand.retained(fixture.Constraint); got < 70 || got > 72 {
		t.Errorf("candidate constraints: %d/80 retained, want 70–72", got)
	}
	for _, c := range []fixture.Class{fixture.Commitment, fixture.Reference} {
		if d := cand.retained(c) - inc.retained(c); d < -2 || d > 2 {
			t.Errorf("candidate %s: %d retained against the incumbent's %d, want about level", c, cand.retained(c), inc.retained(c))
		}
	}
	if got := cand.retained(fixture.OpenQuestion); got != 88 {
		t.Errorf("candidate open questions: %d/103 retained, want 88", got)
	}
	if n := cand.total(fixture.Contradicted); n != 7 {
		t.Errorf("candidate: %d contradicted, want 7", n)
	}
	if n := cand.total(fixture.Error); n != 0 {
		t.Errorf("candidate: %d errors", n)
	}
	if cand.total(fixture.Verbatim) >= inc.total(fixture.Verbatim) {
		t.Errorf("the candidate keeps %d items verbatim, the incumbent %d: want fewer", cand.total(fixture.Verbatim), inc.total(fixture.Verbatim))
	}
	t.Logf("candidate: %v", cand)
}
