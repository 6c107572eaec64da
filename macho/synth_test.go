package macho

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// image assembles a small Mach-O image: a header, load commands, then a
// payload area that commands point into by absolute offsets.
// order is a byte order that can also append.
type order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type image struct {
	bo    order
	is64  bool
	cpu   CPU
	flags uint32
	cmds  [][]byte
	tail  []byte // placed after the commands, at tailOff()
}

func (m *image) hdrSize() int {
	if m.is64 {
		return 32
	}
	return 28
}

func (m *image) cmdsSize() int {
	n := 0
	for _, c := range m.cmds {
		n += len(c)
	}
	return n
}

// tailOff is the absolute offset of the first tail byte.
func (m *image) tailOff() uint32 { return uint32(m.hdrSize() + m.cmdsSize()) }

func (m *image) u32s(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = m.bo.AppendUint32(b, v)
	}
	return b
}

// cmd appends a load command; its size is fixed up from body.
func (m *image) cmd(c LoadCmd, body []byte) {
	b := m.u32s(uint32(c), uint32(8+len(body)))
	m.cmds = append(m.cmds, append(b, body...))
}

func (m *image) bytes() []byte {
	magic := Magic32
	if m.is64 {
		magic = Magic64
	}
	b := m.u32s(magic, uint32(m.cpu), 0, uint32(TypeExec), uint32(len(m.cmds)), uint32(m.cmdsSize()), m.flags)
	if m.is64 {
		b = m.u32s2(b, 0)
	}
	for _, c := range m.cmds {
		b = append(b, c...)
	}
	return append(b, m.tail...)
}

func (m *image) u32s2(b []byte, v uint32) []byte { return m.bo.AppendUint32(b, v) }

func name16(s string) []byte { b := make([]byte, 16); copy(b, s); return b }

// segment builds an LC_SEGMENT(_64) body with the given sections (name,
// addr, size, offset).
func (m *image) segment(name string, addr, size uint64, secs ...[4]any) {
	var b []byte
	b = append(b, name16(name)...)
	word := func(v uint64) {
		if m.is64 {
			b = m.bo.AppendUint64(b, v)
		} else {
			b = m.bo.AppendUint32(b, uint32(v))
		}
	}
	word(addr)
	word(size)
	word(0)
	word(0)
	b = append(b, m.u32s(7, 5, uint32(len(secs)), 0)...)
	for _, s := range secs {
		b = append(b, name16(s[0].(string))...)
		b = append(b, name16(name)...)
		word(s[1].(uint64))
		word(s[2].(uint64))
		b = append(b, m.u32s(s[3].(uint32), 0, 0, 0, 0, 0, 0)...)
		if m.is64 {
			b = append(b, m.u32s(0)...)
		}
	}
	c := LoadSegment
	if m.is64 {
		c = LoadSegment64
	}
	m.cmd(c, b)
}

// nlist encodes one symbol entry.
func (m *image) nlist(strx uint32, typ, sect uint8, desc uint16, value uint64) []byte {
	b := m.bo.AppendUint32(nil, strx)
	b = append(b, typ, sect)
	b = m.bo.AppendUint16(b, desc)
	if m.is64 {
		return m.bo.AppendUint64(b, value)
	}
	return m.bo.AppendUint32(b, uint32(value))
}

// sample builds an image exercising every decoded command, in the given
// byte order and width. The tail holds: symbols, strings, function starts.
func sample(bo order, is64 bool) []byte {
	m := &image{bo: bo, is64: is64, cpu: CPUPpc, flags: FlagTwoLevel}
	if is64 {
		m.cpu = CPUPpc64
	}
	m.segment("__TEXT", 0x1000, 0x1000, [4]any{"__text", uint64(0x1100), uint64(0x40), uint32(0)})
	m.cmd(LoadUUID, []byte("0123456789abcdef"))
	m.cmd(LoadDylib, append(m.u32s(24, 0, 0x10203, 0x10000), []byte("/usr/lib/libz.1.dylib\x00\x00\x00")...))
	m.cmd(LoadBuildVersion, m.u32s(1, 0xb0000, 0xc0100, 1, 3, 0x2a0000))
	m.cmd(LoadMain, append(m.bo.AppendUint64(nil, 0x100), make([]byte, 8)...))
	m.cmd(0x7777, []byte{1, 2, 3, 4})
	// Placeholders, patched below once the tail offset is known.
	m.cmd(LoadSymtab, make([]byte, 16))
	m.cmd(LoadFunctionStarts, make([]byte, 8))
	base := m.tailOff()
	strs := "\x00_f\x00_imp\x00x.o\x00"
	syms := append(m.nlist(1, nSect|nExt, 1, 0, 0x1100), m.nlist(4, nUndf|nExt, 0, 1<<8, 0)...)
	syms = append(syms, m.nlist(9, StabOSO, 0, 1, 12345)...)
	syms = append(syms, m.nlist(1, StabFUN, 1, 0, 0x1100)...)
	syms = append(syms, m.nlist(0, StabFUN, 0, 0, 0x10)...)
	fstarts := []byte{0x80, 0x02, 0x20, 0, 0, 0, 0, 0} // 0x100, 0x20, end
	m.tail = append(append(append(m.tail, syms...), strs...), fstarts...)
	symOff, strOff := base, base+uint32(len(syms))
	fsOff := strOff + uint32(len(strs))
	m.cmds[6] = append(m.u32s(uint32(LoadSymtab), 24), m.u32s(symOff, 5, strOff, uint32(len(strs)))...)
	m.cmds[7] = append(m.u32s(uint32(LoadFunctionStarts), 16), m.u32s(fsOff, uint32(len(fstarts)))...)
	return m.bytes()
}

func TestSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name string
		bo   order
		is64 bool
	}{{"le32", binary.LittleEndian, false}, {"le64", binary.LittleEndian, true},
		{"be32", binary.BigEndian, false}, {"be64", binary.BigEndian, true}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(sample(tc.bo, tc.is64))
			if err != nil {
				t.Fatal(err)
			}
			if f.Is64 != tc.is64 || f.BigEndian != (tc.bo == binary.BigEndian) {
				t.Errorf("is64 %v big %v", f.Is64, f.BigEndian)
			}
			if !f.HasUUID || string(f.UUID[:]) != "0123456789abcdef" {
				t.Errorf("uuid %v", f.UUID)
			}
			if len(f.Dylibs) != 1 || f.Dylibs[0].Name != "/usr/lib/libz.1.dylib" || f.Dylibs[0].CurrentVersion != 0x10203 {
				t.Errorf("dylibs %+v", f.Dylibs)
			}
			if len(f.Builds) != 1 || f.Builds[0].MinOS != 0xb0000 || len(f.Builds[0].Tools) != 1 || f.Builds[0].Tools[0].Tool != 3 {
				t.Errorf("builds %+v", f.Builds)
			}
			if f.Main == nil || f.Main.EntryOff != 0x100 {
				t.Errorf("main %+v", f.Main)
			}
			if l := f.Loads[5]; l.Cmd != 0x7777 || len(l.Raw) != 12 || l.Raw[8] != 1 {
				t.Errorf("unknown command %+v", l)
			}
			if s := f.Section("__TEXT", "__text"); s == nil || s.Addr != 0x1100 || s.Size != 0x40 {
				t.Errorf("section %+v", s)
			}
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			if syms[0].Name != "_f" || syms[0].Kind != KindDirect || syms[0].Value != 0x1100 {
				t.Errorf("sym 0 %+v", syms[0])
			}
			if d, ok := f.Library(&syms[1]); !ok || syms[1].Kind != KindUndefined || d.Name != "/usr/lib/libz.1.dylib" {
				t.Errorf("import %+v from %v", syms[1], d)
			}
			m, err := f.DebugMap()
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Objects) != 1 || m.Objects[0].Path != "x.o" || m.Objects[0].Timestamp != 12345 ||
				len(m.Objects[0].Symbols) != 1 || m.Objects[0].Symbols[0] != (DebugSymbol{Name: "_f", Addr: 0x1100, Size: 0x10}) {
				t.Errorf("debug map %+v", m)
			}
			starts, err := f.FunctionStartAddrs(nil)
			if err != nil || len(starts) != 2 || starts[0] != 0x1100 || starts[1] != 0x1120 {
				t.Errorf("starts %x %v", starts, err)
			}
		})
	}
}

// TestVersionMin checks that each LC_VERSION_MIN_* command, which has no
// platform field, yields the platform its command number implies.
func TestVersionMin(t *testing.T) {
	for cmd, want := range map[LoadCmd]uint32{LoadVersionMinMac: 1, LoadVersionMinIOS: 2, LoadVersionMinTV: 3, LoadVersionMinWatch: 4} {
		m := &image{bo: binary.LittleEndian, is64: true, cpu: CPUArm64}
		m.cmd(cmd, m.u32s(0xa0f00, 0xb0000))
		f, err := Parse(m.bytes())
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		if len(f.Builds) != 1 || f.Builds[0].Cmd != cmd || f.Builds[0].Platform != want || f.Builds[0].MinOS != 0xa0f00 || f.Builds[0].SDK != 0xb0000 {
			t.Errorf("%v: builds %+v, want platform %d", cmd, f.Builds, want)
		}
	}
}

