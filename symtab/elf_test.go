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

// TestReadELFMachine covers the machine-specific rules of LLVM 14's
// ELFObjectFile.h: getSymbolValueImpl clears bit 0 of an STT_FUNC value on
// EM_ARM and EM_MIPS unless the symbol is SHN_ABS, and getSymbolFlags marks
// SF_FormatSpecific the names that SymbolizableObjectFile::addSymbol then
// drops. Each row was seen in llvm-symbolizer-14 on lld-linked output
// (clang --target=..., symbols added with llvm-objcopy-14 --add-symbol and
// their fields patched in place):
//   - armv7a: FUNC f at 0x20115 answers 0x20114..0x20128 with start
//     0x20114; IFUNC ifn at 0x102e9 answers from 0x102e9 (its resolver, a
//     FUNC at the same st_value, from 0x102e8); OBJECT and NOTYPE symbols
//     at odd values start there;
//   - armv7a: $a.2, $t.0, $d.1 and "$dummy" never answer, "$x" and
//     "$other" do; nor does any unnamed symbol, NOTYPE or FUNC, in .text or
//     .rodata (an unnamed NOTYPE at a Thumb function's odd value left that
//     function unnamed before this rule);
//   - aarch64: $d.1 and "$xyz" never answer, "$tfoo" and an unnamed NOTYPE
//     do (with an empty name);
//   - mipsel -mmicromips: mm at .dynsym value 0x10231 answers from 0x10230;
//     an unnamed symbol answers;
//   - riscv64: .LBB1_4 does answer (only nameless labels are markers);
//   - x86-64: an unnamed NOTYPE or FUNC answers, with an empty name.
func TestReadELFMachine(t *testing.T) {
	abs := uint16(elf.SHN_ABS)
	in := []rawSym{
		{"f", 0x20115, 20, elf.STT_FUNC, elf.STB_GLOBAL, 2},
		{"tab", 0x30165, 16, elf.STT_OBJECT, elf.STB_GLOBAL, 3},
		{"$t.0", 0x20114, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$a.2", 0x2015c, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$d.1", 0x20134, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"$x.0", 0x20200, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{".LBB1_4", 0x20300, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"", 0x20400, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 2},
		{"", 0x20115, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 3}, // the Android NDK shape: .rodata, at f's st_value
		{"", 0x20121, 2, elf.STT_FUNC, elf.STB_GLOBAL, 2},
		{"ifn", 0x20141, 4, elf.STT_GNU_IFUNC, elf.STB_GLOBAL, 2},
		{"label", 0x20145, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, 2},
		{"absf", 0x20151, 0, elf.STT_FUNC, elf.STB_GLOBAL, abs},
		{"$dummy", 0x20161, 2, elf.STT_FUNC, elf.STB_GLOBAL, 2},
		{"$other", 0x20170, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, 2},
		{"$xyz", 0x20180, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, 2},
		{"$tfoo", 0x20190, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, 2},
	}
	type view struct {
		Addr   uint64
		Marker bool
	}
	// want[i] is in[i] decoded for each machine.
	want := []struct{ none, arm, mips, aarch64, riscv view }{
		{view{0x20115, false}, view{0x20114, false}, view{0x20114, false}, view{0x20115, false}, view{0x20115, false}},
		{view{0x30165, false}, view{0x30165, false}, view{0x30165, false}, view{0x30165, false}, view{0x30165, false}},
		{view{0x20114, false}, view{0x20114, true}, view{0x20114, false}, view{0x20114, false}, view{0x20114, false}},
		{view{0x2015c, false}, view{0x2015c, true}, view{0x2015c, false}, view{0x2015c, false}, view{0x2015c, false}},
		{view{0x20134, false}, view{0x20134, true}, view{0x20134, false}, view{0x20134, true}, view{0x20134, false}},
		{view{0x20200, false}, view{0x20200, false}, view{0x20200, false}, view{0x20200, true}, view{0x20200, false}},
		{view{0x20300, false}, view{0x20300, false}, view{0x20300, false}, view{0x20300, false}, view{0x20300, false}},
		{view{0x20400, false}, view{0x20400, true}, view{0x20400, false}, view{0x20400, false}, view{0x20400, true}},
		{view{0x20115, false}, view{0x20115, true}, view{0x20115, false}, view{0x20115, false}, view{0x20115, true}},
		{view{0x20121, false}, view{0x20120, true}, view{0x20120, false}, view{0x20121, false}, view{0x20121, true}},
		{view{0x20141, false}, view{0x20141, false}, view{0x20141, false}, view{0x20141, false}, view{0x20141, false}},
		{view{0x20145, false}, view{0x20145, false}, view{0x20145, false}, view{0x20145, false}, view{0x20145, false}},
		{view{0x20151, false}, view{0x20151, false}, view{0x20151, false}, view{0x20151, false}, view{0x20151, false}},
		{view{0x20161, false}, view{0x20160, true}, view{0x20160, false}, view{0x20161, true}, view{0x20161, false}},
		{view{0x20170, false}, view{0x20170, false}, view{0x20170, false}, view{0x20170, false}, view{0x20170, false}},
		{view{0x20180, false}, view{0x20180, false}, view{0x20180, false}, view{0x20180, true}, view{0x20180, false}},
		{view{0x20190, false}, view{0x20190, true}, view{0x20190, false}, view{0x20190, false}, view{0x20190, false}},
	}
	tab, strs := buildELF(false, binary.LittleEndian, in)
	for _, m := range []struct {
		machine uint16
		pick    func(int) view
	}{
		{0, func(i int) view { return want[i].none }},
		{MachineARM, func(i int) view { return want[i].arm }},
		{MachineMIPS, func(i int) view { return want[i].mips }},
		{MachineAArch64, func(i int) view { return want[i].aarch64 }},
		{MachineRISCV, func(i int) view { return want[i].riscv }},
	} {
		syms, err := ReadELF(tab, strs, ELFOptions{Machine: m.machine})
		if err != nil {
			t.Fatal(err)
		}
		if len(syms) != len(want) {
			t.Fatalf("machine %d: %d symbols, want %d", m.machine, len(syms), len(want))
		}
		for i, s := range syms {
			if got := (view{s.Addr, s.Marker}); got != m.pick(i) {
				t.Errorf("machine %d: %q (st_value %#x): got %+v, want %+v", m.machine, s.Name, in[i].value, got, m.pick(i))
			}
		}
	}
}

// TestThumbTable replays the case of issue 9 end to end, from table bytes
// to lookups: in Android's libc++_shared.so (Thumb),
// std::__ndk1::basic_streambuf<char>::sputn is FUNC LOCAL at st_value
// 0x5de5, size 28, and unnamed NOTYPE symbols of another section share the
// value. llvm-symbolizer-14 names 0x5de4 to 0x5dff after sputn, as it did
// in the crafted libraries of TestReadELFMachine; the named NOTYPE and
// IFUNC symbols at odd values start there.
func TestThumbTable(t *testing.T) {
	const sputn = "_ZNSt6__ndk115basic_streambufIcNS_11char_traitsIcEEE5sputnEPKci"
	tab, strs := buildELF(false, binary.LittleEndian, []rawSym{
		{"$t", 0x5de4, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 12},
		{"", 0x5de5, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 13},
		{"", 0x5de5, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 17},
		{sputn, 0x5de5, 28, elf.STT_FUNC, elf.STB_LOCAL, 12},
		{"resolver", 0x5e01, 8, elf.STT_FUNC, elf.STB_LOCAL, 12},
		{"ifn", 0x5e01, 8, elf.STT_GNU_IFUNC, elf.STB_GLOBAL, 12},
		{"fnptr", 0x5e11, 0, elf.STT_NOTYPE, elf.STB_GLOBAL, 12},
		{"g", 0x5e11, 6, elf.STT_FUNC, elf.STB_GLOBAL, 12},
	})
	syms, err := ReadELF(tab, strs, ELFOptions{Machine: MachineARM, NumSections: 20})
	if err != nil {
		t.Fatal(err)
	}
	checkLookups(t, New(syms), []probe{
		{0x5de3, "", 0},
		{0x5de4, sputn, 0x5de4}, {0x5de5, sputn, 0x5de4}, {0x5de6, sputn, 0x5de4}, {0x5dff, sputn, 0x5de4},
		{0x5e00, "resolver", 0x5e00}, {0x5e01, "ifn", 0x5e01}, {0x5e08, "ifn", 0x5e01}, {0x5e09, "", 0},
		{0x5e10, "g", 0x5e10}, {0x5e11, "fnptr", 0x5e11}, {0x5e20, "fnptr", 0x5e11},
	})
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
