package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shellWords splits a command line as a POSIX shell would for the simple
// commands README shows: on blanks, with '…' and "…" quoting (an empty
// pair is an empty word).
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// consoleStep is one command of a README console block and the output the
// README shows for it.
type consoleStep struct {
	// files are the example files README shows (a fence "```jsonl NAME")
	// since the previous command: written into the folder before it runs.
	files   map[string]string
	line    int      // the README line of the command
	args    []string // the command's words, shell-split, globs unexpanded
	want    string   // the output shown, without a leading or trailing "…" line
	partial bool     // the README cuts the output's end with a "…" line
	tail    bool     // the README cuts the output's start with a "…" line
}

// consoleSteps parses every ```console block of a README: "$ " starts a
// command (a trailing backslash continues it on the next line, a " #"
// starts a comment), and the lines up to the next command are its output.
func consoleSteps(readme string) []consoleStep {
	var steps []consoleStep
	lines := strings.Split(readme, "\n")
	in := false
	var cur *consoleStep
	files := map[string]string{}
	flush := func() {
		if cur != nil {
			cur.want = strings.TrimSuffix(cur.want, "\n")
			if strings.HasSuffix(cur.want, "\n…") || cur.want == "…" {
				cur.want = strings.TrimSuffix(cur.want, "…")
				cur.partial = true
			}
			if rest, ok := strings.CutPrefix(cur.want, "…\n"); ok {
				cur.want, cur.tail = rest, true
			}
			steps = append(steps, *cur)
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !in && l == "```console":
			in = true
		case !in && strings.HasPrefix(l, "```") && len(strings.Fields(l)) == 2:
			name := strings.Fields(l)[1]
			var body strings.Builder
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body.WriteString(lines[i] + "\n")
			}
			files[name] = body.String()
		case in && l == "```":
			flush()
			in = false
		case in && strings.HasPrefix(l, "$ "):
			flush()
			start := i + 1
			cmd := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			if c := strings.Index(cmd, " #"); c >= 0 {
				cmd = cmd[:c]
			}
			cur = &consoleStep{line: start, args: shellWords(cmd), files: files}
			files = map[string]string{}
		case in && cur != nil:
			cur.want += l + "\n"
		}
	}
	return steps
}

// TestREADMEConsoleBlocks runs every command of every console block in
// README.md — `tally …`, `go run ./cmd/tally …` and `cat FILE` — in a
// scratch folder that sees the repository's examples/ and cmd/ (and the
// files README shows in a fence that names them, "```jsonl week-03.jsonl"),
// and compares what
// it prints with what README shows (up to a "…" line where README cuts
// it, or after one where README cuts its start). Commands that README shows without output (a terminal review, a
// validation of what that review writes) are skipped, and counted.
func TestREADMEConsoleBlocks(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, dir := range []string{"examples", "cmd"} {
		if err := os.Symlink(filepath.Join(root, dir), filepath.Join(work, dir)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)

	steps := consoleSteps(string(readme))
	if len(steps) < 10 {
		t.Fatalf("README.md has %d console commands; the parser must have missed some", len(steps))
	}
	ran, skipped := 0, 0
	for _, s := range steps {
		for name, body := range s.files {
			if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := s.args
		switch {
		case len(args) >= 3 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/tally":
			args = args[3:]
		case len(args) >= 1 && args[0] == "tally":
			args = args[1:]
		case len(args) == 2 && args[0] == "cat":
			b, err := os.ReadFile(args[1])
			if err != nil {
				t.Errorf("README.md:%d: cat %s: %v", s.line, args[1], err)
			} else if strings.TrimSuffix(string(b), "\n") != s.want {
				t.Errorf("README.md:%d: %s differs from what README shows:\n%s", s.line, args[1], b)
			}
			ran++
			continue
		default:
			t.Errorf("README.md:%d: a console command this test cannot run: %q", s.line, strings.Join(s.args, " "))
			continue
		}
		if s.want == "" && !s.partial {
			skipped++
			continue
		}
		var expanded []string
		for _, a := range args {
			if strings.ContainsAny(a, "*?[") {
				m, err := filepath.Glob(a)
				if err != nil || len(m) == 0 {
					t.Fatalf("README.md:%d: %s matches nothing", s.line, a)
				}
				expanded = append(expanded, m...)
				continue
			}
			expanded = append(expanded, a)
		}
		out, errOut, code := cli(t, expanded...)
		ran++
		got := strings.TrimSuffix(out+errOut, "\n")
		if s.tail {
			if !strings.HasSuffix(got, s.want) {
				t.Errorf("README.md:%d: `%s` (exit %d) prints\n%s\nREADME shows (after …)\n%s", s.line, strings.Join(s.args, " "), code, got, s.want)
			}
			continue
		}
		if s.partial {
			if !strings.HasPrefix(got, s.want) {
				t.Errorf("README.md:%d: `%s` (exit %d) prints\n%s\nREADME shows (up to …)\n%s", s.line, strings.Join(s.args, " "), code, got, s.want)
			}
			continue
		}
		if got != s.want {
			t.Errorf("README.md:%d: `%s` (exit %d) prints\n%s\nREADME shows\n%s", s.line, strings.Join(s.args, " "), code, got, s.want)
		}
	}
	t.Logf("README console commands: %d run and compared, %d shown without output and skipped", ran, skipped)
}
