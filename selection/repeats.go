package selection

import (
	"bytes"
	"cmp"
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/tally-eval/tally/agentlog"
)

// The repeated-tool-call signal on real agent sessions (agentlog).
//
// A repeat is a tool call made after a compaction, within a window of
// turns and steps, that is the same call as one made before it. The same
// call means (callKey, sameCall):
//
//   - Bash: the command with its whitespace collapsed and "./" path
//     prefixes cleaned; description, timeout and run_in_background are
//     ignored. A write through `gh api` (a method other than GET, or body
//     fields, which make it a POST) is identified by its method and
//     endpoint only: a second reply to the same review comment repeats
//     the first even when the wording differs.
//   - Read: the same file (path cleaned) with overlapping line ranges
//     (offset/limit; a missing limit reads to the end).
//   - Grep and Glob: the same pattern and path; output flags ignored.
//   - Edit: the same file and old_string. TaskOutput: the same task_id.
//   - any other tool: the same input, as canonical JSON, without the
//     descriptive fields.
//
// File paths (Read, Edit, Write, Grep and Glob paths) are cleaned and,
// when relative, resolved against the session's working directory
// (Session.Cwd), so "/repo/a/b.go" and "a/b.go" are the same file when
// the cwd is /repo; a Grep or Glob with no path searches the cwd. With no
// cwd a relative path is only cleaned. Paths inside Bash commands are not
// resolved. A call is named by its tool_use id, the uuids of the records
// holding it and its result, and its step's line.
//
// The first call is the latest matching call before the compaction; a
// call that repeats an earlier call made after the same compaction is
// not a new repeat (the result it needs is in the context again). The
// window stops at the next compaction.
//
// Each repeat is classified by what happened between the two calls and
// what the call does (classify), and only LostResult and SideEffect are
// flagged (Flagged): the others are things an agent does on purpose
// whether or not its context was compacted.

// RepeatKind says why a tool call was repeated.
type RepeatKind string

// The kinds of repeat, in the order they are decided.
const (
	// SideEffect: a write to a system outside the workspace (git push,
	// gh api POST/PATCH/…, deploy, publish, migration) done again with no
	// new cause. Flagged and severe.
	SideEffect RepeatKind = "side_effect"
	// RereadAfterEdit: a Read of a file the agent itself changed
	// (a successful Edit/Write, or a Bash command naming the file that
	// writes) between the two reads.
	RereadAfterEdit RepeatKind = "reread_after_edit"
	// RerunAfterChange: a test, build, lint or other command run again
	// after the workspace changed in between (successful edits, commits,
	// merges, checkouts); a Grep/Glob after an edit that touches what it
	// looks for; a Read after git changed the tree; a push or deploy
	// after a new commit.
	RerunAfterChange RepeatKind = "rerun_after_change"
	// Orientation: git status/log/diff/show/branch, ls, pwd, wc, cat,
	// head, tail and the like, run to see where things stand.
	Orientation RepeatKind = "orientation"
	// Bookkeeping: the agent's own task list or plan set again
	// (TodoWrite, TaskCreate, TaskUpdate, …): no result to lose.
	Bookkeeping RepeatKind = "bookkeeping"
	// NewChange: an Edit at the same anchor that succeeded again, so it
	// made a different change rather than redoing the first.
	NewChange RepeatKind = "new_change"
	// LostResult: the agent asks again for a result it had before the
	// compaction. Flagged.
	LostResult RepeatKind = "lost_result"
)

// Flagged is whether a repeat of this kind signals a lost result.
func (k RepeatKind) Flagged() bool { return k == LostResult || k == SideEffect }

// RepeatWindow bounds how far after a compaction a repeat is looked for:
// at most Turns typed turns after the one the compaction happened in (0
// is that turn) and at most Steps model steps after the compaction (1 is
// the first). A zero field means no bound.
type RepeatWindow struct {
	Turns, Steps int
}

