package dwinfo

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// TestLikelyMatchesLookup: on every fixture, at the start, middle and last
// byte of every range of the units tier, Likely on a fresh Index names the
// unit Lookup picks (the fixtures' units do not overlap), or, where the
// aranges tier answers, nothing; and Likely builds no units tier.
func TestLikelyMatchesLookup(t *testing.T) {
	guessed := 0
	eachTierPC(t, false, func(p string, s Sections, _ *Index, pc uint64) {
		ix := NewIndex(New(s, nil))
		guess, gok := ix.Likely(pc)
		if ix.built.Load() {
			t.Fatalf("%s: Likely(%#x) built the units tier", p, pc)
		}
		want, wok := ix.Lookup(pc)
		if _, inAranges := findRange(ix.aranges, pc); inAranges {
			if gok {
				t.Fatalf("%s: Likely(%#x) = %#x where the aranges tier answers", p, pc, guess)
			}
			return
		}
		if !wok || !gok || guess != want {
			t.Fatalf("%s: Likely(%#x) = %#x %v, Lookup %#x %v", p, pc, guess, gok, want, wok)
		}
		guessed++
	})
	if guessed == 0 {
		t.Fatal("no address guessed")
	}
	t.Logf("%d addresses guessed", guessed)
}

// TestLookupBuilt: on a fresh Index, LookupBuilt answers where the aranges
// tier does and nowhere else, building nothing; once the units tier is
// built, it answers as LookupRange everywhere, the range included.
func TestLookupBuilt(t *testing.T) {
	answered, waited := 0, 0
	eachTierPC(t, false, func(p string, s Sections, _ *Index, pc uint64) {
		ix := NewIndex(New(s, nil))
		u, lo, hi, ok := ix.LookupBuilt(pc)
		if ix.built.Load() {
			t.Fatalf("%s: LookupBuilt(%#x) built the units tier", p, pc)
		}
		if r, inAranges := findRange(ix.aranges, pc); ok != inAranges || ok && (u != r.unit || lo != r.lo || hi != r.hi) {
			t.Fatalf("%s: LookupBuilt(%#x) = %#x [%#x, %#x) %v before the units tier, the aranges %+v %v", p, pc, u, lo, hi, ok, r, inAranges)
		}
		if !ok {
			waited++
		}
		want, wlo, whi, wok := ix.LookupRange(pc)
		ix.BuildAll()
		if u, lo, hi, ok := ix.LookupBuilt(pc); u != want || ok != wok || ok && (lo != wlo || hi != whi) {
			t.Fatalf("%s: LookupBuilt(%#x) = %#x [%#x, %#x) %v, LookupRange %#x [%#x, %#x) %v", p, pc, u, lo, hi, ok, want, wlo, whi, wok)
		}
		answered++
	})
	if answered == 0 || waited == 0 {
		t.Fatalf("%d addresses, %d of them not answered before the units tier", answered, waited)
	}
}

// TestDecideMatchesTier: after Decide(pc), LookupRange(pc) gives the units
// tier's answer, whether Decide found it in its one pass (the tier left
// unbuilt) or built the tier (several units' ranges hold pc); at the ends
// and middle of every range of the tier, and just past each.
func TestDecideMatchesTier(t *testing.T) {
	decided, built := 0, 0
	eachTierPC(t, true, func(p string, s Sections, all *Index, pc uint64) {
		want, wok := all.Lookup(pc)
		ix := NewIndex(New(s, nil))
		ix.Decide(pc)
		got, lo, hi, ok := ix.LookupRange(pc)
		if ok != wok || got != want {
			t.Fatalf("%s: after Decide(%#x), LookupRange = %#x %v; the tier says %#x %v", p, pc, got, ok, want, wok)
		}
		if ok && (pc < lo || pc >= hi) {
			t.Fatalf("%s: after Decide(%#x), LookupRange's range [%#x, %#x) leaves pc out", p, pc, lo, hi)
		}
		if _, inAranges := findRange(ix.aranges, pc); inAranges {
			return
		}
		if ix.built.Load() {
			built++
			return
		}
		decided++
		// Another pc is not decided: it builds the tier.
		if u, ok := ix.Lookup(pc + 1); ix.decided.Load().pc == pc+1 || !ix.built.Load() {
			t.Fatalf("%s: Lookup(%#x) after Decide(%#x) answered %#x %v without the tier", p, pc+1, pc, u, ok)
		}
	})
	if decided == 0 {
		t.Fatal("Decide never answered without building the tier")
	}
	t.Logf("%d addresses decided in one pass, %d built the tier", decided, built)
}

// rangeUnits returns DWARF 4 sections of compile units with no children,
// the i-th covering [ranges[i][0], ranges[i][1]) by low_pc and high_pc.
func rangeUnits(ranges [][2]uint64) Sections {
	ab := dwasm.New(false)
	ab.ULEB(1).ULEB(0x11).U8(0) // code 1: compile_unit, no children
	ab.ULEB(0x11).ULEB(0x01)    // low_pc, addr
	ab.ULEB(0x12).ULEB(0x07)    // high_pc, data8
	ab.ULEB(0).ULEB(0).ULEB(0)
	info := dwasm.New(false)
	for _, r := range ranges {
		l := info.BeginLength(false)
		info.U16(4).U32(0).U8(8).ULEB(1).U64(r[0]).U64(r[1] - r[0])
		info.End(l)
	}
	return Sections{Info: info.Bytes(), Abbrev: ab.Bytes()}
}

