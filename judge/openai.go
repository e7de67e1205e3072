package judge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
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
	// servers; no Authorization header is sent then. It is an error
	// when KeyEnv is given and empty or unset, or when BaseURL is
	// OpenAI's own and there is no key.
	KeyEnv string
	// Seed is sent with every request, with Temperature, so a server
	// that honours it answers reproducibly.
	Seed int64
	// Temperature is sent with every request (0, the default, for
	// reproducible verdicts; OpenAI's reasoning models, the o-series and
	// gpt-5, accept only 1). A temperature other than 0 is part of the
	// backend's Identity, so its replies are cached apart.
	Temperature float64
	// MaxTokens bounds the reply when positive (0: not sent).
	MaxTokens int
	// HTTP configures timeouts, retries and limits.
	HTTP HTTPConfig
}

// OpenAI is a Backend for any server speaking the OpenAI chat-completions
// wire format: one user message, temperature 0, a fixed seed; the reply
// is choices[0].message.content, a string or the text of its parts (a
// reasoning block <think>…</think> at its start dropped). A reply cut at
// the token limit (finish_reason "length"), filtered ("content_filter")
// or refused (message.refusal) is a *ReplyError.
type OpenAI struct {
	name, url, model, key string
	keyEnv                string
	// completionTokens sends the reply's bound as max_completion_tokens,
	// which OpenAI's own API takes for every model (its reasoning
	// models refuse max_tokens); other servers get max_tokens.
	completionTokens bool
	seed             int64
	temperature      float64
	maxTokens        int
	http             *httpClient
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
	if math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 || cfg.Temperature > 2 {
		return nil, fmt.Errorf("openai: temperature must be between 0 and 2, got %v", cfg.Temperature)
	}
	name := "openai/" + cfg.Model
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: no base URL given: the API root, such as https://api.openai.com/v1 or http://127.0.0.1:8000/v1 for a local server")
	}
	h, err := newHTTPClient(name, cfg.BaseURL, cfg.HTTP)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	if p := strings.TrimRight(u.Path, "/"); strings.HasSuffix(p, "/chat/completions") {
		u.Path = strings.TrimSuffix(p, "/chat/completions")
		return nil, fmt.Errorf("openai: base URL %q names the endpoint; give the API root (%s): tally adds /chat/completions", cfg.BaseURL, u.String())
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	endpointURL, err := endpoint(cfg.BaseURL, "/chat/completions")
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	key, keyEnv, err := apiKey("openai", cfg.KeyEnv, DefaultOpenAIKeyEnv, base, "api.openai.com")
	if err != nil {
		return nil, err
	}
	return &OpenAI{
		name: name, url: endpointURL, completionTokens: u.Host == "api.openai.com",
		model: cfg.Model, key: key, keyEnv: keyEnv, seed: cfg.Seed, temperature: cfg.Temperature, maxTokens: cfg.MaxTokens, http: h,
	}, nil
}

// apiKey reads the key from the environment variable env (def when env is
// ""). A variable named explicitly must hold a key; so must the default
// one when the base URL is the vendor's own host (a local server or a
// proxy may need none).
// It returns the key and the variable's name.
func apiKey(backend, env, def, base, host string) (key, name string, err error) {
	name = env
	if name == "" {
		name = def
	}
	key = strings.TrimSpace(os.Getenv(name))
	switch {
	case key != "":
		return key, name, nil
	case env != "":
		return "", name, fmt.Errorf("%s: the API key variable %s is empty or unset", backend, env)
	case strings.Contains(base, "://"+host):
		return "", name, fmt.Errorf("%s: %s is empty or unset, and %s needs a key", backend, def, host)
	}
	return "", name, nil
}

// Name is "openai/" and the model.
func (o *OpenAI) Name() string { return o.name }

// Identity is Name, and the temperature when it is not 0: replies at
// another temperature are cached apart.
func (o *OpenAI) Identity() string {
	if o.temperature == 0 {
		return o.name
	}
	return fmt.Sprintf("%s?temperature=%g", o.name, o.temperature)
}

// chatMessage is one message of a chat request, in both wire formats.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// openAIRequest is a chat-completions request body; temperature is always
// sent, so 0 is not omitted.
type openAIRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	Temperature         float64       `json:"temperature"`
	Seed                int64         `json:"seed"`
	MaxTokens           int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
}

// openAIResponse is the part of a chat-completions response read.
type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content openAIContent `json:"content"`
			Refusal *string       `json:"refusal"`
			// ReasoningContent (vLLM's, DeepSeek's), Reasoning
			// (Ollama's, OpenRouter's) and ToolCalls are only looked
			// at, to say why a reply has no text.
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
}

