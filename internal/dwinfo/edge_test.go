package dwinfo

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// synth builds a one-unit DWARF 5 image: a compile unit using strx,
// addrx, rnglistx, implicit_const, indirect and sibling, with a subprogram
// child holding an inlined subroutine, in the given format and byte order.
type synth struct {
	secs                                 Sections
	cuDIE, subDIE, inlDIE, varDIE, after uint64
}

func buildSynth(t testing.TB, dwarf64, big bool) synth {
	t.Helper()
	var s synth
	os := 4
	if dwarf64 {
		os = 8
	}
	// .debug_abbrev
	ab := dwasm.New(big)
	ab.ULEB(1).ULEB(uint64(TagCompileUnit)).U8(1)
	ab.ULEB(uint64(AttrProducer)).ULEB(uint64(dw.FormStrx1))
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrx))
	ab.ULEB(uint64(AttrCompDir)).ULEB(uint64(dw.FormLineStrp))
	ab.ULEB(uint64(AttrLanguage)).ULEB(uint64(dw.FormImplicitConst)).SLEB(0x1d)
	ab.ULEB(uint64(AttrLowPC)).ULEB(uint64(dw.FormAddrx))
	ab.ULEB(uint64(AttrRanges)).ULEB(uint64(dw.FormRnglistx))
	ab.ULEB(uint64(AttrStmtList)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(uint64(AttrStrOffsetsBase)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(uint64(AttrAddrBase)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(uint64(AttrRnglistsBase)).ULEB(uint64(dw.FormSecOffset))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(2).ULEB(uint64(TagSubprogram)).U8(1)
	ab.ULEB(uint64(AttrSibling)).ULEB(uint64(dw.FormRef4))
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormString))
	ab.ULEB(uint64(AttrLowPC)).ULEB(uint64(dw.FormAddr))
	ab.ULEB(uint64(AttrHighPC)).ULEB(uint64(dw.FormIndirect))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(3).ULEB(uint64(TagInlinedSubroutine)).U8(0)
	ab.ULEB(uint64(AttrAbstractOrigin)).ULEB(uint64(dw.FormRefAddr))
	ab.ULEB(uint64(AttrCallLine)).ULEB(uint64(dw.FormUdata))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(4).ULEB(uint64(TagVariable)).U8(0)
	ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrp))
	ab.ULEB(0).ULEB(0)
	ab.ULEB(0)

	str := dwasm.New(big).CString("").CString("producer").CString("unit.c").CString("var")
	lineStr := dwasm.New(big).CString("/dir")
	so := dwasm.New(big)
	l := so.BeginLength(dwarf64)
	so.U16(5).U16(0)
	soBase := so.Len()
	so.Off(dwarf64, 1).Off(dwarf64, 10)
	so.End(l)
	addr := dwasm.New(big)
	l = addr.BeginLength(dwarf64)
	addr.U16(5).U8(8).U8(0)
	addrBase := addr.Len()
	addr.U64(0x1000).U64(0x2000)
	addr.End(l)
	rl := dwasm.New(big)
	l = rl.BeginLength(dwarf64)
	rl.U16(5).U8(8).U8(0).U32(1)
	rlBase := rl.Len()
	rl.Off(dwarf64, 0) // offsets[0], patched below
	list0 := rl.Len() - rlBase
	rl.U8(rleOffsetPair).ULEB(0).ULEB(0x10)
	rl.U8(rleStartxLength).ULEB(1).ULEB(0x20)
	rl.U8(rleEndOfList)
	rl.PutUint(rlBase, os, uint64(list0))
	rl.End(l)

	info := dwasm.New(big)
	// A small DWARF 4 unit first, so the unit under test starts at 15 and
	// unit-relative references must add that.
	l = info.BeginLength(false)
	info.U16(4).U32(0).U8(8).ULEB(4).U32(1)
	info.End(l)
	unitOff := info.Len()
	l = info.BeginLength(dwarf64)
	info.U16(5).U8(uint8(UnitCompile)).U8(8).Off(dwarf64, 0)
	s.cuDIE = uint64(info.Len())
	info.ULEB(1).U8(0).ULEB(1).Off(dwarf64, 0).ULEB(0).ULEB(0).Off(dwarf64, 0x40).
		Off(dwarf64, uint64(soBase)).Off(dwarf64, uint64(addrBase)).Off(dwarf64, uint64(rlBase))
	s.subDIE = uint64(info.Len())
	info.ULEB(2)
	sibAt := info.Len()
	info.U32(0).CString("f").U64(0x1000).ULEB(uint64(dw.FormData4)).U32(0x30)
	s.inlDIE = uint64(info.Len())
	info.ULEB(3).Off(dwarf64, s.subDIE).ULEB(300)
	info.U8(0) // end of subprogram's children
	s.varDIE = uint64(info.Len())
	info.PutUint(sibAt, 4, s.varDIE-uint64(unitOff))
	info.ULEB(4).Off(dwarf64, 1+9+7)
	info.U8(0) // end of unit's children
	info.End(l)
	s.after = uint64(info.Len())
	s.secs = Sections{Info: info.Bytes(), Abbrev: ab.Bytes(), Str: str.Bytes(), LineStr: lineStr.Bytes(),
		StrOffsets: so.Bytes(), Addr: addr.Bytes(), Rnglists: rl.Bytes(), BigEndian: big}
	return s
}

