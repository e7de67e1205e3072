//go:build !unix

package judge

import "os/exec"

// killGroup leaves cmd as it is where there are no process groups: when
// its context ends, exec kills the program alone.
func killGroup(cmd *exec.Cmd) {}

// endGroup does nothing where there are no process groups.
func endGroup(cmd *exec.Cmd) {}
