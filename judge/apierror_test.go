package judge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tally-eval/tally/fixture"
)

// TestReplyCut: a reply the API says it ended early — cut at the token
// limit, filtered, refused — is an error verdict after one request,
// never parsed, re-asked or cached, though its text holds a verdict
// (a new user's trial: a chain of thought cut mid-way held a
// hypothetical {"verdict": "contradicted"}, which tally recorded and
// cached). The stop reasons are the APIs' own: OpenAI's finish_reason
// "length" and "content_filter" and message.refusal (the Chat
// Completions object), Anthropic's stop_reason "max_tokens" and
// "refusal" (the Messages API's).
func TestReplyCut(t *testing.T) {
	cot := `Let me think. If the context contradicted it I would reply {"verdict": "contradicted", "answer": "no", "reasoning": "x"}, but first I need to check whether`
	for _, c := range []struct {
		format, body, reason string
	}{
		{"openai", `{"choices":[{"message":{"content":` + quote(cot) + `},"finish_reason":"length"}]}`, `the reply ended with "length": cut at the token limit`},
		{"openai", `{"choices":[{"message":{"content":` + quote(cot) + `},"finish_reason":"content_filter"}]}`, `"content_filter": the server's content filter withheld it`},
		{"openai", `{"choices":[{"message":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, `the model refused: "I can't help with that."`},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":` + quote(cot) + `}],"stop_reason":"max_tokens"}`, `the reply ended with "max_tokens": cut at the token limit`},
		{"anthropic", `{"type":"message","content":[],"stop_reason":"refusal"}`, `the reply ended with "refusal"`},
		// A second trial: replies that stopped for other reasons were read.
		{"anthropic", `{"type":"message","content":[{"type":"text","text":` + quote(cot) + `}],"stop_reason":"model_context_window_exceeded"}`, `"model_context_window_exceeded": cut at the token limit`},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":` + quote(cot) + `}],"stop_reason":"pause_turn"}`, `"pause_turn": not a reply that ended by itself`},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":` + quote(cot) + `}],"stop_reason":"tool_use"}`, `"tool_use": not a reply that ended by itself`},
		{"openai", `{"choices":[{"message":{"content":` + quote(cot) + `},"finish_reason":"error"}]}`, `"error": not a reply that ended by itself`},
		{"openai", `{"choices":[{"message":{"content":` + quote(cot) + `},"finish_reason":"tool_calls"}]}`, `"tool_calls": not a reply that ended by itself`},
	} {
		s := newWireServer(t, c.format, func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			io.WriteString(w, c.body)
		})
		b, _ := newWireBackend(t, s, HTTPConfig{})
		cache, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&Model{Backend: b, Cache: cache}).Judge(context.Background(), sampleQuestion())
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict != fixture.Error || !strings.Contains(a.Reason, c.reason) || s.requests.Load() != 1 || cache.Stats().Writes != 0 {
			t.Errorf("%s %s: got %s %q after %d requests, %d cache writes; want error %q after 1, none cached",
				c.format, c.reason, a.Verdict, a.Reason, s.requests.Load(), cache.Stats().Writes, c.reason)
		}
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMisconfigured: a failure every question would share — the key
// (401, 403), the URL or model (404), a spent quota (OpenAI's 429
// insufficient_quota), a parameter the model refuses (OpenAI's 400
// unsupported_value, a reasoning model's answer to temperature 0) —
// stops the run at the first question (Judge returns the error,
// ErrMisconfigured), after one request, naming the API's own code and
// message. Error bodies are the APIs' documented shapes.
func TestMisconfigured(t *testing.T) {
	for _, c := range []struct {
		format string
		status int
		body   string
		want   string
	}{
		{"openai", 401, `{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			"HTTP 401 Unauthorized: invalid_api_key: Incorrect API key provided: sk-xx."},
		{"openai", 404, `{"error":{"message":"The model gpt-9 does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			"HTTP 404 Not Found: model_not_found: The model gpt-9 does not exist"},
		{"openai", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			"HTTP 429 Too Many Requests: insufficient_quota: You exceeded your current quota"},
		{"openai", 400, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`,
			"HTTP 400 Bad Request: unsupported_value: Unsupported value: 'temperature'"},
		{"anthropic", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			"HTTP 401 Unauthorized: authentication_error: invalid x-api-key"},
		{"anthropic", 403, `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`,
			"HTTP 403 Forbidden: permission_error: Your API key does not have permission"},
		{"anthropic", 404, "<html>404 page not found</html>", `HTTP 404 Not Found: <html>404 page not found</html> (requests go to`},
		{"anthropic", 402, `{"type":"error","error":{"type":"billing_error","message":"Your account has a billing issue."}}`, "HTTP 402 Payment Required: billing_error"},
		{"anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`, "HTTP 400 Bad Request: invalid_request_error: Your credit balance is too low"},
		// vLLM before 0.10: the error object at the top level.
		{"openai", 404, `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`, "HTTP 404 Not Found: NotFoundError: The model `x` does not exist."},
	} {
		s := newWireServer(t, c.format, func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			w.WriteHeader(c.status)
			io.WriteString(w, c.body)
		})
		b, sleeps := newWireBackend(t, s, HTTPConfig{})
		_, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if !errors.Is(err, ErrMisconfigured) || !strings.Contains(err.Error(), c.want) || s.requests.Load() != 1 || len(sleeps.all()) != 0 {
			t.Errorf("%s %d: got %v after %d requests; want ErrMisconfigured with %q after 1", c.format, c.status, err, s.requests.Load(), c.want)
		}
	}
}

