package judge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

const testKeyEnv = "TALLY_JUDGE_TEST_API_KEY"

// wireServer is an httptest server speaking the OpenAI chat-completions
// or the Anthropic Messages wire format. It checks every request's shape,
// counts requests, and lets the test's handle decide each response.
type wireServer struct {
	t        *testing.T
	format   string // "openai" or "anthropic"
	requests atomic.Int64
	handle   func(n int, w http.ResponseWriter, r *http.Request, prompt string)
	srv      *httptest.Server
}

func newWireServer(t *testing.T, format string, handle func(n int, w http.ResponseWriter, r *http.Request, prompt string)) *wireServer {
	s := &wireServer{t: t, format: format, handle: handle}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *wireServer) serve(w http.ResponseWriter, r *http.Request) {
	n := int(s.requests.Add(1) - 1)
	var body struct {
		Model       string          `json:"model"`
		Temperature *float64        `json:"temperature"`
		Seed        *int64          `json:"seed"`
		MaxTokens   int             `json:"max_tokens"`
		Messages    []chatMessage   `json:"messages"`
		Extra       json.RawMessage `json:"-"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("request %d: %v", n, err)
	}
	bad := func(format string, args ...any) {
		s.t.Errorf("request %d: "+format, append([]any{n}, args...)...)
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		bad("%s with content type %q", r.Method, r.Header.Get("Content-Type"))
	}
	if body.Model != "test-model" || body.Temperature == nil || *body.Temperature != 0 || len(body.Messages) != 1 || body.Messages[0].Role != "user" {
		bad("body %+v", body)
	}
	switch s.format {
	case "openai":
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" || body.Seed == nil || *body.Seed != 42 {
			bad("openai: path %s, auth %q, seed %v", r.URL.Path, r.Header.Get("Authorization"), body.Seed)
		}
	case "anthropic":
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Anthropic-Version") != "2023-06-01" || body.MaxTokens != DefaultAnthropicMaxTokens {
			bad("anthropic: path %s, key %q, version %q, max_tokens %d", r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"), body.MaxTokens)
		}
	}
	prompt := ""
	if len(body.Messages) == 1 {
		prompt = body.Messages[0].Content
	}
	s.handle(n, w, r, prompt)
}

// reply writes a successful response carrying text in the server's format.
func (s *wireServer) reply(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "application/json")
	var v any
	switch s.format {
	case "openai":
		v = map[string]any{"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}}}}
	default:
		// Split the text over two blocks, with a non-text block between,
		// to check the blocks are concatenated.
		half := len(text) / 2
		v = map[string]any{"type": "message", "content": []any{
			map[string]any{"type": "text", "text": text[:half]},
			map[string]any{"type": "tool_use", "id": "x", "name": "none", "input": map[string]any{}},
			map[string]any{"type": "text", "text": text[half:]},
		}}
	}
	json.NewEncoder(w).Encode(v)
}

// brainHandler answers verdict and agreement questions.
func (s *wireServer) brainHandler(verdict, agree string) func(int, http.ResponseWriter, *http.Request, string) {
	return func(_ int, w http.ResponseWriter, _ *http.Request, prompt string) {
		if isAgreement(prompt) {
			s.reply(w, agree)
			return
		}
		s.reply(w, verdict)
	}
}

// sleepLog is an injectable Retry.Sleep that records and returns at once.
type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
	return ctx.Err()
}

func (l *sleepLog) all() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.d...)
}

// newWireBackend makes the backend of the server's format, with the
// sleeps logged and the jitter at its maximum so backoffs are exact.
func newWireBackend(t *testing.T, s *wireServer, cfg HTTPConfig) (Backend, *sleepLog) {
	t.Helper()
	t.Setenv(testKeyEnv, "test-key")
	log := &sleepLog{}
	cfg.Retry.Sleep = log.sleep
	cfg.Retry.Jitter = func(max time.Duration) time.Duration { return max }
	var b Backend
	var err error
	switch s.format {
	case "openai":
		b, err = NewOpenAI(OpenAIConfig{BaseURL: s.srv.URL + "/v1/", Model: "test-model", KeyEnv: testKeyEnv, Seed: 42, HTTP: cfg})
	default:
		b, err = NewAnthropic(AnthropicConfig{BaseURL: s.srv.URL, Model: "test-model", KeyEnv: testKeyEnv, HTTP: cfg})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b, log
}

var wireFormats = []string{"openai", "anthropic"}

func TestHTTPVerdicts(t *testing.T) {
	fenced := "I checked the context.\n```json\n" + replySupported + "\n```\nThat is all."
	tests := []struct {
		reason       string
		verdict      string
		agree        string
		want         fixture.Verdict
		wantRequests int64
		reasonHas    string
	}{
		{"a normal answer, and agreement", replySupported, agreeYes, fixture.Supported, 2, ""},
		{"an answer in prose and a code fence", fenced, "They agree:\n```json\n" + agreeYes + "\n```", fixture.Supported, 2, ""},
		{"a disagreement", replySupported, agreeNo, fixture.Contradicted, 2, "disagrees"},
		{"absent", replyAbsent, "", fixture.Absent, 1, ""},
		{"an invalid verdict: re-asked twice, then error", `{"verdict": "unclear"}`, "", fixture.Error, 3, `verdict "unclear" is not one of`},
	}
	for _, format := range wireFormats {
		for _, tt := range tests {
			t.Run(format+"/"+tt.reason, func(t *testing.T) {
				var s *wireServer
				s = newWireServer(t, format, func(n int, w http.ResponseWriter, r *http.Request, p string) {
					s.brainHandler(tt.verdict, tt.agree)(n, w, r, p)
				})
				b, sleeps := newWireBackend(t, s, HTTPConfig{})
				if b.Name() != format+"/test-model" {
					t.Fatalf("Name = %q", b.Name())
				}
				a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
				if err != nil {
					t.Fatal(err)
				}
				if a.Verdict != tt.want || !strings.Contains(a.Reason, tt.reasonHas) || s.requests.Load() != tt.wantRequests {
					t.Fatalf("got %+v after %d requests; want %s after %d", a, s.requests.Load(), tt.want, tt.wantRequests)
				}
				if len(sleeps.all()) != 0 {
					t.Fatalf("slept %v", sleeps.all())
				}
			})
		}
	}
}

func TestHTTPRetries(t *testing.T) {
	hang := func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	reset := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.(*net.TCPConn).SetLinger(0) // close with RST, not FIN
		conn.Close()
	}
	status := func(code int, header ...string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(code)
			io.WriteString(w, `{"error": "`+strings.Repeat("x", 300)+`"}`)
		}
	}
	inTen := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		reason string
		// failures[n] handles request n; past the end, the server
		// answers "absent".
		failures     []func(http.ResponseWriter, *http.Request)
		cfg          HTTPConfig
		want         fixture.Verdict
		wantRequests int64
		checkSleeps  func(t *testing.T, d []time.Duration)
		reasonHas    []string
	}{
		{
			reason:   "429 with Retry-After in seconds is honoured",
			failures: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "7")},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(7 * time.Second),
		},
		{
			reason:   "429 with Retry-After as an HTTP-date is honoured",
			failures: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", inTen)},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: func(t *testing.T, d []time.Duration) {
				if len(d) != 1 || d[0] <= 8*time.Second || d[0] > 10*time.Second {
					t.Fatalf("slept %v, want about 10s", d)
				}
			},
		},
		{
			reason:   "a huge Retry-After is capped",
			failures: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "86400")},
			cfg:      HTTPConfig{Retry: Retry{MaxRetryAfter: 45 * time.Second}},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(45 * time.Second),
		},
		{
			reason:   "429 without Retry-After backs off",
			failures: []func(http.ResponseWriter, *http.Request){status(429)},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(500 * time.Millisecond),
		},
		{
			reason:   "500s, then success, with exponential backoff",
			failures: []func(http.ResponseWriter, *http.Request){status(500), status(502), status(503)},
			want:     fixture.Absent, wantRequests: 4,
			checkSleeps: exactSleeps(500*time.Millisecond, time.Second, 2*time.Second),
		},
		{
			reason:   "500 forever: bounded at MaxAttempts, then an error verdict",
			failures: repeat(status(500), 100),
			want:     fixture.Error, wantRequests: DefaultMaxAttempts,
			checkSleeps: exactSleeps(500*time.Millisecond, time.Second, 2*time.Second, 4*time.Second),
			reasonHas:   []string{"/test-model: gave up after 5 attempts; the last: HTTP 500 Internal Server Error"},
		},
		{
			reason:   "400 is not retried; the error names the status and the body's first 200 bytes",
			failures: repeat(status(400), 100),
			want:     fixture.Error, wantRequests: 1,
			checkSleeps: exactSleeps(),
			reasonHas:   []string{"/test-model: HTTP 400 Bad Request: " + `{"error": "` + strings.Repeat("x", 200-len(`{"error": "`))},
		},
		{
			reason:   "a hung server times out, and is retried a bounded number of times",
			failures: repeat(hang, 100),
			cfg:      HTTPConfig{Timeout: 50 * time.Millisecond, Retry: Retry{MaxAttempts: 3}},
			want:     fixture.Error, wantRequests: 3,
			checkSleeps: exactSleeps(500*time.Millisecond, time.Second),
			reasonHas:   []string{"gave up after 3 attempts", "no response within 50ms"},
		},
		{
			reason:   "a hung server once, then success",
			failures: []func(http.ResponseWriter, *http.Request){hang},
			cfg:      HTTPConfig{Timeout: 50 * time.Millisecond},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(500 * time.Millisecond),
		},
		{
			reason:   "a connection reset once, then success",
			failures: []func(http.ResponseWriter, *http.Request){reset},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(500 * time.Millisecond),
		},
		{
			// A server half-up (a proxy's error page with status 200, a
			// truncated body) is retried like a 5xx, not recorded as an
			// unusable reply at once.
			reason:   "a 200 with malformed JSON, then one with no choices or content, then success",
			failures: []func(http.ResponseWriter, *http.Request){body200(`{"choi`), body200(`{}`)},
			want:     fixture.Absent, wantRequests: 3,
			checkSleeps: exactSleeps(500*time.Millisecond, time.Second),
		},
		{
			reason:   "a 200 with an empty reply text, then success",
			failures: []func(http.ResponseWriter, *http.Request){body200(`{"choices": [{"message": {"content": ""}}], "content": [{"type": "text", "text": ""}]}`)},
			want:     fixture.Absent, wantRequests: 2,
			checkSleeps: exactSleeps(500 * time.Millisecond),
		},
		{
			reason:   "200s without choices forever: bounded at MaxAttempts, then an error verdict",
			failures: repeat(body200(`{"choices": [], "content": []}`), 100),
			want:     fixture.Error, wantRequests: DefaultMaxAttempts,
			checkSleeps: exactSleeps(500*time.Millisecond, time.Second, 2*time.Second, 4*time.Second),
			reasonHas:   []string{"gave up after 5 attempts; the last: HTTP 200 but an unusable 2xx reply: the response has no"},
		},
		{
			reason:   "connection resets forever: bounded",
			failures: repeat(reset, 100),
			cfg:      HTTPConfig{Retry: Retry{MaxAttempts: 4, Base: time.Second, Cap: 3 * time.Second}},
			want:     fixture.Error, wantRequests: 4,
			checkSleeps: exactSleeps(time.Second, 2*time.Second, 3*time.Second),
			reasonHas:   []string{"gave up after 4 attempts", "connection reset by peer"},
		},
	}
	for _, format := range wireFormats {
		for _, tt := range tests {
			t.Run(format+"/"+tt.reason, func(t *testing.T) {
				var s *wireServer
				s = newWireServer(t, format, func(n int, w http.ResponseWriter, r *http.Request, p string) {
					if n < len(tt.failures) {
						tt.failures[n](w, r)
						return
					}
					s.reply(w, replyAbsent)
				})
				b, sleeps := newWireBackend(t, s, tt.cfg)
				a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
				if err != nil {
					t.Fatal(err)
				}
				if a.Verdict != tt.want || s.requests.Load() != tt.wantRequests || a.Calls != 1 {
					t.Fatalf("got %+v after %d requests; want %s after %d", a, s.requests.Load(), tt.want, tt.wantRequests)
				}
				for _, want := range tt.reasonHas {
					if !strings.Contains(a.Reason, want) {
						t.Fatalf("reason %q lacks %q", a.Reason, want)
					}
				}
				if strings.Contains(a.Reason, strings.Repeat("x", 200)) {
					t.Fatalf("reason quotes more than 200 bytes of the body: %q", a.Reason)
				}
				tt.checkSleeps(t, sleeps.all())
			})
		}
	}
}

// body200 answers HTTP 200 with body.
func body200(body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

func repeat(f func(http.ResponseWriter, *http.Request), n int) []func(http.ResponseWriter, *http.Request) {
	fs := make([]func(http.ResponseWriter, *http.Request), n)
	for i := range fs {
		fs[i] = f
	}
	return fs
}

func exactSleeps(want ...time.Duration) func(*testing.T, []time.Duration) {
	return func(t *testing.T, got []time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("slept %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("slept %v, want %v", got, want)
			}
		}
	}
}

// Cancelling the run during a backoff ends it at once with no verdict.
func TestHTTPCancelDuringBackoff(t *testing.T) {
	s := newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
		w.WriteHeader(503)
	})
	t.Setenv(testKeyEnv, "test-key")
	b, err := NewOpenAI(OpenAIConfig{BaseURL: s.srv.URL + "/v1", Model: "test-model", KeyEnv: testKeyEnv, Seed: 42,
		HTTP: HTTPConfig{Retry: Retry{Base: time.Hour, Cap: time.Hour, Jitter: func(d time.Duration) time.Duration { return d }}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = (&Model{Backend: b}).Judge(ctx, sampleQuestion())
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if s.requests.Load() != 1 {
		t.Fatalf("%d requests", s.requests.Load())
	}
}

func TestBackoffSchedule(t *testing.T) {
	r, err := Retry{Jitter: func(d time.Duration) time.Duration { return d }}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := r.backoff(i + 1); got != w {
			t.Fatalf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := r.backoff(1 << 20); got != 30*time.Second {
		t.Fatalf("backoff(huge) = %v", got)
	}
	// The default jitter stays within [0, ceiling].
	r, _ = Retry{}.withDefaults()
	for range 1000 {
		if d := r.backoff(3); d < 0 || d > 2*time.Second {
			t.Fatalf("jittered backoff %v outside [0, 2s]", d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"Wed, 11 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Wed, 11 Mar 2026 11:00:00 GMT", 0, true}, // in the past
		{"99999999999999999999", 0, false},         // overflows: not a usable number or date
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// The concurrency limit holds across goroutines sharing one backend.
func TestHTTPMaxInFlight(t *testing.T) {
	var inFlight, peak atomic.Int64
	var s *wireServer
	s = newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		s.reply(w, replyAbsent)
	})
	b, _ := newWireBackend(t, s, HTTPConfig{MaxInFlight: 3})
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			if _, err := b.Complete(context.Background(), "p"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak.Load() > 3 || s.requests.Load() != 12 {
		t.Fatalf("peak %d in flight over %d requests, want at most 3", peak.Load(), s.requests.Load())
	}
}

// The rate limit spaces requests evenly.
func TestHTTPRateLimit(t *testing.T) {
	var s *wireServer
	s = newWireServer(t, "anthropic", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) { s.reply(w, "ok") })
	b, _ := newWireBackend(t, s, HTTPConfig{PerSecond: 100})
	start := time.Now()
	var wg sync.WaitGroup
	for range 11 {
		wg.Go(func() { b.Complete(context.Background(), "p") })
	}
	wg.Wait()
	if el := time.Since(start); el < 95*time.Millisecond {
		t.Fatalf("11 requests at 100/s took %v, want ≥ 100ms", el)
	}
}

// A second run over the same questions makes no requests at all.
func TestHTTPCacheSecondRunMakesNoCalls(t *testing.T) {
	for _, format := range wireFormats {
		t.Run(format, func(t *testing.T) {
			var s *wireServer
			s = newWireServer(t, format, func(n int, w http.ResponseWriter, r *http.Request, p string) {
				s.brainHandler(replySupported, agreeNo)(n, w, r, p)
			})
			dir := t.TempDir()
			questions := []Question{sampleQuestion(), sampleQuestion(), sampleQuestion()}
			questions[1].ItemID, questions[1].Context = "c1", "nothing"
			questions[2].Probe = "Is /migrations off limits?"
			run := func() []Answer {
				cache, err := OpenCache(dir)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := newWireBackend(t, s, HTTPConfig{})
				m := &Model{Backend: b, Cache: cache}
				var out []Answer
				for _, q := range questions {
					a, err := m.Judge(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, a)
				}
				return out
			}
			first := run()
			// Three verdicts and two agreements: questions 0 and 1 share
			// probe, expected answer and the judge's answer, so their
			// agreement question is one.
			made := s.requests.Load()
			if made != 5 {
				t.Fatalf("first run made %d requests, want 5", made)
			}
			second := run()
			if s.requests.Load() != made {
				t.Fatalf("second run made %d requests", s.requests.Load()-made)
			}
			for i := range first {
				f, g := first[i], second[i]
				f.Calls, f.CacheHits, g.Calls, g.CacheHits = 0, 0, 0, 0
				if f != g || second[i].Calls != 0 || second[i].CacheHits != 2 {
					t.Fatalf("question %d: first %+v, second %+v", i, first[i], second[i])
				}
			}
		})
	}
}

func TestNewBackendErrors(t *testing.T) {
	for _, tt := range []struct {
		reason string
		err    error
	}{
		{"no model", func() error { _, err := NewOpenAI(OpenAIConfig{BaseURL: "http://x/v1"}); return err }()},
		{"no URL", func() error { _, err := NewOpenAI(OpenAIConfig{Model: "m"}); return err }()},
		{"ftp URL", func() error { _, err := NewOpenAI(OpenAIConfig{BaseURL: "ftp://x", Model: "m"}); return err }()},
		{"negative rate", func() error {
			_, err := NewAnthropic(AnthropicConfig{Model: "m", HTTP: HTTPConfig{PerSecond: -1}})
			return err
		}()},
		{"negative attempts", func() error {
			_, err := NewAnthropic(AnthropicConfig{Model: "m", HTTP: HTTPConfig{Retry: Retry{MaxAttempts: -1}}})
			return err
		}()},
		{"anthropic without model", func() error { _, err := NewAnthropic(AnthropicConfig{}); return err }()},
	} {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.reason)
		}
	}
	t.Setenv(DefaultAnthropicKeyEnv, "k")
	a, err := NewAnthropic(AnthropicConfig{Model: "claude-x"})
	if err != nil || a.url != "https://api.anthropic.com/v1/messages" {
		t.Fatalf("default base: %v, %v", a, err)
	}
}

// The API key is sent only in its header and never appears in errors.
func TestHTTPKeyNotInErrors(t *testing.T) {
	t.Setenv(testKeyEnv, "sk-secret-value")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(403)
		io.WriteString(w, "forbidden")
	}))
	defer srv.Close()
	b, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", KeyEnv: testKeyEnv})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Complete(context.Background(), "p")
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 403 || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("err = %v", err)
	}
}

