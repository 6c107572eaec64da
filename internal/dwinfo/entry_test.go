package dwinfo

import (
	"bytes"
	"debug/dwarf"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// TestEntriesMatchDebugDwarf walks every unit of every fixture with both
// this package and Go's debug/dwarf and compares DIE offsets, tags,
// children flags and every attribute value.
func TestEntriesMatchDebugDwarf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			d, gd := loadDWARF(t, path)
			gr := gd.Reader()
			ur := d.Units()
			nUnits, nDIEs := 0, 0
			for {
				var h Header
				err := ur.Next(&h)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				nUnits++
				u, err := d.LoadUnit(h)
				if err != nil {
					t.Fatalf("unit %#x: %v", h.Offset, err)
				}
				er := u.Entries()
				var e Entry
				for {
					err := er.Next(&e)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("unit %#x: %v", h.Offset, err)
					}
					nDIEs++
					ge := nextNonNull(t, gr)
					if ge == nil {
						t.Fatalf("debug/dwarf ended before %#x", e.Offset)
					}
					if uint64(ge.Offset) != e.Offset || uint16(ge.Tag) != uint16(e.Tag) || ge.Children != e.Children {
						t.Fatalf("entry: got %#x %v %v, debug/dwarf %#x %v %v", e.Offset, e.Tag, e.Children, ge.Offset, ge.Tag, ge.Children)
					}
					compareFields(t, u, &e, ge)
				}
			}
			if ge := nextNonNull(t, gr); ge != nil {
				t.Fatalf("debug/dwarf has more entries, next at %#x", ge.Offset)
			}
			t.Logf("%d units, %d DIEs", nUnits, nDIEs)
		})
	}
}

func nextNonNull(t *testing.T, gr *dwarf.Reader) *dwarf.Entry {
	for {
		ge, err := gr.Next()
		if err != nil {
			t.Fatalf("debug/dwarf: %v", err)
		}
		if ge == nil || ge.Tag != 0 {
			return ge
		}
	}
}

func compareFields(t *testing.T, u *Unit, e *Entry, ge *dwarf.Entry) {
	t.Helper()
	fs, err := u.AppendAttrs(nil, e)
	if err != nil {
		t.Fatalf("DIE %#x: %v", e.Offset, err)
	}
	if len(fs) != len(ge.Field) {
		t.Fatalf("DIE %#x: %d fields, debug/dwarf %d", e.Offset, len(fs), len(ge.Field))
	}
	for i, f := range fs {
		gf := ge.Field[i]
		if uint16(gf.Attr) != uint16(f.Attr) {
			t.Fatalf("DIE %#x field %d: attr %#x, debug/dwarf %v", e.Offset, i, f.Attr, gf.Attr)
		}
		if msg := sameValue(u, f, gf); msg != "" {
			t.Errorf("DIE %#x %v (form %#x): %s", e.Offset, gf.Attr, uint64(f.Form), msg)
		}
	}
}

func sameValue(u *Unit, f Field, gf dwarf.Field) string {
	v := f.Val
	var got any
	switch v.Class {
	case dw.ClassString, dw.ClassStrp, dw.ClassLineStrp, dw.ClassStrx:
		s, err := u.String(v)
		if err != nil {
			return err.Error()
		}
		got = string(s)
	case dw.ClassAddress, dw.ClassAddrx:
		a, err := u.Addr(v)
		if err != nil {
			return err.Error()
		}
		got = a
	case dw.ClassRef, dw.ClassRefAddr:
		r, _ := u.Ref(v)
		got = dwarf.Offset(r)
	case dw.ClassFlag:
		got = v.U != 0
	case dw.ClassBlock, dw.ClassData16:
		got = v.B
	case dw.ClassRnglistx:
		return "" // compared in TestRnglistxMatchesDebugDwarf
	case dw.ClassConstant, dw.ClassSecOffset, dw.ClassLoclistx:
		got = int64(v.U)
		if _, ok := gf.Val.(uint64); ok {
			got = v.U
		}
	case dw.ClassRefSig8:
		got = v.U
	default:
		return fmt.Sprintf("unexpected class %d", v.Class)
	}
	if b, ok := got.([]byte); ok {
		gb, ok := gf.Val.([]byte)
		if !ok || !bytes.Equal(b, gb) {
			return fmt.Sprintf("got %x, debug/dwarf %#v", b, gf.Val)
		}
		return ""
	}
	if got != gf.Val {
		return fmt.Sprintf("got %#v, debug/dwarf %#v (%T)", got, gf.Val, gf.Val)
	}
	return ""
}

