//go:build unix

package judge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
)

// benchFixturesEnv sets the number of fixtures BenchmarkCheckLarge
// generates (default benchFixturesDefault).
const (
	benchFixturesEnv     = "TALLY_BENCH_FIXTURES"
	benchFixturesDefault = 10000
)

// The shape of the generated set: every item is live at every
// compaction, so a fixture makes benchItems·benchCompactions checks.
const (
	benchItems       = 10
	benchCompactions = 3
	benchContextSize = 50 << 10
	benchSystem      = "bench"
	benchJudgeName   = "openai/qwen2.5-7b-instruct"
)

// benchContextTurns are the turns the compactions serve; items are stated
// before the first.
var benchContextTurns = [benchCompactions]int{40, 80, 120}

// benchVerbatimTenths is how many items in ten each compaction keeps
// word for word: later compactions lose more.
var benchVerbatimTenths = [benchCompactions]int{7, 5, 3}

// BenchmarkCheckLarge checks a generated set of TALLY_BENCH_FIXTURES
// fixtures (default 10,000) × 10 items × 3 compactions, contexts of about
// 50 KB: with the recorded judge (which holds every verdict in memory,
// as `tally check --judge recorded` does) and with a judge that computes
// its verdicts and holds nothing, which isolates the memory of the
// pipeline itself.
//
//	go test ./judge -run XXX -bench CheckLarge -benchtime 1x -timeout 30m
//
// It reports checks/s, MB/s of context files read and its ratio to
// reading the same files raw in the same run (x-raw, see rawReadMBps),
// the same MB per second of CPU time (ctx-MB/cpu-s; -v logs the load
// average),
// the peak heap in use
// (HeapInuse, sampled every 10 ms), the peak live heap (as of each GC) and
// the live heap before the run (the recorded verdicts).
func BenchmarkCheckLarge(b *testing.B) {
	if testing.Short() {
		b.Skip("generates 1.5 GB of contexts; not in -short mode")
	}
	n := benchFixturesDefault
	if s := os.Getenv(benchFixturesEnv); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("%s=%q: want a positive number of fixtures", benchFixturesEnv, s)
		}
	}
	start := time.Now()
	data := generateBench(b, b.TempDir(), n)
	generated := fmt.Sprintf("generated %d fixtures, %d contexts (%.0f MB), %d verdicts in %v",
		n, data.nContexts, float64(data.contextBytes)/1e6, data.checks-data.verbatim, time.Since(start).Round(time.Millisecond))
	b.Log(generated) // shown with -v only: each sub-benchmark repeats it

	b.Run("recorded", func(b *testing.B) {
		b.Log(generated)
		start := time.Now()
		rec, err := LoadRecorded(data.verdicts, input.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("LoadRecorded: %d verdicts in %v", rec.Len(), time.Since(start).Round(time.Millisecond))
		benchCheck(b, data, rec)
		runtime.KeepAlive(rec)
	})
	b.Run("computed", func(b *testing.B) {
		b.Log(generated)
		benchCheck(b, data, computedJudge{})
	})
}

// benchCheck runs Check over data with j, writing the records as JSONL
// to io.Discard, and reports the figures.
func benchCheck(b *testing.B, data benchData, j Judge) {
	raw := rawReadMBps(b, data.contexts)
	runtime.GC()
	base := heapSample()
	b.ReportAllocs()
	sampler := startHeapSampler(10 * time.Millisecond)
	cpu0 := cpuTime(b)
	var res CheckResult
	for b.Loop() {
		w := fixture.NewRecordWriter(io.Discard)
		var err error
		res, err = Check(context.Background(), CheckConfig{
			Fixtures: data.fixtures, Contexts: data.contexts, System: benchSystem, Judge: j,
		}, w.Write)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime(b) - cpu0
	peak := sampler.stop()
	if res.Checks != data.checks || res.Verbatim != data.verbatim || res.Errors != 0 || res.ContextsDone != data.nContexts {
		b.Fatalf("the check went wrong: %+v, want %d checks, %d verbatim, %d contexts, no error", res.Progress, data.checks, data.verbatim, data.nContexts)
	}
	sec := b.Elapsed().Seconds()
	b.Logf("%d checks (%d verbatim, %d judged) in %v, %v of CPU (user and system) on %d CPUs",
		res.Checks*b.N, res.Verbatim*b.N, (res.Checks-res.Verbatim)*b.N, b.Elapsed().Round(time.Millisecond), cpu.Round(time.Millisecond), runtime.GOMAXPROCS(0))
	const mb = 1 << 20
	b.ReportMetric(float64(res.Checks*b.N)/sec, "checks/s")
	ctxMBps := float64(data.contextBytes*int64(b.N)) / 1e6 / sec
	b.ReportMetric(ctxMBps, "ctx-MB/s")
	b.ReportMetric(raw, "raw-MB/s")
	b.ReportMetric(ctxMBps/raw, "x-raw")
	b.ReportMetric(float64(peak.inuse)/mb, "peak-heap-MB")
	b.ReportMetric(float64(peak.live)/mb, "peak-live-MB")
	b.ReportMetric(float64(base.live)/mb, "base-live-MB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	// Per second of CPU: the figure that a machine shared with other
	// work does not skew much (wall time is the other work's too).
	b.ReportMetric(float64(data.contextBytes*int64(b.N))/1e6/cpu.Seconds(), "ctx-MB/cpu-s")
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average (1, 5, 15 min, then runnable/all and the last pid): %s", bytes.TrimSpace(load))
	}
}

// rawReadMBps reads every context file under dir into one reused
// buffer, decoding nothing, on one goroutine: the floor of any reader of
// those bytes, measured in the same run as the check it is the baseline
// of (the x-raw ratio). The best of two passes, the files being in the
// page cache after the first.
func rawReadMBps(b *testing.B, dir string) float64 {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	best := 0.0
	buf := make([]byte, 0, 1<<20)
	for range 2 {
		start := time.Now()
		var n int64
		for _, path := range files {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			buf = buf[:0]
			for {
				k, err := f.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+k]
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if len(buf) == cap(buf) {
					buf = append(buf, 0)[:len(buf)]
				}
			}
			f.Close()
			n += int64(len(buf))
		}
		best = max(best, float64(n)/1e6/time.Since(start).Seconds())
	}
	return best
}

