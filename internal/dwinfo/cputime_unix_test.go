//go:build unix

package dwinfo

import "syscall"

// cpuTime returns the user and system CPU time the process has used, in
// nanoseconds: on a shared machine it varies less than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