// DefaultRepeatWindow is the window of issue 12: five turns, and a step
// bound wide enough not to cut the turn bound short (on the dev set the
// repeats found reach 79 steps after their compaction).
var DefaultRepeatWindow = RepeatWindow{Turns: 5, Steps: 400}

// CallRef is the evidence for one tool call: what it was and where.
type CallRef struct {
	Tool  string
	Input json.RawMessage
	// ID is the tool_use id; Line is the line of the record holding the
	// call in the log (of the step's first record where the format does
	// not say); Turn and Step index Session.Turns and Session.Steps.
	ID               string
	Line, Turn, Step int
	IsError          bool
	// UUID is the uuid of the record holding the tool_use, ResultUUID
	// that of the record holding its result ("" when the log has no
	// record uuids, or no result came back).
	UUID, ResultUUID string
}

// ToolRepeat is one repeat after a compaction, with its evidence.
type ToolRepeat struct {
	Kind   RepeatKind
	Severe bool
	// Reason says in a few words why it got its kind.
	Reason        string
	First, Repeat CallRef
	// Compaction indexes Session.Compactions; CompactionLine is the
	// boundary record's line and CompactionUUID its uuid.
	Compaction, CompactionLine int
	CompactionUUID             string
	// LostAt indexes the first compaction after the first call: the one
	// that first dropped its result, earlier than Compaction when the
	// first call came before two compactions or more.
	LostAt int
	// TurnsAfter is the repeat's turn minus the compaction's (0: the turn
	// the compaction interrupted); StepsAfter counts steps from the
	// compaction to the repeat (1: the first step after it).
	TurnsAfter, StepsAfter int
}

// flatCall is a tool call in session order, with its parsed identity.
type flatCall struct {
	ref CallRef
	// tool is the role the classifier reads the call in (callRole):
	// Claude Code's tool names, which other agents' shell and patch
	// tools map to.
	tool string
	call *agentlog.ToolCall
	in   callInput
	bash bashClass // for Bash calls
}

// callInput is the part of a call's input that identity and
// classification use.
type callInput struct {
	key string // identity; Read compares file plus range instead
	// Read range, 1-based lines [lo, hi]; hi 0 means to the end.
	lo, hi int
	file   string // Read/Edit/Write file, or Grep/Glob path
	cmd    string // Bash command, normalised
	pat    string // Grep/Glob pattern
	oldStr string // Edit old_string
	newStr string // Edit new_string, Write content
	// files are the files a patch (Codex's apply_patch) changes.
	files []string
	// targets are the `gh api` writes of a Bash command (method and
	// endpoint); two commands with a target in common are the same call.
	targets []string
	// dir is the working directory another agent's shell call names
	// (Codex's workdir), resolved and cleaned; "" for the session's.
	dir string
}

// shellWrite is a command that writes files, and the directory it ran in
// ("" for the session's).
type shellWrite struct{ cmd, dir string }

