package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/judge"
)

// quarterly is the example dataset, relative to this package's folder.
const quarterly = "../../examples/quarterly"

// noKeyEnv names the environment variable the tests' OpenAI backend
// reads its key from: a fake one, set for the whole test binary (a
// variable named by --api-key-env must hold a key), so that no real
// OPENAI_API_KEY is ever sent to a fake server.
const noKeyEnv = "TALLY_TEST_FAKE_KEY"

func init() { os.Setenv(noKeyEnv, "sk-fake-for-tests") }

// judgedFixtures are six example conversations whose incumbent contexts
// leave 51 items to the judge (the rest are verbatim): a few dozen judge
// calls with the agreement questions.
var judgedFixtures = []string{
	"sess_2026_01_30_9291", "sess_2026_02_03_d7e9", "sess_2026_02_11_6a8a",
	"sess_2026_02_13_c44a", "sess_2026_02_27_a870", "sess_2026_03_05_b82f",
}

// checkOut is the JSON output of `tally check`, with the field names of
// the CLI contract spelt out here rather than borrowed from check.go, so
// that renaming one is a test failure.
type checkOut struct {
	System    string     `json:"system"`
	Output    string     `json:"output"`
	Fixtures  int        `json:"fixtures"`
	Contexts  int        `json:"contexts"`
	Checks    int        `json:"checks"`
	Calls     int        `json:"judge_calls"`
	CacheHits int        `json:"cache_hits"`
	Classes   []classOut `json:"classes"`
}

type classOut struct {
	Class        string   `json:"class"`
	Items        int      `json:"items"`
	Verbatim     int      `json:"verbatim"`
	Supported    int      `json:"supported"`
	Absent       int      `json:"absent"`
	Contradicted int      `json:"contradicted"`
	Error        int      `json:"error"`
	Retained     int      `json:"retained"`
	Share        *float64 `json:"retained_share"`
	Interval     *struct {
		Method string  `json:"method"`
		Lower  float64 `json:"lower"`
		Upper  float64 `json:"upper"`
	} `json:"interval"`
}

// class returns the row of class name ("all" for the total).
func (c checkOut) class(t *testing.T, name string) classOut {
	t.Helper()
	for _, r := range c.Classes {
		if r.Class == name {
			return r
		}
	}
	t.Fatalf("no class %q in the output: %+v", name, c.Classes)
	return classOut{}
}

// dryRunOut is the JSON output of `tally check --dry-run`.
type dryRunOut struct {
	System           string `json:"system"`
	Fixtures         int    `json:"fixtures"`
	Contexts         int    `json:"contexts"`
	Checks           int    `json:"checks"`
	Verbatim         int    `json:"verbatim"`
	Questions        int    `json:"judge_questions"`
	Cached           int    `json:"cached"`
	Calls            int    `json:"verdict_calls"`
	AgreementCalls   int    `json:"agreement_calls"`
	AgreementUnknown int    `json:"agreement_calls_unknown"`
}

// decodeJSON decodes a command's JSON output into v, failing the test on
// anything but one JSON value.
func decodeJSON(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in the output:\n%s", out)
	}
}

// readVerdicts reads a verdicts file with the strict fixture.RecordReader,
// checking that it is whole lines, one record each, all of system sys.
func readVerdicts(t *testing.T, path, sys string) []fixture.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("%s does not end with a newline", path)
	}
	lines := bytes.Count(b, []byte("\n"))
	rr := fixture.NewRecordReader(bytes.NewReader(b), path)
	var recs []fixture.Record
	for {
		r, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("line %d does not decode as a verdict record: %v", rr.Line(), err)
		}
		if r.System != sys {
			t.Errorf("line %d: system %q, want %q", rr.Line(), r.System, sys)
		}
		recs = append(recs, r)
	}
	if len(recs) != lines {
		t.Errorf("%s: %d lines but %d records", path, lines, len(recs))
	}
	return recs
}

// tallyRecords counts records per class and in all, as the table does.
func tallyRecords(recs []fixture.Record) fixture.ByClass {
	b := fixture.ByClass{}
	for _, r := range recs {
		b.Add(r)
	}
	return b
}

// copyFile copies src to dst, creating dst's folder.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDataset copies the named example fixtures, with their incumbent
// contexts, into a new folder holding fixtures/ and contexts/.
func copyDataset(t *testing.T, ids []string) (fixtures, contexts string) {
	t.Helper()
	root := t.TempDir()
	fixtures, contexts = filepath.Join(root, "fixtures"), filepath.Join(root, "contexts")
	for _, id := range ids {
		copyFile(t, filepath.Join(quarterly, "fixtures", id+".json"), filepath.Join(fixtures, id+".json"))
		files, err := fixture.ContextFiles(filepath.Join(quarterly, "contexts", "incumbent"), id)
		if err != nil || len(files) == 0 {
			t.Fatalf("contexts of %s: %v (%d files)", id, err, len(files))
		}
		for _, f := range files {
			copyFile(t, f, filepath.Join(contexts, id, filepath.Base(f)))
		}
	}
	return fixtures, contexts
}

// folderNames lists the names in dir.
func folderNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// assertNoOutput checks that path was not created and that its folder
// holds nothing else either (atomicfile removes its temporary file when
// the run fails).
func assertNoOutput(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists after a failed run (err %v)", path, err)
	}
	if names := folderNames(t, filepath.Dir(path)); len(names) > 0 {
		t.Errorf("the output folder holds %q after a failed run, want nothing", names)
	}
}

// recordedArgs are the arguments of a check of system sys over the
// example dataset with the recorded judge.
func recordedArgs(sys string, more ...string) []string {
	return append([]string{"check",
		"--fixtures", quarterly + "/fixtures",
		"--contexts", quarterly + "/contexts/" + sys,
		"--system", sys,
		"--judge", "recorded", "--recorded", quarterly + "/judge/recorded.jsonl",
	}, more...)
}

