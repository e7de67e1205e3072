package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrMisconfigured is wrapped by a Backend's error when the failure is
// the run's, not the question's: every question would fail the same way,
// so Check stops at the first instead of recording thousands of error
// verdicts. It is an HTTP 401 or 403 (the key), a 404 (the base URL or
// the model), a quota that is spent (OpenAI's insufficient_quota, which
// no wait cures), or a request parameter the model refuses (OpenAI's
// unsupported_parameter and unsupported_value, as a reasoning model's
// answer to temperature 0). Test it with errors.Is.
var ErrMisconfigured = errors.New("the judge is misconfigured")

// misconfigured marks err as ErrMisconfigured.
func misconfigured(err error) error { return &marked{err: err, mark: ErrMisconfigured} }

// ReplyError is a 2xx reply the model ended without a usable answer: cut
// at the token limit (OpenAI finish_reason "length", Anthropic
// stop_reason "max_tokens"), withheld by a content filter, or a refusal.
// The same prompt gets the same reply at temperature 0, so it is neither
// retried nor re-asked, and never cached: the question's verdict is
// error, with this as its reason. A cut reply is never parsed — the
// text before the cut can hold a verdict the model had not settled on.
type ReplyError struct {
	// Stop is the finish or stop reason the API gave.
	Stop string
	// Detail is the refusal's text, or advice.
	Detail string
}

// Error says why the reply was not used.
func (e *ReplyError) Error() string {
	msg := fmt.Sprintf("the reply ended with %q", e.Stop)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// cutReply is the ReplyError of a reply cut at the token limit.
func cutReply(stop string) *ReplyError {
	return &ReplyError{Stop: stop, Detail: "cut at the token limit before it ended, so it is not read (raise --max-tokens)"}
}

// apiError is the error object of an error body: {"error": {"message",
// "type", "code", …}} (OpenAI, and servers copying it), {"type":
// "error", "error": {"type", "message"}} (Anthropic), or the object itself
// at the top level, {"object": "error", "message", "type", "code"} (vLLM
// before 0.10).
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // a string, a number or null
}

// code is the error's code as text, "" when it has none or it is a
// number (an HTTP status repeated).
func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return ""
}

// parseAPIError reads the error object of body, if it has one with a
// message or a type.
func parseAPIError(body []byte) (*apiError, bool) {
	var v struct {
		Error  json.RawMessage `json:"error"`
		Object string          `json:"object"`
		apiError
	}
	if json.Unmarshal(body, &v) != nil {
		return nil, false
	}
	var e apiError
	switch {
	case len(v.Error) > 0 && v.Error[0] == '{':
		if json.Unmarshal(v.Error, &e) != nil {
			return nil, false
		}
	case v.Object == "error":
		e = v.apiError
	default:
		return nil, false
	}
	if e.Message == "" && e.Type == "" {
		return nil, false
	}
	return &e, true
}

// describeBody is what an error line says of an error response's body:
// the API's own code or type and message when it sent an error object,
// else the start of the body, its white space collapsed (a plain-text
// or HTML body), unquoted: it is quoted once, where it is shown.
func describeBody(body []byte) string {
	e, ok := parseAPIError(body)
	if !ok {
		t := strings.Join(strings.Fields(firstBytes(body, errorBodyBytes)), " ")
		if t == "" {
			return "(an empty body)"
		}
		return t
	}
	kind := e.code()
	if kind == "" {
		kind = e.Type
	}
	msg := strings.Join(strings.Fields(firstBytes([]byte(e.Message), 2*errorBodyBytes)), " ")
	switch {
	case kind == "":
		return msg
	case msg == "":
		return kind
	}
	return kind + ": " + msg
}

// runKinds are the error codes and types (OpenAI's code, Anthropic's
// and vLLM's type) that say a request failed for a reason every request
// shares: the key, the account, the model, a parameter the model
// refuses. No retry, wait or other prompt cures them.
var runKinds = map[string]bool{
	// OpenAI error codes.
	"insufficient_quota": true, "unsupported_parameter": true, "unsupported_value": true,
	"invalid_api_key": true, "model_not_found": true, "unsupported_country_region_territory": true,
	// Anthropic error types.
	"authentication_error": true, "permission_error": true, "not_found_error": true, "billing_error": true,
	// vLLM's.
	"NotFoundError": true,
}

