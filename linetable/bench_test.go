package linetable

import (
	"debug/dwarf"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchBinary is cmd/go built once into os.TempDir() and reused by later
// runs: a large Go binary with a few hundred line programs. The
// environment variable LINETABLE_BENCH_BIN names another ELF file to
// benchmark instead (a C++ program's separate debug file, say).
var benchBinary = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("LINETABLE_BENCH_BIN"); p != "" {
		return p, nil
	}
	dir := filepath.Join(os.TempDir(), "symbolize-linetable-bench")
	p := filepath.Join(dir, "go")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := p + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "cmd/go")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
})

type benchInput struct {
	line  []byte
	opts  Options
	units []uint64
	rows  int
	d     *dwarf.Data
	cus   []*dwarf.Entry
}

var benchData = sync.OnceValues(func() (*benchInput, error) {
	p, err := benchBinary()
	if err != nil {
		return nil, err
	}
	fx, err := loadFixture(p)
	if err != nil {
		return nil, err
	}
	in := &benchInput{line: fx.line, opts: fx.opts}
	for off, err := range Units(fx.line, &fx.opts) {
		if err != nil {
			return nil, err
		}
		in.units = append(in.units, off)
	}
	f, err := elf.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if in.d, err = f.DWARF(); err != nil {
		return nil, err
	}
	r := in.d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		r.SkipChildren()
		if _, ok := e.Val(dwarf.AttrStmtList).(int64); ok {
			in.cus = append(in.cus, e)
		}
	}
	return in, nil
})

func loadBench(b *testing.B) *benchInput {
	in, err := benchData()
	if err != nil {
		b.Skipf("building cmd/go: %v", err)
	}
	return in
}

// BenchmarkDecode decodes every line program of cmd/go, with this package's
// Reader and with debug/dwarf's LineReader, reporting bytes of .debug_line
// per second (MB/s) and rows per second.
//
//	go test ./linetable/ -run '^$' -bench Decode -count 5
func BenchmarkDecode(b *testing.B) {
	in := loadBench(b)
	b.Run("linetable", func(b *testing.B) {
		b.SetBytes(int64(len(in.line)))
		b.ReportAllocs()
		rows := 0
		start, cpu := time.Now(), cpuTime()
		for b.Loop() {
			for _, off := range in.units {
				r, err := NewReader(in.line, off, &in.opts)
				if err != nil {
					b.Fatal(err)
				}
				var row Row
				for {
					err := r.Next(&row)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows++
				}
			}
		}
		reportRows(b, rows, start, cpu)
	})
	b.Run("linetable-batch", func(b *testing.B) {
		b.SetBytes(int64(len(in.line)))
		b.ReportAllocs()
		rows := 0
		start, cpu := time.Now(), cpuTime()
		var dst [128]Row
		for b.Loop() {
			for _, off := range in.units {
				r, err := NewReader(in.line, off, &in.opts)
				if err != nil {
					b.Fatal(err)
				}
				for {
					n, err := r.NextRows(dst[:])
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += n
				}
			}
		}
		reportRows(b, rows, start, cpu)
	})
	b.Run("linetable-batch-parallel", func(b *testing.B) {
		// GOMAXPROCS goroutines take units from a shared counter; units
		// are independent, so this is how a caller uses every core.
		b.SetBytes(int64(len(in.line)))
		b.ReportAllocs()
		procs := runtime.GOMAXPROCS(0)
		var rows atomic.Int64
		start, cpu := time.Now(), cpuTime()
		for b.Loop() {
			var next atomic.Int64
			var wg sync.WaitGroup
			for range procs {
				wg.Go(func() {
					var dst [128]Row
					n := 0
					for {
						u := int(next.Add(1) - 1)
						if u >= len(in.units) {
							break
						}
						r, err := NewReader(in.line, in.units[u], &in.opts)
						if err != nil {
							b.Error(err)
							return
						}
						for {
							k, err := r.NextRows(dst[:])
							if err == io.EOF {
								break
							}
							if err != nil {
								b.Error(err)
								return
							}
							n += k
						}
					}
					rows.Add(int64(n))
				})
			}
			wg.Wait()
		}
		reportRows(b, int(rows.Load()), start, cpu)
	})
	b.Run("debugdwarf", func(b *testing.B) {
		b.SetBytes(int64(len(in.line)))
		b.ReportAllocs()
		rows := 0
		start, cpu := time.Now(), cpuTime()
		for b.Loop() {
			for _, cu := range in.cus {
				lr, err := in.d.LineReader(cu)
				if err != nil {
					b.Fatal(err)
				}
				var e dwarf.LineEntry
				for {
					err := lr.Next(&e)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows++
				}
			}
		}
		reportRows(b, rows, start, cpu)
	})
}

