//go:build ignore

// This file is not built here: bench/profile.sh lays it over
// examples/addr2line with `go build -overlay` (stripping the build tag
// above), so the real command can be profiled without a profiling flag in
// its source. It replaces the command's main and wraps its run.

package main

import (
	"debug/elf"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"time"
)

// main runs the command with a CPU profile (SYMBOLIZE_CPUPROFILE), a heap
// profile taken near the peak of the live heap (SYMBOLIZE_HEAPPROFILE) and
// one at exit with every allocation (SYMBOLIZE_HEAPPROFILE.final), an
// execution trace (SYMBOLIZE_TRACE, for go tool trace), and where the
// resident pages are at the largest resident set seen and at exit
// (SYMBOLIZE_SMAPS; with SYMBOLIZE_SMAPS_FILE naming the mapped input, the
// resident pages of each of its sections at that peak too).
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
	stopRSS := make(chan struct{})
	if heapPath != "" {
		runtime.MemProfileRate = 64 << 10
		go watchPeak(heapPath, stop, done)
	}
	var peakRSS chan string
	if os.Getenv("SYMBOLIZE_SMAPS") != "" {
		peakRSS = make(chan string)
		go watchRSS(stopRSS, peakRSS)
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
	if peakRSS != nil {
		close(stopRSS)
		fmt.Fprint(os.Stderr, <-peakRSS)
		printMemory()
	}
	os.Exit(code)
}

// printMemory writes to standard error, at exit, where the process's
// resident pages are (SYMBOLIZE_SMAPS): the peak and the current resident
// set of /proc/self/status, every mapping holding at least 64 KB of it, and
// the runtime's own accounts. At exit of a run whose memory only grows, that
// is the peak's breakdown.
func printMemory() {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "Rss") {
				fmt.Fprintln(os.Stderr, "smaps:", l)
			}
		}
	}
	_, list := residentMappings("smaps: ")
	fmt.Fprint(os.Stderr, list)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "smaps: runtime HeapSys %d kB, HeapInuse %d kB, HeapReleased %d kB, StackSys %d kB, other Sys %d kB\n",
		ms.HeapSys>>10, ms.HeapInuse>>10, ms.HeapReleased>>10, ms.StackSys>>10,
		(ms.Sys-ms.HeapSys-ms.StackSys)>>10)
}

// watchRSS polls /proc/self/smaps every millisecond and sends, once stop
// is closed, the mappings of the largest resident set it saw. Its reads
// allocate: on a run whose heap is the peak, the heap figure comes out
// higher than without it (the C++ program's 200,000 addresses: 108 MB of
// heap against 113 MB of VmHWM without the poller).
func watchRSS(stop <-chan struct{}, peak chan<- string) {
	best, bestKB := "", 0
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if total, list := residentMappings("smaps peak: "); total > bestKB {
			best, bestKB = fmt.Sprintf("smaps peak: %d kB resident\n", total)+list, total
			if p := os.Getenv("SYMBOLIZE_SMAPS_FILE"); p != "" {
				best += fileSections(p)
			}
		}
		select {
		case <-stop:
			peak <- best
			return
		case <-tick.C:
		}
	}
}

// residentMappings reads /proc/self/smaps and returns the resident set in
// kB and a line for each mapping holding at least 64 kB of it, each line
// starting with prefix. A mapping that grew while the file was read can
// show twice: its first line counts.
func residentMappings(prefix string) (total int, list string) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, ""
	}
	var sb strings.Builder
	var mapping, lastStart string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-"):
			mapping = l
		case len(f) == 3 && f[0] == "Rss:":
			start, _, _ := strings.Cut(mapping, "-")
			if start == lastStart {
				continue
			}
			lastStart = start
			kb, _ := strconv.Atoi(f[1])
			total += kb
			if kb >= 64 {
				fmt.Fprintf(&sb, "%s%7d kB %s\n", prefix, kb, mapping)
			}
		}
	}
	return total, sb.String()
}

// fileSections returns, for the mapping of the ELF file at path, how many
// of each section's pages are in the process's resident set (present in
// /proc/self/pagemap: mincore would tell the page cache's), one line a
// section holding any, the largest first (SYMBOLIZE_SMAPS_FILE). It is read
// just after the smaps read that found the peak: where the command gives
// pages back as it goes, a moment later can show fewer than the mapping's
// line.
func fileSections(path string) string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	var lo, hi uint64
	for _, l := range strings.Split(string(maps), "\n") {
		if f := strings.Fields(l); len(f) == 6 && f[5] == path && f[2] == "00000000" {
			a, b, _ := strings.Cut(f[0], "-")
			lo, _ = strconv.ParseUint(a, 16, 64)
			hi, _ = strconv.ParseUint(b, 16, 64)
			break
		}
	}
	if hi <= lo {
		return ""
	}
	pages := (hi - lo + 4095) / 4096
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return ""
	}
	defer pm.Close()
	raw := make([]byte, 8*pages)
	if _, err := pm.ReadAt(raw, int64(lo/4096*8)); err != nil {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	type count struct {
		name string
		kb   int
	}
	var counts []count
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		n := 0
		for p := s.Offset / 4096; p < (s.Offset+s.Size+4095)/4096 && p < pages; p++ {
			n += int(raw[8*p+7] >> 7) // bit 63: present
		}
		if n > 0 {
			counts = append(counts, count{s.Name, 4 * n})
		}
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i].kb > counts[j].kb })
	var sb strings.Builder
	for _, c := range counts {
		fmt.Fprintf(&sb, "smaps peak: %7d kB of %s\n", c.kb, c.name)
	}
	return sb.String()
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