// FindToolRepeats returns every repeat after each compaction of s within
// w, classified, in the order of the repeats.
func FindToolRepeats(s *agentlog.Session, w RepeatWindow) []ToolRepeat {
	if len(s.Compactions) == 0 {
		return nil // no window to look in
	}
	n := 0
	for si := range s.Steps {
		n += len(s.Steps[si].Calls)
	}
	calls := make([]flatCall, 0, n)
	for si := range s.Steps {
		st := &s.Steps[si]
		for ci := range st.Calls {
			c := &st.Calls[ci]
			calls = append(calls, flatCall{
				ref: CallRef{Tool: c.Name, Input: c.Input, ID: c.ID, Line: cmp.Or(c.Line, st.Line), Turn: st.Turn, Step: si, IsError: c.IsError,
					UUID: c.UUID, ResultUUID: c.ResultUUID},
				call: c,
			})
		}
	}
	// Each compaction's calls before it are [0, start); its window's are
	// [start, stop). Only the calls before the last window's end are
	// ever compared, so only their inputs are read.
	type window struct{ start, stop int }
	windows := make([]window, len(s.Compactions))
	read := 0
	for ci, comp := range s.Compactions {
		end := len(s.Steps)
		if ci+1 < len(s.Compactions) {
			end = s.Compactions[ci+1].Step
		}
		start := sort.Search(len(calls), func(i int) bool { return calls[i].ref.Step >= comp.Step })
		stop := start
		for stop < len(calls) {
			r := calls[stop].ref
			if r.Step >= end || (w.Turns > 0 && r.Turn-comp.Turn > w.Turns) || (w.Steps > 0 && r.Step-comp.Step+1 > w.Steps) {
				break
			}
			stop++
		}
		windows[ci] = window{start, stop}
		read = max(read, stop)
	}
	for i := range calls[:read] {
		c := &calls[i]
		c.tool, c.in = callRole(c.call.Name, c.call.Input, s.Cwd)
		if c.tool == "Bash" {
			c.bash = classifyBash(c.in.cmd)
		}
	}
	var out []ToolRepeat
	for ci, comp := range s.Compactions {
		start, stop := windows[ci].start, windows[ci].stop
	next:
		for ri := start; ri < stop; ri++ {
			for k := start; k < ri; k++ {
				if sameCall(&calls[k], &calls[ri]) {
					continue next
				}
			}
			for fi := start - 1; fi >= 0; fi-- {
				if !sameCall(&calls[fi], &calls[ri]) {
					continue
				}
				kind, reason := classify(calls, fi, ri, s.Cwd)
				lost := ci
				for lost > 0 && calls[fi].ref.Step < s.Compactions[lost-1].Step {
					lost--
				}
				if lost < ci {
					reason += "; the first call was before the compaction at line " + strconv.Itoa(s.Compactions[lost].Line) + " too, which first dropped its result"
				}
				out = append(out, ToolRepeat{
					Kind: kind, Severe: kind == SideEffect, Reason: reason,
					First: calls[fi].ref, Repeat: calls[ri].ref,
					Compaction: ci, CompactionLine: comp.Line, CompactionUUID: comp.UUID, LostAt: lost,
					TurnsAfter: calls[ri].ref.Turn - comp.Turn, StepsAfter: calls[ri].ref.Step - comp.Step + 1,
				})
				break
			}
		}
	}
	return out
}

// FlaggedRepeats keeps the repeats that signal a lost result, severe
// ones (side effects) first, each group in its original order.
func FlaggedRepeats(rs []ToolRepeat) []ToolRepeat {
	var out []ToolRepeat
	for _, severe := range []bool{true, false} {
		for _, r := range rs {
			if r.Kind.Flagged() && r.Severe == severe {
				out = append(out, r)
			}
		}
	}
	return out
}

func sameCall(a, b *flatCall) bool {
	if a.ref.Tool != b.ref.Tool || a.tool != b.tool || a.in.key != b.in.key {
		return false
	}
	if len(a.in.targets) > 0 || len(b.in.targets) > 0 {
		for _, x := range a.in.targets {
			for _, y := range b.in.targets {
				if x == y {
					return true
				}
			}
		}
		return false
	}
	if a.tool == "Read" {
		return (a.in.hi == 0 || b.in.lo <= a.in.hi) && (b.in.hi == 0 || a.in.lo <= b.in.hi)
	}
	return true
}

// change is what happened to the workspace between two calls.
type change struct {
	editedFiles map[string]bool // files changed by a successful edit/write
	edits       []callInput     // those edits, for Grep/Glob
	bashWrites  []shellWrite    // Bash commands that write files
	tree        bool            // git changed the tree or history
	commit      bool            // a new commit (or merge, rebase…)
	any         bool            // anything above
}

