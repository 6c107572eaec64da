package elfx

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/symbolize-go/symbolize/locate"
)

var allCompressions = []Compression{CompressNone, CompressZlib, CompressZstd, CompressZdebug}

func sectionName(c Compression) string {
	if c == CompressZdebug {
		return ".zdebug_info"
	}
	return ".debug_info"
}

func sectionFlags(c Compression) elf.SectionFlag {
	if c == CompressZlib || c == CompressZstd {
		return elf.SHF_COMPRESSED
	}
	return 0
}

// TestCompressedSections decodes every storage form in every class and
// byte order, whole and by prefix.
func TestCompressedSections(t *testing.T) {
	raw := pattern(300_000) // spans several zstd blocks and buffer growths
	for _, is64 := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			for _, c := range allCompressions {
				t.Run(fmt.Sprintf("64=%v/big=%v/%v", is64, big, c), func(t *testing.T) {
					te := &telf{is64: is64, big: big, typ: elf.ET_EXEC, secs: []tsec{
						{name: sectionName(c), typ: elf.SHT_PROGBITS, flags: sectionFlags(c), data: compressed(is64, big, c, raw), align: 1},
					}}
					f, err := NewBytes(te.bytes(), nil)
					if err != nil {
						t.Fatal(err)
					}
					s := f.Section(".debug_info")
					if s == nil {
						t.Fatal("no .debug_info")
					}
					if s.Compression != c || s.Size != uint64(len(raw)) {
						t.Fatalf("Compression, Size = %v, %d; want %v, %d", s.Compression, s.Size, c, len(raw))
					}
					for _, n := range []uint64{0, 10, 70_000, 70_001, 200_000} {
						p, err := s.Prefix(n)
						if err != nil {
							t.Fatalf("Prefix(%d): %v", n, err)
						}
						if uint64(len(p)) < n || !bytes.Equal(p, raw[:len(p)]) {
							t.Fatalf("Prefix(%d): %d bytes, wrong content", n, len(p))
						}
					}
					d, err := s.Data()
					if err != nil || !bytes.Equal(d, raw) {
						t.Fatalf("Data: %d bytes, %v", len(d), err)
					}
					if p, _ := s.Prefix(5); len(p) != len(raw) {
						t.Errorf("Prefix after Data: %d bytes, want the whole %d", len(p), len(raw))
					}
				})
			}
		}
	}
}

// TestLyingSections: compressed sections whose headers or streams lie give
// typed errors, never a panic or a silently cut section.
func TestLyingSections(t *testing.T) {
	raw := pattern(5000)
	z := zlibBytes(raw)
	corrupt := append([]byte(nil), z...)
	corrupt[len(corrupt)/2] ^= 0xff
	badSum := append([]byte(nil), z...)
	badSum[len(badSum)-1] ^= 1
	zs := zstdRaw(raw)
	tests := []struct {
		name  string
		flags elf.SectionFlag
		data  []byte
		want  error
	}{
		{"zlib declares more", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 6000), z...), ErrTruncated},
		{"zlib declares less", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 4000), z...), ErrFormat},
		{"zstd declares more", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZSTD, 6000), zs...), ErrTruncated},
		{"zstd declares less", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZSTD, 4999), zs...), ErrFormat},
		{"bomb", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 1<<40), z...), ErrLimit},
		{"max size", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, math.MaxUint64), z...), ErrLimit},
		{"corrupt stream", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 5000), corrupt...), ErrFormat},
		{"bad checksum", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 5000), badSum...), ErrFormat},
		{"cut stream", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZLIB, 5000), z[:len(z)/2]...), ErrTruncated},
		{"cut zstd", elf.SHF_COMPRESSED, append(chdr(true, false, elf.COMPRESS_ZSTD, 5000), zs[:100]...), ErrTruncated},
		{"no stream", elf.SHF_COMPRESSED, chdr(true, false, elf.COMPRESS_ZLIB, 5000), ErrTruncated},
		{"short chdr", elf.SHF_COMPRESSED, []byte{1, 0, 0}, ErrTruncated},
		{"unknown type", elf.SHF_COMPRESSED, append(chdr(true, false, 7, 5000), z...), ErrUnsupportedVersion},
		{"alloc", elf.SHF_COMPRESSED | elf.SHF_ALLOC, append(chdr(true, false, elf.COMPRESS_ZLIB, 5000), z...), ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := &telf{is64: true, secs: []tsec{{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: tt.flags, data: tt.data}}}
			f, err := NewBytes(te.bytes(), nil)
			if err != nil {
				t.Fatal(err)
			}
			s := f.Section(".debug_info")
			for range 2 { // the error is cached, not recomputed differently
				d, err := s.Data()
				var de *DecodeError
				if !errors.Is(err, tt.want) || !errors.As(err, &de) || d != nil {
					t.Fatalf("Data = %d bytes, %v; want %v", len(d), err, tt.want)
				}
				if de.Section != ".debug_info" || !strings.HasPrefix(err.Error(), "elfx: .debug_info+0x") {
					t.Errorf("error %q does not name the section", err)
				}
			}
		})
	}
}

