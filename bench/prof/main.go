//go:build ignore

// This file is not built here: bench/profile.sh lays it over
// examples/addr2line with `go build -overlay` (stripping the build tag
// above), so the real command can be profiled without a profiling flag in
// its source. It replaces the command's main and wraps its run.

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

// main runs the command with a CPU profile (SYMBOLIZE_CPUPROFILE), a heap
// profile taken near the peak of the live heap (SYMBOLIZE_HEAPPROFILE) and
// one at exit with every allocation (SYMBOLIZE_HEAPPROFILE.final), and an
// execution trace (SYMBOLIZE_TRACE, for go tool trace).
func main() {
	cpuPath, heapPath := os.Getenv("SYMBOLIZE_CPUPROFILE"), os.Getenv("SYMBOLIZE_HEAPPROFILE")
	if p := os.Getenv("SYMBOLIZE_TRACE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	stop, done := make(chan struct{}), make(chan uint64)
	if heapPath != "" {
		runtime.MemProfileRate = 64 << 10
		go watchPeak(heapPath, stop, done)
	}
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if cpuPath != "" {
		pprof.StopCPUProfile()
	}
	if heapPath != "" {
		close(stop)
		peak := <-done
		writeHeap(heapPath + ".final")
		fmt.Fprintf(os.Stderr, "profile: peak HeapAlloc %.1f MB\n", float64(peak)/(1<<20))
	}
	trace.Stop() // a no-op without SYMBOLIZE_TRACE
	os.Exit(code)
}

// watchPeak polls the live heap and rewrites the heap profile whenever it
// has grown by a tenth since the last write, after two GCs: a profile's
// in-use figures are as of the GC before the last (without them, the peak
// profile of a run that allocates its largest buffers between two GCs
// missed them). Those GCs show in the CPU profile taken with it.
func watchPeak(path string, stop <-chan struct{}, done chan<- uint64) {
	var ms runtime.MemStats
	var peak, written uint64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		if ms.HeapAlloc > written+written/10 {
			runtime.GC()
			runtime.GC()
			writeHeap(path)
			written = ms.HeapAlloc
		}
		select {
		case <-stop:
			done <- peak
			return
		case <-tick.C:
		}
	}
}

func writeHeap(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
}
