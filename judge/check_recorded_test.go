package judge

import (
	"bytes"
	"context"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// TestCheckRecordedReadsOnce: with the recorded judge, which reads no
// context text, Check settles the verbatim items on the reading that
// validates the contexts and reads no context again. The contexts are
// overwritten with garbage once the first record is out: the run still
// gives, in order, the records worked out from the set's description
// (wantChecks, with the stub's answers replayed from a verdict file).
// Before, each context was read a second time to be judged, and the
// garbage failed the run.
func TestCheckRecordedReadsOnce(t *testing.T) {
	convs := genConvs("r", 30, 4, 5)
	set := writeCheckSet(t, t.TempDir(), false, convs)
	want := wantChecks(convs, stubAnswer)
	var verdicts bytes.Buffer
	w := fixture.NewRecordWriter(&verdicts)
	for _, c := range want {
		if c.judged {
			if err := w.Write(c.rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecorded(&verdicts, "verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, conc := range []int{1, 8} {
		spoiled := false
		cfg := CheckConfig{Fixtures: set.fixtures, Contexts: set.contexts, System: checkSystem, Judge: rec, Concurrency: conc,
			Progress: func(Progress) {
				if spoiled {
					return
				}
				spoiled = true
				for _, c := range convs {
					for n := range c.contexts {
						writeFile(t, set.ctxPath(c.id, n+1), []byte("not JSON"))
					}
				}
			}}
		got, res, err := runCheck(t, context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("concurrency %d: %v", conc, err)
		}
		sameRecords(t, got, records(want))
		if res.ContextsDone != countContexts(convs) || !spoiled {
			t.Errorf("concurrency %d: %d contexts done, want %d (spoiled: %v)", conc, res.ContextsDone, countContexts(convs), spoiled)
		}
		set = writeCheckSet(t, t.TempDir(), false, convs)
	}
}