// TestRateLimitReset: a 429 with no Retry-After waits for OpenAI's
// x-ratelimit-reset-requests and -tokens, the longer (OpenAI's rate-limit
// guide: "the time until the rate limit resets", as a duration like
// "6m0s"), capped by MaxRetryAfter; a Retry-After wins.
func TestRateLimitReset(t *testing.T) {
	for _, c := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"x-ratelimit-reset-requests": "11.9s", "x-ratelimit-reset-tokens": "20ms"}, 11900 * time.Millisecond},
		{map[string]string{"x-ratelimit-reset-tokens": "6m0s"}, DefaultMaxRetryAfter},
		{map[string]string{"Retry-After": "2", "x-ratelimit-reset-requests": "30s"}, 2 * time.Second},
		{map[string]string{"x-ratelimit-reset-requests": "soon"}, DefaultBackoffBase},
	} {
		s := newWireServer(t, "openai", nil)
		s.handle = func(n int, w http.ResponseWriter, _ *http.Request, _ string) {
			if n == 0 {
				for k, v := range c.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(429)
				io.WriteString(w, `{"error":{"message":"Rate limit reached for requests. Please try again in 12s.","type":"requests","code":"rate_limit_exceeded"}}`)
				return
			}
			s.reply(w, replyAbsent)
		}
		b, sleeps := newWireBackend(t, s, HTTPConfig{})
		a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if err != nil || a.Verdict != fixture.Absent {
			t.Fatalf("%v: %+v, %v", c.header, a, err)
		}
		if got := sleeps.all(); len(got) != 1 || got[0] != c.want {
			t.Errorf("%v: slept %v, want [%v]", c.header, got, c.want)
		}
	}
}

// TestReplyShapes: replies servers really send that carry a verdict in
// another shape: content as a list of parts (a Mistral reasoning model's
// thinking part, then text), a reasoning model's <think>…</think> ahead
// of the answer in the content (DeepSeek-R1 or Qwen3 served without a
// reasoning parser), an Anthropic thinking block before the text.
func TestReplyShapes(t *testing.T) {
	for _, c := range []struct{ format, body string }{
		{"openai", `{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"{\"verdict\": \"supported\"}"}]},{"type":"text","text":` + quote(replyAbsent) + `}]},"finish_reason":"stop"}]}`},
		{"openai", `{"choices":[{"message":{"content":` + quote("<think>\nMaybe {\"verdict\": \"supported\"}?\n</think>\n\n"+replyAbsent) + `},"finish_reason":"stop"}]}`},
		// The chat template opened the block (DeepSeek-R1 distills on
		// vLLM): only its end is in the reply.
		{"openai", `{"choices":[{"message":{"content":` + quote("Maybe {\"verdict\": \"contradicted\"}?\n</think>\n\n"+replyAbsent) + `},"finish_reason":"stop"}]}`},
		{"anthropic", `{"type":"message","content":[{"type":"thinking","thinking":"{\"verdict\": \"supported\"}","signature":"x"},{"type":"text","text":` + quote(replyAbsent) + `}],"stop_reason":"end_turn"}`},
	} {
		s := newWireServer(t, c.format, func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			io.WriteString(w, c.body)
		})
		b, _ := newWireBackend(t, s, HTTPConfig{})
		a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if err != nil || a.Verdict != fixture.Absent || s.requests.Load() != 1 {
			t.Errorf("%s %.60s: got %+v, %v after %d requests; want absent after 1", c.format, c.body, a, err, s.requests.Load())
		}
	}
}