// TestCheckRecordedQuarterly pins the example dataset's per-class table
// under the recorded judge: the numbers examples/quarterly/README.md and
// the issue quote.
func TestCheckRecordedQuarterly(t *testing.T) {
	dir := t.TempDir()
	check := func(sys string) (checkOut, []fixture.Record) {
		t.Helper()
		out := filepath.Join(dir, sys+".jsonl")
		stdout, stderr, code := cli(t, recordedArgs(sys, "-o", out, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sys, code, stderr)
		}
		if stderr != "" {
			t.Errorf("%s: stderr is not a terminal, so it must stay empty (no progress bar), got %q", sys, stderr)
		}
		var res checkOut
		decodeJSON(t, stdout, &res)
		if res.System != sys || res.Output != out {
			t.Errorf("system %q output %q, want %q %q", res.System, res.Output, sys, out)
		}
		recs := readVerdicts(t, out, sys)
		// The table counts what the file holds.
		got := tallyRecords(recs)
		for _, cl := range fixture.Classes {
			c, row := got.Get(cl), res.class(t, string(cl))
			if c.Items != row.Items || c.Verbatim != row.Verbatim || c.Supported != row.Supported ||
				c.Absent != row.Absent || c.Contradicted != row.Contradicted || c.Errors != row.Error || c.Retained() != row.Retained {
				t.Errorf("%s %s: table %+v, verdicts file %+v", sys, cl, row, c)
			}
			if row.Share == nil || *row.Share != float64(row.Retained)/float64(row.Items) {
				t.Errorf("%s %s: retained_share %v, want %d/%d", sys, cl, row.Share, row.Retained, row.Items)
			}
			if iv := row.Interval; iv == nil || iv.Method != "wilson" || !(iv.Lower < *row.Share && *row.Share < iv.Upper) {
				t.Errorf("%s %s: interval %+v does not hold the share", sys, cl, iv)
			}
		}
		return res, recs
	}

	inc, recs := check("incumbent")
	for _, want := range []struct {
		class           string
		retained, items int
	}{
		{"constraint", 71, 80},
		{"commitment", 44, 51},
		{"open_question", 96, 103},
		{"reference", 58, 61},
		{"all", 269, 295},
	} {
		if r := inc.class(t, want.class); r.Retained != want.retained || r.Items != want.items {
			t.Errorf("incumbent %s: %d of %d retained, want %d of %d", want.class, r.Retained, r.Items, want.retained, want.items)
		}
	}
	if n := inc.class(t, "all").Contradicted; n != 2 {
		t.Errorf("incumbent: %d contradictions, want 2", n)
	}
	if inc.Fixtures != 40 || inc.Contexts != 72 || inc.Checks != 295 || inc.Calls != 0 || inc.CacheHits != 0 {
		t.Errorf("incumbent: %d fixtures, %d contexts, %d checks, %d calls, %d cache hits; want 40, 72, 295, 0, 0",
			inc.Fixtures, inc.Contexts, inc.Checks, inc.Calls, inc.CacheHits)
	}
	if len(recs) != 295 {
		t.Errorf("incumbent: %d verdict lines, want 295", len(recs))
	}

	cand, _ := check("candidate")
	if n := cand.class(t, "all").Contradicted; n <= 2 {
		t.Errorf("candidate: %d contradictions, want more than the incumbent's 2", n)
	}
	if n := cand.class(t, "open_question").Retained; n >= 96 {
		t.Errorf("candidate: %d open questions retained, want fewer than the incumbent's 96", n)
	}
}

// TestCheckText checks the text table of the same run: one row per class
// and the total, with the retained count and share.
func TestCheckText(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, stderr, code := cli(t, recordedArgs("incumbent", "-o", out)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"incumbent: 40 fixtures, 72 compacted contexts, 295 checks (0 judge calls, 0 cache hits) → " + out + "\n",
		"class          checks  verbatim  supported  absent  contradicted  error  retained     95% wilson\n",
		"constraint     80      50        21         9       0             0      71 (88.8%)   80.0–94.0%\n",
		"open_question  103     40        56         6       1             0      96 (93.2%)   86.6–96.7%\n",
		"all            295     150       119        24      2             0      269 (91.2%)  87.4–93.9%\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
}

// fakeJudge is an OpenAI chat-completions server that answers the judge's
// questions deterministically from the prompt and counts, per run
// ("phase") and per distinct prompt, the responses it completed and the
// requests it held and never answered.
//
// A request belongs to the phase in which its connection was opened, not
// to the moment it is read: a request the killed process sent just before
// it died may be read after the next run has begun, and must not be
// mistaken for one of that run's.
type fakeJudge struct {
	*httptest.Server

	mu         sync.Mutex
	phase      int
	blockAfter map[int]int // phase → completed responses after which its requests are held (absent: never)
	release    chan struct{}
	released   bool
	open       map[net.Conn]int       // open connections → their phase
	done       map[int]int            // phase → responses completed
	completed  map[int]map[string]int // phase → prompt hash → responses completed
	held       map[int]map[string]int // phase → prompt hash → requests held, never answered
	cut        map[int]int            // phase → requests whose body was cut short
	problems   []string
}

// connPhase is the request context key of the phase of a connection.
type connPhase struct{}

func newFakeJudge(t *testing.T) *fakeJudge {
	f := &fakeJudge{
		blockAfter: map[int]int{}, release: make(chan struct{}), open: map[net.Conn]int{},
		done: map[int]int{}, completed: map[int]map[string]int{}, held: map[int]map[string]int{}, cut: map[int]int{},
	}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		f.mu.Lock()
		defer f.mu.Unlock()
		return context.WithValue(ctx, connPhase{}, f.phase)
	}
	f.Config.ConnState = func(c net.Conn, s http.ConnState) {
		f.mu.Lock()
		defer f.mu.Unlock()
		switch s {
		case http.StateNew:
			f.open[c] = f.phase
		case http.StateClosed, http.StateHijacked:
			delete(f.open, c)
		}
	}
	f.Start()
	t.Cleanup(func() {
		f.unblock() // before Close, which waits for the held handlers
		f.Close()
		for _, p := range f.problems {
			t.Errorf("fake judge server: %s", p)
		}
	})
	return f
}

