package symtab

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rawSym is one ELF symbol as the builder writes it.
type rawSym struct {
	name  string
	value uint64
	size  uint64
	typ   elf.SymType
	bind  elf.SymBind
	shndx uint16
}

// buildELF encodes syms (after the null entry) as an Elf32_Sym or
// Elf64_Sym table in the given byte order, with its string table.
func buildELF(class64 bool, order binary.ByteOrder, syms []rawSym) (tab, strs []byte) {
	strs = []byte{0}
	entsize := 16
	if class64 {
		entsize = 24
	}
	tab = make([]byte, entsize) // null symbol
	for _, s := range syms {
		name := uint32(0)
		if s.name != "" {
			name = uint32(len(strs))
			strs = append(append(strs, s.name...), 0)
		}
		info := byte(s.bind)<<4 | byte(s.typ)&0xf
		e := make([]byte, entsize)
		if class64 {
			order.PutUint32(e[0:], name)
			e[4] = info
			order.PutUint16(e[6:], s.shndx)
			order.PutUint64(e[8:], s.value)
			order.PutUint64(e[16:], s.size)
		} else {
			order.PutUint32(e[0:], name)
			order.PutUint32(e[4:], uint32(s.value))
			order.PutUint32(e[8:], uint32(s.size))
			e[12] = info
			order.PutUint16(e[14:], s.shndx)
		}
		tab = append(tab, e...)
	}
	return tab, strs
}

var layouts = []struct {
	name    string
	class64 bool
	order   binary.ByteOrder
}{
	{"elf32le", false, binary.LittleEndian},
	{"elf32be", false, binary.BigEndian},
	{"elf64le", true, binary.LittleEndian},
	{"elf64be", true, binary.BigEndian},
}

