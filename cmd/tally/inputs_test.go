package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inputCase is one command run on a bad input: a named pipe where a file
// (or a folder) is read, or a line over --max-line.
type inputCase struct {
	name string
	args []string
	// want are the parts of the one stderr line: the path (and line)
	// and what is wrong.
	want []string
	// reason says why the case is there.
	reason string
}

// runInputCase runs c under a timeout, so that a command that opens a
// named pipe — and waits for a writer that never comes — fails the test
// instead of hanging it, and checks exit 1 with one stderr line holding
// every part of c.want.
func runInputCase(t *testing.T, c inputCase) {
	t.Helper()
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := cli(t, c.args...)
		done <- result{stderr, code}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("tally %s: still running after 10 s: it blocks on its input (%s)", strings.Join(c.args, " "), c.reason)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	ok := r.code == exitInput && len(lines) == 1
	for _, w := range c.want {
		ok = ok && strings.Contains(r.stderr, w)
	}
	if !ok {
		t.Errorf("tally %s: exit %d, stderr:\n%s\nwant exit 1 and one line holding %q (%s)", strings.Join(c.args, " "), r.code, r.stderr, c.want, c.reason)
	}
}

// writeFiles writes name → content under dir, creating folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// absoluteExampleConfig returns the example quarter's report.yaml with its
// paths made absolute, for a configuration in another folder.
func absoluteExampleConfig(t *testing.T) string {
	t.Helper()
	cfg, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(quarterly)
	if err != nil {
		t.Fatal(err)
	}
	text := string(cfg)
	for _, key := range []string{"fixtures: ", "verdicts: ", "prompt_sizes: ", "replay: ", "selection: ", "first: ", "second: ", "reviews: "} {
		text = strings.ReplaceAll(text, key, key+abs+"/")
	}
	return text
}

