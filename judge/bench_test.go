package judge

import (
	"context"
	"strings"
	"testing"
)

var (
	sinkReply Reply
	sinkKey   Key
)

func BenchmarkParseReply(b *testing.B) {
	cases := map[string]string{
		"bare":  replySupported,
		"fence": "Let me look at the context carefully. The plan at turn 19 says {develop}.\n```json\n" + replySupported + "\n```\nThat is my verdict.",
	}
	for name, s := range cases {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				r, err := ParseReply(s)
				if err != nil {
					b.Fatal(err)
				}
				sinkReply = r
			}
		})
	}
}

// context50K is a 50 KB compacted context.
func context50K() string {
	line := "[turn 41] tool read_file report.md rev 14: the quarterly numbers are in section 3; never modify /migrations.\n"
	return strings.Repeat(line, 50<<10/len(line)+1)[:50<<10]
}

func BenchmarkCacheKey50KB(b *testing.B) {
	q := sampleQuestion()
	q.Context = context50K()
	parts := KeyParts{Kind: KindVerdict, Backend: "openai/m", Template: DefaultTemplateText, Probe: q.Probe, Expect: q.Expect, Context: q.Context}
	b.SetBytes(int64(len(q.Context)))
	for b.Loop() {
		sinkKey = parts.Key()
	}
}

// BenchmarkCacheHit is a fully cached question with a 50 KB context: key,
// lookup and decode of the verdict and of the agreement entry.
func BenchmarkCacheHit(b *testing.B) {
	q := sampleQuestion()
	q.Context = context50K()
	m := &Model{Backend: &scripted{name: "fake/model", reply: brain(replySupported, agreeYes)}, Cache: openCache(b)}
	ctx := context.Background()
	if _, err := m.Judge(ctx, q); err != nil {
		b.Fatal(err)
	}
	m.Backend = &scripted{name: "fake/model", reply: func(int, string) (string, error) {
		b.Fatal("a call on the cache-hit path")
		return "", nil
	}}
	for b.Loop() {
		a, err := m.Judge(ctx, q)
		if err != nil || a.CacheHits != 2 {
			b.Fatal(a, err)
		}
	}
}

func BenchmarkCacheGet(b *testing.B) {
	c := openCache(b)
	k := KeyParts{Probe: "p"}.Key()
	if err := c.Put(k, Entry{Kind: KindVerdict, Reply: &Reply{Answer: "develop", Verdict: "supported"}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := c.Get(k); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkRenderPrompt50KB(b *testing.B) {
	ctx := context50K()
	b.SetBytes(int64(len(ctx)))
	for b.Loop() {
		if _, err := DefaultTemplate().Render("Which branch should the PR target?", ctx); err != nil {
			b.Fatal(err)
		}
	}
}
