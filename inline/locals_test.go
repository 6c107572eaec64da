package inline

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// la is one attribute of a synthetic DIE for the locals tests: v for
// constants, addresses and offsets, b for blocks and expressions, s for
// DW_FORM_string, ref for a reference to a labelled DIE (ref4, or
// ref_addr into any unit).
type la struct {
	at   dwinfo.Attr
	form dw.Form
	v    uint64
	b    []byte
	s    string
	ref  string
}

// ld is a synthetic DIE.
type ld struct {
	label string
	tag   dwinfo.Tag
	attrs []la
	kids  []*ld
}

// localsUnits lays out units (DWARF version v, address size 8, one
// abbreviation per DIE, DW_FORM_implicit_const values in the abbreviation)
// one after the other in one .debug_info, and returns it with
// .debug_abbrev and each label's offset. References are resolved in a
// second pass; every reference form has a fixed size.
func localsUnits(v uint16, roots ...*ld) (info, abbrev []byte, offs map[string]uint64) {
	offs = map[string]uint64{}
	for pass := 0; pass < 2; pass++ {
		ab := dwasm.New(false)
		b := dwasm.New(false)
		code := uint64(0)
		for _, root := range roots {
			unit := uint64(b.Len())
			abOff := uint64(ab.Len())
			l := b.BeginLength(false)
			if v >= 5 {
				b.U16(v).U8(0x01).U8(8).Off(false, abOff)
			} else {
				b.U16(v).Off(false, abOff).U8(8)
			}
			var emit func(d *ld)
			emit = func(d *ld) {
				code++
				ab.ULEB(code).ULEB(uint64(d.tag))
				if len(d.kids) > 0 {
					ab.U8(1)
				} else {
					ab.U8(0)
				}
				for _, a := range d.attrs {
					ab.ULEB(uint64(a.at)).ULEB(uint64(a.form))
					if a.form == dw.FormImplicitConst {
						ab.SLEB(int64(a.v))
					}
				}
				ab.U8(0).U8(0)
				if d.label != "" {
					offs[d.label] = uint64(b.Len())
				}
				b.ULEB(code)
				for _, a := range d.attrs {
					val := a.v
					if a.ref != "" {
						val = offs[a.ref]
						if a.form != dw.FormRefAddr {
							val -= unit
						}
					}
					switch a.form {
					case dw.FormAddr, dw.FormData8:
						b.U64(val)
					case dw.FormData1, dw.FormRef1, dw.FormFlag:
						b.U8(uint8(val))
					case dw.FormData2:
						b.U16(uint16(val))
					case dw.FormData4, dw.FormRef4, dw.FormRefAddr, dw.FormSecOffset, dw.FormStrp:
						b.U32(uint32(val))
					case dw.FormSdata:
						b.SLEB(int64(val))
					case dw.FormUdata, dw.FormLoclistx:
						b.ULEB(val)
					case dw.FormExprloc:
						b.ULEB(uint64(len(a.b))).Raw(a.b)
					case dw.FormBlock1:
						b.U8(uint8(len(a.b))).Raw(a.b)
					case dw.FormString:
						b.CString(a.s)
					case dw.FormFlagPresent, dw.FormImplicitConst:
					default:
						panic("form not supported by the locals test builder")
					}
				}
				for _, k := range d.kids {
					emit(k)
				}
				if len(d.kids) > 0 {
					b.U8(0)
				}
			}
			emit(root)
			b.End(l)
		}
		ab.U8(0)
		info, abbrev = b.Bytes(), ab.Bytes()
	}
	return info, abbrev, offs
}

// Short constructors for the tests.
func lName(s string) la                             { return la{at: dwinfo.AttrName, form: dw.FormString, s: s} }
func lType(ref string) la                           { return la{at: attrType, form: dw.FormRef4, ref: ref} }
func lLine(n uint64) la                             { return la{at: dwinfo.AttrDeclLine, form: dw.FormData1, v: n} }
func lLoc(expr ...byte) la                          { return la{at: attrLocation, form: dw.FormExprloc, b: expr} }
func lSize(n uint64) la                             { return la{at: attrByteSize, form: dw.FormData1, v: n} }
func lOrigin(ref string) la                         { return la{at: dwinfo.AttrAbstractOrigin, form: dw.FormRef4, ref: ref} }
func lFrameBase(expr ...byte) la                    { return la{at: attrFrameBase, form: dw.FormExprloc, b: expr} }
func lBound(at dwinfo.Attr, f dw.Form, v uint64) la { return la{at: at, form: f, v: v} }

