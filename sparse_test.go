package symbolize

import (
	"context"
	"debug/elf"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/symbolize-go/symbolize/inline"
)

// TestSparseBatch: a batch with few addresses for the size of .debug_info
// (below denseMin per MiB) reads units lazily whatever their size, and
// answers as lookups one by one, which read small units whole: on every
// ELF fixture and split build with room for such a batch. It must reach
// small units read lazily in several of them.
func TestSparseBatch(t *testing.T) {
	paths, _ := filepath.Glob("testdata/elf/*")
	split, _ := filepath.Glob("testdata/split/*")
	lazySmall := 0
	for _, path := range append(paths, split...) {
		if filepath.Ext(path) != "" {
			continue // .debug and .dwp files are read through their binaries (directories do not open)
		}
		ref, err := Open(path, &Options{Inlines: true})
		if err != nil || ref.loadDWARF(0) == nil {
			if ref != nil {
				ref.Close()
			}
			continue
		}
		limit := int(denseMin*ref.dwarf.info.Size>>20) - 1
		ref.Close()
		if limit < 2 {
			continue
		}
		if f, err := elf.Open(path); err != nil {
			continue
		} else if syms, err := f.Symbols(); f.Close() != nil || err != nil || len(syms) == 0 {
			continue // stripped: bulkPCs needs function symbols
		}
		pcs := bulkPCs(t, path)
		// Spread over the file: every len/limit-th address.
		var pick []uint64
		for i := 0; i < len(pcs) && len(pick) < limit; i += max(1, len(pcs)/limit) {
			pick = append(pick, pcs[i])
		}
		_, want := answersOneByOne(t, path, &Options{Inlines: true}, pick)
		b, err := Open(path, &Options{Inlines: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range b.Batch(context.Background(), pick) {
			if a.Err != nil {
				t.Fatalf("%s, %#x: %v", path, a.Addr, a.Err)
			}
			if d := cmp.Diff(want[i], slices.Clone(a.Frames)); d != "" {
				t.Fatalf("%s, %#x: the sparse batch answers otherwise (-want +got):\n%s", path, a.Addr, d)
			}
		}
		if !b.dwarf.sparse.Load() {
			t.Errorf("%s: a batch of %d addresses over %d bytes of .debug_info is not sparse", path, len(pick), b.dwarf.info.Size)
		}
		b.dwarf.units.Range(func(_, v any) bool {
			us := v.(*unitState)
			if us.inl != nil && us.inl.Lazy() && us.unit != nil && us.unit.End-us.unit.DIEOffset < inline.DefaultLazyMinSize {
				lazySmall++
				return false
			}
			return true
		})
		b.Close()
	}
	if lazySmall < 5 {
		t.Errorf("small units read lazily in %d files, want at least 5", lazySmall)
	}
	t.Logf("small units read lazily in %d files", lazySmall)
}

// TestSparseBatchesAdd: the batches of a Binary count together, so a stream
// of small batches turns dense once their sum is.
func TestSparseBatchesAdd(t *testing.T) {
	b, err := Open("testdata/elf/go-trimpath", &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := b.loadDWARF(0)
	if s == nil {
		t.Fatal("no DWARF")
	}
	dense := int(denseMin * s.info.Size >> 20) // about the first dense total
	if dense < 40 {
		t.Fatalf("%d bytes of .debug_info: too few to test", s.info.Size)
	}
	step := dense / 4
	for total := step; total < dense+2*step; total += step {
		s.noteBatch(step, func() []uint64 { return nil })
		if want := uint64(total)<<20 < denseMin*s.info.Size; s.sparse.Load() != want {
			t.Fatalf("after %d addresses in batches of %d: sparse %v", total, step, !want)
		}
	}
	if s.sparse.Load() {
		t.Fatal("still sparse past the dense total")
	}
}
