package elfx

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// objFixtures returns the relocatable-object fixtures (testdata/obj/).
func objFixtures(t testing.TB) []string {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "obj", "*.o"))
	if len(paths) == 0 {
		t.Fatal("no fixtures in testdata/obj")
	}
	return paths
}

func openObj(t testing.TB, path string) (*File, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewBytes(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, raw
}

// TestRelocValue checks each operation's arithmetic as LLVM 14's
// resolvers compute it.
func TestRelocValue(t *testing.T) {
	tests := []struct {
		name    string
		m       *machine
		typ     uint32
		s, l, p uint64
		addend  int64
		want    uint64
	}{
		{"x86-64 64", &mX86_64, uint32(elf.R_X86_64_64), 0x1000, 0, 0x10, 0x20, 0x1020},
		{"x86-64 64 negative addend", &mX86_64, uint32(elf.R_X86_64_64), 0x1000, 0, 0x10, -0x20, 0xfe0},
		{"x86-64 32 ignores the field", &mX86_64, uint32(elf.R_X86_64_32), 0x1000, 0xdead, 0, 4, 0x1004},
		{"x86-64 PC32", &mX86_64, uint32(elf.R_X86_64_PC32), 0x1000, 0, 0x61, 0, 0x1000 - 0x61},
		{"i386 32 adds the field, not r_addend", &m386, uint32(elf.R_386_32), 0x100, 0x14, 0, 7, 0x114},
		{"i386 PC32", &m386, uint32(elf.R_386_PC32), 0x100, 0x4, 0x40, 0, 0x100 + 4 - 0x40},
		{"ARM ABS32 REL", &mARM, uint32(elf.R_ARM_ABS32), 0x200, 0x30, 0, 0, 0x230},
		{"ARM REL32", &mARM, uint32(elf.R_ARM_REL32), 0x200, 0x30, 0x10, 0, 0x220},
		{"AArch64 ABS32", &mAArch64, uint32(elf.R_AARCH64_ABS32), 0x10, 0x99, 0, 5, 0x15},
		{"PPC64 ADDR64", &mPPC64, uint32(elf.R_PPC64_ADDR64), 0x10, 0, 0, 5, 0x15},
		{"s390 64", &mS390, uint32(elf.R_390_64), 0x10, 0, 0, 5, 0x15},
		{"RISC-V 64 ignores the field", &mRISCV, uint32(elf.R_RISCV_64), 0x10, 0x99, 0, 5, 0x15},
		{"RISC-V ADD16", &mRISCV, uint32(elf.R_RISCV_ADD16), 0x40, 0x3, 0, 0x2, 0x45},
		{"RISC-V SUB16", &mRISCV, uint32(elf.R_RISCV_SUB16), 0x40, 0x45, 0, 0x2, 0x3},
		{"RISC-V SUB64 below 0 wraps", &mRISCV, uint32(elf.R_RISCV_SUB64), 0x10, 0x8, 0, 0, 1<<64 - 8},
		{"RISC-V SET6 keeps the top bits", &mRISCV, uint32(elf.R_RISCV_SET6), 0x45, 0xc1, 0, 0, 0xc5},
		{"RISC-V SUB6 keeps the top bits", &mRISCV, uint32(elf.R_RISCV_SUB6), 0x3, 0x45, 0, 0, 0x42},
		{"RISC-V SUB6 wraps in 6 bits", &mRISCV, uint32(elf.R_RISCV_SUB6), 0x5, 0x83, 0, 0, 0x80 | (0x3-0x5)&0x3f},
		{"RISC-V 32_PCREL", &mRISCV, uint32(elf.R_RISCV_32_PCREL), 0x100, 0, 0x61, 0, 0x100 - 0x61},
	}
	for _, tt := range tests {
		how, ok := tt.m.how(tt.typ)
		if !ok {
			t.Errorf("%s: type %d not resolved", tt.name, tt.typ)
			continue
		}
		if got := tt.m.value(how, tt.s, tt.addend, tt.l, tt.p); got != tt.want {
			t.Errorf("%s: value %#x, want %#x", tt.name, got, tt.want)
		}
	}
	// A RISC-V ADD/SUB pair at one offset gives the difference of the
	// symbols, as LLVM's chained resolution does.
	how, _ := mRISCV.how(uint32(elf.R_RISCV_ADD32))
	v := mRISCV.value(how, 0x1234, 0, 0, 0)
	how, _ = mRISCV.how(uint32(elf.R_RISCV_SUB32))
	if v = mRISCV.value(how, 0x1200, 0, v, 0); uint32(v) != 0x34 {
		t.Errorf("ADD32 then SUB32: %#x, want 0x34", v)
	}
	// Types LLVM 14 does not resolve.
	for _, c := range []struct {
		m   *machine
		typ uint32
	}{
		{&mX86_64, uint32(elf.R_X86_64_GLOB_DAT)}, {&mAArch64, uint32(elf.R_AARCH64_PREL16)},
		{&mRISCV, uint32(elf.R_RISCV_SET8)}, {&mRISCV, uint32(elf.R_RISCV_SET32)}, {&mARM, uint32(elf.R_ARM_NONE)},
	} {
		if _, ok := c.m.how(c.typ); ok {
			t.Errorf("type %d resolved; LLVM 14 does not", c.typ)
		}
	}
}

// TestRelocatedLikeLLVM checks the relocated debug sections of every
// object fixture against LLVM's own reading: a copy of the fixture whose
// debug sections hold our relocated bytes and whose relocation sections
// are hidden (made SHT_PROGBITS) must dump exactly as the original. Each
// fixture is checked as built, where every section is at 0, and moved:
// with each SHF_ALLOC section given an address of its own, which every
// symbol value then includes (so that REL's in-place addends and RISC-V's
// label pairs are checked with values that are not 0).
//
// Left out: .debug_frame, where LLVM reads DW_CFA_advance_loc's delta from
// the opcode byte, never relocated, while we apply RISC-V's SET6/SUB6 to
// it; DW_OP_addr operands of location expressions, which LLVM prints
// unrelocated; and, moved, .debug_aranges (see below).
func TestRelocatedLikeLLVM(t *testing.T) {
	dump, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	dir := t.TempDir()
	for _, path := range objFixtures(t) {
		for _, moved := range []bool{false, true} {
			if moved && testing.Short() {
				continue
			}
			name := filepath.Base(path)
			if moved {
				name += "-moved"
			}
			t.Run(name, func(t *testing.T) {
				_, raw := openObj(t, path)
				if moved {
					raw = moveSections(t, raw)
				}
				orig := filepath.Join(dir, name+".orig")
				if err := os.WriteFile(orig, raw, 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := NewBytes(raw, nil)
				if err != nil {
					t.Fatal(err)
				}
				out := slices.Clone(raw)
				changed := 0
				for _, s := range f.Sections {
					switch {
					case s.Relocated():
						if s.Compression != CompressNone {
							t.Skip("compressed debug sections: see TestRelocatedCompressed")
						}
						d, err := s.Data()
						if err != nil {
							t.Fatalf("%s: %v", s.Name, err)
						}
						if err := s.RelocationErr(); err != nil {
							t.Errorf("%s: %v", s.Name, err)
						}
						if !bytes.Equal(d, raw[s.Offset:s.Offset+s.FileSize]) {
							changed++
						}
						copy(out[s.Offset:], d)
					case (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && int(s.Info) < len(f.Sections) && f.Sections[s.Info].Relocated():
						setType(f, out, s, elf.SHT_PROGBITS)
					}
				}
				if changed == 0 && (moved || f.Machine != elf.EM_386 && f.Machine != elf.EM_ARM) {
					// Unmoved REL objects have their addends in place
					// already, against symbols at 0.
					t.Fatal("no debug section changed")
				}
				mod := filepath.Join(dir, name)
				if err := os.WriteFile(mod, out, 0o644); err != nil {
					t.Fatal(err)
				}
				var flags []string
				for _, sec := range []string{"info", "line", "addr", "str-offsets", "rnglists", "loclists", "ranges", "loc", "aranges"} {
					if sec == "aranges" && moved {
						// LLVM 14 reads .debug_aranges unrelocated
						// (DWARFDebugArangeSet::extract), which only
						// shows once the sections are moved: at 0, a
						// section's start relocates to 0.
						continue
					}
					flags = append(flags, "--debug-"+sec)
				}
				if _, _, ok := dwarfdump(dump, orig, flags...); !ok {
					// LLVM 14 cannot dump some of gcc's location lists at
					// all (DW_LLE_view_pair, views in .debug_loc): leave
					// out what it fails on.
					flags = slices.DeleteFunc(flags, func(flag string) bool {
						_, wantErr, ok := dwarfdump(dump, orig, flag)
						if !ok {
							t.Logf("%s: llvm-dwarfdump-14 fails on the original: %s", flag, strings.TrimSpace(wantErr))
						}
						return !ok
					})
				}
				compared := len(flags)
				want, wantErr, _ := dwarfdump(dump, orig, flags...)
				got, gotErr, _ := dwarfdump(dump, mod, flags...)
				if wantErr != "" || gotErr != "" {
					t.Errorf("llvm-dwarfdump-14 warned: original %q, relocated copy %q", wantErr, gotErr)
				}
				if want != got {
					t.Errorf("llvm-dwarfdump-14 %v reads the relocated copy differently:\n%s", flags, firstDiff(want, got))
				}
				if compared < 4 {
					t.Errorf("only %d sections compared", compared)
				}
			})
		}
	}
}

// moveSections returns a copy of the ELF64 or ELF32 object raw with each
// SHF_ALLOC section at an address of its own: (index+1) << 16.
func moveSections(t *testing.T, raw []byte) []byte {
	t.Helper()
	f, err := NewBytes(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(raw)
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		a := uint64(s.Index+1) << 16
		if f.Class == elf.ELFCLASS64 {
			f.ByteOrder.PutUint64(out[s.hdrOff+16:], a)
		} else {
			f.ByteOrder.PutUint32(out[s.hdrOff+12:], uint32(a))
		}
	}
	return out
}

// setType rewrites the sh_type of s in the file image out.
func setType(f *File, out []byte, s *Section, typ elf.SectionType) {
	f.ByteOrder.PutUint32(out[s.hdrOff+4:], uint32(typ))
}

var (
	dumpHeader = regexp.MustCompile(`(?m)^.*file format.*$`)
	// The section LLVM names after an address read through a relocation
	// (its SectionedAddress): the copy has no relocations, hence no names.
	// TestRelocationSection checks where those come from.
	dumpSecName = regexp.MustCompile(`(0x[0-9a-f]+\)?|\)) "\.[^"]*"`)
	dumpOpAddr  = regexp.MustCompile(`DW_OP_addr 0x[0-9a-f]+`)
)

// dwarfdump runs llvm-dwarfdump -v with flags on path; ok is false when it
// fails.
func dwarfdump(tool, path string, flags ...string) (out, warnings string, ok bool) {
	cmd := exec.Command(tool, append(append([]string{"-v"}, flags...), path)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	s := dumpHeader.ReplaceAllString(string(b), "")
	s = dumpOpAddr.ReplaceAllString(dumpSecName.ReplaceAllString(s, "$1"), "DW_OP_addr <addr>")
	return s, stderr.String(), err == nil
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  original: " + al[i] + "\n  copy:     " + bl[i]
		}
	}
	return "lengths differ"
}

// TestRelocatedCompressed: the -gz=zlib object's debug sections, inflated
// and relocated, are those of the same build uncompressed, both through
// Data and through a first Prefix; a linked file's compressed sections
// still inflate only as far as asked.
func TestRelocatedCompressed(t *testing.T) {
	dir := filepath.Join("..", "testdata", "obj")
	gz, _ := openObj(t, filepath.Join(dir, "reloc-x86_64-clang14-gz.o"))
	plain, _ := openObj(t, filepath.Join(dir, "reloc-x86_64-clang14-dwarf5.o"))
	n := 0
	for _, s := range gz.Sections {
		if !s.Relocated() || s.Compression == CompressNone {
			continue
		}
		n++
		want, err := plain.Section(s.Name).Data()
		if err != nil {
			t.Fatal(err)
		}
		// A prefix of a relocated section is the whole, relocated.
		p, err := s.Prefix(1)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !bytes.Equal(p, want) {
			t.Errorf("%s: Prefix(1) is not the relocated section (%d bytes, want %d)", s.Name, len(p), len(want))
		}
		if d, _ := s.Data(); !bytes.Equal(d, want) {
			t.Errorf("%s: Data differs from the uncompressed build's", s.Name)
		}
	}
	if n < 4 {
		t.Fatalf("%d compressed debug sections, want at least 4", n)
	}
}

// TestRelocatedCopies: relocation never writes the caller's bytes, and
// the heap (NoMmap, ReaderAt) and in-memory paths agree; sections of a
// linked file are not relocated and still alias it.
func TestRelocatedCopies(t *testing.T) {
	path := filepath.Join("..", "testdata", "obj", "reloc-x86_64-clang14-dwarf4.o")
	f, raw := openObj(t, path)
	orig := slices.Clone(raw)
	f2, err := NewReaderAt(bytes.NewReader(raw), int64(len(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	f3, err := Open(path, &Options{NoMmap: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f3.Close()
	for i, s := range f.Sections {
		d1, err1 := s.Data()
		d2, err2 := f2.Sections[i].Data()
		d3, err3 := f3.Sections[i].Data()
		if (err1 == nil) != (err2 == nil) || (err1 == nil) != (err3 == nil) || !bytes.Equal(d1, d2) || !bytes.Equal(d1, d3) {
			t.Errorf("%s: the three paths disagree (%v, %v, %v)", s.Name, err1, err2, err3)
		}
	}
	if !bytes.Equal(raw, orig) {
		t.Fatal("relocating wrote the caller's bytes")
	}
	info := f.Section(".debug_info")
	d, _ := info.Data()
	if &d[0] == &raw[info.Offset] {
		t.Error(".debug_info of an object aliases the file")
	}
	// A linked file: nothing is relocated, and the data aliases.
	exe, _ := openObj(t, filepath.Join("..", "testdata", "elf", "c-gcc-O2-dwarf5"))
	s := exe.Section(".debug_info")
	d, err = s.Data()
	if err != nil || s.Relocated() || s.RelocationErr() != nil {
		t.Fatalf("executable .debug_info: Relocated %v, %v, %v", s.Relocated(), err, s.RelocationErr())
	}
	if _, ok := s.RelocationSection(0); ok {
		t.Error("RelocationSection answers for a linked file")
	}
}

// TestRelocationSection: a DW_LNE_set_address names the section of its
// sequence through its relocation.
func TestRelocationSection(t *testing.T) {
	f, _ := openObj(t, filepath.Join("..", "testdata", "obj", "reloc-x86_64-clang14-dwarf5.o"))
	line := f.Section(".debug_line")
	secs := map[string]bool{}
	rs := relaFor(t, f, line)
	for _, r := range readRelas(t, f, rs) {
		if elf.R_X86_64(r.typ) != elf.R_X86_64_64 {
			continue
		}
		i, ok := line.RelocationSection(r.off)
		if !ok {
			t.Errorf("set_address operand at %#x: no section", r.off)
			continue
		}
		secs[f.Sections[i].Name] = true
	}
	for _, want := range []string{".text", ".init.text", ".text.unlikely."} {
		if !secs[want] {
			t.Errorf("no set_address in %s (have %v)", want, secs)
		}
	}
	// Against .debug_line_str: R_X86_64_32 at 0x22 names that section.
	if i, ok := line.RelocationSection(0x22); !ok || f.Sections[i].Name != ".debug_line_str" {
		t.Errorf("offset 0x22: section %d %v, want .debug_line_str", i, ok)
	}
	if _, ok := line.RelocationSection(0x23); ok {
		t.Error("offset 0x23 (inside a field) has a relocation")
	}
	// Concurrent first calls build the list once.
	f, _ = openObj(t, filepath.Join("..", "testdata", "obj", "reloc-x86_64-clang14-dwarf5.o"))
	line = f.Section(".debug_line")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, ok := line.RelocationSection(0x22); !ok {
				t.Error("concurrent RelocationSection found nothing")
			}
		})
	}
	wg.Wait()
}

type rela struct {
	at, off, info uint64
	sym           uint64
	typ           uint32
	addend        int64
}

// relaFor returns the relocation section of target.
func relaFor(t testing.TB, f *File, target *Section) *Section {
	t.Helper()
	for _, s := range f.Sections {
		if (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && s.Info == uint32(target.Index) {
			return s
		}
	}
	t.Fatalf("no relocation section for %s", target.Name)
	return nil
}

// readRelas decodes the entries of an ELF64 SHT_RELA section.
func readRelas(t testing.TB, f *File, rs *Section) []rela {
	t.Helper()
	d, err := rs.Data()
	if err != nil {
		t.Fatal(err)
	}
	var out []rela
	for at := 0; at+rela64 <= len(d); at += rela64 {
		info := f.ByteOrder.Uint64(d[at+8:])
		out = append(out, rela{at: uint64(at), off: f.ByteOrder.Uint64(d[at:]), info: info, sym: info >> 32,
			typ: uint32(info), addend: int64(f.ByteOrder.Uint64(d[at+16:]))})
	}
	return out
}

// TestRelocMalformed: a relocation that cannot be applied is skipped with
// a *DecodeError naming the relocation section and the entry, and every
// other one still applies.
func TestRelocMalformed(t *testing.T) {
	path := filepath.Join("..", "testdata", "obj", "reloc-x86_64-clang14-dwarf5.o")
	clean, raw := openObj(t, path)
	line := clean.Section(".debug_line")
	want, err := line.Data()
	if err != nil {
		t.Fatal(err)
	}
	plain := raw[line.Offset : line.Offset+line.FileSize]
	rs := relaFor(t, clean, line)
	relas := readRelas(t, clean, rs)
	// The victim: R_X86_64_32 against .debug_line_str + 0x14, a file name
	// of the header, so that skipping it leaves 0 where 0x14 belongs.
	const victim = 1
	v := relas[victim]
	if elf.R_X86_64(v.typ) != elf.R_X86_64_32 || v.addend == 0 {
		t.Fatalf("entry %d is %v%+d", victim, elf.R_X86_64(v.typ), v.addend)
	}
	bo := clean.ByteOrder
	entry := rs.Offset + v.at
	tests := []struct {
		name     string
		patch    func(b []byte)
		sentinel error
		at       uint64 // offset of the error in the relocation section
		text     string
		lost     string // what stays as in the file: the victim's field ("entry"), those of its symbol, the last entry's, or "all"
	}{
		{"offset past the section", func(b []byte) { bo.PutUint64(b[entry:], 1<<20) }, ErrFormat, v.at, "outside .debug_line", "entry"},
		{"field across the end", func(b []byte) { bo.PutUint64(b[entry:], uint64(len(want))-2) }, ErrFormat, v.at, "4-byte field", "entry"},
		{"symbol index past the table", func(b []byte) { bo.PutUint64(b[entry+8:], 9999<<32|v.info&0xffffffff) }, ErrFormat, v.at, "symbol index 9999", "entry"},
		{"unknown type", func(b []byte) { bo.PutUint64(b[entry+8:], v.sym<<32|uint64(elf.R_X86_64_GOTPCREL)) }, ErrUnsupportedRelocation, v.at, "type 9", "entry"},
		{"symbol in a section past the table", func(b []byte) {
			bo.PutUint16(b[symEntry(clean, v.sym)+6:], 500)
		}, ErrFormat, 0, "in section 500", "symbol"},
		{"bad sh_entsize", func(b []byte) { bo.PutUint64(b[rs.hdrOff+56:], 7) }, ErrFormat, 0, "sh_entsize 7", "all"},
		{"link to a non-symbol table", func(b []byte) { bo.PutUint32(b[rs.hdrOff+40:], uint32(line.Index)) }, ErrFormat, 0, "not a symbol table", "all"},
		{"truncated last entry", func(b []byte) { bo.PutUint64(b[rs.hdrOff+32:], rs.FileSize-5) }, ErrTruncated, rs.FileSize/rela64*rela64 - rela64, "bytes left", "last"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := slices.Clone(raw)
			tt.patch(b)
			f, err := NewBytes(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := f.Section(".debug_line")
			got, err := s.Data()
			if err != nil {
				t.Fatalf("Data: %v", err)
			}
			rerr := s.RelocationErr()
			var de *DecodeError
			if !errors.As(rerr, &de) {
				t.Fatalf("RelocationErr = %v, want a *DecodeError", rerr)
			}
			if de.Section != ".rela.debug_line" || de.Offset != tt.at || !errors.Is(rerr, tt.sentinel) || !strings.Contains(rerr.Error(), tt.text) {
				t.Errorf("RelocationErr = %v (section %q, offset %#x), want %s+%#x wrapping %v and saying %q",
					rerr, de.Section, de.Offset, ".rela.debug_line", tt.at, tt.sentinel, tt.text)
			}
			exp := slices.Clone(want)
			switch tt.lost {
			case "entry":
				copy(exp[v.off:v.off+4], plain[v.off:])
			case "all":
				exp = plain
			case "last":
				l := relas[len(relas)-1]
				copy(exp[l.off:l.off+8], plain[l.off:])
			case "symbol": // every relocation against the victim's symbol
				for _, r := range relas {
					if r.sym == v.sym {
						copy(exp[r.off:r.off+4], plain[r.off:])
					}
				}
			}
			if !bytes.Equal(got, exp) {
				for i := range got {
					if got[i] != exp[i] {
						t.Fatalf("byte %#x is %#x, want %#x: only the lost relocations may differ", i, got[i], exp[i])
					}
				}
			}
			// The other sections' relocations are untouched.
			if err := f.Section(".debug_info").RelocationErr(); err != nil {
				t.Errorf(".debug_info: %v", err)
			}
		})
	}
}

// symEntry returns the file offset of symbol i of .symtab.
func symEntry(f *File, i uint64) uint64 {
	return f.SectionByType(elf.SHT_SYMTAB).Offset + i*sym64
}