func TestCorruptHeaders(t *testing.T) {
	te := &telf{is64: true, secs: []tsec{
		{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, pattern(1000))},
	}}
	good := te.bytes()
	patch := func(off int, v uint64, n int) []byte {
		b := append([]byte(nil), good...)
		switch n {
		case 2:
			binary.LittleEndian.PutUint16(b[off:], uint16(v))
		case 8:
			binary.LittleEndian.PutUint64(b[off:], v)
		}
		return b
	}
	shoff := binary.LittleEndian.Uint64(good[40:])
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not ELF", []byte("#!/bin/sh\necho hello world\n"), ErrFormat},
		{"header cut", good[:40], ErrTruncated},
		{"class", patch(4, 9, 2), ErrFormat},
		{"shoff past end", patch(40, uint64(len(good)), 8), ErrTruncated},
		{"shoff huge", patch(40, math.MaxUint64-10, 8), ErrTruncated},
		{"shnum huge", patch(60, 0xfff0, 2), ErrTruncated},
		{"shentsize small", patch(58, 8, 2), ErrFormat},
		{"shstrndx range", patch(62, 9, 2), ErrFormat},
		{"shstrndx not strtab", patch(62, 1, 2), ErrFormat},
		{"section table cut", good[:shoff+70], ErrTruncated},
		{"phnum huge", patch(56, 0xfff0, 2), ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewBytes(tt.data, nil)
			var de *DecodeError
			if !errors.Is(err, tt.want) || !errors.As(err, &de) {
				t.Fatalf("NewBytes = %v; want %v", err, tt.want)
			}
		})
	}
	// Every truncation either fails to open or yields sections whose
	// data fails cleanly.
	for n := range len(good) {
		if f, err := NewBytes(good[:n], nil); err == nil {
			touchAll(f)
		}
	}
}

// touchAll exercises every accessor, as the fuzz targets do.
func touchAll(f *File) {
	for _, s := range f.Sections {
		s.Prefix(100)
		s.Data()
	}
	f.BuildID()
	f.DebugLink()
	f.Symbols()
	f.DynamicSymbols()
	f.FirstLoad()
	f.Identity("x")
}

func TestSectionOutsideFile(t *testing.T) {
	te := &telf{is64: false, secs: []tsec{{name: ".debug_line", typ: elf.SHT_PROGBITS, data: pattern(64)}}}
	b := te.bytes()
	f, err := NewBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Point the section past the end: the file still opens; the section
	// reports it.
	s := f.Section(".debug_line")
	hdr := b[s.hdrOff:]
	binary.LittleEndian.PutUint32(hdr[16:], uint32(len(b)-10))
	f, err = NewBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Section(".debug_line").Data(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("Data = %v, want ErrTruncated", err)
	}
}

func TestNotesAndSymbols(t *testing.T) {
	id := []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4}
	for _, is64 := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			te := &telf{is64: is64, big: big, typ: elf.ET_DYN}
			bo := te.order()
			ent := uint64(16)
			if is64 {
				ent = 24
			}
			te.secs = []tsec{
				{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, flags: elf.SHF_ALLOC, data: buildIDNote(bo, id), align: 4},
				{name: ".gnu_debuglink", typ: elf.SHT_PROGBITS, data: debugLink(bo, "prog.debug", 0x12345678), align: 4},
				{name: ".symtab", typ: elf.SHT_SYMTAB, data: make([]byte, 3*ent), link: 4, entsize: ent},
				{name: ".strtab", typ: elf.SHT_STRTAB, data: []byte("\x00main\x00")},
			}
			te.progs = []elf.ProgHeader{{Type: elf.PT_PHDR}, {Type: elf.PT_LOAD, Vaddr: 0x400000, Off: 0, Align: 0x1000}}
			f, err := NewBytes(te.bytes(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := f.BuildID()
			if err != nil || !ok || !bytes.Equal(got, id) {
				t.Errorf("BuildID = %x, %v, %v", got, ok, err)
			}
			name, crc, ok, err := f.DebugLink()
			if err != nil || !ok || name != "prog.debug" || crc != 0x12345678 {
				t.Errorf("DebugLink = %q, %#x, %v, %v", name, crc, ok, err)
			}
			st, ok, err := f.Symbols()
			if err != nil || !ok || len(st.Syms) != int(3*ent) || string(st.Strings) != "\x00main\x00" || st.Entsize != ent || st.BigEndian != big {
				t.Errorf("Symbols = %+v, %v, %v", st, ok, err)
			}
			if _, ok, err := f.DynamicSymbols(); ok || err != nil {
				t.Errorf("DynamicSymbols = %v, %v; want absent", ok, err)
			}
			p, ok := f.FirstLoad()
			if !ok || p.Vaddr != 0x400000 || f.Type != elf.ET_DYN || f.Machine != elf.EM_X86_64 {
				t.Errorf("FirstLoad = %+v, %v; Type %v", p, ok, f.Type)
			}
		}
	}
}

