//go:build !aix && !darwin && !dragonfly && !freebsd && !linux && !netbsd && !openbsd && !solaris

package review

import "time"

// waiter would return keyReader's wait function for the terminal fd; on
// this system there is none, so the review reads the terminal blocking:
// an Escape ending a read is the Escape key at once, a sequence split
// across reads is still put together, and a signal restores the
// terminal but cannot end a read under way.
func waiter(fd int, stop <-chan struct{}) func(time.Duration) (bool, error) { return nil }
