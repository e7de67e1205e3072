package selection

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// llmRecorded is one line of testdata/real/llm/replies.jsonl: a model's
// reply to LLMProposer's prompt for a session, with the prompt's
// SHA-256, so that a changed prompt (or a change in what Propose reads
// of a session) is found rather than scored against replies to another
// question.
type llmRecorded struct {
	SessionID    string `json:"session_id"`
	PromptSHA256 string `json:"prompt_sha256"`
	Model        string `json:"model"`
	Reply        string `json:"reply"`
}

// recordedReplies is a judge.Backend that answers a prompt it has a
// reply for, by the prompt's SHA-256.
type recordedReplies map[string]string

func (r recordedReplies) Name() string { return "recorded/llm-heldout" }

func (r recordedReplies) Complete(_ context.Context, prompt string) (string, error) {
	sum := sha256.Sum256([]byte(prompt))
	reply, ok := r[hex.EncodeToString(sum[:])]
	if !ok {
		return "", fmt.Errorf("no recorded reply for this prompt")
	}
	return reply, nil
}

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
// rules are those of commit 2ccfc3d with the reader's queued prompts
// (agentlog.Queued): set 5 and set 4 had never been seen when they were
// labelled and scored; set 3 was scored blind at da06fd6, and the rules
// were then tuned with it in view; set 2 was seen at da06fd6 (the second
// held-out set). The model's replies (testdata/real/llm) were made once
// for each session, for the LLMPrompt of this commit, by model sessions
// that read only the prompt (testdata/real/labels/README.md, "Blind sets
// 3, 4 and 5", gives every figure). Hybrid's references are the rules'.
// Set 3's rules' references were 82/90, 82/102 and 78/86, 78/102 before
// a linter's or compiler's diagnostic line ("Error: x.go:87:1: …")
// counted as pasted output and a package path ending in a type
// ("…/strategy.Strategy") stopped counting as a file, after a new
// user's third trial. Set 5's rules' references were 67 found of 74 proposed when it was
// scored; files named in pasted program output that the agent then
// changed (pastedRefs, from a new user's trial) added 2 there and none
// elsewhere. Not held: the rules' constraints (0.17 to 0.62 recall) and
// commitments, and the model's references, which the README reports.
var propBlindFloors = []propBlindFloor{
	{"2", "rules", fixture.Reference, 0.79, 0.65, "63/77, 63/93"},
	{"3a", "rules", fixture.Reference, 0.89, 0.79, "82/90, 82/98"},
	{"3b", "rules", fixture.Reference, 0.88, 0.75, "78/86, 78/98"},
	{"4a", "rules", fixture.Reference, 0.88, 0.74, "66/73, 66/86"},
	{"4b", "rules", fixture.Reference, 0.88, 0.78, "69/76, 69/86"},
	{"5a", "rules", fixture.Reference, 0.85, 0.89, "69/80, 69/76"},
	{"5b", "rules", fixture.Reference, 0.87, 0.89, "69/78, 69/76"},
	// Hybrid's constraints are the model's and the rules' (the same item
	// once) since the rules' standing wants ("After the blind sets");
	// with the model's alone they were 25/32, 25/42; 16/21, 16/29;
	// 16/22, 16/29; 16/17, 16/26; 15/24, 15/26; 13/20, 13/30; 17/27,
	// 17/30; 24/35, 24/40; 24/32, 24/40; 13/19, 13/33; 11/15, 11/33.
	// After every set had been scored, the model's constraints found in
	// an accepted plan were left out (llmFromPlan): none of them
	// labelled, and 7, 2, 9, 10, 8 and 9 fewer proposed on sets 3 to 8
	// (each reader's figures; the precision floors were raised with
	// them).
	{"2", "hybrid", fixture.Constraint, 0.9, 0.46, "30/32, 30/60"},
	{"3a", "hybrid", fixture.Constraint, 0.83, 0.55, "20/21, 20/34"},
	{"3b", "hybrid", fixture.Constraint, 0.79, 0.6, "21/22, 21/34"},
	{"4a", "hybrid", fixture.Constraint, 0.92, 0.55, "17/17, 17/29"},
	{"4b", "hybrid", fixture.Constraint, 0.64, 0.55, "17/24, 17/29"},
	{"5a", "hybrid", fixture.Constraint, 0.78, 0.55, "18/20, 18/32"},
	{"5b", "hybrid", fixture.Constraint, 0.75, 0.7, "24/27, 24/32"},
	{"3a", "hybrid", fixture.Commitment, 0.95, 0.45, "5/5, 5/10"},
	{"4b", "hybrid", fixture.Commitment, 0.75, 0.33, "4/5, 4/12"},
	{"5a", "hybrid", fixture.Commitment, 0.6, 0.6, "3/3, 3/4"},
	{"4a", "hybrid", fixture.Reference, 0.88, 0.74, "66/73, 66/86"},
	{"5a", "hybrid", fixture.Reference, 0.85, 0.89, "69/80, 69/76"},
	// Set 6 (labelled blind; scored blind with the rules of commit
	// 5ba03c7 but the no-change row of propDecisions, which was written
	// after: see testdata/real/labels/README.md, "Blind set 6"): 96/106,
	// 96/106 and 96/105, 96/106 then; dot-folder paths, Markdown's bold
	// around a path and refused changes' files came after set 8.
	{"6a", "rules", fixture.Reference, 0.88, 0.88, "99/106, 99/110"},
	{"6b", "rules", fixture.Reference, 0.88, 0.88, "98/105, 98/110"},
	// The agent's decisions (propDecisions), written with the
	// commitments of sets 3, 4 and 5 in view, and set 6's no-change
	// verdicts after set 6 was scored (0/10 and 0/9 before). After
	// every set had been scored the as-is row went below the cut (an
	// item 4 times in 18) and the no-change row came to read "the
	// existing code is correct": 3/5, 3/4; 2/5, 2/3; 7/10, 7/13 and 6/9,
	// 6/13 before.
	{"3a", "rules", fixture.Commitment, 0.38, 0.7, "2/5, 2/2"},
	{"4b", "rules", fixture.Commitment, 0.18, 0.45, "1/5, 1/2"},
	{"5b", "rules", fixture.Commitment, 0.7, 0.95, "3/4, 3/3"},
	{"6a", "rules", fixture.Commitment, 0.65, 0.5, "7/10, 7/12"},
	{"6b", "rules", fixture.Commitment, 0.6, 0.45, "6/9, 6/12"},
	// The steer rule's operating point, --min-confidence 0.4: recall
	// bought with precision. Written with sets 2 and 3 in view; sets 4
	// and 5 had been read for their constraints' wording, set 6 was
	// scored blind (19/35 and 18/32 then; the directive choice of
	// propSteer came after).
	{"4a", "rules@0.4", fixture.Constraint, 0.68, 0.2, "14/17, 14/54"},
	{"4b", "rules@0.4", fixture.Constraint, 0.68, 0.28, "19/24, 19/54"},
	{"5a", "rules@0.4", fixture.Constraint, 0.78, 0.27, "18/20, 18/55"},
	{"5b", "rules@0.4", fixture.Constraint, 0.65, 0.3, "20/27, 20/55"},
	{"6a", "rules@0.4", fixture.Constraint, 0.6, 0.33, "29/35, 29/68"},
	{"6b", "rules@0.4", fixture.Constraint, 0.63, 0.32, "26/32, 26/68"},
	// Set 7 (32 sessions of 2 or 3 typed turns), labelled and scored
	// blind with the rules of commit 5826b7e: 93/95, 93/112 and 92/95,
	// 92/112 then; the one more proposed since is a dot-folder path.
	// Their session read with nothing labelled is scored too.
	{"7a", "rules", fixture.Reference, 0.95, 0.8, "93/95, 93/113"},
	{"7b", "rules", fixture.Reference, 0.95, 0.8, "92/95, 92/113"},
	// After set 7 was scored, propose came to read a person's answers
	// to the agent's questions (propAnswerText, from both set 6 and 7
	// readers' notes, not from their labels): 14/19, 14/32 and 11/15,
	// 11/32 at 0.4 before; 15/19, 15/38 and 12/15, 12/38 before propPick.
	{"7a", "rules@0.4", fixture.Constraint, 0.8, 0.4, "16/19, 16/39"},
	{"7b", "rules@0.4", fixture.Constraint, 0.8, 0.32, "13/15, 13/39"},
	// The model's replies for sets 6 and 7 were made blind, for the
	// unchanged prompt; Hybrid took the rules' commitments beside the
	// model's after set 6 was scored (its commitments are not blind
	// there), before set 7 was.
	{"6a", "hybrid", fixture.Constraint, 0.82, 0.65, "31/35, 31/46"},
	{"6b", "hybrid", fixture.Constraint, 0.86, 0.63, "30/32, 30/46"},
	{"6a", "hybrid", fixture.Commitment, 0.75, 0.45, "8/10, 8/16"},
	// The model was asked again for the 5 sessions whose prompt came to
	// hold a person's answers (1664f311, 36ba8a60, 4de02c81, 9e44573d,
	// ece0c335); set 7 gave 13/19, 13/29 and 11/15, 11/29 constraints
	// and 4/9, 4/9 and 4/12, 4/9 commitments with the first replies.
	{"7a", "hybrid", fixture.Constraint, 0.72, 0.48, "15/19, 15/30"},
	{"7b", "hybrid", fixture.Constraint, 0.7, 0.38, "12/15, 12/30"},
	{"7a", "hybrid", fixture.Commitment, 0.75, 0.4, "7/9, 7/17"},
	{"7b", "hybrid", fixture.Commitment, 0.62, 0.45, "9/12, 9/17"},
	// Written after every set had been scored, with sets 3 to 7 in
	// view, so none of these is blind (testdata/real/labels/README.md,
	// "After the blind sets"): a pasted code review's comment is not the
	// person's constraint (propReviewText), a steering sentence that
	// words a standing want is proposed at the default cut
	// (propSteerStanding), and four decision rows (no-fix, defer,
	// left-out, keep) read set 7's verdicts. Before, the rules gave
	// constraints 3/17, 3/12; 4/24, 4/12; 5/20, 5/16; 6/27, 6/16; 8/35,
	// 8/20; 8/32, 8/20; 7/19, 7/12; 5/15, 5/12 and set 7's commitments
	// 0/9, 0/2 and 0/12, 0/2. After set 8 ("Epistemic should, explaining
	// instead", not blind either) sets 4 to 6 gave 7/17, 7/16; 8/24,
	// 8/16; 9/20, 9/17; 10/27, 10/17; 16/35, 16/26; 15/32, 15/26, and
	// hybrid 29/35, 29/55 and 28/32, 28/55 on set 6; a pick among the
	// agent's options (propPick) and a refusal's imperative then found
	// one more on every set but 5a; objections to duplication and to a
	// change needed "at all", and three more ways a review bot words a
	// finding (propReviewCue), one more on sets 3, 4 and 6 and nine
	// fewer wrong; a belief checked with ", right?" below the cut
	// (objection/right), one fewer found on set 3 and eight fewer wrong;
	// a want the person words for how the work must be (cue/want) and a
	// message sent again word for word read once, one more found on
	// sets 5, 6b and 8 and two on 6a, for one more wrong on 6a and sets
	// 7, two on 6b.
	{"4a", "rules", fixture.Constraint, 0.5, 0.65, "9/17, 9/13"},
	{"4b", "rules", fixture.Constraint, 0.4, 0.7, "10/24, 10/13"},
	{"5a", "rules", fixture.Constraint, 0.44, 0.58, "10/20, 10/16"},
	{"5b", "rules", fixture.Constraint, 0.4, 0.7, "12/27, 12/16"},
	{"6a", "rules", fixture.Constraint, 0.58, 0.68, "24/35, 24/33"},
	{"6b", "rules", fixture.Constraint, 0.6, 0.65, "22/32, 22/33"},
	{"7a", "rules", fixture.Constraint, 0.55, 0.66, "12/19, 12/18"},
	{"7b", "rules", fixture.Constraint, 0.58, 0.55, "10/15, 10/18"},
	{"7a", "rules", fixture.Commitment, 0.52, 0.48, "5/9, 5/10"},
	{"7b", "rules", fixture.Commitment, 0.48, 0.62, "7/12, 7/10"},
	// Set 8 (the 22 sessions of one typed turn no set had read),
	// labelled blind and scored blind with the rules of commit efe1206
	// (testdata/real/labels/README.md, "Blind set 8"): references 36/50,
	// 36/45 and 37/51, 37/45 then; dot-folder paths, Markdown's bold
	// around a path, two glued URLs and files whose change the person
	// refused were read after ("After set 8").
	// Hybrid's constraints are the blind figures but for the model's
	// constraints from accepted plans, left out after (5/5, 5/15 and 3/4,
	// 3/15 blind). Its commitments were 3/7, 3/5 and 3/5, 3/5 blind;
	// after every set had been scored, "keep X as-is" went below the cut
	// and "the existing code is correct" became a no-change verdict.
	{"8a", "rules", fixture.Reference, 0.7, 0.78, "42/50, 42/49"},
	{"8b", "rules", fixture.Reference, 0.7, 0.8, "43/51, 43/49"},
	{"8a", "hybrid", fixture.Constraint, 0.95, 0.8, "5/5, 5/6"},
	{"8b", "hybrid", fixture.Constraint, 0.74, 0.48, "3/4, 3/6"},
	{"8a", "hybrid", fixture.Commitment, 0.42, 0.58, "4/7, 4/5"},
	{"8b", "hybrid", fixture.Commitment, 0.58, 0.58, "4/5, 4/5"},
}

