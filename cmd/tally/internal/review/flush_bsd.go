//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package review

import "golang.org/x/sys/unix"

// fread is FREAD of <sys/fcntl.h>: TIOCFLUSH with it flushes the input
// queue only, as the BSD libcs implement tcflush(fd, TCIFLUSH).
const fread = 1

// discardInput discards the input the terminal fd has received and not
// yet been read (tcflush(fd, TCIFLUSH)).
func discardInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }
