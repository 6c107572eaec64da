package inline

import (
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// TestBuildReuse: Builds share pooled scratch, so an Index must not
// depend on what earlier Builds saw. Every unit of two fixtures is built
// forward, then again backward with the fixtures interleaved, and every
// span's chain must come out the same.
func TestBuildReuse(t *testing.T) {
	type built struct {
		o  *object
		u  *dwinfo.Unit
		ix *Index
	}
	var first []built
	var objs []*object
	for _, name := range []string{"cpp-gcc-O3", "go-trimpath", "c-gcc-O2-dwarf4"} {
		o, ok := openObject(t, "../testdata/elf/"+name)
		if !ok {
			continue
		}
		objs = append(objs, o)
		hs, _ := o.d.Headers()
		for _, h := range hs {
			u, err := o.d.LoadUnit(h)
			if err != nil {
				continue
			}
			ix, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table})
			first = append(first, built{o, u, ix})
		}
	}
	if len(objs) == 0 {
		t.Skip("fixtures missing")
	}
	var a, b []Frame
	for i := len(first) - 1; i >= 0; i-- {
		f := first[i]
		again, _ := Build(f.o.d, f.u, f.o.table(f.u), &Options{LineTable: f.o.table})
		if again.Len() != f.ix.Len() || !slices.Equal(again.spanLo(), f.ix.spanLo()) || !slices.Equal(again.spanHi(), f.ix.spanHi()) || !slices.Equal(again.node, f.ix.node) {
			t.Fatalf("index %d: rebuild has %d nodes and %d spans, first %d and %d",
				i, again.Len(), len(again.spanLo()), f.ix.Len(), len(f.ix.spanLo()))
		}
		for _, lo := range f.ix.spanLo() {
			a = f.ix.AppendChain(a[:0], lo)
			b = again.AppendChain(b[:0], lo)
			if !slices.Equal(a, b) {
				t.Fatalf("index %d at %#x: first build %+v, rebuild %+v", i, lo, a, b)
			}
		}
	}
}
