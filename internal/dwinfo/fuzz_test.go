package dwinfo

import "testing"

// fixtureSections returns the sections of every fixture that has
// .debug_info (none when the fixtures are absent).
func fixtureSections(f *testing.F) []Sections {
	var out []Sections
	for _, p := range fixturePaths() {
		if s, _, ok := loadELF(f, p); ok {
			out = append(out, s)
		}
	}
	return out
}

func FuzzAranges(f *testing.F) {
	for _, s := range fixtureSections(f) {
		if s.Aranges != nil {
			f.Add(s.Aranges, false)
		}
	}
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, data []byte, big bool) {
		d := New(Sections{Aranges: data, BigEndian: big}, nil)
		ar := d.Aranges()
		var a Arange
		for n := 0; ; n++ {
			if n > len(data) {
				t.Fatalf("more tuples than bytes")
			}
			if err := ar.Next(&a); err != nil {
				break
			}
		}
		ix := NewIndex(d)
		for _, pc := range []uint64{0, 1, 0x1000, ^uint64(0)} {
			ix.Lookup(pc)
		}
	})
}

func FuzzRangeLists(f *testing.F) {
	for _, s := range fixtureSections(f) {
		if s.Ranges != nil {
			f.Add(s.Ranges, []byte(nil), uint64(0), false, uint8(8), uint64(0x1000), uint64(0))
		}
		if s.Rnglists != nil {
			f.Add(s.Rnglists, s.Addr, uint64(12), true, uint8(8), uint64(0x1000), uint64(8))
		}
	}
	f.Fuzz(func(t *testing.T, data, addr []byte, off uint64, v5 bool, addrSize uint8, base, addrBase uint64) {
		d := New(Sections{Ranges: data, Rnglists: data, Addr: addr}, nil)
		rr := d.RangeList(off, v5, addrSize, base, addrBase)
		var rg Range
		for n := 0; ; n++ {
			if n > len(data) {
				t.Fatalf("more ranges than bytes")
			}
			if err := rr.Next(&rg); err != nil {
				break
			}
		}
	})
}

func FuzzEntries(f *testing.F) {
	// Small seeds keep the fuzzer fast: six 64 KiB inputs make each
	// minimisation take the whole budget.
	for _, s := range fixtureSections(f) {
		if len(s.Info) < 8<<10 {
			f.Add(s.Info, s.Abbrev, s.Str, s.StrOffsets, s.Addr, s.Rnglists, false)
		}
	}
	for _, dwarf64 := range []bool{false, true} {
		s := buildSynth(f, dwarf64, dwarf64).secs
		f.Add(s.Info, s.Abbrev, s.Str, s.StrOffsets, s.Addr, s.Rnglists, s.BigEndian)
	}
	f.Fuzz(func(t *testing.T, info, abbrev, str, strOff, addr, rnglists []byte, big bool) {
		d := New(Sections{Info: info, Abbrev: abbrev, Str: str, StrOffsets: strOff, Addr: addr,
			Rnglists: rnglists, Ranges: rnglists, BigEndian: big}, &Options{MaxDepth: 64})
		walkAll(d, len(info))
		ix := NewIndex(d)
		ix.Lookup(0x1000)
		ix.BuildAll()
	})
}

// walkAll exercises every decoding path of every unit, bounding each loop
// by the input size to catch non-advancing readers.
func walkAll(d *Data, n int) {
	hs, _ := d.Headers()
	for _, h := range hs {
		d.UnitContaining(h.Offset)
		d.UnitAt(h.Offset)
		u, err := d.LoadUnit(h)
		if err != nil {
			continue
		}
		er := u.Entries()
		var e Entry
		var f Field
		for i := 0; i <= n; i++ {
			if er.Next(&e) != nil {
				break
			}
			it := u.Attrs(&e)
			for it.Next(&f) {
				u.String(f.Val)
				u.Addr(f.Val)
				if r, ok := u.Ref(f.Val); ok {
					var e2 Entry
					if er2, err := u.EntriesAt(r); err == nil {
						er2.Next(&e2)
					}
					if u.EntryAt(r, &e2) == nil {
						// The skipping path, as package inline reads
						// referenced DIEs.
						it2 := u.Attrs(&e2)
						for j := 0; j <= n && it2.Skip(); j++ {
							it2.Peek()
						}
					}
				}
				if f.Attr == AttrRanges {
					rr := u.Ranges(f.Val)
					var rg Range
					for j := 0; j <= n && rr.Next(&rg) == nil; j++ {
					}
				}
			}
			if e.Tag == TagSubprogram {
				er.SkipChildren(&e)
			}
		}
		if er.Next(&e) == nil && er.Offset() > h.End {
			panic("reader passed unit end")
		}
	}
}