// setPhase starts counting a new run; blockAfter ≥ 0 holds every request
// of the run that arrives after that many completed responses.
func (f *fakeJudge) setPhase(phase, blockAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.phase = phase
	if blockAfter >= 0 {
		f.blockAfter[phase] = blockAfter
	}
	f.completed[phase], f.held[phase] = map[string]int{}, map[string]int{}
}

// unblock lets the held requests go: they answer 503, to a client that is
// gone, and so do the phase's requests that arrive later.
func (f *fakeJudge) unblock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.released {
		f.released = true
		close(f.release)
	}
}

// waitClosed waits until every connection of phase is closed, so that its
// counts are final.
func (f *fakeJudge) waitClosed(t *testing.T, phase int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.mu.Lock()
		n := 0
		for _, p := range f.open {
			if p == phase {
				n++
			}
		}
		f.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of run %d still open after 20 s", n, phase)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *fakeJudge) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// counts returns copies of a phase's completed and held counts, and the
// number of its requests that were cut short.
func (f *fakeJudge) counts(phase int) (completed, held map[string]int, cut int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return copyCounts(f.completed[phase]), copyCounts(f.held[phase]), f.cut[phase]
}

func copyCounts(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// requests is the number of requests of any phase seen so far.
func (f *fakeJudge) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.cut {
		n += c
	}
	for _, m := range []map[int]map[string]int{f.completed, f.held} {
		for _, p := range m {
			for _, c := range p {
				n += c
			}
		}
	}
	return n
}

func (f *fakeJudge) serve(w http.ResponseWriter, r *http.Request) {
	phase, _ := r.Context().Value(connPhase{}).(int)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.problem("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+os.Getenv(noKeyEnv) {
		f.problem("Authorization %q, not the fake key of %s", got, noKeyEnv)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// A client killed while sending: the request is cut short.
		f.mu.Lock()
		f.cut[phase]++
		f.mu.Unlock()
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Temperature *float64 `json:"temperature"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.problem("request body: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if req.Model != "fake" || len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Temperature == nil || *req.Temperature != 0 {
		f.problem("request is not one user message to model fake at temperature 0: %+v", req)
	}
	if len(req.Messages) == 0 {
		http.Error(w, "no messages", http.StatusBadRequest)
		return
	}
	prompt := req.Messages[0].Content
	reply, ok := fakeReply(prompt)
	if !ok {
		f.problem("a prompt that is neither the verdict nor the agreement question: %.200q", prompt)
	}
	sum := sha256.Sum256([]byte(prompt))
	key := hex.EncodeToString(sum[:])

	f.mu.Lock()
	if n, ok := f.blockAfter[phase]; ok && f.done[phase] >= n {
		f.held[phase][key]++
		release := f.release
		f.mu.Unlock()
		<-release
		http.Error(w, "held until the client was killed", http.StatusServiceUnavailable)
		return
	}
	f.done[phase]++
	f.completed[phase][key]++
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply},
		}},
	})
}

// agreementWording is how the agreement question (judge/prompt.go)
// starts; the verdict question holds a line "Question: <probe>".
const agreementWording = "Two answers were given to the same question. Do these two answers to the question agree?"

// fakeReply answers a judge prompt from its hash: the verdict question
// gets supported (with an answer unique to the prompt, so each supported
// verdict asks its own agreement question), absent or contradicted; the
// agreement question gets yes or no.
func fakeReply(prompt string) (string, bool) {
	sum := sha256.Sum256([]byte(prompt))
	if strings.HasPrefix(prompt, agreementWording) {
		if sum[0]%2 == 0 {
			return `{"agree": "yes"}`, true
		}
		return `{"agree": "no"}`, true
	}
	if !strings.Contains(prompt, "\nQuestion: ") {
		return "", false
	}
	switch sum[0] % 3 {
	case 0:
		return fmt.Sprintf(`{"reasoning": "fake", "answer": "answer %x", "verdict": "supported"}`, sum[:4]), true
	case 1:
		return `{"reasoning": "fake", "answer": "", "verdict": "absent"}`, true
	default:
		return `{"reasoning": "fake", "answer": "two", "verdict": "contradicted"}`, true
	}
}

// cacheEntries counts the entries in a judge cache folder: the *.json
// files in its shards, not the .tmp-* files of writes in progress.
func cacheEntries(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // the folder is not there yet
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	return n
}

// buildTally builds the tally binary into a temporary folder.
func buildTally(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the tally binary for the subprocess test")
	}
	bin := filepath.Join(t.TempDir(), "tally")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs the built tally to completion.
func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running tally: %v", err)
	}
	return o.String(), e.String(), code
}

// judgedArgs are the arguments of a check of system incumbent with the
// fake OpenAI server.
func judgedArgs(srv *fakeJudge, fixtures, contexts, cache string, more ...string) []string {
	return append([]string{"check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "openai", "--base-url", srv.URL + "/v1", "--model", "fake", "--api-key-env", noKeyEnv,
		"--cache", cache}, more...)
}

// TestCheckKillAndResume is the test: a subprocess killed with
// SIGKILL half-way through a run, then re-run, writes the same verdicts
// file as an uninterrupted run, and no completed judge call is repeated.
func TestCheckKillAndResume(t *testing.T) {
	bin := buildTally(t)
	fixtures, contexts := copyDataset(t, judgedFixtures)
	srv := newFakeJudge(t)
	const concurrency = 2
	args := func(cache, out string) []string {
		return judgedArgs(srv, fixtures, contexts, cache, "--concurrency", fmt.Sprint(concurrency), "--format", "json", "-o", out)
	}
	root := t.TempDir()
	out1, out2 := filepath.Join(root, "run1", "verdicts.jsonl"), filepath.Join(root, "run2", "verdicts.jsonl")
	cache1, cache2 := filepath.Join(root, "cache1"), filepath.Join(root, "cache2")
	for _, d := range []string{filepath.Dir(out1), filepath.Dir(out2)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// Run 1: uninterrupted, fresh cache: the reference verdicts.
	srv.setPhase(1, -1)
	stdout, stderr, code := runBinary(t, bin, args(cache1, out1)...)
	if code != 0 || stderr != "" {
		t.Fatalf("run 1: exit %d, stderr %q", code, stderr)
	}
	var res1 checkOut
	decodeJSON(t, stdout, &res1)
	want, _, _ := srv.counts(1)
	total := 0
	for p, n := range want {
		total += n
		if n != 1 {
			t.Errorf("run 1 asked prompt %.12s %d times", p, n)
		}
	}
	if total < 20 || res1.Calls != total || res1.CacheHits != 0 || cacheEntries(cache1) != total {
		t.Fatalf("run 1: %d calls at the server, %d reported, %d cache hits, %d cache entries; want a few dozen, equal, 0, equal",
			total, res1.Calls, res1.CacheHits, cacheEntries(cache1))
	}
	reference, err := os.ReadFile(out1)
	if err != nil {
		t.Fatal(err)
	}
	recs := readVerdicts(t, out1, "incumbent")
	verdicts := tallyRecords(recs).Total()
	if verdicts.Supported == 0 || verdicts.Absent == 0 || verdicts.Contradicted == 0 || verdicts.Errors != 0 {
		t.Fatalf("run 1: the fake judge should give every verdict but error, got %+v", verdicts)
	}

	// Run 2: the server holds every request after half the calls; once
	// their replies are all in the cache, the process is killed.
	half := total / 2
	srv.setPhase(2, half)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args(cache2, out2)...)
	var stdout2, stderr2 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout2, &stderr2
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(30 * time.Second)
	for cacheEntries(cache2) < half {
		select {
		case err := <-exited:
			t.Fatalf("run 2 ended before it was killed (%v) with %d of %d cache entries: %s", err, cacheEntries(cache2), half, stderr2.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("run 2: the cache holds %d entries after 30 s, want %d", cacheEntries(cache2), half)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil {
		t.Fatal("run 2 exited cleanly, though it was killed")
	}
	// Let the held requests go and wait for the dead process's
	// connections to close: a request it sent just before the kill and
	// the server had not read yet is counted as held too.
	srv.unblock()
	srv.waitClosed(t, 2)
	completed2, held2, cut2 := srv.counts(2)
	inFlight := cut2 // a request being sent at the kill is cut short
	for _, n := range held2 {
		inFlight += n
	}
	if len(completed2) != half || inFlight > concurrency {
		t.Errorf("run 2: %d prompts completed, %d requests in flight at the kill; want %d, at most %d", len(completed2), inFlight, half, concurrency)
	}
	if n := cacheEntries(cache2); n != half {
		t.Errorf("run 2: %d cache entries after the kill, want %d", n, half)
	}
	// No half-written output: the verdicts file does not exist; all that
	// may be left is atomicfile's dot-prefixed temporary file.
	if _, err := os.Lstat(out2); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("run 2 was killed, yet %s exists (err %v)", out2, err)
	}
	for _, name := range folderNames(t, filepath.Dir(out2)) {
		if !strings.HasPrefix(name, ".verdicts.jsonl.tmp-") {
			t.Errorf("run 2 left %q in the output folder; only atomicfile's .verdicts.jsonl.tmp-* may remain", name)
		}
	}
	if stdout2.Len() != 0 {
		t.Errorf("run 2 printed %q before it was killed", stdout2.String())
	}

	// Run 3: the same command and cache, to completion.
	srv.setPhase(3, -1)
	stdout, stderr, code = runBinary(t, bin, args(cache2, out2)...)
	if code != 0 || stderr != "" {
		t.Fatalf("run 3: exit %d, stderr %q", code, stderr)
	}
	var res3 checkOut
	decodeJSON(t, stdout, &res3)
	got, err := os.ReadFile(out2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, reference) {
		t.Errorf("the resumed run's verdicts differ from the uninterrupted run's:\n--- resumed\n%s\n--- uninterrupted\n%s", got, reference)
	}
	if res3.Calls != total-half || res3.CacheHits != half {
		t.Errorf("run 3: %d judge calls and %d cache hits, want %d and %d", res3.Calls, res3.CacheHits, total-half, half)
	}
	completed3, held3, cut3 := srv.counts(3)
	if len(held3) != 0 || cut3 != 0 {
		t.Errorf("run 3: %d requests held and %d cut short, want none", len(held3), cut3)
	}
	// Across runs 2 and 3 every prompt of run 1 was answered exactly once,
	// and no other prompt was asked.
	for p := range want {
		if n := completed2[p] + completed3[p]; n != 1 {
			t.Errorf("prompt %.12s answered %d times across the killed and the resumed run, want once (run 2: %d, run 3: %d)",
				p, n, completed2[p], completed3[p])
		}
	}
	for _, m := range []map[string]int{completed2, completed3, held2} {
		for p := range m {
			if want[p] == 0 {
				t.Errorf("prompt %.12s was asked in runs 2-3 but never in run 1", p)
			}
		}
	}
	// Only the requests in flight at the kill may be asked again.
	repeats := 0
	for p := range completed3 {
		if held2[p] > 0 {
			repeats++
		}
	}
	if repeats > inFlight {
		t.Errorf("run 3 repeated %d requests, but only %d were in flight at the kill", repeats, inFlight)
	}
	t.Logf("%d calls: %d answered before the kill, %d in flight at it, %d after (%d of them repeats)", total, half, inFlight, len(completed3), repeats)
}

// TestCheckDryRun: before any run a dry run finds every judge question
// uncached; after a complete run with the same cache, every one cached;
// and it never calls the judge.
func TestCheckDryRun(t *testing.T) {
	fixtures, contexts := copyDataset(t, judgedFixtures)
	srv := newFakeJudge(t)
	srv.setPhase(1, -1)
	cache := filepath.Join(t.TempDir(), "cache")
	judged := func(more ...string) []string {
		return judgedArgs(srv, fixtures, contexts, cache, append([]string{"--concurrency", "4"}, more...)...)
	}

	dry := func(stage string) dryRunOut {
		t.Helper()
		stdout, stderr, code := cli(t, judged("--dry-run", "--format", "json")...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: dry run: exit %d, stderr %q", stage, code, stderr)
		}
		var m map[string]any
		decodeJSON(t, stdout, &m)
		for _, k := range []string{"system", "fixtures", "contexts", "checks", "verbatim", "judge_questions", "cached", "verdict_calls", "agreement_calls", "agreement_calls_unknown"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: dry-run JSON lacks %q", stage, k)
			}
		}
		var d dryRunOut
		decodeJSON(t, stdout, &d)
		if d.System != "incumbent" || d.Fixtures != len(judgedFixtures) || d.Checks != d.Verbatim+d.Questions {
			t.Errorf("%s: %+v: want system incumbent, %d fixtures, checks = verbatim + questions", stage, d, len(judgedFixtures))
		}
		return d
	}

	before := dry("before any run")
	q := before.Questions
	if q == 0 || before.Cached != 0 || before.Calls != q || before.AgreementCalls != 0 || before.AgreementUnknown != q {
		t.Errorf("before any run: %+v; want all %d questions uncached, %d verdict calls, 0 agreement calls known, %d unknown", before, q, q, q)
	}
	stdout, _, code := cli(t, judged("--dry-run")...)
	if code != 0 {
		t.Fatalf("text dry run: exit %d", code)
	}
	for _, want := range []string{
		fmt.Sprintf("dry run for incumbent: %d fixtures, %d compacted contexts, %d checks\n", before.Fixtures, before.Contexts, before.Checks),
		fmt.Sprintf("  %d verbatim (no judge call)\n", before.Verbatim),
		fmt.Sprintf("  %d judge questions: 0 already cached, %d verdict calls to make\n", q, q),
		fmt.Sprintf("  agreement calls: 0 needed, up to %d more for uncached verdicts\n", q),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text dry run lacks %q:\n%s", want, stdout)
		}
	}
	if n := srv.requests(); n != 0 {
		t.Fatalf("the dry runs sent %d requests to the judge, want none", n)
	}

	// A complete run with the same cache.
	out := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, stderr, code := cli(t, judged("-o", out, "--format", "json")...)
	if code != 0 || stderr != "" {
		t.Fatalf("run: exit %d, stderr %q", code, stderr)
	}
	var res checkOut
	decodeJSON(t, stdout, &res)
	calls := srv.requests()
	if res.Calls != calls || res.Checks != before.Checks {
		t.Errorf("run: %d calls reported, %d at the server; %d checks, the dry run said %d", res.Calls, calls, res.Checks, before.Checks)
	}
	c := tallyRecords(readVerdicts(t, out, "incumbent")).Total()
	if c.Items-c.Verbatim != q || c.Verbatim != before.Verbatim {
		t.Errorf("run: %d verbatim and %d judged verdicts; the dry run said %d and %d", c.Verbatim, c.Items-c.Verbatim, before.Verbatim, q)
	}

	after := dry("after a complete run")
	if after.Questions != q || after.Cached != q || after.Calls != 0 || after.AgreementCalls != 0 || after.AgreementUnknown != 0 {
		t.Errorf("after a complete run: %+v; want all %d questions cached and no calls", after, q)
	}
	stdout, _, _ = cli(t, judged("--dry-run")...)
	if want := fmt.Sprintf("  %d judge questions: %d already cached, 0 verdict calls to make\n", q, q); !strings.Contains(stdout, want) {
		t.Errorf("text dry run lacks %q:\n%s", want, stdout)
	}
	if n := srv.requests(); n != calls {
		t.Errorf("the dry runs after the run sent %d requests, want none", n-calls)
	}

	// And a second run takes everything from the cache.
	stdout, _, code = cli(t, judged("-o", out, "--format", "json")...)
	var again checkOut
	decodeJSON(t, stdout, &again)
	if code != 0 || again.Calls != 0 || again.CacheHits != calls || srv.requests() != calls {
		t.Errorf("second run: exit %d, %d calls, %d cache hits; want 0 calls and %d hits", code, again.Calls, again.CacheHits, calls)
	}
}

// TestCheckDryRunRecorded: with the recorded judge a dry run counts the
// questions, says no call will be made, and writes nothing.
func TestCheckDryRunRecorded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, stderr, code := cli(t, recordedArgs("incumbent", "--dry-run", "--format", "json", "-o", out)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var d dryRunOut
	decodeJSON(t, stdout, &d)
	if d.Fixtures != 40 || d.Contexts != 72 || d.Checks != 295 || d.Verbatim != 150 || d.Questions != 145 {
		t.Errorf("%+v: want 40 fixtures, 72 contexts, 295 checks, 150 verbatim, 145 judge questions", d)
	}
	// The recorded judge answers from its file: no verdict or agreement
	// call is made, so none may be announced.
	if d.Calls != 0 || d.AgreementCalls != 0 || d.AgreementUnknown != 0 {
		t.Errorf("the recorded judge makes no calls, but the dry run announces %d verdict calls, %d agreement calls and up to %d more",
			d.Calls, d.AgreementCalls, d.AgreementUnknown)
	}
	if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dry run wrote %s", out)
	}
	stdout, _, _ = cli(t, recordedArgs("incumbent", "--dry-run")...)
	if !strings.Contains(stdout, "145 judge questions") || strings.Contains(stdout, "145 verdict calls to make") {
		t.Errorf("text dry run must count 145 judge questions and announce no calls:\n%s", stdout)
	}
}

// lineRE is one problem line on stderr: "tally: FILE:LINE:COL: what".
func lineRE(file string) *regexp.Regexp {
	return regexp.MustCompile(`^tally: ` + regexp.QuoteMeta(file) + `:\d+:\d+: \S`)
}

func TestCheckBadInput(t *testing.T) {
	t.Run("bad fixture", func(t *testing.T) {
		dir := t.TempDir()
		good := filepath.Join(dir, "sess_2026_01_06_75ad.json")
		bad := filepath.Join(dir, "several.json")
		copyFile(t, filepath.Join(quarterly, "fixtures", "sess_2026_01_06_75ad.json"), good)
		copyFile(t, filepath.Join("..", "..", "fixture", "testdata", "bad", "several.json"), bad)
		out := filepath.Join(t.TempDir(), "v.jsonl")
		args := recordedArgs("incumbent", "-o", out)
		args[2] = dir // --fixtures
		stdout, stderr, code := cli(t, args...)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if stdout != "" {
			t.Errorf("stdout %q, want nothing", stdout)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if len(lines) != 7 {
			t.Errorf("%d lines on stderr, want one per problem, 7:\n%s", len(lines), stderr)
		}
		re := lineRE(bad)
		for _, l := range lines {
			if !re.MatchString(l) {
				t.Errorf("stderr line %q is not %q", l, re)
			}
		}
		assertNoOutput(t, out)
	})

	t.Run("malformed context", func(t *testing.T) {
		fixtures, contexts := copyDataset(t, judgedFixtures[:2])
		// The second fixture's last context: the first fixture's records
		// are written (to the temporary file) before it is read.
		files, err := fixture.ContextFiles(contexts, judgedFixtures[1])
		if err != nil || len(files) < 2 {
			t.Fatalf("%v, %d files", err, len(files))
		}
		bad := files[len(files)-1]
		if err := os.WriteFile(bad, []byte("{\"conversation_id\": \""+judgedFixtures[1]+"\",\n \"turn\": [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		outDir := t.TempDir()
		out := filepath.Join(outDir, "v.jsonl")
		const previous = "previous verdicts, not to be touched\n"
		if err := os.WriteFile(out, []byte(previous), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, judgeArgs := range [][]string{
			{"--judge", "recorded", "--recorded", quarterly + "/judge/recorded.jsonl"},
			{"--judge", "command", "--command", "sh", "--command-arg", "-c", "--command-arg", `cat >/dev/null; echo '{"verdict": "absent"}'`, "--cache", ""},
		} {
			if judgeArgs[1] == "command" {
				if _, err := exec.LookPath("sh"); err != nil {
					continue
				}
			}
			args := append([]string{"check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent", "-o", out}, judgeArgs...)
			stdout, stderr, code := cli(t, args...)
			if code != 1 {
				t.Errorf("%s: exit %d, want 1", judgeArgs[1], code)
			}
			if stdout != "" {
				t.Errorf("%s: stdout %q, want nothing", judgeArgs[1], stdout)
			}
			re := lineRE(bad)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			for _, l := range lines {
				if !re.MatchString(l) {
					t.Errorf("%s: stderr line %q does not name the context file as %q", judgeArgs[1], l, re)
				}
			}
			b, err := os.ReadFile(out)
			if err != nil || string(b) != previous {
				t.Errorf("%s: the existing output file now holds %q (err %v), want it untouched", judgeArgs[1], b, err)
			}
			if info, err := os.Stat(out); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("%s: the existing output file's mode is %v (err %v), want 0600", judgeArgs[1], info.Mode(), err)
			}
			if names := folderNames(t, outDir); !slices.Equal(names, []string{"v.jsonl"}) {
				t.Errorf("%s: the output folder holds %q, want only v.jsonl", judgeArgs[1], names)
			}
		}
	})

	tests := []struct {
		name string
		args []string
		code int
		msg  string // the whole of stderr, or "" to check only its shape
	}{
		{"no --judge", []string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent"},
			2, "tally: required flag(s) \"judge\" not set (see tally --help)\n"},
		{"recorded without --recorded", []string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent", "--judge", "recorded"},
			2, "tally: --judge recorded needs --recorded FILE (see tally --help)\n"},
		{"unknown judge", []string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent", "--judge", "gpt-4o"},
			2, "tally: --judge \"gpt-4o\": want openai, anthropic, command or recorded (see tally --help)\n"},
		{"command without --command", []string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent", "--judge", "command"},
			2, "tally: --judge command needs --command PROGRAM (see tally --help)\n"},
		{"missing fixtures", []string{"check", "--fixtures", "testdata/check/no-such-folder", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent", "--judge", "recorded", "--recorded", quarterly + "/judge/recorded.jsonl"},
			1, ""},
		{"missing recorded file", []string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent", "--system", "incumbent", "--judge", "recorded", "--recorded", "testdata/check/no-such-file.jsonl"},
			1, ""},
		{"bad confidence: a usage error", recordedArgs("incumbent", "--confidence", "95"), 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			stdout, stderr, code := cli(t, append(slices.Clip(tt.args), "-o", out)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if tt.msg != "" && stderr != tt.msg {
				t.Errorf("stderr %q\nwant    %q", stderr, tt.msg)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tally: ") {
				t.Errorf("stderr must be one line starting with \"tally: \", got %q", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			assertNoOutput(t, out)
		})
	}

	t.Run("no -o", func(t *testing.T) {
		stdout, stderr, code := cli(t, recordedArgs("incumbent")...)
		if code != 2 || stdout != "" || stderr != "tally: -o VERDICTS.jsonl is required (or --dry-run) (see tally --help)\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
}

// TestCheckNoContexts: a --contexts folder that holds no context of any
// fixture — a typo, or the folder above the system's — must not pass as a
// check of zero items that writes an empty verdicts file and exits 0.
func TestCheckNoContexts(t *testing.T) {
	for _, tt := range []struct{ name, contexts string }{
		{"missing folder", filepath.Join(t.TempDir(), "no-such-contexts")},
		{"the folder above the system's", quarterly + "/contexts"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			args := recordedArgs("incumbent", "-o", out)
			args[4] = tt.contexts // --contexts
			stdout, stderr, code := cli(t, args...)
			if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tally: ") || !strings.Contains(stderr, tt.contexts) {
				t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 1 and one line naming %s", code, stderr, stdout, tt.contexts)
			}
			assertNoOutput(t, out)
		})
	}
}

func TestFixturesValidate(t *testing.T) {
	stdout, stderr, code := cli(t, "fixtures", "validate", quarterly+"/fixtures")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "ok: 40 fixtures, 229 items, 59 constraint, 42 commitment, 84 open_question, 44 reference\n"; stdout != want {
		t.Errorf("stdout %q\nwant   %q", stdout, want)
	}
	stdout, _, code = cli(t, "fixtures", "validate", "--format", "json", quarterly+"/fixtures")
	var v struct {
		Fixtures int            `json:"fixtures"`
		Items    int            `json:"items"`
		ByClass  map[string]int `json:"by_class"`
	}
	decodeJSON(t, stdout, &v)
	if code != 0 || v.Fixtures != 40 || v.Items != 229 || v.ByClass["open_question"] != 84 {
		t.Errorf("JSON: exit %d, %+v", code, v)
	}

	bad := filepath.Join("..", "..", "fixture", "testdata", "bad", "several.json")
	stdout, stderr, code = cli(t, "fixtures", "validate", bad)
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 7 {
		t.Errorf("%d lines on stderr, want 7:\n%s", len(lines), stderr)
	}
	re := lineRE(bad)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("stderr line %q is not %q", l, re)
		}
	}
	if !strings.HasPrefix(stderr, "tally: "+bad+":4:27: compactions_expected: must not be negative, got -2\n") {
		t.Errorf("first problem:\n%s", stderr)
	}
}

// TestNoProgressBarOffTerminal: the bar is drawn only on a terminal.
func TestNoProgressBarOffTerminal(t *testing.T) {
	if newBar(&bytes.Buffer{}) != nil {
		t.Error("a progress bar on a bytes.Buffer")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newBar(f) != nil {
		t.Error("a progress bar on a regular file")
	}
}

// hostile is text that a shell, a format string or a template would
// interpret.
const hostile = "%s %d {{.Probe}} $(rm -rf /) `id` \"quotes\" 'single' \\ \n; | & > /tmp/x"

// TestCheckCommandHostileText: fixture text reaches the command judge on
// its standard input, byte for byte inside the prompt, and never as an
// argument.
func TestCheckCommandHostileText(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "check", "judge.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const id = "sess_hostile"
	probe := "Does the agent still refuse to run " + hostile + "?"
	fix := fixture.Fixture{
		ConversationID: id, Turns: 10, CompactionsExpected: 1,
		MustSurvive: []fixture.Item{{
			ID: "h1", Class: fixture.Constraint, Turn: 2,
			Literal: "never run " + hostile, Probe: probe, Expect: "yes",
		}},
	}
	b, err := json.MarshalIndent(fix, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join(dir, "fixtures", id+".json")
	copyBytes(t, fixtures, b)
	ctxJSON, err := json.Marshal(map[string]any{
		"conversation_id": id, "compaction": 1, "turn": 6,
		"messages": []map[string]string{
			{"role": "user", "content": "Summary of turns 1-5: the user asked the agent to refuse " + hostile},
			{"role": "assistant", "content": "{{.Context}} %v ${HOME} — noted."},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	contexts := filepath.Join(dir, "contexts")
	ctxFile := filepath.Join(contexts, id, "1.json")
	copyBytes(t, ctxFile, ctxJSON)

	promptFile, argsFile := filepath.Join(dir, "prompt.txt"), filepath.Join(dir, "args.txt")
	t.Setenv("TALLY_TEST_PROMPT", promptFile)
	t.Setenv("TALLY_TEST_ARGS", argsFile)
	out := filepath.Join(dir, "v.jsonl")
	stdout, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "command", "--command", "sh", "--command-arg", script, "--cache", filepath.Join(dir, "cache"), "-o", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	recs := readVerdicts(t, out, "incumbent")
	if len(recs) != 1 || recs[0].Verdict != fixture.Supported || recs[0].Answer != "yes" || recs[0].Judge != "command/sh "+script {
		t.Fatalf("records %+v, want one supported, answer yes, judge command/sh %s", recs, script)
	}

	prompt, err := os.ReadFile(promptFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := fixture.LoadContext(ctxFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := judge.DefaultTemplate().Render(probe, fixture.Render(c))
	if err != nil {
		t.Fatal(err)
	}
	if string(prompt) != want {
		t.Errorf("the command read\n%q\nwant the rendered prompt\n%q", prompt, want)
	}
	if !bytes.Contains(prompt, []byte("Question: "+probe+"\n")) {
		t.Errorf("the probe is not in the prompt byte for byte:\n%s", prompt)
	}
	if !bytes.Contains(prompt, []byte("refuse "+hostile+"\n")) {
		t.Errorf("the context's text is not in the prompt byte for byte:\n%s", prompt)
	}

	argv, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(argv) != script+"\n" {
		t.Errorf("the command's arguments were %q, want only the script %q", argv, script)
	}
	for _, piece := range []string{"%s", "{{", "rm -rf", "quotes", "refuse"} {
		if bytes.Contains(argv, []byte(piece)) {
			t.Errorf("an argument of the command holds %q: %q", piece, argv)
		}
	}
}

// copyBytes writes b to path, creating its folder.
func copyBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckIncompleteShare: when the judge fails, the share of a class is
// not a measurement — it is only bounded (every error absent, or every
// error retained) and no interval is printed.
func TestCheckIncompleteShare(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "broken.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho 'no JSON here'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cli(t, "check", "--fixtures", quarterly+"/fixtures", "--contexts", quarterly+"/contexts/incumbent",
		"--system", "incumbent", "--judge", "command", "--command", script, "--reasks", "0", "--cache", "",
		"--format", "json", "-o", filepath.Join(dir, "v.jsonl"))
	if code != 4 {
		t.Fatalf("exit %d, want 4 (incomplete): %s", code, stderr)
	}
	var out struct {
		Classes []struct {
			Class    string
			Items    int
			Error    int
			Share    *float64 `json:"retained_share"`
			Interval *struct{ Lower, Upper float64 }
			Complete bool
			Range    *struct{ Lower, Upper float64 } `json:"retained_share_range"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Classes {
		if c.Class != "constraint" {
			continue
		}
		// 50 of the 80 constraint checks are verbatim (no judge); the 30
		// others all fail.
		if c.Error != 30 || c.Complete || c.Share != nil || c.Interval != nil || c.Range == nil ||
			c.Range.Lower != 50.0/80 || c.Range.Upper != 1 {
			t.Errorf("constraint row %+v (range %+v): want 30 errors, incomplete, no share or interval, range 50/80–80/80", c, c.Range)
		}
		return
	}
	t.Fatal("no constraint row")
}

// TestCheckNothingToCheck: fixtures that hold no item (a review that
// rejected every candidate, a new user's CI trial) are an error, exit 1,
// and no verdicts file is written: a CI step must not pass on a check of
// nothing.
func TestCheckNothingToCheck(t *testing.T) {
	dir := t.TempDir()
	fx := filepath.Join(dir, "fixtures")
	if err := os.MkdirAll(fx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx, "s1.json"), []byte(`{"conversation_id": "s1", "turns": 4, "compactions_expected": 1, "must_survive": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := filepath.Join(dir, "contexts", "s1")
	if err := os.MkdirAll(ctx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctx, "1.json"), []byte(`{"conversation_id": "s1", "compaction": 1, "turn": 2, "system": "", "messages": [{"role": "user", "content": "a summary"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v.jsonl")
	_, errOut, code := repCLI(t, "check", "--fixtures", fx, "--contexts", filepath.Join(dir, "contexts"), "--system", "a",
		"--judge", "command", "--command", "../../examples/judge-command/judge.sh", "--cache", "", "-o", out)
	if code != 1 || !strings.Contains(errOut, "nothing to check: no item of the 1 fixture is live at a compaction") {
		t.Errorf("exit %d, stderr %q; want 1 and the reason", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the verdicts file was written: %v", err)
	}
	// A dry run fails as the check would (a re-check trial: it passed).
	_, errOut, code = repCLI(t, "check", "--fixtures", fx, "--contexts", filepath.Join(dir, "contexts"), "--system", "a",
		"--judge", "command", "--command", "../../examples/judge-command/judge.sh", "--cache", "", "--dry-run")
	if code != 1 || !strings.Contains(errOut, "nothing to check") {
		t.Errorf("dry run: exit %d, stderr %q; want 1 and the reason", code, errOut)
	}
}

// TestCheckFixturesAgentLog: an agent log given as --fixtures is one
// line saying so, gzipped or not (a re-check trial got a problem per
// record, 12,743 lines), as fixtures validate says.
func TestCheckFixturesAgentLog(t *testing.T) {
	log := filepath.Join("testdata", "draftquarter", "session.jsonl.gz")
	_, errOut, code := repCLI(t, "check", "--fixtures", log, "--contexts", t.TempDir(), "--system", "a",
		"--judge", "command", "--command", "../../examples/judge-command/judge.sh", "--cache", "", "-o", filepath.Join(t.TempDir(), "v.jsonl"))
	want := "tally: --fixtures " + log + ": looks like an agent log (gzipped: fixtures are plain JSON), not fixtures: tally fixtures draft " + log + " -o DIR drafts fixtures from it\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	// A dry run says the same (a second re-check trial).
	_, errOut, code = repCLI(t, "check", "--fixtures", log, "--contexts", t.TempDir(), "--system", "a",
		"--judge", "command", "--command", "../../examples/judge-command/judge.sh", "--cache", "", "--dry-run")
	if code != 1 || errOut != want {
		t.Errorf("dry run: exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
}
