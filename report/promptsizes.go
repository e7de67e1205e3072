package report

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tally-eval/tally/fixture"
	"github.com/tally-eval/tally/internal/input"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// readPromptSizes reads each system's prompt sizes; a file named by both
// systems is read once. Sizes counted by different tokenizers (the lines'
// optional "tokenizer") are a warning: their means do not compare.
func (b *builder) readPromptSizes() error {
	defer func() {
		if len(b.tokenizers) > 1 {
			// Lines that name no tokenizer beside lines that name one:
			// nothing says the unnamed ones were counted the same way.
			names := slices.Sorted(maps.Keys(b.tokenizers))
			if names[0] == "" {
				names[0] = "none named"
			}
			b.r.Warnings = append(b.r.Warnings, fmt.Sprintf(
				"prompt sizes: counted with different tokenizers (%s); token counts of different encodings do not compare", strings.Join(names, ", ")))
		}
	}()
	inc, cand := b.cfg.Incumbent.PromptSizes, b.cfg.Candidate.PromptSizes
	var errs []error
	switch {
	case inc != "" && inc == cand:
		errs = append(errs, b.promptFile(inc, RolePromptSizes, []bool{true, true}))
	default:
		if inc != "" {
			errs = append(errs, b.promptFile(inc, RolePromptSizes+" (incumbent)", []bool{true, false}))
		}
		if cand != "" {
			errs = append(errs, b.promptFile(cand, RolePromptSizes+" (candidate)", []bool{false, true}))
		}
	}
	return errors.Join(errs...)
}

// promptFields are the fields of a prompt-size line: the tokenizer that
// counted the tokens is optional (tally prompt-sizes writes it).
var promptFields = []lineField{{name: "system"}, {name: "conversation_id"}, {name: "compaction", isInt: true}, {name: "prompt_tokens", isInt: true},
	{name: "tokenizer", optional: true}}

// promptFile reads one prompt-size file, keeping the lines of the systems
// in want (by index: incumbent, candidate) and ignoring other systems'.
func (b *builder) promptFile(shown, role string, want []bool) error {
	path := b.cfg.Resolve(shown)
	f, err := input.Open(path, b.lim)
	if err != nil {
		return fmt.Errorf("prompt sizes: %w", err)
	}
	defer f.Close()
	hr := newHashReader(f)
	names := []string{b.cfg.Incumbent.Name, b.cfg.Candidate.Name}
	type ctxKey struct {
		sys  int
		fix  int32
		comp int64
	}
	first := map[ctxKey]int{}
	var probs fixture.ProblemList
	found := [2]int{}
	err = eachJSONLine(hr, path, b.lim.Line(), "prompt sizes", "a prompt size is one short JSON object", &probs, func(line []byte, n int) {
		vals, lp := parseObjectLine(path, line, n, promptFields)
		if len(lp) > 0 {
			probs.Add(lp...)
			return
		}
		s := slices.Index(names, vals[0].str)
		if s < 0 || !want[s] {
			return
		}
		bad := func(i int, format string, args ...any) {
			probs.Add(fixture.Problem{File: path, Line: n, Col: jsonscan.Column(line, vals[i].off), Field: promptFields[i].name, Msg: fmt.Sprintf(format, args...)})
		}
		fi, ok := b.conv[vals[1].str]
		switch {
		case !ok:
			bad(1, "no fixture has conversation_id %q%s", previewText(vals[1].str), b.otherForm(vals[1].str))
			return
		case vals[2].num < 1:
			bad(2, "must be at least 1 (compactions are numbered from 1), got %d", vals[2].num)
			return
		case vals[2].num > int64(b.fixtures[fi].CompactionsExpected):
			bad(2, "fixture %s expects %d compactions, so there is no compaction %d to measure", previewText(vals[1].str), b.fixtures[fi].CompactionsExpected, vals[2].num)
			return
		case vals[3].num < 0 || vals[3].num > math.MaxInt32:
			bad(3, "want a token count from 0 to %d, got %d", math.MaxInt32, vals[3].num)
			return
		case vals[4].off >= 0 && strings.TrimSpace(vals[4].str) == "":
			bad(4, "must name the encoding that counted the tokens (such as o200k_base), or be left out")
			return
		}
		k := ctxKey{s, fi, vals[2].num}
		if at, dup := first[k]; dup {
			bad(2, "%s's compaction %d of %s already has a prompt size (line %d)", previewText(names[s]), vals[2].num, previewText(vals[1].str), at)
			return
		}
		first[k] = n
		tok := "" // a line that names no tokenizer: "" stands for "not named"
		if vals[4].off >= 0 {
			tok = vals[4].str
		}
		if b.tokenizers == nil {
			b.tokenizers = map[string]bool{}
		}
		b.tokenizers[tok] = true
		b.prompts[s] = append(b.prompts[s], int(vals[3].num))
		found[s]++
	})
	if err != nil {
		return err
	}
	if err := probs.Err(); err != nil {
		return err
	}
	for s, w := range want {
		if !w {
			continue
		}
		if found[s] == 0 {
			return fmt.Errorf("%s: no prompt sizes for system %q", path, names[s])
		}
		// Every compacted context the fixtures expect is measured: a
		// mean over some of them would compare unlike sets.
		var missing []string
		total := 0
		for fi := range b.fixtures {
			fx := &b.fixtures[fi]
			for c := 1; c <= fx.CompactionsExpected; c++ {
				total++
				if _, ok := first[ctxKey{s, int32(fi), int64(c)}]; !ok {
					missing = append(missing, fmt.Sprintf("%s compaction %d", previewText(fx.ConversationID), c))
				}
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s: system %q has no prompt size for %d of the %d compacted contexts the fixtures expect: %s (measure every one: tally prompt-sizes)",
				path, names[s], len(missing), total, firstFew(missing))
		}
	}
	in, err := hr.input(role, shown)
	if err != nil {
		return err
	}
	b.r.Provenance.Inputs = append(b.r.Provenance.Inputs, in)
	return nil
}
