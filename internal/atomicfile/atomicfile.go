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
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	perm := fs.FileMode(0o644)
	if info, err := os.Lstat(path); err == nil {
		switch {
		case info.Mode().IsRegular():
			perm = info.Mode().Perm()
		case info.Mode()&fs.ModeSymlink == 0:
			return fmt.Errorf("writing %s: not a regular file", path)
		}
	}
	f, err := CreateTemp(dir, name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			f.Close()
			Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	done = true
	syncDir(dir)
	return nil
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