func TestReadELFLayouts(t *testing.T) {
	in := []rawSym{
		{"main", 0x1050, 37, elf.STT_FUNC, elf.STB_GLOBAL, 15},
		{"counter", 0x4018, 4, elf.STT_OBJECT, elf.STB_GLOBAL, 26},
		{"local", 0x1170, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 15},
		{"weakfn", 0x11e0, 4, elf.STT_FUNC, elf.STB_WEAK, 15},
		{"ifn", 0x11e0, 8, elf.STT_GNU_IFUNC, elf.STB_GLOBAL, 15},
		{"tlsvar", 0, 4, elf.STT_TLS, elf.STB_GLOBAL, 20},
		{"absym", 0x1000, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, uint16(elf.SHN_ABS)},
		{"puts", 0, 0, elf.STT_FUNC, elf.STB_GLOBAL, uint16(elf.SHN_UNDEF)},
		{"comm", 8, 8, elf.STT_OBJECT, elf.STB_GLOBAL, uint16(elf.SHN_COMMON)},
		{"big", 0x12345678, 0x100, elf.STT_OBJECT, elf.STB_GLOBAL, uint16(elf.SHN_XINDEX)},
		{"", 0x2000, 0, elf.STT_SECTION, elf.STB_LOCAL, 17},
		{"a.c", 0, 0, elf.STT_FILE, elf.STB_LOCAL, uint16(elf.SHN_ABS)},
		{"uniq", 0x4020, 8, elf.STT_OBJECT, elf.SymBind(10) /* STB_GNU_UNIQUE */, 26},
	}
	want := []Symbol{
		{Name: "main", Addr: 0x1050, Size: 37, Section: 15, Index: 1, Kind: KindFunc, Bind: BindGlobal, Defined: true},
		{Name: "counter", Addr: 0x4018, Size: 4, Section: 26, Index: 2, Kind: KindObject, Bind: BindGlobal, Defined: true},
		{Name: "local", Addr: 0x1170, Section: 15, Index: 3, Kind: KindNone, Bind: BindLocal, Defined: true},
		{Name: "weakfn", Addr: 0x11e0, Size: 4, Section: 15, Index: 4, Kind: KindFunc, Bind: BindWeak, Defined: true},
		{Name: "ifn", Addr: 0x11e0, Size: 8, Section: 15, Index: 5, Kind: KindIFunc, Bind: BindGlobal, Defined: true},
		{Name: "tlsvar", Size: 4, Section: 20, Index: 6, Kind: KindTLS, Bind: BindGlobal, Defined: true},
		{Name: "absym", Addr: 0x1000, Section: 0xfff1, Index: 7, Kind: KindNone, Bind: BindGlobal},
		{Name: "puts", Index: 8, Kind: KindFunc, Bind: BindGlobal},
		{Name: "comm", Addr: 8, Size: 8, Section: 0xfff2, Index: 9, Kind: KindObject, Bind: BindGlobal},
		{Name: "big", Addr: 0x12345678, Size: 0x100, Section: 0xffff, Index: 10, Kind: KindObject, Bind: BindGlobal, Defined: true},
		{Addr: 0x2000, Section: 17, Index: 11, Kind: KindSection, Bind: BindLocal, Defined: true},
		{Name: "a.c", Section: 0xfff1, Index: 12, Kind: KindFile, Bind: BindLocal},
		{Name: "uniq", Addr: 0x4020, Size: 8, Section: 26, Index: 13, Kind: KindObject, Bind: BindUnique, Defined: true},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			tab, strs := buildELF(l.class64, l.order, in)
			got, err := ReadELF(tab, strs, ELFOptions{Class64: l.class64, BigEndian: l.order == binary.BigEndian})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ReadELF mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadELFMachine covers the machine-specific rules, each seen in
// llvm-symbolizer-14 on lld-linked output (clang --target=...):
//   - thumbv7: f is st_value 0x20115 and llvm-symbolizer answers 0x20114
//     with start 0x20114, so the Thumb bit is cleared (functions only);
//   - armv7a: $a.2 inside g never answers, g does;
//   - aarch64: $d.1 alone in .rodata answers nothing;
//   - riscv64: .LBB1_4 does answer (only nameless labels are markers).
func TestReadELFMachine(t *testing.T) {
	in := []rawSym{
		{"f", 0x20115, 20, elf.STT_FUNC, elf.STB_GLOBAL, 2},
		{"tab", 0x30165, 16, elf.STT_OBJECT, elf.STB_GLOBAL, 3},
		{"$t.0", 0x20114, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$a.2", 0x2015c, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$d.1", 0x20134, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$x.0", 0x20200, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{".LBB1_4", 0x20300, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"", 0x20400, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
	}
	type view struct {
		Addr   uint64
		Marker bool
	}
	cases := []struct {
		machine uint16
		want    []view
	}{
		{0, []view{{0x20115, false}, {0x30165, false}, {0x20114, false}, {0x2015c, false}, {0x20134, false}, {0x20200, false}, {0x20300, false}, {0x20400, false}}},
		{MachineARM, []view{{0x20114, false}, {0x30165, false}, {0x20114, true}, {0x2015c, true}, {0x20134, true}, {0x20200, false}, {0x20300, false}, {0x20400, false}}},
		{MachineMIPS, []view{{0x20114, false}, {0x30165, false}, {0x20114, false}, {0x2015c, false}, {0x20134, false}, {0x20200, false}, {0x20300, false}, {0x20400, false}}},
		{MachineAArch64, []view{{0x20115, false}, {0x30165, false}, {0x20114, false}, {0x2015c, false}, {0x20134, true}, {0x20200, true}, {0x20300, false}, {0x20400, false}}},
		{MachineRISCV, []view{{0x20115, false}, {0x30165, false}, {0x20114, false}, {0x2015c, false}, {0x20134, false}, {0x20200, false}, {0x20300, false}, {0x20400, true}}},
	}
	tab, strs := buildELF(false, binary.LittleEndian, in)
	for _, c := range cases {
		syms, err := ReadELF(tab, strs, ELFOptions{Machine: c.machine})
		if err != nil {
			t.Fatal(err)
		}
		var got []view
		for _, s := range syms {
			got = append(got, view{s.Addr, s.Marker})
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("machine %d (-want +got):\n%s", c.machine, d)
		}
	}
}

func TestReadELFNumSections(t *testing.T) {
	tab, strs := buildELF(true, binary.LittleEndian, []rawSym{
		{"in", 0x10, 1, elf.STT_FUNC, elf.STB_GLOBAL, 3},
		{"out", 0x20, 1, elf.STT_FUNC, elf.STB_GLOBAL, 4},
	})
	syms, err := ReadELF(tab, strs, ELFOptions{Class64: true, NumSections: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !syms[0].Defined || syms[1].Defined {
		t.Errorf("Defined = %v, %v; want true, false", syms[0].Defined, syms[1].Defined)
	}
}

func TestReadELFErrors(t *testing.T) {
	good, strs := buildELF(true, binary.LittleEndian, []rawSym{
		{"a", 0x10, 1, elf.STT_FUNC, elf.STB_GLOBAL, 1},
		{"b", 0x20, 1, elf.STT_FUNC, elf.STB_GLOBAL, 1},
	})
	cases := []struct {
		name     string
		tab      []byte
		strs     []byte
		sentinel error
		off      uint64
		nsyms    int
		msg      string
	}{
		{"partial entry", good[:len(good)-5], strs, ErrTruncated, 48, 1,
			"symtab: .dynsym+0x30: partial symbol entry: 19 of 24 bytes"},
		{"name past string table", good, strs[:3], ErrFormat, 48, 1,
			"symtab: .dynsym+0x30: st_name 0x3 outside string table of 3 bytes"},
		{"unterminated name", good, strs[:4], ErrFormat, 48, 1,
			"symtab: .dynsym+0x30: st_name 0x3: name not NUL-terminated"},
		{"shorter than the null entry", good[:10], strs, ErrTruncated, 0, 0,
			"symtab: .dynsym+0x0: partial symbol entry: 10 of 24 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			syms, err := ReadELF(c.tab, c.strs, ELFOptions{Class64: true, Section: ".dynsym"})
			var de *DecodeError
			if !errors.As(err, &de) || !errors.Is(err, c.sentinel) || de.Offset != c.off || de.Section != ".dynsym" {
				t.Fatalf("err = %v; want %v at .dynsym+%#x", err, c.sentinel, c.off)
			}
			if err.Error() != c.msg {
				t.Errorf("message %q; want %q", err.Error(), c.msg)
			}
			if len(syms) != c.nsyms {
				t.Errorf("%d symbols before the error; want %d", len(syms), c.nsyms)
			}
		})
	}
	// Empty sections and an empty string table are fine.
	if syms, err := ReadELF(nil, nil, ELFOptions{}); err != nil || len(syms) != 0 {
		t.Errorf("ReadELF(nil) = %v, %v", syms, err)
	}
	tab, _ := buildELF(false, binary.LittleEndian, []rawSym{{"", 0x10, 1, elf.STT_FUNC, elf.STB_GLOBAL, 1}})
	if syms, err := ReadELF(tab, nil, ELFOptions{}); err != nil || len(syms) != 1 || syms[0].Name != "" {
		t.Errorf("nameless symbol without string table = %v, %v", syms, err)
	}
}

func TestELFReaderSticky(t *testing.T) {
	good, strs := buildELF(false, binary.BigEndian, []rawSym{{"a", 1, 1, elf.STT_FUNC, elf.STB_GLOBAL, 1}})
	r := NewELFReader(good[:len(good)-1], strs, ELFOptions{BigEndian: true})
	var s Symbol
	err1 := r.Next(&s)
	err2 := r.Next(&s)
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v then %v; want the same error twice", err1, err2)
	}
	r = NewELFReader(good, strs, ELFOptions{BigEndian: true})
	if r.Len() != 1 {
		t.Errorf("Len = %d; want 1", r.Len())
	}
	if err := r.Next(&s); err != nil || s.Name != "a" {
		t.Fatalf("Next = %v, %+v", err, s)
	}
	if err := r.Next(&s); err != io.EOF {
		t.Errorf("after the last entry: %v; want io.EOF", err)
	}
}

// TestReadELFMatchesDebugELF compares every entry of every fixture's
// symbol tables with the standard library's decoding.
func TestReadELFMatchesDebugELF(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		ef := readELFFile(t, path)
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
			want, err := get()
			if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
				t.Fatalf("%s: %v", path, err)
			}
			got := ef.symtab
			if i == 1 {
				got = ef.dynsym
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d symbols; debug/elf has %d", path, len(got), len(want))
				continue
			}
			for j, w := range want {
				g := got[j]
				addr := w.Value
				if ef.opts.Machine == MachineARM && elf.ST_TYPE(w.Info) == elf.STT_FUNC {
					addr &^= 1
				}
				if g.Name != w.Name || g.Addr != addr || g.Size != w.Size || g.Section != uint32(w.Section) ||
					elfKind(uint8(elf.ST_TYPE(w.Info))) != g.Kind || elfBind(uint8(elf.ST_BIND(w.Info))) != g.Bind {
					t.Errorf("%s: symbol %d: got %+v; debug/elf %+v", path, j+1, g, w)
				}
			}
		}
		f.Close()
	}
}
