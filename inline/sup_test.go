package inline

import (
	"io"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// dieOffsets maps the DW_FORM_string DW_AT_name of each DIE of d's first
// unit to its offset.
func dieOffsets(t *testing.T, d *dwinfo.Data) map[string]uint64 {
	t.Helper()
	u, err := d.UnitAt(0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	er := u.Entries()
	var e dwinfo.Entry
	for {
		if err := er.Next(&e); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if v, ok, _ := u.Attr(&e, dwinfo.AttrName); ok && v.Class == dw.ClassString {
			out[string(v.B)] = e.Offset
		}
	}
}

func altRef(at dwinfo.Attr, off uint64) tattr { return tattr{at: at, form: dw.FormGNURefAlt, v: off} }

// TestSupReferences: abstract origins and specifications that cross into
// a supplementary file (dwz) name frames from its partial unit, with
// declaration files from that unit's line table; references within it
// stay there; a supplementary reference from inside it, a dangling one and
// a cycle name nothing more; without the file the frames are nameless.
func TestSupReferences(t *testing.T) {
	// The supplementary file: one partial unit.
	supRoot := &tdie{tag: dwinfo.TagPartialUnit, attrs: []tattr{
		{at: dwinfo.AttrStmtList, form: dw.FormSecOffset, v: 0}, str(dwinfo.AttrCompDir, "/sup")}, kids: []*tdie{
		{tag: dwinfo.TagSubprogram, attrs: []tattr{str(dwinfo.AttrName, "leaf"), str(dwinfo.AttrLinkageName, "_Z4leafv"),
			u4(dwinfo.AttrDeclLine, 7), u4(dwinfo.AttrDeclFile, 1)}},
		{label: "midDecl", tag: dwinfo.TagSubprogram, attrs: []tattr{str(dwinfo.AttrName, "mid"), u4(dwinfo.AttrDeclLine, 20), u4(dwinfo.AttrDeclFile, 2)}},
		{tag: dwinfo.TagSubprogram, attrs: []tattr{str(dwinfo.AttrName, "midAbs"), ref(dwinfo.AttrSpecification, "midDecl")}},
		{label: "loopA", tag: dwinfo.TagSubprogram, attrs: []tattr{str(dwinfo.AttrName, "loopA"), ref(dwinfo.AttrSpecification, "loopB")}},
		{label: "loopB", tag: dwinfo.TagSubprogram, attrs: []tattr{ref(dwinfo.AttrAbstractOrigin, "loopA"), u4(dwinfo.AttrDeclLine, 99)}},
		{tag: dwinfo.TagSubprogram, attrs: []tattr{str(dwinfo.AttrName, "chained"), altRef(dwinfo.AttrAbstractOrigin, 0x40)}},
	}}
	supInfo, supAbbrev := unitBytes(supRoot)
	supData := dwinfo.New(dwinfo.Sections{Info: supInfo, Abbrev: supAbbrev}, nil)
	so := dieOffsets(t, supData)
	// midAbs names itself (the first DIE with DW_AT_name answers) and
	// takes its declaration from midDecl.
	h := linetable.DefaultHeader(4)
	h.Dirs = []string{"", "/inc"}
	h.Files = []linetable.File{{}, {Name: "leaf.h", Dir: 1}, {Name: "mid.h", Dir: 0}}
	asm, err := linetable.Assemble(&h, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	supLT, err := linetable.NewTable(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}

	mainRoot := cu(
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{str(dwinfo.AttrName, "outer"), u4(dwinfo.AttrDeclLine, 30)}, pcRange(0x1000, 0x1100)),
			kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{altRef(dwinfo.AttrAbstractOrigin, so["midAbs"]),
					u4(dwinfo.AttrCallLine, 33), u4(dwinfo.AttrCallColumn, 4)}, pcRange(0x1010, 0x1050)),
					kids: []*tdie{
						{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{{at: dwinfo.AttrAbstractOrigin, form: dw.FormRefSup4, v: so["leaf"]},
							u4(dwinfo.AttrCallLine, 22), u4(dwinfo.AttrCallColumn, 9)}, pcRange(0x1020, 0x1030))},
					}},
			}},
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{altRef(dwinfo.AttrAbstractOrigin, so["loopA"])}, pcRange(0x2000, 0x2010))},
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{altRef(dwinfo.AttrAbstractOrigin, so["chained"])}, pcRange(0x3000, 0x3010))},
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{altRef(dwinfo.AttrAbstractOrigin, 1<<20)}, pcRange(0x4000, 0x4010))},
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{altRef(dwinfo.AttrAbstractOrigin, so["leaf"]+1)}, pcRange(0x5000, 0x5010))},
	)
	info, abbrev := unitBytes(mainRoot)
	build := func(sup *dwinfo.Data, setSup bool) *Index {
		t.Helper()
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
		if setSup {
			d.SetSup(func() *dwinfo.Data { return sup })
		}
		u, err := d.UnitAt(0)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Build(d, u, nil, &Options{LineTable: func(u *dwinfo.Unit) *linetable.Table {
			if u.Data() == supData && u.Offset == 0 {
				return supLT
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}

	ix := build(supData, true)
	for _, tc := range []struct {
		pc   uint64
		want string
	}{
		{0x1025, "_Z4leafv/leaf@0 s7 a1020|midAbs/midAbs@22:9 s20 a1010|outer/outer@33:4 s30 a1000"},
		{0x1040, "midAbs/midAbs@0 s20 a1010|outer/outer@33:4 s30 a1000"},
		{0x2000, "loopA/loopA@0 s99 a2000"}, // the cycle ends: loopA names, loopB gives the line
		{0x3000, "chained/chained@0 s0 a3000"},
		{0x4000, "/@0 s0 a4000"}, // past the supplementary .debug_info
		{0x5000, "/@0 s0 a5000"}, // inside a DIE: no DIE starts there
	} {
		if got := describe(ix.AppendChain(nil, tc.pc)); got != tc.want {
			t.Errorf("%#x: got %q, want %q", tc.pc, got, tc.want)
		}
	}
	fs := ix.AppendChain(nil, 0x1025)
	if fs[0].StartFile != "/inc/leaf.h" || fs[1].StartFile != "/sup/mid.h" {
		t.Errorf("StartFiles = %q, %q; want the partial unit's files /inc/leaf.h, /sup/mid.h", fs[0].StartFile, fs[1].StartFile)
	}

	// Without the file (none found, or no resolver at all): the frames
	// are there, nameless.
	for _, setSup := range []bool{true, false} {
		ix := build(nil, setSup)
		if got, want := describe(ix.AppendChain(nil, 0x1025)), "/@0 s0 a1020|/@22:9 s0 a1010|outer/outer@33:4 s30 a1000"; got != want {
			t.Errorf("no file (resolver %v): got %q, want %q", setSup, got, want)
		}
	}
}
