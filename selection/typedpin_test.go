package selection

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// prepareTyped and pastedLine pinned to their versions of commit
// 227b3e2, before pastedLine skipped patterns by a line's first byte and
// prepareTyped took the content words from the prose's words.

// oldPastedLine is pastedLine as it was.
func oldPastedLine(line string) bool {
	t := strings.TrimRight(line, " \t\r")
	if t == "" {
		return false
	}
	if pasteStackRe.MatchString(t) || pasteLogRe.MatchString(t) || pasteDiffRe.MatchString(t) || pasteShellRe.MatchString(t) {
		return true
	}
	if len(t) > 200 && !strings.Contains(t, ". ") && !strings.Contains(t, "? ") && !strings.Contains(t, ", ") {
		return true
	}
	return codeLine(t)
}

// oldPrepareTyped is prepareTyped as it was.
func oldPrepareTyped(s *agentlog.Session, i int) typedText {
	m := &s.Messages[i]
	text := m.Text
	switch m.Kind {
	case agentlog.SlashCommand:
		text = slashArgs(text)
	case agentlog.ShellCommand:
		text = ""
	}
	prose, _ := typedProse(text)
	// norm keeps a run of Han, Hiragana or Katakana whole
	// (textRunWords) since the words read such runs as character pairs.
	t := typedText{index: i, prose: prose, norm: strings.Join(textRunWords(prose), " "), plan: acceptedPlan(text)}
	var kept []string
	for _, sent := range sentences(prose) {
		n := normaliseText(sent)
		if t.cue == "" {
			if c := cueOf(n); c != "" {
				t.cue, t.cueSent = c, sent
			}
		}
		if t.cue == "" || t.cueSent != sent {
			if strings.Contains(n, "again") && bareAgain.MatchString(n) {
				t.again = true
			}
		}
		kept = append(kept, sent)
	}
	for _, w := range contentWords(strings.Join(kept, "\n")) {
		if !restateCueStop[w] {
			t.words = append(t.words, w)
		}
	}
	return t
}

// typedPinCases are messages at the edges of the pasted-line patterns'
// first bytes and of sentence splitting.
var typedPinCases = []string{
	"", "fix it", "  at foo (bar.js:1:2)", "goroutine 7 [running]:", "\t/src/x.go:12 +0x1d", `File "x.py", line 3`,
	`  File "x.py", line 3`, "panic: boom", "Traceback (most recent call last):", "[2024-01-02T10:00:00] x",
	"2024-01-02 10:00:00 x", "12:00:01 x", "[INFO] ok", "WARN: x", "time=1 level=info", "level=warn x",
	"diff --git a/x b/x", "index abcdef0..1234567", "@@ -1,2 +1,2 @@", "+++ b/x", "--- a/x", "+\tx", "-\tx",
	"$ ls", "❯ go test", "⎿ done", "│ x", "Error: nope", "FATAL: x", "npm ERR! x", "--- FAIL: TestX", "=== RUN TestX",
	"PASS", "ok  \tpkg\t0.1s", "To github.com:x/y", "  3 passed", "x.go:1:2: bad", "\fgoroutine", "\vpanic: x",
	"done.\nnext! really? yes… ok:\nmore", "e.g. this. i.e. that", "don't forget the tests.\u00a0Again: run them",
	"you forgot\u2028again", "wait…now", "a.b-c/d e'f g\u2019h", "line\r\nother\rthird",
}

// pinSessions are the dev set's sessions when TALLY_REAL_LOGS names its
// folder, and this package's real-format test sessions.
func pinSessions(t *testing.T) []*agentlog.Session {
	files, _ := filepath.Glob(filepath.Join("testdata", "re*", "*.jsonl"))
	if dir := os.Getenv("TALLY_REAL_LOGS"); dir != "" {
		real, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
		if err != nil || len(real) == 0 {
			t.Fatalf("TALLY_REAL_LOGS=%s holds no *.jsonl.gz files (%v)", dir, err)
		}
		files = append(files, real...)
	} else {
		t.Log("TALLY_REAL_LOGS unset: the test sessions only")
	}
	var out []*agentlog.Session
	for _, p := range files {
		ss, err := agentlog.OpenAll(p, "")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ss...)
	}
	return out
}

func TestTypedPinned(t *testing.T) {
	for _, c := range typedPinCases {
		for _, l := range strings.Split(c, "\n") {
			if got, want := pastedLine(l), oldPastedLine(l); got != want {
				t.Errorf("pastedLine(%q) = %v, was %v", l, got, want)
			}
		}
		s := &agentlog.Session{Messages: []agentlog.Message{{Text: c}}}
		if got, want := prepareTyped(s, 0), oldPrepareTyped(s, 0); !reflect.DeepEqual(got, want) {
			t.Errorf("prepareTyped(%q) = %+v, was %+v", c, got, want)
		}
	}
	msgs, lines := 0, 0
	for _, s := range pinSessions(t) {
		for i := range s.Messages {
			msgs++
			for _, l := range strings.Split(s.Messages[i].Text, "\n") {
				lines++
				if got, want := pastedLine(l), oldPastedLine(l); got != want {
					t.Errorf("pastedLine(%q) = %v, was %v", l, got, want)
				}
			}
			if got, want := prepareTyped(s, i), oldPrepareTyped(s, i); !reflect.DeepEqual(got, want) {
				t.Errorf("%s message %d: prepareTyped = %+v, was %+v", s.ID, i, got, want)
			}
		}
	}
	t.Logf("%d messages, %d lines", msgs, lines)
}

// FuzzTypedPinned checks pastedLine and prepareTyped against their old
// versions on any text.
func FuzzTypedPinned(f *testing.F) {
	for _, c := range typedPinCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, l := range strings.Split(text, "\n") {
			if got, want := pastedLine(l), oldPastedLine(l); got != want {
				t.Errorf("pastedLine(%q) = %v, was %v", l, got, want)
			}
		}
		s := &agentlog.Session{Messages: []agentlog.Message{{Text: text}}}
		if got, want := prepareTyped(s, 0), oldPrepareTyped(s, 0); !reflect.DeepEqual(got, want) {
			t.Errorf("prepareTyped(%q) = %+v, was %+v", text, got, want)
		}
	})
}
