package pclntab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// fixtures returns the paths of the committed pclntab fixtures.
func fixtures(t testing.TB) []string {
	paths, err := filepath.Glob("../testdata/gopcln/go1.*-*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return paths
}

// fuzzOptions makes the fuzzed bytes their own memory: funcdata addresses
// are offsets into data (plus one, so that Go 1.18+ GoFunc is not 0).
func fuzzOptions(data []byte) *Options {
	return &Options{GoFunc: 1, Memory: func(addr uint64, n int) []byte {
		if addr == 0 || addr-1 >= uint64(len(data)) {
			return nil
		}
		b := data[addr-1:]
		return b[:min(n, len(b))]
	}}
}

// checkErr fails unless err is nil or a *DecodeError of this package.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var de *DecodeError
	if err != nil && (!errors.As(err, &de) || de.Section != Section || de.Package != pkg) {
		t.Fatalf("error %v (%T) is not a pclntab *DecodeError", err, err)
	}
}

// exercise looks up a few addresses of every function (up to a bound) and
// checks that nothing but *DecodeError comes back.
func exercise(t *testing.T, tab, ref *Table, maxFuncs int) {
	var frames, want []Frame
	for i := 0; i < min(tab.NumFuncs(), maxFuncs); i++ {
		f, err := tab.Func(i)
		checkErr(t, err)
		entry, _ := tab.entryAt(i)
		end, _ := tab.entryAt(i + 1)
		for _, pc := range []uint64{entry, entry + 1, entry + (end-entry)/2, end - 1, f.End} {
			frames, err = tab.AppendFrames(frames[:0], pc)
			checkErr(t, err)
			if err != nil && len(frames) != 0 {
				t.Fatalf("%#x: frames %v with error %v", pc, frames, err)
			}
			// Where both decoders answer, they agree.
			want, _, _, lerr := ref.appendFramesLazy(want[:0], pc)
			checkErr(t, lerr)
			if err == nil && lerr == nil && len(frames) > 0 && len(want) > 0 && !slices.Equal(frames, want) {
				t.Fatalf("%#x: %v, decoding from the entry %v", pc, frames, want)
			}
			_, _, err = tab.LookupFunc(pc)
			checkErr(t, err)
		}
	}
}

func FuzzTable(f *testing.F) {
	for _, p := range fixtures(f) {
		im := openImage(f, p)
		if im.table == nil {
			continue
		}
		// A prefix keeps the seeds small; the first functions'
		// records and strings are in it for the Go 1.2 layout.
		f.Add(im.table[:min(len(im.table), 64<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := New(data, fuzzOptions(data))
		checkErr(t, err)
		if err == nil {
			ref, _ := New(data, fuzzOptions(data))
			exercise(t, tab, ref, 64)
		}
		if off, ok := Find(data); ok {
			if _, err := New(data[off:], nil); err != nil {
				t.Fatalf("Find accepted a header New rejects: %v", err)
			}
		}
	})
}

// TestFixtureTables checks every fixture's table whole, each function's
// every byte (every 7th function's under -race or -short), with nothing
// but answers; that the range AppendFramesRange returns holds pc's answer
// at every address in it; and that the answers are those of the decoder
// that reads the tables from the function's entry at each lookup
// (appendFramesLazy).
func TestFixtureTables(t *testing.T) {
	funcStep := 1
	if raceEnabled || testing.Short() {
		funcStep = 7
	}
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			im := openImage(t, p)
			tab := openTable(t, im)
			// The lazy decoder's table: another cache, and the same
			// bytes.
			ref := openTable(t, im)
			var frames, at, want []Frame
			n, inl, lookups := 0, 0, 0
			for i := 0; i < tab.NumFuncs(); i += funcStep {
				fn, err := tab.Func(i)
				if err != nil {
					t.Fatal(err)
				}
				var lo, hi uint64
				for pc := fn.Entry; pc < fn.End; pc++ {
					if pc >= hi {
						lookups++
						frames, lo, hi, err = tab.AppendFramesRange(frames[:0], pc)
						if err != nil {
							t.Fatalf("%s+%#x: %v", fn.Name, pc-fn.Entry, err)
						}
						if lo > pc || hi <= pc || len(frames) > 0 && (lo < fn.Entry || hi > fn.End) {
							t.Fatalf("%s+%#x: range [%#x, %#x)", fn.Name, pc-fn.Entry, lo, hi)
						}
					}
					if at, err = tab.AppendFrames(at[:0], pc); err != nil || !slices.Equal(at, frames) {
						t.Fatalf("%#x in [%#x, %#x): %v, the range's answer %v (%v)", pc, lo, hi, at, frames, err)
					}
					if want, _, _, err = ref.appendFramesLazy(want[:0], pc); err != nil || !slices.Equal(at, want) {
						t.Fatalf("%s+%#x: %v, decoding from the entry %v (%v)", fn.Name, pc-fn.Entry, at, want, err)
					}
					n++
					if len(frames) > 1 {
						inl++
					}
				}
			}
			t.Logf("%s layout, %d functions, %d addresses (%d ranges), %d with inlined frames", tab.Version(), tab.NumFuncs(), n, lookups, inl)
			if inl == 0 {
				t.Error("no inlined frames")
			}
		})
	}
}

