//go:build unix

package judge

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killGroup makes cmd run in a process group of its own and, when its
// context ends (a timeout, or tally interrupted), kill that whole group
// with SIGKILL: the program and every process it started that stayed in
// its group, so no grandchild is left re-parented to init.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// endGroup kills, with SIGKILL, what is left of the process group of a
// command that has been waited for: the processes the program started in
// the background and left running. A group already gone (ESRCH) is the
// usual case and not an error; a command that never started has no group.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH: nothing left
}