// TestConcurrentPrefix races readers of one section (run with -race).
func TestConcurrentPrefix(t *testing.T) {
	raw := pattern(1 << 20)
	te := &telf{is64: true, secs: []tsec{{name: ".debug_str", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, raw)}}}
	f, err := NewBytes(te.bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".debug_str")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			n := min(uint64(i)*150_000, uint64(len(raw)))
			p, err := s.Prefix(n)
			if err != nil || uint64(len(p)) < n || !bytes.Equal(p, raw[:len(p)]) {
				t.Errorf("Prefix(%d): %d bytes, %v", n, len(p), err)
			}
		})
	}
	wg.Wait()
	if d, err := s.Data(); err != nil || !bytes.Equal(d, raw) {
		t.Fatalf("Data: %v", err)
	}
}

func TestDataAllocs(t *testing.T) {
	te := &telf{is64: true, secs: []tsec{
		{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: elf.SHF_COMPRESSED, data: compressed(true, false, CompressZlib, pattern(1000))},
		{name: ".debug_line", typ: elf.SHT_PROGBITS, data: pattern(100)},
	}}
	f, err := NewBytes(te.bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".debug_info", ".debug_line"} {
		s := f.Section(name)
		s.Data()
		if n := testing.AllocsPerRun(100, func() { s.Data(); s.Prefix(10); f.Section(name) }); n != 0 {
			t.Errorf("%s: cached Data allocates %v times", name, n)
		}
	}
}

// writeFile writes b to dir/name, creating directories.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenDebugBuildID(t *testing.T) {
	dir := t.TempDir()
	bo := binary.LittleEndian
	id := []byte{0xab, 0xcd, 0x01, 0x02, 0x03}
	otherID := []byte{0xab, 0xcd, 0x09, 0x09, 0x09}
	mk := func(id []byte, link string, debug bool) []byte {
		te := &telf{is64: true, typ: elf.ET_DYN, secs: []tsec{{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, data: buildIDNote(bo, id), align: 4}}}
		if link != "" {
			te.secs = append(te.secs, tsec{name: ".gnu_debuglink", typ: elf.SHT_PROGBITS, data: debugLink(bo, link, 0), align: 4})
		}
		if debug {
			te.secs = append(te.secs, tsec{name: ".debug_info", typ: elf.SHT_PROGBITS, data: pattern(50)})
		}
		return te.bytes()
	}
	binPath := writeFile(t, dir, "bin/prog", mk(id, "prog.debug", false))
	bin, err := Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	debugDir := filepath.Join(dir, "debug")
	loc := locate.Dirs{DebugDirs: []string{debugDir}}
	ctx := context.Background()

	// Nothing there yet: not found is not an error.
	if df, ok, err := OpenDebug(ctx, bin, binPath, &DebugOptions{Locator: loc}); df != nil || ok || err != nil {
		t.Fatalf("OpenDebug with no candidates = %v, %v, %v", df, ok, err)
	}

	// A file of the right name next to the binary, from another build,
	// is refused, naming both build IDs.
	writeFile(t, dir, "bin/prog.debug", mk(otherID, "", true))
	_, ok, err := OpenDebug(ctx, bin, binPath, &DebugOptions{Locator: loc})
	var ie *IdentityError
	if ok || !errors.As(err, &ie) || !ie.ByBuildID || !bytes.Equal(ie.Want, id) || !bytes.Equal(ie.Got, otherID) {
		t.Fatalf("OpenDebug with a foreign debug file = %v, %v", ok, err)
	}
	if msg := err.Error(); !strings.Contains(msg, hex.EncodeToString(id)) || !strings.Contains(msg, hex.EncodeToString(otherID)) {
		t.Errorf("error %q does not name both build IDs", msg)
	}

	// The right file under .build-id is found first.
	writeFile(t, debugDir, ".build-id/ab/cd010203.debug", mk(id, "", true))
	df, ok, err := OpenDebug(ctx, bin, binPath, &DebugOptions{Locator: loc})
	if err != nil || !ok {
		t.Fatalf("OpenDebug = %v, %v", ok, err)
	}
	defer df.Close()
	if df.Section(".debug_info") == nil {
		t.Error("debug file has no .debug_info")
	}
}

