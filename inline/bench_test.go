package inline

import (
	"testing"
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