// propBlindSet is one labeller's labels of a blind set, whether the
// model's replies for its sessions are recorded (testdata/real/llm), and
// the sessions the labeller read and found no item in: a labels file has
// no line for them, and every proposal there is a false one.
type propBlindSet struct {
	name, file string
	replies    bool
	empty      []string
}

// propSession7Empty is set 7's session both readers found no item in
// (blind7/notes_7a.md, notes_7b.md: a UI-wording change and a conflict
// fix).
const propSession7Empty = "59455d2e-4c2a-4b07-9d5f-d01f98258458"

// propSession8Empty is set 8's session both readers found no item in
// (blind8/notes_8a.md, notes_8b.md: its one changed file is named only in
// a tool call).
const propSession8Empty = "277dae78-39d1-4703-aeec-74104e4b1585"

var propBlindSets = []propBlindSet{
	{name: "2", file: "propose_heldout2.jsonl", replies: true}, {name: "3a", file: "propose_blind3_a.jsonl", replies: true}, {name: "3b", file: "propose_blind3_b.jsonl", replies: true},
	{name: "4a", file: "propose_blind4_a.jsonl", replies: true}, {name: "4b", file: "propose_blind4_b.jsonl", replies: true},
	{name: "5a", file: "propose_blind5_a.jsonl", replies: true}, {name: "5b", file: "propose_blind5_b.jsonl", replies: true},
	{name: "6a", file: "propose_blind6_a.jsonl", replies: true}, {name: "6b", file: "propose_blind6_b.jsonl", replies: true},
	{name: "7a", file: "propose_blind7_a.jsonl", replies: true, empty: []string{propSession7Empty}}, {name: "7b", file: "propose_blind7_b.jsonl", replies: true, empty: []string{propSession7Empty}},
	{name: "8a", file: "propose_blind8_a.jsonl", replies: true, empty: []string{propSession8Empty}}, {name: "8b", file: "propose_blind8_b.jsonl", replies: true, empty: []string{propSession8Empty}},
}

