package judge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
)

// writeJSON writes v as a 200 JSON body.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// TestRepliesWithoutAVerdictToRead: a reply that ended by itself but
// holds no settled text — a <think> block never closed (a reasoning
// model stopped while thinking), reasoning_content and no content, a
// tool call — is that question's error verdict after one request: never
// a verdict read from the draft (a new user's trial saw 145 draft
// verdicts recorded), never retried, and not the judge being
// unavailable (the trial's breaker opened on them).
func TestRepliesWithoutAVerdictToRead(t *testing.T) {
	draft := "<think>\nIt might be {\"verdict\": \"absent\", \"answer\": \"\"}, let me check again"
	for _, c := range []struct {
		name, format string
		message      map[string]any // OpenAI's message; for Anthropic, its text
		want         string
	}{
		{"openai, unclosed think", "openai", map[string]any{"role": "assistant", "content": draft}, "<think> block"},
		{"openai, reasoning_content only", "openai", map[string]any{"role": "assistant", "content": nil, "reasoning_content": "The context says develop."}, "reasoning_content"},
		{"openai, a tool call", "openai", map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "t", "type": "function", "function": map[string]any{"name": "verdict", "arguments": "{}"}}}}, "tool call"},
		{"anthropic, unclosed think", "anthropic", map[string]any{"text": draft}, "<think> block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newWireServer(t, c.format, func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
				if c.format == "openai" {
					writeJSON(w, map[string]any{"choices": []any{map[string]any{"index": 0, "message": c.message, "finish_reason": "stop"}}})
					return
				}
				writeJSON(w, map[string]any{"type": "message", "stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": c.message["text"]}}})
			})
			b, _ := newWireBackend(t, s, HTTPConfig{})
			a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
			if err != nil || a.Verdict != fixture.Error || !strings.Contains(a.Reason, c.want) || s.requests.Load() != 1 {
				t.Errorf("got %+v, %v after %d requests; want an error verdict naming %q after 1", a, err, s.requests.Load(), c.want)
			}
			if errors.Is(a.Err, ErrUnavailable) {
				t.Errorf("%v: counted as the judge being unavailable", a.Err)
			}
		})
	}
}

// TestSupportedWithoutAnswer: a supported reply that gives no answer (a
// template asking for the verdict alone, which README allows) stays
// supported, with a reason saying the agreement was not checked; the
// agreement question, comparing the expected answer with nothing, is
// not asked (a new user's trial saw its "no" turn all 43 supported items
// into contradictions).
func TestSupportedWithoutAnswer(t *testing.T) {
	for _, reply := range []string{`{"verdict":"supported"}`, `{"verdict":"supported","answer":"  "}`} {
		var s *wireServer
		s = newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) { s.reply(w, reply) })
		b, _ := newWireBackend(t, s, HTTPConfig{})
		a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if err != nil || a.Verdict != fixture.Supported || a.Reason != noAnswerReason || s.requests.Load() != 1 {
			t.Errorf("%s: got %+v, %v after %d requests; want supported, the reason, 1 request", reply, a, err, s.requests.Load())
		}
	}
}

// TestKeyRedacted: a server that echoes the key it refused — OpenAI's
// 401 "Incorrect API key provided: …", LiteLLM's auth error sent with
// status 200 — does not get it onto stderr or into a verdict's reason
// (a new user's trial found it in both).
func TestKeyRedacted(t *testing.T) {
	const key = "test-key" // newWireBackend's
	t.Run("401", func(t *testing.T) {
		s := newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`. You can find your API key at …","type":"invalid_request_error","code":"invalid_api_key"}}`)
		})
		b, _ := newWireBackend(t, s, HTTPConfig{})
		_, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[the API key]") || !errors.Is(err, ErrMisconfigured) {
			t.Errorf("err = %v; want it misconfigured, without the key", err)
		}
	})
	t.Run("LiteLLM's 200", func(t *testing.T) {
		s := newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
			writeJSON(w, map[string]any{"error": map[string]any{"message": "Authentication Error, Invalid proxy server token passed. Received API Key = " + key + ", Key Hash (Token) =abc", "type": "auth_error", "code": "401"}})
		})
		b, _ := newWireBackend(t, s, HTTPConfig{Retry: Retry{MaxAttempts: 2}})
		a, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
		// An authentication error, status 200 or not, stops the run after
		// one request (a second trial saw 49 retries, then "judge
		// unavailable").
		if !errors.Is(err, ErrMisconfigured) || s.requests.Load() != 1 {
			t.Errorf("err = %v after %d requests; want misconfigured after 1", err, s.requests.Load())
		}
		text := a.Reason
		if err != nil {
			text += err.Error()
		}
		if a.Err != nil {
			text += a.Err.Error()
		}
		if strings.Contains(text, key) {
			t.Errorf("the key is in %q", text)
		}
	})
}

// TestOllamaModelNotFound: Ollama's 404 for a model it does not have
// (an api_error: `model "x" not found, try pulling it first`) stops the
// run after one request, as OpenAI's model_not_found does (a new user's
// trial made 145 requests of it); OpenRouter's "No endpoints found", one
// request's, does not (TestQuestionFailures).
func TestOllamaModelNotFound(t *testing.T) {
	s := newWireServer(t, "openai", func(_ int, w http.ResponseWriter, _ *http.Request, _ string) {
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"model \"qwen\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`)
	})
	b, _ := newWireBackend(t, s, HTTPConfig{})
	_, err := (&Model{Backend: b}).Judge(context.Background(), sampleQuestion())
	if !errors.Is(err, ErrMisconfigured) || s.requests.Load() != 1 {
		t.Errorf("err = %v after %d requests; want misconfigured after 1", err, s.requests.Load())
	}
}
