package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// writeScript writes an executable sh script.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	path := filepath.Join(t.TempDir(), "judge.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// commandArgs are the arguments of a check of the example's incumbent
// with a command judge and no cache.
func commandArgs(script, out string, more ...string) []string {
	return append([]string{"check", "--fixtures", quarterly + "/fixtures", "--contexts", quarterly + "/contexts/incumbent",
		"--system", "incumbent", "--judge", "command", "--command", script, "--cache", "", "-o", out}, more...)
}

// TestCheckExitCodes: check writes its verdicts and exits 4 when more are
// error than --max-errors allows, naming the count and the most common
// reason; before, a judge that failed every call exited 0.
func TestCheckExitCodes(t *testing.T) {
	failing := writeScript(t, "cat >/dev/null\necho 'model server unreachable' >&2\nexit 1\n")
	absent := writeScript(t, "cat >/dev/null\necho '{\"reasoning\": \"r\", \"answer\": \"\", \"verdict\": \"absent\"}'\n")
	// 145 of the example incumbent's 295 checks go to the judge.
	tests := []struct {
		reason string
		script string
		more   []string
		code   int
		stderr *regexp.Regexp // nil: empty
	}{
		{"every call fails: incomplete", failing, nil, 4,
			regexp.MustCompile(`^tally: incomplete: 145 error verdicts of 295 checks, more than --max-errors 0 allows; the most common reasons: \d+× "judge unavailable", \d+× "judge call failed: command/\S+: exit status 1: \\"model server unreachable\\""\n$`)},
		{"every call fails, breaker off: one reason", failing, []string{"--breaker", "0"}, 4,
			regexp.MustCompile(`^tally: incomplete: 145 error verdicts of 295 checks, more than --max-errors 0 allows; the most common reasons: 145× "judge call failed: `)},
		{"tolerated up to --max-errors", failing, []string{"--max-errors", "145"}, 0, nil},
		{"one more than tolerated", failing, []string{"--max-errors", "144"}, 4, regexp.MustCompile(`^tally: incomplete: 145 error verdicts of 295 checks, more than --max-errors 144 allows`)},
		{"a judge that answers: complete", absent, nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			stdout, stderr, code := cli(t, commandArgs(tt.script, out, tt.more...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			if tt.stderr == nil && stderr != "" || tt.stderr != nil && !tt.stderr.MatchString(stderr) {
				t.Errorf("stderr %q\nwant %v", stderr, tt.stderr)
			}
			// The verdicts are written either way.
			recs := readVerdicts(t, out, "incumbent")
			if len(recs) != 295 {
				t.Errorf("%d verdicts written, want 295", len(recs))
			}
			if !strings.Contains(stdout, "incumbent: 40 fixtures, 72 compacted contexts, 295 checks") {
				t.Errorf("stdout:\n%s", stdout)
			}
		})
	}
	// JSON says it too.
	out := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, _, code := cli(t, commandArgs(failing, out, "--format", "json")...)
	var v struct {
		Errors, MaxErrors int
		Complete          bool
		Reasons           []struct {
			Reason string
			Count  int
		} `json:"error_reasons"`
	}
	decodeJSON(t, stdout, &v)
	if code != 4 || v.Errors != 145 || v.Complete || len(v.Reasons) != 2 || v.Reasons[0].Count+v.Reasons[1].Count != 145 {
		t.Errorf("JSON: exit %d, %+v", code, v)
	}
}

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestCheckDeadServer is the must-show: the example's check
// against a server that is not there, with the default settings, ends in
// well under a minute (not after hours of retries), exits 4 and records
// every judged item as error.
func TestCheckDeadServer(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.jsonl")
	start := time.Now()
	stdout, stderr, code := cli(t, "check", "--fixtures", quarterly+"/fixtures", "--contexts", quarterly+"/contexts/incumbent",
		"--system", "incumbent", "--judge", "openai", "--base-url", "http://"+closedPort(t)+"/v1", "--model", "m",
		"--api-key-env", noKeyEnv, "--cache", filepath.Join(t.TempDir(), "cache"), "-o", out)
	took := time.Since(start)
	t.Logf("dead server: exit %d after %v", code, took)
	if took > 60*time.Second {
		t.Errorf("took %v, want under 60 s", took)
	}
	if code != 4 || !strings.HasPrefix(stderr, "tally: incomplete: 145 error verdicts of 295 checks") || !strings.Contains(stderr, `"judge unavailable"`) {
		t.Errorf("exit %d, stderr %q; want 4 and the judge unavailable", code, stderr)
	}
	recs := readVerdicts(t, out, "incumbent")
	c := tallyRecords(recs).Total()
	if c.Items != 295 || c.Verbatim != 150 || c.Errors != 145 {
		t.Errorf("verdicts %+v, want 150 verbatim and the 145 others error", c)
	}
	if !strings.Contains(stdout, "145 error verdicts") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// TestCheckMisconfigured: a judge every question would fail the same way
// — a wrong key, here — stops the run at once: exit 1, one line with the
// API's code and message and the key's variable, no verdicts file, and
// not one request per question (a new user's trial sent 210 401s).
func TestCheckMisconfigured(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		requests.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error": {"message": "Incorrect API key provided: sk-fake***ests.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`)
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "v.jsonl")
	_, stderr, code := cli(t, "check", "--fixtures", quarterly+"/fixtures", "--contexts", quarterly+"/contexts/incumbent",
		"--system", "incumbent", "--judge", "openai", "--base-url", srv.URL+"/v1", "--model", "m",
		"--api-key-env", noKeyEnv, "--cache", "", "--concurrency", "2", "-o", out)
	want := "HTTP 401 Unauthorized: invalid_api_key: Incorrect API key provided: sk-fake***ests. (the key is " + noKeyEnv + "'s)"
	if code != exitInput || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 || requests.Load() > 4 {
		t.Errorf("exit %d after %d requests, stderr %q; want exit 1 and one line with %q", code, requests.Load(), stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a verdicts file was written: %v", err)
	}
}

// TestCheckMaxRetryAfter: a server asking to wait an hour is waited for
// --max-retry-after at most.
func TestCheckMaxRetryAfter(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if requests.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [{"message": {"content": "{\"reasoning\": \"r\", \"answer\": \"\", \"verdict\": \"absent\"}"}}]}`)
	}))
	t.Cleanup(srv.Close)
	fixtures, contexts := copyDataset(t, judgedFixtures[:1])
	start := time.Now()
	stdout, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "openai", "--base-url", srv.URL+"/v1", "--model", "m", "--api-key-env", noKeyEnv, "--cache", "",
		"--concurrency", "1", "--max-retry-after", "1s", "-o", filepath.Join(t.TempDir(), "v.jsonl"))
	took := time.Since(start)
	if code != 0 || took > 20*time.Second || requests.Load() < 2 {
		t.Errorf("exit %d after %v and %d requests (stderr %q); want 0 after about a second", code, took, requests.Load(), stderr)
	}
	// The requests, the retry among them, are counted apart from the
	// questions, and the 429 is said (a trial counting cost read the
	// questions as requests, and at --concurrency 8 lost questions to a
	// server serving two).
	n := requests.Load()
	if !strings.Contains(stdout, fmt.Sprintf("; %d HTTP requests) ", n)) ||
		!strings.Contains(stdout, fmt.Sprintf("note: the server answered 1 of the %d HTTP requests with 429 or 529", n)) {
		t.Errorf("the output does not count %d requests and 1 rate-limited:\n%s", n, stdout)
	}
}

