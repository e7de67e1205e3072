//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// running reports whether a process with id pid exists: signal 0 checks
// without sending anything; EPERM means it exists but is another user's.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
