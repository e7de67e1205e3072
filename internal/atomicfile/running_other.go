//go:build !unix

package atomicfile

import "os"

// running reports whether a process with id pid exists; on Windows
// os.FindProcess opens it and fails when there is none.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
