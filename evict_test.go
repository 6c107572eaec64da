package symbolize

import (
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

// TestPassedEvicts: a Binary that never ran a bulk batch still gives its
// units' scans a Passed that takes the pages of the DIEs handed to it out
// of the resident set (gcc's C++ nlohmann-json fixture, one lookup at a
// time), and nothing else: half of .debug_info handed over leaves the
// other half resident, and every address answers as before.
func TestPassedEvicts(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are evicted on linux")
	}
	const path = "testdata/elf/json-gcc-O2"
	pcs := bulkPCs(t, path)
	b, want := answersOneByOne(t, path, &Options{Inlines: true}, pcs)
	if b.dwarf == nil || b.dwarf.passed == nil {
		t.Fatal("the DWARF module has no Passed for its scans")
	}
	info, err := b.src.(*elfSource).dwarfFile().Section(".debug_info").Data()
	if err != nil {
		t.Fatal(err)
	}
	var sum byte
	for _, c := range info {
		sum += c // every page resident
	}
	before := mappedResident(t, b)
	half := len(info) / 2
	if uint64(half) < 256<<10 || before < uint64(len(info)) {
		t.Fatalf("%d bytes resident of a %d-byte .debug_info: too few to test", before, len(info))
	}
	b.dwarf.passed(info[half:])
	after := mappedResident(t, b)
	if dropped := before - after; dropped+(128<<10) < uint64(len(info)-half) || dropped > uint64(len(info)-half)+(128<<10) {
		t.Errorf("handing over %d bytes of DIEs dropped %d resident bytes (%d before)", len(info)-half, dropped, before)
	}
	b.dwarf.passed(slices.Clone(info[:half])) // a copy: not the file's pages
	if now := mappedResident(t, b); now+(64<<10) < after {
		t.Errorf("handing over a copy dropped %d resident bytes", after-now)
	}
	for i, pc := range pcs {
		got, err := b.AppendFrames(nil, pc)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want[i], got); d != "" {
			t.Fatalf("%#x: after Passed (-before +after):\n%s", pc, d)
		}
	}
	_ = sum
}
