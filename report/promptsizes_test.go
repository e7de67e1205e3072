package report

import (
	"github.com/tally-eval/tally/report/internal/casefile"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildPromptSizeTokenizer: a prompt-size line may name its
// tokenizer (tally prompt-sizes writes it); an empty one is a problem,
// and sizes counted by two tokenizers are a warning.
func TestBuildPromptSizeTokenizer(t *testing.T) {
	path := casefile.Write(t, casefile.Verdicts("incumbent", nil), casefile.Verdicts("candidate", nil), "")
	dir := filepath.Dir(path)
	cfgText, _ := os.ReadFile(path)
	text := strings.Replace(string(cfgText), "{verdicts: inc.jsonl}", "{verdicts: inc.jsonl, prompt_sizes: sizes.jsonl}", 1)
	text = strings.Replace(text, "{verdicts: cand.jsonl}", "{verdicts: cand.jsonl, prompt_sizes: sizes.jsonl}", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, inc, cand string
		want            string // the error, or the warning about tokenizers ("" for none)
		isErr           bool
	}{
		{"both named", "o200k_base", "o200k_base", "", false},
		{"left out", "", "", "", false},
		{"one named, one not: nothing says they were counted alike", "o200k_base", "", "prompt sizes: counted with different tokenizers (none named, o200k_base); token counts of different encodings do not compare", false},
		{"two tokenizers", "o200k_base", "cl100k_base", "prompt sizes: counted with different tokenizers (cl100k_base, o200k_base); token counts of different encodings do not compare", false},
		{"empty", `""`, "o200k_base", `DIR/sizes.jsonl:1:97: tokenizer: must name the encoding that counted the tokens (such as o200k_base), or be left out`, true},
		{"not a string", "7", "o200k_base", `DIR/sizes.jsonl:1:97: tokenizer: want a string, got the number 7`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lineFor := func(sys, conv, tok string) string {
				l := `{"system":"` + sys + `","conversation_id":"` + conv + `","compaction":1,"prompt_tokens":100`
				switch {
				case tok == "":
				case tok == `""` || tok == "7":
					l += `,"tokenizer":` + tok
				default:
					l += `,"tokenizer":"` + tok + `"`
				}
				return l + "}\n"
			}
			line := func(sys, tok string) string {
				other := tok // conv_b's line: the same tokenizer, or none where conv_a's is bad
				if tok == `""` || tok == "7" {
					other = ""
				}
				return lineFor(sys, "conv_a", tok) + lineFor(sys, "conv_b", other)
			}
			if err := os.WriteFile(filepath.Join(dir, "sizes.jsonl"), []byte(line("incumbent", tc.inc)+line("candidate", tc.cand)), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Build(cfg, Options{})
			if tc.isErr {
				if err == nil || strings.ReplaceAll(err.Error(), dir, "DIR") != tc.want {
					t.Errorf("got %v, want %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, w := range r.Warnings {
				if strings.Contains(w, "tokenizer") {
					got = w
				}
			}
			if got != tc.want {
				t.Errorf("warning %q, want %q", got, tc.want)
			}
		})
	}
}