// TestCheckCacheDamageAndWriteFailures: a damaged cache entry is a miss,
// counted and shown, and the verdicts equal a fresh run's; a cache that
// cannot be written is reported once with the reason and counted, and
// does not change the exit status.
func TestCheckCacheDamageAndWriteFailures(t *testing.T) {
	fixtures, contexts := copyDataset(t, judgedFixtures[:2])
	srv := newFakeJudge(t)
	srv.setPhase(1, -1)
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	run1, run2 := filepath.Join(root, "1.jsonl"), filepath.Join(root, "2.jsonl")
	stdout, stderr, code := cli(t, judgedArgs(srv, fixtures, contexts, cache, "--format", "json", "-o", run1)...)
	if code != 0 || stderr != "" {
		t.Fatalf("run 1: exit %d, %s", code, stderr)
	}
	var res1 checkOut
	decodeJSON(t, stdout, &res1)

	// Damage one verdict entry's answer: one byte.
	entries, _ := filepath.Glob(filepath.Join(cache, "??", "*.json"))
	damaged := ""
	for _, e := range entries {
		b, _ := os.ReadFile(e)
		if i := strings.Index(string(b), `"answer": "`); i >= 0 && len(b) > i+12 {
			j := i + len(`"answer": "`)
			b[j] ^= 1
			copyBytes(t, e, b)
			damaged = e
			break
		}
	}
	if damaged == "" {
		t.Fatal("no verdict entry with an answer in the cache")
	}
	stdout, stderr, code = cli(t, judgedArgs(srv, fixtures, contexts, cache, "-o", run2)...)
	if code != 0 || stderr != "" {
		t.Fatalf("run 2: exit %d, %s", code, stderr)
	}
	want := fmt.Sprintf("(1 judge call; cache: %d hits, 1 miss, 1 damaged, 0 failed writes)", res1.Calls-1)
	if !strings.Contains(stdout, want) {
		t.Errorf("run 2's summary lacks %q:\n%s", want, stdout)
	}
	b1, _ := os.ReadFile(run1)
	b2, _ := os.ReadFile(run2)
	if string(b1) != string(b2) {
		t.Errorf("the verdicts after the damage differ from a fresh run's:\n%s\n---\n%s", b2, b1)
	}

	// A cache whose every shard is a file: no entry can be written.
	broken := filepath.Join(root, "broken")
	for i := range 256 {
		copyBytes(t, filepath.Join(broken, fmt.Sprintf("%02x", i)), []byte("not a folder"))
	}
	run3 := filepath.Join(root, "3.jsonl")
	stdout, stderr, code = cli(t, judgedArgs(srv, fixtures, contexts, broken, "--format", "json", "-o", run3)...)
	if code != 0 {
		t.Errorf("run 3: exit %d, want 0: the cache does not decide the exit status", code)
	}
	var res3 struct {
		Calls int `json:"judge_calls"`
		Cache struct {
			Misses, Writes int
			Failed         int    `json:"failed_writes"`
			First          string `json:"first_write_error"`
		}
	}
	decodeJSON(t, stdout, &res3)
	if res3.Calls != res1.Calls || res3.Cache.Failed != res1.Calls || res3.Cache.Writes != 0 || !strings.Contains(res3.Cache.First, "not a directory") {
		t.Errorf("run 3: %+v; want %d calls and as many failed writes, with the reason", res3, res1.Calls)
	}
	wantErr := fmt.Sprintf("tally: warning: %d judge cache writes failed, the first: ", res1.Calls)
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, wantErr) || !strings.Contains(stderr, "not a directory") {
		t.Errorf("stderr %q; want one line starting %q with the reason", stderr, wantErr)
	}
	if b3, _ := os.ReadFile(run3); string(b3) != string(b1) {
		t.Error("the verdicts with a broken cache differ from a fresh run's")
	}
}

