package draft

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/selection"
)

// BenchmarkBuildReal drafts every compacted session of the dev set with
// the proposer's rules. x-read is its time as a ratio to reading the same
// logs with agentlog in the same run; x-propose its ratio to one Propose
// over each whole session (Build proposes once per compaction, on the
// prefix before it).
func BenchmarkBuildReal(b *testing.B) {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		b.Skip("TALLY_REAL_LOGS is not set: it names the folder of real Claude Code sessions (../shared/real/claude-code)")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
	var compacted []string
	for _, p := range paths {
		s, err := agentlog.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Compactions) > 0 {
			compacted = append(compacted, p)
		}
	}
	var sessions []*agentlog.Session
	start := time.Now()
	for _, p := range compacted {
		s, err := agentlog.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	read := time.Since(start)
	opts := selection.ProposeOptions{MinConfidence: selection.DefaultMinConfidence}
	start = time.Now()
	for _, s := range sessions {
		selection.Propose(s, opts)
	}
	once := time.Since(start)
	rules := func(p *agentlog.Session) (selection.Proposal, error) { return selection.Propose(p, opts), nil }
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range sessions {
			if _, err := Build(s, rules); err != nil {
				b.Fatal(err)
			}
		}
	}
	per := float64(b.Elapsed()) / float64(b.N)
	b.ReportMetric(per/float64(read), "x-read")
	b.ReportMetric(per/float64(once), "x-propose")
	b.ReportMetric(float64(len(sessions)), "sessions")
}
