package selection

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tally-eval/tally/internal/benchraw"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// The big benchmarks generate their input inside b.TempDir(). Their
// sizes default to the (1,000,000 sessions; 1 GB of events) and
// can be made smaller — or larger — with these environment variables:
//
//	TALLY_BENCH_SESSIONS=100000 TALLY_BENCH_EVENTS_MB=100 go test ./selection -run '^$' -bench .
//
// Each reports MB/s (b.SetBytes) and two peaks, sampled every millisecond
// from runtime/metrics while it ran: peak-heap-MB, the heap's objects
// including garbage not yet collected (what the process holds), and
// peak-live-MB, the heap still in use at the end of a collection (what
// the computation needs).

func envInt(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a positive whole number", name, v)
		}
		return n
	}
	return def
}

// genSessions writes n session summaries shaped like the example
// quarter's: log-normal turns (median 12), a compaction about every 25
// turns in long sessions, items at a rate of their own, 9% counts only,
// 0.5% incidents.
func genSessions(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 1))
	bw := bufio.NewWriterSize(w, 1<<20)
	classes := []string{"constraint", "commitment", "open_question", "reference"}
	var buf []byte
	for i := range n {
		turns := min(420, max(1, int(math.Round(math.Exp(math.Log(12)+r.NormFloat64())))))
		buf = append(buf[:0], `{"session_id":"sess_`...)
		buf = strconv.AppendInt(buf, int64(i), 36)
		buf = append(buf, `","turns":`...)
		buf = strconv.AppendInt(buf, int64(turns), 10)
		buf = append(buf, `,"started":"2026-01-05T04:55:22Z"`...)
		if r.IntN(200) == 0 {
			buf = append(buf, `,"incident":true`...)
		}
		every := 18 + r.IntN(16)
		density := math.Exp(math.Log(0.07) + 0.8*r.NormFloat64())
		if r.IntN(100) < 9 {
			buf = append(buf, `,"compactions":`...)
			buf = strconv.AppendInt(buf, int64(turns/every), 10)
			buf = append(buf, `,"items":`...)
			buf = strconv.AppendInt(buf, int64(float64(turns)*density), 10)
		} else {
			buf = append(buf, `,"compactions":[`...)
			for t, k := every, 0; t <= turns; t, k = t+every, k+1 {
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, `{"turn":`...)
				buf = strconv.AppendInt(buf, int64(t), 10)
				buf = append(buf, '}')
			}
			buf = append(buf, `],"items":[`...)
			k := 0
			for t := 2; t <= turns; t++ {
				if r.Float64() < density {
					if k > 0 {
						buf = append(buf, ',')
					}
					k++
					buf = append(buf, `{"class":"`...)
					buf = append(buf, classes[r.IntN(4)]...)
					buf = append(buf, `","turn":`...)
					buf = strconv.AppendInt(buf, int64(t), 10)
					buf = append(buf, '}')
				}
			}
			buf = append(buf, ']')
		}
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// BenchmarkSelect: `tally select --budget 40` (random samples of 40, 1,000
// draws) over TALLY_BENCH_SESSIONS generated sessions.
func BenchmarkSelect(b *testing.B) {
	n := envInt(b, "TALLY_BENCH_SESSIONS", 1_000_000)
	path := filepath.Join(b.TempDir(), "sessions.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := genSessions(f, n, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	info, _ := os.Stat(path)
	b.SetBytes(info.Size())
	b.ReportAllocs()
	stop := benchraw.PeakHeap()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Select(f, path, DefaultConfig(40))
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.Read != n || len(res.Selected) != 40 {
			b.Fatalf("read %d, selected %d", res.Read, len(res.Selected))
		}
	}
	heap, live := stop()
	b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(live)/1e6, "peak-live-MB")
	b.ReportMetric(float64(n), "sessions")
}

// eventGen writes event logs shaped like the example quarter's, with
// repeats and restatements injected after some compactions.
type eventGen struct {
	r    *rand.Rand
	buf  []byte
	next int
	at   int64 // a Unix time
}

