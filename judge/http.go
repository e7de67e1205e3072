package judge

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// maxResponseBytes bounds the body an HTTP backend reads.
const maxResponseBytes = 8 << 20

// errorBodyBytes is how much of an error response's body an HTTPError
// keeps.
const errorBodyBytes = 200

// HTTPConfig configures an HTTP backend's transport, retries and limits.
// The zero value is the defaults: a 60 s timeout per attempt, 5 attempts,
// no limit on concurrency or rate.
type HTTPConfig struct {
	// Client sends the requests (nil: a client of the backend's own,
	// honouring the proxy environment variables).
	Client *http.Client
	// Timeout bounds each attempt, reading the body included
	// (0: DefaultTimeout).
	Timeout time.Duration
	// Retry says when and how often to retry.
	Retry Retry
	// MaxInFlight bounds the requests in flight at once (0: unlimited).
	MaxInFlight int
	// PerSecond bounds the requests started per second, retries included
	// (0: unlimited).
	PerSecond float64
}

// HTTPError is an HTTP response with a status other than 2xx; backends
// return it wrapped with their name.
type HTTPError struct {
	StatusCode int
	Body       string // the first 800 bytes of the body
}

// Error names the status and what the body says: the API's error code
// or type and message when it sent an error object, else the start of
// the body, quoted.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.StatusCode, statusText(e.StatusCode), describeBody([]byte(e.Body)))
}

// retryableStatus reports whether an HTTP status is worth retrying.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// httpClient posts JSON with a per-attempt timeout, bounded retries and
// the backend's Limiter.
type httpClient struct {
	name    string
	client  *http.Client
	timeout time.Duration
	retry   Retry
	limiter *Limiter
	// requests counts the attempts made, limited those answered 429 or
	// 529 (Traffic).
	requests, limited atomic.Int64
}

// Traffic is what an HTTP judge sent: its requests, every attempt and
// retry included (a question is one or more), and how many of them the
// server answered 429 (rate limited) or 529 (Anthropic's overloaded).
type Traffic struct {
	Requests, RateLimited int64
}

// traffic is h's Traffic so far.
func (h *httpClient) traffic() Traffic {
	return Traffic{Requests: h.requests.Load(), RateLimited: h.limited.Load()}
}

// newHTTPClient validates cfg and baseURL and fills in the defaults.
func newHTTPClient(name, baseURL string, cfg HTTPConfig) (*httpClient, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an http or https URL", name, baseURL)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%s: timeout must not be negative, got %v", name, cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	retry, err := cfg.Retry.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lim, err := NewLimiter(cfg.MaxInFlight, cfg.PerSecond)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	client := cfg.Client
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(cfg.MaxInFlight, 16)
		client = &http.Client{Transport: tr}
	}
	return &httpClient{name: name, client: client, timeout: cfg.Timeout, retry: retry, limiter: lim}, nil
}

// errUnusable200 marks an HTTP 2xx reply whose body decode rejected.
var errUnusable200 = errors.New("an unusable 2xx reply")

