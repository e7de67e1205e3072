package agentlog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tally-eval/tally/internal/input"
)

// realLogs returns the real Claude Code sessions (*.jsonl.gz) in the
// folder TALLY_REAL_LOGS names, or skips the test when it is not set.
func realLogs(tb testing.TB) []string {
	dir := os.Getenv("TALLY_REAL_LOGS")
	if dir == "" {
		tb.Skip("TALLY_REAL_LOGS is not set: set it to a folder of real Claude Code sessions (*.jsonl.gz), " +
			"such as ../shared/real/claude-code beside the repository, to run this test")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("TALLY_REAL_LOGS=%s holds no *.jsonl.gz files (%v)", dir, err)
	}
	return files
}

// gunzip returns a gzipped file's bytes.
func gunzip(tb testing.TB, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// countLines counts lines as input.Lines does: a last line without "\n"
// is a line.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// TestRealLogs reads every real session: no errors, every line read or
// skipped by type, and every compact_boundary found as a compaction with
// its summary. On the dev set (135 sessions) the counts its README gives
// are checked too: 41 compactions in 30 sessions.
func TestRealLogs(t *testing.T) {
	files := realLogs(t)
	read, skipped := map[string]int{}, map[string]int{}
	lines, compactions, withCompaction, micro, typed, injected := 0, 0, 0, 0, 0, 0
	turns, steps, calls, results, errs, orphans, apiErrors := 0, 0, 0, 0, 0, 0, 0
	byKind := map[Kind]int{}
	for _, path := range files {
		s, err := Open(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		want := countLines(gunzip(t, path))
		if got := s.Records.Lines(); got != want {
			t.Errorf("%s: %d lines counted as read or skipped, the file has %d", path, got, want)
		}
		lines += want
		for k, v := range s.Records.Read {
			read[k] += v
		}
		for k, v := range s.Records.Skipped {
			skipped[k] += v
		}
		if b := s.Records.Read["system/compact_boundary"]; b != len(s.Compactions) {
			t.Errorf("%s: %d compact_boundary records, %d compactions", path, b, len(s.Compactions))
		}
		for i, c := range s.Compactions {
			if c.Summary == "" || c.Line == 0 {
				t.Errorf("%s: compaction %d (line %d) has no summary or no boundary (summary on line %d)", path, i, c.Line, c.SummaryLine)
			}
			if c.SummaryLine != c.Line+1 {
				t.Logf("%s: compaction on line %d has its summary on line %d", path, c.Line, c.SummaryLine)
			}
		}
		compactions += len(s.Compactions)
		if len(s.Compactions) > 0 {
			withCompaction++
		}
		micro += len(s.Microcompactions)
		turns += len(s.Turns)
		steps += len(s.Steps)
		orphans += s.OrphanResults
		apiErrors += len(s.APIErrors)
		for _, m := range s.Messages {
			byKind[m.Kind]++
			if m.Typed() {
				typed++
			} else {
				injected++
			}
		}
		for _, st := range s.Steps {
			for _, c := range st.Calls {
				calls++
				if c.HasResult {
					results++
				}
				if c.IsError {
					errs++
				}
			}
		}
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "%d sessions, %d lines\n%-32s %8s %8s\n", len(files), lines, "record type", "read", "skipped")
	var keys []string
	for k := range read {
		keys = append(keys, k)
	}
	for k := range skipped {
		if _, ok := read[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	sum := 0
	for _, k := range keys {
		fmt.Fprintf(&tab, "%-32s %8d %8d\n", k, read[k], skipped[k])
		sum += read[k] + skipped[k]
	}
	fmt.Fprintf(&tab, "%-32s %17d\n", "total", sum)
	fmt.Fprintf(&tab, "turns %d, steps %d, tool calls %d (%d with a result, %d errors), orphan results %d, API errors %d\n",
		turns, steps, calls, results, errs, orphans, apiErrors)
	fmt.Fprintf(&tab, "user messages: %d typed, %d injected;", typed, injected)
	for k := Typed; k <= Queued; k++ {
		fmt.Fprintf(&tab, " %s %d,", k, byKind[k])
	}
	fmt.Fprintf(&tab, "\ncompactions %d in %d sessions, microcompactions %d\n", compactions, withCompaction, micro)
	t.Log("\n" + tab.String())
	if sum != lines {
		t.Errorf("read and skipped add up to %d, the files have %d lines", sum, lines)
	}
	if len(files) == 135 { // the dev set, as its README describes it
		if compactions != 41 || withCompaction != 30 {
			t.Errorf("dev set: %d compactions in %d sessions, want 41 in 30", compactions, withCompaction)
		}
		// Counted apart from the reader, by a script over the raw
		// records: a queue kept first in, first out, in which an enqueue
		// whose content opens with no "<" and is not a bare slash
		// command leaves by a remove.
		if byKind[Queued] != 34 {
			t.Errorf("dev set: %d queued prompts, want 34", byKind[Queued])
		}
	}
}

// BenchmarkRealLogs reads the real sessions, gzipped and not, against a
// baseline that reads the same bytes line by line without parsing, in
// the same run; MB/s is of uncompressed JSON.
func BenchmarkRealLogs(b *testing.B) {
	files := realLogs(b)
	var gz, plain [][]byte
	var size int64
	for _, p := range files {
		z, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		raw := gunzip(b, p)
		gz, plain = append(gz, z), append(plain, raw)
		size += int64(len(raw))
	}
	open := func(b *testing.B, z []byte, gzipped bool) io.Reader {
		if !gzipped {
			return bytes.NewReader(z)
		}
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			b.Fatal(err)
		}
		return zr
	}
	for _, c := range []struct {
		name    string
		data    [][]byte
		gzipped bool
		parse   bool
	}{
		{"plain/lines", plain, false, false},
		{"plain/read", plain, false, true},
		{"gzip/lines", gz, true, false},
		{"gzip/read", gz, true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range c.data {
					r := open(b, d, c.gzipped)
					if c.parse {
						if _, err := ReadClaudeCode(r, "bench"); err != nil {
							b.Fatal(err)
						}
						continue
					}
					l := input.NewLines(r, "bench", 0)
					for {
						if _, err := l.Next(); err != nil {
							if err != io.EOF {
								b.Fatal(err)
							}
							break
						}
					}
				}
			}
		})
	}
}
