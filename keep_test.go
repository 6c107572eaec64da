package symbolize

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keepFixture is the Go fixture whose zlib .debug_line, inflated outside
// the heap, a bulk batch gives back.
const keepFixture = "testdata/elf/go-trimpath"

// keepSetup is the start of the tests of kept rows: on Linux (elsewhere it
// skips t), with every program given back as it is done and every batch
// above minChunk addresses bulk (until t ends), it returns the sorted
// distinct addresses of bulkPCs on keepFixture, their answers looked up one
// by one, and the most addresses a sparse batch holds.
func keepSetup(t testing.TB) (all []uint64, want [][]Frame, limit int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("pages are given back on linux")
	}
	all = bulkPCs(t, keepFixture)
	slices.Sort(all)
	all = slices.Compact(all)
	n, m := releaseBatch, bulkMinInfo
	t.Cleanup(func() { releaseBatch, bulkMinInfo = n, m })
	releaseBatch, bulkMinInfo = 1, 1
	ref, want := answersOneByOne(t, keepFixture, nil, all)
	limit = int(denseMin*ref.dwarf.info.Size>>20) - 1
	if limit <= minChunk+1 {
		t.Fatalf("%d bytes of .debug_info: a sparse batch cannot be bulk", ref.dwarf.info.Size)
	}
	return all, want, limit
}

// TestKeepRows: a sparse bulk batch over a Go binary, whose zlib
// .debug_line is inflated outside the heap and given back, builds its
// units' line tables keeping only the rows its addresses read
// (linetable.Options.Keep) and answers as lookups one by one. Lookups
// after it, whose rows were dropped with the section's bytes, answer alike
// from .debug_line inflated again, which goes back as the tables are
// rebuilt; so does a second batch.
func TestKeepRows(t *testing.T) {
	all, want, limit := keepSetup(t)
	b, err := Open(keepFixture, nil)
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

// FuzzKeepBatches: on the Go fixture opened as a file (its zlib
// .debug_line inflated into memory that is given back), a stream of bulk
// batches answers every address as lookups one by one: the first batch
// sparse, its tables keeping only the rows its addresses read; the next of
// other addresses, which rebuild the tables whose rows the first dropped,
// from .debug_line inflated again; then lookups one at a time. The input
// picks the batches' sizes and addresses.
func FuzzKeepBatches(f *testing.F) {
	all, want, limit := keepSetup(f)
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 4})
	f.Add([]byte{0xff, 0xff, 0x10, 0, 0xaa, 0x55})
	f.Add([]byte("the second batch reads rows the first one dropped"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// in: the two batches' sizes (two bytes each), then the
		// addresses' indices into all (two bytes each), continued by a
		// generator seeded from in once it runs out.
		var seed [8]byte
		copy(seed[:], in)
		gen := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:]), uint64(len(in))))
		next := func() int {
			if len(in) >= 2 {
				v := binary.LittleEndian.Uint16(in)
				in = in[2:]
				return int(v)
			}
			return gen.IntN(1 << 16)
		}
		n1 := minChunk + 1 + next()%(limit-minChunk)
		n2 := minChunk + 1 + next()%(2*limit)
		pick := func(n int) []int {
			ix := make([]int, n)
			for i := range ix {
				ix[i] = next() % len(all)
			}
			return ix
		}
		first, second, after := pick(n1), pick(n2), pick(8)
		b, err := Open(keepFixture, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for round, ix := range [][]int{first, second} {
			pcs := make([]uint64, len(ix))
			for k, i := range ix {
				pcs[k] = all[i]
			}
			for k, a := range b.Batch(context.Background(), pcs) {
				if a.Err != nil {
					t.Fatalf("batch %d, %#x: %v", round, a.Addr, a.Err)
				}
				if d := cmp.Diff(want[ix[k]], slices.Clone(a.Frames)); d != "" {
					t.Fatalf("batch %d of %d addresses, %#x: answers otherwise (-want +got):\n%s", round, len(pcs), a.Addr, d)
				}
			}
			if round == 0 && (!b.dwarf.sparse.Load() || !b.dwarf.bulk) {
				t.Fatalf("a batch of %d addresses: sparse %v, bulk %v", len(pcs), b.dwarf.sparse.Load(), b.dwarf.bulk)
			}
		}
		for _, i := range after {
			got, err := b.AppendFrames(nil, all[i])
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want[i], got); d != "" {
				t.Fatalf("%#x after the batches: answers otherwise (-want +got):\n%s", all[i], d)
			}
		}
	})
}
