package selection

import (
	"encoding/json"

	"github.com/tally-eval/tally/internal/jsonscan"
)

// This file maps other agents' tools onto the roles the repeat
// classifier knows by Claude Code's names, sorting them as the proposer
// does (propToolKind, propCallInput): a shell tool's command is a Bash
// call, a patch (Codex's apply_patch, codex-rs/apply-patch) an edit of
// every file it names, another file tool (edit_file, write_file, …) an
// edit of its path.

// claudeTools are Claude Code's tool names, which parseCallInput reads
// by their own members.
var claudeTools = set("Bash", "Read", "Grep", "Glob", "Edit", "MultiEdit", "Write", "NotebookEdit", "TaskOutput")

// callRole returns the role a call to tool with input raw is classified
// in, and its identity under that role (parseCallInput): a shell tool's
// command is read as Bash's; an apply_patch is a "Patch" of the files
// it names, keyed by its text; another file tool is an "Edit" of its
// path, keyed by its whole input; any other tool is itself.
func callRole(tool string, raw json.RawMessage, cwd string) (string, callInput) {
	if claudeTools[tool] {
		return tool, parseCallInput(tool, raw, cwd)
	}
	kind, file, command, patch := propCallOf(tool, raw)
	switch kind {
	case "shell":
		if command != "" {
			b, _ := json.Marshal(map[string]string{"command": command})
			in := parseCallInput("Bash", b, cwd)
			// The call's own working directory (Codex's workdir) places
			// its relative paths and is part of its identity: "cat c.go"
			// in src/ and in lib/ are two reads (a re-check trial).
			var wd struct {
				Workdir string `json:"workdir"`
			}
			if json.Unmarshal(raw, &wd) == nil && wd.Workdir != "" {
				in.dir = resolvePath(cwd, wd.Workdir)
				if in.dir != resolvePath(cwd, cwd) {
					in.key = in.dir + "\x00" + in.key
				}
			}
			return "Bash", in
		}
	case "patch":
		in := callInput{key: patch, newStr: patch}
		for _, m := range propPatchFile.FindAllStringSubmatch(patch, -1) {
			in.files = append(in.files, resolvePath(cwd, m[1]))
		}
		if len(in.files) > 0 {
			in.file = in.files[0]
		}
		return "Patch", in
	case "file":
		if file != "" {
			var sc jsonscan.Scanner
			in := callInput{file: resolvePath(cwd, file)}
			in.key = in.file + "\x00" + genericCallKey(&sc, raw)
			return "Edit", in
		}
	}
	return tool, parseCallInput(tool, raw, cwd)
}
