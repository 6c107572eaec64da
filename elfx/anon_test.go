package elfx

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/mmap"
	"github.com/symbolize-go/symbolize/locate"
)

// TestInflatedOffHeap: the inflated sections of a mapped file live in
// anonymous memory that Close releases, with the same bytes as the heap
// copy NoMmap gives; a file that is not mapped keeps heap memory. Both the
// serial path (a prefix first, then the rest, growing the buffer) and the
// parallel whole-section path are covered.
func TestInflatedOffHeap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("anonymous mappings are used on unix; checked on linux")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	raw := words(12<<20, 3)
	te := &telf{is64: true, secs: []tsec{
		{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, raw)},
		{name: ".debug_line", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, raw[:3<<20])},
	}}
	path := filepath.Join(t.TempDir(), "z.elf")
	if err := os.WriteFile(path, te.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, noMmap := range []bool{false, true} {
		f, err := Open(path, &Options{NoMmap: noMmap})
		if err != nil {
			t.Fatal(err)
		}
		info := f.Section(".debug_info")
		if !info.parallelOK() {
			t.Fatal("a fresh 12 MB zlib section does not take the parallel path")
		}
		got, err := info.Data()
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("NoMmap %v: .debug_info differs (err %v)", noMmap, err)
		}
		line := f.Section(".debug_line")
		if p, err := line.Prefix(100); err != nil || !bytes.Equal(p, raw[:len(p)]) {
			t.Fatalf("NoMmap %v: .debug_line prefix differs (err %v)", noMmap, err)
		}
		if got, err := line.Data(); err != nil || !bytes.Equal(got, raw[:3<<20]) {
			t.Fatalf("NoMmap %v: .debug_line differs (err %v)", noMmap, err)
		}
		f.anonMu.Lock()
		n := len(f.anon)
		f.anonMu.Unlock()
		switch {
		case noMmap && n != 0:
			t.Errorf("a file read with NoMmap put %d inflated sections outside the heap", n)
		case !noMmap && n < 2:
			t.Errorf("a mapped file put %d buffers outside the heap; want one per inflated section at least", n)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if f.anon != nil {
			t.Errorf("NoMmap %v: Close left %d buffers", noMmap, len(f.anon))
		}
	}
	// A file a locator found and mapped (the Symbolizer's way in) too.
	lf, err := locate.Open(path, locate.HowGiven)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewLocated(lf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.Section(".debug_info").Data(); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("located file: .debug_info differs (err %v)", err)
	}
	if !lf.Mapped() {
		t.Fatal("locate.Open did not map the file")
	}
	if n := len(f.anon); n != 1 {
		t.Errorf("a mapped located file put %d buffers outside the heap, want 1", n)
	}
	f.Close()
	if f.anon != nil || lf.Mapped() {
		t.Errorf("Close left %d buffers, the file mapped: %v", len(f.anon), lf.Mapped())
	}
}

// TestSectionRelease: Release gives back the whole pages of a range of a
// mapped file's inflated section, which then read as zeros, and leaves
// every other byte as it was; it does nothing to heap memory (NoMmap), to
// a section not inflated whole yet, or after Close.
func TestSectionRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are given back on linux")
	}
	page := os.Getpagesize()
	raw := words(1<<20, 5)
	te := &telf{is64: true, secs: []tsec{
		{name: ".debug_line", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, raw)},
	}}
	path := filepath.Join(t.TempDir(), "z.elf")
	if err := os.WriteFile(path, te.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	off, n := uint64(3*page+100), uint64(5*page) // whole pages 4 to 7
	for _, noMmap := range []bool{false, true} {
		f, err := Open(path, &Options{NoMmap: noMmap})
		if err != nil {
			t.Fatal(err)
		}
		s := f.Section(".debug_line")
		if _, err := s.Prefix(uint64(8 * page)); err != nil {
			t.Fatal(err)
		}
		s.Release(off, n) // not inflated whole: nothing happens
		got, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(raw)
		if !bytes.Equal(got, want) {
			t.Fatalf("NoMmap %v: a Release before the section was whole changed it", noMmap)
		}
		s.Release(off, n)
		if !noMmap {
			clear(want[4*page : 8*page])
		}
		if !bytes.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("NoMmap %v: after Release, byte %d is %#x, want %#x", noMmap, i, got[i], want[i])
				}
			}
		}
		// Again inflates the whole section anew, into memory of its
		// own: the released bytes are there, and Data's are not
		// touched; it releases alike.
		as, err := s.Again()
		if err != nil {
			t.Fatal(err)
		}
		again, err := as.Data()
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("NoMmap %v: Again's Data %v, %d bytes, equal %v", noMmap, err, len(again), bytes.Equal(again, raw))
		}
		if &again[0] == &got[0] || !bytes.Equal(got, want) {
			t.Fatalf("NoMmap %v: Again returned or changed Data's bytes", noMmap)
		}
		as.Release(off, n)
		if !noMmap && (!bytes.Equal(again[:4*page], raw[:4*page]) || again[5*page] != 0 || !bytes.Equal(again[8*page:], raw[8*page:])) {
			t.Fatalf("NoMmap %v: Release of Again's section gave back other pages, or not its own", noMmap)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("NoMmap %v: Release of Again's section changed Data's bytes", noMmap)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		s.Release(0, uint64(len(raw))) // after Close: must not touch what the pages are now
	}
}

