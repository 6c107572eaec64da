package symbolize

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture returns the bytes of a committed fixture, skipping when absent.
func fixture(t testing.TB, name string) []byte {
	data, err := os.ReadFile("testdata/elf/" + name)
	if err != nil {
		t.Skip(err)
	}
	return data
}

// TestConcurrentLookups checks that many goroutines sharing one Binary
// (each unit built by whichever comes first) get the answers a sequential
// run gets. Run under -race.
func TestConcurrentLookups(t *testing.T) {
	for _, name := range []string{"cpp-gcc-O2", "c-gcc-O2-lto", "go-trimpath"} {
		t.Run(name, func(t *testing.T) {
			data := fixture(t, name)
			var pcs []uint64
			seq, err := NewBytes(data, &Options{Inlines: true})
			if err != nil {
				t.Fatal(err)
			}
			syms := seq.symbols()
			for i := 0; i < syms.Len(); i++ {
				m := syms.At(i)
				pcs = append(pcs, m.Start, m.Start+m.Size/2)
			}
			want := make([][]Frame, len(pcs))
			for i, pc := range pcs {
				want[i], err = seq.AppendFrames(nil, pc)
				if err != nil {
					t.Fatalf("%#x: %v", pc, err)
				}
			}
			shared, err := NewBytes(data, &Options{Inlines: true})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					var buf []Frame
					for k := range pcs {
						i := (k*7 + g*13) % len(pcs) // different orders
						buf, err := shared.AppendFrames(buf[:0], pcs[i])
						if err != nil || !slices.Equal(buf, want[i]) {
							t.Errorf("goroutine %d, %#x: %v %v, want %v", g, pcs[i], buf, err, want[i])
							return
						}
					}
				})
			}
			wg.Wait()
			// Batch gives the same answers, in order.
			for i, a := range shared.Batch(context.Background(), pcs) {
				frames, err := a.Frames, a.Err
				if err != nil || !slices.Equal(frames, want[i]) {
					t.Errorf("Batch %#x: %v %v, want %v", pcs[i], frames, err, want[i])
					break
				}
			}
		})
	}
}

// TestLookupAllocs checks the promise that a lookup allocates nothing once
// its unit is built, when dst has room and demangling is off.
func TestLookupAllocs(t *testing.T) {
	b, err := NewBytes(fixture(t, "cpp-gcc-O2"), &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]Frame, 0, 64)
	pc := uint64(0x1b3e)
	if _, err := b.AppendFrames(dst, pc); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { dst, _ = b.AppendFrames(dst[:0], pc) }); n != 0 {
		t.Errorf("AppendFrames allocates %v per call", n)
	}
}