// TestCorrupt damages real tables in the ways the package promises to
// survive: every case gives a *DecodeError or no answer, never a panic or
// a hang.
func TestCorrupt(t *testing.T) {
	im := openImage(t, "../testdata/gopcln/go1.26-linux-amd64-sw")
	good := openTable(t, im)
	// An address with inlined frames, and its function.
	var pc uint64
	var fi int
	for i := 0; i < good.NumFuncs() && pc == 0; i++ {
		fn, _ := good.Func(i)
		for a := fn.Entry; a < fn.End; a++ {
			if fr, _ := good.AppendFrames(nil, a); len(fr) > 2 {
				pc, fi = a, i
				break
			}
		}
	}
	if pc == 0 {
		t.Fatal("no address with two inlined frames")
	}
	f, _ := good.funcAt(fi)
	clone := func() []byte { return append([]byte(nil), im.table...) }
	open := func(data []byte, mem func(uint64, int) []byte) (*Table, error) {
		if mem == nil {
			mem = im.memory
		}
		return New(data, &Options{TextStart: good.text, GoFunc: good.opts.GoFunc, Memory: mem})
	}
	le := binary.LittleEndian
	wantErr := func(t *testing.T, err error, sentinel error) {
		t.Helper()
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, sentinel) {
			t.Fatalf("error %v, want a *DecodeError wrapping %v", err, sentinel)
		}
		t.Log(err)
	}
	t.Run("magic", func(t *testing.T) {
		d := clone()
		d[0] = 0x12
		_, err := open(d, nil)
		wantErr(t, err, buf.ErrUnsupportedVersion)
	})
	t.Run("header-offsets", func(t *testing.T) {
		d := clone()
		le.PutUint64(d[8+4*8:], 1<<40) // filetabOffset
		_, err := open(d, nil)
		wantErr(t, err, buf.ErrFormat)
	})
	t.Run("nfunc", func(t *testing.T) {
		d := clone()
		le.PutUint64(d[8:], 1<<50)
		_, err := open(d, nil)
		wantErr(t, err, buf.ErrFormat)
	})
	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{0, 7, 15, 40, 71, int(good.functabEnd) - 1} {
			_, err := open(im.table[:n], nil)
			if err == nil {
				t.Fatalf("%d bytes: no error", n)
			}
			checkErr(t, err)
		}
	})
	t.Run("func-offset", func(t *testing.T) {
		d := clone()
		le.PutUint32(d[good.functab+uint64(fi)*8+4:], 0xfffffff0)
		tab, err := open(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tab.AppendFrames(nil, pc)
		wantErr(t, err, buf.ErrFormat)
		_, err = tab.Func(fi)
		wantErr(t, err, buf.ErrFormat)
	})
	t.Run("name-offset", func(t *testing.T) {
		d := clone()
		le.PutUint32(d[f.off+4:], 0x7fffffff)
		tab, _ := open(d, nil)
		_, err := tab.Func(fi)
		wantErr(t, err, buf.ErrFormat)
	})
	t.Run("endless-pcvalue", func(t *testing.T) {
		// The line table's bytes all continuation bits: a varint
		// that never ends, then a stream of pairs that never reaches
		// pc (zero pc deltas).
		d := clone()
		p := good.pctab + uint64(f.pcln)
		for i := p; i < p+8; i++ {
			d[i] = 0xff
		}
		tab, _ := open(d, nil)
		_, err := tab.AppendFrames(nil, pc)
		wantErr(t, err, buf.ErrOverflow)
		d = clone()
		for i := p; i < uint64(len(d)); i += 2 {
			d[i], d[i+1] = 2, 0 // value +1, pc +0
			if i+3 >= uint64(len(d)) {
				break
			}
		}
		tab, _ = open(d, nil)
		_, err = tab.AppendFrames(nil, pc)
		checkErr(t, err)
	})
	t.Run("inline-cycle", func(t *testing.T) {
		// Every inline tree entry's call site is pc itself.
		mem := func(addr uint64, n int) []byte {
			b := append([]byte(nil), im.memory(addr, n)...)
			if len(b) >= 16 {
				le.PutUint32(b[8:], uint32(pc-f.entry))
			}
			return b
		}
		tab, _ := open(im.table, mem)
		_, err := tab.AppendFrames(nil, pc)
		wantErr(t, err, buf.ErrLimit)
	})
	t.Run("inline-parent-range", func(t *testing.T) {
		mem := func(addr uint64, n int) []byte {
			b := append([]byte(nil), im.memory(addr, n)...)
			if len(b) >= 16 {
				le.PutUint32(b[8:], 0x7ffffff0)
			}
			return b
		}
		tab, _ := open(im.table, mem)
		_, err := tab.AppendFrames(nil, pc)
		wantErr(t, err, buf.ErrFormat)
	})
	t.Run("inline-tree-missing", func(t *testing.T) {
		tab, _ := open(im.table, func(uint64, int) []byte { return nil })
		_, err := tab.AppendFrames(nil, pc)
		wantErr(t, err, buf.ErrFormat)
	})
}