func TestOpenDebugCRC(t *testing.T) {
	dir := t.TempDir()
	bo := binary.LittleEndian
	debugBytes := (&telf{is64: true, secs: []tsec{{name: ".debug_info", typ: elf.SHT_PROGBITS, data: pattern(80)}}}).bytes()
	crc := crc32.ChecksumIEEE(debugBytes)
	mkBin := func(crc uint32) []byte {
		return (&telf{is64: true, secs: []tsec{{name: ".gnu_debuglink", typ: elf.SHT_PROGBITS, data: debugLink(bo, "prog.debug", crc), align: 4}}}).bytes()
	}
	binPath := writeFile(t, dir, "prog", mkBin(crc))
	writeFile(t, dir, ".debug/prog.debug", debugBytes)
	opts := &DebugOptions{Locator: locate.Dirs{DebugDirs: []string{}}}
	bin, err := Open(binPath, &Options{NoMmap: true})
	if err != nil {
		t.Fatal(err)
	}
	df, ok, err := OpenDebug(context.Background(), bin, binPath, opts)
	if err != nil || !ok {
		t.Fatalf("OpenDebug = %v, %v", ok, err)
	}
	df.Close()

	binPath = writeFile(t, dir, "prog", mkBin(crc^1))
	bin, err = Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	_, _, err = OpenDebug(context.Background(), bin, binPath, opts)
	var ie *IdentityError
	if !errors.As(err, &ie) || ie.ByBuildID || ie.WantCRC != crc^1 || ie.GotCRC != crc {
		t.Fatalf("OpenDebug with a CRC mismatch = %v", err)
	}
}

// TestExtendedNumbering: with e_shnum 0 and e_shstrndx SHN_XINDEX, the
// real values live in section 0's sh_size and sh_link [gABI 4].
func TestExtendedNumbering(t *testing.T) {
	te := &telf{is64: true, secs: []tsec{{name: ".debug_line", typ: elf.SHT_PROGBITS, data: pattern(10)}}}
	b := te.bytes()
	le := binary.LittleEndian
	shoff := le.Uint64(b[40:])
	n, strndx := le.Uint16(b[60:]), le.Uint16(b[62:])
	le.PutUint16(b[60:], 0)
	le.PutUint16(b[62:], 0xffff)
	le.PutUint64(b[shoff+32:], uint64(n))      // sh_size of section 0
	le.PutUint32(b[shoff+40:], uint32(strndx)) // sh_link of section 0
	f, err := NewBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != int(n) || f.Section(".debug_line") == nil {
		t.Fatalf("%d sections; want %d with .debug_line", len(f.Sections), n)
	}
}

// TestMappedInflateDropsPages inflates a zlib section of a mapped file whose
// stream is several release steps long: the compressed pages released
// behind the decoder must read back unchanged (they fault in again), and
// the output must be right.
func TestMappedInflateDropsPages(t *testing.T) {
	raw := make([]byte, 2*dropStep+12345)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32() >> 24) // incompressible: the payload is as long
	}
	te := &telf{is64: true, typ: elf.ET_EXEC, secs: []tsec{
		{name: ".debug_info", typ: elf.SHT_PROGBITS, flags: sectionFlags(CompressZlib), data: compressed(true, false, CompressZlib, raw), align: 1},
	}}
	img := te.bytes()
	f := openImage(t, img)
	s := f.Section(".debug_info")
	if s.payloadLen < 2*dropStep {
		t.Fatalf("payload of %d bytes: too short to test", s.payloadLen)
	}
	d, err := s.Data()
	if err != nil || !bytes.Equal(d, raw) {
		t.Fatalf("Data: %d bytes, %v", len(d), err)
	}
	if s.dropped < s.payloadLen-8 {
		t.Errorf("released %d of %d payload bytes", s.dropped, s.payloadLen)
	}
	if !bytes.Equal(f.data, img) {
		t.Error("the mapping reads back changed")
	}
}
