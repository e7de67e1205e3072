package judge

import (
	"context"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// TestCheckJudgeVerbatim: under JudgeVerbatim the items found verbatim
// go to the judge too; its contradiction makes one contradicted (the
// reason says its words were there), its failure an error (whether it
// was contradicted is not known: a new user's CI trial found failures
// left verbatim, the gate passing a contradiction never checked), any
// other answer leaves it verbatim. Without it no verbatim item is asked.
func TestCheckJudgeVerbatim(t *testing.T) {
	convs := genConvs("v", 6, 5, 4)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	var verbatim []fixture.Record
	judged := 0
	for _, w := range want {
		if w.judged {
			judged++
		} else {
			verbatim = append(verbatim, w.rec)
		}
	}
	if len(verbatim) < 3 {
		t.Fatalf("only %d verbatim checks", len(verbatim))
	}
	inverted := verbatim[1]
	isVerbatim := map[string]bool{}
	for _, v := range verbatim {
		isVerbatim[questionKey(v.ConversationID, v.Compaction, v.ItemID)] = true
	}
	// The verbatim items are answered supported, absent or error but the
	// inverted one.
	answer := func(q Question) (Answer, error) {
		k := questionKey(q.ConversationID, q.Compaction, q.ItemID)
		switch {
		case q.ConversationID == inverted.ConversationID && q.Compaction == inverted.Compaction && q.ItemID == inverted.ItemID:
			return Answer{Verdict: fixture.Contradicted, Answer: "the opposite", Reason: "the summary says otherwise", Judge: "stub/model", Calls: 1}, nil
		case isVerbatim[k]:
			v := []fixture.Verdict{fixture.Supported, fixture.Absent, fixture.Error}[hash32(k)%3]
			return Answer{Verdict: v, Reason: "any", Judge: "stub/model", Calls: 1}, nil
		}
		return stubAnswer(q)
	}
	offErrors := 0 // the judged items' errors, counted without JudgeVerbatim
	for _, on := range []bool{false, true} {
		j := newStub(answer, nil)
		cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: j, Concurrency: 4, JudgeVerbatim: on}
		got, res, err := runCheck(t, context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		asked := judged
		if on {
			asked += len(verbatim)
		}
		if j.calls() != asked {
			t.Errorf("JudgeVerbatim %v: %d questions, want %d", on, j.calls(), asked)
		}
		unjudged := 0
		for _, v := range verbatim {
			k := questionKey(v.ConversationID, v.Compaction, v.ItemID)
			if on && v != inverted && hash32(k)%3 == 2 { // the answer func's error
				unjudged++
			}
		}
		if on && unjudged == 0 {
			t.Fatal("no verbatim item is answered with an error: the case tests nothing")
		}
		var contradicted []fixture.Record
		verb, errs := 0, 0
		for _, r := range got {
			for _, v := range verbatim {
				if r.ConversationID == v.ConversationID && r.Compaction == v.Compaction && r.ItemID == v.ItemID {
					switch r.Verdict {
					case fixture.Verbatim:
						verb++
					case fixture.Contradicted:
						contradicted = append(contradicted, r)
					case fixture.Error:
						errs++
					default:
						t.Errorf("a verbatim item became %s", r.Verdict)
					}
				}
			}
		}
		wantContr := 0
		if on {
			wantContr = 1
		}
		if len(contradicted) != wantContr || verb != len(verbatim)-wantContr-unjudged || res.Verbatim != verb || res.VerbatimContradicted != wantContr {
			t.Fatalf("JudgeVerbatim %v: %d contradicted, %d verbatim (result %d, %d); want %d, %d", on, len(contradicted), verb, res.Verbatim, res.VerbatimContradicted, wantContr, len(verbatim)-wantContr-unjudged)
		}
		if !on {
			offErrors = res.Errors
		}
		if res.VerbatimUnjudged != unjudged || errs != unjudged || res.Errors != offErrors+unjudged {
			t.Errorf("JudgeVerbatim %v: %d unjudged, %d error records, %d errors; want %d, %d and %d (the error answers)", on, res.VerbatimUnjudged, errs, res.Errors, unjudged, unjudged, offErrors+unjudged)
		}
		if on && (contradicted[0].ItemID != inverted.ItemID || !strings.HasPrefix(contradicted[0].Reason, "its words are in the context, and the context contradicts them; the summary says otherwise")) {
			t.Errorf("the contradicted record: %+v", contradicted[0])
		}
	}
}
