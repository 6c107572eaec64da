//go:build !unix

package dwinfo

// cpuTime is unavailable here: benchmarks report 0.
func cpuTime() int64 { return 0 }
