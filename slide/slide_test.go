package slide

import (
	"debug/elf"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// A hand-written excerpt in the layout of a classic text crash report.
const crashText = `Process:               Fixture [123]
Code Type:             ARM-64 (Native)

Thread 0 Crashed:
0   fixture                       0x0000000104a3a5e8 main + 20

Binary Images:
       0x104a38000 -        0x104a3ffff +fixture (1.0 - 1) <4c4c4410-5555-3144-a111-9930bd2f6e5e> /tmp/fixture
       0x1a2b3c000 -        0x1a2b7ffff libsystem_kernel.dylib arm64e  <a1b2c3d4-0000-1111-2222-333344445555> /usr/lib/system/libsystem_kernel.dylib
       0x1b0000000 -        0x1b0000fff ??? (*) <00000000-0000-0000-0000-000000000000> /usr/lib/libunknown.dylib

External Modification Summary:
  Calls made by other processes targeting this process:
`

// A hand-written .ips report: a header line, then the body.
const ipsText = `{"app_name":"fixture","bug_type":"309","os_version":"macOS 14.0"}
{
  "uptime" : 100,
  "usedImages" : [
    {"source":"P","arch":"arm64","base":4356014080,"size":32768,"uuid":"4c4c4410-5555-3144-a111-9930bd2f6e5e","path":"\/tmp\/fixture","name":"fixture"},
    {"size":0,"source":"A","base":0,"uuid":"00000000-0000-0000-0000-000000000000"},
    {"source":"P","arch":"arm64e","base":7021510656,"size":278528,"uuid":"a1b2c3d4-0000-1111-2222-333344445555","path":"\/usr\/lib\/system\/libsystem_kernel.dylib","name":"libsystem_kernel.dylib"}
  ]
}`

func TestCrashText(t *testing.T) {
	mods, err := ParseCrashText([]byte(crashText))
	if err != nil {
		t.Fatal(err)
	}
	want := []Module{
		{Name: "fixture", Path: "/tmp/fixture", Start: 0x104a38000, End: 0x104a40000, UUID: "4c4c4410-5555-3144-a111-9930bd2f6e5e"},
		{Name: "libsystem_kernel.dylib", Path: "/usr/lib/system/libsystem_kernel.dylib", Start: 0x1a2b3c000, End: 0x1a2b80000, UUID: "a1b2c3d4-0000-1111-2222-333344445555", Arch: "arm64e"},
		{Name: "libunknown.dylib", Path: "/usr/lib/libunknown.dylib", Start: 0x1b0000000, End: 0x1b0001000, UUID: "00000000-0000-0000-0000-000000000000"},
	}
	if !reflect.DeepEqual(mods, want) {
		t.Errorf("got  %+v\nwant %+v", mods, want)
	}
	x := NewIndex(mods)
	m, ok := x.Lookup(0x104a3a5e8)
	if !ok || m.Name != "fixture" {
		t.Fatalf("lookup: %+v %v", m, ok)
	}
	m.Link = 0x100000000 // __TEXT vmaddr, from the binary
	if got := m.FileAddr(0x104a3a5e8); got != 0x1000025e8 {
		t.Errorf("file address %#x", got)
	}
	if _, ok := x.Lookup(0x104a40000); ok {
		t.Error("found a module past the inclusive end")
	}
	if _, err := ParseCrashText([]byte("Binary Images:\n0x1000 - zz foo <u> /p\n")); !errors.Is(err, ErrFormat) {
		t.Errorf("bad entry: %v", err)
	}
	if mods, err := ParseCrashText([]byte("no images here\n")); err != nil || len(mods) != 0 {
		t.Errorf("no section: %v %v", mods, err)
	}
}

func TestIPS(t *testing.T) {
	mods, err := ParseIPS([]byte(ipsText))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 3 || mods[0].Start != 4356014080 || mods[0].End != 4356014080+32768 || mods[0].Arch != "arm64" ||
		mods[0].Path != "/tmp/fixture" || mods[2].Name != "libsystem_kernel.dylib" || mods[1].End != 0 {
		t.Errorf("%+v", mods)
	}
	// The body alone is accepted too.
	body := ipsText[strings.IndexByte(ipsText, '\n')+1:]
	if m2, err := ParseIPS([]byte(body)); err != nil || !reflect.DeepEqual(m2, mods) {
		t.Errorf("body only: %v", err)
	}
	var de *DecodeError
	if _, err := ParseIPS([]byte("{\"a\":1}\n{\"usedImages\": [ {\"base\": \"x\"} ]}")); !errors.As(err, &de) || !errors.Is(err, ErrFormat) {
		t.Errorf("bad json: %v", err)
	}
}

func TestProcMaps(t *testing.T) {
	const maps = `55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234  /usr/bin/my prog
55d0c0a01000-55d0c0a03000 r-xp 00001000 08:01 1234  /usr/bin/my prog
7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0     [stack]
7f0000000000-7f0000001000 rw-p 00000000 00:00 0
`
	mods, err := ParseProcMaps([]byte(maps))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 4 || mods[1].Path != "/usr/bin/my prog" || mods[1].Offset != 0x1000 || mods[1].Perms != "r-xp" ||
		mods[2].Path != "[stack]" || mods[3].Path != "" || mods[0].Name != "my prog" {
		t.Errorf("%+v", mods)
	}
	// PIE text segment: p_offset 0x1000, p_vaddr 0x1000.
	segs := []Segment{{Vaddr: 0, Offset: 0, Filesz: 0x800, Memsz: 0x800, Flags: 4},
		{Vaddr: 0x1000, Offset: 0x1000, Filesz: 0x1a00, Memsz: 0x1a00, Flags: 5}}
	if a, ok := ELFFileAddr(&mods[1], segs, 0x55d0c0a01234, false); !ok || a != 0x1234 {
		t.Errorf("PIE: %#x %v", a, ok)
	}
	if _, ok := ELFFileAddr(&mods[1], segs, 0x55d0c0a03000, false); ok {
		t.Error("pc past the mapping")
	}
	for _, bad := range []string{"zz-1 r 0 0 0\n", "1000-2000 r-xp\n", "2000-1000 r-xp 0 0 0\n"} {
		if _, err := ParseProcMaps([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestELFFileAddrCases covers pprof's cases: segments whose p_vaddr and
// p_offset differ (lld's layout), a text segment not at a page boundary,
// and non-PIE executables.
func TestELFFileAddrCases(t *testing.T) {
	// lld: .text at p_offset 0x5f0, p_vaddr 0x15f0; mapped from offset 0.
	segs := []Segment{{Vaddr: 0, Offset: 0, Filesz: 0x5f0, Memsz: 0x5f0},
		{Vaddr: 0x15f0, Offset: 0x5f0, Filesz: 0x200, Memsz: 0x200, Flags: 5}}
	m := &Module{Start: 0x7f0000001000, End: 0x7f0000002000, Offset: 0}
	if a, ok := ELFFileAddr(m, segs, 0x7f0000001600, false); !ok || a != 0x1600 {
		t.Errorf("lld layout: %#x %v", a, ok)
	}
	if a, ok := ELFFileAddr(m, segs, 0x401000, true); ok {
		t.Errorf("fixed outside mapping: %#x", a)
	}
	exec := &Module{Start: 0x400000, End: 0x401000}
	if a, ok := ELFFileAddr(exec, nil, 0x400123, true); !ok || a != 0x400123 {
		t.Errorf("non-PIE: %#x %v", a, ok)
	}
	if s, ok := ELFSlide(0x7f0000001000, segs, 4096); !ok || s != 0x7f0000001000 {
		t.Errorf("ELFSlide = %#x %v", s, ok)
	}
	if s, _ := ELFSlide(0x555555554000, []Segment{{Vaddr: 0x400000}}, 0); Unslide(0x555555554010, s) != 0x400010 {
		t.Errorf("slide round trip")
	}
	if Unslide(0x1000, Slide(0x1000, 0x2000)) != 0x2000 {
		t.Error("negative slide does not round-trip")
	}
}

// TestSelf maps a PC of this test binary through /proc/self/maps and its
// program headers, and checks it against the symbol table.
func TestSelf(t *testing.T) {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	mods, err := ParseProcMaps(data)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	ef, err := elf.Open(exe)
	if err != nil {
		t.Skip(err)
	}
	defer ef.Close()
	var segs []Segment
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			segs = append(segs, Segment{Vaddr: p.Vaddr, Offset: p.Off, Filesz: p.Filesz, Memsz: p.Memsz, Flags: uint32(p.Flags)})
		}
	}
	// go test strips the symbol table, so check the code itself: the bytes
	// at the runtime pc (read through /proc/self/mem) must be the bytes the
	// computed file address names in .text.
	text := ef.Section(".text")
	if text == nil {
		t.Skip("no .text")
	}
	pc := uint64(reflect.ValueOf(TestSelf).Pointer())
	x := NewIndex(mods)
	m, ok := x.Lookup(pc)
	if !ok {
		t.Fatalf("pc %#x in no mapping", pc)
	}
	got, ok := ELFFileAddr(m, segs, pc, ef.Type == elf.ET_EXEC)
	if !ok || got < text.Addr || got+32 > text.Addr+text.Size {
		t.Fatalf("file address %#x %v outside .text (mapping %+v)", got, ok, m)
	}
	want := make([]byte, 32)
	if _, err := text.ReadAt(want, int64(got-text.Addr)); err != nil {
		t.Fatal(err)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Skip(err)
	}
	defer mem.Close()
	live := make([]byte, 32)
	if _, err := mem.ReadAt(live, int64(pc)); err != nil {
		t.Skip(err)
	}
	if !reflect.DeepEqual(live, want) {
		t.Errorf("code at pc %#x differs from file address %#x (ET %v)", pc, got, ef.Type)
	}
}

func TestModuleList(t *testing.T) {
	mods, err := ParseModuleList([]byte("# comment\n/usr/lib/libc.so.6 0x7f0000000000\n\nMy App 4096\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 2 || mods[0].Name != "libc.so.6" || mods[0].Start != 0x7f0000000000 || mods[1].Path != "My App" || mods[1].Start != 4096 {
		t.Errorf("%+v", mods)
	}
	x := NewIndex(mods)
	if m, ok := x.Lookup(0x7f0000000010); !ok || m.Name != "libc.so.6" {
		t.Errorf("lookup %+v", m)
	}
	if m, ok := x.Lookup(0x5000); !ok || m.Path != "My App" {
		t.Errorf("open-ended module %+v", m)
	}
	if _, ok := x.Lookup(0x10); ok {
		t.Error("found a module below all")
	}
	if n := testing.AllocsPerRun(100, func() { x.Lookup(0x5000) }); n != 0 {
		t.Errorf("Lookup allocates %v", n)
	}
	if _, err := ParseModuleList([]byte("lib zz\n")); !errors.Is(err, ErrFormat) {
		t.Errorf("bad address: %v", err)
	}
}

func BenchmarkLookup(b *testing.B) {
	var mods []Module
	for i := range 500 {
		mods = append(mods, Module{Start: uint64(i) << 20, End: uint64(i)<<20 + 1<<19})
	}
	x := NewIndex(mods)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Lookup(uint64(i%500)<<20 + 0x100)
	}
}

func FuzzParsers(f *testing.F) {
	f.Add([]byte(crashText))
	f.Add([]byte(ipsText))
	f.Add([]byte("55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234  /usr/bin/prog\n"))
	f.Add([]byte("/usr/lib/libc.so.6 0x7f0000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func([]byte) ([]Module, error){ParseCrashText, ParseIPS, ParseProcMaps, ParseModuleList} {
			mods, err := parse(data)
			if err != nil {
				continue
			}
			x := NewIndex(mods)
			for _, m := range mods {
				if got, ok := x.Lookup(m.Start); ok && (m.Start < got.Start || (got.End != 0 && m.Start >= got.End)) {
					t.Fatalf("lookup %#x returned %+v", m.Start, got)
				}
				ELFFileAddr(&m, []Segment{{Offset: 0x1000, Filesz: 0x100, Vaddr: 0x2000}}, m.Start+0x10, false)
			}
		}
	})
}
