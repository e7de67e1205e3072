package review

import "golang.org/x/sys/unix"

// discardInput discards the input the terminal fd has received and not
// yet been read (tcflush(fd, TCIFLUSH)).
func discardInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