// runFailure reports whether an error response says the run, not this
// question, is at fault (see ErrMisconfigured): a 401 (the key) or 402
// (the account), an error whose code or type is one of runKinds, a
// credit balance too low (Anthropic's 400), or a 404 whose body is no
// API error (the base URL is wrong). A 403 or 404 the API explains
// otherwise — a moderation flag on one input, no provider free for one
// request (OpenRouter's) — is the question's.
func runFailure(status int, body []byte) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusPaymentRequired:
		return true
	}
	e, ok := parseAPIError(body)
	if !ok {
		return status == http.StatusNotFound
	}
	if m := strings.ToLower(e.Message); status == http.StatusNotFound && strings.Contains(m, "model") && strings.Contains(m, "not found") {
		// Ollama's `model "x" not found, try pulling it first`, an
		// api_error: a trial's run made 145 requests of it. (OpenRouter's
		// "No endpoints found" is one request's, and the run goes on.)
		return true
	}
	return runKinds[e.code()] || runKinds[e.Type] || strings.Contains(strings.ToLower(e.Message), "credit balance")
}

// statusText is the status's name, with the ones net/http does not know
// that the APIs send (Anthropic's 529).
func statusText(code int) string {
	if code == 529 {
		return "Overloaded"
	}
	return http.StatusText(code)
}

// rateLimitReset reads OpenAI's x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens headers (durations such as "1s", "6m0s",
// "11.9s", "20ms"; OpenAI's rate-limit guide), the longer of the two:
// how long until a 429 that carried no Retry-After can be answered.
func rateLimitReset(h http.Header) (time.Duration, bool) {
	var most time.Duration
	ok := false
	for _, name := range []string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"} {
		d, err := time.ParseDuration(strings.TrimSpace(h.Get(name)))
		if err == nil && d >= 0 {
			most, ok = max(most, d), true
		}
	}
	return most, ok
}

// redacted is an error whose message had the API key in it — a server
// echoing the key it refused ("Incorrect API key provided: sk-…",
// LiteLLM's "Received API Key = …"), which a new user's trial saw on
// stderr and in the verdicts' reasons — with the key replaced. It wraps
// the error, so errors.Is and errors.As still see through it.
type redacted struct {
	err error
	key string
}

func (r *redacted) Error() string {
	return strings.ReplaceAll(r.err.Error(), r.key, "[the API key]")
}

func (r *redacted) Unwrap() error { return r.err }

// redact returns err with key taken out of its message, or err itself
// when the message does not hold it (or there is no key).
func redact(err error, key string) error {
	if err == nil || len(key) < 8 || !strings.Contains(err.Error(), key) {
		return err
	}
	return &redacted{err: err, key: key}
}

// thinkingOpen reports whether the reply s starts a <think> block and
// never closes it: a reasoning model that stopped while still thinking,
// whose text holds at most a draft verdict (a new user's trial saw the
// draft read as the answer).
func thinkingOpen(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(t, "<think>") && !strings.Contains(t, "</think>")
}

// unsettled is the ReplyError of a reply that ended inside its
// thinking (thinkingOpen).
func unsettled(stop string) *ReplyError {
	return &ReplyError{Stop: stop, Detail: "it ends inside the <think> block it opened, so any verdict in it is a draft and it is not read (raise --max-tokens, or serve the model with a reasoning parser)"}
}

// stripThinking drops a reasoning model's <think>…</think> block from the
// start of a reply, as a DeepSeek-R1 or Qwen3 model served without a
// reasoning parser writes it into the content; when the chat template
// opened the block itself, the reply holds only its end, and everything
// up to the first </think> is the reasoning. A block never closed leaves
// the reply as it is.
func stripThinking(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	end := strings.Index(t, "</think>")
	if end < 0 {
		return s
	}
	if open := strings.Index(t, "<think>"); open > 0 && open < end {
		return s // a block that does not start the reply is the answer's own text
	}
	return strings.TrimLeft(t[end+len("</think>"):], " \t\r\n")
}

// endpoint is base with path appended to its path, its query (Azure's
// ?api-version=…) kept.
func endpoint(base, path string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	return u.String(), nil
}

// hint adds to a misconfigured backend's error what to check: where the
// key came from (401, 403), or where the requests went (404).
func hint(err error, url, keyEnv string, haveKey bool) error {
	var herr *HTTPError
	if !errors.Is(err, ErrMisconfigured) || !errors.As(err, &herr) {
		return err
	}
	switch herr.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if !haveKey {
			return fmt.Errorf("%w (no key was sent: %s is empty or unset)", err, keyEnv)
		}
		return fmt.Errorf("%w (the key is %s's)", err, keyEnv)
	case http.StatusNotFound:
		return fmt.Errorf("%w (requests go to %s: is --base-url the API's root, and --model a model it serves?)", err, url)
	}
	return err
}
