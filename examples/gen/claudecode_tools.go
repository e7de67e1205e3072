package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The plan's tools as Claude Code's: names, input schemas and results.
//
//	read_file {path, start_line, end_line} → Read {file_path, offset, limit}
//	grep {pattern, path}                   → Grep {pattern, path?, output_mode, -n?}
//	edit_file {path, old, new}             → Edit {file_path, old_string, new_string, replace_all}
//	run_tests {command}                    → Bash {command, description, timeout?}
//	list_dir {path}                        → Bash {command: "ls -la path", description}
//	run_command {command}                  → Bash {command, description}
//
// File paths are absolute under the session's working directory, as
// Claude Code writes them; Bash commands stay relative to it.

// abs is path p under the working directory ("." is the directory).
func (w *ccWriter) abs(p string) string {
	p = strings.TrimSuffix(p, "/...")
	if p == "." || p == "" {
		return w.cwd
	}
	return w.cwd + "/" + p
}

// testDescriptions and commandDescriptions are the free-text labels the
// model gives Bash calls; they vary between identical commands.
var (
	testDescriptions = []string{"Run tests", "Run the tests", "Run tests to verify the fix", "Re-run the failing test",
		"Run %t", "Run the %t test", "Run tests for %d", "Check the tests pass", "Verify the change with tests", "Run the test suite for %d"}
	commandDescriptions = []struct {
		prefix string
		labels []string
	}{
		{"git status", []string{"Check git status", "Show working tree status", "Check what changed"}},
		{"git diff", []string{"Show the diff", "Review changes so far", "Show uncommitted changes"}},
		{"git log", []string{"Show recent commits", "Check recent history", "Look at the commit history"}},
		{"git blame", []string{"Blame the lines", "See who changed these lines"}},
		{"git stash", []string{"List stashes", "Check for stashed changes"}},
		{"make lint", []string{"Run the linter", "Lint the code", "Run lint"}},
		{"make build", []string{"Build the project", "Check it builds", "Run the build"}},
		{"wc", []string{"Count lines", "Check file length"}},
		{"ls", []string{"List files", "List the folder", "Show directory contents"}},
	}
)

// describe draws a description for a Bash command.
func (w *ccWriter) describe(c toolCall) string {
	if c.Tool == "run_tests" {
		return fill(w.r, w.l.th, pick(w.r, testDescriptions))
	}
	cmd := c.Command
	if c.Tool == "list_dir" {
		cmd = "ls"
	}
	for _, d := range commandDescriptions {
		if strings.HasPrefix(cmd, d.prefix) {
			return pick(w.r, d.labels)
		}
	}
	return "Run " + cmd
}

// listDirCommand is the Bash command of a list_dir call.
func listDirCommand(c toolCall) string {
	var a struct{ Path string }
	_ = json.Unmarshal([]byte(c.Args), &a)
	if a.Path == "." {
		return "ls -la"
	}
	return "ls -la " + a.Path
}

// toolInput maps a planned call to Claude Code's tool and input.
func (w *ccWriter) toolInput(c toolCall) (string, json.RawMessage) {
	r := w.r
	switch c.Tool {
	case "read_file":
		if c.Start == 0 {
			return "Read", json.RawMessage(orderedArgs("file_path", w.abs(c.Path)))
		}
		return "Read", json.RawMessage(orderedArgs("file_path", w.abs(c.Path), "offset", c.Start, "limit", c.End-c.Start+1))
	case "grep":
		var a struct{ Path string }
		_ = json.Unmarshal([]byte(c.Args), &a)
		kv := []any{"pattern", c.Pattern}
		if a.Path != "." || chance(r, 0.5) {
			kv = append(kv, "path", w.abs(a.Path))
		}
		if chance(r, 0.6) {
			kv = append(kv, "output_mode", "content", "-n", true)
		} else {
			kv = append(kv, "output_mode", "files_with_matches")
		}
		return "Grep", json.RawMessage(orderedArgs(kv...))
	case "edit_file":
		var a struct{ Old, New string }
		_ = json.Unmarshal([]byte(c.Args), &a)
		return "Edit", json.RawMessage(orderedArgs("replace_all", false, "file_path", w.abs(c.Path), "old_string", a.Old, "new_string", a.New))
	case "run_tests":
		kv := []any{"command", c.Command, "description", w.describe(c)}
		if chance(r, 0.3) {
			kv = append(kv, "timeout", pick(r, []int{120000, 300000, 600000}))
		}
		return "Bash", json.RawMessage(orderedArgs(kv...))
	case "list_dir":
		return "Bash", json.RawMessage(orderedArgs("command", listDirCommand(c), "description", w.describe(c)))
	default:
		return "Bash", json.RawMessage(orderedArgs("command", c.Command, "description", w.describe(c)))
	}
}

// systemReminder is what Claude Code appends to a Read result.
const systemReminder = "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n</system-reminder>\n"

// ccResultLines is the most lines of a result written: the logs keep the
// shape of results, not their bulk.
const ccResultLines = 6

