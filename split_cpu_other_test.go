//go:build !unix

package symbolize_test

// splitCPUTime is unavailable here: BenchmarkSplitCold reports 0.
func splitCPUTime() int64 { return 0 }
