package elfx

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzSeedMax keeps fixture seeds small enough for the fuzzer to mutate
// usefully.
const fuzzSeedMax = 64 << 10

// FuzzOpen opens arbitrary bytes as ELF and touches every accessor: no
// input may panic, hang or allocate out of proportion.
func FuzzOpen(f *testing.F) {
	for _, is64 := range []bool{false, true} {
		for _, c := range allCompressions {
			te := &telf{is64: is64, big: !is64, typ: elf.ET_DYN, secs: []tsec{
				{name: sectionName(c), typ: elf.SHT_PROGBITS, flags: sectionFlags(c), data: compressed(is64, !is64, c, pattern(200))},
				{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, data: buildIDNote((&telf{big: !is64}).order(), []byte{1, 2, 3, 4}), align: 4},
				{name: ".gnu_debuglink", typ: elf.SHT_PROGBITS, data: debugLink((&telf{big: !is64}).order(), "x.debug", 7)},
				{name: ".symtab", typ: elf.SHT_SYMTAB, data: make([]byte, 48), link: 4, entsize: 24},
				{name: ".strtab", typ: elf.SHT_STRTAB, data: []byte("\x00a\x00")},
			}, progs: []elf.ProgHeader{{Type: elf.PT_LOAD}, {Type: elf.PT_NOTE}}}
			f.Add(te.bytes())
		}
	}
	for _, d := range fixtureDirs() {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(d, e.Name())); err == nil && len(b) <= fuzzSeedMax && bytes.HasPrefix(b, []byte(elf.ELFMAG)) {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(fmt.Sprintf("%x", data))()
		file, err := NewBytes(data, nil)
		if err != nil {
			return
		}
		touchAll(file)
		for _, s := range file.Sections {
			d, err := s.Data()
			if err == nil && uint64(len(d)) != s.Size {
				t.Fatalf("%s: Data has %d bytes, Size is %d", s.Name, len(d), s.Size)
			}
		}
		// The ReaderAt path must agree with the in-memory one.
		file2, err := NewReaderAt(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("NewReaderAt fails where NewBytes succeeded: %v", err)
		}
		for i, s := range file.Sections {
			d1, err1 := s.Data()
			d2, err2 := file2.Sections[i].Data()
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(d1, d2) {
				t.Fatalf("%s: paths disagree: %v vs %v", s.Name, err1, err2)
			}
		}
	})
}

