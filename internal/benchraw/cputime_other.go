//go:build !unix

package benchraw

import "time"

// CPUTime is 0 where the process's CPU time is not read: Raw.Start then
// reports no cpu-MB/s.
func CPUTime() time.Duration { return 0 }
