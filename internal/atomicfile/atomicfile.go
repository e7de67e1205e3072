// Package atomicfile writes files so that a reader, or a later run, sees
// either the old content or the whole new content, never part of it: the
// new content goes to a temporary file in the same folder, is synced to
// disk, and is renamed over the target. Every tally command that writes a
// file writes it this way.
//
// Temporary files are named ".<name>.tmp-tally<pid>-<random>", a name
// tally's folder listings skip (it starts with a dot), and are registered
// while they exist: on an interrupt (SIGINT, SIGTERM) the command calls
// Interrupt, which removes them all. A run killed outright (SIGKILL, a
// crash, a power cut) cannot clean up, so the first Write or CreateTemp
// into a folder in a process removes the temporary files there whose
// process is gone (see CleanStale).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrInterrupted is returned (wrapped) by Write and CreateTemp after
// Interrupt: the run is ending, and no new file may be started.
var ErrInterrupted = errors.New("interrupted")

// Write replaces the file at path with what write writes, atomically.
//
// write gets a buffered writer on a temporary file (CreateTemp) in
// path's folder. When write returns nil the file is flushed, synced and
// renamed to path, and the folder is synced (where the system allows
// it). When write, or any of those steps, fails — or write panics — the
// temporary file is removed and an existing file at path is left
// untouched; the error is returned wrapped with path.
//
// A new file gets mode 0644; a replaced file keeps its permission bits.
// A symbolic link at path is replaced by a regular file, not followed.
func Write(path string, write func(w io.Writer) error) error {
	return WriteSet([]File{{Path: path, Write: write}}, nil)
}

// File is one file of a set: its path and what to write into it.
type File struct {
	Path  string
	Write func(w io.Writer) error
}

// WriteSet replaces the files of set all or none, and removes the files
// of remove (a file not there is fine): every file is written in full to
// a temporary file in its folder first (flushed, synced, with the
// permission bits Write would give it), and only when every one is
// complete are they renamed into place, in order, and then the files of
// remove deleted. When writing any fails — or a write function panics —
// every temporary file is removed and no target is touched. Something at
// a target or in remove that is neither a regular file nor a symbolic
// link (a folder, a device) is an error before anything is written.
//
// Two entries naming the same file (or an entry and a path to remove) are
// an error before anything is written. The renames happen under one lock
// that Interrupt also takes, so an interrupt leaves the old set or the new
// one; only a crash between the first rename and the last (a power cut)
// can leave some files new and some old, and each rename is atomic. The
// error names the file it is about.
func WriteSet(set []File, remove []string) error {
	if err := distinct(set, remove); err != nil {
		return err
	}
	perms := make([]fs.FileMode, len(set))
	for i, f := range set {
		perm, err := replaceablePerm(f.Path)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		perms[i] = perm
	}
	for _, p := range remove {
		if _, err := replaceablePerm(p); err != nil {
			return fmt.Errorf("removing %s: %w", p, err)
		}
	}
	temps := make([]string, 0, len(set))
	renamed := 0
	defer func() {
		for _, t := range temps[renamed:] {
			Remove(t)
		}
	}()
	for i, f := range set {
		tmp, err := writeTemp(f, perms[i])
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		temps = append(temps, tmp)
	}
	paths := make([]string, len(set))
	dirs := map[string]bool{}
	for i, f := range set {
		paths[i] = f.Path
		dirs[filepath.Dir(f.Path)] = true
	}
	for _, p := range remove {
		dirs[filepath.Dir(p)] = true
	}
	n, err := renameAll(temps, paths, remove)
	renamed = n
	for d := range dirs {
		syncDir(d)
	}
	return err
}

// distinct refuses a set in which two files, or a file and a path to
// remove, are the same file: the later would silently replace or delete
// the earlier (-o x --sample-out x).
func distinct(set []File, remove []string) error {
	type named struct {
		path string
		info os.FileInfo // nil when nothing is there yet
	}
	var seen []named
	for i, p := range append(pathsOf(set), remove...) {
		clean := filepath.Clean(p)
		info, _ := os.Stat(clean)
		for _, s := range seen {
			if s.path == clean || info != nil && s.info != nil && os.SameFile(info, s.info) {
				what := "writing"
				if i >= len(set) {
					what = "removing"
				}
				return fmt.Errorf("%s %s: the same file as %s, which this run also writes", what, p, s.path)
			}
		}
		seen = append(seen, named{clean, info})
	}
	return nil
}

// pathsOf lists the paths of a set.
func pathsOf(set []File) []string {
	out := make([]string, len(set))
	for i, f := range set {
		out[i] = f.Path
	}
	return out
}

// replaceablePerm returns the permission bits a new file at path gets: a
// regular file's own, 0644 for a new file or one replacing a symbolic
// link (which is replaced, not followed). Anything else at path (a
// folder, a device) is an error.
func replaceablePerm(path string) (fs.FileMode, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0o644, nil
	case err != nil:
		return 0, err
	case info.Mode().IsRegular():
		return info.Mode().Perm(), nil
	case info.Mode()&fs.ModeSymlink != 0:
		return 0o644, nil
	}
	return 0, errors.New("not a regular file")
}

// writeTemp writes f to a new temporary file in f's folder (CreateTemp:
// registered, so an interrupt removes it), flushed, with mode perm and
// synced, and returns its path. On a failure, or a panic in f.Write, the
// temporary file is removed.
func writeTemp(f File, perm fs.FileMode) (string, error) {
	dir, name := filepath.Split(f.Path)
	if dir == "" {
		dir = "."
	}
	file, err := CreateTemp(dir, name)
	if err != nil {
		return "", err
	}
	done := false
	defer func() {
		if !done {
			file.Close()
			Remove(file.Name())
		}
	}()
	bw := bufio.NewWriterSize(file, 64<<10)
	if err := f.Write(bw); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	if err := file.Chmod(perm); err != nil {
		return "", err
	}
	if err := file.Sync(); err != nil {
		return "", err
	}
	if err := file.Close(); err != nil {
		return "", err
	}
	done = true
	return file.Name(), nil
}

// syncDir makes a rename in dir durable. It is best effort: some systems
// (Windows) cannot open or sync a folder, and the file itself is synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
