package symbolize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// benchRequests maps every ELF fixture at a base of its own and returns
// requests for every 3rd address of each one's .text, interleaved across
// files as a profile's samples are.
func benchRequests(b *testing.B) []Request {
	paths, _ := filepath.Glob("testdata/elf/*")
	var reqs []Request
	k := 0
	for _, path := range paths {
		if st, err := os.Stat(path); err != nil || st.Size() < 4096 || filepath.Ext(path) == ".debug" {
			continue
		}
		data, _ := os.ReadFile(path)
		if len(data) < 20 || string(data[:4]) != "\x7fELF" || data[4] != 2 || data[16] == 1 {
			continue // 64-bit executables and libraries only
		}
		k++
		base := uint64(k) << 36
		maps := loadMaps(b, path, base)
		if len(maps) == 0 {
			continue
		}
		for _, a := range textAddrs(b, path) {
			if a%3 != 0 {
				continue
			}
			pc := base + a
			for i := range maps {
				if maps[i].Start <= pc && pc < maps[i].End {
					reqs = append(reqs, Request{Mapping: &maps[i], PC: pc})
					break
				}
			}
		}
	}
	for i := range reqs {
		j := (i * 7919) % len(reqs)
		reqs[i], reqs[j] = reqs[j], reqs[i]
	}
	return reqs
}

// BenchmarkModulesBatch symbolizes a cold many-module batch (every file
// opened and its units built) on one core and on two, in one run: the
// ratio of the two is the batch's parallel speed-up.
func BenchmarkModulesBatch(b *testing.B) {
	reqs := benchRequests(b)
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.ReportMetric(float64(len(reqs)), "addrs/op")
			cpu0 := processCPUTime()
			for b.Loop() {
				mods := NewModules(&ModulesOptions{Options: Options{Inlines: true}})
				n := 0
				for _, a := range mods.Batch(context.Background(), reqs) {
					n += len(a.Frames)
				}
				mods.Close()
				if n < len(reqs) {
					b.Fatalf("%d frames for %d addresses", n, len(reqs))
				}
			}
			// CPU time per batch: with 2 cores, what the parallel run
			// spends beyond the serial one is its overhead.
			b.ReportMetric(float64(processCPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