func changesBetween(calls []flatCall, from, to int) change {
	ch := change{editedFiles: map[string]bool{}}
	for i := from + 1; i < to; i++ {
		c := &calls[i]
		if c.call.HasResult && c.call.IsError {
			continue
		}
		switch c.tool {
		case "Edit", "MultiEdit", "Write", "NotebookEdit", "Patch":
			ch.editedFiles[c.in.file] = true
			for _, f := range c.in.files {
				ch.editedFiles[f] = true
			}
			ch.edits = append(ch.edits, c.in)
			ch.any = true
		case "Bash":
			b := c.bash
			if b.writes || b.treeChange {
				ch.bashWrites = append(ch.bashWrites, shellWrite{c.in.cmd, c.in.dir})
				ch.any = true
			}
			ch.tree = ch.tree || b.treeChange
			ch.commit = ch.commit || b.commits
		}
	}
	return ch
}

// classify decides a repeat's kind from the call and what happened
// between calls[fi] and calls[ri].
func classify(calls []flatCall, fi, ri int, cwd string) (RepeatKind, string) {
	r := &calls[ri]
	ch := changesBetween(calls, fi, ri)
	switch r.tool {
	case "Read":
		if ch.editedFiles[r.in.file] {
			return RereadAfterEdit, "the agent edited the file between the reads"
		}
		if writesNamed(ch.bashWrites, r.in.file, cwd) {
			return RereadAfterEdit, "a command that writes named the file between the reads"
		}
		if ch.tree {
			return RerunAfterChange, "git changed the working tree between the reads"
		}
		if f := &calls[fi]; f.in.lo != r.in.lo || f.in.hi != r.in.hi {
			// An overlap, not the same range: the reviewer sees how much
			// of the read asks again.
			return LostResult, "read again (" + readRange(r.in) + ", after " + readRange(f.in) + "), unchanged since the first read"
		}
		return LostResult, "read again, unchanged since the first read"
	case "Grep", "Glob":
		if touched(r.tool, r.in, ch) {
			return RerunAfterChange, "edits between touched what it searches for"
		}
		if ch.tree {
			return RerunAfterChange, "git changed the working tree between the searches"
		}
		return LostResult, "searched again, unchanged since the first search"
	case "Edit", "MultiEdit", "Write", "NotebookEdit", "Patch":
		if !r.call.IsError && !calls[fi].call.IsError && r.tool != "Write" {
			return NewChange, "both edits succeeded: a new change at the same anchor"
		}
		return LostResult, "the same edit again"
	case "Bash":
		b := r.bash
		if reads := otherAgentReads(r, b); len(reads) > 0 {
			// Another agent's shell tool (Codex's, a generic bash):
			// without a Read tool, cat, sed -n and rg are how it
			// reads, and a file printed again unchanged is a result
			// asked for again, not a look around.
			base := cwd
			if r.in.dir != "" {
				base = r.in.dir // the call's own workdir (a re-check trial)
			}
			for _, f := range reads {
				if file := resolvePath(base, f); ch.editedFiles[file] || writesNamed(ch.bashWrites, file, cwd) {
					return RereadAfterEdit, "the file changed between the reads"
				}
			}
			if ch.tree {
				return RerunAfterChange, "git changed the working tree between the reads"
			}
			return LostResult, "printed again through the shell, unchanged since the first read"
		}
		switch {
		case b.external && b.ships && ch.commit:
			return RerunAfterChange, "pushes or deploys a commit made since the first"
		case b.external:
			return SideEffect, "the same external write again with no new commit"
		case b.orient:
			return Orientation, "a command that only looks"
		case ch.any:
			return RerunAfterChange, "run again after the workspace changed"
		case b.check:
			return LostResult, "test/build/lint re-run with nothing changed"
		}
		return LostResult, "the same command again with nothing changed"
	}
	if bookkeeping[r.ref.Tool] {
		return Bookkeeping, "sets the agent's own task list or plan"
	}
	if mcpWrite(r.ref.Tool) {
		return SideEffect, "the same write through a tool again"
	}
	return LostResult, "the same call again"
}

// otherAgentReads are the files a shell call of another agent than
// Claude Code (whose Bash reads are orientation: it has a Read tool)
// only prints: nil for Claude Code's Bash and for a command that also
// writes, checks or acts outside the workspace.
func otherAgentReads(c *flatCall, b bashClass) []string {
	if c.ref.Tool == "Bash" || b.writes || b.external || b.check {
		return nil
	}
	return commandReads(c.in.cmd)
}

