package dwinfo

import (
	"debug/dwarf"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
)

// TestRangesMatchDebugDwarf compares every DW_AT_ranges list (v4
// .debug_ranges, v5 .debug_rnglists via offsets and rnglistx) with
// debug/dwarf's Data.Ranges.
func TestRangesMatchDebugDwarf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			d, gd := loadDWARF(t, path)
			n := 0
			for _, u := range loadUnits(t, d) {
				er := u.Entries()
				var e Entry
				for er.Next(&e) == nil {
					v, ok, err := u.Attr(&e, AttrRanges)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						continue
					}
					n++
					got := collectRanges(t, u.Ranges(v))
					gr := gd.Reader()
					gr.Seek(dwarf.Offset(e.Offset))
					ge, err := gr.Next()
					if err != nil {
						t.Fatal(err)
					}
					want, err := gd.Ranges(ge)
					if err != nil {
						t.Fatalf("debug/dwarf ranges of %#x: %v", e.Offset, err)
					}
					if !slices.Equal(got, toRanges(want)) {
						t.Errorf("DIE %#x (form class %d): got %x, debug/dwarf %x", e.Offset, v.Class, got, want)
					}
				}
			}
			t.Logf("%d range lists", n)
		})
	}
}

// debug/dwarf drops empty ranges of its own accord? No: it keeps what the
// list says, except that for DWARF 5 it skips nothing either. Ranges are
// compared verbatim.
func toRanges(w [][2]uint64) []Range {
	out := []Range{}
	for _, r := range w {
		out = append(out, Range{r[0], r[1]})
	}
	return out
}

func collectRanges(t *testing.T, rr RangeReader) []Range {
	t.Helper()
	out := []Range{}
	var rg Range
	for {
		err := rr.Next(&rg)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rg)
	}
}

var (
	arHeaderRE = regexp.MustCompile(`cu_offset = 0x([0-9a-f]+)`)
	arTupleRE  = regexp.MustCompile(`^\[0x([0-9a-f]+), 0x([0-9a-f]+)\)`)
)

// TestArangesMatchLLVM compares every tuple with llvm-dwarfdump-14
// --debug-aranges.
func TestArangesMatchLLVM(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			secs, _, ok := loadELF(t, path)
			if !ok || secs.Aranges == nil {
				t.Skip("no .debug_aranges")
			}
			out, err := exec.Command(tool, "--debug-aranges", path).Output()
			if err != nil {
				t.Skipf("llvm-dwarfdump: %v", err)
			}
			var want []Arange
			var cu uint64
			for _, line := range strings.Split(string(out), "\n") {
				if m := arHeaderRE.FindStringSubmatch(line); m != nil {
					cu, _ = strconv.ParseUint(m[1], 16, 64)
				} else if m := arTupleRE.FindStringSubmatch(line); m != nil {
					lo, _ := strconv.ParseUint(m[1], 16, 64)
					hi, _ := strconv.ParseUint(m[2], 16, 64)
					want = append(want, Arange{lo, hi - lo, cu})
				}
			}
			var got []Arange
			ar := New(secs, nil).Aranges()
			var a Arange
			for {
				err := ar.Next(&a)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, a)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %x\nllvm-dwarfdump %x", got, want)
			}
			t.Logf("%d tuples", len(got))
		})
	}
}

// TestIndexMatchesBruteForce checks Lookup at every range boundary (and its
// neighbours) against a direct reading of LLVM's rule: aranges first,
// then unit DIE ranges (from debug/dwarf) of units aranges does not list;
// among covering units the lowest offset.
func TestIndexMatchesBruteForce(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			d, gd := loadDWARF(t, path)
			var tier1, tier2 []span
			listed := map[uint64]bool{}
			ar := d.Aranges()
			ar.onSetEnd = func(u uint64) { listed[u] = true }
			var a Arange
			for ar.Next(&a) == nil {
				tier1 = appendSpan(tier1, a.Unit, a.Start, a.Start+a.Length)
			}
			gr := gd.Reader()
			for {
				ge, err := gr.Next()
				if err != nil || ge == nil {
					break
				}
				if !listed[uint64(ge.Offset)-hdrLen(d, uint64(ge.Offset))] {
					rs, err := gd.Ranges(ge)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rs {
						tier2 = appendSpan(tier2, uint64(ge.Offset)-hdrLen(d, uint64(ge.Offset)), r[0], r[1])
					}
				}
				gr.SkipChildren()
			}
			ix := NewIndex(d)
			var pcs []uint64
			for _, s := range append(slices.Clone(tier1), tier2...) {
				pcs = append(pcs, s.lo-1, s.lo, s.lo+1, s.hi-1, s.hi, (s.lo+s.hi)/2)
			}
			pcs = append(pcs, 0, ^uint64(0))
			for _, pc := range pcs {
				want, wok := lowest(tier1, pc)
				if !wok {
					want, wok = lowest(tier2, pc)
				}
				got, gok := ix.Lookup(pc)
				if got != want || gok != wok {
					t.Errorf("Lookup(%#x) = %#x, %v; want %#x, %v", pc, got, gok, want, wok)
				}
			}
			if errs := ix.Errors(); len(errs) > 0 {
				t.Errorf("index errors: %v", errs)
			}
			t.Logf("%d aranges spans, %d unit spans, %d probes", len(tier1), len(tier2), len(pcs))
		})
	}
}

