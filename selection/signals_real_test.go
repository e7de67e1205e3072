package selection

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// realLogDir returns the folder of real Claude Code sessions that
// TALLY_REAL_LOGS names, and skips tb, saying why, when it names none.
func realLogDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		tb.Skip("TALLY_REAL_LOGS is not set: set it to a folder of real Claude Code sessions (*.jsonl.gz), " +
			"such as ../shared/real/claude-code beside the repository, to run this")
	}
	return dir
}

// realLogFiles returns the sessions (*.jsonl.gz) in realLogDir, sorted;
// a folder with none is an error.
func realLogFiles(tb testing.TB) []string {
	tb.Helper()
	dir := realLogDir(tb)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("TALLY_REAL_LOGS=%s holds no *.jsonl.gz files (%v)", dir, err)
	}
	return files
}

// openSessions reads each of files, one session a file.
func openSessions(tb testing.TB, files []string) []*agentlog.Session {
	tb.Helper()
	out := make([]*agentlog.Session, 0, len(files))
	for _, f := range files {
		s, err := agentlog.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestScanRealLogs: `tally signals` over the real sessions in
// TALLY_REAL_LOGS (gzipped Claude Code logs, two files at a time) flags
// exactly what the detectors find in each session read alone — the
// repeats FlaggedRepeats keeps and the restatements, by record — and
// accounts for every line. The detectors' precision and recall against
// the hand labels are scored in repeats_real_test.go and
// restatements_real_test.go.
func TestScanRealLogs(t *testing.T) {
	files := realLogFiles(t)
	cfg := DefaultSignalConfig()
	cfg.Workers = 2
	got := map[string]int{} // "session record kind" → count
	var repeats, severe, restated int
	rep, err := ScanFiles(context.Background(), files, cfg, func(f *Flagged) error {
		for _, s := range f.Signals {
			uuid := ""
			if s.Call != nil {
				uuid = s.Call.UUID
				repeats++
				if s.Severe {
					severe++
				}
			} else {
				uuid = s.Message.UUID
				restated++
			}
			got[f.SessionID+" "+uuid+" "+string(s.Kind)]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	lines := 0
	for _, p := range files {
		s, err := agentlog.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		lines += s.Records.Lines()
		for _, r := range FlaggedRepeats(FindToolRepeats(s, DefaultRepeatWindow)) {
			want[s.ID+" "+r.Repeat.UUID+" "+string(RepeatedToolCall)]++
		}
		for _, r := range FindRestatements(s, DefaultRepeatWindow) {
			want[s.ID+" "+r.Message.UUID+" "+string(RestatedInstruction)]++
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: flagged %d times by Scan, %d by the detectors", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] == 0 {
			t.Errorf("%s: flagged %d times by Scan, never by the detectors", k, n)
		}
	}
	if rep.Lines != int64(lines) || rep.Sessions != len(files) || rep.Skipped.Count != 0 {
		t.Errorf("%d lines, %d sessions, %d skipped; want %d, %d, 0", rep.Lines, rep.Sessions, rep.Skipped.Count, lines, len(files))
	}
	t.Logf("%d sessions (%d compacted), %d lines, %.1f MB: %d flagged; %d repeated tool calls (%d severe), %d restatements; records not read %v",
		rep.Sessions, rep.Compacted, rep.Lines, float64(rep.Bytes)/1e6, rep.Flagged, repeats, severe, restated, rep.NotRead)
}
