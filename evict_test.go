package symbolize

import (
	"runtime"
	"slices"
	"sync"
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
	if b.dwarf == nil || b.dwarf.handBack == nil {
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
	b.dwarf.handBack(info[half:])
	after := mappedResident(t, b)
	if dropped := before - after; dropped+(128<<10) < uint64(len(info)-half) || dropped > uint64(len(info)-half)+(128<<10) {
		t.Errorf("handing over %d bytes of DIEs dropped %d resident bytes (%d before)", len(info)-half, dropped, before)
	}
	b.dwarf.handBack(slices.Clone(info[:half])) // a copy: not the file's pages
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

// TestHandBackOnce: the first lookup of a Binary, not bulk, hands back
// (Binary.handBack) the bytes it read once to index them: the line program
// of the unit it built a table for, and, where it found its unit by
// reading every unit's ranges (clang writes no .debug_aranges), the range
// lists and address table those ranges were read from. The answer is the
// one of a Binary that kept them.
func TestHandBackOnce(t *testing.T) {
	const path = "testdata/elf/cpp-clang14-O2"
	pcs := bulkPCs(t, path)
	_, want := answersOneByOne(t, path, &Options{Inlines: true}, pcs[:1])
	b, err := Open(path, &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := b.loadDWARF(pcs[0])
	if s == nil || s.handBack == nil {
		t.Fatal("no DWARF module, or no handBack")
	}
	var mu sync.Mutex
	var given [][]byte
	s.handBack = func(b []byte) {
		mu.Lock()
		given = append(given, b)
		mu.Unlock()
	}
	got, err := b.AppendFrames(nil, pcs[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[0], got); d != "" {
		t.Fatalf("%#x: (-want +got):\n%s", pcs[0], d)
	}
	gave := func(b []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range given {
			if len(g) == len(b) && len(b) > 0 && &g[0] == &b[0] {
				return true
			}
		}
		return false
	}
	off, ok := s.index.Lookup(pcs[0])
	if !ok {
		t.Fatalf("%#x: no unit", pcs[0])
	}
	v, _ := s.units.Load(off)
	u := v.(*unitState).unit
	line, err := s.line.Unit(u.Root.StmtList)
	if err != nil || u.Root.StmtList >= uint64(len(line)) {
		t.Fatalf("the unit's line program: %v", err)
	}
	if !gave(line[u.Root.StmtList:]) {
		t.Errorf("the line program of unit %#x was not handed back (%d slices were)", off, len(given))
	}
	if runtime.GOMAXPROCS(0) > 1 && speculation {
		if len(s.rnglists) == 0 || len(s.addr) == 0 {
			t.Fatal("the fixture has no .debug_rnglists or .debug_addr")
		}
		if !gave(s.rnglists) || !gave(s.addr) {
			t.Errorf("the range lists (%v) and the address table (%v) read to find the unit were not handed back", gave(s.rnglists), gave(s.addr))
		}
	}
}
