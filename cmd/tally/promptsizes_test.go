package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/tokens"
)

var promptData = filepath.Join("testdata", "promptsizes")

// TestPromptSizes runs prompt-sizes on testdata/promptsizes with each
// tokenizer. The counts are pinned, and each is checked against the
// tokens package's count of the context's rendering (which is itself
// pinned to OpenAI's published token ids), so that the command counts
// the right text for the right line; every line names the tokenizer, and
// no side file is written.
func TestPromptSizes(t *testing.T) {
	for _, tc := range []struct {
		tokenizer string
		counts    []int // conv_a/1, conv_a/2, conv_b/1
		reason    string
	}{
		{"o200k_base", []int{36, 44, 21}, "the default encoding"},
		{"cl100k_base", []int{37, 44, 21}, "お誕生日おめでとう is one token more in cl100k_base (Cookbook: 9 against 8)"},
	} {
		t.Run(tc.tokenizer, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sizes", "prompt_sizes.jsonl")
			stdout, stderr, code := cli(t, "prompt-sizes", "--contexts", filepath.Join(promptData, "contexts"), "--system", "incumbent",
				"--fixtures", filepath.Join(promptData, "fixtures.jsonl"), "--tokenizer", tc.tokenizer, "-o", out, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			files := []string{"conv_a/1.json", "conv_a/2.json", "conv_b/1.json"}
			var want strings.Builder
			counter, _ := tokens.New(tc.tokenizer)
			for i, f := range files {
				c, err := fixture.LoadContext(filepath.Join(promptData, "contexts", filepath.FromSlash(f)))
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := counter.Count(fixture.Render(c)); n != tc.counts[i] {
					t.Errorf("%s: pinned %d tokens, the tokens package counts %d", f, tc.counts[i], n)
				}
				line, _ := json.Marshal(promptSizeLine{"incumbent", c.ConversationID, c.Compaction, tc.counts[i], tc.tokenizer})
				want.Write(line)
				want.WriteByte('\n')
			}
			if string(data) != want.String() {
				t.Errorf("%s holds\n%s\nwant\n%s(%s)", out, data, want.String(), tc.reason)
			}
			var sum promptSizesJSON
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			total := tc.counts[0] + tc.counts[1] + tc.counts[2]
			if sum.Tokenizer != tc.tokenizer || sum.Contexts != 3 || sum.Conversations != 2 || sum.TotalTokens != int64(total) {
				t.Errorf("summary %+v", sum)
			}
			if !strings.Contains(want.String(), `"tokenizer":"`+tc.tokenizer+`"}`) {
				t.Errorf("the lines do not end with the tokenizer:\n%s", want.String())
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Errorf("%s holds %d files, want the prompt sizes alone", filepath.Dir(out), len(entries))
			}
		})
	}
}

