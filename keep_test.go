package symbolize

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeepRows: a sparse bulk batch over a Go binary, whose zlib
// .debug_line is inflated outside the heap and given back, builds its
// units' line tables keeping only the rows its addresses read
// (linetable.Options.Keep) and answers as lookups one by one. Lookups
// after it, whose rows were dropped with the section's bytes, answer alike
// from .debug_line inflated again, which goes back as the tables are
// rebuilt; so does a second batch.
func TestKeepRows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are given back on linux")
	}
	const path = "testdata/elf/go-trimpath"
	all := bulkPCs(t, path)
	slices.Sort(all)
	all = slices.Compact(all)
	defer func(n, m uint64) { releaseBatch, bulkMinInfo = n, m }(releaseBatch, bulkMinInfo)
	releaseBatch, bulkMinInfo = 1, 1 // bulk above minChunk; each program given back as it is done
	ref, want := answersOneByOne(t, path, nil, all)
	limit := int(denseMin*ref.dwarf.info.Size>>20) - 1 // the most a sparse batch holds
	if limit <= minChunk {
		t.Fatalf("%d bytes of .debug_info: a sparse batch cannot be bulk", ref.dwarf.info.Size)
	}
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var pick []int
	for i := 0; i < len(all) && len(pick) < limit; i += max(1, len(all)/limit) {
		pick = append(pick, i)
	}
	pcs := make([]uint64, len(pick))
	for k, i := range pick {
		pcs[k] = all[i]
	}
	kept := keptTables.Load()
	for k, a := range b.Batch(context.Background(), pcs) {
		if a.Err != nil {
			t.Fatalf("%#x: %v", a.Addr, a.Err)
		}
		if d := cmp.Diff(want[pick[k]], slices.Clone(a.Frames)); d != "" {
			t.Fatalf("%#x: the sparse batch answers otherwise (-want +got):\n%s", a.Addr, d)
		}
	}
	s := b.dwarf
	if !s.sparse.Load() || !s.bulk {
		t.Fatalf("a batch of %d addresses: sparse %v, bulk %v", len(pcs), s.sparse.Load(), s.bulk)
	}
	if n := keptTables.Load() - kept; n == 0 {
		t.Fatal("no line table kept rows")
	}
	b.bg.Wait() // readAhead: the release is set up
	s.lineRel.mu.Lock()
	released := s.lineRel.released
	s.lineRel.mu.Unlock()
	if released == 0 {
		t.Fatal("the batch gave back no line program")
	}
	if s.keep.Load() != nil {
		t.Fatal("the batch's addresses are still kept after it")
	}
	kept = keptTables.Load()
	for i, pc := range all {
		got, err := b.AppendFrames(nil, pc)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want[i], got); d != "" {
			t.Fatalf("%#x after the batch: answers otherwise (-want +got):\n%s", pc, d)
		}
	}
	if n := keptTables.Load() - kept; n != 0 {
		t.Errorf("lookups after the batch built %d tables keeping its rows", n)
	}
	s.lineRel.mu.Lock()
	againReleased := s.lineRel.againReleased
	s.lineRel.mu.Unlock()
	if s.again == nil || againReleased == 0 {
		t.Errorf("the lookups after the batch inflated .debug_line again: %v; gave back %d bytes of it", s.again != nil, againReleased)
	}
	for i, a := range b.Batch(context.Background(), all) {
		if d := cmp.Diff(want[i], slices.Clone(a.Frames)); d != "" || a.Err != nil {
			t.Fatalf("%#x, second batch: %v (-want +got):\n%s", a.Addr, a.Err, d)
		}
	}
}
