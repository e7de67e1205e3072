package tokens

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPublishedCounts pins the encodings to token ids OpenAI published.
// Source: the OpenAI Cookbook, "How to count tokens with tiktoken"
// (examples/How_to_count_tokens_with_tiktoken.ipynb), sections 2
// ("tiktoken is great!" in cl100k_base) and 5 (compare_encodings of
// "antidisestablishmentarianism", "2 + 2 = 4" and "お誕生日おめでとう").
// The o200k_base ids of "The quick brown fox jumps over the lazy dog."
// are tiktoken's output for gpt-4o as printed in
// github.com/Leonardo1903/Gen-AI, 01-Introduction/Tokenisation.py.
func TestPublishedCounts(t *testing.T) {
	for _, tc := range []struct {
		enc, text string
		ids       []uint
	}{
		{Cl100kBase, "tiktoken is great!", []uint{83, 1609, 5963, 374, 2294, 0}},
		{Cl100kBase, "antidisestablishmentarianism", []uint{519, 85342, 34500, 479, 8997, 2191}},
		{O200kBase, "antidisestablishmentarianism", []uint{493, 129901, 376, 160388, 21203, 2367}},
		{Cl100kBase, "2 + 2 = 4", []uint{17, 489, 220, 17, 284, 220, 19}},
		{O200kBase, "2 + 2 = 4", []uint{17, 659, 220, 17, 314, 220, 19}},
		{Cl100kBase, "お誕生日おめでとう", []uint{33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699}},
		{O200kBase, "お誕生日おめでとう", []uint{8930, 9697, 243, 128225, 8930, 17693, 4344, 48669}},
		{O200kBase, "The quick brown fox jumps over the lazy dog.", []uint{976, 4853, 19705, 68347, 65613, 1072, 290, 29082, 6446, 13}},
	} {
		t.Run(tc.enc+"/"+tc.text, func(t *testing.T) {
			c, err := New(tc.enc)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := c.Encode(tc.text)
			if err != nil || !slices.Equal(ids, tc.ids) {
				t.Errorf("Encode = %v, %v; want %v", ids, err, tc.ids)
			}
			if n, err := c.Count(tc.text); err != nil || n != len(tc.ids) {
				t.Errorf("Count = %d, %v; want %d", n, err, len(tc.ids))
			}
		})
	}
}

// TestCountProperties: the two encodings differ (so the choice is not
// ignored), special-token text counts as ordinary text (encode_ordinary),
// and an unknown name is an error naming the choices.
func TestCountProperties(t *testing.T) {
	o, _ := New(O200kBase)
	c, _ := New(Cl100kBase)
	if o.Name() != "o200k_base" || c.Name() != "cl100k_base" {
		t.Errorf("names %q, %q", o.Name(), c.Name())
	}
	text := strings.Repeat("never modify anything under /migrations — ask first. ", 50)
	no, _ := o.Count(text)
	nc, _ := c.Count(text)
	if no == 0 || nc == 0 || no == nc && no == len(text)/4 {
		t.Errorf("counts o200k %d, cl100k %d for %d bytes", no, nc, len(text))
	}
	if n, err := o.Count("<|endoftext|>"); err != nil || n <= 1 {
		t.Errorf("Count(<|endoftext|>) = %d, %v; want it split as ordinary text", n, err)
	}
	if n, err := o.Count(""); err != nil || n != 0 {
		t.Errorf("Count(\"\") = %d, %v", n, err)
	}
	if n, err := o.Count("a\xffb"); err != nil || n < 2 {
		t.Errorf("Count(invalid UTF-8) = %d, %v", n, err)
	}
	if _, err := New("gpt2"); err == nil || !strings.Contains(err.Error(), "o200k_base or cl100k_base") {
		t.Errorf("New(gpt2) = %v", err)
	}
	if again, _ := New(O200kBase); again != o {
		t.Error("New builds a second counter for one encoding")
	}
}

func ExampleCounter_Count() {
	c, err := New(Cl100kBase)
	if err != nil {
		panic(err)
	}
	n, _ := c.Count("tiktoken is great!")
	fmt.Println(c.Name(), n)
	// Output: cl100k_base 6
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("Turn 12: I read internal/store/orders_12.go and the tests beside it; the status column is a varchar. ", 500)
	for _, name := range Names {
		c, _ := New(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := c.Count(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
