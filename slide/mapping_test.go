package slide

import (
	"errors"
	"testing"
)

// TestParseProcMapsBadLines: a line that does not parse costs that line.
func TestParseProcMapsBadLines(t *testing.T) {
	data := "55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 42 /bin/a\n" +
		"garbage\n" +
		"55d0c0a01000-55d0c0a03000 r-xp 00001000 08:01 42 /bin/a\n" +
		"2000-1000 r-xp 0 0 0 /bin/b\n"
	mods, err := ParseProcMaps([]byte(data))
	if len(mods) != 2 || mods[1].Perms != "r-xp" || mods[1].Offset != 0x1000 {
		t.Fatalf("%+v", mods)
	}
	var de *DecodeError
	if !errors.Is(err, ErrFormat) || !errors.As(err, &de) || de.Offset != 56 {
		t.Fatalf("%v (%+v)", err, de)
	}
	// Garbage costs no more than a bounded list of errors.
	var junk []byte
	for range 10000 {
		junk = append(junk, "x y z\n"...)
	}
	mods, err = ParseProcMaps(junk)
	if len(mods) != 0 || err == nil {
		t.Fatal(mods, err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != maxLineErrors+1 {
		t.Errorf("%d errors kept", n)
	}
}

// TestMappingBase covers pprof's user-space cases.
func TestMappingBase(t *testing.T) {
	// A PIE as lld lays it out: p_offset and p_vaddr differ in the text
	// segment.
	pie := &ELFImage{Type: ELFDyn, Text: 1, Loads: []Segment{
		{Vaddr: 0, Offset: 0, Filesz: 0x5f0, Memsz: 0x5f0, Flags: 4, Align: 0x1000},
		{Vaddr: 0x15f0, Offset: 0x5f0, Filesz: 0x1a0, Memsz: 0x1a0, Flags: 5, Align: 0x1000},
		{Vaddr: 0x2790, Offset: 0x790, Filesz: 0x10, Memsz: 0x20, Flags: 6, Align: 0x1000},
	}}
	// Executable text of an ET_EXEC at its link address.
	exe := &ELFImage{Type: ELFExec, Text: 1, Loads: []Segment{
		{Vaddr: 0x400000, Offset: 0, Filesz: 0x500, Memsz: 0x500, Flags: 4, Align: 0x1000},
		{Vaddr: 0x401000, Offset: 0x1000, Filesz: 0x2000, Memsz: 0x2000, Flags: 5, Align: 0x1000},
	}}
	for _, c := range []struct {
		name string
		img  *ELFImage
		m    Module
		addr uint64
		base uint64
		err  error
	}{
		{"pie text", pie, Module{Start: 0x7f0000001000, End: 0x7f0000002000, Offset: 0}, 0x7f00000015f8, 0x7f0000001000 - 0x1000, nil},
		{"pie first page", pie, Module{Start: 0x7f0000000000, End: 0x7f0000001000, Offset: 0}, 0x7f0000000010, 0x7f0000000000, nil},
		{"exec", exe, Module{Start: 0x401000, End: 0x403000, Offset: 0x1000}, 0x401234, 0, nil},
		{"whole space", exe, Module{Start: 0, End: ^uint64(0)}, 0x401234, 0, nil},
		{"outside", pie, Module{Start: 0x7f0000001000, End: 0x7f0000002000}, 0x7f0000002000, 0, ErrOutsideMapping},
		{"no segment", exe, Module{Start: 0x500000, End: 0x501000, Offset: 0x9000}, 0x500010, 0, ErrNoSegment},
		{"rel at offset", &ELFImage{Type: ELFRel, Text: -1}, Module{Start: 0x1000, End: 0x2000, Offset: 0x40}, 0x1010, 0, ErrFileType},
		{"rel", &ELFImage{Type: ELFRel, Text: -1}, Module{Start: 0x1000, End: 0x2000}, 0x1010, 0x1000, nil},
		{"dyn without segments", &ELFImage{Type: ELFDyn, Text: -1}, Module{Start: 0x7000, End: 0x8000, Offset: 0x1000}, 0x7010, 0x6000, nil},
		{"core type", &ELFImage{Type: 4, Text: -1}, Module{Start: 0x7000, End: 0x8000}, 0x7010, 0, ErrFileType},
	} {
		base, err := MappingBase(c.img, &c.m, c.addr)
		if !errors.Is(err, c.err) || err == nil && base != c.base {
			t.Errorf("%s: base %#x, %v; want %#x, %v", c.name, base, err, c.base, c.err)
		}
		var me *MappingError
		if err != nil && (!errors.As(err, &me) || me.Addr != c.addr) {
			t.Errorf("%s: %T %v", c.name, err, err)
		}
	}
}

func FuzzParseProcMaps(f *testing.F) {
	f.Add([]byte("55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 42 /bin/a\n7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0     [stack]\n"))
	f.Add([]byte("1-2 r 0 0 0 x (deleted)\n\n\r\nzz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mods, err := ParseProcMaps(data)
		if len(mods) > len(data)/10+1 {
			t.Fatalf("%d modules from %d bytes", len(mods), len(data))
		}
		for _, m := range mods {
			if m.End < m.Start {
				t.Fatalf("%+v", m)
			}
			img := &ELFImage{Type: ELFDyn, Text: 0, Loads: []Segment{{Vaddr: m.Offset, Offset: m.Offset, Filesz: 0x1000, Memsz: 0x1000, Align: 0x1000}}}
			MappingBase(img, &m, m.Start)
		}
		_ = err
	})
}
