package main

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// taggedSymbol is a symbol of taggedELF.
type taggedSymbol struct {
	name  string
	typ   elf.SymType
	shndx uint16
	value uint64
	size  uint64
}

// taggedELF lays out a small AArch64 executable whose symbol values carry
// tags in their top byte, as HWASan's tagged globals do, while its
// sections sit at untagged addresses: .text at 0x2000, .data at 0x1000.
func taggedELF(syms []taggedSymbol) []byte {
	le := binary.LittleEndian
	text, data := make([]byte, 16), make([]byte, 32)
	strtab := []byte{0}
	symtab := make([]byte, 24) // the null symbol
	for _, s := range syms {
		e := make([]byte, 24)
		le.PutUint32(e[0:], uint32(len(strtab)))
		e[4] = byte(elf.STB_GLOBAL)<<4 | byte(s.typ)
		le.PutUint16(e[6:], s.shndx)
		le.PutUint64(e[8:], s.value)
		le.PutUint64(e[16:], s.size)
		symtab = append(symtab, e...)
		strtab = append(append(strtab, s.name...), 0)
	}
	shstrtab := []byte("\x00.text\x00.data\x00.symtab\x00.strtab\x00.shstrtab\x00")
	type sec struct {
		name       uint32
		typ        elf.SectionType
		flags      elf.SectionFlag
		addr       uint64
		body       []byte
		link, info uint32
		entsize    uint64
	}
	secs := []sec{
		{},
		{1, elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, 0x2000, text, 0, 0, 0},
		{7, elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_WRITE, 0x1000, data, 0, 0, 0},
		{13, elf.SHT_SYMTAB, 0, 0, symtab, 4, 1, 24},
		{21, elf.SHT_STRTAB, 0, 0, strtab, 0, 0, 0},
		{29, elf.SHT_STRTAB, 0, 0, shstrtab, 0, 0, 0},
	}
	out := make([]byte, 64)
	offs := make([]int, len(secs))
	for i, s := range secs[1:] {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		offs[i+1] = len(out)
		out = append(out, s.body...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	for i, s := range secs {
		h := make([]byte, 64)
		if i > 0 {
			le.PutUint32(h[0:], s.name)
			le.PutUint32(h[4:], uint32(s.typ))
			le.PutUint64(h[8:], uint64(s.flags))
			le.PutUint64(h[16:], s.addr)
			le.PutUint64(h[24:], uint64(offs[i]))
			le.PutUint64(h[32:], uint64(len(s.body)))
			le.PutUint32(h[40:], s.link)
			le.PutUint32(h[44:], s.info)
			le.PutUint64(h[48:], 1)
			le.PutUint64(h[56:], s.entsize)
		}
		out = append(out, h...)
	}
	copy(out, elf.ELFMAG)
	out[elf.EI_CLASS], out[elf.EI_DATA], out[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1
	le.PutUint16(out[16:], uint16(elf.ET_EXEC))
	le.PutUint16(out[18:], uint16(elf.EM_AARCH64))
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[24:], 0x2000) // e_entry
	le.PutUint64(out[40:], uint64(shoff))
	le.PutUint16(out[52:], 64) // e_ehsize
	le.PutUint16(out[58:], 64) // e_shentsize
	le.PutUint16(out[60:], uint16(len(secs)))
	le.PutUint16(out[62:], uint16(len(secs)-1)) // e_shstrndx
	return out
}

// TestUntagAgainstLLVM compares --untag-addresses and
// --no-untag-addresses on symbols with tags in bits 56-63: untagged by
// default as llvm-symbolizer, not as llvm-addr2line, bit 55 copied into
// the top byte (a kernel address keeps its ones), and the addresses asked
// about never untagged.
func TestUntagAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	path := filepath.Join(t.TempDir(), "tagged")
	img := taggedELF([]taggedSymbol{
		{"tagged_object", elf.STT_OBJECT, 2, 0x0f00000000001000, 16},
		{"tagged_function", elf.STT_FUNC, 1, 0x0f00000000002000, 4},
		{"bit55_object", elf.STT_OBJECT, 2, 0x0080000000001010, 8},
		{"plain_function", elf.STT_FUNC, 1, 0x2008, 4},
		{"kernel_object", elf.STT_OBJECT, 2, 0xffff800000001018, 8},
	})
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdin strings.Builder
	for _, a := range []string{"0x1000", "0x1008", "0x0f00000000001008", "0x1010", "0x0080000000001010",
		"0xff80000000001010", "0xffff800000001018", "0x1018"} {
		stdin.WriteString("DATA " + a + "\n")
	}
	stdin.WriteString("0x2001\n0x0f00000000002001\n0x2009\nCODE 0x1004\nCODE 0x0f00000000001004\n")
	n := 0
	for _, fs := range []string{"", "--no-untag-addresses", "--no-untag-addresses --untag-addresses",
		"--untag-addresses --no-untag-addresses", "--output-style=JSON", "--output-style=GNU --no-untag-addresses -a"} {
		compareTools(t, sym, "llvm-symbolizer", comparison{args: append([]string{"--obj=" + path}, strings.Fields(fs)...),
			stdin: stdin.String(), stderr: true})
		n++
	}
	for _, fs := range []string{"-f", "-f --untag-addresses", "-f -a --untag-addresses --no-untag-addresses"} {
		compareTools(t, a2l, "llvm-addr2line", comparison{args: append([]string{"-e", path}, strings.Fields(fs)...),
			stdin: stdin.String(), stderr: true})
		n++
	}
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n)
}
