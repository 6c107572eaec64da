package elfx

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
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

func (t *telf) order() binary.ByteOrder {
	if t.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
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
		b := make([]byte, shsize)
		bo.PutUint32(b[0:], uint32(nameOff[i]))
		bo.PutUint32(b[4:], uint32(s.typ))
		if i == 0 {
			out = append(out, b...)
			continue
		}
		if t.is64 {
			bo.PutUint64(b[8:], uint64(s.flags))
			bo.PutUint64(b[24:], uint64(offs[i]))
			bo.PutUint64(b[32:], uint64(len(s.data)))
			bo.PutUint32(b[40:], s.link)
			bo.PutUint64(b[48:], s.align)
			bo.PutUint64(b[56:], s.entsize)
		} else {
			bo.PutUint32(b[8:], uint32(s.flags))
			bo.PutUint32(b[16:], uint32(offs[i]))
			bo.PutUint32(b[20:], uint32(len(s.data)))
			bo.PutUint32(b[24:], s.link)
			bo.PutUint32(b[32:], uint32(s.align))
			bo.PutUint32(b[36:], uint32(s.entsize))
		}
		out = append(out, b...)
	}
	h := out[:ehsize]
	copy(h, elf.ELFMAG)
	h[elf.EI_CLASS] = byte(elf.ELFCLASS32)
	if t.is64 {
		h[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	}
	h[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	if t.big {
		h[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	h[elf.EI_VERSION] = 1
	bo.PutUint16(h[16:], uint16(t.typ))
	bo.PutUint16(h[18:], uint16(elf.EM_X86_64))
	bo.PutUint32(h[20:], 1)
	if t.is64 {
		if len(t.progs) > 0 {
			bo.PutUint64(h[32:], uint64(phoff))
		}
		bo.PutUint64(h[40:], uint64(shoff))
		bo.PutUint16(h[52:], uint16(ehsize))
		bo.PutUint16(h[54:], uint16(phsize))
		bo.PutUint16(h[56:], uint16(len(t.progs)))
		bo.PutUint16(h[58:], uint16(shsize))
		bo.PutUint16(h[60:], uint16(len(secs)))
		bo.PutUint16(h[62:], uint16(len(secs)-1))
	} else {
		if len(t.progs) > 0 {
			bo.PutUint32(h[28:], uint32(phoff))
		}
		bo.PutUint32(h[32:], uint32(shoff))
		bo.PutUint16(h[40:], uint16(ehsize))
		bo.PutUint16(h[42:], uint16(phsize))
		bo.PutUint16(h[44:], uint16(len(t.progs)))
		bo.PutUint16(h[46:], uint16(shsize))
		bo.PutUint16(h[48:], uint16(len(secs)))
		bo.PutUint16(h[50:], uint16(len(secs)-1))
	}
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