// TestPromptSizesReportReads: the files prompt-sizes writes for the two
// systems of the example quarter, each line naming its tokenizer, are
// accepted by tally report, whose reader refuses any field but the five.
func TestPromptSizesReportReads(t *testing.T) {
	src := filepath.Join("..", "..", "examples", "quarterly")
	cfg, err := os.ReadFile(filepath.Join(src, "report.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	abs, _ := filepath.Abs(src)
	for _, sys := range []string{"incumbent", "candidate"} {
		_, stderr, code := cli(t, "prompt-sizes", "--contexts", filepath.Join(src, "contexts", sys), "--system", sys,
			"--fixtures", filepath.Join(src, "fixtures"), "-o", filepath.Join(dir, sys+"_sizes.jsonl"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sys, code, stderr)
		}
	}
	// The example's config, its paths made absolute, with our sizes.
	text := string(cfg)
	for _, key := range []string{"fixtures: ", "verdicts: ", "replay: ", "selection: ", "first: ", "second: ", "reviews: "} {
		text = strings.ReplaceAll(text, key, key+abs+"/")
	}
	text = strings.Replace(text, "prompt_sizes: prompt_sizes.jsonl", "prompt_sizes: "+filepath.Join(dir, "incumbent_sizes.jsonl"), 1)
	text = strings.Replace(text, "prompt_sizes: prompt_sizes.jsonl", "prompt_sizes: "+filepath.Join(dir, "candidate_sizes.jsonl"), 1)
	if strings.Count(text, "_sizes.jsonl") != 2 {
		t.Fatalf("the example's report.yaml no longer names prompt_sizes.jsonl twice:\n%s", cfg)
	}
	yaml := filepath.Join(dir, "report.yaml")
	if err := os.WriteFile(yaml, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := cli(t, "report", yaml, "-o", filepath.Join(dir, "out"))
	if code != 0 && code != 3 {
		t.Errorf("report exit %d (0, or 3 for a failed gate, expected): %s", code, stderr)
	}
	if strings.Contains(stderr, "tokenizer") {
		t.Errorf("one tokenizer for both systems, yet: %s", stderr)
	}
}

// TestPromptSizesErrors: usage mistakes exit 2; problems in the input
// exit 1, one line each naming the file, and nothing is written.
func TestPromptSizesErrors(t *testing.T) {
	ctxs := filepath.Join(promptData, "contexts")
	bad := t.TempDir()
	for name, content := range map[string]string{
		"conv_a/1.json": `{"conversation_id": "conv_a", "compaction": 1, "turn": 2, "messages": [{"role": "robot", "content": "hi"}]}`,
		"conv_z/1.json": `{"conversation_id": "conv_z", "compaction": 1, "turn": 2, "messages": []}`,
	} {
		p := filepath.Join(bad, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "sizes.jsonl")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string // substrings, one per line
		reason string
	}{
		{"no contexts flag", []string{"--system", "s", "-o", out}, 2, []string{"--contexts DIR is required"}, "required flag"},
		{"no output", []string{"--contexts", ctxs, "--system", "s"}, 2, []string{"-o FILE is required"}, "required flag"},
		{"bad tokenizer", []string{"--contexts", ctxs, "--system", "s", "-o", out, "--tokenizer", "chars4"}, 2,
			[]string{`--tokenizer: tokenizer "chars4": want o200k_base or cl100k_base`}, "only real encodings"},
		{"orphan folder", []string{"--contexts", bad, "--system", "s", "-o", out, "--fixtures", filepath.Join(promptData, "fixtures.jsonl")}, 1,
			[]string{filepath.Join(bad, "conv_z")}, "with --fixtures a folder of no fixture is refused, as the report would"},
		{"bad file", []string{"--contexts", bad, "--system", "s", "-o", out}, 1,
			[]string{filepath.Join(bad, "conv_a", "1.json") + ":1:81: messages[0].role:"}, "problems in a context file are reported with file, line and column"},
		{"too big", []string{"--contexts", ctxs, "--system", "s", "-o", out, "--max-line", "100"}, 1,
			[]string{filepath.Join(ctxs, "conv_a", "1.json") + ": larger than 100 bytes, the most read as one JSON document (raise with --max-line)",
				filepath.Join(ctxs, "conv_a", "2.json") + ": larger than 100 bytes", filepath.Join(ctxs, "conv_b", "1.json") + ": larger than 100 bytes"},
			"a context is read whole: --max-line bounds it"},
		{"empty", []string{"--contexts", t.TempDir(), "--system", "s", "-o", out}, 1, []string{"no compacted contexts"}, "zero contexts would gate nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := cli(t, append([]string{"prompt-sizes"}, tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			ok := code == tc.code && len(lines) == len(tc.stderr)
			for i := 0; ok && i < len(lines); i++ {
				ok = strings.Contains(lines[i], tc.stderr[i])
			}
			if !ok {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and lines containing %q (%s)", code, stderr, tc.code, tc.stderr, tc.reason)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
