package selection

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTypedProse(t *testing.T) {
	cases := []struct {
		name, in, want string
		dropped        int
	}{
		{"prose only", "Keep the API stable.\nAnd add a test.", "Keep the API stable.\nAnd add a test.", 0},
		{"code fence", "the worker crashes:\n```\npanic: boom\nmain.main()\n```\nwhat's wrong?", "the worker crashes:\nwhat's wrong?", 4},
		{"quoted line", "> Remember to restart the worker.\ncan you add a check?", "can you add a check?", 1},
		{"git error prefix", "fatal: Unable to create '/repo/.git/index.lock': File exists.\nplease look", "please look", 1},
		{"log lines", "2026-02-10 09:14:22 ERROR you forgot to set DATABASE_URL\n[INFO] starting\nwhy?", "why?", 2},
		{"go test output", "--- FAIL: TestX (0.05s)\n    x_test.go:12: got 1\nFAIL\nfix it", "fix it", 3},
		{"diff", "diff --git a/x.go b/x.go\n@@ -1,2 +1,2 @@\n+\tfoo()\nthis change breaks the build", "this change breaks the build", 3},
		{"stack frame", "goroutine 1 [running]:\n\t/src/x.go:42 +0x1d\nany idea?", "any idea?", 2},
		{"shell prompt and tree", "❯ entire status\n├── metadata.json\nwhat is this file?", "what is this file?", 2},
		{"long line without a sentence", strings.Repeat("abc/def:ghi ", 30) + "\nok then", "ok then", 1},
		{"code line", "func main() {\n}\nrename main", "rename main", 2},
		{"list items kept", "Please:\n- keep the grouping\n- drop the line", "Please:\n- keep the grouping\n- drop the line", 0},
		{"prose between pasted lines", "we see:\nfatal: no remote\nChecking out files: 100%\nremote: denied\ncan you fix the token?", "we see:\ncan you fix the token?", 3},
		// A program's first line that reads as prose cannot be told from a
		// lead-in: it stays (a limit of line rules).
		{"output's first line", "Fetching from fork...\nfatal: no remote\n\ncan you fix the token?", "Fetching from fork...\ncan you fix the token?", 1},
	}
	for _, c := range cases {
		got, dropped := typedProse(c.in)
		if got != c.want || dropped != c.dropped {
			t.Errorf("%s: typedProse = %q (%d dropped), want %q (%d)", c.name, got, dropped, c.want, c.dropped)
		}
	}
}

