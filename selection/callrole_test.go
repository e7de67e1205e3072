package selection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tally-eval/tally/agentlog"
)

// TestCodexRepeats reads a Codex rollout written from its tools'
// definitions (openai/codex, codex-rs/core/src/tools/spec.rs and
// codex-rs/apply-patch): two patches of different files are two calls,
// not a repeat; a test re-run after a patch is a re-run after a change;
// a file printed again with nothing changed between is a lost result,
// whichever shell tool ran it.
func TestCodexRepeats(t *testing.T) {
	var lines []string
	add := func(typ string, payload map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": "2025-10-01T10:00:00Z", "type": typ, "payload": payload})
		lines = append(lines, string(b))
	}
	user := func(text string) {
		add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": text}}})
	}
	fn := func(id, name string, args map[string]any, out string) {
		a, _ := json.Marshal(args)
		add("response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(a), "call_id": id})
		add("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
	}
	patch := func(id, file string) {
		add("response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": id,
			"input": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-old\n+new\n*** End Patch\n"})
		add("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": "Success. Updated the following files:\nM " + file})
	}
	add("session_meta", map[string]any{"id": "cx-1", "cwd": "/src"})
	user("make the orders list paginated; don't touch the public API")
	fn("c1", "shell", map[string]any{"command": []string{"bash", "-lc", "go test ./internal/store -run TestListOrdersPage"}}, `{"output":"FAIL","metadata":{"exit_code":1}}`)
	fn("c2", "exec_command", map[string]any{"cmd": "sed -n 1,80p internal/store/orders.go"}, "Process exited with code 0\nOutput:\npackage store")
	fn("c2b", "shell", map[string]any{"command": []string{"bash", "-lc", "cat README.md"}}, `{"output":"# orders","metadata":{"exit_code":0}}`)
	fn("c2c", "exec_command", map[string]any{"cmd": "sed -n '60,120p' internal/store/orders_test.go"}, "Process exited with code 0\nOutput:\nfunc TestListOrdersPage")
	patch("c3", "internal/store/orders.go")
	add("compacted", map[string]any{"message": "summary"})
	user("go on")
	patch("c4", "pkg/api/orders.go")
	fn("c5", "shell_command", map[string]any{"command": "go test ./internal/store -run TestListOrdersPage"}, "Exit code: 0")
	fn("c6", "exec_command", map[string]any{"cmd": "sed -n 1,80p  internal/store/orders.go", "yield_time_ms": 1000}, "Process exited with code 0\nOutput:\npackage store")
	fn("c7", "shell", map[string]any{"command": []string{"bash", "-lc", "cat README.md"}}, `{"output":"# orders","metadata":{"exit_code":0}}`)
	fn("c8", "exec_command", map[string]any{"cmd": "sed -n '60,120p' internal/store/orders_test.go"}, "Process exited with code 0\nOutput:\nfunc TestListOrdersPage")
	s, err := agentlog.ReadCodex(strings.NewReader(strings.Join(lines, "\n")), "cx.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range FindToolRepeats(s, DefaultRepeatWindow) {
		got = append(got, r.First.ID+">"+r.Repeat.ID+" "+string(r.Kind))
	}
	// c5 repeats c1 by its command (shell's list and shell_command's
	// string are one script), but as another tool: not the same call.
	// c6 re-prints orders.go, which c3 patched between: a re-read after
	// an edit. c7 and c8 print files nothing changed: without a Read
	// tool, that is how the agent reads, so the result was asked for
	// again (and a _test.go file printed is no test run).
	want := "c2>c6 " + string(RereadAfterEdit) + "|c2b>c7 " + string(LostResult) + "|c2c>c8 " + string(LostResult)
	if strings.Join(got, "|") != want {
		t.Errorf("repeats %q, want %q", got, want)
	}
}

// TestCallRole pins how other agents' tools map onto the classifier's
// roles.
func TestCallRole(t *testing.T) {
	for _, c := range []struct {
		tool, raw, role, key string
	}{
		{"shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/src","timeout_ms":120000}`, "Bash", "go test ..."},
		{"local_shell", `{"type":"exec","command":["go","test","./..."],"timeout_ms":null}`, "Bash", "go test ..."},
		{"shell_command", `{"command":"go  test ./...","workdir":"/src"}`, "Bash", "go test ..."},
		{"exec_command", `{"cmd":"go test ./...","yield_time_ms":1000}`, "Bash", "go test ..."},
		{"apply_patch", `"*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch"`, "Patch", "*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch"},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Delete File: b.go\n*** End Patch"}`, "Patch", "*** Begin Patch\n*** Delete File: b.go\n*** End Patch"},
		// A patch run through the shell, as Codex's model was taught to
		// (codex-rs/apply-patch, maybe_parse_apply_patch: the argv form
		// and bash -lc's here-document form).
		{"shell", `{"command":["apply_patch","*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"],"workdir":"/src"}`, "Patch", "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"},
		{"shell", `{"command":["bash","-lc","apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: c.go\n+package c\n*** End Patch\nEOF\n"]}`, "Patch", "*** Begin Patch\n*** Add File: c.go\n+package c\n*** End Patch"},
		{"shell", `{"command":["bash","-lc","echo apply_patch"]}`, "Bash", "echo apply_patch"},
		{"web_search", `"go generics"`, "web_search", `"go generics"`},
		{"edit_file", `{"path":"a.go","content":"x"}`, "Edit", "/src/a.go\x00" + `{"content":"x","path":"a.go"}`},
		{"shell", `{"workdir":"/src"}`, "shell", `{"workdir":"/src"}`},
	} {
		role, in := callRole(c.tool, json.RawMessage(c.raw), "/src")
		if role != c.role || in.key != c.key {
			t.Errorf("%s %s: role %q key %q, want %q %q", c.tool, c.raw, role, in.key, c.role, c.key)
		}
	}
	_, in := callRole("apply_patch", json.RawMessage(`"*** Begin Patch\n*** Update File: x/a.go\n*** Move to: x/b.go\n*** Add File: /abs/c.go\n*** End Patch"`), "/src")
	if strings.Join(in.files, " ") != "/src/x/a.go /src/x/b.go /abs/c.go" {
		t.Errorf("patch files %q", in.files)
	}
}

// TestShellReads pins the files a reading command prints, by the
// programs' synopses (POSIX cat, head, tail and sed; GNU grep; ripgrep's
// rg --help): flags and their values are not files, sed's script and
// grep's pattern are not either, and sed -i writes.
func TestShellReads(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"cat a.go b.go", []string{"a.go", "b.go"}},
		{"head -n 50 a.go", []string{"a.go"}},
		{"tail -20 log.txt", []string{"log.txt"}},
		{"sed -n '60,120p' x_test.go", []string{"x_test.go"}},
		{"sed -i s/a/b/ x.go", nil},
		{"grep -n func a.go", []string{"a.go"}},
		{"rg -n -g '*.go' TODO internal", []string{"internal"}},
		{"nl -ba main.go", []string{"main.go"}},
		{"ls -la", nil},
	} {
		f := strings.Fields(c.cmd)
		got := shellReads(f[0], f)
		if strings.Join(got, " ") != strings.Join(c.want, " ") || (got == nil) != (c.want == nil) {
			t.Errorf("%s: %q, want %q", c.cmd, got, c.want)
		}
	}
	if b := classifyBash("sed -n '60,120p' internal/store/orders_test.go"); b.check {
		t.Error("printing a _test.go file reads as a test run")
	}
	// A Claude Code Bash call that only prints a file looks, as cat does
	// (the agent has a Read tool): a new user's trial found "cat VERSION"
	// read as orientation and "sed -n '1,40p' docs/RELEASE.md" as a lost
	// result. sed -i writes.
	for _, c := range []struct {
		cmd            string
		orient, writes bool
	}{
		{"cat VERSION", true, false},
		{"sed -n '1,40p' docs/RELEASE.md", true, false},
		{"nl -ba main.go | sed -n '10,20p'", true, false},
		{"sed -i 's/a/b/' main.go", false, true},
		// Formatters write only when asked to (gofmt(1): -l lists, -w
		// writes; prettier's --check, black's --check and --diff).
		{"gofmt -l .", false, false},
		{"gofmt -w .", false, true},
		{"npx prettier --check .", false, false},
		{"npx prettier --write .", false, true},
		{"black --check .", false, false},
		{"black src", false, true},
		{"rustfmt src/main.rs", false, true},
		{"find . -name '*.go' | xargs gofmt -w", false, true},
		// Formatters and linters that only print (a second re-check
		// trial: these hid lost results), and runners read through.
		{"gofmt src", false, false},
		{"gofmt -d src", false, false},
		{"npx eslint --format json src", false, false},
		{"uv run ruff check --output-format=github src", false, false},
		{"cargo fmt -- --check", false, false},
		{"autopep8 a.py", false, false},
		{"autopep8 -i a.py", false, true},
		{"go fmt ./...", false, true},
		{"yarn prettier --write src", false, true},
		{"uvx black src", false, true},
		{"pipx run black src", false, true},
		{"go run golang.org/x/tools/cmd/goimports@latest -w src", false, true},
		{"uv run isort --check-only src", false, false},
	} {
		if b := classifyBash(c.cmd); b.orient != c.orient || b.writes != c.writes {
			t.Errorf("%s: orientation %v, writes %v; want %v, %v", c.cmd, b.orient, b.writes, c.orient, c.writes)
		}
	}
}