// TestSkipChildren checks that skipping every subtree with SkipChildren
// lands exactly where walking it would.
func TestSkipChildren(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(path, func(t *testing.T) {
			secs, _, ok := loadELF(t, path)
			if !ok {
				t.Skip("no .debug_info")
			}
			for _, u := range loadUnits(t, New(secs, nil)) {
				// Collect (offset, depth) of all DIEs by walking.
				type od struct {
					off   uint64
					depth int
				}
				var all []od
				er := u.Entries()
				var e Entry
				for er.Next(&e) == nil {
					all = append(all, od{e.Offset, e.Depth})
				}
				// Each DIE with children at depth 1: skip and compare with
				// the next DIE at depth <= 1 in the walk.
				for i, x := range all {
					er, err := u.EntriesAt(x.off)
					if err != nil {
						t.Fatal(err)
					}
					if err := er.Next(&e); err != nil {
						t.Fatal(err)
					}
					if err := er.SkipChildren(&e); err != nil {
						t.Fatal(err)
					}
					var want uint64
					var wantD int
					found := false
					for _, y := range all[i+1:] {
						if y.depth <= x.depth {
							want, wantD, found = y.off, y.depth, true
							break
						}
					}
					var n Entry
					err = er.Next(&n)
					if !found {
						// Skipping from a non-root start may walk into the
						// parent's siblings; only check when there is a target.
						continue
					}
					if err != nil || n.Offset != want {
						t.Fatalf("skip from %#x: got %#x (%v), want %#x", x.off, n.Offset, err, want)
					}
					if wantDepth := max(0, wantD-x.depth); n.Depth != wantDepth {
						t.Fatalf("skip from %#x: relative depth %d, want %d", x.off, n.Depth, wantDepth)
					}
				}
			}
		})
	}
}

func TestAbbrevCacheShared(t *testing.T) {
	for _, path := range fixtures(t)[:1] {
		secs, _, ok := loadELF(t, path)
		if !ok {
			t.Skip()
		}
		d := New(secs, nil)
		a, err1 := d.Abbrevs(0)
		b, err2 := d.Abbrevs(0)
		if err1 != nil || err2 != nil || a != b {
			t.Fatalf("cache: %p %v, %p %v", a, err1, b, err2)
		}
	}
}

// TestEntryAtAndSkip checks, on every DIE of every fixture, that EntryAt
// decodes what the entry reader did, that Sibling matches DW_AT_sibling,
// and that skipping every other attribute with Skip leaves the values
// Next returns for the rest unchanged.
func TestEntryAtAndSkip(t *testing.T) {
	for _, path := range fixtures(t) {
		secs, _, ok := loadELF(t, path)
		if !ok {
			continue
		}
		d := New(secs, nil)
		hs, _ := d.Headers()
		for _, h := range hs {
			u, err := d.LoadUnit(h)
			if err != nil {
				continue
			}
			er := u.Entries()
			var e, at Entry
			if u.EntryAt(u.End, &at) == nil || u.EntryAt(u.DIEOffset-1, &at) == nil {
				t.Fatalf("%s: EntryAt outside unit %#x succeeded", path, u.Offset)
			}
			var all []Field
			for er.Next(&e) == nil {
				if err := u.EntryAt(e.Offset, &at); err != nil || at.Tag != e.Tag || at.Children != e.Children || at.attrOff != e.attrOff {
					t.Fatalf("%s: EntryAt(%#x) = %+v, %v; reader had %+v", path, e.Offset, at, err, e)
				}
				all, err = u.AppendAttrs(all[:0], &e)
				if err != nil {
					t.Fatal(err)
				}
				var sib uint64
				for _, f := range all {
					if f.Attr == AttrSibling && f.Val.Class == dw.ClassRef {
						sib = u.Offset + f.Val.U
						break
					}
				}
				if e.Sibling() != sib {
					t.Fatalf("%s: DIE %#x: Sibling %#x, want %#x", path, e.Offset, e.Sibling(), sib)
				}
				it := u.Attrs(&at)
				var f Field
				for i := range all {
					a, ok := it.Peek()
					if !ok || a != all[i].Attr {
						t.Fatalf("%s: DIE %#x: Peek %d = %#x, %v", path, e.Offset, i, a, ok)
					}
					if i%2 == 0 {
						if !it.Skip() {
							t.Fatalf("%s: DIE %#x: Skip %d failed: %v", path, e.Offset, i, it.Err())
						}
						continue
					}
					if !it.Next(&f) || f.Attr != all[i].Attr || f.Val.U != all[i].Val.U || !bytes.Equal(f.Val.B, all[i].Val.B) {
						t.Fatalf("%s: DIE %#x: attribute %d = %+v, want %+v", path, e.Offset, i, f, all[i])
					}
				}
				if _, ok := it.Peek(); ok {
					t.Fatalf("%s: DIE %#x: attributes left over", path, e.Offset)
				}
			}
		}
	}
}