// TestQuestionFailures: a 403 or 404 the API explains as this request's —
// a moderation flag on one input (OpenRouter's 403), no provider free
// for one request (OpenRouter's 404 "No endpoints found", its code a
// number) — or a 400 for one context too long, is that question's error
// verdict, and the run goes on (a second trial: one flagged prompt had
// stopped every run).
func TestQuestionFailures(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
	}{
		{403, `{"error":{"code":403,"message":"gpt-4o-mini requires moderation on OpenAI. Your input was flagged for \"harassment\".","metadata":{"reasons":["harassment"]}}}`},
		{404, `{"error":{"message":"No endpoints found for x/y.","code":404}}`},
		{400, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
	} {
		s := newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			w.WriteHeader(c.status)
			io.WriteString(w, c.body)
		})
		b, _ := newWireBackend(t, s, HTTPConfig{})
		a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if err != nil || a.Verdict != fixture.Error || s.requests.Load() != 1 {
			t.Errorf("%d: got %+v, %v after %d requests; want an error verdict after 1", c.status, a, err, s.requests.Load())
		}
	}
}

// TestOpenAIRequestShape: OpenAI's own API gets the reply's bound as
// max_completion_tokens, which every model there takes (its reasoning
// models refuse max_tokens); other servers get max_tokens. A query in the
// base URL (Azure's api-version) is kept after the path.
func TestOpenAIRequestShape(t *testing.T) {
	t.Setenv(testKeyEnv, "k")
	for _, c := range []struct {
		base, url, field string
	}{
		{"https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions", `"max_completion_tokens":77`},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions", `"max_tokens":77`},
		{"https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21", `"max_tokens":77`},
	} {
		var gotURL, gotBody string
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			b, _ := io.ReadAll(r.Body)
			gotURL, gotBody = r.URL.String(), string(b)
			return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"choices":[{"message":{"content":` + quote(replyAbsent) + `},"finish_reason":"stop"}]}`)), Header: http.Header{}}, nil
		})}
		b, err := NewOpenAI(OpenAIConfig{BaseURL: c.base, Model: "m", KeyEnv: testKeyEnv, MaxTokens: 77, HTTP: HTTPConfig{Client: client}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Complete(context.Background(), "p"); err != nil {
			t.Fatal(err)
		}
		if gotURL != c.url || !strings.Contains(gotBody, c.field) {
			t.Errorf("%s: posted to %s with %s; want %s with %s", c.base, gotURL, gotBody, c.url, c.field)
		}
	}
}

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAPIKeys: a key variable named and unset, or the vendor's own API
// with no key, is an error before any request; a local server needs none.
func TestAPIKeys(t *testing.T) {
	t.Setenv("TALLY_UNSET_KEY", "")
	t.Setenv(DefaultOpenAIKeyEnv, "")
	t.Setenv(DefaultAnthropicKeyEnv, "")
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"openai, named and unset", func() error {
			_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m", KeyEnv: "TALLY_UNSET_KEY"})
			return err
		}(), "openai: the API key variable TALLY_UNSET_KEY is empty or unset"},
		{"openai's own API", func() error {
			_, err := NewOpenAI(OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "m"})
			return err
		}(), "openai: OPENAI_API_KEY is empty or unset, and api.openai.com needs a key"},
		{"anthropic's own API", func() error { _, err := NewAnthropic(AnthropicConfig{Model: "m"}); return err }(),
			"anthropic: ANTHROPIC_API_KEY is empty or unset, and api.anthropic.com needs a key"},
		{"an endpoint for a root", func() error {
			_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://h/v1/chat/completions", Model: "m"})
			return err
		}(), `openai: base URL "http://h/v1/chat/completions" names the endpoint; give the API root (http://h/v1)`},
		{"an Anthropic endpoint for a root", func() error {
			_, err := NewAnthropic(AnthropicConfig{BaseURL: "http://h/v1/messages", Model: "m", KeyEnv: testKeyEnv})
			return err
		}(), `anthropic: base URL "http://h/v1/messages" names the endpoint`},
		{"a local server", func() error {
			_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
			return err
		}(), ""},
	} {
		if got := errString(c.err); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	t.Setenv(DefaultAnthropicKeyEnv, "k")
	a, err := NewAnthropic(AnthropicConfig{Model: "m", BaseURL: "https://proxy.example/v1/"})
	if err != nil || a.url != "https://proxy.example/v1/messages" {
		t.Errorf("a base URL ending /v1: %v, %v; want https://proxy.example/v1/messages", a, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
