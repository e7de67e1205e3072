package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tally-eval/tally/fixture"
)

// FuzzReadPromptSizes: any prompt-size file gives problems that each
// name the file and a line and column inside it, or sizes for every
// wanted system, each a token count in 0..MaxInt32, at most one per
// line; never a panic. The fuzzer also picks which systems are wanted.
// The reader (builder.promptFile) reads a file, so each input is
// written to one first.
func FuzzReadPromptSizes(f *testing.F) {
	if data, err := os.ReadFile("../examples/quarterly/prompt_sizes.jsonl"); err == nil {
		f.Add(data[:min(len(data), 4096)], uint8(3))
	}
	for _, s := range []string{
		`{"system":"incumbent","conversation_id":"conv_a","compaction":1,"prompt_tokens":100}
{"system":"candidate","conversation_id":"conv_a","compaction":1,"prompt_tokens":80}
{"system":"other","conversation_id":"nobody","compaction":1,"prompt_tokens":5}`,
		`{"system":"candidate","conversation_id":"conv_q","compaction":1,"prompt_tokens":80}
{"system":"candidate","conversation_id":"conv_a","compaction":1,"prompt_tokens":81}
{"system":"candidate","conversation_id":"conv_a","compaction":1,"prompt_tokens":82}
{"system":"candidate","conversation_id":"conv_b","compaction":0,"prompt_tokens":-3}
{"system":"candidate","conversation_id":"conv_b","compaction":2,"prompt_tokens":1.5}`,
		`{"system":"incumbent","conversation_id":"conv_b","compaction":9223372036854775807,"prompt_tokens":2147483648}`,
		"{\"system\":\"incumbent\",\"system\":1,\"x\":[]}\r\n\n{", "\xff\n[1]\n\"s\"\nnull", "",
	} {
		f.Add([]byte(s), uint8(3))
	}
	dir := f.TempDir()
	name := filepath.Join(dir, "p.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, wantBits uint8) {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := []bool{wantBits&1 != 0, wantBits&2 != 0}
		b := &builder{
			cfg:      &Config{File: filepath.Join(dir, "report.yaml"), Incumbent: SystemConfig{Name: "incumbent"}, Candidate: SystemConfig{Name: "candidate"}},
			r:        &Report{},
			conv:     map[string]int32{"conv_a": 0, "conv_b": 1},
			fixtures: []fixture.Fixture{{ConversationID: "conv_a", CompactionsExpected: 3}, {ConversationID: "conv_b", CompactionsExpected: 3}},
		}
		err := b.promptFile("p.jsonl", RolePromptSizes, want)
		lines := bytes.Split(data, []byte("\n"))
		if err != nil {
			var probs fixture.Problems
			if !errors.As(err, &probs) {
				if !strings.HasPrefix(err.Error(), name+": ") {
					t.Fatalf("error %q does not name the file", err)
				}
				return
			}
			for _, p := range probs {
				switch {
				case p.File != name:
					t.Fatalf("problem %q names another file", p.Error())
				case p.Line == 0 && strings.HasPrefix(p.Msg, "… and "):
				case p.Line < 1 || p.Line > len(lines) || p.Col < 1 || p.Col > utf8.RuneCount(lines[p.Line-1])+1:
					t.Fatalf("problem %q: line %d, column %d outside the input", p.Error(), p.Line, p.Col)
				}
			}
			return
		}
		nonBlank := 0
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if n := len(b.prompts[0]) + len(b.prompts[1]); n > nonBlank {
			t.Fatalf("%d sizes from %d lines", n, nonBlank)
		}
		for s, w := range want {
			if w != (len(b.prompts[s]) > 0) {
				t.Fatalf("system %d wanted %v, got %d sizes", s, w, len(b.prompts[s]))
			}
			for _, n := range b.prompts[s] {
				if n < 0 || n > math.MaxInt32 {
					t.Fatalf("accepted a size of %d", n)
				}
			}
		}
		if in := b.r.Provenance.Inputs; len(in) != 1 || in[0].Bytes != int64(len(data)) {
			t.Fatalf("provenance %+v for %d bytes", in, len(data))
		}
	})
}