// TestHTTPErrorsForTheBreaker: an HTTP backend's error wraps
// ErrUnavailable when the server could not be had — 5xx or 429 still
// failing after the retries, a refused connection — and not when it
// refused the request (a 400, a 413 for a context too long), which the
// next question may not repeat.
func TestHTTPErrorsForTheBreaker(t *testing.T) {
	status := func(code int) func(int, http.ResponseWriter, *http.Request, string) {
		return func(_ int, w http.ResponseWriter, _ *http.Request, _ string) { http.Error(w, "no", code) }
	}
	for _, tt := range []struct {
		reason      string
		code        int
		unavailable bool
	}{
		{"503 after the retries", http.StatusServiceUnavailable, true},
		{"429 after the retries", http.StatusTooManyRequests, true},
		{"413: this prompt is too long", http.StatusRequestEntityTooLarge, false},
		{"400: this request is refused", http.StatusBadRequest, false},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			b, _ := newWireBackend(t, newWireServer(t, "openai", status(tt.code)), HTTPConfig{Retry: Retry{MaxAttempts: 2}})
			_, err := b.Complete(context.Background(), "p")
			if err == nil || errors.Is(err, ErrUnavailable) != tt.unavailable {
				t.Errorf("%v: unavailable %v, want %v", err, errors.Is(err, ErrUnavailable), tt.unavailable)
			}
		})
	}
	t.Run("connection refused after the retries", func(t *testing.T) {
		s := newWireServer(t, "openai", status(200))
		s.srv.Close()
		b, _ := newWireBackend(t, s, HTTPConfig{Retry: Retry{MaxAttempts: 2}})
		if _, err := b.Complete(context.Background(), "p"); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%v: want ErrUnavailable", err)
		}
	})
}