// reportRows reports rows per wall-clock second and per CPU second (see
// cpuTime).
func reportRows(b *testing.B, rows int, start time.Time, cpu time.Duration) {
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/(cpuTime()-cpu).Seconds(), "rows/cpu-s")
}

// BenchmarkRows is BenchmarkDecode/linetable without the headers: Reset
// and re-read every unit, to show the per-row cost alone (zero allocations).
func BenchmarkRows(b *testing.B) {
	in := loadBench(b)
	var readers []*Reader
	for _, off := range in.units {
		r, err := NewReader(in.line, off, &in.opts)
		if err != nil {
			b.Fatal(err)
		}
		readers = append(readers, r)
	}
	b.SetBytes(int64(len(in.line)))
	b.ReportAllocs()
	rows := 0
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		for _, r := range readers {
			r.Reset()
			var row Row
			for r.Next(&row) == nil {
				rows++
			}
		}
	}
	reportRows(b, rows, start, cpu)
}

// BenchmarkRowsBatch is BenchmarkRows with NextRows and a 128-row buffer.
func BenchmarkRowsBatch(b *testing.B) {
	in := loadBench(b)
	var readers []*Reader
	for _, off := range in.units {
		r, err := NewReader(in.line, off, &in.opts)
		if err != nil {
			b.Fatal(err)
		}
		readers = append(readers, r)
	}
	b.SetBytes(int64(len(in.line)))
	b.ReportAllocs()
	rows := 0
	var dst [128]Row
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		for _, r := range readers {
			r.Reset()
			for {
				n, _ := r.NextRows(dst[:])
				if n == 0 {
					break
				}
				rows += n
			}
		}
	}
	reportRows(b, rows, start, cpu)
}

// BenchmarkLookup looks up every row address of every unit of cmd/go in
// that unit's Table.
func BenchmarkLookup(b *testing.B) {
	in := loadBench(b)
	var tabs []*Table
	var pcs [][]uint64
	for _, off := range in.units {
		t, err := NewTable(in.line, off, &in.opts)
		if err != nil {
			b.Fatal(err)
		}
		var p []uint64
		for s := range t.Sequences() {
			for r := range t.Rows(s) {
				p = append(p, r.Address+1)
			}
		}
		tabs, pcs = append(tabs, t), append(pcs, p)
	}
	b.ReportAllocs()
	n := 0
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		for i, t := range tabs {
			for _, pc := range pcs[i] {
				t.Lookup(pc)
				n++
			}
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "ns/lookup")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(n), "cpu-ns/lookup")
}

// BenchmarkNewTable builds the Table of every unit of cmd/go.
func BenchmarkNewTable(b *testing.B) {
	in := loadBench(b)
	b.SetBytes(int64(len(in.line)))
	b.ReportAllocs()
	rows := 0
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		for _, off := range in.units {
			t, err := NewTable(in.line, off, &in.opts)
			if err != nil {
				b.Fatal(err)
			}
			rows += t.Len()
		}
	}
	reportRows(b, rows, start, cpu)
}

// BenchmarkHeaders is BenchmarkDecode/linetable-batch without the rows:
// NewReader on every unit of cmd/go.
func BenchmarkHeaders(b *testing.B) {
	in := loadBench(b)
	b.SetBytes(int64(len(in.line)))
	b.ReportAllocs()
	start, cpu := time.Now(), cpuTime()
	n := 0
	for b.Loop() {
		for _, off := range in.units {
			if _, err := NewReader(in.line, off, &in.opts); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "ns/header")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(n), "cpu-ns/header")
}
