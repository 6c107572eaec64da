package inline

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// chainFixture prepares the Indexes of a fixture for the sampled PCs.
func chainFixture(tb testing.TB, name string) (*object, []uint64) {
	tb.Helper()
	o, ok := openObject(tb, "../testdata/elf/"+name)
	if !ok {
		tb.Skip("fixture missing")
	}
	pcs := samplePCs(funcSyms(o.f), 4000)
	var kept []uint64
	for _, pc := range pcs {
		if ui := o.unit(tb, pc); ui != nil && ui.ix != nil {
			kept = append(kept, pc)
		}
	}
	if len(kept) == 0 {
		tb.Skip("no covered PCs")
	}
	return o, kept
}

// TestAppendChainNoAlloc: with room in dst, a lookup allocates nothing.
func TestAppendChainNoAlloc(t *testing.T) {
	o, pcs := chainFixture(t, "cpp-gcc-O3")
	dst := make([]Frame, 0, 64)
	var ixs []*Index
	for _, pc := range pcs {
		ixs = append(ixs, o.unit(t, pc).ix)
	}
	deep := 0
	allocs := testing.AllocsPerRun(5, func() {
		for i, pc := range pcs {
			dst = ixs[i].AppendChain(dst[:0], pc)
			deep = max(deep, len(dst))
		}
	})
	if allocs != 0 {
		t.Errorf("AppendChain allocated %v times per run of %d lookups", allocs, len(pcs))
	}
	if deep < 3 {
		t.Errorf("deepest chain %d: fixture lost its inlining?", deep)
	}
}

func BenchmarkAppendChain(b *testing.B) {
	for _, name := range []string{"cpp-gcc-O3", "cpp-clang14-O2", "c-gcc-O2-dwarf4"} {
		b.Run(name, func(b *testing.B) {
			o, pcs := chainFixture(b, name)
			ixs := make([]*Index, len(pcs))
			for i, pc := range pcs {
				ixs[i] = o.unit(b, pc).ix
			}
			dst := make([]Frame, 0, 64)
			b.ReportAllocs()
			b.ResetTimer()
			frames := 0
			for i := 0; i < b.N; i++ {
				k := i % len(pcs)
				dst = ixs[k].AppendChain(dst[:0], pcs[k])
				frames += len(dst)
			}
			b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
		})
	}
}

