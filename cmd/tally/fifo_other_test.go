//go:build !unix

package main

import "testing"

// mkfifo skips the test: there are no named pipes in the file system.
func mkfifo(t *testing.T, path string) {
	t.Skip("no named pipes in the file system")
}
