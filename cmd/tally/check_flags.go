package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/internal/atomicfile"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/judge"
)

// judgeFlags are the flags that choose and configure the judge.
type judgeFlags struct {
	backend     string
	model       string
	baseURL     string
	keyEnv      string
	recorded    string
	command     string
	commandArgs []string
	template    string
	cache       string
	concurrency int
	rate        float64
	timeout     time.Duration
	attempts    int
	reasks      int
	seed        int64
	// maxTokens bounds a reply (0: the backend's default); temperature
	// is sent with every request.
	maxTokens   int
	temperature float64
	// maxRetryAfter caps a server's Retry-After; noAgree switches the
	// agreement question off.
	maxRetryAfter time.Duration
	noAgree       bool

	// opened is the cache build opened, nil when there is none.
	opened *judge.Cache
	// traffic is an HTTP judge's requests so far, nil for the others.
	traffic func() judge.Traffic
}

func (f *judgeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.backend, "judge", "", "judge backend: openai, anthropic, command or recorded")
	fl.StringVar(&f.model, "model", "", "model name: the one asked (openai, anthropic), and for a command judge the label of its verdicts and cache entries (give it, so that moving or re-spelling the command keeps the cache)")
	fl.StringVar(&f.baseURL, "base-url", "", "server base URL (openai: e.g. http://127.0.0.1:8080/v1; anthropic: default https://api.anthropic.com)")
	fl.StringVar(&f.keyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fl.StringVar(&f.recorded, "recorded", "", "recorded verdicts (JSONL of verdict records) for --judge recorded")
	fl.StringVar(&f.command, "command", "", "program for --judge command: reads the prompt on stdin, writes the reply on stdout")
	fl.StringArrayVar(&f.commandArgs, "command-arg", nil, "an argument for the --command program (repeat for several; no shell is involved)")
	fl.StringVar(&f.template, "template", "", "judge prompt template file (text/template with .Probe and .Context; default: the source text's JUDGE prompt)")
	fl.StringVar(&f.cache, "cache", ".tally-cache", "judge cache folder, shared safely between runs and processes (empty: no cache)")
	fl.IntVar(&f.concurrency, "concurrency", 8, "judge requests in flight")
	fl.Float64Var(&f.rate, "rate", 0, "judge requests per second (0: unlimited)")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "timeout of one judge call")
	fl.IntVar(&f.attempts, "attempts", judge.DefaultMaxAttempts, "attempts per HTTP call (retries on timeouts, connection failures, 429, 5xx and unusable 200 replies, with backoff)")
	fl.DurationVar(&f.maxRetryAfter, "max-retry-after", judge.DefaultMaxRetryAfter, "the longest wait a server's Retry-After may impose before a retry (a longer one is cut to this)")
	fl.BoolVar(&f.noAgree, "no-agree", false, "do not ask the agreement question: a supported answer stays supported without being compared with the fixture's expected answer, so a supported answer that inverts it is NOT caught as contradicted (for a judge that can answer only the verdict question)")
	fl.IntVar(&f.reasks, "reasks", judge.DefaultReasks, "times to re-ask after a reply that does not parse before recording error")
	fl.Int64Var(&f.seed, "seed", 0, "sampling seed sent to OpenAI-compatible servers")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, fmt.Sprintf("the longest reply, in tokens (openai: not sent unless given; anthropic: default %d); a reply cut there is an error verdict, never read or cached", judge.DefaultAnthropicMaxTokens))
	fl.Float64Var(&f.temperature, "temperature", 0, "sampling temperature sent with every request (openai, anthropic); 0 for reproducible verdicts, but OpenAI's reasoning models (o-series, gpt-5) accept only 1")
}

// build returns the judge the flags describe, reading --recorded and
// --template under lim.
func (f *judgeFlags) build(lim input.Limits) (judge.Judge, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	httpCfg := judge.HTTPConfig{
		Timeout:     f.timeout,
		Retry:       judge.Retry{MaxAttempts: f.attempts, MaxRetryAfter: f.maxRetryAfter},
		MaxInFlight: f.concurrency,
		PerSecond:   f.rate,
	}
	var backend judge.Backend
	var err error
	switch f.backend {
	case "recorded":
		if f.recorded == "" {
			return nil, usagef("--judge recorded needs --recorded FILE")
		}
		return judge.LoadRecorded(f.recorded, lim)
	case "openai":
		if f.baseURL == "" || f.model == "" {
			return nil, usagef("--judge openai needs --base-url (the API root, such as https://api.openai.com/v1) and --model")
		}
		backend, err = judge.NewOpenAI(judge.OpenAIConfig{BaseURL: f.baseURL, Model: f.model, KeyEnv: f.keyEnv, Seed: f.seed,
			MaxTokens: f.maxTokens, Temperature: f.temperature, HTTP: httpCfg})
	case "anthropic":
		if f.model == "" {
			return nil, usagef("--judge anthropic needs --model")
		}
		if f.temperature > 1 {
			return nil, usagef("--temperature %v: Anthropic's Messages API takes 0 to 1", f.temperature)
		}
		backend, err = judge.NewAnthropic(judge.AnthropicConfig{BaseURL: f.baseURL, Model: f.model, KeyEnv: f.keyEnv,
			MaxTokens: f.maxTokens, Temperature: f.temperature, HTTP: httpCfg})
	case "command":
		if f.command == "" {
			return nil, usagef("--judge command needs --command PROGRAM")
		}
		backend, err = judge.NewCommand(judge.CommandConfig{
			Argv: append([]string{f.command}, f.commandArgs...), Label: f.model,
			Timeout: f.timeout, MaxInFlight: f.concurrency, PerSecond: f.rate,
		})
	case "":
		return nil, usagef("--judge is required: openai, anthropic, command or recorded")
	default:
		return nil, usagef("--judge %q: want openai, anthropic, command or recorded", f.backend)
	}
	if err != nil {
		return nil, fmt.Errorf("--judge %s: %w", f.backend, err)
	}
	if t, ok := backend.(interface{ Traffic() judge.Traffic }); ok {
		f.traffic = t.Traffic
	}
	m := &judge.Model{Backend: backend, Reasks: f.reasks, NoAgree: f.noAgree}
	if f.reasks == 0 {
		m.Reasks = judge.NoReasks
	}
	if f.template != "" {
		if m.Template, err = judge.LoadTemplate(f.template, lim); err != nil {
			return nil, fmt.Errorf("--template: %w", err)
		}
	}
	if f.cache != "" {
		if m.Cache, err = judge.OpenCache(f.cache); err != nil {
			return nil, fmt.Errorf("--cache: %w", err)
		}
		f.opened = m.Cache
	}
	return m, nil
}

