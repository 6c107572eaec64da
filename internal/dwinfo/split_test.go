package dwinfo

import (
	"io"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// splitSynth is a split unit laid out as in a DWARF package: each of its
// contributions after some bytes of another unit's, so that every base
// must be right for its strings, addresses and ranges to read.
type splitSynth struct {
	secs   Sections
	bases  SplitBases
	subOff uint64 // the subprogram's DIE
}

const junk = 13 // bytes of "another unit" before each contribution

func buildSplit(t *testing.T, dwarf64, big bool) splitSynth {
	t.Helper()
	var s splitSynth
	ab := dwasm.New(big).Zeros(junk)
	s.bases.Abbrev = junk
	ab.ULEB(1).ULEB(uint64(TagCompileUnit)).U8(1)
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrx1))
	ab.ULEB(uint64(AttrRanges)).ULEB(uint64(dw.FormRnglistx))
	// A split unit carries no bases of its own; if it does, they are
	// ignored (LLVM reads none in a DWO unit).
	ab.ULEB(uint64(AttrAddrBase)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(uint64(AttrStrOffsetsBase)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(2).ULEB(uint64(TagSubprogram)).U8(0)
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrx))
	ab.ULEB(uint64(AttrLowPC)).ULEB(uint64(dw.FormAddrx))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(0)

	str := dwasm.New(big).CString("").CString("unit.c").CString("f")
	so := dwasm.New(big).Zeros(junk)
	s.bases.StrOffsets = junk
	l := so.BeginLength(dwarf64)
	so.U16(5).U16(0)
	so.Off(dwarf64, 1).Off(dwarf64, 8)
	so.End(l)

	// The skeleton file's .debug_addr, the unit's entries at addr_base.
	addr := dwasm.New(big).Zeros(junk)
	l = addr.BeginLength(dwarf64)
	addr.U16(5).U8(8).U8(0)
	s.bases.AddrBase = uint64(addr.Len())
	addr.U64(0x1000).U64(0x2000)
	addr.End(l)

	rl := dwasm.New(big).Zeros(junk)
	s.bases.Rnglists = junk
	l = rl.BeginLength(dwarf64)
	rl.U16(5).U8(8).U8(0).U32(1)
	tab := rl.Len()
	rl.Off(dwarf64, 0)
	rl.PutUint(tab, map[bool]int{false: 4, true: 8}[dwarf64], uint64(rl.Len()-tab))
	rl.U8(rleOffsetPair).ULEB(0x10).ULEB(0x20)
	rl.U8(rleEndOfList)
	rl.End(l)

	info := dwasm.New(big)
	l = info.BeginLength(dwarf64)
	info.U16(5).U8(uint8(UnitSplitCompile)).U8(8).Off(dwarf64, 0).U64(0xfeedface)
	info.ULEB(1).U8(0).ULEB(0).Off(dwarf64, 0x7777).Off(dwarf64, 0x7777)
	s.subOff = uint64(info.Len())
	info.ULEB(2).ULEB(1).ULEB(1)
	info.U8(0)
	info.End(l)
	s.secs = Sections{Info: info.Bytes(), Abbrev: ab.Bytes(), Str: str.Bytes(), StrOffsets: so.Bytes(),
		Addr: addr.Bytes(), Rnglists: rl.Bytes(), BigEndian: big}
	return s
}

func TestLoadSplitUnit(t *testing.T) {
	for _, dwarf64 := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			s := buildSplit(t, dwarf64, big)
			d := New(s.secs, nil)
			h, err := d.HeaderAt(0)
			if err != nil {
				t.Fatal(err)
			}
			if h.Type != UnitSplitCompile || h.DWOID != 0xfeedface {
				t.Fatalf("header %+v", h)
			}
			for _, base := range []bool{false, true} {
				b := s.bases
				b.Base, b.HasBase = 0x4000, base
				u, err := d.LoadSplitUnit(h, b)
				if err != nil {
					t.Fatalf("dwarf64=%v big=%v: %v", dwarf64, big, err)
				}
				if string(u.Root.Name) != "unit.c" || !u.Root.HasDWOID || u.Root.DWOID != 0xfeedface {
					t.Errorf("root %+v", u.Root)
				}
				if u.Root.AddrBase != s.bases.AddrBase {
					t.Errorf("addr_base %#x, want the skeleton's %#x", u.Root.AddrBase, s.bases.AddrBase)
				}
				var e Entry
				er, _ := u.EntriesAt(s.subOff)
				if err := er.Next(&e); err != nil {
					t.Fatal(err)
				}
				v, _, _ := u.Attr(&e, AttrName)
				if name, err := u.String(v); err != nil || string(name) != "f" {
					t.Errorf("subprogram name %q, %v", name, err)
				}
				v, _, _ = u.Attr(&e, AttrLowPC)
				if a, err := u.Addr(v); err != nil || a != 0x2000 {
					t.Errorf("low_pc %#x, %v", a, err)
				}
				rr := u.Ranges(u.Root.Ranges)
				var r Range
				if err := rr.Next(&r); err != nil {
					t.Fatal(err)
				}
				want := Range{0x10, 0x20}
				if base {
					want = Range{0x4010, 0x4020}
				}
				if r != want {
					t.Errorf("HasBase=%v: range %+v, want %+v", base, r, want)
				}
				if err := rr.Next(&r); err != io.EOF {
					t.Errorf("list does not end: %v", err)
				}
			}
			// Read as an ordinary unit, its strings are at the wrong
			// offsets: the bases matter.
			if u, err := d.LoadUnit(h); err == nil && string(u.Root.Name) == "unit.c" {
				t.Errorf("LoadUnit reads the split unit's name without its contribution")
			}
		}
	}
}

