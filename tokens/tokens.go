// Package tokens counts the tokens of a text with OpenAI's byte-pair
// encodings, o200k_base (GPT-4o, GPT-4.1, o-series, GPT-5) and
// cl100k_base (GPT-4, GPT-3.5), exactly as tiktoken's encode_ordinary
// does: special-token text such as "<|endoftext|>" is counted as
// ordinary text. The encodings' tables are compiled into the binary
// (github.com/tiktoken-go/tokenizer), so counting needs no network and no
// file; each table is built on first use (a fraction of a second).
//
// A count is of the text alone: a chat API adds a few tokens per message
// for its own framing, which no encoding table says.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// The encodings a Counter can use.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// Names lists the encodings, the default first.
var Names = []string{O200kBase, Cl100kBase}

// Module is the Go module whose tables Counter uses.
const Module = "github.com/tiktoken-go/tokenizer"

// Counter counts tokens with one encoding. It is safe for concurrent use.
type Counter struct {
	name  string
	codec tokenizer.Codec
}

var (
	mu       sync.Mutex
	counters = map[string]*Counter{}
)

// New returns the Counter of the encoding named name, one of Names.
func New(name string) (*Counter, error) {
	var enc tokenizer.Encoding
	switch name {
	case O200kBase:
		enc = tokenizer.O200kBase
	case Cl100kBase:
		enc = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("tokenizer %q: want %s", name, strings.Join(Names, " or "))
	}
	mu.Lock()
	defer mu.Unlock()
	if c := counters[name]; c != nil {
		return c, nil
	}
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	codec.SetErrorMode(tokenizer.ErrorModeReplace)
	c := &Counter{name: name, codec: codec}
	counters[name] = c
	return c, nil
}

// Name returns the encoding's name, e.g. "o200k_base".
func (c *Counter) Name() string { return c.name }

// Count returns the number of tokens in text. Invalid UTF-8 is counted as
// tiktoken counts it after Python decodes it with errors="replace": each
// maximal invalid sequence as U+FFFD.
func (c *Counter) Count(text string) (int, error) {
	n, err := c.codec.Count(text)
	if err != nil {
		return 0, fmt.Errorf("counting %s tokens: %w", c.name, err)
	}
	return n, nil
}

// Encode returns the token ids of text, for tests and diagnostics.
func (c *Counter) Encode(text string) ([]uint, error) {
	ids, _, err := c.codec.Encode(text)
	if err != nil {
		return nil, fmt.Errorf("encoding %s tokens: %w", c.name, err)
	}
	return ids, nil
}