// TestEvict: Evict takes a mapped file's pages out of the resident set
// (the mapping's Rss in /proc/self/smaps falls to near nothing) and loses
// nothing: the uncompressed section, which aliases the mapping, reads back
// the same, and the inflated one, in anonymous memory, is not touched.
// Files that are not mapped are left alone.
func TestEvict(t *testing.T) {
	plain, packed := words(8<<20, 5), words(2<<20, 6)
	f, img, info, str := evictImage(t, plain, packed)
	before := resident(t, f.data)
	f.Evict()
	if after := resident(t, f.data); after > 256<<10 {
		t.Errorf("after Evict %d bytes resident (before %d)", after, before)
	}
	if !bytes.Equal(info, plain) || !bytes.Equal(f.data, img) {
		t.Error("the mapping reads back changed")
	}
	if !bytes.Equal(str, packed) {
		t.Error("the inflated section changed")
	}
	// A file of caller-owned bytes: nothing to evict, nothing changes.
	g, err := NewBytes(img, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Evict()
	if d, err := g.Section(".debug_info").Data(); err != nil || !bytes.Equal(d, plain) {
		t.Errorf("NewBytes: .debug_info differs after Evict (err %v)", err)
	}
}

// evictImage maps a file of plain as an uncompressed .debug_info and
// packed as a zlib .debug_str, reads both whole and returns the file, its
// bytes and the two sections' data. Every page of .debug_info is then
// resident. It skips t but on Linux, where /proc/self/smaps tells.
func evictImage(t *testing.T, plain, packed []byte) (f *File, img, info, str []byte) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("resident pages are read from /proc/self/smaps")
	}
	te := &telf{is64: true, secs: []tsec{
		{name: ".debug_info", typ: elf.SHT_PROGBITS, data: plain},
		{name: ".debug_str", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, packed)},
	}}
	img = te.bytes()
	f = openImage(t, img)
	info, err := f.Section(".debug_info").Data()
	if err != nil || !bytes.Equal(info, plain) {
		t.Fatalf(".debug_info differs (err %v)", err)
	}
	str, err = f.Section(".debug_str").Data()
	if err != nil || !bytes.Equal(str, packed) {
		t.Fatalf(".debug_str differs (err %v)", err)
	}
	if n := resident(t, f.data); n < uint64(len(plain))-(1<<20) {
		t.Fatalf("%d bytes of the %d just read resident: the test reads the wrong mapping", n, len(plain))
	}
	return f, img, info, str
}

// resident returns the resident bytes of the mapping holding b[0].
func resident(t *testing.T, b []byte) uint64 {
	t.Helper()
	n, ok := mmap.Resident(b)
	if !ok {
		t.Skip("no resident size in /proc/self/smaps")
	}
	return n
}

// TestEvictBytes: EvictBytes takes out of the resident set the pages of
// the bytes it is given, when they are the mapping's, and no others: of an
// 8 MB uncompressed section read whole, evicting its second half leaves
// the first resident and reads back the same. Bytes that are not the
// mapping's are left alone, whatever they are: the inflated section (in
// anonymous memory, where dropping pages would zero them), a copy, a
// file of caller-owned bytes, a slice straddling the mapping's end.
func TestEvictBytes(t *testing.T) {
	plain, packed := words(8<<20, 7), words(2<<20, 8)
	f, img, info, str := evictImage(t, plain, packed)
	before := resident(t, f.data)
	f.EvictBytes(info[4<<20:])
	after := resident(t, f.data)
	if after > before-(4<<20)+(256<<10) || after < before-(4<<20)-(256<<10) {
		t.Errorf("after evicting 4 MB of %d resident bytes, %d resident", before, after)
	}
	if !bytes.Equal(info, plain) || !bytes.Equal(f.data, img) {
		t.Error("the mapping reads back changed")
	}
	// None of these are the mapping's pages: nothing changes, and the
	// resident set (read back above, so all of it again) stays.
	whole := resident(t, f.data)
	f.EvictBytes(str)
	f.EvictBytes(bytes.Clone(info))
	f.EvictBytes(nil)
	f.EvictBytes(f.data[len(f.data):])
	straddle := f.data[len(f.data)-4096 : len(f.data) : len(f.data)]
	f.EvictBytes(append(straddle, make([]byte, 1<<20)...)) // a copy: append reallocates
	if !bytes.Equal(str, packed) {
		t.Error("the inflated section changed")
	}
	if now := resident(t, f.data); now < whole-(64<<10) {
		t.Errorf("bytes not the mapping's evicted its pages: %d resident, %d before", now, whole)
	}
	g, err := NewBytes(img, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Section(".debug_info").Data()
	if err != nil {
		t.Fatal(err)
	}
	g.EvictBytes(d)
	if !bytes.Equal(d, plain) {
		t.Error("NewBytes: .debug_info differs after EvictBytes")
	}
}