// validate refuses a numeric flag's value that it cannot take, as a
// usage error (exit 2), whichever backend would use it; none is replaced
// by a default.
func (f *judgeFlags) validate() error {
	switch {
	case f.concurrency < 1:
		return usagef("--concurrency must be at least 1, got %d", f.concurrency)
	case math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate < 0:
		return usagef("--rate must be a number of requests per second, 0 or more (0: unlimited), got %v", f.rate)
	case f.timeout <= 0:
		return usagef("--timeout must be positive, got %v", f.timeout)
	case f.attempts < 1:
		return usagef("--attempts must be at least 1 (1: no retry), got %d", f.attempts)
	case f.reasks < 0:
		return usagef("--reasks must not be negative (0: no re-ask), got %d", f.reasks)
	case f.maxRetryAfter <= 0:
		return usagef("--max-retry-after must be positive, got %v", f.maxRetryAfter)
	case f.maxTokens < 0:
		return usagef("--max-tokens must not be negative (0: the backend's default), got %d", f.maxTokens)
	case math.IsNaN(f.temperature) || f.temperature < 0 || f.temperature > 2:
		return usagef("--temperature must be between 0 and 2, got %v", f.temperature)
	}
	return nil
}

// checkFlags bound a check and say what it may leave incomplete.
type checkFlags struct {
	allowMissing  bool
	skipOrphans   bool
	judgeVerbatim bool
	maxErrors     int
	deadline      time.Duration
	breaker       int
}

func (c *checkFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&c.allowMissing, "allow-missing", false, "accept missing context files: record the items certainly live at each (stated before the earliest turn it can have served, after the previous present context's) as error \"no context\", those that may be live (stated before the latest turn it can have served, before the next present context's) as error \"no context (liveness unknown)\", and none that cannot be (extra, orphan, out-of-range and out-of-order contexts stay errors)")
	fl.BoolVar(&c.judgeVerbatim, "judge-verbatim", false, "put the items found verbatim to the judge too, taking only its contradiction: a context that quotes an item and states the opposite (Claude Code's summaries quote every message the person typed) is contradicted, not verbatim; a question per verbatim item")
	fl.BoolVar(&c.skipOrphans, "skip-orphans", false, "leave unchecked the context folders of conversations no fixture names (an error otherwise), counting them in the output: checks the fixtures reviewed so far from a folder tally fixtures draft wrote for more")
	fl.IntVar(&c.maxErrors, "max-errors", 0, "error verdicts tolerated before check exits 4 (incomplete)")
	fl.DurationVar(&c.deadline, "deadline", 0, "bound the whole run's judging (e.g. 30m; 0: none): the items not judged by then are answered from the cache, or are error \"deadline\"")
	fl.IntVar(&c.breaker, "breaker", judge.DefaultBreaker, "consecutive questions failed for want of the judge after which it is not called again: the remaining items are answered from the cache, or are error \"judge unavailable\" (0: never). Counted: a transport error or timeout, HTTP 5xx or 429 after the retries, a command that could not start or was killed by --timeout; a command's non-zero exit once per context. An HTTP 4xx (a 413) or a reply with no usable verdict is not counted and resets the count")
}

// validate refuses a value the flags cannot take, as a usage error.
func (c *checkFlags) validate() error {
	switch {
	case c.maxErrors < 0:
		return usagef("--max-errors must not be negative, got %d", c.maxErrors)
	case c.deadline < 0:
		return usagef("--deadline must not be negative, got %v", c.deadline)
	case c.breaker < 0:
		return usagef("--breaker must not be negative (0: never), got %d", c.breaker)
	}
	return nil
}

// breakerSetting is --breaker as judge.CheckConfig.Breaker: 0 is never.
func (c *checkFlags) breakerSetting() int {
	if c.breaker == 0 {
		return -1
	}
	return c.breaker
}

// writeCreatingFolder writes path atomically with write, creating its
// folder first if need be; when the write fails, the folders it created
// are removed again, so a failed run leaves nothing behind.
func writeCreatingFolder(path string, write func(io.Writer) error) error {
	created, err := createFolder(path)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, write); err != nil {
		removeFolders(created)
		return err
	}
	return nil
}

// createFolder creates the folder of path if need be, and returns the
// folders it created, deepest first.
func createFolder(path string) ([]string, error) {
	if err := usableFolder("-o "+path+": its folder", filepath.Dir(path)); err != nil {
		return nil, err
	}
	var created []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
			break
		}
		created = append(created, dir)
	}
	if len(created) > 0 {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating the output folder: %w", err)
		}
	}
	return created, nil
}

// removeFolders removes the folders createFolder created, deepest first;
// a folder that is not empty stays.
func removeFolders(created []string) {
	for _, dir := range created {
		_ = os.Remove(dir)
	}
}