// TestGitPathsOnly: a git command that changes only the files it names
// (git-checkout(1) and git-reset(1) with "--", git-restore(1), git-rm(1),
// git-mv(1)) writes those files but does not change the tree, so a
// lost re-read of another file is still found (a new user's trial);
// anything wider, a "." or a pattern, changes the tree.
func TestGitPathsOnly(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		tree bool
	}{
		{"git checkout -- api/v1/invoice.proto", false},
		{"git checkout HEAD~1 -- src/a.go src/b.go", false},
		{"git restore --staged src/a.go", false},
		{"git rm -r old/", false},
		{"git mv a.go b.go", false},
		{"git reset HEAD -- a.go", false},
		{"git checkout main", true},
		{"git checkout -b feature/x", true},
		{"git restore .", true},
		{"git checkout -- '*.go'", true},
		{"git reset --hard", true},
		{"git stash", true},
		{"git -C /src checkout -- a.go && git pull", true},
	} {
		b := classifyBash(c.cmd)
		if b.treeChange != c.tree || !b.writes {
			t.Errorf("%s: tree change %v, writes %v; want %v, true", c.cmd, b.treeChange, b.writes, c.tree)
		}
	}
}

// TestCodexWorkdir: a shell call's workdir places its relative paths:
// "cat c.go" in src/ is src/c.go, which a checkout of src/c.go run at the
// root changes, and "cat c.go" in lib/ is another file (a second re-check
// trial found both read against the session's directory).
func TestCodexWorkdir(t *testing.T) {
	run := func(calls ...[2]string) []string {
		l := &codexLog{}
		l.add("session_meta", map[string]any{"id": "cx-3", "cwd": "/proj"})
		l.user("fix c.go")
		for _, c := range calls {
			if c[0] == "compact" {
				l.compact()
				continue
			}
			l.shell(c[0], c[1])
		}
		return l.kinds(t)
	}
	compact := [2]string{"compact"}
	if got := run([2]string{"cat c.go", "/proj/src"}, compact, [2]string{"git checkout -- src/c.go", "/proj"}, [2]string{"cat c.go", "/proj/src"}); !slices.Equal(got, []string{string(RereadAfterEdit)}) {
		t.Errorf("a checkout at the root between: %q, want a re-read after an edit", got)
	}
	if got := run([2]string{"cat c.go", "/proj/lib"}, compact, [2]string{"cat c.go", "/proj/src"}); len(got) != 0 {
		t.Errorf("two files of one name: %q, want no repeat", got)
	}
	if got := run([2]string{"cat c.go", "/proj/src"}, compact, [2]string{"cat c.go", "/proj/lib/../src/"}); !slices.Equal(got, []string{string(LostResult)}) {
		t.Errorf("one file, its workdir spelled two ways: %q, want a lost result", got)
	}
}