// TestInputsRefuseNamedPipes: every command that reads a file refuses a
// named pipe given for it — on the command line or in report.yaml —
// with one line naming it, exit 1, at once: opening a named pipe would
// wait for a writer for ever, and reading one could never end.
func TestInputsRefuseNamedPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, "pipes", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, p)
		return p
	}
	q := quarterly
	// Each case its own output, since the cases run in parallel and a
	// failed write removes the folders it made. Their parent exists
	// before any case runs: were it made by one case, that case's failure
	// would remove it under another one writing beside it (seen in CI:
	// "mkdir …/out/2: no such file or directory").
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	outDir := func() string {
		n++
		return filepath.Join(dir, "out", strconv.Itoa(n))
	}
	notRegular := "is a named pipe (FIFO), not a regular file"

	// A copy of the prompt-sizes contexts with one context a named pipe.
	ctxs := filepath.Join(dir, "contexts")
	writeFiles(t, ctxs, map[string]string{
		"conv_a/1.json": readFile(t, filepath.Join(promptData, "contexts", "conv_a", "1.json")),
		"conv_a/2.json": readFile(t, filepath.Join(promptData, "contexts", "conv_a", "2.json")),
	})
	if err := os.Mkdir(filepath.Join(ctxs, "conv_b"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctxFIFO := filepath.Join(ctxs, "conv_b", "1.json")
	mkfifo(t, ctxFIFO)
	promptFixtures := filepath.Join(promptData, "fixtures.jsonl")

	check := func(over ...string) []string {
		args := []string{"check", "--fixtures", q + "/fixtures", "--contexts", q + "/contexts/incumbent", "--system", "incumbent",
			"--judge", "recorded", "--recorded", q + "/judge/recorded.jsonl", "-o", filepath.Join(outDir(), "v.jsonl")}
		for i := 0; i < len(over); i += 2 {
			for j := range args {
				if args[j] == over[i] {
					args[j+1] = over[i+1]
				}
			}
		}
		return args
	}
	// report.yaml files naming a named pipe for one input each.
	base := absoluteExampleConfig(t)
	config := func(name, key, pipe string) string {
		text := base
		if key == "notebook: " {
			text += "notebook: " + pipe + "\n"
		} else {
			i := strings.Index(text, key)
			if i < 0 {
				t.Fatalf("the example's report.yaml has no %q", key)
			}
			end := i + strings.IndexByte(text[i:], '\n')
			text = text[:i] + key + pipe + text[end:]
		}
		p := filepath.Join(dir, "configs", name+".yaml")
		writeFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): text})
		return p
	}
	templ := fifo("judge.tmpl")
	cases := []inputCase{
		{"check --fixtures", check("--fixtures", fifo("fixtures.json")), []string{"fixtures.json", notRegular}, "fixtures"},
		{"check --contexts", check("--contexts", fifo("contexts")), []string{"contexts", "is not a folder"}, "the contexts folder"},
		{"check context file", check("--fixtures", promptFixtures, "--contexts", ctxs), []string{ctxFIFO, notRegular}, "a compacted context"},
		{"check --recorded", check("--recorded", fifo("recorded.jsonl")), []string{"recorded.jsonl", notRegular}, "recorded verdicts"},
		{"check --template", append(check("--judge", "command"), "--command", "true", "--template", templ), []string{templ, notRegular}, "a judge template"},
		{"report CONFIG", []string{"report", fifo("report.yaml"), "-o", outDir()}, []string{filepath.Join("pipes", "report.yaml"), notRegular}, "the configuration"},
		{"gate CONFIG", []string{"gate", fifo("gate.yaml")}, []string{"gate.yaml", notRegular}, "the configuration"},
		{"report --notebook", []string{"report", exampleConfig, "-o", outDir(), "--notebook", fifo("flag-notebook.md")}, []string{"flag-notebook.md", notRegular}, "a notebook"},
		{"prompt-sizes --fixtures", []string{"prompt-sizes", "--contexts", ctxs, "--system", "s", "-o", filepath.Join(outDir(), "s.jsonl"), "--fixtures", fifo("ps-fixtures.jsonl")},
			[]string{"ps-fixtures.jsonl", notRegular}, "fixtures"},
		{"prompt-sizes context file", []string{"prompt-sizes", "--contexts", ctxs, "--system", "s", "-o", filepath.Join(outDir(), "s.jsonl")}, []string{ctxFIFO, notRegular}, "a compacted context"},
		{"prompt-sizes --contexts", []string{"prompt-sizes", "--contexts", fifo("ps-contexts"), "--system", "s", "-o", filepath.Join(outDir(), "s.jsonl")},
			[]string{"ps-contexts", "not a directory"}, "the contexts folder"},
		{"replay", []string{"replay", fifo("replay.jsonl")}, []string{"replay.jsonl", notRegular}, "replay pairs"},
		{"select", []string{"select", fifo("sessions.jsonl")}, []string{"sessions.jsonl", notRegular}, "session summaries"},
		{"signals", []string{"signals", q + "/events/week-01.jsonl.gz", fifo("events.jsonl")}, []string{"events.jsonl", notRegular}, "an event log"},
		{"propose", []string{"propose", fifo("transcript.jsonl")}, []string{"transcript.jsonl", notRegular}, "a transcript"},
		{"review", []string{"review", fifo("cands.json"), "-o", filepath.Join(outDir(), "f.json")}, []string{"cands.json", notRegular}, "a candidates file"},
		{"fixtures validate", []string{"fixtures", "validate", fifo("validate.jsonl")}, []string{"validate.jsonl", notRegular}, "fixtures"},
	}
	for _, in := range []struct{ name, key string }{
		{"fixtures", "fixtures: "}, {"verdicts", "verdicts: "}, {"prompt_sizes", "prompt_sizes: "},
		{"replay", "replay: "}, {"selection", "selection: "}, {"notebook", "notebook: "},
	} {
		pipe := fifo("config-" + in.name)
		cfg := config(in.name, in.key, pipe)
		cases = append(cases,
			inputCase{"report config " + in.name, []string{"report", cfg, "-o", outDir()}, []string{pipe, notRegular}, "report.yaml's " + in.name},
			inputCase{"gate config " + in.name, []string{"gate", cfg}, []string{pipe, notRegular}, "report.yaml's " + in.name})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runInputCase(t, c)
		})
	}
}

