package selection

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/jsonscan"
)

// This file holds what the proposer learns from a session's tool calls
// rather than its text: which files the agent changed, which commits,
// pull requests, review comments and branches it worked on. A reference
// the agent only mentions is working state; one it acted on is what a
// summary must keep.

// propWork is what a session's tool calls show the agent worked on.
type propWork struct {
	// calls is how many tool calls the session has: with none (a format
	// without tool calls) the text alone decides (propReferences).
	calls int
	// files are the paths the agent edited, wrote, created, moved or
	// removed (a file tool — Edit, Write, MultiEdit, NotebookEdit,
	// edit_file … (propToolKind); an apply_patch patch; a shell command's
	// mv, cp, touch, mkdir, rm, tee, git mv, git rm, sed -i or perl -i, a
	// redirection), slash-separated and cleaned.
	files []string
	// globs are the shell patterns of files the agent changed in a loop
	// ("for f in cmd/integration_test/*.go; do sed -i … \"$f\"; done").
	globs []string
	// commits are the first seven hex digits of the commits seen in a
	// git command's arguments or in its output where git prints hashes
	// (a log line's start, "commit X", "[branch X]", "X..Y").
	commits map[string]bool
	// prs are the pull request and issue numbers the agent commented on,
	// reviewed, created, edited, merged or checked out, or named in three
	// gh commands or more (a review: its diff, its checks, its view).
	prs map[string]bool
	// ghNamed counts the gh commands naming each number.
	ghNamed map[string]int
	// ids are the review-comment ids the agent answered or fetched by id.
	ids map[string]bool
	// branches are the branch names a git command named or reported.
	branches map[string]bool
}

// propCallKeys are the tool-input members the work index reads: a file
// tool's path, a shell tool's command, a patch tool's patch.
var propCallKeys = jsonscan.NewKeySet("file_path", "notebook_path", "path", "command", "cmd", "input", "patch")

// propCallInput reads a tool input's file path (file_path,
// notebook_path or path) and command (command or cmd: a string, or a list
// of strings — Codex's ["bash", "-lc", "…"] — read by shellScript); an
// input that is not a JSON object gives "". A patch (input or patch, or
// the whole input when it is a JSON string: Codex's apply_patch) is
// returned as patch.
func propCallInput(raw []byte) (file, command, patch string) {
	var sc jsonscan.Scanner
	sc.Reset(raw)
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		b, err := sc.String("")
		if err == nil {
			patch = string(b)
		}
		return "", "", patch
	}
	sc.Fields(propCallKeys, func(k int) bool {
		if k == 3 || k == 4 {
			if sc.Peek() == '[' {
				var parts []string
				raw, _, err := sc.RawValue()
				if err != nil || json.Unmarshal(raw, &parts) != nil {
					return err == nil
				}
				command = shellScript(parts)
				return true
			}
		}
		if sc.Peek() != '"' {
			return sc.SkipValue() == nil
		}
		b, err := sc.String("")
		if err != nil {
			return false
		}
		switch k {
		case 0, 1, 2:
			if file == "" {
				file = string(b)
			}
		case 3, 4:
			command = string(b)
		default:
			patch = string(b)
		}
		return true
	})
	return file, command, patch
}

