//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package review

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// waiter returns keyReader's wait function for the terminal fd: select(2)
// on it, in slices of a tenth of a second so that closing stop (a
// signal) ends the wait with errStopped. select rather than poll: macOS's
// poll does not work on terminals. nil when fd does not fit an fd_set
// (1024 descriptors on every system here; stdin is 0).
func waiter(fd int, stop <-chan struct{}) func(time.Duration) (bool, error) {
	if fd < 0 || fd >= 1024 {
		return nil
	}
	return func(d time.Duration) (bool, error) {
		const slice = 100 * time.Millisecond
		deadline := time.Now().Add(d)
		for {
			select {
			case <-stop:
				return false, errStopped
			default:
			}
			t := slice
			if d >= 0 {
				t = min(t, max(time.Until(deadline), 0))
			}
			var set unix.FdSet
			set.Set(fd)
			tv := unix.NsecToTimeval(t.Nanoseconds())
			n, err := unix.Select(fd+1, &set, nil, nil, &tv)
			switch {
			case errors.Is(err, unix.EINTR):
			case err != nil:
				return false, fmt.Errorf("waiting for a key: %w", err)
			case n > 0:
				return true, nil
			case d >= 0 && !time.Now().Before(deadline):
				return false, nil
			}
		}
	}
}