// openAIEnded are the finish reasons of a reply that ended by itself:
// "stop" (OpenAI's, and vLLM's, Ollama's, llama.cpp's), none (null, or
// missing on servers that leave it out), and the names some servers use
// for the same ("eos", "eos_token", "end_turn", "stop_sequence"). Any
// other — "length", "tool_calls", "error", "abort" — is a *ReplyError.
var openAIEnded = map[string]bool{"": true, "stop": true, "eos": true, "eos_token": true, "end_turn": true, "stop_sequence": true}

// openAIContent is a message's content: a string, null, or a list of
// parts, whose text parts ("text", "output_text") are joined and whose
// others (a Mistral reasoning model's "thinking") are left out.
type openAIContent string

// UnmarshalJSON decodes the three shapes.
func (c *openAIContent) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*c = ""
		return nil
	case len(b) > 0 && b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "output_text" {
				sb.WriteString(p.Text)
			}
		}
		*c = openAIContent(sb.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = openAIContent(s)
	return nil
}

// Complete sends prompt as the one user message and returns the reply.
func (o *OpenAI) Complete(ctx context.Context, prompt string) (string, error) {
	req := openAIRequest{
		Model:    o.model,
		Messages: []chatMessage{{Role: "user", Content: prompt}},
		Seed:     o.seed, Temperature: o.temperature,
	}
	if o.completionTokens {
		req.MaxCompletionTokens = o.maxTokens
	} else {
		req.MaxTokens = o.maxTokens
	}
	body, err := json.Marshal(req)
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
				err := fmt.Errorf("the response has no choices, only the error %q", firstBytes([]byte(r.Error.Message), errorBodyBytes))
				code := strings.Trim(string(r.Error.Code), `"`)
				if code == "401" || code == "403" || strings.Contains(strings.ToLower(r.Error.Type), "auth") {
					// A proxy's authentication error sent with status 200
					// (LiteLLM's auth_error, code "401"): every request
					// would get it (a trial's run retried 49 times).
					return misconfigured(fmt.Errorf("%w (an authentication error: check the key)", err))
				}
				return err
			}
			return errors.New("the response has no choices")
		}
		ch := r.Choices[0]
		switch {
		case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
			return &ReplyError{Stop: "refusal", Detail: fmt.Sprintf("the model refused: %q", firstBytes([]byte(*ch.Message.Refusal), errorBodyBytes))}
		case ch.FinishReason == "length":
			return cutReply(ch.FinishReason)
		case ch.FinishReason == "content_filter":
			return &ReplyError{Stop: ch.FinishReason, Detail: "the server's content filter withheld it"}
		case !openAIEnded[ch.FinishReason]:
			return &ReplyError{Stop: ch.FinishReason, Detail: "not a reply that ended by itself (stop), so it is not read"}
		}
		if thinkingOpen(string(ch.Message.Content)) {
			return unsettled(cmp.Or(ch.FinishReason, "stop"))
		}
		c := stripThinking(string(ch.Message.Content))
		if strings.TrimSpace(c) == "" && ch.FinishReason != "" {
			// A reply that ended by itself with no text is the model's,
			// and would come again: no retry, and not the judge being
			// unavailable (a trial's breaker opened on them).
			switch {
			case given(ch.Message.ReasoningContent) || given(ch.Message.Reasoning):
				return &ReplyError{Stop: ch.FinishReason, Detail: "it has reasoning_content and no text content: a reasoning model that ended while thinking, or a server putting the answer there (raise --max-tokens)"}
			case given(ch.Message.ToolCalls):
				return &ReplyError{Stop: ch.FinishReason, Detail: "it is a tool call, not text: the judge's answer must be text"}
			}
			return &ReplyError{Stop: ch.FinishReason, Detail: "it has no text content"}
		}
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("the response's first choice has no text content (finish_reason %q)", ch.FinishReason)
		}
		content = c
		return nil
	})
	if err != nil {
		return "", redact(hint(err, o.url, o.keyEnv, o.key != ""), o.key)
	}
	return content, nil
}

// given reports whether a JSON value is there and holds something: not
// missing, null, "", [] or {}.
func given(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "", "null", `""`, "[]", "{}":
		return false
	}
	return true
}

// Traffic is what the judge has sent so far: requests, retries included,
// and those answered 429.
func (o *OpenAI) Traffic() Traffic { return o.http.traffic() }
