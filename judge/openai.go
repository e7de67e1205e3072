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

// DefaultOpenAIKeyEnv is the environment variable an OpenAI backend reads
// its API key from unless told otherwise.
const DefaultOpenAIKeyEnv = "OPENAI_API_KEY"

// OpenAIConfig configures an OpenAI backend.
type OpenAIConfig struct {
	// BaseURL is the API root, for example "http://127.0.0.1:8080/v1" or
	// "https://api.openai.com/v1"; requests go to BaseURL/chat/completions.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// KeyEnv names the environment variable holding the API key
	// (default DefaultOpenAIKeyEnv). An empty key is allowed, for local
	// servers; no Authorization header is sent then.
	KeyEnv string
	// Seed is sent with every request, with temperature 0, so a server
	// that honours it answers reproducibly.
	Seed int64
	// MaxTokens bounds the reply when positive (0: not sent).
	MaxTokens int
	// HTTP configures timeouts, retries and limits.
	HTTP HTTPConfig
}

// OpenAI is a Backend for any server speaking the OpenAI chat-completions
// wire format: one user message, temperature 0, a fixed seed; the reply
// is choices[0].message.content.
type OpenAI struct {
	name, url, model, key string
	seed                  int64
	maxTokens             int
	http                  *httpClient
}

// NewOpenAI validates cfg, reads the API key from the environment and
// returns the backend.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai: no model given")
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: max tokens must not be negative, got %d", cfg.MaxTokens)
	}
	name := "openai/" + cfg.Model
	h, err := newHTTPClient(name, cfg.BaseURL, cfg.HTTP)
	if err != nil {
		return nil, err
	}
	env := cfg.KeyEnv
	if env == "" {
		env = DefaultOpenAIKeyEnv
	}
	return &OpenAI{
		name: name, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		model: cfg.Model, key: os.Getenv(env), seed: cfg.Seed, maxTokens: cfg.MaxTokens, http: h,
	}, nil
}

// Name is "openai/" and the model.
func (o *OpenAI) Name() string { return o.name }

// chatMessage is one message of a chat request, in both wire formats.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// openAIRequest is a chat-completions request body; temperature is always
// sent, so 0 is not omitted.
type openAIRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	Seed        int64         `json:"seed"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
}

// openAIResponse is the part of a chat-completions response read.
type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Complete sends prompt as the one user message and returns the reply.
func (o *OpenAI) Complete(ctx context.Context, prompt string) (string, error) {
	body, err := json.Marshal(openAIRequest{
		Model:    o.model,
		Messages: []chatMessage{{Role: "user", Content: prompt}},
		Seed:     o.seed, MaxTokens: o.maxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("%s: encoding the request: %w", o.name, err)
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if o.key != "" {
		header.Set("Authorization", "Bearer "+o.key)
	}
	var content string
	err = o.http.post(ctx, o.url, header, body, func(b []byte) error {
		var r openAIResponse
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("the response is not chat-completions JSON (%v): %q", err, firstBytes(b, errorBodyBytes))
		}
		if len(r.Choices) == 0 {
			if r.Error != nil {
				return fmt.Errorf("the response has no choices, only the error %q", firstBytes([]byte(r.Error.Message), errorBodyBytes))
			}
			return errors.New("the response has no choices")
		}
		c := r.Choices[0].Message.Content
		if c == nil || *c == "" {
			return errors.New("the response's first choice has no content")
		}
		content = *c
		return nil
	})
	if err != nil {
		return "", err
	}
	return content, nil
}