// TestCodexRereadAfterShellWrite: a file printed, changed by a shell
// command that names it relative to the working directory (git
// checkout, git restore, rm and recreate, sed -i, a redirection), and
// printed again is a re-read after an edit, not a lost result (a
// re-check trial found the checkout fix had made these lost results).
func TestCodexRereadAfterShellWrite(t *testing.T) {
	for _, write := range []string{
		"git checkout -- src/c.go",
		"git restore ./src/c.go",
		"sed -i 's/a/b/' src/c.go",
		"echo x >src/c.go",
		"printf x 2>/dev/null > 'src/c.go'",
		// A second re-check trial: a folder above it, a pattern, the
		// flags' other spellings, a redirection with no space.
		"git checkout -- src",
		"gofmt -w .",
		"sed -i 's/a/b/' src/*.go",
		"perl -pi -e 's/a/b/' src/c.go",
		"sed --in-place 's/a/b/' src/c.go",
		"echo x>src/c.go",
		// A runner before the command (a re-check trial: npx and xargs
		// hid the write), and names fed to xargs by the command before.
		"npx prettier --write src",
		"pnpm exec prettier --write .",
		"uv run ruff format src",
		"find src -name '*.go' | xargs gofmt -w",
		"git ls-files src | xargs sed -i 's/a/b/'",
		"bundle exec rubocop -a src",
		// "**" spans folders, as prettier and bash's globstar read it.
		"npx prettier --write 'src/**/*.go'",
		"npx prettier --write 'src/**/*.{go,ts}'",
		// A Go package pattern names its folder and below (a second
		// re-check trial), and biome is a formatter.
		"go fmt ./...",
		"npx @biomejs/biome format --write src",
	} {
		if got := rereadAround(t, write); !slices.Equal(got, []string{string(RereadAfterEdit)}) {
			t.Errorf("%s between: repeats %q, want a re-read after an edit", write, got)
		}
	}
}

