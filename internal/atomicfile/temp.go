package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tempInfix sits between a temporary file's ".<name>" and its process id.
const tempInfix = ".tmp-tally"

// StaleAge is the age past which a temporary file is removed even when
// its process id is taken: by then the id belongs to another process
// (ids are reused), since no tally write lasts a week.
const StaleAge = 7 * 24 * time.Hour

var (
	mu          sync.Mutex
	live        = map[string]bool{} // temporary files of this process
	interrupted bool
	cleaned     = map[string]bool{} // folders CleanStale has run in
)

// CreateTemp creates a new temporary file in dir for a file to be named
// name, ".<name>.tmp-tally<pid>-<random>", and registers it for removal
// by Interrupt. The caller renames it (Rename) or removes it (Remove).
// The first call for a folder cleans it of stale temporary files first
// (CleanStale, errors ignored: cleaning is a courtesy). After Interrupt
// it fails with ErrInterrupted.
func CreateTemp(dir, name string) (*os.File, error) {
	if dir == "" {
		dir = "."
	}
	mu.Lock()
	first := !cleaned[dir]
	cleaned[dir] = true
	mu.Unlock()
	if first {
		_, _ = CleanStale(dir)
	}
	mu.Lock()
	defer mu.Unlock()
	if interrupted {
		return nil, ErrInterrupted
	}
	f, err := os.CreateTemp(dir, "."+name+tempInfix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Say the folder, not the temporary file's name nobody chose.
			return nil, missingFolder(filepath.Clean(dir))
		}
		return nil, err
	}
	live[f.Name()] = true
	return f, nil
}

// missingFolder is the error of a file to be written in a folder that
// does not exist; errors.Is finds fs.ErrNotExist in it.
type missingFolder string

func (m missingFolder) Error() string        { return "folder " + string(m) + " does not exist" }
func (m missingFolder) Is(target error) bool { return target == fs.ErrNotExist }

// Rename renames the temporary file tmp to path and forgets it.
func Rename(tmp, path string) error {
	mu.Lock()
	defer mu.Unlock()
	if interrupted {
		return ErrInterrupted
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	delete(live, tmp)
	return nil
}

// renameAll renames each temporary file tmps[i] to paths[i] and removes
// the paths in remove (one not there is fine), under one hold of the lock:
// an Interrupt comes before the first rename or after the last removal,
// never between, so a set is replaced whole or not at all. It returns
// how many were renamed, and the first error.
func renameAll(tmps, paths, remove []string) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	if interrupted {
		return 0, ErrInterrupted
	}
	for i, tmp := range tmps {
		if err := os.Rename(tmp, paths[i]); err != nil {
			return i, fmt.Errorf("writing %s: %w", paths[i], err)
		}
		delete(live, tmp)
	}
	for _, p := range remove {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return len(tmps), fmt.Errorf("removing %s: %w", p, err)
		}
	}
	return len(tmps), nil
}

// Remove removes the temporary file tmp and forgets it.
func Remove(tmp string) {
	mu.Lock()
	defer mu.Unlock()
	_ = os.Remove(tmp)
	delete(live, tmp)
}

// Interrupt removes every temporary file of this process that is not yet
// renamed, and makes every later CreateTemp, Rename and Write fail with
// ErrInterrupted, so that a run being interrupted leaves no temporary
// file and replaces no file from here on. It returns the files removed.
// It is safe to call from another goroutine than the writers'.
func Interrupt() []string {
	mu.Lock()
	defer mu.Unlock()
	interrupted = true
	var removed []string
	for tmp := range live {
		if err := os.Remove(tmp); err == nil {
			removed = append(removed, tmp)
		}
		delete(live, tmp)
	}
	return removed
}

// CleanStale removes the temporary files in dir left by a tally process
// that is gone: killed outright, it could not remove them. A file is
// stale when the process id in its name is not running, or when it is
// older than StaleAge whatever its id; this process's own files never
// are. Age alone would not do: a check writes its verdicts to one
// temporary file for as long as its judge calls take, hours perhaps.
// It returns the files removed.
func CleanStale(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cleaning %s: %w", dir, err)
	}
	self := os.Getpid()
	var removed []string
	for _, e := range entries {
		pid, ok := tempPID(e.Name())
		if !ok || pid == self || !e.Type().IsRegular() {
			continue
		}
		stale := !running(pid)
		if !stale {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > StaleAge {
				stale = true
			}
		}
		if stale {
			p := filepath.Join(dir, e.Name())
			if err := os.Remove(p); err == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed, nil
}

// tempPID returns the process id in a temporary file's name
// ".<name>.tmp-tally<pid>-<random>".
func tempPID(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	i := strings.LastIndex(name, tempInfix)
	if i < 1 {
		return 0, false
	}
	digits, random, ok := strings.Cut(name[i+len(tempInfix):], "-")
	if !ok || random == "" || strings.Trim(random, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