func TestClosed(t *testing.T) {
	b, err := NewBytes(fixture(t, "c-gcc-O0-dwarf5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := b.AppendFrames(nil, 0x1000); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// FuzzNewBytes feeds corrupt ELF images (fixtures with bytes overwritten,
// then cut short) through opening and symbolizing: nothing may panic or
// hang, whatever the bytes.
//
// The image is chosen by index rather than passed whole: the fuzzer
// minimizes every input that finds new coverage, at a cost quadratic in
// its length, and runs nothing new meanwhile, so 50-100 KiB images as
// inputs held it to a few thousand executions a minute. The inputs are
// the index, the patch and where it goes, and the length to keep; the
// index's top bit has every unit read lazily, however small, as after a
// sparse batch (noteBatch), and the next bit looks the addresses up in a
// bulk batch on the workers instead of one by one.
func FuzzNewBytes(f *testing.F) {
	type base struct {
		data []byte
		pcs  []uint64 // starts and middles of its first function symbols
	}
	var bases []base
	for _, name := range []string{"c-clang14-O2-line-tables-only", "c-clang14-O2-dwarf5", "c-gcc-O0-dwarf2",
		"c-gcc-O0-dwarf5", "c-gcc-O2-zstd", "c-gcc-O2-zdebug", "c-gcc-O2-gz-zlib", "c-gcc-m32-O2-dwarf5",
		"c-gcc-O2-dwarf64", "c-gcc-O2-stripped"} {
		data, err := os.ReadFile("testdata/elf/" + name)
		if err != nil {
			continue
		}
		b := base{data: data, pcs: []uint64{0x1000, 0x401000}}
		if ef, err := elf.NewFile(bytes.NewReader(data)); err == nil {
			syms, _ := ef.Symbols()
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && len(b.pcs) < 16 {
					b.pcs = append(b.pcs, s.Value, s.Value+s.Size/2)
				}
			}
		}
		bases = append(bases, b)
	}
	if len(bases) == 0 {
		f.Skip("no fixtures")
	}
	for i, b := range bases {
		n := uint32(len(b.data))
		f.Add(uint8(i), uint32(0), []byte{}, uint32(0))
		f.Add(uint8(i)|0x80, n/3, []byte{0xff, 0xff}, uint32(0))
		f.Add(uint8(i)|0x40, n/2, []byte{0xff, 0xff, 0xff, 0xff}, uint32(0))
		f.Add(uint8(i), n/2, []byte{0xff, 0xff, 0xff, 0xff}, uint32(0))
		f.Add(uint8(i), uint32(0), []byte{}, n-n/8)
		f.Add(uint8(i), n-n/4, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, uint32(0))
	}
	defer func(v uint64) { bulkMinInfo = v }(bulkMinInfo)
	bulkMinInfo = 1
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte, keep uint32) {
		// A longer patch is ignored, not cut: the fuzzer would minimize
		// its bytes (at a cost quadratic in their number) with every
		// input that finds new coverage, and run nothing new meanwhile.
		if len(patch) > 64 {
			return
		}
		b := bases[int(which&0x3f)%len(bases)]
		img := slices.Clone(b.data)
		copy(img[int(at)%len(img):], patch)
		if keep != 0 {
			img = img[:int(keep)%len(img)]
		}
		bin, err := NewBytes(img, &Options{Inlines: true})
		if err != nil {
			return
		}
		defer bin.Close()
		var buf []Frame
		pcs := b.pcs
		if len(patch) >= 8 {
			pcs = append(pcs[:len(pcs):len(pcs)], binary.LittleEndian.Uint64(patch))
		}
		if which&0x80 != 0 {
			// As after a sparse batch: every unit read lazily,
			// however small.
			if s := bin.loadDWARF(pcs[0]); s != nil {
				s.sparse.Store(true)
			}
		}
		if which&0x40 != 0 {
			// A batch with workers, bulk (bulkMinInfo is 1 here):
			// the sections read ahead whole beside the lookups.
			many := make([]uint64, minChunk+44)
			for i := range many {
				many[i] = pcs[i%len(pcs)] + uint64(i/len(pcs))
			}
			for range bin.Batch(context.Background(), many) {
			}
			return
		}
		for _, pc := range pcs {
			buf, _ = bin.AppendFrames(buf[:0], pc)
		}
	})
}