// TestLoadSplitUnitV4 is the GNU extension to DWARF 4: DW_FORM_GNU_str_index
// strings without a str_offsets header, DW_FORM_GNU_addr_index addresses,
// DW_AT_ranges offsets from the skeleton's DW_AT_GNU_ranges_base into the
// skeleton file's .debug_ranges.
func TestLoadSplitUnitV4(t *testing.T) {
	ab := dwasm.New(false)
	ab.ULEB(1).ULEB(uint64(TagCompileUnit)).U8(1)
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormGNUStrIndex))
	ab.ULEB(uint64(AttrGNUDWOID)).ULEB(uint64(dw.FormData8))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(2).ULEB(uint64(TagSubprogram)).U8(0)
	ab.ULEB(uint64(AttrLowPC)).ULEB(uint64(dw.FormGNUAddrIndex))
	ab.ULEB(uint64(AttrRanges)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(0)
	str := dwasm.New(false).CString("x").CString("u.c")
	so := dwasm.New(false).U32(0).U32(0).U32(2) // another unit's two, then ours
	addr := dwasm.New(false).U64(0).U64(0x3000)
	ranges := dwasm.New(false).Zeros(32) // another unit's lists
	ranges.U64(0x10).U64(0x20).U64(0).U64(0)
	info := dwasm.New(false)
	l := info.BeginLength(false)
	info.U16(4).U32(0).U8(8)
	info.ULEB(1).ULEB(0).U64(0xabc)
	sub := info.Len()
	info.ULEB(2).ULEB(0).U32(0)
	info.U8(0)
	info.End(l)
	d := New(Sections{Info: info.Bytes(), Abbrev: ab.Bytes(), Str: str.Bytes(), StrOffsets: so.Bytes(),
		Addr: addr.Bytes(), Ranges: ranges.Bytes()}, nil)
	h, err := d.HeaderAt(0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.LoadSplitUnit(h, SplitBases{AddrBase: 8, RangesBase: 32, StrOffsets: 8})
	if err != nil {
		t.Fatal(err)
	}
	if string(u.Root.Name) != "u.c" || u.Root.DWOID != 0xabc {
		t.Errorf("root %+v", u.Root)
	}
	var e Entry
	er, _ := u.EntriesAt(uint64(sub))
	if err := er.Next(&e); err != nil {
		t.Fatal(err)
	}
	v, _, _ := u.Attr(&e, AttrLowPC)
	if a, err := u.Addr(v); err != nil || a != 0x3000 {
		t.Errorf("low_pc %#x, %v", a, err)
	}
	v, _, _ = u.Attr(&e, AttrRanges)
	if off, err := u.RangesOffset(v); err != nil || off != 32 {
		t.Errorf("ranges at %#x, %v; want 0x20", off, err)
	}
	rr := u.Ranges(v)
	var r Range
	if err := rr.Next(&r); err != nil || r != (Range{0x10, 0x20}) {
		t.Errorf("range %+v, %v", r, err)
	}
	// An ordinary DWARF 4 unit reads the same offset from 0.
	if lu, err := d.LoadUnit(h); err != nil {
		t.Fatal(err)
	} else if off, _ := lu.RangesOffset(v); off != 0 {
		t.Errorf("non-split unit: ranges at %#x", off)
	}
	// A ranges base that makes the offset wrap is an error.
	if u, err := d.LoadSplitUnit(h, SplitBases{RangesBase: ^uint64(0)}); err == nil {
		if _, err := u.RangesOffset(dw.Value{Class: dw.ClassSecOffset, U: 2}); err == nil {
			t.Error("wrapping ranges offset accepted")
		}
	}
}