func TestSynthetic(t *testing.T) {
	for _, dwarf64 := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			s := buildSynth(t, dwarf64, big)
			d := New(s.secs, nil)
			hs, err := d.Headers()
			if err != nil || len(hs) != 2 {
				t.Fatalf("64=%v big=%v: headers %v %v", dwarf64, big, hs, err)
			}
			h := hs[1]
			if h.Offset != 16 || h.Dwarf64 != dwarf64 || h.Version != 5 || h.DIEOffset != s.cuDIE || h.End != s.after {
				t.Fatalf("header %+v", h)
			}
			u, err := d.LoadUnit(h)
			if err != nil {
				t.Fatal(err)
			}
			r := u.Root
			if string(r.Producer) != "producer" || string(r.Name) != "unit.c" || string(r.CompDir) != "/dir" ||
				r.Language != 0x1d || r.LowPC != 0x1000 || !r.HasLowPC || r.StmtList != 0x40 {
				t.Fatalf("root %+v", r)
			}
			got := collectRanges(t, u.Ranges(r.Ranges))
			if want := []Range{{0x1000, 0x1010}, {0x2000, 0x2020}}; !slices.Equal(got, want) {
				t.Fatalf("ranges %x, want %x", got, want)
			}
			er := u.Entries()
			var e Entry
			var offs []uint64
			var depths []int
			for er.Next(&e) == nil {
				offs = append(offs, e.Offset)
				depths = append(depths, e.Depth)
				switch e.Tag {
				case TagSubprogram:
					lo, _, _ := u.Attr(&e, AttrLowPC)
					hi, _, _ := u.Attr(&e, AttrHighPC)
					if end, err := u.HighPC(lo.U, hi); err != nil || end != 0x1030 {
						t.Fatalf("high_pc %#x %v", end, err)
					}
				case TagInlinedSubroutine:
					v, _, _ := u.Attr(&e, AttrAbstractOrigin)
					if ref, ok := u.Ref(v); !ok || ref != s.subDIE {
						t.Fatalf("abstract_origin %#x", ref)
					}
				case TagVariable:
					v, _, _ := u.Attr(&e, AttrName)
					if n, err := u.String(v); err != nil || string(n) != "var" {
						t.Fatalf("var name %q %v", n, err)
					}
				}
			}
			if want := []uint64{s.cuDIE, s.subDIE, s.inlDIE, s.varDIE}; !slices.Equal(offs, want) {
				t.Fatalf("offsets %x, want %x", offs, want)
			}
			if want := []int{0, 1, 2, 1}; !slices.Equal(depths, want) {
				t.Fatalf("depths %v, want %v", depths, want)
			}
			// SkipChildren jumps by DW_AT_sibling.
			er = u.Entries()
			er.Next(&e)
			er.Next(&e)
			if err := er.SkipChildren(&e); err != nil {
				t.Fatal(err)
			}
			if er.Next(&e); e.Offset != s.varDIE || e.Depth != 1 {
				t.Fatalf("after skip: %#x depth %d", e.Offset, e.Depth)
			}
			// Index falls back to the unit DIE's ranges (no aranges).
			ix := NewIndex(d)
			for pc, want := range map[uint64]bool{0xfff: false, 0x1000: true, 0x100f: true, 0x1010: false, 0x201f: true, 0x2020: false} {
				if off, ok := ix.Lookup(pc); ok != want || (ok && off != 16) {
					t.Errorf("Lookup(%#x) = %#x %v", pc, off, ok)
				}
			}
		}
	}
}