// TestDecideOverlap: where two units' ranges hold pc, Decide builds the
// tier (which then answers as LLVM's sweep does); where one unit's or none
// do, it answers without it.
func TestDecideOverlap(t *testing.T) {
	s := rangeUnits([][2]uint64{{0x1000, 0x2000}, {0x1800, 0x3000}})
	all := NewIndex(New(s, nil))
	all.BuildAll()
	if len(all.Errors()) != 0 {
		t.Fatalf("the synthetic units do not decode: %v", all.Errors())
	}
	for _, tc := range []struct {
		pc    uint64
		build bool
	}{{0x1100, false}, {0x1900, true}, {0x1fff, true}, {0x2000, false}, {0x2800, false}, {0x4000, false}, {0xfff, false}} {
		want, wok := all.Lookup(tc.pc)
		ix := NewIndex(New(s, nil))
		ix.Decide(tc.pc)
		if ix.built.Load() != tc.build {
			t.Errorf("Decide(%#x) built the tier: %v, want %v", tc.pc, ix.built.Load(), tc.build)
		}
		if got, ok := ix.Lookup(tc.pc); got != want || ok != wok {
			t.Errorf("after Decide(%#x), Lookup = %#x %v; the tier says %#x %v", tc.pc, got, ok, want, wok)
		}
	}
}

// TestLoadRoot: on every unit of every fixture, loadRoot reads the unit
// DIE as LoadUnit does (the same Root, RootErr and ranges) while parsing its
// abbreviation table only up to the unit DIE's declaration; and a table
// whose later declarations are corrupt fails LoadUnit but not loadRoot,
// which Decide then does not trust for a unit whose ranges hold pc.
func TestLoadRoot(t *testing.T) {
	units := 0
	for _, p := range fixtures(t) {
		s, _, ok := loadELF(t, p)
		if !ok {
			continue
		}
		d := New(s, nil)
		hs, _ := d.Headers()
		for _, h := range hs {
			full, ferr := d.LoadUnit(h)
			root, rerr := d.loadRoot(h)
			if ferr != nil {
				continue
			}
			if rerr != nil {
				t.Fatalf("%s: unit %#x: loadRoot fails where LoadUnit does not: %v", p, h.Offset, rerr)
			}
			if !reflect.DeepEqual(full.Root, root.Root) || fmt.Sprint(full.RootErr) != fmt.Sprint(root.RootErr) {
				t.Fatalf("%s: unit %#x: loadRoot's unit DIE differs:\n%+v\n%+v", p, h.Offset, root.Root, full.Root)
			}
			fr, ferr := unitRangesOf(nil, full)
			rr, rerr := unitRangesOf(nil, root)
			if !slices.Equal(fr, rr) || fmt.Sprint(ferr) != fmt.Sprint(rerr) {
				t.Fatalf("%s: unit %#x: ranges differ: %v %v, LoadUnit %v %v", p, h.Offset, rr, rerr, fr, ferr)
			}
			if len(root.tab.list) > len(full.tab.list) {
				t.Fatalf("%s: unit %#x: loadRoot parsed %d declarations, the whole table has %d", p, h.Offset, len(root.tab.list), len(full.tab.list))
			}
			units++
		}
	}
	if units == 0 {
		t.Fatal("no unit compared")
	}

	// Two units sharing a table whose second declaration has tag 0.
	s := rangeUnits([][2]uint64{{0x1000, 0x2000}, {0x1800, 0x3000}})
	s.Abbrev = append(s.Abbrev[:len(s.Abbrev)-1], dwasm.New(false).ULEB(2).ULEB(0).U8(0).ULEB(0).ULEB(0).ULEB(0).Bytes()...)
	d := New(s, nil)
	hs, _ := d.Headers()
	if _, err := d.LoadUnit(hs[0]); err == nil {
		t.Fatal("LoadUnit reads a unit whose table has a declaration of tag 0")
	}
	if _, err := d.loadRoot(hs[0]); err != nil {
		t.Fatalf("loadRoot fails on a declaration after the unit DIE's: %v", err)
	}
	all := NewIndex(New(s, nil))
	all.BuildAll()
	for _, pc := range []uint64{0x1100, 0x1900, 0x2800, 0x4000} {
		want, wok := all.Lookup(pc)
		ix := NewIndex(New(s, nil))
		ix.Decide(pc)
		if got, ok := ix.Lookup(pc); got != want || ok != wok {
			t.Errorf("corrupt table: after Decide(%#x), Lookup = %#x %v; the tier says %#x %v", pc, got, ok, want, wok)
		}
	}
}

// eachTierPC calls f with every fixture's sections, its built units tier
// and each PC at the start, middle and last byte of every range of that
// tier, and past its end too when past is set.
func eachTierPC(t *testing.T, past bool, f func(p string, s Sections, all *Index, pc uint64)) {
	for _, p := range fixtures(t) {
		s, _, ok := loadELF(t, p)
		if !ok {
			continue
		}
		all := NewIndex(New(s, nil))
		all.BuildAll()
		for _, r := range all.units {
			pcs := []uint64{r.lo, r.lo + (r.hi-r.lo)/2, r.hi - 1}
			if past {
				pcs = append(pcs, r.hi)
			}
			for _, pc := range pcs {
				f(p, s, all, pc)
			}
		}
	}
}
