package dwinfo

import (
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
)

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
			ix.Likely(pc)
			ix.Lookup(pc)
		}
	})
}

func FuzzRangeLists(f *testing.F) {
	// Small seeds (see FuzzEntries): the first 256 bytes of
	// .debug_ranges, the first contribution to .debug_rnglists and
	// .debug_addr where it fits in 512.
	seen := map[string]bool{}
	for _, s := range fixtureSections(f) {
		if r := s.Ranges[:min(len(s.Ranges), 256)]; len(r) > 0 && !seen[string(r)] {
			seen[string(r)] = true
			f.Add(r, []byte(nil), uint64(0), false, uint8(8), uint64(0x1000), uint64(0))
		}
		r, a := dwinfotest.FirstContribution(s.Rnglists, s.BigEndian), dwinfotest.FirstContribution(s.Addr, s.BigEndian)
		if len(r) > 0 && len(r) <= 512 && len(a) <= 512 && !seen[string(r)+string(a)] {
			seen[string(r)+string(a)] = true
			f.Add(r, a, uint64(12), true, uint8(8), uint64(0x1000), uint64(8))
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
	// Small seeds keep the fuzzer fast: it minimizes every input that
	// finds new coverage, at a cost quadratic in each argument's length
	// (up to -fuzzminimizetime, a minute, each), and runs nothing new
	// meanwhile. Each fixture seed is the first unit alone, with what it
	// reads, where that fits in 1 KiB an argument.
	seen := map[string]bool{}
	for _, s := range fixtureSections(f) {
		u, ok := firstUnit(s, 1<<10)
		if k := string(u.Info) + string(u.Abbrev) + string(u.Rnglists); ok && !seen[k] {
			seen[k] = true
			f.Add(u.Info, u.Abbrev, u.Str, u.StrOffsets, u.Addr, u.Rnglists, u.BigEndian)
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
		if err := sameAsGeneric(d, len(info)); err != nil {
			t.Fatal(err)
		}
		ix := NewIndex(d)
		guess, gok := ix.Likely(0x1000)
		got, ok := ix.Lookup(0x1000)
		ix.BuildAll()
		// With one unit holding the address, or none, the guess is
		// Lookup's answer (they differ only where units overlap).
		if gok && !ok {
			t.Fatalf("Likely(0x1000) = unit %#x, Lookup finds none", guess)
		}
		if ok && !gok && len(ix.aranges) == 0 {
			t.Fatalf("Lookup(0x1000) = unit %#x, Likely finds none", got)
		}
		// Decide's answer, with or without the tier, is the tier's.
		for _, pc := range []uint64{0x1000, 0} {
			want, wok := ix.Lookup(pc)
			dx := NewIndex(d)
			dx.Decide(pc)
			if got, ok := dx.Lookup(pc); got != want || ok != wok {
				t.Fatalf("after Decide(%#x), Lookup = %#x %v; the tier says %#x %v", pc, got, ok, want, wok)
			}
		}
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

// firstUnit cuts s down to what the first unit of .debug_info reads: the
// unit, its abbreviation table, and the first contribution to
// .debug_str_offsets, .debug_addr and .debug_rnglists (where the first
// unit's DW_AT_*_base attributes point); .debug_str is kept up to max
// bytes. ok is false when the unit or its table is larger than max.
func firstUnit(s Sections, max int) (Sections, bool) {
	hs, err := New(s, nil).Headers()
	if err != nil || len(hs) == 0 || hs[0].End-hs[0].Offset > uint64(max) || hs[0].AbbrevOffset != 0 {
		return Sections{}, false
	}
	end := dwinfotest.AbbrevTableEnd(s.Abbrev)
	if end > max {
		return Sections{}, false
	}
	u := Sections{
		Info:       s.Info[hs[0].Offset:hs[0].End],
		Abbrev:     s.Abbrev[:end],
		Str:        s.Str[:min(len(s.Str), max)],
		StrOffsets: dwinfotest.FirstContribution(s.StrOffsets, s.BigEndian),
		Addr:       dwinfotest.FirstContribution(s.Addr, s.BigEndian),
		Rnglists:   dwinfotest.FirstContribution(s.Rnglists, s.BigEndian),
		BigEndian:  s.BigEndian,
	}
	// Go's linker writes .debug_addr and .debug_rnglists without
	// contribution headers: whole, they are too big.
	return u, len(u.StrOffsets) <= max && len(u.Addr) <= max && len(u.Rnglists) <= max
}