// TestCheckCommandJudgeExample runs the example command judge
// (examples/judge-command/judge.sh) over a small fixture set whose
// verdicts are known from the texts: one item verbatim, one supported and
// agreeing, one absent, one supported at one compaction and inverted at
// the next (the agreement question makes it contradicted; --no-agree
// lets it through as supported).
func TestCheckCommandJudgeExample(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "judge-command", "judge.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk on PATH")
	}
	verdictOnly := writeScript(t, `cat >/dev/null; echo '{"reasoning": "r", "answer": "the main branch", "verdict": "supported"}'`+"\n")
	type v struct {
		conv string
		n    int
		item string
		want fixture.Verdict
	}
	base := []v{
		{"sess_cmd_a", 1, "v1", fixture.Verbatim},
		{"sess_cmd_a", 1, "s1", fixture.Supported},
		{"sess_cmd_a", 1, "a1", fixture.Absent},
		{"sess_cmd_b", 1, "b1", fixture.Supported},
	}
	tests := []struct {
		reason string
		script string
		more   []string
		want   []v
		code   int
	}{
		{"the example judge", script, nil, append(base, v{"sess_cmd_b", 2, "b1", fixture.Contradicted}), 0},
		{"the example judge, --no-agree: the inverted answer passes", script, []string{"--no-agree"}, append(base, v{"sess_cmd_b", 2, "b1", fixture.Supported}), 0},
		{"a verdict-only judge: its reply is no agreement reply", verdictOnly, nil, []v{
			{"sess_cmd_a", 1, "v1", fixture.Verbatim}, {"sess_cmd_a", 1, "s1", fixture.Error}, {"sess_cmd_a", 1, "a1", fixture.Error},
			{"sess_cmd_b", 1, "b1", fixture.Error}, {"sess_cmd_b", 2, "b1", fixture.Error}}, 4},
		{"a verdict-only judge, --no-agree", verdictOnly, []string{"--no-agree"}, []v{
			{"sess_cmd_a", 1, "v1", fixture.Verbatim}, {"sess_cmd_a", 1, "s1", fixture.Supported}, {"sess_cmd_a", 1, "a1", fixture.Supported},
			{"sess_cmd_b", 1, "b1", fixture.Supported}, {"sess_cmd_b", 2, "b1", fixture.Supported}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			_, stderr, code := cli(t, append([]string{"check", "--fixtures", "testdata/check-command/fixtures",
				"--contexts", "testdata/check-command/contexts", "--system", "demo", "--judge", "command", "--command", tt.script,
				"--cache", filepath.Join(t.TempDir(), "cache"), "-o", out}, tt.more...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			recs := readVerdicts(t, out, "demo")
			if len(recs) != len(tt.want) {
				t.Fatalf("%d records, want %d: %+v", len(recs), len(tt.want), recs)
			}
			for i, w := range tt.want {
				r := recs[i]
				if r.ConversationID != w.conv || r.Compaction != w.n || r.ItemID != w.item || r.Verdict != w.want {
					t.Errorf("record %d: %s/%d/%s %s (%s), want %s/%d/%s %s", i, r.ConversationID, r.Compaction, r.ItemID, r.Verdict, r.Reason, w.conv, w.n, w.item, w.want)
				}
			}
		})
	}
}

// TestCheckOutputFolder: -o in a folder that does not exist creates it;
// a failed run removes the folders it created.
func TestCheckOutputFolder(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "new", "folder", "v.jsonl")
	if _, stderr, code := cli(t, recordedArgs("incumbent", "-o", out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if recs := readVerdicts(t, out, "incumbent"); len(recs) != 295 {
		t.Errorf("%d records", len(recs))
	}
	bad := filepath.Join(root, "other", "v.jsonl")
	args := recordedArgs("incumbent", "-o", bad)
	args[4] = filepath.Join(root, "no-such-contexts") // --contexts
	if _, _, code := cli(t, args...); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Dir(bad)); !os.IsNotExist(err) {
		t.Errorf("a failed run left the folder it created (%v)", err)
	}
}

// TestCheckPlurals: one of a thing is not "1 things".
func TestCheckPlurals(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, "cat >/dev/null\nexit 3\n")
	fixtures, contexts := copyDataset(t, judgedFixtures[:1])
	// Keep only one item, stated before compaction 1, and one compaction.
	path := filepath.Join(fixtures, judgedFixtures[0]+".json")
	f, err := fixture.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	fx := f[0]
	fx.CompactionsExpected = 1
	fx.MustSurvive = fx.MustSurvive[:1]
	fx.MustSurvive[0].Literal = "a literal that is in no context"
	b, _ := json.Marshal(fx)
	copyBytes(t, path, b)
	for _, n := range []string{"2.json", "3.json"} {
		removePath(t, filepath.Join(contexts, judgedFixtures[0], n))
	}
	stdout, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "command", "--command", script, "--cache", filepath.Join(dir, "cache"), "-o", filepath.Join(dir, "v.jsonl"))
	if code != 4 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"incumbent: 1 fixture, 1 compacted context, 1 check (1 judge call; cache: 0 hits, 1 miss, 0 damaged, 0 failed writes)",
		"incomplete: 1 error\n",
		"note: 1 error verdict (the judge failed); it is not counted as absent — re-run to retry it (completed calls come from the cache)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.HasPrefix(stderr, "tally: incomplete: 1 error verdict of 1 check, more than --max-errors 0 allows") {
		t.Errorf("stderr %q", stderr)
	}
}