func TestSentences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Keep go.mod tidy. Use v1.2 only! Why? ok", []string{"Keep go.mod tidy.", "Use v1.2 only!", "Why?", "ok"}},
		{"Use tabs, e.g. in the Makefile. Done", []string{"Use tabs, e.g. in the Makefile.", "Done"}},
		{"First line\nSecond line", []string{"First line", "Second line"}},
		{"done.\nsecond line", []string{"done.", "second line"}},
		// A hard-wrapped sentence is one (a new user's trial: the
		// condition on its last line was lost).
		{"Don't run git push --force on main,\nand never delete the release branch\nwithout asking me.", []string{"Don't run git push --force on main,\nand never delete the release branch", "without asking me."}},
		{"Don't run git push --force on main, and never delete the release branch\nwithout asking me first.", []string{"Don't run git push --force on main, and never delete the release branch\nwithout asking me first."}},
		{"never push to main\nalways run the tests before committing.", []string{"never push to main", "always run the tests before committing."}},
		{"Keep the old endpoint working until\nthe clients migrate.", []string{"Keep the old endpoint working until\nthe clients migrate."}},
		{"Don't run git push --force on main,\n  and never delete it.", []string{"Don't run git push --force on main,", "and never delete it."}},
		{"fix the tests\n- then commit", []string{"fix the tests", "- then commit"}},
		{"fix the tests\n\nthen commit", []string{"fix the tests", "then commit"}},
		{"Again: no new dependencies.", []string{"Again: no new dependencies."}},
		{"", nil},
	}
	for _, c := range cases {
		if got := sentences(c.in); !slices.Equal(got, c.want) {
			t.Errorf("sentences(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestContentWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		// stop words go, stems fold, file names and paths stay whole
		{"Please don't add the tests to cmd/tally/main.go", []string{"add", "cmd/tally/main.go", "test"}},
		{"changes changing changed", []string{"chang"}},
		{"the policies apply", []string{"apply", "policy"}},
		{"handle event kind 2", []string{"2", "event", "handl", "kind"}},
		{"I’m sure it's fine", []string{"fin"}},
	}
	for _, c := range cases {
		if got := contentWords(c.in); !slices.Equal(got, c.want) {
			t.Errorf("contentWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormaliseText(t *testing.T) {
	if got, want := normaliseText("  Don’t  “Push”\n to `main` "), "don't \"push\" to 'main'"; got != want {
		t.Errorf("normaliseText = %q, want %q", got, want)
	}
}

// TestRestateCues pins the cues on sentences written for the test: the
// phrasings of issue 12 and look-alikes.
func TestRestateCues(t *testing.T) {
	cases := []struct {
		sentence, cue string
	}{
		{"You forgot to perform some steps.", "you forgot"},
		{"you've forgotten the changelog", "you forgot"},
		{"did you forget the tests?", "did you forget"},
		{"Don't forget to maintain proper ATDD.", "don't forget"},
		{"Please remember to run gofmt.", "remember to"},
		{"Remember: tabs in the Makefile.", "remember to"},
		{"I told you to use tabs.", "I told you"},
		{"I've already asked you not to push.", "I told you"},
		{"As I said, keep the API.", "as I said"},
		{"I said don't touch migrations.", "I said"},
		{"No, I said: tabs in the Makefile.", "I said"},
		{"I said I would look at it tomorrow", ""},
		{"I said yes to the first option", ""},
		{"like I mentioned, no new deps", "as I said"},
		{"I already said that.", "I already said"},
		{"I said it before: no force pushes", "I already said"},
		{"as mentioned earlier, use UTC", "as mentioned"},
		{"I explicitly said no mocks.", "I already said"},
		{"As per my instructions, tests go first.", "as per my instructions"},
		{"you didn't follow the conventions in CLAUDE.md", "as per my instructions"},
		{"we agreed on snake_case for the JSON fields", "we agreed"},
		{"per the docs, the limit is 100", ""},
		{"Just a reminder: tests first.", "reminder"},
		{"Again: no new dependencies.", "again:"},
		{"Once again: use the logger.", "again:"},
		{"again - no force pushes", "again:"},
		{"the issue is still that this would not surface to the user", "the issue is still"},
		{"for the last time, no pushes to main", "I repeat"},
		// look-alikes
		{"run the linter again and report", ""},
		{"remove the tests again", ""},
		{"are terminated then try again.", ""},
		{"I forgot to mention: keep the order.", ""},
		{"do you remember what the flag was called?", ""},
		{"I don't remember that function", ""},
		{"the issue is that the hook fails", ""},
		{"we remember the last prompt", ""},
		{"Again, the build is failing.", ""},
		{"add a reminder to the calendar view", ""},
		{"so users don't forget their password", ""},
		{"what happens if you forgot your password?", ""},
		{"as mentioned in the issue, the API returns 404", "as mentioned"},
	}
	for _, c := range cases {
		if got := cueOf(normaliseText(c.sentence)); got != c.cue {
			t.Errorf("%q: cue %q, want %q", c.sentence, got, c.cue)
		}
	}
}

func TestEditedCopy(t *testing.T) {
	a := "set up the release workflow build for linux and darwin on every tag upload the archives"
	cases := []struct {
		a, b string
		want bool
		why  string
	}{
		{a, a, false, "a verbatim copy is not edited"},
		{a, a + " and windows", true, "a copy with a line added"},
		{"why so high " + a, a, true, "a quote of the earlier prompt inside new text"},
		{"never push to main directly", "never push directly to main", false, "too short to tell"},
		{"port the handler in api/orders.go to the new chi router", "now api/refunds.go port its handler to the new router", false, "retyped, no long shared run"},
	}
	for _, c := range cases {
		if got := editedCopy(c.a, c.b); got != c.want {
			t.Errorf("%s: editedCopy = %v, want %v", c.why, got, c.want)
		}
	}
}

// FuzzTypedProse checks that typedProse only keeps lines of its input,
// trimmed, and counts every other non-blank line as dropped.
func FuzzTypedProse(f *testing.F) {
	for _, s := range []string{"", "a\nb", "```\nx\n```\ny", "> q\n  at f (x.js:1:2)\nok", "fatal: x\n\n\tindented\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		prose, dropped := typedProse(in)
		nonBlank := 0
		lines := map[string]bool{}
		for _, l := range strings.Split(in, "\n") {
			if strings.TrimSpace(l) != "" {
				nonBlank++
				lines[strings.TrimSpace(l)] = true
			}
		}
		kept := 0
		if prose != "" {
			for _, l := range strings.Split(prose, "\n") {
				if !lines[l] {
					t.Fatalf("kept line %q is not a line of the input", l)
				}
				kept++
			}
		}
		if kept+dropped != nonBlank {
			t.Fatalf("%d kept + %d dropped != %d non-blank lines", kept, dropped, nonBlank)
		}
		sentences(prose)
		contentWords(prose)
	})
}

// TestReadsEnglish: English prose has English function words, German,
// Chinese and Japanese prose none of those that are not also theirs; a
// few words are too few to tell.
func TestReadsEnglish(t *testing.T) {
	tests := []struct {
		typed []string
		want  bool
	}{
		{[]string{"Never push to main; open a pull request from a feature branch and wait for CI."}, true},
		{[]string{"Bitte refaktoriere das Modul für die Größenberechnung. Ändere niemals die Datei config.yaml, sie gehört dem Betrieb."}, false},
		{[]string{"本番データベースには絶対に書き込まないでください。テストを実行してから報告してください。"}, false},
		{[]string{"绝对不要写入生产数据库。请先运行测试，然后再提交代码。"}, false},
		{[]string{"Bitte pushe nicht.", "Don't push to main without asking me first, and keep the old name until QA signs off."}, true},
		{[]string{"commit", "push"}, true}, // too few to tell
		// Terse English has no function words, and none of another
		// language's either (a re-check trial).
		{[]string{"npm test", "fix lint", "continue", "deploy staging", "run e2e suite", "bump version", "merge main"}, true},
		{[]string{"Haz los cambios en el archivo de configuración y no toques la base de datos de producción."}, false},
		// Scripts and languages without a function-word list: their
		// letters are the evidence (a re-check trial).
		{[]string{"Никогда не пушь в main и не трогай конфигурацию продакшена без моего разрешения, пожалуйста."}, false},
		{[]string{"프로덕션 데이터베이스에는 절대로 쓰지 마세요. 테스트를 먼저 실행하고 결과를 알려주세요. 감사합니다 정말로."}, false},
		{[]string{"Nigdy nie wypychaj zmian na gałąź główną bez pytania mnie najpierw, proszę. Dziękuję bardzo za pomoc."}, false},
	}
	for _, tt := range tests {
		var msgs []propMsg
		for i, s := range tt.typed {
			msgs = append(msgs, propMsg{i + 1, "user", s}, propMsg{i + 1, "assistant", "ok"})
		}
		if got := ReadsEnglish(propSession(msgs, 0)); got != tt.want {
			t.Errorf("ReadsEnglish(%q) = %v, want %v", tt.typed, got, tt.want)
		}
	}
}
