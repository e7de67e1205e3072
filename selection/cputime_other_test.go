//go:build !unix

package selection

import "time"

// cpuTime is not measured here: benchmarks report no CPU rate.
func cpuTime() time.Duration { return 0 }