func TestDepthLimit(t *testing.T) {
	ab := dwasm.New(false).ULEB(1).ULEB(uint64(TagLexicalBlock)).U8(1).ULEB(0).ULEB(0).ULEB(0)
	info := dwasm.New(false)
	l := info.BeginLength(false)
	info.U16(4).U32(0).U8(8)
	for range 20 {
		info.ULEB(1)
	}
	info.End(l)
	d := New(Sections{Info: info.Bytes(), Abbrev: ab.Bytes()}, &Options{MaxDepth: 10})
	hs, _ := d.Headers()
	u, err := d.LoadUnit(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	er := u.Entries()
	var e Entry
	n := 0
	for err = er.Next(&e); err == nil; err = er.Next(&e) {
		n++
	}
	if !errors.Is(err, ErrLimit) || n != 10 {
		t.Fatalf("got %d entries, %v", n, err)
	}
	var de *DecodeError
	if !errors.As(err, &de) || de.Section != ".debug_info" || de.Offset != 11+10 {
		t.Fatalf("error %v", err)
	}
}

func TestBadAbbrevCode(t *testing.T) {
	ab := dwasm.New(false).ULEB(1).ULEB(uint64(TagCompileUnit)).U8(0).ULEB(0).ULEB(0).ULEB(0)
	info := dwasm.New(false)
	l := info.BeginLength(false)
	info.U16(4).U32(0).U8(8).ULEB(1).ULEB(7)
	info.End(l)
	d := New(Sections{Info: info.Bytes(), Abbrev: ab.Bytes()}, nil)
	hs, _ := d.Headers()
	u, err := d.LoadUnit(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	er := u.Entries()
	var e Entry
	er.Next(&e)
	err = er.Next(&e)
	if err == nil || err.Error() != "dwinfo: .debug_info+0xc: abbreviation code 7 not in table at 0x0" {
		t.Fatalf("got %v", err)
	}
}

func TestBackwardSiblingIgnored(t *testing.T) {
	ab := dwasm.New(false).
		ULEB(1).ULEB(uint64(TagCompileUnit)).U8(1).ULEB(0).ULEB(0).
		ULEB(2).ULEB(uint64(TagSubprogram)).U8(1).ULEB(uint64(AttrSibling)).ULEB(uint64(dw.FormRef1)).ULEB(0).ULEB(0).
		ULEB(3).ULEB(uint64(TagVariable)).U8(0).ULEB(0).ULEB(0).ULEB(0)
	info := dwasm.New(false)
	l := info.BeginLength(false)
	info.U16(4).U32(0).U8(8).ULEB(1)
	info.ULEB(2).U8(0) // sibling points at the unit header: backwards
	info.ULEB(3).U8(0)
	info.ULEB(3).U8(0)
	info.End(l)
	d := New(Sections{Info: info.Bytes(), Abbrev: ab.Bytes()}, nil)
	hs, _ := d.Headers()
	u, _ := d.LoadUnit(hs[0])
	er := u.Entries()
	var e Entry
	er.Next(&e)
	er.Next(&e)
	if err := er.SkipChildren(&e); err != nil {
		t.Fatal(err)
	}
	if err := er.Next(&e); err != nil || e.Offset != 16 || e.Depth != 1 {
		t.Fatalf("after skip %#x depth %d %v", e.Offset, e.Depth, err)
	}
	if err := er.Next(&e); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestRangeListsV4(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, as := range []int{4, 8} {
			max := ^uint64(0) >> (64 - 8*as)
			b := dwasm.New(big)
			b.Zeros(2)
			b.Uint(as, 0x10).Uint(as, 0x20)  // base 0x1000 applied
			b.Uint(as, max).Uint(as, 0x5000) // base selection
			b.Uint(as, 0x1).Uint(as, 0x2)    // 0x5001..0x5002
			b.Uint(as, 0x30).Uint(as, 0x30)  // empty, kept
			b.Uint(as, 0).Uint(as, 0)        // end
			b.Uint(as, 0x99).Uint(as, 0x99)  // not part of the list
			d := New(Sections{Ranges: b.Bytes(), BigEndian: big}, nil)
			got := collectRanges(t, d.RangeList(2, false, uint8(as), 0x1000, 0))
			want := []Range{{0x1010, 0x1020}, {0x5001, 0x5002}, {0x5030, 0x5030}}
			if !slices.Equal(got, want) {
				t.Errorf("big=%v as=%d: %x, want %x", big, as, got, want)
			}
			// Cut before the end entry: truncated, not a hang.
			d = New(Sections{Ranges: b.Bytes()[:2+3*2*as]}, nil)
			rr := d.RangeList(2, false, uint8(as), 0, 0)
			var rg Range
			var err error
			for range 10 {
				if err = rr.Next(&rg); err != nil {
					break
				}
			}
			if !errors.Is(err, ErrTruncated) {
				t.Errorf("truncated list: %v", err)
			}
		}
	}
}

func TestRnglistsKinds(t *testing.T) {
	addr := dwasm.New(false).U64(0).U64(0x100).U64(0x200).U64(0x300).Bytes()
	b := dwasm.New(false)
	b.U8(rleOffsetPair).ULEB(1).ULEB(2)         // base 0x1000 from the unit
	b.U8(rleBaseAddressx).ULEB(1)               // base 0x100
	b.U8(rleOffsetPair).ULEB(1).ULEB(2)         // 0x101..0x102
	b.U8(rleBaseAddress).U64(0x4000)            // base 0x4000
	b.U8(rleOffsetPair).ULEB(0x10).ULEB(0x20)   // 0x4010..0x4020
	b.U8(rleStartxEndx).ULEB(2).ULEB(3)         // 0x200..0x300
	b.U8(rleStartxLength).ULEB(3).ULEB(8)       // 0x300..0x308
	b.U8(rleStartEnd).U64(0x7000).U64(0x7100)   // 0x7000..0x7100
	b.U8(rleStartLength).U64(0x8000).ULEB(0x80) // 0x8000..0x8080
	b.U8(rleEndOfList)
	d := New(Sections{Rnglists: b.Bytes(), Addr: addr}, nil)
	got := collectRanges(t, d.RangeList(0, true, 8, 0x1000, 0))
	want := []Range{{0x1001, 0x1002}, {0x101, 0x102}, {0x4010, 0x4020}, {0x200, 0x300}, {0x300, 0x308}, {0x7000, 0x7100}, {0x8000, 0x8080}}
	if !slices.Equal(got, want) {
		t.Errorf("got %x\nwant %x", got, want)
	}
	// An unknown kind and an address index past .debug_addr are errors.
	for _, bad := range [][]byte{{0x09}, {rleStartxLength, 40, 1}} {
		d := New(Sections{Rnglists: bad, Addr: addr}, nil)
		rr := d.RangeList(0, true, 8, 0, 0)
		var rg Range
		if err := rr.Next(&rg); !errors.Is(err, ErrFormat) {
			t.Errorf("% x: %v", bad, err)
		}
	}
}

func TestArangesEdge(t *testing.T) {
	for _, dwarf64 := range []bool{false, true} {
		for _, as := range []int{3, 4, 8} {
			b := dwasm.New(true)
			l := b.BeginLength(dwarf64)
			b.U16(2).Off(dwarf64, 0x40).U8(uint8(as)).U8(0)
			for (b.Len() % (2 * as)) != 0 {
				b.U8(0xee) // padding up to the tuple alignment
			}
			b.Uint(as, 0x100).Uint(as, 0x10)
			b.Uint(as, 0x300).Uint(as, 0x0) // empty: returned, not indexed
			b.Uint(as, 0).Uint(as, 0)
			b.End(l)
			l = b.BeginLength(false) // second set: a premature terminator
			b.U16(2).U32(0x80).U8(uint8(as)).U8(0)
			for (b.Len()-l.Offset())%(2*as) != 0 {
				b.U8(0)
			}
			b.Uint(as, 0x108).Uint(as, 0x10)
			b.Uint(as, 0).Uint(as, 0)
			b.Uint(as, 0x400).Uint(as, 0x10)
			b.Uint(as, 0).Uint(as, 0)
			b.End(l)
			l = b.BeginLength(false) // third set: unterminated, so ignored
			b.U16(2).U32(0xc0).U8(uint8(as)).U8(0)
			for (b.Len()-l.Offset())%(2*as) != 0 {
				b.U8(0)
			}
			b.Uint(as, 0x500).Uint(as, 0x10)
			b.End(l)
			d := New(Sections{Aranges: b.Bytes(), BigEndian: true}, nil)
			ar := d.Aranges()
			var got []Arange
			var a Arange
			var err error
			for err = ar.Next(&a); err == nil; err = ar.Next(&a) {
				got = append(got, a)
			}
			want := []Arange{{0x100, 0x10, 0x40}, {0x300, 0, 0x40}, {0x108, 0x10, 0x80}, {0, 0, 0x80}, {0x400, 0x10, 0x80}, {0x500, 0x10, 0xc0}}
			if !errors.Is(err, ErrFormat) || !slices.Equal(got, want) {
				t.Fatalf("64=%v as=%d: %x %v", dwarf64, as, got, err)
			}
			ix := NewIndex(d)
			for pc, want := range map[uint64]uint64{0x100: 0x40, 0x10f: 0x40, 0x110: 0x80, 0x117: 0x80, 0x40f: 0x80} {
				if got, ok := ix.Lookup(pc); !ok || got != want {
					t.Errorf("Lookup(%#x) = %#x %v, want %#x", pc, got, ok, want)
				}
			}
			if _, ok := ix.Lookup(0x300); ok {
				t.Errorf("empty range indexed")
			}
			if _, ok := ix.Lookup(0x500); ok {
				t.Errorf("tuple of an unterminated set indexed")
			}
			if len(ix.Errors()) != 1 {
				t.Errorf("errors: %v", ix.Errors())
			}
		}
	}
}

// TestConstructLikeLLVM pins the sweep's one subtlety: a range being
// extended keeps its unit while that unit still covers the address, even
// when a lower unit starts covering it too.
func TestConstructLikeLLVM(t *testing.T) {
	got := construct([]span{
		{0x100, 0x300, 0x50}, // unit 0x50 from 0x100
		{0x200, 0x400, 0x10}, // lower unit starts inside: 0x50 keeps 0x200..0x300
		{0x500, 0x600, 0x30},
		{0x500, 0x600, 0x20}, // same start: the lowest wins
	})
	want := []ivl{{0x100, 0x300, 0x50}, {0x300, 0x400, 0x10}, {0x500, 0x600, 0x20}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %x\nwant %x", got, want)
	}
}

// TestConstructShortcut: on random spans, disjoint or not, construct
// gives what the sweep gives.
func TestConstructShortcut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		n := 1 + rng.IntN(40)
		var rs []span
		at := uint64(rng.IntN(100))
		for range n {
			lo := at + uint64(rng.IntN(3)) // often adjacent
			hi := lo + 1 + uint64(rng.IntN(20))
			if round%3 == 0 && rng.IntN(8) == 0 {
				lo -= min(lo, uint64(rng.IntN(30))) // an overlap now and then
			}
			rs = append(rs, span{lo, hi, uint64(rng.IntN(4)) * 0x10})
			at = hi
		}
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		want := sweep(nil, slices.Clone(rs))
		if got := construct(slices.Clone(rs)); !slices.Equal(got, want) {
			t.Fatalf("round %d: spans %x\nconstruct %x\nsweep     %x", round, rs, got, want)
		}
	}
}