// TestCheckHelpExitCodes: check's --help lists the exit codes a CI step
// acts on, and the flags that bound a run.
func TestCheckHelpExitCodes(t *testing.T) {
	stdout, _, code := cli(t, "check", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Exit codes:$`),
		regexp.MustCompile(`(?m)^  0  every verdict written, and no more error verdicts than --max-errors$`),
		regexp.MustCompile(`(?m)^  1  bad input or an I/O failure`),
		regexp.MustCompile(`(?m)^  2  a usage error$`),
		regexp.MustCompile(`(?m)^  3  `),
		regexp.MustCompile(`(?m)^  4  incomplete: the verdicts are written, but more of them are error than$`),
		regexp.MustCompile(`--max-errors int`),
		regexp.MustCompile(`--deadline duration`),
		regexp.MustCompile(`--breaker int`),
		regexp.MustCompile(`--max-retry-after duration`),
		regexp.MustCompile(`--allow-missing`),
		regexp.MustCompile(`--no-agree +do not ask the agreement question: a supported answer stays supported without being compared with the fixture's expected answer, so a supported answer that inverts it is NOT caught as contradicted`),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("check --help does not match %v:\n%s", want, stdout)
		}
	}
}

// TestCheckDeadline: --deadline bounds the whole run; a judge that hangs
// leaves every judged item error "deadline", written, exit 4.
func TestCheckDeadline(t *testing.T) {
	hang := writeScript(t, "cat >/dev/null\nexec sleep 60\n")
	fixtures, contexts := copyDataset(t, judgedFixtures[:2])
	out := filepath.Join(t.TempDir(), "v.jsonl")
	start := time.Now()
	_, stderr, code := cli(t, "check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "command", "--command", hang, "--cache", "", "--deadline", "500ms", "-o", out)
	took := time.Since(start)
	if code != 4 || took > 15*time.Second || !regexp.MustCompile(`the most common reasons: \d+× "deadline"\n$`).MatchString(stderr) {
		t.Errorf("exit %d after %v, stderr %q; want 4 within seconds, every error \"deadline\"", code, took, stderr)
	}
	for _, r := range readVerdicts(t, out, "incumbent") {
		if r.Verdict != fixture.Verbatim && (r.Verdict != fixture.Error || r.Reason != "deadline") {
			t.Fatalf("record %+v, want verbatim or error \"deadline\"", r)
		}
	}
}

// TestCheckBreakerOversizedContexts is the review's case: a command judge
// that refuses (exits 1 on) prompts over 30,000 bytes fails every item of
// the example's long contexts back to back. Those failures are the
// contexts', not the judge's: --breaker 5 --concurrency 1 must give the
// same verdicts as no breaker at all, where it used to record most items
// "judge unavailable".
func TestCheckBreakerOversizedContexts(t *testing.T) {
	script := writeScript(t, `n=$(wc -c)
if [ "$n" -gt 30000 ]; then echo "prompt of $n bytes is too long" >&2; exit 1; fi
echo '{"reasoning": "r", "answer": "", "verdict": "absent"}'
`)
	var runs [2][]byte
	for i, breaker := range []string{"0", "5"} {
		out := filepath.Join(t.TempDir(), "v.jsonl")
		_, stderr, code := cli(t, commandArgs(script, out, "--breaker", breaker, "--concurrency", "1")...)
		if code != 4 || strings.Contains(stderr, "judge unavailable") || !strings.Contains(stderr, "is too long") {
			t.Errorf("--breaker %s: exit %d, stderr %q; want 4 for the long contexts' items alone", breaker, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = b
	}
	if string(runs[0]) != string(runs[1]) {
		t.Error("--breaker 5 changed the verdicts")
	}
}

// TestCheckDeadlineWarmCache: with every verdict cached, --deadline 1ns
// answers every item from the cache; it used to record every judged item
// "deadline" with no cache hit.
func TestCheckDeadlineWarmCache(t *testing.T) {
	absent := writeScript(t, "cat >/dev/null\necho '{\"reasoning\": \"r\", \"answer\": \"\", \"verdict\": \"absent\"}'\n")
	cache := filepath.Join(t.TempDir(), "cache")
	root := t.TempDir()
	warm, late := filepath.Join(root, "warm.jsonl"), filepath.Join(root, "late.jsonl")
	if _, stderr, code := cli(t, commandArgs(absent, warm, "--cache", cache)...); code != 0 {
		t.Fatalf("warming the cache: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := cli(t, commandArgs(absent, late, "--cache", cache, "--deadline", "1ns")...)
	if code != 0 || strings.Contains(stderr+stdout, "deadline") {
		t.Errorf("--deadline 1ns on a warm cache: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	a, _ := os.ReadFile(warm)
	b, _ := os.ReadFile(late)
	if len(a) == 0 || string(a) != string(b) {
		t.Error("the verdicts from the cache differ from the run that cached them")
	}
}

// TestJudgeScriptReplies pins the example command judge's replies
// (examples/judge-command/judge.sh) to prompts written for the cases a
// new user's trial on real summaries met: a yes/no probe answered by
// the polarity of the line it finds, the words a probe quotes as its
// keywords, one shared word as no evidence, and a probe for a commit
// answered only by a line naming one; and its agreement replies.
func TestJudgeScriptReplies(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "judge-command", "judge.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk on PATH")
	}
	verdict := func(context, probe string) string {
		return "Read the context.\n<context>\n" + context + "\n</context>\nQuestion: " + probe + "\nReply with JSON: {\"reasoning\": ..., \"answer\": ..., \"verdict\": ...}\n"
	}
	agreement := func(first, second string) string {
		return "Two answers were given to the same question.\n<first_answer>\n" + first + "\n</first_answer>\n<second_answer>\n" + second + "\n</second_answer>\n"
	}
	for _, c := range []struct {
		name, prompt, want string
	}{
		{"a rule found, same polarity", verdict("The user said: keep the retry loop in the worker.", "Does this rule from the user still hold: “keep the retry loop in the worker”?"),
			`"answer": "yes: The user said: keep the retry loop in the worker.", "verdict": "supported"`},
		{"forbidden and never", verdict("Never modify files under /migrations.", "Is the agent forbidden to modify files under /migrations?"),
			`"answer": "yes: Never modify files under /migrations.", "verdict": "supported"`},
		{"a permission asked, a prohibition found", verdict("Rule: don't push branches to origin main.", "May the agent push branches to origin main?"),
			`"answer": "no: Rule: don't push branches to origin main.", "verdict": "supported"`},
		{"only tally's wording shared", verdict("The user asked for a rule about holding the lock.", "Does this rule from the user still hold: “squash commits before merging”?"),
			`"answer": "", "verdict": "absent"`},
		{"one shared word", verdict("Pushed the branch.", "Which commit does “Pushed as `…`” refer to?"),
			`"answer": "", "verdict": "absent"`},
		{"the commit named", verdict("Pushed as 69a35cf4 to origin.", "Which commit does “Pushed as `…`” refer to?"),
			`"answer": "Pushed as 69a35cf4 to origin.", "verdict": "supported"`},
		{"yes against no", agreement("yes", "no: Rule: don't push."), `{"agree": "no"}`},
		{"yes against yes", agreement("yes", "yes: keep the retry loop"), `{"agree": "yes"}`},
		{"words of the expected answer", agreement("develop", "Plan: the PR will target the develop branch."), `{"agree": "yes"}`},
		{"an answer without them", agreement("develop", "Plan: the PR will target the main branch."), `{"agree": "no"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(script)
			cmd.Stdin = strings.NewReader(c.prompt)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("reply %s, want it to hold %s", out, c.want)
			}
		})
	}
}

// TestTopReasonsGroupsNumbers: error reasons that differ only in their
// numbers (a retry delay) are counted as one in the human summary, named
// by their most common text; the JSON keeps every reason as it was.
func TestTopReasonsGroupsNumbers(t *testing.T) {
	got := topReasons(map[string]int{
		"HTTP 429: retry after 3s":  5,
		"HTTP 429: retry after 12s": 2,
		"HTTP 429: retry after 7s":  1,
		"timeout":                   4,
		"":                          1,
	}, 2)
	want := []reasonJSON{
		{Reason: "HTTP 429: retry after 3s (and 2 others like it but for numbers)", Count: 8},
		{Reason: "timeout", Count: 4},
	}
	if !slices.Equal(got, want) {
		t.Errorf("topReasons = %+v, want %+v", got, want)
	}
	if rows := reasonRows(map[string]int{"a 1": 1, "a 2": 1}); len(rows) != 2 {
		t.Errorf("reasonRows grouped what JSON must keep apart: %+v", rows)
	}
}

// TestCheckJudgeVerbatimFlag: --judge-verbatim asks the judge about the
// verbatim item too (8 calls where 7 were made without it, as README's
// command-judge example counts them) and says what it found; --dry-run
// counts the extra question.
func TestCheckJudgeVerbatimFlag(t *testing.T) {
	args := []string{"check", "--fixtures", "testdata/check-command/fixtures", "--contexts", "testdata/check-command/contexts",
		"--system", "demo", "--judge", "command", "--command", "../../examples/judge-command/judge.sh", "--cache", "", "--judge-verbatim"}
	out, errOut, code := cli(t, append(args, "-o", filepath.Join(t.TempDir(), "v.jsonl"))...)
	if code != 0 || !strings.Contains(out, "5 checks (8 judge calls, no cache)") ||
		!strings.Contains(out, "\n--judge-verbatim: of 1 item-compaction found verbatim, the judge found 0 contradicted by the rest of the context (recorded as contradicted)\n") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
	out, errOut, code = cli(t, append(args, "--dry-run", "--format", "json")...)
	var plan struct {
		Questions int `json:"judge_questions"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || plan.Questions != 5 {
		t.Errorf("--dry-run: exit %d %s\n%s; want 5 questions (4 judged and the verbatim one)", code, errOut, out)
	}
}

// TestCheckSupportedWithoutAnswer: supported verdicts whose reply gave
// no answer — their agreement with the expected answer not checked — are
// counted on the terminal and in JSON, not only in each record's reason
// (a re-check trial's 43 went by unseen).
func TestCheckSupportedWithoutAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [{"message": {"content": "{\"verdict\": \"supported\"}"}, "finish_reason": "stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	fixtures, contexts := copyDataset(t, judgedFixtures[:1])
	args := []string{"check", "--fixtures", fixtures, "--contexts", contexts, "--system", "incumbent",
		"--judge", "openai", "--base-url", srv.URL + "/v1", "--model", "m", "--api-key-env", noKeyEnv, "--cache", ""}
	stdout, stderr, code := cli(t, append(args, "-o", filepath.Join(t.TempDir(), "v.jsonl"))...)
	if code != 0 || !strings.Contains(stdout, "supported without an answer in the reply: their agreement with the expected answer was not checked") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	stdout, _, _ = cli(t, append(args, "-o", filepath.Join(t.TempDir(), "v.jsonl"), "--format", "json")...)
	var j struct {
		Unanswered int `json:"supported_without_answer"`
		Calls      int `json:"judge_calls"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil || j.Unanswered == 0 || j.Unanswered != j.Calls {
		t.Errorf("JSON: %+v, %v; want every judged item counted", j, err)
	}
}