// rereadAround is the kinds of the repeats in a Codex session in /src
// that prints src/c.go, is compacted, runs between, then prints
// src/c.go again.
func rereadAround(t *testing.T, between string) []string {
	t.Helper()
	l := &codexLog{}
	l.add("session_meta", map[string]any{"id": "cx-2", "cwd": "/src"})
	l.user("fix c.go")
	l.shell("cat src/c.go", "/src")
	l.compact()
	l.shell(between, "/src")
	l.shell("cat src/c.go", "/src")
	return l.kinds(t)
}

// codexLog writes a Codex rollout line by line, for the tests of how
// Codex's calls are read (records as codex-rs/protocol writes them).
type codexLog struct {
	lines []string
	n     int // calls made, for their ids
}

func (l *codexLog) add(typ string, payload map[string]any) {
	b, _ := json.Marshal(map[string]any{"timestamp": "2025-10-01T10:00:00Z", "type": typ, "payload": payload})
	l.lines = append(l.lines, string(b))
}

func (l *codexLog) user(text string) {
	l.add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": text}}})
}

// shell is a shell call of cmd in workdir ("" for none), exit code 0.
func (l *codexLog) shell(cmd, workdir string) {
	in := map[string]any{"command": []string{"bash", "-lc", cmd}}
	if workdir != "" {
		in["workdir"] = workdir
	}
	a, _ := json.Marshal(in)
	l.n++
	id := fmt.Sprint("c", l.n)
	l.add("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(a), "call_id": id})
	l.add("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": `{"output":"x","metadata":{"exit_code":0}}`})
}

func (l *codexLog) compact() {
	l.add("compacted", map[string]any{"message": "summary"})
	l.user("go on")
}

// kinds reads the log and returns its repeats' kinds.
func (l *codexLog) kinds(t *testing.T) []string {
	t.Helper()
	s, err := agentlog.ReadCodex(strings.NewReader(strings.Join(l.lines, "\n")), "cx.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range FindToolRepeats(s, DefaultRepeatWindow) {
		got = append(got, string(r.Kind))
	}
	return got
}

// TestGlobMatch: "**" matches any number of folders, none included
// (bash's globstar, prettier's and eslint's patterns); without it a
// pattern is path.Match's.
func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		p, file string
		want    bool
	}{
		{"/s/src/**/*.ts", "/s/src/a.ts", true},
		{"/s/src/**/*.ts", "/s/src/lib/deep/b.ts", true},
		{"/s/src/**/*.ts", "/s/lib/b.ts", false},
		{"/s/src/**/*.ts", "/s/src/a.go", false},
		{"/s/src/**", "/s/src/x/y.go", true},
		{"/s/src/*.go", "/s/src/a.go", true},
		{"/s/src/*.go", "/s/src/x/a.go", false},
		{"/s/src/**/*.{ts,tsx}", "/s/src/a/b.tsx", true},
		{"/s/src/**/*.{ts,tsx}", "/s/src/a/b.go", false},
	} {
		if got := globMatch(c.p, c.file); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.p, c.file, got, c.want)
		}
	}
}

// TestFormatTaskNamesNoFile: a formatting task that names no path
// ("cargo fmt", "make fmt", "mise run fmt") is not read as changing a
// file the agent re-reads after it. A second re-check trial expected it
// to be; but on the dev set the labellers called the 9 re-reads after
// "mise run fmt" lost results (TestRepeatScoreReal's recall fell from
// 60/63 to 51/63 when such a task changed the whole project): a project
// formatted a moment ago rarely changes, and the agent read the file
// again because the compaction dropped it.
func TestFormatTaskNamesNoFile(t *testing.T) {
	for _, task := range []string{"cargo fmt", "make fmt", "mise run fmt", "npm run format"} {
		if got := rereadAround(t, task); !slices.Equal(got, []string{string(LostResult)}) {
			t.Errorf("%s between: repeats %q, want a lost result", task, got)
		}
	}
}
