package selection

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/fixture"
)

// propLoadReplies reads testdata/real/llm/replies.jsonl: the recorded
// replies by prompt SHA-256, and each session's prompt SHA-256.
func propLoadReplies(t *testing.T) (recordedReplies, map[string]string) {
	t.Helper()
	f, err := os.Open("testdata/real/llm/replies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	replies, bySession := recordedReplies{}, map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r llmRecorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		replies[r.PromptSHA256], bySession[r.SessionID] = r.Reply, r.PromptSHA256
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return replies, bySession
}

// propAddCounts matches got to one session's labels ls (propRealMatch)
// and adds them to counts.
func propAddCounts(counts map[fixture.Class]*propClassCount, ls []propRealLabel, got []ProposedItem) {
	labelHit, gotHit := propRealMatch(ls, got)
	for i, l := range ls {
		counts[l.Class].items++
		if labelHit[i] {
			counts[l.Class].found++
		}
	}
	for j, g := range got {
		counts[g.Class].proposed++
		if gotHit[j] {
			counts[g.Class].matched++
		}
	}
}

// propBlindFloor is a floor on one proposer's recall and precision for
// one class on one blind set, just below what was measured (measured
// says it, as found/items and matched/proposed).
type propBlindFloor struct {
	set, proposer           string
	class                   fixture.Class
	minRecall, minPrecision float64
	measured                string
}

// propBlindFloors: measured on 2026-12-01, floors just below. The
// rules are those of commit 2ccfc3d: set 4 had never been seen when it
// was scored; set 3 was scored blind at da06fd6 and the rules were then
// tuned with it in view; set 2 was seen at da06fd6 (the second held-out
// set; testdata/real/labels/README.md, "Blind sets 3 and 4", gives every
// figure). The model's replies were recorded once for each session
// (testdata/real/llm), by model sessions that read only the prompt.
// Hybrid's references are the rules'. Not held: the rules' constraints
// (0.17 recall on set 4) and every commitment (0 or 1 of 4 or 5): the
// README reports them, short of the target.
var propBlindFloors = []propBlindFloor{
	{"4a", "rules", fixture.Reference, 0.88, 0.74, "66/73, 66/86"},
	{"4b", "rules", fixture.Reference, 0.88, 0.78, "69/76, 69/86"},
	{"3a", "rules", fixture.Reference, 0.89, 0.79, "82/90, 82/101"},
	{"3b", "rules", fixture.Reference, 0.88, 0.75, "78/86, 78/101"},
	{"2", "rules", fixture.Reference, 0.79, 0.65, "62/77, 62/92"},
	{"4a", "hybrid", fixture.Constraint, 0.92, 0.42, "16/17, 16/37"},
	{"4b", "hybrid", fixture.Constraint, 0.77, 0.49, "19/24, 19/37"},
	{"3a", "hybrid", fixture.Constraint, 0.8, 0.63, "17/21, 17/26"},
	{"3b", "hybrid", fixture.Constraint, 0.8, 0.67, "18/22, 18/26"},
	{"2", "hybrid", fixture.Constraint, 0.78, 0.56, "26/32, 26/44"},
	{"4a", "hybrid", fixture.Reference, 0.88, 0.74, "66/73, 66/86"},
	{"3a", "hybrid", fixture.Reference, 0.89, 0.79, "82/90, 82/101"},
}

// propBlindSet is one labeller's labels of a blind set.
type propBlindSet struct{ name, file string }

var propBlindSets = []propBlindSet{
	{"2", "propose_heldout2.jsonl"}, {"3a", "propose_blind3_a.jsonl"}, {"3b", "propose_blind3_b.jsonl"},
	{"4a", "propose_blind4_a.jsonl"}, {"4b", "propose_blind4_b.jsonl"},
}

// TestProposeBlindSets scores three proposers — the rules, the LLM
// proposer from recorded replies, and Hybrid (the rules' references and
// the model's other items) — on the second held-out set (one reader) and
// on sets 3 and 4, each labelled by two readers working blind (testdata/real/labels/README.md, "Blind sets 3
// and 4"), and holds each to the floors of propBlindFloors. It logs every
// figure; run with -v.
func TestProposeBlindSets(t *testing.T) {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		t.Skip("TALLY_REAL_LOGS is not set: it names the folder of real Claude Code sessions (../shared/real/claude-code)")
	}
	replies, bySession := propLoadReplies(t)
	type key struct{ set, proposer string }
	got := map[key]map[fixture.Class]*propClassCount{}
	for _, set := range propBlindSets {
		labels := propLoadRealLabels(t, set.file)
		ids := make([]string, 0, len(labels))
		for id := range labels {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, p := range []string{"rules", "llm", "hybrid"} {
			got[key{set.name, p}] = propNewCounts()
		}
		for _, id := range ids {
			s, err := agentlog.Open(filepath.Join(dir, id+".jsonl.gz"))
			if err != nil {
				t.Fatal(err)
			}
			opts := ProposeOptions{MinConfidence: DefaultMinConfidence}
			rules := Propose(s, opts)
			p := LLMProposer{Backend: replies}
			sum := sha256.Sum256([]byte(p.Prompt(s)))
			if h := hex.EncodeToString(sum[:]); h != bySession[id] {
				t.Fatalf("%s: the prompt tally sends (SHA-256 %.12s…) is not the one a recorded reply answers (%.12s…): record the replies again (testdata/real/labels/README.md)", id, h, bySession[id])
			}
			model, err := p.Propose(context.Background(), s, opts)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			propAddCounts(got[key{set.name, "rules"}], labels[id], rules.Candidates)
			propAddCounts(got[key{set.name, "llm"}], labels[id], model.Candidates)
			propAddCounts(got[key{set.name, "hybrid"}], labels[id], Hybrid(rules, model).Candidates)
		}
		for _, p := range []string{"rules", "llm", "hybrid"} {
			propReport(t, "set "+set.name+", "+p, got[key{set.name, p}])
		}
	}
	for _, f := range propBlindFloors {
		n := got[key{f.set, f.proposer}][f.class]
		if r := propRatio(n.found, n.items); r < f.minRecall {
			t.Errorf("set %s, %s, %s: recall %d/%d = %.3f is below %.2f (measured %s)", f.set, f.proposer, f.class, n.found, n.items, r, f.minRecall, f.measured)
		}
		if p := propRatio(n.matched, n.proposed); p < f.minPrecision {
			t.Errorf("set %s, %s, %s: precision %d/%d = %.3f is below %.2f (measured %s)", f.set, f.proposer, f.class, n.matched, n.proposed, p, f.minPrecision, f.measured)
		}
	}
}

// TestProposeLabelAgreement measures how far the two readers of each
// blind set agree, scoring reader b's labels as if proposed against
// reader a's with the proposer's own matching (propRealMatch): the
// ceiling a proposer can be expected to reach against one reader. The
// counts are pinned: a changed label file must say so here.
func TestProposeLabelAgreement(t *testing.T) {
	for _, c := range []struct {
		a, b string
		// constraint and reference: found/items (b's labels that a holds
		// too) and matched/proposed, as b against a.
		want map[fixture.Class][4]int
	}{
		{"propose_blind3_a.jsonl", "propose_blind3_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {20, 21, 20, 22}, fixture.Reference: {86, 90, 86, 86}}},
		{"propose_blind4_a.jsonl", "propose_blind4_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {16, 17, 16, 24}, fixture.Reference: {72, 73, 72, 76}}},
	} {
		a, b := propLoadRealLabels(t, c.a), propLoadRealLabels(t, c.b)
		counts := propNewCounts()
		for id, la := range a {
			var as []ProposedItem
			for _, l := range b[id] {
				as = append(as, ProposedItem{Class: l.Class, Turn: l.Turn, Literal: l.Literal})
			}
			propAddCounts(counts, la, as)
		}
		for id := range b {
			if _, ok := a[id]; !ok {
				t.Errorf("%s: session %s is not in %s", c.b, id, c.a)
			}
		}
		propReport(t, c.b+" against "+c.a, counts)
		for class, w := range c.want {
			n := counts[class]
			if g := [4]int{n.found, n.items, n.matched, n.proposed}; g != w {
				t.Errorf("%s against %s, %s: found/items, matched/proposed %v, want %v", c.b, c.a, class, g, w)
			}
		}
	}
}
