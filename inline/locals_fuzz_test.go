package inline

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
)

// FuzzLocals decodes FRAME answers from arbitrary .debug_info (with its
// abbreviations, strings and location sections): for every unit, at the
// start of every span of its Index, at a fuzzed PC and at a fuzzed DIE
// offset. No input may panic or hang, and no answer may list more locals
// than the unit has bytes. Seeded with the smallest units of the FRAME
// fixtures and a synthetic unit covering every rule.
func FuzzLocals(f *testing.F) {
	info, abbrev, loclists, pc := syntheticLocals()
	f.Add(info, abbrev, []byte(nil), []byte(nil), loclists, pc, uint64(0))
	for _, path := range dwinfotest.Fixtures("../testdata/frame", "") {
		o, ok := openObject(f, path)
		if !ok {
			continue
		}
		e, _, err := dwinfotest.Open(path)
		if err != nil {
			continue
		}
		loc, loclists := e.Section(".debug_loc"), e.Section(".debug_loclists")
		e.File.Close()
		hs, _ := o.d.Headers()
		for _, h := range hs {
			if h.End-h.Offset > 4<<10 {
				continue
			}
			s := &o.secs
			cut := func(b []byte) []byte { return b[:min(len(b), 2<<10)] }
			f.Add(s.Info[h.Offset:h.End], cut(s.Abbrev[h.AbbrevOffset:]), cut(s.Str), cut(loc), cut(loclists), uint64(0), uint64(0))
		}
	}
	f.Fuzz(func(t *testing.T, info, abbrev, str, loc, loclists []byte, pc, die uint64) {
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev, Str: str}, &dwinfo.Options{MaxDepth: 64})
		opts := &LocalsOptions{Loc: loc, Loclists: loclists}
		ur := d.Units()
		var ls []Local
		for n := 0; n < 4; n++ {
			var h dwinfo.Header
			if err := ur.Next(&h); err != nil {
				return
			}
			u, err := d.LoadUnit(h)
			if err != nil {
				continue
			}
			check := func(ls []Local) {
				if uint64(len(ls)) > u.End-u.Offset {
					t.Fatalf("%d locals from a unit of %d bytes", len(ls), u.End-u.Offset)
				}
			}
			ls, _ = AppendLocals(ls[:0], d, u, u.DIEOffset+die%max(1, u.End-u.DIEOffset), opts)
			check(ls)
			ix, _ := Build(d, u, nil, nil)
			pcs := []uint64{pc}
			for i, lo := range ix.spanLo() {
				if i == 32 {
					break
				}
				pcs = append(pcs, lo)
			}
			for _, p := range pcs {
				if off, ok := ix.Subroutine(p); ok {
					ls, _ = AppendLocals(ls[:0], d, u, off, opts)
					check(ls)
				}
			}
		}
	})
}

// syntheticLocals is one FuzzLocals input: a unit with a subprogram, an
// inlined call, typedef and array chains and location lists.
func syntheticLocals() (info, abbrev, loclists []byte, pc uint64) {
	loclists = []byte{0x05, 0x02, opFbreg, 0x70, 0x00}
	info, abbrev, _ = localsUnits(5, lUnit(
		&ld{label: "int", tag: 0x24, attrs: []la{lName("int"), lSize(4)}},
		&ld{label: "arr", tag: tagArrayType, attrs: []la{lType("td")}, kids: []*ld{
			{tag: tagSubrangeType, attrs: []la{lBound(attrUpperBnd, dw.FormData1, 9)}},
		}},
		&ld{label: "td", tag: tagTypedef, attrs: []la{lType("int")}},
		&ld{label: "g", tag: dwinfo.TagSubprogram, attrs: []la{lName("g")}, kids: []*ld{
			{label: "g.x", tag: dwinfo.TagFormalParameter, attrs: []la{lName("x"), lType("arr")}},
		}},
		&ld{tag: dwinfo.TagSubprogram, attrs: []la{lName("f"), lFrameBase(opReg0 + 6),
			{at: dwinfo.AttrLowPC, form: dw.FormAddr, v: 0x10}, {at: dwinfo.AttrHighPC, form: dw.FormData1, v: 0x20}}, kids: []*ld{
			{tag: dwinfo.TagVariable, attrs: []la{lName("a"), lType("arr"), {at: attrLocation, form: dw.FormSecOffset, v: 0}}},
			{tag: dwinfo.TagInlinedSubroutine, attrs: []la{lOrigin("g"),
				{at: dwinfo.AttrLowPC, form: dw.FormAddr, v: 0x14}, {at: dwinfo.AttrHighPC, form: dw.FormData1, v: 4}}, kids: []*ld{
				{tag: dwinfo.TagFormalParameter, attrs: []la{lOrigin("g.x"), lLoc(opBreg0+6, 0x08)}},
			}},
		}},
	))
	return info, abbrev, loclists, 0x15
}

// TestSyntheticLocalsSeed checks that FuzzLocals' synthetic seed reaches
// the decoder: at 0x15 the inlined call of g answers, alone, and its
// DW_OP_breg6 is no frame offset (g's abstract DIE has no frame base);
// at 0x10, f lists its own variable and the inlined one.
func TestSyntheticLocalsSeed(t *testing.T) {
	info, abbrev, loclists, pc := syntheticLocals()
	d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
	h, _ := d.HeaderAt(0)
	u, err := d.LoadUnit(h)
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := Build(d, u, nil, nil)
	opts := &LocalsOptions{Loclists: loclists}
	for _, c := range []struct {
		pc   uint64
		want []Local
	}{
		{pc, []Local{{FunctionName: "g", Name: "x", Size: 40, HasSize: true}}},
		{0x10, []Local{
			{FunctionName: "f", Name: "a", Size: 40, HasSize: true, FrameOffset: -16, HasFrameOffset: true},
			{FunctionName: "g", Name: "x", Size: 40, HasSize: true},
		}},
	} {
		off, ok := ix.Subroutine(c.pc)
		if !ok {
			t.Fatalf("no subroutine at %#x", c.pc)
		}
		got, err := AppendLocals(nil, d, u, off, opts)
		if diff := cmp.Diff(c.want, got); diff != "" || err != nil {
			t.Errorf("%#x: err %v, locals (-want +got):\n%s", c.pc, err, diff)
		}
	}
}
