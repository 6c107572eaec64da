package dwinfo

import (
	"math"
	"slices"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// AttrSpec is one (attribute, form) pair of an abbreviation [DWARF5 7.5.3],
// packed in 8 bytes: a large .debug_abbrev (gcc writes one table per unit)
// parses into a few times its size, not thirteen.
type AttrSpec struct {
	Attr Attr
	form uint16 // the form, or formBig (then aux indexes AbbrevTable.big)
	aux  uint32 // DW_FORM_implicit_const: index of the value in AbbrevTable.implicit
}

// formBig marks a form code above 0xffff, which no producer writes: kept
// aside so that reading it fails naming the code.
const formBig = 0xffff

// formOf returns the form of s, an attribute of t.
func (t *AbbrevTable) formOf(s *AttrSpec) dw.Form {
	if s.form == formBig {
		return dw.Form(t.big[s.aux])
	}
	return dw.Form(s.form)
}

// implicitOf returns the DW_FORM_implicit_const value of s, or 0.
func (t *AbbrevTable) implicitOf(s *AttrSpec) int64 {
	if dw.Form(s.form) == dw.FormImplicitConst {
		return t.implicit[s.aux]
	}
	return 0
}

// Abbrev is one abbreviation declaration [DWARF5 7.5.3].
type Abbrev struct {
	Code     uint64
	Tag      Tag
	Children bool
	Attrs    []AttrSpec // aliases the table's single spec array

	// The encoded size of the attributes, when every form has a size
	// fixed by the unit's format: constBytes plus nAddr addresses, nOff
	// section offsets and nRefAddr DW_FORM_ref_addr values. Skipping such
	// a DIE is one bounds check instead of a decode per attribute.
	sized      bool  // all forms fixed-size
	sib        int16 // index in Attrs of DW_AT_sibling when sized, else -1
	constBytes uint32
	nAddr      uint16
	nOff       uint16
	nRefAddr   uint16
}

// size returns the attributes' encoded size in unit u (valid if a.sized).
func (a *Abbrev) size(u *dw.Unit) uint64 {
	os := uint64(4)
	if u.Dwarf64 {
		os = 8
	}
	ra := os
	if u.Version <= 2 {
		ra = uint64(u.AddrSize)
	}
	return uint64(a.constBytes) + uint64(a.nAddr)*uint64(u.AddrSize) + uint64(a.nOff)*os + uint64(a.nRefAddr)*ra
}

// classify fills the fixed-size summary of a.
func (a *Abbrev) classify() {
	// formBig is no fixed-size form, so its real code does not matter here.
	a.sized = len(a.Attrs) <= math.MaxInt16
	a.sib = -1
	for i, s := range a.Attrs {
		if s.Attr == AttrSibling && a.sib < 0 {
			a.sib = int16(i)
		} else if s.Attr == AttrSibling {
			a.sized = false // only the first is recorded: keep the slow path simple
		}
		switch f := dw.Form(s.form); f {
		case dw.FormAddr:
			a.nAddr++
		case dw.FormStrp, dw.FormLineStrp, dw.FormSecOffset, dw.FormStrpSup, dw.FormGNURefAlt, dw.FormGNUStrpAlt:
			a.nOff++
		case dw.FormRefAddr:
			a.nRefAddr++
		case dw.FormFlagPresent, dw.FormImplicitConst:
		default:
			n := fixedSize(f, &dw.Unit{})
			if n == 0 {
				a.sized = false
			}
			a.constBytes += uint32(n)
		}
	}
	if !a.sized {
		a.sib = -1
	}
}

// AbbrevTable is the parsed abbreviation table at one .debug_abbrev offset.
// It is immutable and shared by every unit that uses that offset.
type AbbrevTable struct {
	list     []Abbrev // sorted by Code, stable (the first of duplicates wins, as in LLVM)
	dense    bool     // list[i].Code == i+1: index directly
	implicit []int64  // DW_FORM_implicit_const values (AttrSpec.aux)
	big      []uint64 // form codes above 0xffff (AttrSpec.aux)
}

// Lookup returns the abbreviation with the given code: O(1) for the usual
// 1..n numbering, O(log n) otherwise.
func (t *AbbrevTable) Lookup(code uint64) (*Abbrev, bool) {
	if t.dense {
		if code-1 < uint64(len(t.list)) {
			return &t.list[code-1], true
		}
		return nil, false
	}
	lo, hi := 0, len(t.list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.list[m].Code < code {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.list) && t.list[lo].Code == code {
		return &t.list[lo], true
	}
	return nil, false
}

// Abbrevs returns the abbreviation table at .debug_abbrev offset off,
// parsing it on first use and caching it (with its error) by offset.
func (d *Data) Abbrevs(off uint64) (*AbbrevTable, error) {
	d.abbrevMu.Lock()
	s := d.abbrevs[off]
	if s == nil {
		s = new(abbrevSlot)
		d.abbrevs[off] = s
	}
	d.abbrevMu.Unlock()
	s.once.Do(func() { s.tab, s.err = parseAbbrevs(d.reader(secAbbrev, d.s.Abbrev), off) })
	return s.tab, s.err
}

// parseAbbrevs reads declarations until a 0 code or the end of the
// section (which some producers leave unterminated; LLVM accepts that too).
func parseAbbrevs(r buf.Reader, off uint64) (*AbbrevTable, error) {
	r.Seek(off)
	if r.Err() != nil {
		return nil, r.Err()
	}
	type decl struct {
		code       uint64
		tag        Tag
		children   bool
		start, end int
	}
	var decls []decl
	var specs []AttrSpec
	t := &AbbrevTable{}
	for r.Len() > 0 {
		declOff := r.Offset()
		code := r.ULEB()
		if code == 0 {
			break
		}
		tag := r.ULEB()
		children := r.U8()
		if r.Err() != nil {
			return nil, r.Err()
		}
		if tag == 0 || tag > math.MaxUint16 {
			return nil, buf.Errorf(pkg, secAbbrev, declOff, ErrFormat, "abbreviation %d has tag %#x", code, tag)
		}
		start := len(specs)
		for {
			specOff := r.Offset()
			at := r.ULEB()
			form := r.ULEB()
			if r.Err() != nil {
				return nil, r.Err()
			}
			if at == 0 && form == 0 {
				break
			}
			if at > math.MaxUint16 {
				return nil, buf.Errorf(pkg, secAbbrev, specOff, ErrFormat, "attribute %#x", at)
			}
			sp := AttrSpec{Attr: Attr(at), form: uint16(form)}
			switch {
			case form >= formBig:
				sp.form, sp.aux = formBig, uint32(len(t.big))
				t.big = append(t.big, form)
			case dw.Form(form) == dw.FormImplicitConst:
				sp.aux = uint32(len(t.implicit))
				t.implicit = append(t.implicit, r.SLEB())
			}
			specs = append(specs, sp)
		}
		decls = append(decls, decl{code, Tag(tag), children != 0, start, len(specs)})
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	// Exact sizes: the table lives as long as the Data.
	specs = slices.Clone(specs)
	t.implicit, t.big = slices.Clip(t.implicit), slices.Clip(t.big)
	t.list = make([]Abbrev, len(decls))
	for i, dc := range decls {
		t.list[i] = Abbrev{Code: dc.code, Tag: dc.tag, Children: dc.children, Attrs: specs[dc.start:dc.end:dc.end]}
		t.list[i].classify()
	}
	slices.SortStableFunc(t.list, func(a, b Abbrev) int {
		switch {
		case a.Code < b.Code:
			return -1
		case a.Code > b.Code:
			return 1
		}
		return 0
	})
	t.dense = true
	for i := range t.list {
		if t.list[i].Code != uint64(i)+1 {
			t.dense = false
			break
		}
	}
	return t, nil
}