// shellBreak is a character that ends a word of a shell command for
// writesNamed: white space, and the redirection and list operators a
// file's name may be glued to ("echo x>src/c.go", "a.go;").
func shellBreak(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("<>|;&()", r)
}

// writesNamed is whether one of the writing commands names file: by its
// path, by a word that is its path relative to the directory the command
// ran in ("git checkout -- src/c.go", "sed -i … ./src/c.go", "> src/c.go";
// a re-check trial found those missed; a "cd" in the command moves it),
// by a folder above it or a shell pattern matching it in a command that
// rewrites the files it names (rewritesNamed: "git checkout -- src",
// "gofmt -w .", "sed -i … src/*.go"), or, after a space, by its base
// name. cwd is the session's directory. A folder named by any other
// command is not read as a write to the files in it: "git -C /repo add
// …" and "cd /tmp && … git add ." named the session's folder, and read
// so they hid 4 of the dev set's 63 lost results.
func writesNamed(writes []shellWrite, file, cwd string) bool {
	for _, w := range writes {
		if strings.Contains(w.cmd, file) || strings.Contains(w.cmd, " "+path.Base(file)) {
			return true
		}
		base := cwd
		if w.dir != "" {
			base = w.dir
		}
		fed := feedsRewrite(w.cmd)
		for _, seg := range segments(w.cmd) {
			f := withoutRunner(strings.FieldsFunc(seg, shellBreak))
			if len(f) == 0 {
				continue
			}
			if f[0] == "cd" && len(f) > 1 {
				base = resolvePath(base, strings.Trim(f[1], `'"`))
				continue
			}
			wide := (fed || rewritesNamed(f)) && base != ""
			for _, word := range f[1:] {
				// A Go package pattern: "./..." (cleaned to "..." in the
				// command as read) is the folder and below.
				if w, ok := strings.CutSuffix(word, "..."); ok {
					word = cmp.Or(w, ".")
				}
				word = strings.Trim(word, `'"`)
				if word == "" || strings.HasPrefix(word, "-") {
					continue
				}
				p := resolvePath(base, word)
				switch {
				case p == file:
					return true
				case !wide:
				case strings.ContainsAny(word, "*?["):
					if globMatch(p, file) {
						return true
					}
				case strings.HasPrefix(file, strings.TrimSuffix(p, "/")+"/"):
					return true
				}
			}
		}
	}
	return false
}

// rewritesNamed reports whether a command's words f rewrite the files
// they name, folders and patterns included: git checkout or restore of
// paths, sed or perl in place, a formatter that writes (formatterWrites),
// rm, mv or cp.
func rewritesNamed(f []string) bool {
	prog := path.Base(f[0])
	if checkProgs[prog] || alwaysRewrite[prog] || formatTask(f) {
		return formatterWrites(prog, strings.Join(f, " "))
	}
	switch prog {
	case "git":
		for _, w := range f[1:] {
			if !strings.HasPrefix(w, "-") {
				return w == "checkout" || w == "restore"
			}
		}
	case "sed", "perl":
		return inPlace.MatchString(" " + strings.Join(f[1:], " "))
	case "rm", "mv", "cp":
		return true
	}
	return false
}

// readRange says which lines a Read asked for: "the whole file", "lines
// 475–494" or "lines 212 to the end".
func readRange(in callInput) string {
	switch {
	case in.lo <= 1 && in.hi == 0:
		return "the whole file"
	case in.hi == 0:
		return "lines " + strconv.Itoa(in.lo) + " to the end"
	}
	return "lines " + strconv.Itoa(in.lo) + "–" + strconv.Itoa(in.hi)
}

