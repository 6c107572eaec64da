package symbolize

import (
	"runtime"
	"testing"

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
	pcs := bulkPCs(t, path)
	opts := &Options{Inlines: true}
	ref, want := answersOneByOne(t, path, opts, pcs)
	kept := mappedResident(t, ref)
	if kept < 1<<20 {
		t.Fatalf("%d bytes of the file resident after every lookup: too few to test", kept)
	}
	b, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	bulkRounds(t, b, pcs, want, func(round int) {
		if left := mappedResident(t, b); left > kept/4 {
			t.Errorf("round %d: %d bytes of the file resident after the bulk batch, %d after lookups alone", round, left, kept)
		}
	})
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
