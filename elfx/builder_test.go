package elfx

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// A tiny ELF assembler for tests: edge cases come from a builder, not
// hand-counted hex.

type tsec struct {
	name    string
	typ     elf.SectionType
	flags   elf.SectionFlag
	data    []byte
	link    uint32
	entsize uint64
	align   uint64
}

type telf struct {
	is64, big bool
	typ       elf.Type
	secs      []tsec // section 0 (null) and .shstrtab are added
	progs     []elf.ProgHeader
}

// byteOrder both reads and appends; binary.LittleEndian and BigEndian are
// both.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (t *telf) order() byteOrder {
	if t.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// word appends v as an address-sized field: 8 bytes in ELF64, 4 in ELF32.
// The ELF header and section headers order their fields alike in both
// classes; only these widen.
func (t *telf) word(b []byte, v uint64) []byte {
	if t.is64 {
		return t.order().AppendUint64(b, v)
	}
	return t.order().AppendUint32(b, uint32(v))
}

// bytes lays out: ELF header, program headers, section data (8-aligned),
// .shstrtab, section headers.
func (t *telf) bytes() []byte {
	bo := t.order()
	ehsize, shsize, phsize := 52, 40, 32
	if t.is64 {
		ehsize, shsize, phsize = 64, 64, 56
	}
	var out []byte
	out = append(out, make([]byte, ehsize)...)
	phoff := len(out)
	for _, p := range t.progs {
		b := make([]byte, phsize)
		bo.PutUint32(b[0:], uint32(p.Type))
		if t.is64 {
			bo.PutUint32(b[4:], uint32(p.Flags))
			bo.PutUint64(b[8:], p.Off)
			bo.PutUint64(b[16:], p.Vaddr)
			bo.PutUint64(b[24:], p.Paddr)
			bo.PutUint64(b[32:], p.Filesz)
			bo.PutUint64(b[40:], p.Memsz)
			bo.PutUint64(b[48:], p.Align)
		} else {
			bo.PutUint32(b[4:], uint32(p.Off))
			bo.PutUint32(b[8:], uint32(p.Vaddr))
			bo.PutUint32(b[12:], uint32(p.Paddr))
			bo.PutUint32(b[16:], uint32(p.Filesz))
			bo.PutUint32(b[20:], uint32(p.Memsz))
			bo.PutUint32(b[24:], uint32(p.Flags))
			bo.PutUint32(b[28:], uint32(p.Align))
		}
		out = append(out, b...)
	}
	secs := append([]tsec{{}}, t.secs...)
	secs = append(secs, tsec{name: ".shstrtab", typ: elf.SHT_STRTAB})
	var names []byte
	names = append(names, 0)
	nameOff := make([]int, len(secs))
	for i, s := range secs {
		if s.name != "" {
			nameOff[i] = len(names)
			names = append(names, s.name...)
			names = append(names, 0)
		}
	}
	secs[len(secs)-1].data = names
	offs := make([]int, len(secs))
	for i, s := range secs {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		offs[i] = len(out)
		if s.typ != elf.SHT_NOBITS {
			out = append(out, s.data...)
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	for i, s := range secs {
		if i == 0 {
			out = append(out, make([]byte, shsize)...)
			continue
		}
		out = bo.AppendUint32(out, uint32(nameOff[i]))
		out = bo.AppendUint32(out, uint32(s.typ))
		out = t.word(out, uint64(s.flags))
		out = t.word(out, 0) // sh_addr
		out = t.word(out, uint64(offs[i]))
		out = t.word(out, uint64(len(s.data)))
		out = bo.AppendUint32(out, s.link)
		out = bo.AppendUint32(out, 0) // sh_info
		out = t.word(out, s.align)
		out = t.word(out, s.entsize)
	}
	h := append([]byte(nil), elf.ELFMAG...)
	h = append(h, byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), 1)
	if t.is64 {
		h[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	}
	if t.big {
		h[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	h = append(h, make([]byte, 16-len(h))...)
	h = bo.AppendUint16(h, uint16(t.typ))
	h = bo.AppendUint16(h, uint16(elf.EM_X86_64))
	h = bo.AppendUint32(h, 1) // e_version
	h = t.word(h, 0)          // e_entry
	if len(t.progs) > 0 {
		h = t.word(h, uint64(phoff))
	} else {
		h = t.word(h, 0)
	}
	h = t.word(h, uint64(shoff))
	h = bo.AppendUint32(h, 0) // e_flags
	for _, v := range []int{ehsize, phsize, len(t.progs), shsize, len(secs), len(secs) - 1} {
		h = bo.AppendUint16(h, uint16(v))
	}
	copy(out, h)
	return out
}

// chdr returns an ELF compression header.
func chdr(is64, big bool, typ elf.CompressionType, size uint64) []byte {
	bo := binary.ByteOrder(binary.LittleEndian)
	if big {
		bo = binary.BigEndian
	}
	if is64 {
		b := make([]byte, 24)
		bo.PutUint32(b[0:], uint32(typ))
		bo.PutUint64(b[8:], size)
		bo.PutUint64(b[16:], 1)
		return b
	}
	b := make([]byte, 12)
	bo.PutUint32(b[0:], uint32(typ))
	bo.PutUint32(b[4:], uint32(size))
	bo.PutUint32(b[8:], 1)
	return b
}

func zlibBytes(raw []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(raw)
	w.Close()
	return b.Bytes()
}

// zstdRaw returns a zstd frame [RFC 8878 3.1.1] of raw (stored) blocks:
// valid zstd without a compressor, which the standard library lacks.
func zstdRaw(raw []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50} // magic; FHD 0; window 1 MiB
	for first := true; first || len(raw) > 0; first = false {
		n := min(len(raw), 1<<16)
		last := 0
		if n == len(raw) {
			last = 1
		}
		h := uint32(n)<<3 | uint32(last) // Block_Type 0: Raw_Block
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
		b = append(b, raw[:n]...)
		raw = raw[n:]
	}
	return b
}

// compressed returns section bytes holding raw compressed with c.
func compressed(is64, big bool, c Compression, raw []byte) []byte {
	switch c {
	case CompressZlib:
		return append(chdr(is64, big, elf.COMPRESS_ZLIB, uint64(len(raw))), zlibBytes(raw)...)
	case CompressZstd:
		return append(chdr(is64, big, elf.COMPRESS_ZSTD, uint64(len(raw))), zstdRaw(raw)...)
	case CompressZdebug:
		h := []byte("ZLIB\x00\x00\x00\x00\x00\x00\x00\x00")
		binary.BigEndian.PutUint64(h[4:], uint64(len(raw)))
		return append(h, zlibBytes(raw)...)
	}
	return raw
}

// buildIDNote returns an SHT_NOTE section body holding NT_GNU_BUILD_ID.
func buildIDNote(bo binary.ByteOrder, id []byte) []byte {
	b := make([]byte, 12)
	bo.PutUint32(b[0:], 4)
	bo.PutUint32(b[4:], uint32(len(id)))
	bo.PutUint32(b[8:], ntGNUBuildID)
	b = append(b, "GNU\x00"...)
	b = append(b, id...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// debugLink returns a .gnu_debuglink body.
func debugLink(bo binary.ByteOrder, name string, crc uint32) []byte {
	b := append([]byte(name), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	out, _ := binary.Append(b, bo, crc)
	return out
}

// pattern returns n bytes of compressible, position-dependent data.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i/7) ^ byte(i%13)
	}
	return b
}

// openImage writes img to a temporary file and opens it with Open (mapped);
// the file is closed when the test ends.
func openImage(t *testing.T, img []byte) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "image.elf")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