// cpuTime is the user and system CPU time of the process so far: on a
// machine shared with other work, wall time alone misleads. (getrusage is
// why this file builds on unix only.)
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// computedJudge answers from the question's identity alone, holding no
// state: the memory of a run with it is the pipeline's.
type computedJudge struct{}

func (computedJudge) Judge(ctx context.Context, q Question) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	i, _ := strconv.Atoi(q.ConversationID[len("conv_"):])
	k := int(q.ItemID[1] - '0')
	r := benchRecord(i, q.Compaction, k, fixture.Item{ID: q.ItemID, Class: q.Class, Expect: q.Expect})
	return Answer{Verdict: r.Verdict, Answer: r.Answer, Judge: r.Judge, Expect: r.Expect}, nil
}

// heapFigures are heap sizes in bytes.
type heapFigures struct {
	inuse uint64 // HeapInuse: objects and free space in in-use spans
	live  uint64 // the live heap as of the last GC
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/gc/heap/live:bytes"}

func readHeap(s []metrics.Sample) heapFigures {
	metrics.Read(s)
	return heapFigures{inuse: s[0].Value.Uint64() + s[1].Value.Uint64(), live: s[2].Value.Uint64()}
}

func heapSample() heapFigures {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	return readHeap(s)
}

// heapSampler records the peak heap figures until stopped.
type heapSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak heapFigures
}

