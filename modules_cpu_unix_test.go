//go:build unix

package symbolize

import "syscall"

// processCPUTime returns the user and system CPU time the process has
// used, in nanoseconds.
func processCPUTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