// TestBatchDense checks Batch's reuse of answers over dense sorted
// addresses (every byte of a stretch of code, with runs of repeats) against
// one AppendFrames per address.
func TestBatchDense(t *testing.T) {
	for _, name := range []string{"cpp-gcc-O3", "go-trimpath", "c-gcc-O2-dwarf5"} {
		t.Run(name, func(t *testing.T) {
			b, err := NewBytes(fixture(t, name), &Options{Inlines: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(b.code) == 0 {
				t.Fatal("no code sections")
			}
			start := b.code[0][0]
			var pcs []uint64
			for pc := start; pc < start+12000; pc++ {
				pcs = append(pcs, pc)
				if pc%5 == 0 {
					pcs = append(pcs, pc)
				}
			}
			reused := 0
			var prev []Frame
			for i, a := range b.Batch(context.Background(), pcs) {
				frames, err := a.Frames, a.Err
				want, werr := b.AppendFrames(nil, pcs[i])
				if err != nil || werr != nil || !slices.Equal(frames, want) {
					t.Fatalf("%#x: Batch %v %v, AppendFrames %v %v", pcs[i], frames, err, want, werr)
				}
				if i > 0 && slices.Equal(frames, prev) {
					reused++
				}
				prev = append(prev[:0], frames...)
				// The frames are the caller's until the loop goes on:
				// writing to them must not change a later answer,
				// even one that shares them in the chunk.
				for k := range frames {
					frames[k] = Frame{Function: "scribbled"}
				}
			}
			t.Logf("%d addresses, %d with the previous one's answer", len(pcs), reused)
		})
	}
}

// TestBatchUnsorted checks Batch on shuffled addresses spanning several
// windows (each symbolized in address order, answered in input order),
// with repeats and addresses nothing covers, against one AppendFrames per
// address; and that stopping in the middle of a window leaves no worker
// behind.
func TestBatchUnsorted(t *testing.T) {
	b, err := NewBytes(fixture(t, "cpp-gcc-O3"), &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	start, end := b.code[0][0], b.code[0][1]
	n := 2*batchWindow + batchChunk + 17
	pcs := make([]uint64, n)
	x := uint64(88172645463325252)
	for i := range pcs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		switch i % 50 {
		case 0:
			pcs[i] = x // almost always outside the code
		case 1:
			pcs[i] = pcs[i/2] // a repeat
		default:
			pcs[i] = start + x%(end-start)
		}
	}
	next := 0
	for i, a := range b.Batch(context.Background(), pcs) {
		frames, err := a.Frames, a.Err
		if i != next {
			t.Fatalf("yield(%d), want %d", i, next)
		}
		next++
		want, werr := b.AppendFrames(nil, pcs[i])
		if (err == nil) != (werr == nil) || !slices.Equal(frames, want) {
			t.Fatalf("%d: %#x: Batch %v %v, AppendFrames %v %v", i, pcs[i], frames, err, want, werr)
		}
	}
	if next != n {
		t.Fatalf("%d answers for %d addresses", next, n)
	}
	before := runtime.NumGoroutine()
	stopAt := batchWindow + batchWindow/3
	for i := range b.Batch(context.Background(), pcs) {
		if i > stopAt {
			t.Fatalf("yield(%d) after stopping at %d", i, stopAt)
		}
		if i >= stopAt {
			break
		}
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines after a stopped Batch, %d before", runtime.NumGoroutine(), before)
}

// TestBatchAfterErrors checks that a Batch whose addresses failed (here on
// a closed Binary) leaves nothing behind for the next Batch: chunks that
// held errors go back to a pool shared by every Binary.
func TestBatchAfterErrors(t *testing.T) {
	data := fixture(t, "c-gcc-O2-dwarf5")
	pcs := make([]uint64, 3*batchWindow)
	for i := range pcs {
		pcs[i] = 0x1000 + uint64(i)
	}
	for range 4 {
		closed, err := NewBytes(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		closed.Close()
		for i, a := range closed.Batch(context.Background(), pcs) {
			err := a.Err
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("closed: %#x: %v", pcs[i], err)
			}
		}
		open, err := NewBytes(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range open.Batch(context.Background(), pcs) {
			err := a.Err
			if err != nil {
				t.Fatalf("open: %#x: %v", pcs[i], err)
			}
		}
		open.Close()
	}
}

// TestBatchCancel: once the context is done, every address not yet
// symbolized is still yielded, once, with the context's error, in both the
// one-window and the windowed paths.
func TestBatchCancel(t *testing.T) {
	b, err := NewBytes(fixture(t, "cpp-gcc-O3"), &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	start, end := b.code[0][0], b.code[0][1]
	for _, n := range []int{batchChunk / 2, 3*batchWindow + 5} {
		pcs := make([]uint64, n)
		for i := range pcs {
			pcs[i] = start + uint64(i*7919)%(end-start)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		seen := 0
		for i, a := range b.Batch(ctx, pcs) {
			if i != seen || !errors.Is(a.Err, context.Canceled) || a.Addr != pcs[i] {
				t.Fatalf("n=%d: answer %d (want %d): %+v", n, i, seen, a)
			}
			seen++
		}
		if seen != n {
			t.Fatalf("n=%d: %d answers", n, seen)
		}
		// Cancelled midway: the answers before are real, those after
		// carry the error, and each index comes once, in order.
		ctx, cancel = context.WithCancel(context.Background())
		seen, failed := 0, 0
		for i, a := range b.Batch(ctx, pcs) {
			if i != seen {
				t.Fatalf("n=%d: answer %d, want %d", n, i, seen)
			}
			seen++
			if a.Err != nil {
				if !errors.Is(a.Err, context.Canceled) {
					t.Fatalf("n=%d: %d: %v", n, i, a.Err)
				}
				failed++
			} else if failed > 0 {
				t.Fatalf("n=%d: %d answered after a cancelled one", n, i)
			}
			if i == 10 {
				cancel()
			}
		}
		cancel()
		if seen != n {
			t.Fatalf("n=%d: %d answers", n, seen)
		}
		t.Logf("n=%d: %d answered, %d cancelled", n, n-failed, failed)
	}
}

// TestNewWindow: a window holds its addresses sorted and where each input
// address went, on both sorting paths (addresses with room for the index
// in their high bits, and addresses without), duplicates included.
func TestNewWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, top := range []uint64{1 << 20, 1 << 47, 1<<64 - 1} {
		for _, n := range []int{2, 3, 100, minChunk + 1, 1000, batchChunk + 1, batchWindow} {
			in := make([]uint64, n)
			for i := range in {
				in[i] = rng.Uint64N(top)
				if i%7 == 3 {
					in[i] = in[i-1] // a duplicate
				}
			}
			w := newWindow(0, in)
			// Chunks of minChunk to batchChunk addresses (the last
			// may be shorter), at least two for more than minChunk,
			// so that both cores take part.
			if w.chunk > batchChunk || w.chunk < min(minChunk, n) || len(w.chunks) != (n+w.chunk-1)/w.chunk ||
				n > minChunk && len(w.chunks) < 2 {
				t.Fatalf("%d addresses: %d chunks of %d", n, len(w.chunks), w.chunk)
			}
			if !slices.IsSorted(w.pcs) {
				t.Fatalf("top %#x, %d addresses: not sorted", top, n)
			}
			seen := make([]bool, n)
			for i, k := range w.pos {
				if w.pcs[k] != in[i] || seen[k] {
					t.Fatalf("top %#x, %d addresses: address %d (%#x) at %d, which holds %#x (seen %v)", top, n, i, in[i], k, w.pcs[k], seen[k])
				}
				seen[k] = true
			}
		}
	}
}

// TestSortKeys checks sortKeys against slices.Sort on keys of every span
// from 0 bits (all equal) to 64, below and above the radix sort's minimum
// length.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for span := 0; span <= 64; span++ {
		for _, n := range []int{0, 1, 511, 512, 4096} {
			keys := make([]uint64, n)
			base := rng.Uint64()
			for i := range keys {
				v := rng.Uint64()
				if span < 64 {
					v &= 1<<span - 1
				}
				keys[i] = base + v
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("span %d, %d keys: not sorted as slices.Sort sorts them", span, n)
			}
		}
	}
}

// TestBatchSizes: batches on each side of the sizes where Batch changes
// course (answered on the caller's goroutine up to minChunk addresses, by
// workers in chunks above it, bulk from readAheadMin for these small
// files and above minChunk once bulkMinInfo calls them large, windows of
// batchWindow) answer as lookups one by one, on a zlib-compressed Go
// binary (its .debug_info inflated lazily, or whole for a bulk batch) and
// an uncompressed gcc C++ one.
func TestBatchSizes(t *testing.T) {
	sizes := []int{1, minChunk, minChunk + 1, 3 * minChunk, batchChunk + 1, batchWindow + minChunk + 3}
	for _, path := range []string{"testdata/elf/go-trimpath", "testdata/elf/cpp-gcc-O3"} {
		all := bulkPCs(t, path)
		for len(all) < slices.Max(sizes) {
			all = append(all, all...)
		}
		// Shuffled, so that windows hold addresses of all the units.
		rng := rand.New(rand.NewPCG(5, 6))
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		opts := &Options{Inlines: true}
		_, want := answersOneByOne(t, path, opts, all[:slices.Max(sizes)])
		defer func(v uint64) { bulkMinInfo = v }(bulkMinInfo)
		for k := range 2 * len(sizes) {
			n := sizes[k%len(sizes)]
			bulkMinInfo = 8 << 20
			if k >= len(sizes) {
				bulkMinInfo = 1 // as if the file were large: bulk above minChunk
			}
			b, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for i, a := range b.Batch(context.Background(), all[:n]) {
				if a.Err != nil {
					t.Fatalf("%s, %d addresses, %#x: %v", path, n, a.Addr, a.Err)
				}
				if d := cmp.Diff(want[i], slices.Clone(a.Frames)); d != "" {
					t.Fatalf("%s, %d addresses, %#x: the batch answers otherwise (-want +got):\n%s", path, n, a.Addr, d)
				}
				got++
			}
			if got != n {
				t.Fatalf("%s, %d addresses: %d answers", path, n, got)
			}
			wantBulk := runtime.GOMAXPROCS(0) > 1 && (n >= readAheadMin || n > minChunk && b.bigDWARF())
			if bulk := b.bulk.Load(); bulk != wantBulk {
				t.Errorf("%s, %d addresses: bulk %v", path, n, bulk)
			}
			b.Close()
		}
	}
}

// TestBatchDeferred: a chunk answers the addresses whose unit another
// chunk is building after the others (here every address fill is told
// is busy: a third of them, in runs), and every answer is as the lookups
// one by one give it, the symbol offsets of answers shared by
// neighbours included.
func TestBatchDeferred(t *testing.T) {
	for _, c := range []struct {
		name string
		busy func(off uint64) bool // of pc - start
	}{
		{"cpp-gcc-O3", func(off uint64) bool { return off/16%3 == 1 }}, // runs
		{"go-trimpath", func(off uint64) bool { return off/16%3 == 1 }},
		{"cpp-gcc-O3", func(off uint64) bool { return off%3 == 1 }}, // single addresses within runs
	} {
		name := c.name
		t.Run(name, func(t *testing.T) {
			b, err := NewBytes(fixture(t, name), &Options{Inlines: true})
			if err != nil {
				t.Fatal(err)
			}
			start := b.code[0][0]
			var pcs []uint64
			for pc := start; pc < start+6000; pc += 3 {
				pcs = append(pcs, pc, pc+1)
			}
			var deferred atomic.Int64
			testHookBusy = func(pc uint64) bool {
				if c.busy(pc - start) {
					deferred.Add(1)
					return true
				}
				return false
			}
			defer func() { testHookBusy = nil }()
			var got [][]Frame
			var errs []error
			for _, a := range b.Batch(context.Background(), pcs) {
				got, errs = append(got, slices.Clone(a.Frames)), append(errs, a.Err)
			}
			testHookBusy = nil
			if deferred.Load() == 0 {
				t.Fatal("no address deferred")
			}
			for i, pc := range pcs {
				want, werr := b.AppendFrames(nil, pc)
				if errs[i] != nil || werr != nil || !slices.Equal(got[i], want) {
					t.Fatalf("%#x: Batch %v %v, AppendFrames %v %v", pc, got[i], errs[i], want, werr)
				}
			}
		})
	}
}
