package selection

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode"

	"github.com/tally-eval/tally/agentlog"
)

// cueNeedSentences are sentences, one or more per alternative of each
// cue pattern, that the pattern matches.
var cueNeedSentences = []string{
	"you forgot the tests", "claude, you've already forgotten it", "we totally forgot",
	"did you forget the flag?", "have we forgotten something",
	"don't forget the docs", "please do not forget", "also never forget this",
	"remember to run vet", "and remember that it is off", "remember: no network",
	"i told you to stop", "i've already asked you twice", "you were told not to", "i have instructed before",
	"i said don't", "but, i wrote: use x", "no i said to keep it",
	"as i said, no", "like i told you, stop", "as i noted",
	"i already said it", "i have explicitly written that", "i said this before", "i clearly stated it",
	"as mentioned before", "as previously discussed", "as we agreed earlier", "as i instructed",
	"as per my instructions", "per our last rules", "you didn't follow my rules", "you do not stick to the guidelines", "you ignored my request", "you disregarded the rules",
	"we agreed on that", "we already decided to", "we had agreed not to",
	"reminder: tests", "just a reminder", "as a reminder, no", "friendly reminder",
	"again: no", "once again - stop", "and yet again: fix it",
	"the issue is still there", "my problem was still open", "my point still stands", "the concern remains that x",
	"i repeat, stop", "how many times", "for the last time", "say it again", "you keep forgetting",
}

// TestRestateCueNeed: every cue has its pre-filter words, and on every
// sentence a pattern matches (the list above, the test sessions' typed
// prose and, with TALLY_REAL_LOGS, the dev set's) one of them is there,
// so cueOf's pre-filter never hides a match.
func TestRestateCueNeed(t *testing.T) {
	if len(restateCueNeed) != len(restateCueRes) {
		t.Fatalf("%d pre-filter lists for %d cues", len(restateCueNeed), len(restateCueRes))
	}
	for _, c := range restateCueRes {
		if len(restateCueNeed[c.cue]) == 0 {
			t.Errorf("cue %q has no pre-filter words", c.cue)
		}
	}
	sents := append([]string(nil), cueNeedSentences...)
	paths, _ := filepath.Glob(filepath.Join("testdata", "re*", "*.jsonl"))
	eachMessage(t, paths, func(text string) {
		prose, _ := typedProse(text)
		for _, sent := range sentences(prose) {
			sents = append(sents, normaliseText(sent))
		}
	})
	matched := map[string]int{}
	for _, n := range sents {
		for _, c := range restateCueRes {
			if !c.re.MatchString(n) {
				continue
			}
			matched[c.cue]++
			if !containsAny(n, restateCueNeed[c.cue]) {
				t.Errorf("cue %q matches %q, which has none of %q", c.cue, n, restateCueNeed[c.cue])
			}
		}
	}
	for _, c := range restateCueRes {
		if matched[c.cue] == 0 {
			t.Errorf("no sentence matches cue %q: add one to cueNeedSentences", c.cue)
		}
	}
	t.Logf("%d sentences", len(sents))
}

// eachMessage calls f with the text of every message of the logs in
// paths and, when TALLY_REAL_LOGS names a folder, of the dev set's.
func eachMessage(t *testing.T, paths []string, f func(text string)) {
	t.Helper()
	if dir := os.Getenv("TALLY_REAL_LOGS"); dir != "" {
		real, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
		paths = append(paths[:len(paths):len(paths)], real...)
	}
	for _, p := range paths {
		ss, err := agentlog.OpenAll(p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			for i := range s.Messages {
				f(s.Messages[i].Text)
			}
		}
	}
}

// textWordsRunes is textWords as it was before its ASCII fast path
// (commit 0692259), which TestTextWordsLikeRunes pins it to.
func textWordsRunes(s string) []string {
	var out []string
	var tok []rune
	flush := func() {
		for len(tok) > 0 && (tok[len(tok)-1] == '.' || tok[len(tok)-1] == '-' || tok[len(tok)-1] == '/') {
			tok = tok[:len(tok)-1]
		}
		for len(tok) > 0 && (tok[0] == '.' || tok[0] == '-' || tok[0] == '/') {
			tok = tok[1:]
		}
		if len(tok) > 0 {
			out = append(out, string(tok))
		}
		tok = tok[:0]
	}
	var run []rune // a run of Han, Hiragana, Katakana: its bigrams
	endRun := func() {
		if len(run) == 1 {
			out = append(out, string(run))
		}
		for i := 1; i < len(run); i++ {
			out = append(out, string(run[i-1:i+1]))
		}
		run = run[:0]
	}
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' {
			flush()
			run = append(run, r)
			continue
		}
		endRun()
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			tok = append(tok, unicode.ToLower(r))
		case (r == '.' || r == '-' || r == '/') && len(tok) > 0:
			tok = append(tok, r)
		case r == '\'' || r == '\u2019':
		default:
			flush()
		}
	}
	flush()
	endRun()
	return out
}

// TestTextWordsLikeRunes: textWords splits as it did, on tricky text
// and, with TALLY_REAL_LOGS, every typed message of the dev set.
func TestTextWordsLikeRunes(t *testing.T) {
	texts := []string{"", "Don't touch go.mod -- ./cmd/tally/ and ÉCOLE’s Straße İ ǅ ½ ٣ x_y", "..a.. /b/ -c- \xff\xfeabc", "ΣΑΣ ﬁle 𝔸𝔹 ＡＢＣ", "不要推送到main分支。請先跑測試", "テストを実行してから、push してください", "x字y"}
	eachMessage(t, nil, func(text string) { texts = append(texts, text) })
	for _, x := range texts {
		if got, want := textWords(x), textWordsRunes(x); !slices.Equal(got, want) {
			t.Errorf("textWords(%.80q) = %q, want %q", x, got, want)
		}
	}
}

// FuzzTextWords: textWords splits any text as it did.
func FuzzTextWords(f *testing.F) {
	f.Add("Don't touch go.mod -- ./cmd/tally/ ÉCOLE’s")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := textWords(s), textWordsRunes(s); !slices.Equal(got, want) {
			t.Errorf("textWords(%q) = %q, want %q", s, got, want)
		}
	})
}
