//go:build !unix

package inline

// cpuTime is unavailable here: benchmarks report 0.
func cpuTime() int64 { return 0 }