// TestProposeBlindSets scores three proposers — the rules, the LLM
// proposer from recorded replies, and Hybrid (the rules' references and
// the model's other items) — on the second held-out set (one reader) and
// on sets 3, 4 and 5, each labelled by two readers working blind
// (testdata/real/labels/README.md, "Blind sets 3, 4 and 5"), and holds
// each to the floors of propBlindFloors. It fails, asking for new
// replies, when the prompt tally sends for a session is not the one its
// recorded reply answers. It logs every figure; run with -v.
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
		for _, id := range set.empty {
			if len(labels[id]) > 0 {
				t.Fatalf("set %s: session %s is listed as empty but has labels", set.name, id)
			}
			labels[id] = nil
		}
		ids := make([]string, 0, len(labels))
		for id := range labels {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		proposers := []string{"rules", "rules@0.4"}
		if set.replies {
			proposers = append(proposers, "llm", "hybrid")
		}
		for _, p := range proposers {
			got[key{set.name, p}] = propNewCounts()
		}
		for _, id := range ids {
			s := openRealSession(t, dir, id)
			opts := ProposeOptions{MinConfidence: DefaultMinConfidence}
			rules := Propose(s, opts)
			propAddCounts(got[key{set.name, "rules"}], labels[id], rules.Candidates)
			propAddCounts(got[key{set.name, "rules@0.4"}], labels[id], Propose(s, ProposeOptions{MinConfidence: 0.4}).Candidates)
			if !set.replies {
				continue
			}
			p := LLMProposer{Backend: replies}
			sum := sha256.Sum256([]byte(p.Prompt(s)))
			if h := hex.EncodeToString(sum[:]); h != bySession[id] {
				t.Fatalf("%s: the prompt tally sends (SHA-256 %.12s…) is not the one a recorded reply answers (%.12s…): record the replies again (testdata/real/labels/README.md)", id, h, bySession[id])
			}
			model, err := p.Propose(context.Background(), s, opts)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			propAddCounts(got[key{set.name, "llm"}], labels[id], model.Candidates)
			propAddCounts(got[key{set.name, "hybrid"}], labels[id], Hybrid(rules, model).Candidates)
		}
		for _, p := range proposers {
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
		{"propose_blind5_a.jsonl", "propose_blind5_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {19, 20, 19, 27}, fixture.Reference: {77, 80, 77, 78}}},
		{"propose_blind6_a.jsonl", "propose_blind6_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {31, 35, 31, 32}, fixture.Commitment: {8, 10, 8, 9}, fixture.Reference: {100, 106, 100, 105}}},
		{"propose_blind7_a.jsonl", "propose_blind7_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {15, 19, 15, 15}, fixture.Commitment: {4, 9, 4, 12}, fixture.Reference: {94, 95, 94, 95}}},
		{"propose_blind8_a.jsonl", "propose_blind8_b.jsonl", map[fixture.Class][4]int{fixture.Constraint: {3, 5, 3, 4}, fixture.Commitment: {4, 7, 4, 5}, fixture.Reference: {48, 50, 48, 51}}},
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