// TestConstructClusters: spans that overlap in small clusters between
// runs of disjoint ones, abutting or not, give what one sweep of them all
// gives (construct sweeps each cluster after the ranges before it).
func TestConstructClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 5000 {
		var rs []span
		at := uint64(rng.IntN(8))
		for range rng.IntN(30) {
			lo := at
			if rng.IntN(6) == 0 {
				lo -= min(lo, uint64(rng.IntN(4))) // overlap the last one or two
			}
			hi := lo + 1 + uint64(rng.IntN(6))
			rs = append(rs, span{lo, hi, uint64(rng.IntN(3))})
			at = hi + uint64(rng.IntN(2)) // abutting or not
		}
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		want := sweep(nil, slices.Clone(rs))
		if got := construct(slices.Clone(rs)); !slices.Equal(got, want) {
			t.Fatalf("round %d: spans %x\nconstruct %x\nsweep     %x", round, rs, got, want)
		}
	}
}

// TestDIEBytes: DIEBytes gives the bytes of .debug_info between two
// offsets, clamped to the unit's DIEs (not its header, not the next
// unit's), and nil where nothing is left; its capacity ends with it.
func TestDIEBytes(t *testing.T) {
	s := buildSynth(t, false, false)
	d := New(s.secs, nil)
	hs, err := d.Headers()
	if err != nil || len(hs) == 0 {
		t.Fatalf("%d units, %v", len(hs), err)
	}
	u, err := d.LoadUnit(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	info := s.secs.Info
	for _, c := range []struct{ lo, hi, wantLo, wantHi uint64 }{
		{u.DIEOffset, u.End, u.DIEOffset, u.End},
		{0, ^uint64(0), u.DIEOffset, u.End},
		{u.DIEOffset + 1, u.End - 1, u.DIEOffset + 1, u.End - 1},
		{u.End - 1, u.End + 100, u.End - 1, u.End},
	} {
		b := u.DIEBytes(c.lo, c.hi)
		if !bytes.Equal(b, info[c.wantLo:c.wantHi]) || cap(b) != len(b) ||
			&b[0] != &info[c.wantLo] {
			t.Errorf("DIEBytes(%#x, %#x): %d bytes, want [%#x, %#x) of .debug_info", c.lo, c.hi, len(b), c.wantLo, c.wantHi)
		}
	}
	for _, c := range [][2]uint64{{u.End, u.End + 10}, {0, u.DIEOffset}, {u.DIEOffset + 2, u.DIEOffset + 1}, {u.End + 5, ^uint64(0)}} {
		if b := u.DIEBytes(c[0], c[1]); b != nil {
			t.Errorf("DIEBytes(%#x, %#x): %d bytes, want none", c[0], c[1], len(b))
		}
	}
}
