//go:build !unix

package symbolize

// processCPUTime is 0 where getrusage is missing: the benchmark then
// reports no CPU time.
func processCPUTime() int64 { return 0 }