// hdrLen returns how far the unit DIE at off is from its unit header.
func hdrLen(d *Data, dieOff uint64) uint64 {
	h, ok, _ := d.UnitContaining(dieOff)
	if !ok {
		return 0
	}
	return dieOff - h.Offset
}

func lowest(rs []span, pc uint64) (uint64, bool) {
	best, ok := uint64(0), false
	for _, r := range rs {
		if r.lo <= pc && pc < r.hi && (!ok || r.unit < best) {
			best, ok = r.unit, true
		}
	}
	return best, ok
}

// TestRnglistxMatchesDebugDwarf: debug/dwarf reports a DW_FORM_rnglistx
// DW_AT_ranges as the resolved offset; RangesOffset must agree.
func TestRnglistxMatchesDebugDwarf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			d, gd := loadDWARF(t, path)
			n := 0
			for _, u := range loadUnits(t, d) {
				er := u.Entries()
				var e Entry
				for er.Next(&e) == nil {
					v, ok, _ := u.Attr(&e, AttrRanges)
					if !ok || v.Class != dw.ClassRnglistx {
						continue
					}
					n++
					off, err := u.RangesOffset(v)
					if err != nil {
						t.Fatal(err)
					}
					gr := gd.Reader()
					gr.Seek(dwarf.Offset(e.Offset))
					ge, _ := gr.Next()
					if want := ge.Val(dwarf.AttrRanges); want != off {
						t.Errorf("DIE %#x: offset %#x, debug/dwarf %#v", e.Offset, off, want)
					}
				}
			}
			t.Logf("%d rnglistx", n)
		})
	}
}

var lookupCURE = regexp.MustCompile(`(?m)^0x([0-9a-f]+): Compile Unit:`)

// TestIndexMatchesLLVM asks llvm-dwarfdump-14 --lookup, which finds the
// unit through the same DWARFDebugAranges that llvm-symbolizer uses, for
// the unit at both ends of every index range and just past it (a dozen
// probes per fixture: one process each).
func TestIndexMatchesLLVM(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			secs, _, ok := loadELF(t, path)
			if !ok {
				t.Skip("no .debug_info")
			}
			if e, _, _ := dwinfotest.Open(path); e != nil {
				e.File.Close()
				if e.Zstd {
					t.Skip("zstd-compressed sections: LLVM 14 cannot read them")
				}
			}
			ix := NewIndex(New(secs, nil))
			ix.BuildAll()
			var pcs []uint64
			for _, r := range append(slices.Clone(ix.aranges), ix.units...) {
				pcs = append(pcs, r.lo, r.hi-1, r.hi)
			}
			if step := len(pcs)/12 + 1; step > 1 {
				var thin []uint64
				for i := 0; i < len(pcs); i += step {
					thin = append(thin, pcs[i])
				}
				pcs = thin
			}
			for _, pc := range pcs {
				if pc == 0 {
					continue // --lookup=0 means no lookup: it dumps everything
				}
				// It exits 1 when no unit covers pc.
				out, err := exec.Command(tool, "--lookup="+strconv.FormatUint(pc, 10), path).Output()
				if _, exit := err.(*exec.ExitError); err != nil && !exit {
					t.Fatalf("llvm-dwarfdump: %v", err)
				}
				var want uint64
				m := lookupCURE.FindSubmatch(out)
				if m != nil {
					want, _ = strconv.ParseUint(string(m[1]), 16, 64)
				}
				got, gok := ix.Lookup(pc)
				if got != want || gok != (m != nil) {
					t.Errorf("Lookup(%#x) = %#x, %v; llvm-dwarfdump %#x, %v", pc, got, gok, want, m != nil)
				}
			}
			t.Logf("%d probes", len(pcs))
		})
	}
}
