package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tally-eval/tally/agentlog"
	"github.com/tally-eval/tally/internal/input"
)

// logArgs expands the agent-log arguments of signals, select and
// fixtures draft: a file is itself; a folder is every file under it,
// at any depth, whose name ends in .jsonl or .jsonl.gz, in lexical
// order of path — Claude Code's ~/.claude/projects and Codex's
// ~/.codex/sessions/YYYY/MM/DD are such trees (a new user's trial had
// to spell out find). Other files in a folder are left out, counted in
// the note, as are hidden files and folders (named .*) inside it and
// prompt histories (agentlog.PromptHistory);
// symbolic links inside a folder are not followed, and are named in the
// note; a folder given through a link is walked. A folder
// with no log in it is an error, not a run over nothing.
func logArgs(args []string) (paths []string, note string, err error) {
	var other, folders int
	var links, histories, hidden []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			paths = append(paths, a) // the readers say what is wrong with it
			continue
		}
		folders++
		// A folder named through a link (a dotfiles-managed ~/.claude)
		// is walked as the folder: WalkDir does not descend a link given
		// as its root, and a new user's trial was told the folder held
		// no log.
		root := a
		if lst, err := os.Lstat(a); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			root = a + string(filepath.Separator)
		}
		var found []string
		hidden0, histories0 := len(hidden), len(histories)
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("reading the folder %s: %w", a, err)
			}
			if p == root {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Not followed (a link may lead out of the tree, or round
				// it), but said: a trial's linked project folder was
				// dropped without a word.
				links = append(links, p)
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				// A hidden file or folder inside (a backup, an editor's
				// swap, .git) is no log of the tree's: a re-check trial's
				// .hidden copy was read first and won over the real one.
				if d.IsDir() {
					hidden = append(hidden, p)
					return filepath.SkipDir
				}
				other++
				return nil
			}
			if d.IsDir() {
				return nil
			}
			switch {
			case !isLogName(d.Name()):
				other++
			case promptHistoryFile(p) != "":
				// ~/.claude/history.jsonl, ~/.codex/history.jsonl: the
				// prompts typed, across sessions, beside the sessions
				// (a new user's trial: tally signals ~/.claude failed
				// on it).
				histories = append(histories, p)
			default:
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		switch {
		case len(found) > 0:
		case len(histories) > histories0:
			// A re-check trial was told there was no *.jsonl in it.
			h := histories[histories0:]
			return nil, "", fmt.Errorf("%s: the folder holds no session log, only %s, the prompts typed: %s", a, promptHistoryFile(h[0]), firstNames(h))
		case len(hidden) > hidden0:
			// tally signals ~: the logs are under ~/.claude.
			h := hidden[hidden0:]
			return nil, "", fmt.Errorf("%s: the folder holds no agent log (no file named *.jsonl or *.jsonl.gz at any depth) outside its %s (named .*), not read: give one, such as %s", a,
				plural(len(h), "hidden folder"), shellWord(h[0]))
		default:
			return nil, "", fmt.Errorf("%s: the folder holds no agent log (no file named *.jsonl or *.jsonl.gz at any depth)", a)
		}
		slices.Sort(found)
		paths = append(paths, found...)
	}
	if folders > 0 {
		note = fmt.Sprintf("read %s from %s", plural(len(paths), "log file"), plural(folders, "folder"))
		if other > 0 {
			note += fmt.Sprintf("; %s not named *.jsonl or *.jsonl.gz, or hidden, left out", plural(other, "other file"))
		}
		if len(hidden) > 0 {
			note += fmt.Sprintf("; %s (named .*) not read", plural(len(hidden), "hidden folder"))
		}
		if len(histories) > 0 {
			note += fmt.Sprintf("; %s (%s) left out: the prompts typed, not sessions", plural(len(histories), "prompt history file"), firstNames(histories))
		}
		if len(links) > 0 {
			note += fmt.Sprintf("; %s not followed (%s): give what it names as an argument to read it", plural(len(links), "symbolic link"), firstNames(links))
		}
	}
	return paths, note, nil
}

// isLogName reports whether a file's name is an agent log's: *.jsonl or
// *.jsonl.gz, in any case.
func isLogName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.gz")
}

// expandLogArgs is logArgs for a command: its note goes to w as a
// "note:" line, and is returned for a JSON output's warnings.
func expandLogArgs(w io.Writer, args []string) ([]string, string, error) {
	paths, note, err := logArgs(args)
	if err == nil && note != "" {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	return paths, note, err
}

// promptHistoryFile names the prompt history the file at path is
// (agentlog.PromptHistory, from its first line, gzipped or not), or
// returns "" — also when it cannot be read, for its reader to say why.
func promptHistoryFile(path string) string {
	f, err := input.Open(path, input.Limits{}) // refuses a named pipe before opening it
	if err != nil {
		return ""
	}
	defer f.Close()
	return agentlog.PromptHistoryIn(f)
}
