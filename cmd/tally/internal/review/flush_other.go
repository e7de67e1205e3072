//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package review

// discardInput would discard the terminal's pending input; on this system
// it does nothing, so keys typed before the review starts still count.
func discardInput(fd int) error { return nil }