// touched is whether an edit in ch changed text a Grep pattern matches
// (or, for a Glob, wrote a file) under the searched path.
func touched(tool string, in callInput, ch change) bool {
	re, err := regexp.Compile(in.pat)
	for _, e := range ch.edits {
		if in.file != "" && !strings.HasPrefix(e.file, in.file) {
			continue
		}
		if tool == "Glob" {
			return true // any write under a Glob's path may add a match
		}
		for _, s := range []string{e.oldStr, e.newStr} {
			if err == nil && re.MatchString(s) || err != nil && strings.Contains(s, in.pat) {
				return true
			}
		}
	}
	return false
}

var bookkeeping = set("TodoWrite", "TaskCreate", "TaskUpdate", "TaskStop", "KillShell", "KillBash", "update_plan",
	"EnterPlanMode", "ExitPlanMode", "AskUserQuestion")

var mcpWriteRe = regexp.MustCompile(`(?i)(create|update|post|send|delete|comment|reply|merge|push|publish|write|add|remove|close)`)

// mcpWrite is whether a tool from an MCP server (mcp__server__tool)
// writes, by its name.
func mcpWrite(tool string) bool {
	return strings.HasPrefix(tool, "mcp__") && mcpWriteRe.MatchString(tool[strings.LastIndex(tool, "__")+2:])
}

// String is a one-line account of the repeat for a reviewer.
func (r ToolRepeat) String() string {
	var b bytes.Buffer
	b.WriteString(string(r.Kind))
	if r.Severe {
		b.WriteString(" (severe)")
	}
	b.WriteString(": " + r.Repeat.Tool + " at line " + strconv.Itoa(r.Repeat.Line) + uuidNote(r.Repeat.UUID) + " repeats line " + strconv.Itoa(r.First.Line) + uuidNote(r.First.UUID))
	b.WriteString(", " + strconv.Itoa(r.TurnsAfter) + " turns / " + strconv.Itoa(r.StepsAfter) + " steps after the compaction at line " + strconv.Itoa(r.CompactionLine))
	b.WriteString(" — " + r.Reason)
	return b.String()
}

// uuidNote is " (uuid u)", or "" when there is no uuid.
func uuidNote(u string) string {
	if u == "" {
		return ""
	}
	return " (uuid " + u + ")"
}

// globMatch reports whether file matches the shell pattern p, where
// braces give alternatives ("*.{ts,tsx}") and "**" matches any number of
// folders ("src/**/*.ts", as prettier, eslint and
// bash's globstar read it; a re-check trial found "prettier --write
// 'src/**/*.ts'" read as not changing src/a.ts). Without "**" it is
// path.Match.
func globMatch(p, file string) bool {
	// Braces first, as bash expands them: "src/**/*.{ts,tsx}" is two
	// patterns (a second re-check trial).
	if i := strings.IndexByte(p, '{'); i >= 0 {
		if j := strings.IndexByte(p[i:], '}'); j > 0 {
			for _, alt := range strings.Split(p[i+1:i+j], ",") {
				if globMatch(p[:i]+alt+p[i+j+1:], file) {
					return true
				}
			}
			return false
		}
	}
	pre, post, ok := strings.Cut(p, "**")
	if !ok {
		m, _ := path.Match(p, file)
		return m
	}
	if !strings.HasPrefix(file, pre) {
		return false
	}
	rest := file[len(pre):]
	post = strings.TrimPrefix(post, "/")
	if post == "" {
		return true // "src/**": everything under src
	}
	for {
		if globMatch(post, rest) {
			return true
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
}

// formatTask reports whether a command's words f run a formatting
// subcommand or task: "cargo fmt", "go fmt ./...", "ruff format",
// "npm run format", "make fmt", "mise run fmt:all".
func formatTask(f []string) bool {
	if len(f) < 2 || f[0] == "git" || f[0] == "gh" {
		return false
	}
	fmtWord := func(w string) bool {
		return w == "fmt" || w == "format" || strings.HasPrefix(w, "fmt:") || strings.HasPrefix(w, "format:")
	}
	// The subcommand or task's place, not any word: a commit message
	// or a flag's value may say "format".
	return fmtWord(f[1]) || len(f) > 2 && (f[1] == "run" || f[1] == "exec" || f[1] == "task") && fmtWord(f[2])
}