// TestRepeatedCommandError checks that an error about a repeated command
// points at the copy Parse kept (the last), not the first.
func TestRepeatedCommandError(t *testing.T) {
	m := &image{bo: binary.LittleEndian, is64: true, cpu: CPUArm64}
	m.cmd(LoadSymtab, m.u32s(0, 0, 0, 0))
	m.cmd(LoadSymtab, m.u32s(0, 1<<20, 0, 0))
	_, err := Parse(m.bytes())
	var de *DecodeError
	if want := uint64(32 + 24); !errors.As(err, &de) || !errors.Is(err, ErrTruncated) || de.Offset != want {
		t.Errorf("Parse: %v, want ErrTruncated at %#x", err, want)
	}
}

// TestBadInput corrupts the sample image field by field; each must give
// the stated sentinel, never a panic.
func TestBadInput(t *testing.T) {
	bo := binary.LittleEndian
	good := sample(bo, true)
	f, _ := Parse(good)
	symtabOff := f.Loads[6].Offset
	fsOff := f.Loads[7].Offset
	put := func(b []byte, off uint64, v uint32) []byte {
		c := append([]byte(nil), b...)
		bo.PutUint32(c[off:], v)
		return c
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"bad magic", put(good, 0, 0x12345678), ErrFormat},
		{"short header", good[:20], ErrTruncated},
		{"sizeofcmds past end", put(good, 20, uint32(len(good))), ErrTruncated},
		{"ncmds too many", put(good, 16, 1000), ErrFormat},
		{"cmdsize zero", put(good, 32+4, 0), ErrFormat},
		{"cmdsize 4", put(good, 32+4, 4), ErrFormat},
		{"cmdsize past cmds", put(good, symtabOff+4, 0x1000), ErrTruncated},
		{"nsects too many", put(good, 32+8+16+32+8, 50), ErrFormat},
		{"symbols past end", put(good, symtabOff+12, 1<<20), ErrTruncated},
		{"symoff past end", put(good, symtabOff+8, uint32(len(good))), ErrTruncated},
		{"strings past end", put(good, symtabOff+20, 1<<20), ErrTruncated},
		{"function starts past end", put(good, fsOff+12, 1<<20), ErrTruncated},
		{"dylib name outside", put(good, f.Loads[2].Offset+8, 200), ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.data)
			var de *DecodeError
			if !errors.Is(err, tc.want) || !errors.As(err, &de) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// A string index past the string table fails at symbol decoding.
	bad := append([]byte(nil), good...)
	bo.PutUint32(bad[f.Symtab.SymOff:], 0xffff)
	if f2, err := Parse(bad); err != nil {
		t.Fatal(err)
	} else if _, err := f2.Symbols(); !errors.Is(err, ErrFormat) {
		t.Errorf("n_strx past table: %v", err)
	}
}

func TestDecodeFunctionStarts(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want []uint64
		err  error
	}{
		{"empty", nil, nil, nil},
		{"terminated", []byte{4, 4, 0, 9}, []uint64{0x1004, 0x1008}, nil},
		{"unterminated at end", []byte{4, 4}, []uint64{0x1004, 0x1008}, nil},
		{"truncated uleb", []byte{4, 0x80, 0x80}, []uint64{0x1004}, ErrTruncated},
		{"overflowing uleb", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, nil, ErrOverflow},
		{"wraps", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, nil, ErrOverflow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeFunctionStarts(nil, tc.data, 0x1000, 0x40)
			if !errors.Is(err, tc.err) || len(got) != len(tc.want) {
				t.Fatalf("got %x, %v; want %x, %v", got, err, tc.want, tc.err)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("got %x want %x", got, tc.want)
				}
			}
			var de *DecodeError
			if err != nil && (!errors.As(err, &de) || de.Offset < 0x40) {
				t.Errorf("error offset not absolute: %v", err)
			}
		})
	}
	// Zero allocations when dst has room.
	data := []byte{4, 4, 4, 4, 0}
	dst := make([]uint64, 0, 8)
	if n := testing.AllocsPerRun(100, func() { dst, _ = DecodeFunctionStarts(dst[:0], data, 0, 0) }); n != 0 {
		t.Errorf("%v allocs per run", n)
	}
}

