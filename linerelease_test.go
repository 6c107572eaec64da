package symbolize

import (
	"context"
	"debug/elf"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBulkReleasesLinePrograms: a batch large enough to be bulk, over the
// functions of a Go binary (its zlib .debug_line inflated outside the
// heap, a mapped file), gives the line programs back once every unit that
// names them has its table, and answers as a Binary that gave nothing back:
// the same frames at every address, in that batch and in a second one
// after. A one-address Binary (not bulk) gives nothing back.
func TestBulkReleasesLinePrograms(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are given back on linux")
	}
	const path = "testdata/elf/go-trimpath"
	pcs := bulkPCs(t, path)
	defer func(n uint64) { releaseBatch = n }(releaseBatch)
	releaseBatch = 1 // each program as it is done: not every unit has code
	ref, want := answersOneByOne(t, path, nil, pcs)
	if ref.dwarf.lineRel.released != 0 {
		t.Errorf("a Binary that was not bulk gave back %d bytes of line programs", ref.dwarf.lineRel.released)
	}
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	bulkRounds(t, b, pcs, want, func(round int) {
		r := &b.dwarf.lineRel
		r.mu.Lock()
		released, stopped, progs := r.released, r.stopped, len(r.progs)
		r.mu.Unlock()
		if stopped || progs == 0 || released == 0 || released > b.dwarf.line.Size {
			t.Fatalf("round %d: %d line programs, %d bytes of them given back of %d (stopped %v)",
				round, progs, released, b.dwarf.line.Size, stopped)
		}
	})
}

// answersOneByOne opens path and answers each of pcs with its own
// AppendFrames (no bulk batch); the Binary is closed when the test ends.
func answersOneByOne(t testing.TB, path string, opts *Options, pcs []uint64) (*Binary, [][]Frame) {
	t.Helper()
	ref, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	want := make([][]Frame, len(pcs))
	for i, pc := range pcs {
		if want[i], err = ref.AppendFrames(nil, pc); err != nil {
			t.Fatal(err)
		}
	}
	return ref, want
}

// bulkRounds runs two bulk batches of pcs on b, each required to answer
// want, and calls check after each once b's background work is done.
func bulkRounds(t *testing.T, b *Binary, pcs []uint64, want [][]Frame, check func(round int)) {
	t.Helper()
	for round := range 2 {
		for i, a := range b.Batch(context.Background(), pcs) {
			if a.Err != nil {
				t.Fatalf("round %d, %#x: %v", round, pcs[i], a.Err)
			}
			if d := cmp.Diff(want[i], slices.Clone(a.Frames)); d != "" {
				t.Fatalf("round %d, %#x: the bulk Binary answers otherwise (-want +got):\n%s", round, pcs[i], d)
			}
		}
		b.bg.Wait() // readAhead and the symbol table, beside the batch
		check(round)
	}
}

// bulkPCs returns the start and the middle of every sized function of the
// ELF file at path, repeated until there are enough for a bulk batch.
func bulkPCs(t testing.TB, path string) []uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var pcs []uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			pcs = append(pcs, s.Value, s.Value+s.Size/2)
		}
	}
	if len(pcs) == 0 {
		t.Fatalf("%s: no sized functions", path)
	}
	for len(pcs) < 2*readAheadMin {
		pcs = append(pcs, pcs...)
	}
	return pcs
}
