package inline

import (
	"errors"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// tattr is one attribute of a synthetic DIE. For reference forms, ref
// names the target DIE; for DW_FORM_string, s is the value.
type tattr struct {
	at   dwinfo.Attr
	form dw.Form
	v    uint64
	s    string
	ref  string
}

// tdie is a synthetic DIE; name labels it for references.
type tdie struct {
	label string
	tag   dwinfo.Tag
	attrs []tattr
	kids  []*tdie
}

// unitBytes lays out a DWARF 4 unit (address size 8) with one abbreviation
// per DIE, returning .debug_info and .debug_abbrev. References are
// resolved in a second pass; every form used has a fixed size, so the
// layout does not change.
func unitBytes(root *tdie) (info, abbrev []byte) {
	offs := map[string]uint64{}
	for pass := 0; pass < 2; pass++ {
		ab := dwasm.New(false)
		b := dwasm.New(false)
		l := b.BeginLength(false)
		b.U16(4).Off(false, 0).U8(8)
		code := uint64(0)
		var emit func(d *tdie)
		emit = func(d *tdie) {
			code++
			ab.ULEB(code).ULEB(uint64(d.tag))
			if len(d.kids) > 0 {
				ab.U8(1)
			} else {
				ab.U8(0)
			}
			for _, a := range d.attrs {
				ab.ULEB(uint64(a.at)).ULEB(uint64(a.form))
			}
			ab.U8(0).U8(0)
			if d.label != "" {
				offs[d.label] = uint64(b.Len())
			}
			b.ULEB(code)
			for _, a := range d.attrs {
				v := a.v
				if a.ref != "" {
					v += offs[a.ref] // v: how far into the DIE
				}
				switch a.form {
				case dw.FormAddr:
					b.U64(v)
				case dw.FormData1, dw.FormRef1:
					b.U8(uint8(v))
				case dw.FormData4, dw.FormRef4, dw.FormRefAddr, dw.FormSecOffset,
					dw.FormGNURefAlt, dw.FormRefSup4, dw.FormStrp, dw.FormGNUStrpAlt, dw.FormStrpSup:
					b.U32(uint32(v))
				case dw.FormData8:
					b.U64(v)
				case dw.FormString:
					b.CString(a.s)
				case dw.FormFlagPresent:
				default:
					panic("form not supported by the test builder")
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
		ab.U8(0)
		b.End(l)
		info, abbrev = b.Bytes(), ab.Bytes()
	}
	return info, abbrev
}

func str(at dwinfo.Attr, s string) tattr { return tattr{at: at, form: dw.FormString, s: s} }
func u4(at dwinfo.Attr, v uint64) tattr  { return tattr{at: at, form: dw.FormData4, v: v} }
func addr(at dwinfo.Attr, v uint64) tattr {
	return tattr{at: at, form: dw.FormAddr, v: v}
}
func ref(at dwinfo.Attr, label string) tattr { return tattr{at: at, form: dw.FormRef4, ref: label} }

func pcRange(lo, hi uint64) []tattr {
	return []tattr{addr(dwinfo.AttrLowPC, lo), u4(dwinfo.AttrHighPC, hi-lo)}
}

func attrs(groups ...[]tattr) []tattr {
	var out []tattr
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// loadSynth lays out root (unitBytes) and loads its single unit.
func loadSynth(t *testing.T, root *tdie) (*dwinfo.Data, *dwinfo.Unit) {
	t.Helper()
	info, abbrev := unitBytes(root)
	d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
	h, err := d.HeaderAt(0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.LoadUnit(h)
	if err != nil {
		t.Fatal(err)
	}
	return d, u
}

// buildSynth builds the Index of the single unit of root.
func buildSynth(t *testing.T, root *tdie) (*Index, error) {
	t.Helper()
	d, u := loadSynth(t, root)
	return Build(d, u, nil, nil)
}

func cu(kids ...*tdie) *tdie {
	return &tdie{tag: dwinfo.TagCompileUnit, attrs: []tattr{str(dwinfo.AttrName, "x.c")}, kids: kids}
}

func TestSynthChain(t *testing.T) {
	root := cu(
		&tdie{label: "leafA", tag: dwinfo.TagSubprogram, attrs: []tattr{
			str(dwinfo.AttrName, "leaf"), str(dwinfo.AttrLinkageName, "_Z4leafv"), u4(dwinfo.AttrDeclLine, 7),
			{at: dwinfo.Attr(0x20), form: dw.FormData1, v: 3}}}, // DW_AT_inline
		&tdie{label: "midDecl", tag: dwinfo.TagSubprogram, attrs: []tattr{
			str(dwinfo.AttrName, "mid"), u4(dwinfo.AttrDeclLine, 20)}},
		&tdie{label: "midA", tag: dwinfo.TagSubprogram, attrs: []tattr{ref(dwinfo.AttrSpecification, "midDecl")}},
		&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{str(dwinfo.AttrName, "outer"), u4(dwinfo.AttrDeclLine, 30)}, pcRange(0x1000, 0x1100)),
			kids: []*tdie{
				{tag: dwinfo.TagLexicalBlock, attrs: pcRange(0x1000, 0x1080), kids: []*tdie{
					{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{ref(dwinfo.AttrAbstractOrigin, "midA"),
						u4(dwinfo.AttrCallFile, 1), u4(dwinfo.AttrCallLine, 33), u4(dwinfo.AttrCallColumn, 4)}, pcRange(0x1010, 0x1050)),
						kids: []*tdie{
							{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{ref(dwinfo.AttrAbstractOrigin, "leafA"),
								u4(dwinfo.AttrCallLine, 22), u4(dwinfo.AttrCallColumn, 9), u4(attrGNUDiscriminator, 2)}, pcRange(0x1020, 0x1030))},
						}},
				}},
			}},
	)
	ix, err := buildSynth(t, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pc   uint64
		want string
	}{
		{0x0fff, ""},
		{0x1000, "outer/outer@0 s30 a1000"},
		{0x1010, "mid/mid@0 s20 a1010|outer/outer@33:4 s30 a1000"},
		{0x1025, "_Z4leafv/leaf@0 s7 a1020|mid/mid@22:9d2 s20 a1010|outer/outer@33:4 s30 a1000"},
		{0x1030, "mid/mid@0 s20 a1010|outer/outer@33:4 s30 a1000"},
		{0x1050, "outer/outer@0 s30 a1000"},
		{0x10ff, "outer/outer@0 s30 a1000"},
		{0x1100, ""},
	} {
		if got := describe(ix.AppendChain(nil, tc.pc)); got != tc.want {
			t.Errorf("%#x: got %q, want %q", tc.pc, got, tc.want)
		}
	}
}

// describe renders frames compactly for table tests.
func describe(fs []Frame) string {
	var parts []string
	for _, f := range fs {
		s := f.Name + "/" + f.ShortName + "@" + itoa(uint64(f.Line))
		if f.Column != 0 {
			s += ":" + itoa(uint64(f.Column))
		}
		if f.Discriminator != 0 {
			s += "d" + itoa(uint64(f.Discriminator))
		}
		s += " s" + itoa(uint64(f.StartLine))
		if f.HasStartAddress {
			s += " a" + hex(f.StartAddress)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "|")
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 16 {
		b = append([]byte{digits[v%16]}, b...)
	}
	return string(b)
}

// TestSynthBadInput: reference cycles, references out of the section or
// into the middle of a DIE, bad abbreviation codes and absurd nesting end
// in a nameless frame or a typed error, never a hang or panic.
func TestSynthBadInput(t *testing.T) {
	t.Run("cycle", func(t *testing.T) {
		root := cu(
			&tdie{label: "a", tag: dwinfo.TagSubprogram, attrs: []tattr{ref(dwinfo.AttrAbstractOrigin, "b")}},
			&tdie{label: "b", tag: dwinfo.TagSubprogram, attrs: []tattr{ref(dwinfo.AttrSpecification, "a"), ref(dwinfo.AttrAbstractOrigin, "b")}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{ref(dwinfo.AttrAbstractOrigin, "a")}, pcRange(0x10, 0x20))},
		)
		ix, err := buildSynth(t, root)
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(ix.AppendChain(nil, 0x10)); got != "/@0 s0 a10" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("dangling", func(t *testing.T) {
		root := cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{{at: dwinfo.AttrAbstractOrigin, form: dw.FormRefAddr, v: 1 << 30}}, pcRange(0x10, 0x20))},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{{at: dwinfo.AttrAbstractOrigin, form: dw.FormRef4, v: 12}}, pcRange(0x20, 0x30))},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{{at: dwinfo.AttrSpecification, form: dw.FormRef4, v: 1 << 31}}, pcRange(0x30, 0x40))},
		)
		ix, err := buildSynth(t, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range []uint64{0x10, 0x20, 0x30} {
			if fs := ix.AppendChain(nil, pc); len(fs) != 1 || fs[0].Name != "" {
				t.Errorf("%#x: got %q", pc, describe(fs))
			}
		}
	})
	t.Run("bad abbrev", func(t *testing.T) {
		root := cu(&tdie{tag: dwinfo.TagSubprogram, attrs: pcRange(0x10, 0x20)},
			&tdie{tag: dwinfo.TagSubprogram, attrs: pcRange(0x20, 0x30)})
		info, abbrev := unitBytes(root)
		// The third DIE's code (3) is replaced by one the table lacks.
		i := strings.LastIndexByte(string(info), 3)
		info[i] = 0x7f
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev}, nil)
		h, _ := d.HeaderAt(0)
		u, err := d.LoadUnit(h)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Build(d, u, nil, nil)
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrFormat) || de.Section != ".debug_info" {
			t.Fatalf("err = %v, want a .debug_info ErrFormat DecodeError", err)
		}
		if fs := ix.AppendChain(nil, 0x10); len(fs) != 1 {
			t.Errorf("DIEs before the bad one were lost: %q", describe(fs))
		}
	})
	t.Run("deep", func(t *testing.T) {
		leaf := &tdie{tag: dwinfo.TagInlinedSubroutine, attrs: pcRange(0x10, 0x11)}
		d := leaf
		for range 3000 {
			d = &tdie{tag: dwinfo.TagInlinedSubroutine, attrs: pcRange(0x10, 0x20), kids: []*tdie{d}}
		}
		_, err := buildSynth(t, cu(d))
		if !errors.Is(err, ErrLimit) {
			t.Fatalf("err = %v, want ErrLimit", err)
		}
	})
}