// shellScript is the command a list of words runs: SCRIPT of Codex's
// ["bash", "-lc", SCRIPT] (any of bash, sh, zsh, dash with -c or -lc),
// else the words joined by spaces.
func shellScript(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch path.Base(argv[0]) {
		case "bash", "sh", "zsh", "dash":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}

// propCallOf sorts one call by its tool's kind (propToolKind) and reads
// its input (propCallInput). A shell call that runs apply_patch on a
// patch (Codex's ["apply_patch", PATCH], or a here-document
// "apply_patch <<'EOF' … EOF", both of which codex-rs/apply-patch
// intercepts) is a "patch" of that patch: it edits the files it names.
func propCallOf(name string, raw []byte) (kind, file, command, patch string) {
	kind = propToolKind(name)
	file, command, patch = propCallInput(raw)
	if kind == "shell" && patch == "" {
		if p, ok := shellPatch(command); ok {
			return "patch", file, "", p
		}
	}
	return kind, file, command, patch
}

// shellPatch returns the patch a shell command applies with apply_patch
// (or applypatch), from "*** Begin Patch" to "*** End Patch".
func shellPatch(command string) (string, bool) {
	c := strings.TrimSpace(command)
	if !strings.HasPrefix(c, "apply_patch") && !strings.HasPrefix(c, "applypatch") {
		return "", false
	}
	a := strings.Index(c, "*** Begin Patch")
	if a < 0 {
		return "", false
	}
	p := c[a:]
	if b := strings.Index(p, "*** End Patch"); b >= 0 {
		p = p[:b+len("*** End Patch")]
	}
	return p, true
}

// propToolKind sorts a tool by its name, whatever the agent calls it:
// "file" for a tool that writes a file (Claude Code's Edit, MultiEdit,
// Write, NotebookEdit; edit_file, write_file, create_file and the like),
// "shell" for one that runs a command (Bash; shell, local_shell,
// exec_command, run_command …), "patch" for apply_patch, "" otherwise.
func propToolKind(name string) string {
	switch n := strings.ToLower(name); n {
	case "edit", "multiedit", "write", "notebookedit", "edit_file", "write_file", "create_file", "str_replace_editor", "str_replace_based_edit_tool", "replace_in_file", "write_to_file":
		return "file"
	case "bash", "shell", "local_shell", "shell_command", "exec_command", "container.exec", "run_command", "run_shell_command", "run_terminal_cmd", "terminal", "execute_command":
		return "shell"
	case "apply_patch":
		return "patch"
	}
	return ""
}

// propPatchFile is a file an apply_patch patch adds, updates, deletes or
// moves to ("*** Update File: path").
var propPatchFile = regexp.MustCompile(`(?m)^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$`)

var (
	// propShellSplit separates the commands of a shell line.
	propShellSplit = regexp.MustCompile(`&&|\|\||[;|\n]`)
	// propRedirect is an output redirection's target ("> notes.md").
	propRedirect = regexp.MustCompile(`(?:^|[^0-9&>])>>? *([^\s;&|>]+)`)
	// propGitHex is a commit hash in a git command or its output: at the
	// start of a line (git log --oneline), after "commit", in git
	// commit's "[main 1a2b3c4]", around ".." (git push), or as an
	// argument of the command.
	propGitHex = regexp.MustCompile(`(?m)^[*|\\/ ]*(?:commit )?([0-9a-f]{7,40})\b|\[[^\]\s]+ ([0-9a-f]{7,40})\]|\b([0-9a-f]{7,40})\.\.\.?([0-9a-f]{7,40})\b`)
	// propGitArgHex is a hash given as an argument of a git command,
	// its quoted strings and here-documents (a commit message) removed.
	propGitArgHex = regexp.MustCompile(`\s([0-9a-f]{7,40})(?:$|[\s~^:])`)
	propQuoted    = regexp.MustCompile(`(?s)<<-?\s*'?(\w+)'?.*?\n\s*(\w+)\s*(?:\n|$)|"(?:[^"\\]|\\.)*"|'[^']*'`)
	// propGHNumber is a pull request or issue a gh command names.
	propGHNumber = regexp.MustCompile(`\bgh (?:pr|issue) \w+ #?(\d+)\b`)
	// propGHWork is a gh command that acts on a pull request or issue.
	propGHWork = regexp.MustCompile(`\bgh (?:pr|issue) (?:comment|review|edit|merge|close|reopen|ready|checkout|create)\b[^|;&]*?(?:\s#?(\d+)\b|/(?:pull|issues)/(\d+))`)
	// propGHAPI is a gh api call on a pull request's or issue's
	// resource; it is work when it writes (-f, -F, --field, --input, a
	// POST, PATCH or PUT) or names a comment by id.
	propGHAPI   = regexp.MustCompile(`\bgh api\b[^|;&]*?/(?:pulls|issues)/(\d+)(/comments/(\d+))?`)
	propGHWrite = regexp.MustCompile(`\s(?:-f|-F|--field|--raw-field|--input)\s|-X ?(?:POST|PATCH|PUT)|--method ?(?:POST|PATCH|PUT)`)
	// propGHComment is a review comment fetched or answered by id.
	propGHComment = regexp.MustCompile(`\bgh api\b[^|;&]*?/comments/(\d{6,})`)
	// propPRURL is a pull request's link in a tool result (gh pr create).
	propPRURL = regexp.MustCompile(`https://github\.com/[\w.-]+/[\w.-]+/pull/(\d+)\b`)
	// propGitBranch is a branch a git command names or its output
	// reports (git status, git switch, git push, git commit's "[x 1a2b3c4]").
	propGitBranch = regexp.MustCompile(`\bgit (?:checkout(?: -[bB])?|switch(?: -[cC])?|branch(?: -[mM])?|push(?: -u| --set-upstream)?(?: [\w.-]+)?|worktree add(?: -b)?|rebase|merge) +([A-Za-z][\w.-]*/[\w./-]*\w|[A-Za-z][\w.-]*[-_][\w.-]*\w)|(?:On branch|Switched to (?:a new )?branch '?|\* \[new branch\] +)([A-Za-z][\w./-]*\w)|\[([A-Za-z][\w./-]*\w) (?:\(root-commit\) )?[0-9a-f]{7,40}\]`)
)

// propWorkOf indexes the tool calls of s.
func propWorkOf(s *agentlog.Session) *propWork {
	w := &propWork{commits: map[string]bool{}, prs: map[string]bool{}, ghNamed: map[string]int{}, ids: map[string]bool{}, branches: map[string]bool{}}
	for _, st := range s.Steps {
		for _, c := range st.Calls {
			w.calls++
			kind, file, cmd, patch := propCallOf(c.Name, c.Input)
			switch kind {
			case "file":
				// A change the person refused still names a file of the
				// work: they stopped the agent to redirect it ("branch
				// and PR"), the fix is still to go there.
				if file != "" && (!c.IsError || propRefused(c)) {
					w.addFile(file)
				}
			case "shell":
				w.bash(cmd, c)
			case "patch":
				if !c.IsError {
					for _, m := range propPatchFile.FindAllStringSubmatch(patch, -1) {
						w.addFile(m[1])
					}
				}
			}
		}
	}
	return w
}

// propForLoop is a shell for loop: its variable, its word list and its
// body.
var propForLoop = regexp.MustCompile(`(?s)\bfor (\w+) in ([^;\n]+?)\s*(?:;|\n)\s*do\b(.*?)\bdone\b`)

// propLoopWrite is a command of a loop's body that writes a file: an
// in-place edit, a formatter that rewrites, a redirection, tee, mv or cp.
var propLoopWrite = regexp.MustCompile(`\b(sed|perl) -[a-z]*i|\b(gofmt|goimports|gofumpt|prettier|black|rustfmt) [^;|&]*-w\b|--write\b|[^0-9&>]>>? *"?\$|\btee\b|\b(mv|cp) `)

// loops indexes the files a shell for loop changes: the words of its list
// when its body writes to the loop's variable ("for f in a.go b.go; do
// sed -i '…' \"$f\"; done"); a word with a shell pattern is kept as a
// glob.
func (w *propWork) loops(cmd string) {
	for _, m := range propForLoop.FindAllStringSubmatch(cmd, -1) {
		body := m[3]
		if !propLoopWrite.MatchString(body) || !(strings.Contains(body, "$"+m[1]) || strings.Contains(body, "${"+m[1]+"}")) {
			continue
		}
		for _, word := range strings.Fields(strings.ReplaceAll(m[2], "\\\n", " ")) {
			word = strings.Trim(word, `"'\`)
			switch {
			case word == "" || strings.ContainsAny(word, "$`("):
			case strings.ContainsAny(word, "*?["):
				w.globs = append(w.globs, path.Clean(word))
			default:
				w.addFile(word)
			}
		}
	}
}

// bash indexes one shell command and its result.
func (w *propWork) bash(cmd string, c agentlog.ToolCall) {
	w.loops(cmd)
	for _, part := range propShellSplit.Split(cmd, -1) {
		f := strings.Fields(part)
		for len(f) > 0 && (f[0] == "sudo" || strings.Contains(f[0], "=")) {
			f = f[1:]
		}
		if len(f) > 1 && f[0] == "git" && (f[1] == "mv" || f[1] == "rm") {
			f = f[1:]
		}
		inPlace := len(f) > 2 && (f[0] == "sed" || f[0] == "perl") && strings.HasPrefix(f[1], "-") && strings.Contains(f[1], "i")
		if len(f) > 1 && (f[0] == "mv" || f[0] == "cp" || f[0] == "touch" || f[0] == "mkdir" || f[0] == "rm" || f[0] == "tee") {
			for _, a := range f[1:] {
				if !strings.HasPrefix(a, "-") {
					w.addFile(strings.Trim(a, `"'`))
				}
			}
		}
		if inPlace { // sed -i 's/a/b/' FILE…: the files are the arguments after the script
			for _, a := range f[3:] {
				if !strings.HasPrefix(a, "-") {
					w.addFile(strings.Trim(a, `"'`))
				}
			}
		}
		for _, m := range propRedirect.FindAllStringSubmatch(part, -1) {
			if t := strings.Trim(m[1], `"'`); t != "/dev/null" && !strings.HasPrefix(t, "&") {
				w.addFile(t)
			}
		}
	}
	if strings.Contains(cmd, "git ") {
		args := propQuoted.ReplaceAllString(cmd, " ")
		for _, m := range propGitArgHex.FindAllStringSubmatch(args, -1) {
			w.addCommit(m[1])
		}
		for _, m := range propGitHex.FindAllStringSubmatch(c.Result, -1) {
			for _, h := range m[1:] {
				w.addCommit(h)
			}
		}
		for _, text := range []string{cmd, c.Result} {
			for _, m := range propGitBranch.FindAllStringSubmatch(text, -1) {
				if b := m[1] + m[2] + m[3]; b != "" && b != "HEAD" && !strings.HasPrefix(b, "origin/HEAD") {
					w.branches[strings.ToLower(strings.TrimPrefix(b, "origin/"))] = true
				}
			}
		}
	}
	for _, m := range propGHWork.FindAllStringSubmatch(cmd, -1) {
		w.prs[m[1]+m[2]] = true
	}
	for _, m := range propGHAPI.FindAllStringSubmatch(cmd, -1) {
		if propGHWrite.MatchString(cmd) || m[3] != "" {
			w.prs[m[1]] = true
		}
	}
	for _, m := range propGHNumber.FindAllStringSubmatch(cmd, -1) {
		if w.ghNamed[m[1]]++; w.ghNamed[m[1]] >= 3 {
			w.prs[m[1]] = true
		}
	}
	for _, m := range propGHComment.FindAllStringSubmatch(cmd, -1) {
		w.ids[m[1]] = true
	}
	if strings.Contains(cmd, "gh pr create") {
		for _, m := range propPRURL.FindAllStringSubmatch(c.Result, -1) {
			w.prs[m[1]] = true
		}
	}
}

// addCommit records a commit hash (7 digits at least, one a digit: an
// all-digit hash too).
func (w *propWork) addCommit(h string) {
	if len(h) >= 7 && strings.ContainsAny(h, "0123456789") {
		w.commits[h[:7]] = true
	}
}

// addFile records a path the agent changed.
func (w *propWork) addFile(p string) {
	if p == "" || strings.ContainsAny(p, "$*`") {
		return
	}
	w.files = append(w.files, path.Clean(strings.ReplaceAll(p, `\`, "/")))
}

// changed reports whether mention, a path or file name from the text
// (":line" and a leading "./", "~/" or "/" ignored), names a file the
// agent changed: equal to one, or its tail after a "/" (or "/.", for a
// dot file named without its dot), or, for a relative path a shell
// command gave (after a cd), ending in it.
func (w *propWork) changed(mention string) bool {
	m := propLineTail.ReplaceAllString(strings.Trim(mention, "`'\""), "")
	m = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(m, "~/"), "./"), "/")
	if m == "" {
		return false
	}
	for _, f := range w.files {
		if f == m || strings.HasSuffix(f, "/"+m) || strings.HasSuffix(f, "/."+m) || (!strings.HasPrefix(f, "/") && strings.HasSuffix(m, "/"+f)) {
			return true
		}
	}
	for _, g := range w.globs {
		if propGlobTail(g, m) {
			return true
		}
	}
	return false
}

// propGlobTail reports whether path m matches the last segments of the
// shell pattern g, segment by segment: "integration_test/hooks.go" and
// "hooks.go" both match "cmd/cli/integration_test/*.go".
func propGlobTail(g, m string) bool {
	gs, ms := strings.Split(g, "/"), strings.Split(m, "/")
	if len(ms) > len(gs) {
		return false
	}
	for i := 1; i <= len(ms); i++ {
		if ok, err := path.Match(gs[len(gs)-i], ms[len(ms)-i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// commit reports whether hex, 7 to 40 hex digits, is a commit a git
// command or its output showed.
func (w *propWork) commit(hex string) bool {
	return len(hex) >= 7 && w.commits[strings.ToLower(hex[:7])]
}