// FuzzDecompress feeds arbitrary compressed payloads and declared sizes to
// the section reader, reading a prefix first and then the whole.
func FuzzDecompress(f *testing.F) {
	// Small payloads (at most a few hundred bytes): the fuzzer minimizes
	// every input that finds new coverage, at a cost quadratic in its
	// length, and runs nothing new meanwhile; 3000 bytes of pattern
	// (2.3-3 KiB compressed) held it to a few hundred executions a second.
	for _, raw := range [][]byte{pattern(300), bytes.Repeat([]byte("symbolize"), 300)} {
		for _, c := range []Compression{CompressZlib, CompressZstd, CompressZdebug} {
			f.Add(uint8(c), uint64(len(raw)), uint64(100), compressed(true, false, c, raw)[payloadStart(c):])
			f.Add(uint8(c), uint64(len(raw)+1), uint64(0), compressed(true, false, c, raw)[payloadStart(c):])
		}
	}
	f.Add(uint8(CompressZlib), uint64(0), uint64(0), zlibBytes(nil))
	f.Add(uint8(CompressZstd), uint64(0), uint64(1), zstdRaw(nil))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, kind uint8, declared, n uint64, payload []byte) {
		c := Compression(kind%3 + 1)
		defer watchdog(fmt.Sprintf("kind=%d declared=%d n=%d payload=%x", kind, declared, n, payload))()
		var sec []byte
		switch c {
		case CompressZlib:
			sec = append(chdr(true, false, elf.COMPRESS_ZLIB, declared), payload...)
		case CompressZstd:
			sec = append(chdr(true, false, elf.COMPRESS_ZSTD, declared), payload...)
		case CompressZdebug:
			sec = append([]byte("ZLIB"), byte(declared>>56), byte(declared>>48), byte(declared>>40), byte(declared>>32),
				byte(declared>>24), byte(declared>>16), byte(declared>>8), byte(declared))
			sec = append(sec, payload...)
		}
		te := &telf{is64: true, secs: []tsec{{name: sectionName(c), typ: elf.SHT_PROGBITS, flags: sectionFlags(c), data: sec}}}
		file, err := NewBytes(te.bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := file.Section(".debug_info")
		p, perr := s.Prefix(n)
		d, derr := s.Data()
		// A mapped file inflates into memory outside the heap: the same
		// bytes and errors, the memory released by Close.
		mapped := mappedCopy(t, dir, te.bytes())
		defer mapped.Close()
		ms := mapped.Section(".debug_info")
		mp, mperr := ms.Prefix(n)
		md, mderr := ms.Data()
		want := min(n, s.Size)
		if (mperr == nil) != (perr == nil) || mperr == nil && (uint64(len(mp)) < want || uint64(len(p)) < want ||
			!bytes.Equal(mp[:want], p[:want])) || (mderr == nil) != (derr == nil) || !bytes.Equal(md, d) {
			t.Fatalf("the mapped file disagrees: Prefix %v / %v, Data %v / %v", mperr, perr, mderr, derr)
		}
		if perr == nil && uint64(len(p)) < min(n, s.Size) {
			t.Fatalf("Prefix(%d) = %d bytes", n, len(p))
		}
		if derr != nil {
			return
		}
		if uint64(len(d)) != s.Size || (perr == nil && !bytes.HasPrefix(d, p)) {
			t.Fatalf("Data = %d bytes (Size %d); prefix consistent: %v", len(d), s.Size, bytes.HasPrefix(d, p))
		}
		// Release of any range: a byte outside the whole pages within it
		// keeps its value; one inside keeps it or (mapped, linux) reads 0.
		off, rn := n%(s.Size+1), declared
		ms.Release(off, rn)
		s.Release(off, rn)
		page := uint64(os.Getpagesize())
		lo, hi := (off+page-1)&^(page-1), (off+min(rn, s.Size-off))&^(page-1)
		got, _ := ms.Data()
		heap, _ := s.Data()
		for i := range got {
			in := uint64(i) >= lo && uint64(i) < hi
			if heap[i] != d[i] || got[i] != d[i] && !(in && got[i] == 0) {
				t.Fatalf("after Release(%d, %d), byte %d is %#x (heap %#x), was %#x", off, rn, i, got[i], heap[i], d[i])
			}
		}
		// Again inflates the released bytes again.
		as, err := ms.Again()
		if err != nil {
			t.Fatalf("Again after Release: %v", err)
		}
		if again, err := as.Data(); err != nil || !bytes.Equal(again, d) {
			t.Fatalf("Again's Data after Release: %v, equal %v", err, bytes.Equal(again, d))
		}
	})
}

// mappedCopy writes data to a new file in dir and opens it with Open
// (mapped); the file is removed when t ends.
func mappedCopy(t *testing.T, dir string, data []byte) *File {
	t.Helper()
	tf, err := os.CreateTemp(dir, "fuzz-*.elf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(tf.Name()) })
	_, err = tf.Write(data)
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(tf.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func payloadStart(c Compression) int {
	switch c {
	case CompressZlib, CompressZstd:
		return chdr64
	case CompressZdebug:
		return 12
	}
	return 0
}

// watchdog crashes the fuzz worker, printing what, if the input takes
// longer than any sane one could (the machine may be loaded, hence the
// margin): the fuzzer then records the input as a crasher, which it does
// not do for a plain hang. Call the returned func when done.
func watchdog(what string) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			panic("input hangs: " + what)
		}
	}()
	return func() { close(done) }
}