func fbreg(off int64) []byte { return append([]byte{opFbreg}, dwasm.AppendSLEB(nil, off)...) }

// baseTypes are DIEs the tests' variables refer to.
func baseTypes() []*ld {
	return []*ld{
		{label: "int", tag: 0x24, attrs: []la{lName("int"), lSize(4)}},
		{label: "char", tag: 0x24, attrs: []la{lName("char"), lSize(1)}},
	}
}

// localsOfUnit runs AppendLocals on the DIE labelled at in the first unit.
func localsOfUnit(t *testing.T, info, abbrev []byte, offs map[string]uint64, at string, opts *LocalsOptions) ([]Local, error) {
	t.Helper()
	d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
	h, err := d.HeaderAt(0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.LoadUnit(h)
	if err != nil {
		t.Fatal(err)
	}
	return AppendLocals(nil, d, u, offs[at], opts)
}

func lUnit(kids ...*ld) *ld {
	return &ld{tag: dwinfo.TagCompileUnit, attrs: []la{lName("t.c"), {at: dwinfo.AttrLowPC, form: dw.FormAddr}}, kids: kids}
}

func TestLocalsSynthetic(t *testing.T) {
	type want = []Local
	l := func(fn, n string, line uint64) Local { return Local{FunctionName: fn, Name: n, DeclLine: line} }
	withOff := func(x Local, off int64) Local { x.FrameOffset, x.HasFrameOffset = off, true; return x }
	withSize := func(x Local, n uint64) Local { x.Size, x.HasSize = n, true; return x }
	tests := []struct {
		name string
		kids []*ld // of the subprogram "f" (frame base DW_OP_call_frame_cfa)
		more []*ld // other top-level DIEs (types)
		want want
	}{
		{"fbreg and sizes", []*ld{
			{tag: dwinfo.TagFormalParameter, attrs: []la{lName("p"), lLine(3), lType("int"), lLoc(fbreg(-20)...)}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("c"), lLine(4), lType("char"), lLoc(fbreg(300)...)}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("nowhere"), lLine(5)}},
		}, nil, want{withSize(withOff(l("f", "p", 3), -20), 4), withSize(withOff(l("f", "c", 4), 300), 1), l("f", "nowhere", 5)}},
		{"expressions", []*ld{
			// fbreg + deref counts; fbreg + anything else does not.
			{tag: dwinfo.TagVariable, attrs: []la{lName("deref"), lLoc(append(fbreg(-8), opDeref)...)}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("plus"), lLoc(append(fbreg(-8), 0x23, 1)...)}},
			// breg7 counts only when the frame base is DW_OP_reg7.
			{tag: dwinfo.TagVariable, attrs: []la{lName("breg"), lLoc(opBreg0+7, 0x10)}},
			// LLVM's decodeSLEB128: a bare fbreg, or an operand cut
			// short, reads as 0.
			{tag: dwinfo.TagVariable, attrs: []la{lName("bare"), lLoc(opFbreg)}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("cut"), lLoc(opFbreg, 0x80)}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("empty"), lLoc()}},
		}, nil, want{withOff(l("f", "deref", 0), -8), l("f", "plus", 0), l("f", "breg", 0),
			withOff(l("f", "bare", 0), 0), withOff(l("f", "cut", 0), 0), l("f", "empty", 0)}},
		{"types", []*ld{
			{tag: dwinfo.TagVariable, attrs: []la{lName("ptr"), lType("ptr")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("cv"), lType("const")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("grid"), lType("grid")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("b255"), lType("b255")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("lowb"), lType("lowb")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("flex"), lType("flex")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("pmf"), lType("pmf")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("pmd"), lType("pmd")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("loop"), lType("loop1")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("void"), lType("cvoid")}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("sized"), lType("sizedptr")}},
		}, []*ld{
			{label: "ptr", tag: tagPointerType, attrs: []la{lType("int")}},
			{label: "const", tag: tagConstType, attrs: []la{lType("td")}},
			{label: "td", tag: tagTypedef, attrs: []la{lName("td"), lType("int")}},
			// int[3][4] (count and upper bound): 48.
			{label: "grid", tag: tagArrayType, attrs: []la{lType("int")}, kids: []*ld{
				{tag: tagSubrangeType, attrs: []la{lBound(attrCount, dw.FormData1, 3)}},
				{tag: tagSubrangeType, attrs: []la{lBound(attrUpperBnd, dw.FormData1, 3)}},
			}},
			// char[256] as gcc writes it: upper bound data1 255, read
			// as -1 by getAsSignedConstant, size 0.
			{label: "b255", tag: tagArrayType, attrs: []la{lType("char")}, kids: []*ld{
				{tag: tagSubrangeType, attrs: []la{lBound(attrUpperBnd, dw.FormData1, 255)}},
			}},
			// int[2..5] (Fortran-like lower bound): 4 elements.
			{label: "lowb", tag: tagArrayType, attrs: []la{lType("int")}, kids: []*ld{
				{tag: tagSubrangeType, attrs: []la{lBound(attrLowerBnd, dw.FormSdata, 2), lBound(attrUpperBnd, dw.FormUdata, 5)}},
			}},
			// No bound: the element size.
			{label: "flex", tag: tagArrayType, attrs: []la{lType("int")}, kids: []*ld{{tag: tagSubrangeType}}},
			{label: "fnt", tag: tagSubroutineType},
			{label: "pmf", tag: tagPtrToMemberType, attrs: []la{lType("fnt")}},
			{label: "pmd", tag: tagPtrToMemberType, attrs: []la{lType("int")}},
			{label: "loop1", tag: tagTypedef, attrs: []la{lType("loop2")}},
			{label: "loop2", tag: tagTypedef, attrs: []la{lType("loop1")}},
			{label: "cvoid", tag: tagConstType},
			{label: "sizedptr", tag: tagPointerType, attrs: []la{lSize(4), lType("int")}},
		}, want{withSize(l("f", "ptr", 0), 8), withSize(l("f", "cv", 0), 4), withSize(l("f", "grid", 0), 48),
			withSize(l("f", "b255", 0), 0), withSize(l("f", "lowb", 0), 16), withSize(l("f", "flex", 0), 4),
			withSize(l("f", "pmf", 0), 16), withSize(l("f", "pmd", 0), 8), l("f", "loop", 0), l("f", "void", 0),
			withSize(l("f", "sized", 0), 4)}},
		{"scopes and inlined calls", []*ld{
			{tag: dwinfo.TagLexicalBlock, kids: []*ld{
				{tag: dwinfo.TagVariable, attrs: []la{lName("inner")}},
			}},
			{tag: dwinfo.TagInlinedSubroutine, attrs: []la{lOrigin("g")}, kids: []*ld{
				{tag: dwinfo.TagFormalParameter, attrs: []la{lOrigin("g.x"), lLoc(fbreg(-4)...)}},
				{tag: dwinfo.TagLexicalBlock, kids: []*ld{
					{tag: dwinfo.TagVariable, attrs: []la{lOrigin("g.y")}},
				}},
			}},
			{tag: dwinfo.TagVariable, attrs: []la{lName("after"), la{at: attrTagOffset, form: dw.FormData1, v: 9}}},
		}, []*ld{
			{label: "g", tag: dwinfo.TagSubprogram, attrs: []la{lName("g"), {at: 0x20, form: dw.FormData1, v: 3}}, kids: []*ld{
				{label: "g.x", tag: dwinfo.TagFormalParameter, attrs: []la{lName("x"), lLine(7), lType("int")}},
				{label: "g.y", tag: dwinfo.TagVariable, attrs: []la{lName("y"), lLine(8), lType("char")}},
			}},
		}, want{l("f", "inner", 0), withSize(withOff(l("g", "x", 7), -4), 4), withSize(l("g", "y", 8), 1),
			{FunctionName: "f", Name: "after", TagOffset: 9, HasTagOffset: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f"), lFrameBase(0x9c)}, kids: tc.kids}
			kids := append(append(baseTypes(), tc.more...), f)
			info, abbrev, offs := localsUnits(4, lUnit(kids...))
			got, err := localsOfUnit(t, info, abbrev, offs, "f", nil)
			if err != nil {
				t.Errorf("error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("locals (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLocalsFrameBaseRegister: clang's DW_OP_breg<R> offsets count when
// the function's frame base is DW_OP_reg<R>, and only then.
func TestLocalsFrameBaseRegister(t *testing.T) {
	kids := []*ld{
		{tag: dwinfo.TagVariable, attrs: []la{lName("a"), lLoc(opBreg0+7, 0x10)}},
		{tag: dwinfo.TagVariable, attrs: []la{lName("b"), lLoc(opBreg0+6, 0x10)}},
		{tag: dwinfo.TagVariable, attrs: []la{lName("c"), lLoc(fbreg(-3)...)}},
	}
	f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f"), lFrameBase(opReg0 + 7)}, kids: kids}
	info, abbrev, offs := localsUnits(5, lUnit(f))
	got, _ := localsOfUnit(t, info, abbrev, offs, "f", nil)
	want := []Local{
		{FunctionName: "f", Name: "a", FrameOffset: 16, HasFrameOffset: true},
		{FunctionName: "f", Name: "b"},
		{FunctionName: "f", Name: "c", FrameOffset: -3, HasFrameOffset: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("locals (-want +got):\n%s", diff)
	}
}

// TestLocalsLocationLists: the first entry with a frame offset answers,
// whatever its range, and only if the whole list decodes and resolves
// (LLVM's findLoclistFromOffset), in .debug_loc and .debug_loclists.
func TestLocalsLocationLists(t *testing.T) {
	v4 := func(entries ...[]byte) []byte { // (start, end, expr) triples, then (0, 0)
		b := dwasm.New(false).Zeros(3) // lists start at 3
		for _, e := range entries {
			b.Raw(e)
		}
		return b.U64(0).U64(0).Bytes()
	}
	pair := func(lo, hi uint64, expr []byte) []byte {
		return dwasm.New(false).U64(lo).U64(hi).U16(uint16(len(expr))).Raw(expr).Bytes()
	}
	lle := func(parts ...any) []byte {
		b := dwasm.New(false)
		for _, p := range parts {
			switch p := p.(type) {
			case int:
				b.U8(uint8(p))
			case uint64:
				b.ULEB(p)
			case []byte:
				b.ULEB(uint64(len(p))).Raw(p)
			}
		}
		return b.Bytes()
	}
	type tc struct {
		name    string
		version uint16
		sec     []byte
		base    bool // the unit has DW_AT_low_pc
		off     int64
		ok      bool
		wantErr bool
	}
	cases := []tc{
		{"v4 second entry", 4, v4(pair(0, 4, []byte{0x50}), pair(4, 8, fbreg(-24))), true, -24, true, false},
		{"v4 base selection", 4, v4(dwasm.New(false).U64(^uint64(0)).U64(0x1000).Bytes(), pair(0, 4, fbreg(-8))), true, -8, true, false},
		{"v4 no fbreg", 4, v4(pair(0, 4, []byte{0x50})), true, 0, false, false},
		{"v4 truncated", 4, v4(pair(0, 4, fbreg(-8)))[:20], true, 0, false, true},
		{"v4 no base", 4, v4(pair(0, 4, fbreg(-8))), false, 0, false, false},
		{"v5 offset pair", 5, append([]byte{0, 0, 0}, lle(0x04, uint64(0), uint64(4), fbreg(-40), 0x00)...), true, -40, true, false},
		{"v5 truncated start_length", 5, append([]byte{0, 0, 0},
			lle(0x08, []byte{0, 0, 0, 0, 0, 0, 0, 0}[:0], 0x00)...), true, 0, false, true},
		{"v5 default location", 5, append([]byte{0, 0, 0}, lle(0x05, fbreg(12), 0x00)...), true, 12, true, false},
		{"v5 startx_endx", 5, append([]byte{0, 0, 0}, lle(0x02, uint64(0), uint64(1), fbreg(12), 0x00)...), true, 0, false, false},
		{"v5 unknown kind", 5, append([]byte{0, 0, 0}, lle(0x05, fbreg(12), 0x09, 0x00)...), true, 0, false, true},
		{"v5 later error", 5, append([]byte{0, 0, 0}, lle(0x05, fbreg(12), 0x04, uint64(0))...), true, 0, false, true},
		{"v5 no base", 5, append([]byte{0, 0, 0}, lle(0x04, uint64(0), uint64(4), fbreg(-40), 0x00)...), false, 0, false, false},
		{"v5 startx without addr_base", 5, append([]byte{0, 0, 0}, lle(0x03, uint64(0), uint64(4), fbreg(-40), 0x00)...), true, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &ld{tag: dwinfo.TagVariable, attrs: []la{lName("v"), {at: attrLocation, form: dw.FormSecOffset, v: 3}}}
			if c.version < 4 {
				v.attrs[1].form = dw.FormData4
			}
			f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f")}, kids: []*ld{v}}
			unit := lUnit(f)
			if !c.base {
				unit.attrs = unit.attrs[:1]
			}
			info, abbrev, offs := localsUnits(c.version, unit)
			opts := &LocalsOptions{Loc: c.sec, Loclists: c.sec}
			got, err := localsOfUnit(t, info, abbrev, offs, "f", opts)
			if (err != nil) != c.wantErr {
				t.Errorf("error %v, want one: %v", err, c.wantErr)
			}
			if err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFormat) {
				t.Errorf("error %v is not ErrTruncated or ErrFormat", err)
			}
			if len(got) != 1 || got[0].FrameOffset != c.off || got[0].HasFrameOffset != c.ok {
				t.Errorf("got %+v, want offset %d (%v)", got, c.off, c.ok)
			}
		})
	}
}

// TestLocalsLoclistx: DW_FORM_loclistx goes through the offsets table at
// DW_AT_loclists_base; an index past offset_entry_count names nothing.
func TestLocalsLoclistx(t *testing.T) {
	sec := dwasm.New(false)
	l := sec.BeginLength(false)
	sec.U16(5).U8(8).U8(0).U32(2) // two offsets
	base := uint64(sec.Len())
	sec.U32(8).U32(8 + 4) // list 0 at base+8, list 1 at base+12
	sec.U8(0x05).ULEB(uint64(len(fbreg(-7)))).Raw(fbreg(-7)).U8(0x00)
	sec.End(l)
	for _, c := range []struct {
		index uint64
		ok    bool
	}{{0, true}, {2, false}} {
		v := &ld{tag: dwinfo.TagVariable, attrs: []la{lName("v"), {at: attrLocation, form: dw.FormLoclistx, v: c.index}}}
		f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f")}, kids: []*ld{v}}
		unit := lUnit(f)
		unit.attrs = append(unit.attrs, la{at: dwinfo.AttrLoclistsBase, form: dw.FormSecOffset, v: base})
		info, abbrev, offs := localsUnits(5, unit)
		got, err := localsOfUnit(t, info, abbrev, offs, "f", &LocalsOptions{Loclists: sec.Bytes()})
		if len(got) != 1 || got[0].HasFrameOffset != c.ok || c.ok && got[0].FrameOffset != -7 {
			t.Errorf("index %d: got %+v (%v), want offset -7: %v", c.index, got, err, c.ok)
		}
		if c.ok != (err == nil) {
			t.Errorf("index %d: error %v", c.index, err)
		}
	}
}

// TestLocalsAcrossUnits: an inlined subroutine and a variable whose
// abstract origins live in another unit (gcc LTO) take their names from
// there; the declaration file is still named by the answering unit's line
// table (without one, by none).
func TestLocalsAcrossUnits(t *testing.T) {
	abs := lUnit(
		&ld{label: "int", tag: 0x24, attrs: []la{lName("int"), lSize(4)}},
		&ld{label: "g", tag: dwinfo.TagSubprogram, attrs: []la{lName("g")}, kids: []*ld{
			{label: "g.x", tag: dwinfo.TagFormalParameter, attrs: []la{lName("x"), lLine(9), lType("int")}},
		}},
	)
	f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f")}, kids: []*ld{
		{tag: dwinfo.TagInlinedSubroutine, attrs: []la{{at: dwinfo.AttrAbstractOrigin, form: dw.FormRefAddr, ref: "g"}}, kids: []*ld{
			{tag: dwinfo.TagFormalParameter, attrs: []la{{at: dwinfo.AttrAbstractOrigin, form: dw.FormRefAddr, ref: "g.x"}, lLoc(fbreg(-1)...)}},
		}},
	}}
	info, abbrev, offs := localsUnits(4, lUnit(f), abs)
	got, err := localsOfUnit(t, info, abbrev, offs, "f", nil)
	want := []Local{{FunctionName: "g", Name: "x", DeclLine: 9, FrameOffset: -1, HasFrameOffset: true, Size: 4, HasSize: true}}
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("locals (-want +got), err %v:\n%s", err, diff)
	}
}

// TestLocalsBadInput: references that name nothing, a walk that meets a
// bad abbreviation, and truncated units cost what they touch, with an
// error, and never panic.
func TestLocalsBadInput(t *testing.T) {
	f := &ld{label: "f", tag: dwinfo.TagSubprogram, attrs: []la{lName("f")}, kids: []*ld{
		{tag: dwinfo.TagVariable, attrs: []la{lName("a"), {at: attrType, form: dw.FormRef4, v: 0xfff0}}},
		{tag: dwinfo.TagVariable, attrs: []la{lName("b"), {at: dwinfo.AttrAbstractOrigin, form: dw.FormRefAddr, v: 1 << 30}}},
		{label: "c", tag: dwinfo.TagVariable, attrs: []la{lName("c"), lLoc(fbreg(-2)...)}},
	}}
	info, abbrev, offs := localsUnits(4, lUnit(f))
	got, _ := localsOfUnit(t, info, abbrev, offs, "f", nil)
	want := []Local{{FunctionName: "f", Name: "a"}, {FunctionName: "f", Name: "b"},
		{FunctionName: "f", Name: "c", FrameOffset: -2, HasFrameOffset: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dangling references (-want +got):\n%s", diff)
	}
	// An unknown abbreviation code where c starts ends the walk there.
	bad := append([]byte(nil), info...)
	bad[offs["c"]] = 0x7f
	got, err := localsOfUnit(t, bad, abbrev, offs, "f", nil)
	if len(got) != 2 || !errors.Is(err, ErrFormat) {
		t.Errorf("bad abbreviation: %d locals, %v", len(got), err)
	}
	// A DIE offset outside the unit.
	d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
	h, _ := d.HeaderAt(0)
	u, _ := d.LoadUnit(h)
	if got, err := AppendLocals(nil, d, u, u.End+5, nil); len(got) != 0 || err == nil {
		t.Errorf("offset past the unit: %v, %v", got, err)
	}
}

func TestLLVMSLEB(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		v    int64
		n    int
		name string
	}{
		{[]byte{0x7f}, -1, 1, "one byte"},
		{[]byte{0x80, 0x01}, 128, 2, "two bytes"},
		{[]byte{}, 0, 0, "empty"},
		{[]byte{0x80}, 0, 1, "cut short"},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, 10, "ten bytes, zero"},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, -1, 10, "ten bytes, -1"},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, 9, "too big"},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, 10, "past 64 bits"},
	} {
		v, n := llvmSLEB(c.in)
		if v != c.v || n != c.n {
			t.Errorf("%s: llvmSLEB(% x) = %d, %d; want %d, %d", c.name, c.in, v, n, c.v, c.n)
		}
	}
}
