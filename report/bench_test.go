package report_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/report"
	"github.com/tally-eval/tally/report/html"
	"github.com/tally-eval/tally/report/internal/sample"
	"github.com/tally-eval/tally/report/markdown"
	"github.com/tally-eval/tally/report/xlsx"
)

// benchData writes fixtures conversations of items items each, with
// compactions compactions, and both systems' verdicts (the candidate's
// in shuffled order), into dir; it returns the configuration's path.
func benchData(b *testing.B, dir string, fixtures, items, compactions int) string {
	b.Helper()
	classes := fixture.Classes
	fx, _ := os.Create(filepath.Join(dir, "fixtures.jsonl"))
	fw := bufio.NewWriter(fx)
	for f := range fixtures {
		fmt.Fprintf(fw, `{"conversation_id":"sess_%06d","turns":120,"compactions_expected":%d,"must_survive":[`, f, compactions)
		for i := range items {
			if i > 0 {
				fw.WriteString(",")
			}
			fmt.Fprintf(fw, `{"id":"c%d","class":%q,"turn":%d,"literal":"never modify anything under /migrations/%d/%d","probe":"Is the agent forbidden from modifying /migrations/%d/%d?","expect":"yes"}`,
				i+1, classes[i%4], 2+i, f, i, f, i)
		}
		fw.WriteString("]}\n")
	}
	fw.Flush()
	fx.Close()
	verdicts := []fixture.Verdict{fixture.Verbatim, fixture.Verbatim, fixture.Supported, fixture.Supported, fixture.Supported, fixture.Absent, fixture.Contradicted}
	for s, sys := range []string{"incumbent", "candidate"} {
		rng := rand.New(rand.NewPCG(uint64(s), 7))
		var lines []string
		for f := range fixtures {
			for c := 1; c <= compactions; c++ {
				for i := range items {
					v := verdicts[rng.IntN(len(verdicts))]
					line := fmt.Sprintf(`{"system":%q,"conversation_id":"sess_%06d","compaction":%d,"item_id":"c%d","class":%q,"verdict":%q`, sys, f, c, i+1, classes[i%4], v)
					if v != fixture.Verbatim {
						line += fmt.Sprintf(`,"answer":"the answer about migrations %d","judge":"recorded/bench"`, i)
					}
					lines = append(lines, line+"}\n")
				}
			}
		}
		if s == 1 {
			rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		}
		if err := os.WriteFile(filepath.Join(dir, sys+".jsonl"), []byte(strings.Join(lines, "")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := "fixtures: fixtures.jsonl\nsystems:\n  incumbent: {verdicts: incumbent.jsonl}\n  candidate: {verdicts: candidate.jsonl}\n" +
		"gates: {retained: {constraint: 0.95, commitment: 0.9, open_question: 0.95, reference: 0.98}}\n"
	path := filepath.Join(dir, "report.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkBuild builds a report over 10,000 fixtures of 10 items with 3
// compactions each: 300,000 verdict rows per system, the candidate's
// shuffled. It reports the peak heap in use (sampled) besides the time,
// the MB/s of input files (fixtures and both verdict files) and its
// ratio to reading them raw in the same run (x-raw), and the Markdown
// summary's time and size.
func BenchmarkBuild(b *testing.B) {
	path := benchData(b, b.TempDir(), 10_000, 10, 3)
	cfg, err := report.LoadConfig(path)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []string{cfg.Resolve(cfg.Fixtures), cfg.Resolve(cfg.Incumbent.Verdicts), cfg.Resolve(cfg.Candidate.Verdicts)}
	raw, size := rawRead(b, inputs)
	var peak uint64
	var r *report.Report
	for b.Loop() {
		r = nil
		stop := sample.Heap()
		r, err = report.Build(cfg, report.Options{})
		if err != nil {
			b.Fatal(err)
		}
		_, p := stop()
		peak = max(peak, p.InUse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	mbps := float64(size) * float64(b.N) / 1e6 / b.Elapsed().Seconds()
	b.ReportMetric(mbps, "input-MB/s")
	b.ReportMetric(raw, "raw-MB/s")
	b.ReportMetric(mbps/raw, "x-raw")
	b.ReportMetric(float64(len(r.Items)), "rows")
	var n sample.CountWriter
	start := time.Now()
	if err := markdown.Write(&n, r); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "markdown-ms")
	b.ReportMetric(float64(n.N), "markdown-bytes")
}

// rawRead reads the files whole through one reused buffer, decoding
// nothing: the floor of any reader of those bytes, the baseline of the
// x-raw ratio, measured in the same run (the best of two passes). It
// returns MB/s and the files' total size.
func rawRead(b *testing.B, paths []string) (mbps float64, size int64) {
	buf := make([]byte, 256<<10)
	for range 2 {
		start := time.Now()
		size = 0
		for _, path := range paths {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			for {
				n, err := f.Read(buf)
				size += int64(n)
				if err != nil {
					break
				}
			}
			f.Close()
		}
		mbps = max(mbps, float64(size)/1e6/time.Since(start).Seconds())
	}
	return mbps, size
}

// BenchmarkWholeReport is BenchmarkBuild's data through every output:
// Build, the Markdown summary, the HTML page, the workbook. It reports
// the peak heap in use over the whole run and each step's time.
func BenchmarkWholeReport(b *testing.B) {
	path := benchData(b, b.TempDir(), 10_000, 10, 3)
	cfg, err := report.LoadConfig(path)
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	steps := map[string]time.Duration{}
	for b.Loop() {
		stop := sample.Heap()
		t0 := time.Now()
		r, err := report.Build(cfg, report.Options{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var n sample.CountWriter
		if err := markdown.Write(&n, r); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := html.Write(&n, r, nil); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := xlsx.Write(&n, r); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		_, p := stop()
		peak = max(peak, p.InUse)
		steps["build-s"] += t1.Sub(t0)
		steps["markdown-s"] += t2.Sub(t1)
		steps["html-s"] += t3.Sub(t2)
		steps["xlsx-s"] += t4.Sub(t3)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	for k, d := range steps {
		b.ReportMetric(d.Seconds()/float64(b.N), k)
	}
}
