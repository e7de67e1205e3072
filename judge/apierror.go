package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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

// apiError is the error object of an OpenAI or Anthropic error body:
// {"error": {"message", "type", "code", "param"}} (OpenAI) or
// {"type": "error", "error": {"type", "message"}} (Anthropic).
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // a string, a number or null
	Param   *string         `json:"param"`
}

// code is the error's code as text, "" when it has none.
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
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil || (v.Error.Message == "" && v.Error.Type == "") {
		return nil, false
	}
	return v.Error, true
}

// describeBody is what an error line says of an error response's body:
// the API's own code or type and message when it sent an error object,
// else the start of the body, quoted.
func describeBody(body []byte) string {
	e, ok := parseAPIError(body)
	if !ok {
		return fmt.Sprintf("%q", firstBytes(body, errorBodyBytes))
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

// misconfiguredCodes are the OpenAI error codes that no retry, wait or
// other prompt cures.
var misconfiguredCodes = map[string]bool{
	"insufficient_quota": true, "unsupported_parameter": true, "unsupported_value": true,
	"invalid_api_key": true, "model_not_found": true,
}

// runFailure reports whether an error response says the run, not this
// question, is at fault (see ErrMisconfigured).
func runFailure(status int, body []byte) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	e, ok := parseAPIError(body)
	return ok && misconfiguredCodes[e.code()]
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

// stripThinking drops a reasoning model's <think>…</think> block from the
// start of a reply, as a DeepSeek-R1 or Qwen3 model served without a
// reasoning parser writes it into the content. A block never closed
// leaves the reply as it is.
func stripThinking(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	end := strings.Index(t, "</think>")
	if end < 0 {
		return s
	}
	return strings.TrimLeft(t[end+len("</think>"):], " \t\r\n")
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