// TestFind finds each fixture's table by its magic in its read-only data.
func TestFind(t *testing.T) {
	for _, p := range fixtures(t) {
		im := openImage(t, p)
		for _, s := range im.secs {
			if s.addr <= im.tableAddr && im.tableAddr < s.addr+uint64(len(s.data)) {
				off, ok := Find(s.data)
				if !ok || s.addr+uint64(off) != im.tableAddr {
					t.Errorf("%s: Find: %#x %v, table at %#x", p, s.addr+uint64(off), ok, im.tableAddr)
				}
			}
		}
	}
}

// TestLookupAllocs checks that a warm lookup allocates nothing: names and
// files are interned on first use, frames go into the caller's slice.
func TestLookupAllocs(t *testing.T) {
	tab := openTable(t, openImage(t, "../testdata/gopcln/go1.26-linux-amd64-sw"))
	var pcs []uint64
	for i := 0; i < tab.NumFuncs(); i += 7 {
		fn, _ := tab.Func(i)
		pcs = append(pcs, fn.Entry, fn.Entry+(fn.End-fn.Entry)/2)
	}
	frames := make([]Frame, 0, 64)
	for _, pc := range pcs {
		frames, _ = tab.AppendFrames(frames[:0], pc)
	}
	if a := testing.AllocsPerRun(10, func() {
		for _, pc := range pcs {
			frames, _, _, _ = tab.AppendFramesRange(frames[:0], pc)
			_, _, _ = tab.LookupFunc(pc)
		}
	}); a != 0 {
		t.Errorf("%v allocations per %d warm lookups, want 0", a, len(pcs))
	}
}

// TestCacheBudget answers from a table whose cache holds a few functions
// at most, from four goroutines at once (for -race): the cache is emptied
// again and again, and every answer stays the lazy decoder's.
func TestCacheBudget(t *testing.T) {
	im := openImage(t, "../testdata/gopcln/go1.26-linux-amd64-sw")
	tab, ref := openTable(t, im), openTable(t, im)
	c := tab.initCache()
	c.budget = 16 << 10
	var pcs []uint64
	for i := 0; i < tab.NumFuncs(); i += 3 {
		fn, _ := tab.Func(i)
		for pc := fn.Entry; pc < fn.End; pc += 97 {
			pcs = append(pcs, pc)
		}
	}
	want := make([][]Frame, len(pcs))
	for i, pc := range pcs {
		want[i], _, _, _ = ref.appendFramesLazy(nil, pc)
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			var fr []Frame
			for k := range pcs {
				i := (k*(2*g+1) + g) % len(pcs)
				var err error
				if fr, err = tab.AppendFrames(fr[:0], pcs[i]); err != nil || !slices.Equal(fr, want[i]) {
					errs <- fmt.Errorf("%#x: %v (%v), want %v", pcs[i], fr, err, want[i])
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used > c.budget {
		t.Errorf("cache holds %d bytes, budget %d", c.used, c.budget)
	}
}
