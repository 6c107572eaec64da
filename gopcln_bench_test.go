package symbolize_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// goBenchBinaries are cmd/go built twice into os.TempDir() (and reused by
// later runs): with -ldflags='-s -w', answered from .gopclntab, and with
// DWARF, answered from it.
var goBenchBinaries = sync.OnceValues(func() ([2]string, error) {
	dir := filepath.Join(os.TempDir(), "symbolize-gopcln-bench")
	out := [2]string{filepath.Join(dir, "go-sw"), filepath.Join(dir, "go-dw")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, err
	}
	for i, flags := range [][]string{{"-ldflags=-s -w"}, nil} {
		if _, err := os.Stat(out[i]); err == nil {
			continue
		}
		tmp := out[i] + ".tmp"
		cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", tmp, "cmd/go")...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return out, err
		}
		if err := os.Rename(tmp, out[i]); err != nil {
			return out, err
		}
	}
	return out, nil
})

// goBenchPCs returns n addresses spread evenly over every function of
// the -s -w cmd/go's table, sorted.
func goBenchPCs(b *testing.B, sw *symbolize.Binary, n int) []uint64 {
	tab := symbolize.GoTableForTest(sw)
	var size uint64
	for i := 0; i < tab.NumFuncs(); i++ {
		fn, _ := tab.Func(i)
		size += fn.End - fn.Entry
	}
	step := max(size/uint64(n), 1)
	var pcs []uint64
	var skip uint64
	for i := 0; i < tab.NumFuncs() && len(pcs) < n; i++ {
		fn, _ := tab.Func(i)
		pc := fn.Entry + skip
		for ; pc < fn.End && len(pcs) < n; pc += step {
			pcs = append(pcs, pc)
		}
		skip = pc - fn.End
	}
	return pcs
}

// BenchmarkGoPCLN symbolizes 200,000 addresses of cmd/go, inlined frames
// included: pclntab on the -s -w build, dwarf on the twin with DWARF (the
// same code at the same addresses). batch is one sorted Batch, lookup one
// AppendFrames per address in shuffled order, both warm (the binary
// opened and every address answered once before timing); cold is Open
// and one address's answer.
func BenchmarkGoPCLN(b *testing.B) {
	paths, err := goBenchBinaries()
	if err != nil {
		b.Skip("cannot build cmd/go:", err)
	}
	sw, err := symbolize.Open(paths[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	pcs := goBenchPCs(b, sw, 200_000)
	sw.Close()
	shuffled := append([]uint64(nil), pcs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	opts := &symbolize.Options{Inlines: true}
	for i, name := range []string{"pclntab", "dwarf"} {
		path := paths[i]
		b.Run(name+"/batch", func(b *testing.B) {
			bin, err := symbolize.Open(path, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer bin.Close()
			batch := func() int {
				n := 0
				for _, a := range bin.Batch(context.Background(), pcs) {
					n += len(a.Frames)
				}
				return n
			}
			batch()
			b.ResetTimer()
			cpu := splitCPUTime()
			for b.Loop() {
				batch()
			}
			b.ReportMetric(float64(splitCPUTime()-cpu)/float64(b.N*len(pcs)), "cpu-ns/pc")
		})
		b.Run(name+"/lookup", func(b *testing.B) {
			bin, err := symbolize.Open(path, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer bin.Close()
			var fr []symbolize.Frame
			for _, pc := range shuffled {
				fr, _ = bin.AppendFrames(fr[:0], pc)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := splitCPUTime()
			for b.Loop() {
				for _, pc := range shuffled {
					fr, _ = bin.AppendFrames(fr[:0], pc)
				}
			}
			b.ReportMetric(float64(splitCPUTime()-cpu)/float64(b.N*len(pcs)), "cpu-ns/pc")
		})
		b.Run(name+"/cold", func(b *testing.B) {
			pc := pcs[len(pcs)/2]
			for b.Loop() {
				bin, err := symbolize.Open(path, opts)
				if err != nil {
					b.Fatal(err)
				}
				if fr, _ := bin.AppendFrames(nil, pc); fr[0].Source == symbolize.SourceNone {
					b.Fatalf("%#x: no answer", pc)
				}
				bin.Close()
			}
		})
	}
}