// TestDeclsShared: the tables of a Data share declarations with the same
// bytes whatever their codes, and only those: an implicit_const of another
// value, or another tag, is another declaration. A table parsed without a
// pool (a unit root's) reads the same.
func TestDeclsShared(t *testing.T) {
	ab := dwasm.New(false)
	variable := func(code uint64, imp int64) {
		ab.ULEB(code).ULEB(uint64(TagVariable)).U8(0)
		ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrp))
		ab.ULEB(uint64(AttrDeclLine)).ULEB(uint64(dw.FormImplicitConst)).SLEB(imp)
		ab.ULEB(0).ULEB(0)
	}
	sub := func(code uint64, tag Tag) {
		ab.ULEB(code).ULEB(uint64(tag)).U8(1)
		ab.ULEB(uint64(AttrName)).ULEB(uint64(dw.FormString))
		ab.ULEB(0).ULEB(0)
	}
	variable(1, 7)
	sub(2, TagSubprogram)
	ab.ULEB(0)
	offB := uint64(ab.Len())
	sub(1, TagSubprogram)
	variable(2, 9)
	variable(3, 7)
	sub(4, TagLexicalBlock)
	ab.ULEB(0)
	d := New(Sections{Abbrev: ab.Bytes()}, nil)
	ta, err := d.Abbrevs(0)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := d.Abbrevs(offB)
	if err != nil {
		t.Fatal(err)
	}
	get := func(tab *AbbrevTable, code uint64) *Abbrev {
		a, ok := tab.Lookup(code)
		if !ok {
			t.Fatalf("no code %d", code)
		}
		return a
	}
	a1, a2 := get(ta, 1), get(ta, 2)
	b1, b2, b3, b4 := get(tb, 1), get(tb, 2), get(tb, 3), get(tb, 4)
	if a2.decl != b1.decl || a1.decl != b3.decl {
		t.Errorf("alike declarations not shared: %p %p, %p %p", a2.decl, b1.decl, a1.decl, b3.decl)
	}
	if a1.decl == b2.decl || a2.decl == b4.decl {
		t.Errorf("declarations of another value or tag shared")
	}
	for _, c := range []struct {
		a    *Abbrev
		tag  Tag
		code uint64
		imp  int64
	}{{a1, TagVariable, 1, 7}, {b2, TagVariable, 2, 9}, {b3, TagVariable, 3, 7}} {
		attrs := c.a.Attrs()
		if c.a.Tag != c.tag || c.a.Code != c.code || len(attrs) != 2 || c.a.implicitOf(&attrs[1]) != c.imp {
			t.Errorf("code %d: tag %v, code %d, %d attributes, implicit %d; want %v, %d, 2, %d",
				c.code, c.a.Tag, c.a.Code, len(attrs), c.a.implicitOf(&attrs[1]), c.tag, c.code, c.imp)
		}
	}
	if b4.Tag != TagLexicalBlock || !b4.Children {
		t.Errorf("code 4: %v, children %v", b4.Tag, b4.Children)
	}
	own, err := parseAbbrevs(d.reader(secAbbrev, d.s.Abbrev), offB, defaultSizes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for code := uint64(1); code <= 4; code++ {
		x, y := get(own, code), get(tb, code)
		if x.decl == y.decl || !slices.Equal(x.Attrs(), y.Attrs()) || !slices.Equal(x.decl.vals, y.decl.vals) || x.Tag != y.Tag {
			t.Errorf("code %d without a pool: %v %v, shared %v %v", code, x.Attrs(), x.decl.vals, y.Attrs(), y.decl.vals)
		}
	}
}