var (
	benchChat = []string{"ok, go ahead", "Sounds good, carry on.", "What does the failing test say?", "Thanks. Keep going.",
		"Looks right to me.", "Can you check internal/billing/store.go as well?", "Hm, not what I expected. Dig into internal/billing/cache.go."}
	benchRules = []string{"Before you start: never modify anything under db/migrations.", "Ground rule: leave fast_export off by default.",
		"Important: don't add new dependencies to go.mod.", "Also, tests must not hit the network; stub the Stripe client."}
	benchRestates = []string{"I said don't touch migrations.", "Again: fast_export defaults to off.", "Like I said earlier, nothing new in go.mod.", "Reminder: no network in tests."}
	benchFiles    = []string{"internal/billing/store.go", "internal/billing/cache.go", "internal/billing/handler.go", "internal/billing/queue.go"}
)

func (g *eventGen) head(session string, turn int, kind string) {
	g.buf = append(g.buf, `{"session_id":"`...)
	g.buf = append(g.buf, session...)
	g.buf = append(g.buf, `","turn":`...)
	g.buf = strconv.AppendInt(g.buf, int64(turn), 10)
	g.buf = append(g.buf, `,"ts":"`...)
	g.at += 1 + g.r.Int64N(40)
	g.buf = time.Unix(g.at, 0).UTC().AppendFormat(g.buf, time.RFC3339)
	g.buf = append(g.buf, `","kind":"`...)
	g.buf = append(g.buf, kind...)
	g.buf = append(g.buf, '"')
}

func (g *eventGen) message(session string, turn int, role, text string) {
	g.head(session, turn, "message")
	g.buf = append(g.buf, `,"role":"`...)
	g.buf = append(g.buf, role...)
	g.buf = append(g.buf, `","text":`...)
	g.buf = strconv.AppendQuote(g.buf, text)
	g.buf = append(g.buf, "}\n"...)
}

func (g *eventGen) call(session string, turn int, args string) {
	g.head(session, turn, "tool_call")
	g.buf = append(g.buf, `,"tool":"read_file","args":`...)
	g.buf = append(g.buf, args...)
	g.buf = append(g.buf, "}\n"...)
}

func (g *eventGen) readArgs(n int) string {
	return `{"path":"` + benchFiles[n%4] + `","start_line":` + strconv.Itoa(1+n%400) + `,"end_line":` + strconv.Itoa(60+n%400) + `}`
}

// session appends one session's events to g.buf.
func (g *eventGen) session() {
	g.next++
	id := "sess_" + strconv.FormatInt(int64(g.next), 36)
	turns := min(420, max(1, int(math.Round(math.Exp(math.Log(12)+g.r.NormFloat64())))))
	every := 18 + g.r.IntN(16)
	var callsBefore []string
	rule := -1
	for t := 1; t <= turns; t++ {
		if t%every == 0 {
			g.head(id, t, "compaction")
			g.buf = append(g.buf, "}\n"...)
			if len(callsBefore) > 0 && g.r.IntN(8) == 0 {
				g.call(id, t, callsBefore[g.r.IntN(len(callsBefore))])
			}
			if rule >= 0 && g.r.IntN(8) == 0 {
				g.message(id, t, "user", benchRestates[rule])
			}
		}
		switch {
		case t == 3 && g.r.IntN(3) == 0:
			rule = g.r.IntN(len(benchRules))
			g.message(id, t, "user", benchRules[rule])
		case g.r.IntN(7) == 0:
			g.message(id, t, "user", benchChat[g.r.IntN(len(benchChat))])
		}
		for range g.r.IntN(3) {
			args := g.readArgs(g.r.IntN(1 << 20))
			g.call(id, t, args)
			callsBefore = append(callsBefore, args)
		}
		if g.r.IntN(3) == 0 {
			g.message(id, t, "assistant", "Reading internal/billing/store.go to see how LoadInvoice is wired; the diff is 40 lines so far.")
		}
	}
}