// BenchmarkBuild indexes every unit of a fixture (DIE walk, address map,
// names); line tables are built once outside the timer.
func BenchmarkBuild(b *testing.B) {
	for _, name := range []string{"cpp-gcc-O3", "json-gcc-O2", "go-trimpath"} {
		b.Run(name, func(b *testing.B) {
			o, ok := openObject(b, "../testdata/elf/"+name)
			if !ok {
				b.Skip("fixture missing")
			}
			hs, _ := o.d.Headers()
			var us []*unitIx
			for _, h := range hs {
				if u, err := o.d.LoadUnit(h); err == nil {
					us = append(us, &unitIx{u: u})
					o.table(u)
				}
			}
			b.SetBytes(int64(len(o.secs.Info)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, ui := range us {
					Build(o.d, ui.u, o.table(ui.u), &Options{LineTable: o.table})
				}
			}
		})
	}
}

// Real-data benchmark: a large gcc C++ library (Debian's libradosgw.so.2,
// 314 MB of DWARF 5 .debug_info). The debug file and a list of hex
// addresses in the library come from $INLINE_BENCH_DEBUG and
// $INLINE_BENCH_ADDRS; the benchmark skips when either is missing.
var (
	rgwOnce  sync.Once
	rgwObj   *object
	rgwUnits []*dwinfo.Unit
)

const (
	rgwDebugDefault = "/root/.cache/symbolize-bench/root/usr/lib/debug/.build-id/4a/575717325cb5e3582c4eab9ac943bf54b76157.debug"
	rgwAddrsDefault = "/tmp/symbolize-bench/rgw.addrs"
)

// rgwSample loads the debug file once and returns the units covering the
// benchmark addresses, in section order, with their line tables built.
func rgwSample(b testing.TB) (*object, []*dwinfo.Unit) {
	rgwOnce.Do(func() {
		path, addrs := os.Getenv("INLINE_BENCH_DEBUG"), os.Getenv("INLINE_BENCH_ADDRS")
		if path == "" {
			path = rgwDebugDefault
		}
		if addrs == "" {
			addrs = rgwAddrsDefault
		}
		text, err := os.ReadFile(addrs)
		if err != nil {
			return
		}
		if _, err := os.Stat(path); err != nil {
			return
		}
		o, ok := openObject(b, path)
		if !ok {
			return
		}
		seen := map[uint64]bool{}
		var offs []uint64
		for _, line := range strings.Fields(string(text)) {
			pc, err := strconv.ParseUint(strings.TrimPrefix(line, "0x"), 16, 64)
			if err != nil {
				continue
			}
			if off, ok := o.ix.Lookup(pc); ok && !seen[off] {
				seen[off] = true
				offs = append(offs, off)
			}
		}
		slices.Sort(offs)
		if n, err := strconv.Atoi(os.Getenv("INLINE_BENCH_UNITS")); err == nil && n > 0 && n < len(offs) {
			// An even sample across the section.
			var s []uint64
			for i := range n {
				s = append(s, offs[i*len(offs)/n])
			}
			offs = s
		}
		for _, off := range offs {
			u, err := o.d.UnitAt(off)
			if err != nil {
				continue
			}
			o.table(u)
			rgwUnits = append(rgwUnits, u)
		}
		rgwObj = o
	})
	if rgwObj == nil || len(rgwUnits) == 0 {
		b.Skip("libradosgw debug file or addresses missing")
	}
	return rgwObj, rgwUnits
}

// BenchmarkBuildRGW indexes the libradosgw units that the benchmark
// addresses fall in; one op is one unit.
func BenchmarkBuildRGW(b *testing.B) {
	o, us := rgwSample(b)
	var bytes int64
	for _, u := range us {
		bytes += int64(u.End - u.Offset)
	}
	b.SetBytes(bytes / int64(len(us)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	kept, spans, nodes := 0, 0, 0
	for i := 0; i < b.N; i++ {
		u := us[i%len(us)]
		ix, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table})
		kept += ix.footprint()
		spans, nodes = spans+len(ix.spanLo()), nodes+ix.nodeCount()
	}
	b.ReportMetric(float64(kept)/float64(b.N), "ix-B/op")
	b.ReportMetric(float64(spans)/float64(b.N), "spans/op")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	// CPU time (the GC's included) varies less than wall time on a
	// shared machine.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(us)), "units")
}

// footprint estimates the bytes an Index keeps (its arrays and strings,
// not the line table it shares).
func (ix *Index) footprint() int {
	n := int(unsafe.Sizeof(*ix)) + cap(ix.nodes)*int(unsafe.Sizeof(node{})) + cap(ix.small)*int(unsafe.Sizeof(snode{})) +
		8*(cap(ix.lo)+cap(ix.hi)) + 4*(cap(ix.lo32)+cap(ix.hi32)) + 4*cap(ix.node) + 16*(cap(ix.strs)+cap(ix.files)) + cap(ix.fileOK)
	for _, s := range ix.strs {
		n += len(s)
	}
	return n
}

// BenchmarkLazy compares, per fixture, the whole-unit Build with the lazy
// one: building every unit's Index and looking up one address in each
// unit ("one"), or every span start of the whole-unit map, which reads
// every function's tree ("all").
func BenchmarkLazy(b *testing.B) {
	for _, name := range []string{"cpp-gcc-O3", "cpp-clang14-O2", "go-trimpath"} {
		o, ok := openObject(b, "../testdata/elf/"+name)
		if !ok {
			continue
		}
		hs, _ := o.d.Headers()
		type unitPCs struct {
			u   *dwinfo.Unit
			pcs []uint64
		}
		var us []unitPCs
		for _, h := range hs {
			u, err := o.d.LoadUnit(h)
			if err != nil {
				continue
			}
			ix, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table})
			if len(ix.spanLo()) > 0 {
				us = append(us, unitPCs{u, slices.Clone(ix.spanLo())})
			}
		}
		for _, mode := range []string{"whole", "lazy"} {
			for _, n := range []string{"one", "all"} {
				b.Run(name+"/"+mode+"/"+n, func(b *testing.B) {
					b.ReportAllocs()
					var dst []Frame
					for i := 0; i < b.N; i++ {
						for _, up := range us {
							ix, _ := Build(o.d, up.u, o.table(up.u), &Options{LineTable: o.table, Lazy: mode == "lazy"})
							pcs := up.pcs
							if n == "one" {
								pcs = pcs[len(pcs)/2:][:1]
							}
							for _, pc := range pcs {
								dst = ix.AppendChain(dst[:0], pc)
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkLazyScan builds the lazy Index of the unit holding one address
// of a large program (the template-heavy C++ program of bench/cxx/gen.sh:
// one op is the scan of its 40 MB unit) and looks the address up. The
// program comes from $INLINE_BENCH_CXX, the address (hex) from
// $INLINE_BENCH_CXX_PC (default 0xf5e09); the benchmark skips when the
// program is missing.
func BenchmarkLazyScan(b *testing.B) {
	path := os.Getenv("INLINE_BENCH_CXX")
	if path == "" {
		b.Skip("INLINE_BENCH_CXX not set")
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	pc := uint64(0xf5e09)
	if s := os.Getenv("INLINE_BENCH_CXX_PC"); s != "" {
		v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			b.Fatal(err)
		}
		pc = v
	}
	o, ok := openObject(b, path)
	if !ok {
		b.Skip("no DWARF")
	}
	off, ok := o.ix.Lookup(pc)
	if !ok {
		b.Skipf("no unit covers %#x", pc)
	}
	u, err := o.d.UnitAt(off)
	if err != nil {
		b.Fatal(err)
	}
	lt := o.table(u)
	b.SetBytes(int64(u.End - u.Offset))
	b.ReportAllocs()
	var dst []Frame
	cpu := cpuTime()
	for b.Loop() {
		ix, _ := Build(o.d, u, lt, &Options{LineTable: o.table, Lazy: true})
		dst = ix.AppendChain(dst[:0], pc)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(dst)), "frames")
}