// post sends body to url until a usable 2xx reply, a permanent failure,
// the last attempt, or the end of ctx. A 2xx reply is usable when decode
// accepts its body; one it rejects (malformed JSON, no choices, no
// content: a server that is overloaded or half-up) is retried like a 5xx,
// except a *ReplyError (a reply cut at the token limit, filtered or
// refused), which the same prompt would get again. The error wraps
// ErrUnavailable unless ctx ended or the status is one not retried (a
// 4xx other than 408 and 429: the server refused this request, a 413 for
// a context too long, and may take the next); it wraps ErrMisconfigured
// for a failure every request would share (runFailure). A 429's wait is
// its Retry-After, else OpenAI's x-ratelimit-reset-* headers, capped by
// Retry.MaxRetryAfter.
func (h *httpClient) post(ctx context.Context, url string, header http.Header, body []byte, decode func([]byte) error) error {
	var last error
	for attempt := 1; attempt <= h.retry.MaxAttempts; attempt++ {
		resp, status, rh, err := h.attempt(ctx, url, header, body)
		if status == http.StatusTooManyRequests || status == 529 {
			h.limited.Add(1)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", h.name, ctx.Err())
		}
		wait := time.Duration(-1)
		switch {
		case err != nil:
			if !retryableTransport(err) { // a bad certificate, an unknown host: no prompt will do better
				return unavailable(fmt.Errorf("%s: %w", h.name, err))
			}
			last = err
		case status >= 200 && status < 300:
			derr := decode(resp)
			if derr == nil {
				return nil
			}
			var re *ReplyError
			if errors.As(derr, &re) || errors.Is(derr, ErrMisconfigured) {
				return fmt.Errorf("%s: %w", h.name, derr)
			}
			last = fmt.Errorf("HTTP %d but %w: %w", status, errUnusable200, derr)
		default:
			herr := &HTTPError{StatusCode: status, Body: firstBytes(resp, 4*errorBodyBytes)}
			if runFailure(status, resp) {
				return misconfigured(fmt.Errorf("%s: %w", h.name, herr))
			}
			if !retryableStatus(status) {
				return fmt.Errorf("%s: %w", h.name, herr)
			}
			last = herr
			if d, ok := parseRetryAfter(rh.Get("Retry-After"), time.Now()); ok {
				wait = min(d, h.retry.MaxRetryAfter)
			} else if d, ok := rateLimitReset(rh); ok && status == http.StatusTooManyRequests {
				wait = min(d, h.retry.MaxRetryAfter)
			}
		}
		if attempt == h.retry.MaxAttempts {
			break
		}
		if wait < 0 {
			wait = h.retry.backoff(attempt)
		}
		if err := h.retry.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}
	// Only failures worth retrying get here: the server is down, overloaded
	// or half-up, whatever the prompt.
	return unavailable(fmt.Errorf("%s: gave up after %d attempts; the last: %w", h.name, h.retry.MaxAttempts, last))
}

// attempt makes one request under the limiter and the attempt timeout.
func (h *httpClient) attempt(ctx context.Context, url string, header http.Header, body []byte) (resp []byte, status int, rh http.Header, err error) {
	release, err := h.limiter.Acquire(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	defer release()
	actx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, nil, err
	}
	req.Header = header.Clone()
	h.requests.Add(1)
	r, err := h.client.Do(req)
	if err != nil {
		return nil, 0, nil, h.timeoutError(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, maxResponseBytes+1))
	if err != nil {
		return nil, 0, nil, h.timeoutError(fmt.Errorf("reading the HTTP %d response: %w", r.StatusCode, err))
	}
	if len(b) > maxResponseBytes {
		return nil, 0, nil, fmt.Errorf("HTTP %d response is larger than %d bytes", r.StatusCode, maxResponseBytes)
	}
	return b, r.StatusCode, r.Header, nil
}

// timeoutError says "timed out" for an attempt's deadline, which
// net/http reports as a bare "context deadline exceeded".
func (h *httpClient) timeoutError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no response within %v: %w", h.timeout, err)
	}
	return err
}

// retryableTransport reports whether a failed request (not an HTTP status)
// might succeed if sent again: timeouts and connection failures, not
// certificate errors or malformed URLs.
func retryableTransport(err error) bool {
	var (
		unknownAuth *x509.UnknownAuthorityError
		hostname    x509.HostnameError
		invalid     x509.CertificateInvalidError
		verify      *tls.CertificateVerificationError
		dns         *net.DNSError
		netErr      net.Error
		opErr       *net.OpError
	)
	switch {
	case errors.As(err, &unknownAuth), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return false
	case errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &dns):
		return dns.IsTimeout || dns.IsTemporary
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &opErr):
		return true
	}
	return false
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an
// HTTP-date. A date in the past is a zero wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		const most = 1 << 30 // seconds; anything longer is capped anyway
		return time.Duration(min(n, most)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// firstBytes is b cut to at most n bytes at a UTF-8 boundary.
func firstBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut])
}
