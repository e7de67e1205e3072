package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Defaults for the Anthropic backend.
const (
	DefaultAnthropicBaseURL   = "https://api.anthropic.com"
	DefaultAnthropicKeyEnv    = "ANTHROPIC_API_KEY"
	DefaultAnthropicMaxTokens = 1024
	anthropicVersion          = "2023-06-01"
)

// AnthropicConfig configures an Anthropic backend.
type AnthropicConfig struct {
	// BaseURL is the API root without "/v1" (default
	// DefaultAnthropicBaseURL); requests go to BaseURL/v1/messages.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// KeyEnv names the environment variable holding the API key, sent as
	// x-api-key (default DefaultAnthropicKeyEnv).
	KeyEnv string
	// MaxTokens bounds the reply (0: DefaultAnthropicMaxTokens).
	MaxTokens int
	// HTTP configures timeouts, retries and limits.
	HTTP HTTPConfig
}

// Anthropic is a Backend for the Anthropic Messages API: one user
// message, temperature 0; the reply is the text blocks of content[],
// concatenated.
type Anthropic struct {
	name, url, model, key string
	maxTokens             int
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
	if cfg.KeyEnv == "" {
		cfg.KeyEnv = DefaultAnthropicKeyEnv
	}
	name := "anthropic/" + cfg.Model
	h, err := newHTTPClient(name, cfg.BaseURL, cfg.HTTP)
	if err != nil {
		return nil, err
	}
	return &Anthropic{
		name: name, url: strings.TrimRight(cfg.BaseURL, "/") + "/v1/messages",
		model: cfg.Model, key: os.Getenv(cfg.KeyEnv), maxTokens: cfg.MaxTokens, http: h,
	}, nil
}

// Name is "anthropic/" and the model.
func (a *Anthropic) Name() string { return a.name }

// anthropicRequest is a Messages API request body.
type anthropicRequest struct {
	Model       string        `json:"model"`
	MaxTokens   int           `json:"max_tokens"`
	Temperature float64       `json:"temperature"`
	Messages    []chatMessage `json:"messages"`
}

// anthropicResponse is the part of a Messages API response read.
type anthropicResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// Complete sends prompt as the one user message and returns the reply.
func (a *Anthropic) Complete(ctx context.Context, prompt string) (string, error) {
	body, err := json.Marshal(anthropicRequest{
		Model: a.model, MaxTokens: a.maxTokens,
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
		var sb strings.Builder
		for _, c := range r.Content {
			if c.Type == "text" {
				sb.WriteString(c.Text)
			}
		}
		if sb.Len() == 0 {
			return errors.New("the response has no text content")
		}
		text = sb.String()
		return nil
	})
	if err != nil {
		return "", err
	}
	return text, nil
}
