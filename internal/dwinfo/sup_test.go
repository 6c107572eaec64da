package dwinfo

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// supPair builds a dwz-like pair: a supplementary file with a partial unit
// holding one subprogram DIE (at supDIE), named in its own .debug_str, and
// a file whose compile unit names itself and its directory in the
// supplementary strings (DW_FORM_GNU_strp_alt, or DW_FORM_strp_sup with
// sup5) and holds a subprogram whose abstract origin is that DIE
// (DW_FORM_GNU_ref_alt, or DW_FORM_ref_sup4).
func supPair(t *testing.T, sup5 bool) (main, sup Sections, supDIE, originAttr uint64) {
	t.Helper()
	strForm, refForm := dw.FormGNUStrpAlt, dw.FormGNURefAlt
	if sup5 {
		strForm, refForm = dw.FormStrpSup, dw.FormRefSup4
	}
	supStr := []byte("\x00x.c\x00/dir\x00shared\x00")
	// Supplementary file: DW_UT_partial, one abbreviation per DIE.
	ab := dwasm.New(false)
	ab.ULEB(1).ULEB(uint64(TagPartialUnit)).U8(1).U8(0).U8(0)
	ab.ULEB(2).ULEB(uint64(TagSubprogram)).U8(0).ULEB(uint64(AttrName)).ULEB(uint64(dw.FormStrp)).U8(0).U8(0)
	ab.U8(0)
	b := dwasm.New(false)
	l := b.BeginLength(false)
	b.U16(5).U8(uint8(UnitPartial)).U8(8).Off(false, 0)
	b.ULEB(1)
	supDIE = uint64(b.Len())
	b.ULEB(2).U32(uint32(bytes.Index(supStr, []byte("shared"))))
	b.U8(0)
	b.End(l)
	sup = Sections{Info: b.Bytes(), Abbrev: ab.Bytes(), Str: supStr}

	ab = dwasm.New(false)
	ab.ULEB(1).ULEB(uint64(TagCompileUnit)).U8(1).
		ULEB(uint64(AttrName)).ULEB(uint64(strForm)).ULEB(uint64(AttrCompDir)).ULEB(uint64(strForm)).U8(0).U8(0)
	ab.ULEB(2).ULEB(uint64(TagSubprogram)).U8(0).ULEB(uint64(AttrAbstractOrigin)).ULEB(uint64(refForm)).U8(0).U8(0)
	ab.U8(0)
	b = dwasm.New(false)
	l = b.BeginLength(false)
	b.U16(5).U8(uint8(UnitCompile)).U8(8).Off(false, 0)
	b.ULEB(1).U32(1).U32(5) // "x.c", "/dir"
	originAttr = uint64(b.Len())
	b.ULEB(2).U32(uint32(supDIE))
	b.U8(0)
	b.End(l)
	main = Sections{Info: b.Bytes(), Abbrev: ab.Bytes()}
	return main, sup, supDIE, originAttr
}

// firstChild returns the first DIE under u's unit DIE.
func firstChild(t *testing.T, u *Unit) Entry {
	t.Helper()
	er := u.Entries()
	var e Entry
	for range 2 {
		if err := er.Next(&e); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func TestSupStringsAndReferences(t *testing.T) {
	for _, sup5 := range []bool{false, true} {
		mainSecs, supSecs, supDIE, _ := supPair(t, sup5)

		// No supplementary file at all: the unit DIE's strings are a
		// RootErr wrapping ErrNoSup, and the reference names nothing.
		d := New(mainSecs, nil)
		u, err := d.UnitAt(0)
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(u.RootErr, ErrNoSup) || u.Root.Name != nil {
			t.Errorf("no resolver: RootErr = %v, Name %q; want ErrNoSup, unset", u.RootErr, u.Root.Name)
		}
		e := firstChild(t, u)
		v, _, _ := u.Attr(&e, AttrAbstractOrigin)
		if v.Class != dw.ClassRefAlt {
			t.Fatalf("origin class %d, want ClassRefAlt", v.Class)
		}
		if _, _, ok := u.Target(v); ok {
			t.Error("no resolver: Target of an alt reference succeeded")
		}

		// A resolver that finds nothing: the resolver reports, the unit
		// does not.
		d = New(mainSecs, nil)
		d.SetSup(func() *Data { return nil })
		if u, err = d.UnitAt(0); err != nil || u.RootErr != nil || u.Root.CompDir != nil {
			t.Errorf("missing file: RootErr = %v, CompDir %q, err %v; want none", u.RootErr, u.Root.CompDir, err)
		}

		// With the file: strings and the reference resolve there.
		supData := New(supSecs, nil)
		var calls atomic.Int32
		d = New(mainSecs, nil)
		d.SetSup(func() *Data { calls.Add(1); return supData })
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { d.Sup() })
		}
		wg.Wait()
		if calls.Load() != 1 {
			t.Errorf("resolver called %d times, want once", calls.Load())
		}
		u, err = d.UnitAt(0)
		if err != nil || u.RootErr != nil || string(u.Root.Name) != "x.c" || string(u.Root.CompDir) != "/dir" {
			t.Fatalf("sup5=%v: Name %q CompDir %q RootErr %v err %v", sup5, u.Root.Name, u.Root.CompDir, u.RootErr, err)
		}
		e = firstChild(t, u)
		v, _, _ = u.Attr(&e, AttrAbstractOrigin)
		td, off, ok := u.Target(v)
		if !ok || td != supData || off != supDIE {
			t.Fatalf("Target = %p %#x %v, want the supplementary Data at %#x", td, off, ok, supDIE)
		}
		h, ok, err := td.UnitContaining(off)
		if !ok || err != nil || h.Type != UnitPartial {
			t.Fatalf("UnitContaining(%#x) = %+v %v %v", off, h, ok, err)
		}
		su, err := td.UnitAt(h.Offset)
		if err != nil {
			t.Fatal(err)
		}
		var se Entry
		if err := su.EntryAt(off, &se); err != nil {
			t.Fatal(err)
		}
		nv, _, _ := su.Attr(&se, AttrName)
		if s, err := su.String(nv); err != nil || string(s) != "shared" {
			t.Errorf("the origin's name = %q, %v", s, err)
		}
		// Within the supplementary file, a reference is its own, and it
		// has no supplementary file of its own.
		if got, _, ok := su.Target(dw.Value{Class: dw.ClassRefAddr, U: off}); !ok || got != supData {
			t.Errorf("a reference of the supplementary file leaves it")
		}
		if _, _, ok := su.Target(dw.Value{Class: dw.ClassRefAlt, U: off}); ok {
			t.Errorf("the supplementary file has a supplementary file")
		}
		if _, err := u.String(dw.Value{Class: dw.ClassStrpAlt, U: 1 << 20}); !errors.Is(err, ErrTruncated) {
			t.Errorf("a string past the supplementary .debug_str: err = %v, want ErrTruncated", err)
		}
	}
}

// TestSupNotItself: a resolver answering the Data itself (a link to the
// file itself) gives no supplementary file.
func TestSupNotItself(t *testing.T) {
	mainSecs, _, _, _ := supPair(t, false)
	d := New(mainSecs, nil)
	d.SetSup(func() *Data { return d })
	if d.Sup() != nil {
		t.Error("a Data is its own supplementary file")
	}
}
