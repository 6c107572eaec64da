package inline

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

func TestNodeSize(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s != 48 {
		t.Errorf("node is %d bytes, want 48", s)
	}
	if s := unsafe.Sizeof(snode{}); s != 36 {
		t.Errorf("snode is %d bytes, want 36", s)
	}
	if s := unsafe.Sizeof(leanNode{}); s != 12 {
		t.Errorf("leanNode is %d bytes, want 12", s)
	}
}

// TestCompactNodes builds every unit of the fixtures, whole and lazy, with
// the nodes kept as snodes and as nodes, and requires the same answers and
// subroutines at every span start and end.
func TestCompactNodes(t *testing.T) {
	var checked, compact int
	eachUnit(t, func(path string, o *object, h dwinfo.Header, u *dwinfo.Unit) {
		build := func(lazy bool) *Index {
			ix, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table, Lazy: lazy, LazyMinSize: 1})
			return ix
		}
		compactNodes = false
		want, wantLazy := build(false), build(true)
		compactNodes = true
		got, gotLazy := build(false), build(true)
		if got.small != nil {
			compact++
		}
		var a, b []Frame
		var pcs []uint64
		wlo, whi := want.spanLo(), want.spanHi()
		for i := range wlo {
			pcs = append(pcs, wlo[i], whi[i]-1)
		}
		for _, pc := range pcs {
			for _, p := range [][2]*Index{{want, got}, {wantLazy, gotLazy}} {
				a = p[0].AppendChain(a[:0], pc)
				wd, wok := p[0].Subroutine(pc)
				b = p[1].AppendChain(b[:0], pc)
				d, ok := p[1].Subroutine(pc)
				if !slices.Equal(a, b) || d != wd || ok != wok {
					t.Fatalf("%s: unit %#x at %#x: %+v %#x %v, want %+v %#x %v", path, h.Offset, pc, b, d, ok, a, wd, wok)
				}
				checked++
			}
		}
	})
	if checked == 0 || compact == 0 {
		t.Fatalf("%d lookups, %d compact units", checked, compact)
	}
	t.Logf("%d lookups, %d compact units", checked, compact)
}

// TestBigUnitDies builds every unit of the fixtures as if it were 2 GiB
// or more (its DIE offsets in chains.dies), whole and lazy, and requires
// the answers and subroutines of the usual Index.
func TestBigUnitDies(t *testing.T) {
	var checked int
	eachUnit(t, func(path string, o *object, h dwinfo.Header, u *dwinfo.Unit) {
		build := func(lazy bool) *Index {
			ix, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table, Lazy: lazy, LazyMinSize: 1})
			return ix
		}
		want := build(false)
		bigUnitMin = 0
		big, bigLazy := build(false), build(true)
		bigUnitMin = 1 << 31
		if big.dies == nil && big.nodeCount() > 0 {
			t.Fatalf("%s: unit %#x: no dies built", path, h.Offset)
		}
		var a, b []Frame
		for _, pc := range want.spanLo() {
			a = want.AppendChain(a[:0], pc)
			wd, wok := want.Subroutine(pc)
			for _, ix := range []*Index{big, bigLazy} {
				b = ix.AppendChain(b[:0], pc)
				d, ok := ix.Subroutine(pc)
				if !slices.Equal(a, b) || d != wd || ok != wok {
					t.Fatalf("%s: unit %#x at %#x: %+v %#x %v, want %+v %#x %v", path, h.Offset, pc, b, d, ok, a, wd, wok)
				}
				checked++
			}
		}
	})
	if checked == 0 {
		t.Fatal("no address checked")
	}
	t.Logf("%d lookups", checked)
}

// TestDetails: the chunks of details hold every slot once, in order, and
// a node stored is the node read back.
func TestDetails(t *testing.T) {
	var d details
	prevK, prevJ := 0, uint32(0)
	for i := uint32(0); i < 5000; i++ {
		k, j := detailChunk(i)
		if i > 0 && !(k == prevK && j == prevJ+1 || k == prevK+1 && j == 0 && prevJ == 16<<prevK-1) {
			t.Fatalf("slot %d at chunk %d index %d, after %d/%d", i, k, j, prevK, prevJ)
		}
		prevK, prevJ = k, j
		if s := d.add(&node{low: uint64(i)}); s != i+1 {
			t.Fatalf("add %d returned slot %d", i, s)
		}
	}
	for i := uint32(0); i < 5000; i++ {
		if got := d.at(i + 1).low; got != uint64(i) {
			t.Fatalf("slot %d holds %d", i+1, got)
		}
	}
}