// genEvents writes about size bytes of events into files files in dir.
func genEvents(dir string, files int, size int64, seed uint64) ([]string, int64, error) {
	var paths []string
	var total int64
	for i := range files {
		path := filepath.Join(dir, fmt.Sprintf("week-%02d.jsonl", i+1))
		f, err := os.Create(path)
		if err != nil {
			return nil, 0, err
		}
		g := &eventGen{r: rand.New(rand.NewPCG(seed, uint64(i))), next: i << 32, at: 1767600000}
		bw := bufio.NewWriterSize(f, 1<<20)
		var written int64
		for written < size/int64(files) {
			g.buf = g.buf[:0]
			g.session()
			n, err := bw.Write(g.buf)
			if err != nil {
				return nil, 0, err
			}
			written += int64(n)
		}
		if err := bw.Flush(); err != nil {
			return nil, 0, err
		}
		f.Close()
		paths = append(paths, path)
		total += written
	}
	return paths, total, nil
}

// BenchmarkSignals: `tally signals` over TALLY_BENCH_EVENTS_MB megabytes
// of generated events in 8 files, read in parallel (GOMAXPROCS workers),
// against reading the same files raw (io.Copy to io.Discard, best of
// three) in the same run: of-raw is the share of the raw read's speed;
// cpu-MB/s is per second of the process's CPU time.
func BenchmarkSignals(b *testing.B) {
	mb := envInt(b, "TALLY_BENCH_EVENTS_MB", 1024)
	paths, size, err := genEvents(b.TempDir(), 8, int64(mb)<<20, 1)
	if err != nil {
		b.Fatal(err)
	}
	// The raw read: the same files' bytes to io.Discard, best of three.
	raw := benchraw.Read(b, size, false, paths...)
	stop := raw.Start(b)
	var flagged, lines int
	for b.Loop() {
		flagged = 0
		rep, err := ScanFiles(context.Background(), paths, DefaultSignalConfig(), func(*Flagged) error {
			flagged++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		lines = int(rep.Lines)
	}
	// cpu-MB/s counts all workers' CPU time together: with one worker
	// (-cpu 1), what one core reaches on a busy machine.
	stop()
	b.ReportMetric(float64(lines), "events")
	b.ReportMetric(float64(flagged), "flagged")
}

// The decoders alone, against encoding/json decoding the same line into
// a struct: what "the cost is the JSON decoding" is measured against.
var (
	benchSessionLine = []byte(`{"session_id":"sess_2026_01_05_c44b","turns":31,"started":"2026-01-05T06:47:36Z","compactions":[{"turn":25}],"items":[{"class":"open_question","turn":5},{"class":"constraint","turn":11},{"class":"open_question","turn":12},{"class":"reference","turn":17}]}`)
)

func BenchmarkParseSessionLine(b *testing.B) {
	var sc jsonscan.Scanner
	var s Session
	var bufs sessionBufs
	b.SetBytes(int64(len(benchSessionLine)))
	b.ReportAllocs()
	for b.Loop() {
		if err := parseSession(&sc, benchSessionLine, &s, &bufs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONSessionLine(b *testing.B) {
	type item struct {
		Class string `json:"class"`
		Turn  int    `json:"turn"`
	}
	var s struct {
		SessionID   string          `json:"session_id"`
		Turns       int             `json:"turns"`
		Started     string          `json:"started"`
		Incident    bool            `json:"incident"`
		Compactions json.RawMessage `json:"compactions"`
		Items       json.RawMessage `json:"items"`
	}
	b.SetBytes(int64(len(benchSessionLine)))
	b.ReportAllocs()
	for b.Loop() {
		if err := json.Unmarshal(benchSessionLine, &s); err != nil {
			b.Fatal(err)
		}
		var cs []struct{ Turn int }
		var is []item
		if err := json.Unmarshal(s.Compactions, &cs); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(s.Items, &is); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRandomComparison: the random comparison alone (1,000 draws of
// 200) over 1,000,000 sessions: its cost grows like k·log(n/k) per draw,
// not with n.
func BenchmarkRandomComparison(b *testing.B) {
	n := envInt(b, "TALLY_BENCH_SESSIONS", 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		r := newReservoirs(200, DefaultDraws, 1)
		for i := range n {
			r.add(summary{turns: int32(i % 400), compactions: int32(i % 3), items: int32(i % 5), decisions: int64(i % 7)})
		}
		_ = r.comparison(200)
	}
	b.ReportMetric(float64(n), "sessions")
}
