package draft

import (
	"bytes"
	"os"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// FuzzBuild drafts every session agentlog reads from arbitrary bytes, with
// the echo proposer, and checks the invariants of checkDraft: valid
// candidates and contexts, contexts' turns rising inside the fixture's,
// each candidate live exactly from the compaction it was stated before.
func FuzzBuild(f *testing.F) {
	for _, name := range []string{"testdata/two.jsonl", "testdata/none.jsonl", "../agentlog/testdata/generic.jsonl", "../agentlog/testdata/codex-rollout.jsonl"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := agentlog.ReadAll(bytes.NewReader(data), "fuzz.jsonl", "")
		if err != nil {
			return
		}
		for _, s := range ss {
			d, err := Build(s, echo)
			if err != nil {
				continue
			}
			checkDraft(t, s, d)
		}
	})
}