func startHeapSampler(every time.Duration) *heapSampler {
	h := &heapSampler{done: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s := make([]metrics.Sample, len(heapMetrics))
		for i, name := range heapMetrics {
			s[i].Name = name
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			f := readHeap(s)
			h.peak.inuse, h.peak.live = max(h.peak.inuse, f.inuse), max(h.peak.live, f.live)
			select {
			case <-h.done:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) stop() heapFigures {
	close(h.done)
	h.wg.Wait()
	return h.peak
}

// benchData is a generated check set.
type benchData struct {
	fixtures, contexts, verdicts string
	// checks counts the checks (every item is live at every compaction),
	// verbatim those found word for word; nContexts counts the context
	// files, of contextBytes bytes in all.
	checks, verbatim, nContexts int
	contextBytes                int64
}

// benchItem is item k of fixture i. Every literal names i and k, and no
// literal is a prefix of another.
func benchItem(i, k int) fixture.Item {
	it := fixture.Item{ID: "i" + strconv.Itoa(k), Class: fixture.Classes[(i+k)%len(fixture.Classes)], Turn: 1 + 3*k}
	switch it.Class {
	case fixture.Constraint:
		it.Literal = fmt.Sprintf("never modify anything under /srv/svc%d/migrations/%d/ without asking", i, k)
		it.Probe = fmt.Sprintf("May the agent modify /srv/svc%d/migrations/%d/ without asking?", i, k)
		it.Expect = "no"
	case fixture.Commitment:
		it.Literal = fmt.Sprintf("I'll open the PR against release-%d.%d, not main", i, k)
		it.Probe = "Which branch should the PR target?"
		it.Expect = fmt.Sprintf("release-%d.%d", i, k)
	case fixture.OpenQuestion:
		it.Literal = fmt.Sprintf("Would an enum be better than a varchar for orders_%d.status_%d?", i, k)
		it.Probe = fmt.Sprintf("Has the user decided whether orders_%d.status_%d becomes an enum?", i, k)
		it.Expect = "no, it is still open"
	case fixture.Reference:
		it.Literal = fmt.Sprintf("report_%d_%d.md rev %d", i, k, 10+k)
		it.Probe = "Where is the report being written, and at what revision?"
		it.Expect = fmt.Sprintf("report_%d_%d.md, rev %d", i, k, 10+k)
	}
	return it
}

// benchParaphrase is what a context says of an item it does not keep
// word for word.
func benchParaphrase(i, k int, it fixture.Item) string {
	switch it.Class {
	case fixture.Constraint:
		return fmt.Sprintf("The user asked the agent to stay away from the migrations of service %d (note %d).", i, k)
	case fixture.Commitment:
		return fmt.Sprintf("The agent agreed to target a release branch for the pull request (note %d).", k)
	case fixture.OpenQuestion:
		return fmt.Sprintf("Whether the status column of orders table %d should become an enum came up (note %d).", i, k)
	default:
		return fmt.Sprintf("A report file for this work exists and its revision was mentioned (note %d).", k)
	}
}

// benchVerbatim says whether compaction c (1-based) of fixture i keeps
// item k word for word.
func benchVerbatim(i, c, k int) bool { return (7*i+3*k+5*c)%10 < benchVerbatimTenths[c-1] }

// benchRecord is the recorded verdict of item k at compaction c of
// fixture i.
func benchRecord(i, c, k int, it fixture.Item) fixture.Record {
	r := fixture.Record{System: benchSystem, ConversationID: benchConv(i), Compaction: c, ItemID: it.ID, Class: it.Class, Judge: benchJudgeName}
	switch h := (31*i + 7*k + 13*c) % 10; {
	case h < 5:
		r.Verdict, r.Answer = fixture.Supported, it.Expect
	case h < 8:
		r.Verdict, r.Answer = fixture.Absent, "the context does not say"
	default:
		r.Verdict, r.Answer, r.Expect = fixture.Contradicted, "main", it.Expect
	}
	return r
}

func benchConv(i int) string { return fmt.Sprintf("conv_%05d", i) }

// generateBench writes n fixtures (one .jsonl file), their contexts and
// the recorded verdicts of their judged checks under dir.
func generateBench(b *testing.B, dir string, n int) benchData {
	d := benchData{
		fixtures: filepath.Join(dir, "fixtures.jsonl"),
		contexts: filepath.Join(dir, "contexts"),
		verdicts: filepath.Join(dir, "verdicts.jsonl"),
	}
	// Contexts, the bulk of the data, in parallel; each worker reuses one
	// buffer and writes each file with a single write.
	workers := max(4, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	var bytes atomic.Int64
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var buf []byte
			var written int64
			for i := w; i < n; i += workers {
				folder := filepath.Join(d.contexts, benchConv(i))
				if err := os.MkdirAll(folder, 0o755); err != nil {
					errs <- err
					return
				}
				for c := 1; c <= benchCompactions; c++ {
					buf = appendBenchContext(buf[:0], rng, i, c)
					if err := os.WriteFile(filepath.Join(folder, strconv.Itoa(c)+".json"), buf, 0o644); err != nil {
						errs <- err
						return
					}
					written += int64(len(buf))
				}
			}
			bytes.Add(written)
		}()
	}

	// Fixtures and verdicts, small, in order.
	ff, err := os.Create(d.fixtures)
	if err != nil {
		b.Fatal(err)
	}
	vf, err := os.Create(d.verdicts)
	if err != nil {
		b.Fatal(err)
	}
	fw := bufio.NewWriterSize(ff, 1<<20)
	vw := fixture.NewRecordWriter(vf)
	for i := range n {
		f := fixture.Fixture{ConversationID: benchConv(i), Turns: 150, CompactionsExpected: benchCompactions}
		for k := range benchItems {
			f.MustSurvive = append(f.MustSurvive, benchItem(i, k))
		}
		line, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		fw.Write(line)
		fw.WriteByte('\n')
		for c := 1; c <= benchCompactions; c++ {
			for k, it := range f.MustSurvive {
				d.checks++
				if benchVerbatim(i, c, k) {
					d.verbatim++
					continue
				}
				if err := vw.Write(benchRecord(i, c, k, it)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, err := range []error{fw.Flush(), ff.Close(), vw.Flush(), vf.Close()} {
		if err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	d.contextBytes = bytes.Load()
	d.nContexts = n * benchCompactions
	return d
}

// benchFiller are sentences of a coding session, a number between the
// first two strings and another between the last two.
var benchFiller = [][3]string{
	{"At turn ", " the agent read internal/store/orders_", ".go and listed the functions that touch the status column."},
	{"The test run at turn ", " failed in TestOrderStatus with ", " assertions about the string form of the status."},
	{"Tool call ", ": grep over internal/ for status comparisons returned ", " matches, most of them in the HTTP handlers."},
	{"The user pasted a stack trace of ", " lines from the staging server, pointing at handler ", " in the router."},
	{"Turn ", ": the agent proposed splitting the migration into ", " steps so that each can be rolled back on its own."},
	{"The CI job for commit ", " took ", " seconds; the slowest step is the integration suite against Postgres."},
	{"At turn ", " the agent opened docs/adr/", "-status-enum.md and summarised the trade-offs it lists."},
	{"The user mentioned that the quarterly numbers cover ", " regions and that region ", " is missing data for March."},
	{"Turn ", ": benchmarks show the new query at ", " microseconds per call, down from twice that."},
	{"The agent noted that table orders has about ", " thousand rows in staging and ", " million in production."},
	{"At turn ", " the user asked for a dry run first; the agent ran it and found ", " rows that would change."},
	{"Tool call ", ": read_file config/settings.yaml showed ", " feature flags, two of them stale."},
	{"The agent explained the retry policy at turn ", " — backoff doubles up to ", " seconds, with jitter."},
	{"Turn ", ": the linter reported ", " warnings, none of them in the files this change touches."},
	{"The reviewer left ", " comments on the draft; the agent answered them at turn ", " and pushed a fixup."},
	{"At turn ", " the user said the deadline moved by ", " days because of the freeze before the release."},
}

// appendBenchContext appends compaction c of fixture i as a context file
// of about benchContextSize bytes: a system prompt with the pinned ledger
// (the items kept word for word), then user and assistant messages of
// varied narrative in which the other items are paraphrased.
func appendBenchContext(b []byte, rng *rand.Rand, i, c int) []byte {
	b = append(b, `{"conversation_id":"`...)
	b = append(b, benchConv(i)...)
	b = append(b, `","compaction":`...)
	b = strconv.AppendInt(b, int64(c), 10)
	b = append(b, `,"turn":`...)
	b = strconv.AppendInt(b, int64(benchContextTurns[c-1]), 10)
	b = append(b, `,"system":"You are a careful coding agent working in the tally repository.\n\nPinned ledger:`...)
	var paraphrases []string
	for k := range benchItems {
		it := benchItem(i, k)
		if benchVerbatim(i, c, k) {
			b = append(b, `\n- `...)
			b = append(b, it.Class...)
			b = append(b, ` (turn `...)
			b = strconv.AppendInt(b, int64(it.Turn), 10)
			b = append(b, `): `...)
			b = append(b, it.Literal...)
		} else {
			paraphrases = append(paraphrases, benchParaphrase(i, k, it))
		}
	}
	b = append(b, `","messages":[`...)
	for m := 0; len(b) < benchContextSize-600; m++ {
		if m > 0 {
			b = append(b, ',')
		}
		role := "user"
		if m%2 == 1 {
			role = "assistant"
		}
		b = append(b, `{"role":"`...)
		b = append(b, role...)
		parts := m%6 == 5
		if parts {
			b = append(b, `","content":[{"type":"text","text":"`...)
		} else {
			b = append(b, `","content":"`...)
		}
		if m == 0 {
			b = append(b, `Summary of turns 1-`...)
			b = strconv.AppendInt(b, int64(benchContextTurns[c-1]-1), 10)
			b = append(b, `.`...)
		}
		if m < len(paraphrases) {
			b = append(b, ` `...)
			b = append(b, paraphrases[m]...)
		}
		for range 4 + rng.IntN(8) {
			f := benchFiller[rng.IntN(len(benchFiller))]
			b = append(b, ` `...)
			b = append(b, f[0]...)
			b = strconv.AppendInt(b, int64(1+rng.IntN(200)), 10)
			b = append(b, f[1]...)
			b = strconv.AppendInt(b, int64(rng.IntN(5000)), 10)
			b = append(b, f[2]...)
			if rng.IntN(4) == 0 {
				b = append(b, `\n`...)
			}
		}
		if parts {
			b = append(b, `"},{"type":"tool_use","id":"toolu_`...)
			b = strconv.AppendInt(b, int64(m), 10)
			b = append(b, `","name":"read_file","input":{"path":"internal/store/orders.go"}}]}`...)
		} else {
			b = append(b, `"}`...)
		}
	}
	return append(b, "]}\n"...)
}