// toolOutput draws a call's result as Claude Code shows it, and whether
// it is an error.
func (w *ccWriter) toolOutput(c toolCall) (string, bool) {
	r, th := w.r, w.l.th
	switch c.Tool {
	case "read_file":
		start := max(c.Start, 1)
		var b strings.Builder
		for n := start; n < start+ccResultLines; n++ {
			fmt.Fprintf(&b, "%6d→%s\n", n, codeLine(r, th))
		}
		return b.String() + systemReminder, false
	case "grep":
		var b strings.Builder
		n := 1 + r.IntN(ccResultLines)
		for i := range n {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s:%d:%s", w.abs(pick(r, th.Files)), 1+r.IntN(600), strings.TrimSpace(codeLine(r, th)))
		}
		return b.String(), false
	case "edit_file":
		if chance(r, 0.04) && !c.Sure {
			var a struct{ Old string }
			_ = json.Unmarshal([]byte(c.Args), &a)
			return "<tool_use_error>String to replace not found in file.\nString: " + a.Old + "</tool_use_error>", true
		}
		return "The file " + w.abs(c.Path) + " has been updated successfully.", false
	case "run_tests":
		return w.testOutput(c)
	case "list_dir":
		var b strings.Builder
		b.WriteString("total " + fmt.Sprint(8+r.IntN(90)))
		for i, f := range th.Files {
			if i == ccResultLines {
				break
			}
			fmt.Fprintf(&b, "\n-rw-r--r--  1 dev  staff  %5d Jan %2d 10:%02d %s", 300+r.IntN(20000), 1+r.IntN(28), r.IntN(60), lastElem(f))
		}
		return b.String(), false
	default:
		return w.commandOutput(c), false
	}
}

// testOutput is a test run's output: passing, or failing with exit code 1
// (Claude Code marks a command that exits non-zero as an error).
func (w *ccWriter) testOutput(c toolCall) (string, bool) {
	r, th := w.r, w.l.th
	test := pick(r, th.Tests)
	if chance(r, 0.7) {
		switch th.Lang.Name {
		case "go":
			return fmt.Sprintf("ok  \t%s\t%d.%03ds", th.Dir, r.IntN(3), r.IntN(1000)), false
		case "python":
			return fmt.Sprintf("%d passed in %d.%02ds", 3+r.IntN(40), r.IntN(5), r.IntN(100)), false
		default:
			return fmt.Sprintf(" Test Files  %d passed (%d)\n      Tests  %d passed (%d)", 1+r.IntN(4), 1+r.IntN(4), 3+r.IntN(40), 3+r.IntN(40)), false
		}
	}
	where := fmt.Sprintf("%s:%d", lastElem(pick(r, th.Files)), 20+r.IntN(300))
	switch th.Lang.Name {
	case "go":
		return fmt.Sprintf("Exit code 1\n--- FAIL: %s (0.%02ds)\n    %s: got 1199, want 1200\nFAIL\nFAIL\t%s\t0.%03ds", test, r.IntN(99), where, th.Dir, r.IntN(1000)), true
	case "python":
		return fmt.Sprintf("Exit code 1\nFAILED %s::%s - AssertionError: assert 1199 == 1200\n1 failed, %d passed in 0.%02ds", th.Dir, test, 2+r.IntN(30), r.IntN(100)), true
	default:
		return fmt.Sprintf("Exit code 1\n FAIL  %s > %s\nAssertionError: expected 1199 to be 1200\n Tests  1 failed | %d passed", where, test, 2+r.IntN(30)), true
	}
}

// commandOutput is the output of a git, make or wc command.
func (w *ccWriter) commandOutput(c toolCall) string {
	r, th := w.r, w.l.th
	var lines []string
	switch {
	case strings.HasPrefix(c.Command, "git log"):
		for range min(ccResultLines, 3+r.IntN(6)) {
			lines = append(lines, fmt.Sprintf("%07x %s", r.Uint32()&0xfffffff, pick(r, identWords)))
		}
	case strings.HasPrefix(c.Command, "git status"):
		for range 1 + r.IntN(4) {
			lines = append(lines, " M "+pick(r, th.Files))
		}
	case strings.HasPrefix(c.Command, "git diff"):
		for range 1 + r.IntN(4) {
			lines = append(lines, fmt.Sprintf(" %s | %d +++--", pick(r, th.Files), 2+r.IntN(40)))
		}
	case strings.HasPrefix(c.Command, "git blame"):
		for range ccResultLines {
			lines = append(lines, fmt.Sprintf("%07x (%s 2025-12-%02d) %s", r.Uint32()&0xfffffff, pick(r, ccUsers), 1+r.IntN(28), strings.TrimSpace(codeLine(r, th))))
		}
	case strings.HasPrefix(c.Command, "wc -l"):
		lines = append(lines, fmt.Sprintf("%8d %s", 80+r.IntN(1400), strings.TrimPrefix(c.Command, "wc -l ")))
	}
	return strings.Join(lines, "\n")
}