// TestInputsLongLines: every JSONL reader bounds its lines by --max-line,
// and a longer line is one error naming the file and the line.
func TestInputsLongLines(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 2000)
	writeFiles(t, dir, map[string]string{
		"sessions.jsonl": `{"session_id":"a","turns":5,"compactions":[],"items":[]}` + "\n" + `{"session_id":"` + long + `"}` + "\n",
		"events.jsonl": `{"session_id":"s","turn":1,"kind":"message","role":"user","text":"hi"}` + "\n" +
			`{"session_id":"s","turn":2,"kind":"message","role":"user","text":"` + long + `"}` + "\n",
		"replay.jsonl": `{"conversation_id":"conv_a","reference":"success","candidate":"success","reference_kind":"uncompacted"}` + "\n" +
			`{"conversation_id":"` + long + `"}` + "\n",
		"recorded.jsonl": `{"system":"s","conversation_id":"c","compaction":1,"item_id":"i","class":"constraint","verdict":"verbatim"}` + "\n" +
			`{"system":"` + long + `"}` + "\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	limit := "line longer than 1 KiB (raise with --max-line)"

	// A small report whose every file but the one under test fits in
	// 1 KiB a line.
	report := func(file, content string) string {
		cfg := repCase(t, nil, nil, "replay: replay.jsonl\n")
		cdir := filepath.Dir(cfg)
		text := strings.Replace(readFile(t, cfg), "{verdicts: inc.jsonl}", "{verdicts: inc.jsonl, prompt_sizes: sizes.jsonl}", 1)
		writeFiles(t, cdir, map[string]string{
			"report.yaml": text,
			"sizes.jsonl": `{"system":"incumbent","conversation_id":"conv_a","compaction":1,"prompt_tokens":100}` + "\n" +
				`{"system":"incumbent","conversation_id":"conv_b","compaction":1,"prompt_tokens":100}` + "\n",
			"replay.jsonl": `{"conversation_id":"conv_a","reference":"success","candidate":"success","reference_kind":"uncompacted"}` + "\n" +
				`{"conversation_id":"conv_b","reference":"success","candidate":"failure","reference_kind":"uncompacted"}` + "\n",
		})
		if content != "" {
			writeFiles(t, cdir, map[string]string{file: content})
		} else { // a long line appended
			f, err := os.OpenFile(filepath.Join(cdir, file), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(`{"x":"` + long + `"}` + "\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		return cfg
	}
	inc := report("inc.jsonl", "")
	sizes := report("sizes.jsonl", "")
	replay := report("replay.jsonl", "")
	cases := []inputCase{
		{"select", []string{"select", p("sessions.jsonl"), "--max-line", "1KiB"}, []string{p("sessions.jsonl") + ":2: " + limit}, "session summaries"},
		{"signals", []string{"signals", p("events.jsonl"), "--max-line", "1KiB"}, []string{p("events.jsonl") + ":2: " + limit}, "an event log"},
		{"propose", []string{"propose", p("events.jsonl"), "--max-line", "1KiB"}, []string{p("events.jsonl") + ":2: " + limit}, "a transcript"},
		{"replay", []string{"replay", p("replay.jsonl"), "--max-line", "1KiB"}, []string{p("replay.jsonl") + ":2: " + limit}, "replay pairs"},
		{"check --recorded", []string{"check", "--fixtures", "f", "--contexts", "c", "--system", "s", "--judge", "recorded", "--recorded", p("recorded.jsonl"), "-o", p("v.jsonl"), "--max-line", "1KiB"},
			[]string{p("recorded.jsonl") + ":2: " + limit}, "recorded verdicts"},
		{"report verdicts", []string{"report", inc, "-o", p("out"), "--max-line", "1KiB"}, []string{filepath.Join(filepath.Dir(inc), "inc.jsonl") + ":9: " + limit}, "verdicts"},
		{"gate prompt sizes", []string{"gate", sizes, "--max-line", "1KiB"}, []string{filepath.Join(filepath.Dir(sizes), "sizes.jsonl") + ":3: " + limit}, "prompt sizes"},
		{"gate replay", []string{"gate", replay, "--max-line", "1KiB"}, []string{filepath.Join(filepath.Dir(replay), "replay.jsonl") + ":3: " + limit}, "replay pairs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runInputCase(t, c)
		})
	}
	// Raised, the same reports are read (and gated).
	for _, cfg := range []string{inc, sizes, replay} {
		if _, stderr, code := cli(t, "gate", cfg, "--max-line", "64KiB"); code == exitInput && strings.Contains(stderr, "--max-line") {
			t.Errorf("gate %s --max-line 64KiB: exit %d, %s", cfg, code, stderr)
		}
	}
}

// TestLimitFlagsEverywhere: every command that reads files takes
// --max-line and --max-file, with one help text.
func TestLimitFlagsEverywhere(t *testing.T) {
	root := newRoot(nil, nil)
	var help string
	for _, path := range [][]string{{"check"}, {"fixtures", "validate"}, {"prompt-sizes"}, {"select"}, {"signals"}, {"propose"},
		{"review"}, {"replay"}, {"report"}, {"gate"}, {"noise"}, {"mcnemar"}, {"plan", "fixtures"}, {"calibrate"}, {"calibrate", "queue"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		var usage []string
		for _, name := range []string{"max-line", "max-file"} {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				t.Errorf("tally %s has no --%s", strings.Join(path, " "), name)
				continue
			}
			usage = append(usage, f.Usage)
		}
		got := strings.Join(usage, "|")
		if help == "" {
			help = got
		} else if got != help {
			t.Errorf("tally %s: --max-line/--max-file help %q, want %q as elsewhere", strings.Join(path, " "), got, help)
		}
	}
}

// readFile returns the file's text.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
