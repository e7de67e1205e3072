package input

import (
	"io/fs"
	"os"
	"syscall"
)

// ReadDir is os.ReadDir for a folder named by the user: the path is
// looked at first (symbolic links followed), and anything but a folder
// is refused as os.ReadDir refuses a regular file, with a *fs.PathError
// wrapping syscall.ENOTDIR — without opening it, since opening a named
// pipe waits for a writer. The entries are sorted by name.
func ReadDir(path string) ([]fs.DirEntry, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}
	}
	return os.ReadDir(path)
}
