package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
)

// Defaults for the Anthropic backend.
const (
	DefaultAnthropicBaseURL   = "https://api.anthropic.com"
	DefaultAnthropicKeyEnv    = "ANTHROPIC_API_KEY"
	DefaultAnthropicMaxTokens = 4096
	anthropicVersion          = "2023-06-01"
)

// AnthropicConfig configures an Anthropic backend.
type AnthropicConfig struct {
	// BaseURL is the API root (default DefaultAnthropicBaseURL);
	// requests go to BaseURL/v1/messages, a "/v1" it ends with not
	// doubled.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// KeyEnv names the environment variable holding the API key, sent as
	// x-api-key (default DefaultAnthropicKeyEnv). It is an error when
	// KeyEnv is given and empty or unset, or when BaseURL is Anthropic's
	// own and there is no key (a proxy may need none).
	KeyEnv string
	// MaxTokens bounds the reply (0: DefaultAnthropicMaxTokens); a reply
	// cut there is a *ReplyError.
	MaxTokens int
	// Temperature is sent with every request (0, the default, for
	// reproducible verdicts); one other than 0 is part of Identity.
	Temperature float64
	// HTTP configures timeouts, retries and limits.
	HTTP HTTPConfig
}

// Anthropic is a Backend for the Anthropic Messages API: one user
// message, temperature 0; the reply is the text blocks of content[],
// concatenated (thinking blocks left out). A reply that did not end by
// itself — stop_reason other than end_turn or stop_sequence: cut at
// max_tokens or the context window, refused, paused, a tool call — is a
// *ReplyError; an error object sent with status 200 is an unusable
// reply, retried.
type Anthropic struct {
	name, url, model, key string
	keyEnv                string
	maxTokens             int
	temperature           float64
	http                  *httpClient
}

// NewAnthropic validates cfg, reads the API key from the environment and
// returns the backend.
func NewAnthropic(cfg AnthropicConfig) (*Anthropic, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("anthropic: no model given")
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: max tokens must not be negative, got %d", cfg.MaxTokens)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultAnthropicMaxTokens
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultAnthropicBaseURL
	}
	if math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 || cfg.Temperature > 1 {
		return nil, fmt.Errorf("anthropic: temperature must be between 0 and 1, got %v", cfg.Temperature)
	}
	name := "anthropic/" + cfg.Model
	h, err := newHTTPClient(name, cfg.BaseURL, cfg.HTTP)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if strings.HasSuffix(strings.SplitN(base, "?", 2)[0], "/messages") {
		return nil, fmt.Errorf("anthropic: base URL %q names the endpoint; give the API root: tally adds /v1/messages", cfg.BaseURL)
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	endpointURL, err := endpoint(u.String(), "/v1/messages")
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	key, keyEnv, err := apiKey("anthropic", cfg.KeyEnv, DefaultAnthropicKeyEnv, base, "api.anthropic.com")
	if err != nil {
		return nil, err
	}
	return &Anthropic{
		name: name, url: endpointURL,
		model: cfg.Model, key: key, keyEnv: keyEnv, maxTokens: cfg.MaxTokens, temperature: cfg.Temperature, http: h,
	}, nil
}

// Name is "anthropic/" and the model.
func (a *Anthropic) Name() string { return a.name }

// Identity is Name, and the temperature when it is not 0.
func (a *Anthropic) Identity() string {
	if a.temperature == 0 {
		return a.name
	}
	return fmt.Sprintf("%s?temperature=%g", a.name, a.temperature)
}

// anthropicRequest is a Messages API request body.
type anthropicRequest struct {
	Model       string        `json:"model"`
	MaxTokens   int           `json:"max_tokens"`
	Temperature float64       `json:"temperature"`
	Messages    []chatMessage `json:"messages"`
}

// anthropicResponse is the part of a Messages API response read.
type anthropicResponse struct {
	Type    string `json:"type"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
}

// Complete sends prompt as the one user message and returns the reply.
func (a *Anthropic) Complete(ctx context.Context, prompt string) (string, error) {
	body, err := json.Marshal(anthropicRequest{
		Model: a.model, MaxTokens: a.maxTokens, Temperature: a.temperature,
		Messages: []chatMessage{{Role: "user", Content: prompt}},
	})
	if err != nil {
		return "", fmt.Errorf("%s: encoding the request: %w", a.name, err)
	}
	header := http.Header{
		"Content-Type":      {"application/json"},
		"Anthropic-Version": {anthropicVersion},
	}
	if a.key != "" {
		header.Set("X-Api-Key", a.key)
	}
	var text string
	err = a.http.post(ctx, a.url, header, body, func(b []byte) error {
		var r anthropicResponse
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("the response is not Messages API JSON (%v): %q", err, firstBytes(b, errorBodyBytes))
		}
		switch r.StopReason {
		case "", "end_turn", "stop_sequence":
		case "max_tokens", "model_context_window_exceeded":
			return cutReply(r.StopReason)
		case "refusal":
			return &ReplyError{Stop: r.StopReason, Detail: "the model refused"}
		default: // tool_use, pause_turn, and any the API adds
			return &ReplyError{Stop: r.StopReason, Detail: "not a reply that ended by itself (end_turn), so it is not read"}
		}
		if r.Type == "error" {
			return fmt.Errorf("the response is an error: %s", describeBody(b))
		}
		var sb strings.Builder
		for _, c := range r.Content {
			if c.Type == "text" {
				sb.WriteString(c.Text)
			}
		}
		if strings.TrimSpace(sb.String()) == "" {
			return fmt.Errorf("the response has no text content (stop_reason %q)", r.StopReason)
		}
		if thinkingOpen(sb.String()) {
			return unsettled(r.StopReason)
		}
		text = stripThinking(sb.String())
		return nil
	})
	if err != nil {
		return "", redact(hint(err, a.url, a.keyEnv, a.key != ""), a.key)
	}
	return text, nil
}

// Traffic is what the judge has sent so far: requests, retries included,
// and those answered 429 or 529.
func (a *Anthropic) Traffic() Traffic { return a.http.traffic() }
