//go:build unix

package inflate

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user plus system CPU time. Benchmarks
// report per-CPU-second rates from it because the shared machine they run
// on is oversubscribed, which inflates wall-clock times but not CPU times.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
