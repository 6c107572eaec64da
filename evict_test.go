package symbolize

import (
	"context"
	"debug/elf"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/symbolize-go/symbolize/internal/mmap"
)

// TestBulkEvicts: a bulk batch over a mapped file with uncompressed DWARF
// (gcc's C++ nlohmann-json fixture) takes the file's pages out of the
// resident set as it goes, and answers as a Binary that kept them: the same
// frames at every address, in that batch and in a second one after. The
// Binary that looked every address up alone (not bulk) keeps what it read.
func TestBulkEvicts(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are evicted on linux")
	}
	const path = "testdata/elf/json-gcc-O2"
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
	for len(pcs) < 2*readAheadMin {
		pcs = append(pcs, pcs...)
	}
	opts := &Options{Inlines: true}
	ref, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := make([][]Frame, len(pcs))
	for i, pc := range pcs {
		if want[i], err = ref.AppendFrames(nil, pc); err != nil {
			t.Fatal(err)
		}
	}
	kept := mappedResident(t, ref)
	if kept < 1<<20 {
		t.Fatalf("%d bytes of the file resident after every lookup: too few to test", kept)
	}

	b, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for round := range 2 {
		for i, a := range b.Batch(context.Background(), pcs) {
			if a.Err != nil {
				t.Fatalf("round %d, %#x: %v", round, pcs[i], a.Err)
			}
			if d := cmp.Diff(want[i], slices.Clone(a.Frames)); d != "" {
				t.Fatalf("round %d, %#x: the bulk Binary answers otherwise (-want +got):\n%s", round, pcs[i], d)
			}
		}
		b.bg.Wait() // what runs beside the batch (the symbol table) is done
		if left := mappedResident(t, b); left > kept/4 {
			t.Errorf("round %d: %d bytes of the file resident after the bulk batch, %d after lookups alone", round, left, kept)
		}
	}
}

// mappedResident returns the resident bytes of b's mapped file.
func mappedResident(t *testing.T, b *Binary) uint64 {
	t.Helper()
	info, err := b.src.(*elfSource).dwarfFile().Section(".debug_info").Data()
	if err != nil {
		t.Fatal(err)
	}
	n, ok := mmap.Resident(info)
	if !ok {
		t.Skip("no resident size in /proc/self/smaps")
	}
	return n
}
