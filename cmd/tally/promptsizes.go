package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/tokens"
)

// promptSizeLine is one line of prompt_sizes.jsonl: exactly the fields
// the report reads (report/promptsizes.go), which refuses any other; the
// tokenizer is the one it accepts without requiring.
type promptSizeLine struct {
	System         string `json:"system"`
	ConversationID string `json:"conversation_id"`
	Compaction     int    `json:"compaction"`
	PromptTokens   int    `json:"prompt_tokens"`
	Tokenizer      string `json:"tokenizer"`
}

// promptSizesJSON is the JSON output of `tally prompt-sizes`.
type promptSizesJSON struct {
	System        string  `json:"system"`
	Tokenizer     string  `json:"tokenizer"`
	Conversations int     `json:"conversations"`
	Contexts      int     `json:"contexts"`
	TotalTokens   int64   `json:"total_tokens"`
	MeanTokens    float64 `json:"mean_tokens"`
	MaxTokens     int     `json:"max_tokens"`
	Output        string  `json:"output"`
}

func newPromptSizesCmd(opts *options) *cobra.Command {
	var (
		contexts, sys, output, fixtures, tok string
		lim                                  limitFlags
	)
	cmd := &cobra.Command{
		Use:   "prompt-sizes --contexts DIR --system NAME -o prompt_sizes.jsonl",
		Short: "Count the tokens of every compacted context: the prompt sizes the report gates on",
		Long: `prompt-sizes reads one system's compacted contexts, DIR/<conversation_id>/<n>.json,
renders each as the verbatim check does (fixture.Render: the system prompt,
then each message as "<role>:" and its text parts), counts the rendered text's
tokens with a real BPE encoding whose table is built into tally (o200k_base,
the default, for GPT-4o, GPT-4.1, o-series and GPT-5; or cl100k_base, for
GPT-4 and GPT-3.5), and writes one line per context, atomically:

  {"system":"incumbent","conversation_id":"sess_…","compaction":1,"prompt_tokens":6109,"tokenizer":"o200k_base"}

the file report.yaml names as a system's prompt_sizes; every line names the
tokenizer that counted it, and the report warns when the sizes it reads were
counted by different ones. The count is of the rendered text alone: a chat API
adds a few tokens per message for its own framing.

With --fixtures, the conversations are the fixtures' (in their order), and a
context folder no fixture has is an error, as the report would find it.
Without, every folder in DIR is a conversation. Every problem in a context
file is reported, one line each, and nothing is written.`,
		Example: `  tally prompt-sizes --contexts examples/quarterly/contexts/incumbent --system incumbent -o incumbent_sizes.jsonl
  tally prompt-sizes --contexts out/contexts --system candidate --tokenizer cl100k_base --fixtures fixtures -o sizes.jsonl`,
		Args: cobra.NoArgs,
		RunE: work(func(cmd *cobra.Command, _ []string) error {
			switch {
			case contexts == "":
				return usagef("--contexts DIR is required")
			case sys == "":
				return usagef("--system NAME is required")
			case output == "":
				return usagef("-o FILE is required (the prompt sizes, JSONL)")
			}
			counter, err := tokens.New(tok)
			if err != nil {
				return usagef("--tokenizer: %v", err)
			}
			ids, err := promptConversations(contexts, sys, fixtures, lim.Limits)
			if err != nil {
				return err
			}
			lines, err := countPrompts(cmd, contexts, sys, ids, counter, lim.Limits)
			if err != nil {
				return err
			}
			if len(lines) == 0 {
				return fmt.Errorf("%s: no compacted contexts (want %s/<conversation_id>/<n>.json)", contexts, contexts)
			}
			if err := writeCreatingFolder(output, func(w io.Writer) error { return writePromptSizes(w, lines) }); err != nil {
				return err
			}
			sum := promptSizesJSON{System: sys, Tokenizer: counter.Name(), Contexts: len(lines), Output: output}
			for i, l := range lines {
				if i == 0 || l.ConversationID != lines[i-1].ConversationID {
					sum.Conversations++
				}
				sum.TotalTokens += int64(l.PromptTokens)
				sum.MaxTokens = max(sum.MaxTokens, l.PromptTokens)
			}
			sum.MeanTokens = float64(sum.TotalTokens) / float64(len(lines))
			w := cmd.OutOrStdout()
			if opts.format == "json" {
				return writeJSON(w, sum)
			}
			fmt.Fprintf(w, "%s: %s of %s, %s tokens: mean %.1f, max %d → %s\n",
				sys, plural(sum.Contexts, "compacted context"), plural(sum.Conversations, "conversation"),
				sum.Tokenizer, sum.MeanTokens, sum.MaxTokens, output)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&contexts, "contexts", "", "compacted contexts folder of one system: DIR/<conversation_id>/<n>.json")
	f.StringVar(&sys, "system", "", "the system's name, written in every line (as report.yaml names it)")
	f.StringVarP(&output, "output", "o", "", "prompt sizes file to write (JSONL), atomically; its folder is created if need be")
	f.StringVar(&fixtures, "fixtures", "", "fixtures (a .json file, a .jsonl file or a folder): count their conversations only, and refuse other context folders")
	f.StringVar(&tok, "tokenizer", tokens.O200kBase, "BPE encoding: "+strings.Join(tokens.Names, " or "))
	lim.register(cmd)
	return cmd
}

// promptConversations lists the conversations to count: the fixtures'
// when fixtures is set (a context folder of no fixture is a problem),
// otherwise every folder in dir, sorted by name.
func promptConversations(dir, sys, fixtures string, lim fixture.Limits) ([]string, error) {
	if fixtures != "" {
		var ids []string
		known := map[string]bool{}
		err := fixture.Loader{Limits: lim}.Walk(func(f fixture.Fixture) error {
			ids = append(ids, f.ConversationID)
			known[f.ConversationID] = true
			return nil
		}, fixtures)
		if err != nil {
			return nil, err
		}
		orphans, err := fixture.OrphanContexts(dir, sys, func(id string) bool { return known[id] })
		if err != nil {
			return nil, err
		}
		if len(orphans) > 0 {
			return nil, orphans
		}
		return ids, nil
	}
	entries, err := input.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing contexts: %w", err)
	}
	var ids []string
	var probs fixture.Problems
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if !fixture.ValidConversationID(name) {
			probs = append(probs, fixture.Problem{File: filepath.Join(dir, name), Msg: "cannot be a conversation id (no /, \\, :, control characters, \".\" or \"..\")"})
			continue
		}
		ids = append(ids, name)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return ids, nil
}

// countPrompts reads, renders and counts every context of the
// conversations ids, in order. Every problem is collected; the lines are
// returned only when there is none. It stops when the command's context
// is cancelled (an interrupt).
func countPrompts(cmd *cobra.Command, dir, sys string, ids []string, counter *tokens.Counter, lim fixture.Limits) ([]promptSizeLine, error) {
	ctx := cmd.Context()
	var lines []promptSizeLine
	var errs []error
	for _, id := range ids {
		files, err := fixture.ContextFiles(dir, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, path := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c, err := fixture.Loader{Limits: lim}.LoadContext(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			n, err := counter.Count(fixture.Render(c))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", path, err))
				continue
			}
			lines = append(lines, promptSizeLine{System: sys, ConversationID: c.ConversationID, Compaction: c.Compaction, PromptTokens: n, Tokenizer: counter.Name()})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return lines, nil
}

// writePromptSizes writes the lines as JSONL.
func writePromptSizes(w io.Writer, lines []promptSizeLine) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}
