package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
)

// words returns n bytes of text from a small vocabulary: DEFLATE cuts it
// into many dynamic-Huffman blocks, as it does DWARF, and it compresses
// about 3:1, so a few MB of stream.
func words(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	vocab := []string{"DW_TAG_subprogram", "std::", "vector", "<int>", "operator()", "basic_string", "allocator", "_ZN", "const", "&", " ", "\x00", "iterator", "ranges", "boost::asio::", "detail", "0x", "char", "unsigned long"}
	b := make([]byte, 0, n+32)
	for len(b) < n {
		b = append(b, vocab[rng.IntN(len(vocab))]...)
		if rng.IntN(16) == 0 {
			b = binary.LittleEndian.AppendUint64(b, rng.Uint64()) // a little noise
		}
	}
	return b[:n]
}

// TestWholeSectionParallel: a whole large zlib section is inflated on all
// cores, and gives what the serial decoder gives: the bytes, and on a
// damaged stream the same error.
func TestWholeSectionParallel(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	raw := words(24<<20, 1)
	good := compressed(true, false, CompressZlib, raw)
	hdr := len(chdr(true, false, elf.COMPRESS_ZLIB, 0))
	if len(good)-hdr < 4<<20 {
		t.Fatalf("stream of %d bytes is too short to be cut in parts", len(good)-hdr)
	}
	open := func(data []byte) *Section {
		te := &telf{is64: true, secs: []tsec{{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: data}}}
		f, err := NewBytes(te.bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return f.Section(".debug_info")
	}
	whole := func(data []byte) ([]byte, error) {
		s := open(data)
		if !s.parallelOK() {
			t.Fatal("a fresh large zlib section does not take the parallel path")
		}
		return s.Data()
	}
	serial := func(data []byte) ([]byte, error) {
		s := open(data)
		if _, err := s.Prefix(1); err != nil { // started: the serial path
			return nil, err
		}
		if s.parallelOK() {
			t.Fatal("a started section would take the parallel path")
		}
		return s.Data()
	}
	got, err := whole(good)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("whole: %d bytes, %v", len(got), err)
	}
	damaged := map[string][]byte{
		"truncated":  good[:hdr+(len(good)-hdr)*3/4],
		"bit flip":   flip(good, hdr+(len(good)-hdr)*2/3),
		"early flip": flip(good, hdr+(len(good)-hdr)/5),
		"checksum":   flip(good, len(good)-2),
		// The header declares a byte more, and a byte less, than the
		// stream holds.
		"declared more": append(chdr(true, false, elf.COMPRESS_ZLIB, uint64(len(raw)+1)), good[hdr:]...),
		"declared less": append(chdr(true, false, elf.COMPRESS_ZLIB, uint64(len(raw)-1)), good[hdr:]...),
	}
	if raceOn {
		// Under the race detector each decode takes seconds: two cases.
		for name := range damaged {
			if name != "truncated" && name != "bit flip" {
				delete(damaged, name)
			}
		}
	}
	for name, data := range damaged {
		_, perr := whole(data)
		_, serr := serial(data)
		if perr == nil || serr == nil || perr.Error() != serr.Error() {
			t.Errorf("%s: parallel %v, serial %v", name, perr, serr)
		}
		var de *DecodeError
		if !errors.As(perr, &de) {
			t.Errorf("%s: %T is not a *DecodeError", name, perr)
		}
	}
}

func flip(b []byte, at int) []byte {
	c := bytes.Clone(b)
	c[at] ^= 0x40
	return c
}