// fatOf wraps slices in a universal header (64-bit entries when fat64).
func fatOf(fat64 bool, slices ...[]byte) []byte {
	bo := binary.BigEndian
	magic, ent := MagicFat, 20
	if fat64 {
		magic, ent = MagicFat64, 32
	}
	hdr := bo.AppendUint32(bo.AppendUint32(nil, magic), uint32(len(slices)))
	off := uint64(8 + ent*len(slices))
	off = (off + 0xfff) &^ 0xfff
	var body []byte
	for _, s := range slices {
		f, _ := Parse(s)
		hdr = bo.AppendUint32(bo.AppendUint32(hdr, uint32(f.Header.CPU)), f.Header.SubCPU)
		if fat64 {
			hdr = bo.AppendUint64(bo.AppendUint64(hdr, off), uint64(len(s)))
			hdr = bo.AppendUint32(bo.AppendUint32(hdr, 12), 0)
		} else {
			hdr = bo.AppendUint32(bo.AppendUint32(hdr, uint32(off)), uint32(len(s)))
			hdr = bo.AppendUint32(hdr, 12)
		}
		body = append(body, s...)
		body = append(body, make([]byte, (0x1000-len(s)%0x1000)%0x1000)...)
		off += uint64(len(s)+0xfff) &^ 0xfff
	}
	out := append(hdr, make([]byte, 0x1000-len(hdr))...)
	return append(out, body...)
}

func TestFat64(t *testing.T) {
	arm := readFixture(t, "main.arm64")
	x86 := readFixture(t, "main.x86_64")
	for _, fat64 := range []bool{false, true} {
		data := fatOf(fat64, x86, arm)
		for _, arch := range []string{"arm64", "x86_64"} {
			f, err := Select(data, arch)
			if err != nil || f.Arch() != arch {
				t.Fatalf("fat64=%v %s: %v", fat64, arch, err)
			}
		}
	}
	// Overlapping slices, a slice past the end, a slice over the header.
	data := fatOf(true, x86, arm)
	bo := binary.BigEndian
	overlap := append([]byte(nil), data...)
	bo.PutUint64(overlap[8+32+8:], bo.Uint64(data[8+8:])+16) // slice 1 starts inside slice 0
	past := append([]byte(nil), data...)
	bo.PutUint64(past[8+16:], uint64(len(data))) // slice 0 size
	header := append([]byte(nil), data...)
	bo.PutUint64(header[8+8:], 8)
	java := []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52}
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{"overlap": {overlap, ErrFormat}, "past end": {past, ErrTruncated}, "over header": {header, ErrFormat},
		"java class": {java, ErrLimit}, "no arches": {[]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0}, ErrFormat},
		"entries past end": {[]byte{0xca, 0xfe, 0xba, 0xbf, 0, 0, 0, 2, 0}, ErrTruncated}} {
		if _, err := ParseFat(tc.data); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func TestSymbolAtAllocs(t *testing.T) {
	f := mustParse(t, "main.arm64")
	var s Symbol
	if n := testing.AllocsPerRun(100, func() {
		for i := range f.NumSymbols() {
			if err := f.SymbolAt(i, &s); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("SymbolAt allocates %v per run", n)
	}
}

func BenchmarkParse(b *testing.B) {
	data := readFixture(b, "main.arm64")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFileHasMagic checks the magic numbers FileHasMagic accepts on disk:
// thin images of both byte orders and widths, universal files of both
// kinds, and nothing else.
func TestFileHasMagic(t *testing.T) {
	dir := t.TempDir()
	thin := sample(binary.LittleEndian, true)
	cases := []struct {
		name string
		data []byte
		want bool
	}{
		{"le64", thin, true},
		{"le32", sample(binary.LittleEndian, false), true},
		{"be32", sample(binary.BigEndian, false), true},
		{"be64", sample(binary.BigEndian, true), true},
		{"fat", fatOf(false, thin), true},
		{"fat64", fatOf(true, thin), true},
		{"elf", []byte("\x7fELF\x02\x01\x01"), false},
		{"short", thin[:3], false},
		{"empty", nil, false},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := FileHasMagic(p); got != c.want || HasMagic(c.data) != c.want {
			t.Errorf("%s: FileHasMagic %v, HasMagic %v, want %v", c.name, got, HasMagic(c.data), c.want)
		}
	}
	if FileHasMagic(filepath.Join(dir, "missing")) || FileHasMagic(dir) {
		t.Error("a missing file or a directory has a Mach-O magic number")
	}
}
