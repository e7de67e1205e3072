package main

import (
	"strings"
)

// When the logs are written in Claude Code's format, the plan has to
// hold the truth under Claude Code's notion of the same call, not only
// under exact arguments: a Read of lines 100–180 and one of 150–200 of
// the same file read the same lines, Grep's path "internal/x/..." and
// "internal/x" search the same folder, and a Bash description is a
// label, not part of the call (issue 12). And a repeat only signals a
// lost result when nothing the call looks at changed in between: a test
// run after an edit, or a re-read of a file the agent edited, is work,
// not forgetting. This file gives the plan those two notions.

// ccTool is the Claude Code tool a planned call becomes.
func ccTool(c toolCall) string {
	switch c.Tool {
	case "read_file":
		return "Read"
	case "grep":
		return "Grep"
	case "edit_file":
		return "Edit"
	}
	return "Bash"
}

// grepDir is the folder a grep searches, "" for the whole tree.
func grepDir(c toolCall) string {
	var dir string
	if i := strings.Index(c.Args, `"path":"`); i >= 0 {
		dir = c.Args[i+len(`"path":"`):]
		dir = dir[:strings.IndexByte(dir, '"')]
	}
	dir = strings.TrimSuffix(dir, "/...")
	if dir == "." {
		return ""
	}
	return dir
}

// bashCommand is the command line a Bash call runs.
func bashCommand(c toolCall) string {
	if c.Tool == "list_dir" {
		return listDirCommand(c)
	}
	return strings.Join(strings.Fields(c.Command), " ")
}

// editOld is an edit_file call's old text.
func editOld(c toolCall) string {
	if i := strings.Index(c.Args, `"old":`); i >= 0 {
		return c.Args[i:strings.Index(c.Args, `,"new":`)]
	}
	return ""
}

// ccSame is whether two planned calls are the same call as Claude
// Code's logs are read (selection.FindToolRepeats' identity): Reads of
// one file whose line ranges overlap (a whole-file read overlaps every
// range), Greps of one pattern in one folder, Edits of one file at one
// old text, Bash calls running one command.
func ccSame(a, b toolCall) bool {
	if ccTool(a) != ccTool(b) {
		return false
	}
	switch a.Tool {
	case "read_file":
		if a.Path != b.Path {
			return false
		}
		return a.Start == 0 || b.Start == 0 || a.Start <= b.End && b.Start <= a.End
	case "grep":
		return a.Pattern == b.Pattern && grepDir(a) == grepDir(b)
	case "edit_file":
		return a.Path == b.Path && editOld(a) == editOld(b)
	}
	return bashCommand(a) == bashCommand(b)
}

// repeatWindow is how many turns after a compaction's turn a call that
// repeats one from before it is a repeat (selection.DefaultRepeatWindow's
// Turns): the compaction runs right after its turn's prompt, so its
// turn's calls count, at 0.
const repeatWindow = SignalWindow

// ccConflict is whether a call c at turn t would make a repeat no truth
// line names: the same call as one before a compaction, made within the
// window after it (in either order of drawing: c in a window, or c before
// a compaction whose window holds its twin).
func (l *sessionLog) ccConflict(c toolCall, t int) bool {
	if comp := l.s.lastCompactionAtOrBefore(t); comp > 0 && t-comp <= repeatWindow {
		for u := 1; u < comp; u++ {
			for _, x := range l.turn(u).Calls {
				if ccSame(c, x) {
					return true
				}
			}
		}
	}
	for _, comp := range l.s.Compactions {
		if comp <= t {
			continue
		}
		for u := comp; u <= min(comp+repeatWindow, l.s.nextCompaction(comp)-1, l.s.Turns); u++ {
			for _, x := range l.turn(u).Calls {
				if ccSame(c, x) {
					return true
				}
			}
		}
	}
	return false
}

// ccFresh is whether c is the same call as none the session has made.
func (l *sessionLog) ccFresh(c toolCall) bool {
	for i := range l.turns {
		for _, x := range l.turns[i].Calls {
			if ccSame(c, x) {
				return false
			}
		}
	}
	return true
}

// unchangedBetween is whether nothing call c looks at changed in turns
// from..to: no edit of the file a read reads, no edit under the folder a
// grep searches, no edit at all before tests run again. (The plan's
// commands change no files; an edit that fails in the log counts here
// as a change, which only makes the rule stricter.)
func (l *sessionLog) unchangedBetween(c toolCall, from, to int) bool {
	for u := from; u <= to; u++ {
		for _, x := range l.turn(u).Calls {
			if x.Tool != "edit_file" {
				continue
			}
			switch c.Tool {
			case "read_file":
				if x.Path == c.Path {
					return false
				}
			case "grep":
				if d := grepDir(c); d == "" || strings.HasPrefix(x.Path, d+"/") || x.Path == d {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}
