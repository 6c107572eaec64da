package dwinfo

import (
	"math"
	"slices"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// AttrSpec is one (attribute, form) pair of an abbreviation [DWARF5 7.5.3],
// packed in 8 bytes: a large .debug_abbrev (gcc writes one table per unit)
// parses into a few times its size, not thirteen.
type AttrSpec struct {
	Attr Attr
	form uint16 // the form, or formBig (then aux indexes abbrevDecl.vals)
	aux  uint32 // DW_FORM_implicit_const: index of the value in abbrevDecl.vals
}

// formBig marks a form code above 0xffff, which no producer writes: kept
// aside so that reading it fails naming the code.
const formBig = 0xffff

// abbrevDecl is what a declaration says after its code: its attributes,
// with the values of its DW_FORM_implicit_const attributes and the codes
// of forms above 0xffff in vals. It depends on the declaration's bytes
// alone, so the tables of a Data share one per distinct declaration
// (declPool). Immutable.
type abbrevDecl struct {
	attrs []AttrSpec
	vals  []int64
}

// formOf returns the form of s, an attribute of a.
func (a *Abbrev) formOf(s *AttrSpec) dw.Form {
	if s.form == formBig {
		return dw.Form(uint64(a.decl.vals[s.aux]))
	}
	return dw.Form(s.form)
}

// implicitOf returns the DW_FORM_implicit_const value of s, an attribute
// of a, or 0.
func (a *Abbrev) implicitOf(s *AttrSpec) int64 {
	if dw.Form(s.form) == dw.FormImplicitConst {
		return a.decl.vals[s.aux]
	}
	return 0
}

// Attrs returns a's attribute specifications, in declaration order. They
// are shared with other abbreviations and must not be modified.
func (a *Abbrev) Attrs() []AttrSpec {
	if a.decl == nil {
		return nil
	}
	return a.decl.attrs
}

// Abbrev is one abbreviation declaration [DWARF5 7.5.3].
type Abbrev struct {
	Code     uint64
	Tag      Tag
	Children bool

	// How EntryReader steps over a DIE's attributes in a unit of the
	// table's format (AbbrevTable.sizes), compiled once per table: the
	// fixed-size attributes add up, so the DIE is its ops (each some
	// fixed bytes, then one value of variable size: a LEB128, a block, a
	// string, or the DW_AT_sibling to note) and then tail more bytes.
	// clang writes no variable-size form in most of its DIEs, which are
	// then one addition. slow: a form only dw.Read can size
	// (DW_FORM_indirect, an unknown form); such DIEs take the generic
	// path, as do units of another format than the table's.
	slow bool
	nop  uint16
	op0  uint32 // ops are AbbrevTable.ops[op0 : op0+nop]
	tail uint32
	// one is the program's single op when it has one of kind opLEB or
	// opBlock (clang's DIEs with a location, a location list or an
	// address index), which EntryReader.next runs inline; else (and in
	// slow abbreviations) kind opNone.
	one  skipOp
	decl *abbrevDecl // nil for the stand-ins of codes a table lacks
}

// skipOp is one step of an abbreviation's skip program: pre fixed bytes,
// then one value of the given kind.
type skipOp struct {
	pre  uint32
	kind opKind
}

type opKind uint8

const (
	opNone   opKind = iota // no op (Abbrev.one); the zero value
	opLEB                  // DW_FORM_udata, sdata, strx, addrx, ref_udata, rnglistx, loclistx, GNU_*_index
	opBlock                // DW_FORM_block, exprloc: ULEB128 length
	opBlock1               // 1-byte length
	opBlock2               // 2-byte length
	opBlock4               // 4-byte length
	opString               // DW_FORM_string: NUL-terminated
	opSib1                 // DW_AT_sibling in DW_FORM_ref1 (noted in Entry.sibling)
	opSib2                 // ref2
	opSib4                 // ref4
	opSib8                 // ref8
	opSibLEB               // ref_udata
)

// formSizes is what the sizes of fixed-size forms depend on: the address
// size, the offset size (4 or 8) and DW_FORM_ref_addr's size (the address
// size in DWARF 2, else the offset size). A table's skip programs hold
// for one of them.
type formSizes struct{ addr, off, refAddr uint8 }

func sizesOf(u *dw.Unit) formSizes {
	s := formSizes{addr: u.AddrSize, off: 4}
	if u.Dwarf64 {
		s.off = 8
	}
	s.refAddr = s.off
	if u.Version <= 2 {
		s.refAddr = u.AddrSize
	}
	return s
}

// defaultSizes is the format a table is compiled for when parsed without
// a unit (Data.Abbrevs): DWARF 5, 32-bit offsets, 8-byte addresses.
var defaultSizes = sizesOf(&dw.Unit{Version: 5, AddrSize: 8})

// compile fills a's skip program for units of t.sizes, appending its ops
// to t.ops.
func (t *AbbrevTable) compile(a *Abbrev) {
	u := dw.Unit{Version: 3, Dwarf64: t.sizes.off == 8, AddrSize: t.sizes.addr}
	if t.sizes.refAddr != t.sizes.off {
		u.Version = 2 // ref_addr has the address size
	}
	op0 := len(t.ops)
	var run uint64
	for _, s := range a.Attrs() {
		f := dw.Form(s.form) // formBig is no known form: slow
		k := opKind(0xff)
		if s.Attr == AttrSibling {
			switch f {
			case dw.FormRef1:
				k = opSib1
			case dw.FormRef2:
				k = opSib2
			case dw.FormRef4:
				k = opSib4
			case dw.FormRef8:
				k = opSib8
			case dw.FormRefUdata:
				k = opSibLEB
			}
		}
		if k == 0xff {
			if f == dw.FormFlagPresent || f == dw.FormImplicitConst {
				continue
			}
			if n := fixedSize(f, &u); n != 0 {
				run += n
				continue
			}
			switch f {
			case dw.FormUdata, dw.FormSdata, dw.FormStrx, dw.FormAddrx, dw.FormRefUdata, dw.FormRnglistx,
				dw.FormLoclistx, dw.FormGNUAddrIndex, dw.FormGNUStrIndex:
				k = opLEB
			case dw.FormBlock, dw.FormExprloc:
				k = opBlock
			case dw.FormBlock1:
				k = opBlock1
			case dw.FormBlock2:
				k = opBlock2
			case dw.FormBlock4:
				k = opBlock4
			case dw.FormString:
				k = opString
			default: // indirect, or unknown
				a.slow = true
			}
		}
		if a.slow || run > math.MaxUint32 || len(t.ops)-op0 == math.MaxUint16 {
			a.slow = true
			t.ops = t.ops[:op0]
			return
		}
		t.ops = append(t.ops, skipOp{pre: uint32(run), kind: k})
		run = 0
	}
	if run > math.MaxUint32 || uint64(op0) > math.MaxUint32 {
		a.slow = true
		t.ops = t.ops[:op0]
		return
	}
	a.op0, a.nop, a.tail = uint32(op0), uint16(len(t.ops)-op0), uint32(run)
	if a.nop == 1 && (t.ops[op0].kind == opLEB || t.ops[op0].kind == opBlock) {
		a.one = t.ops[op0]
	}
}

// sized reports whether every attribute of a has a size fixed by the
// unit's format, with at most one DW_AT_sibling, and returns their total
// size and the index of that DW_AT_sibling (-1 if none). The generic path
// (EntryReader.slowStep) reads such DIEs in one skip, and so reports a
// truncated one as a whole.
func (a *Abbrev) sized(u *dw.Unit) (size uint64, sib int, ok bool) {
	attrs := a.Attrs()
	if len(attrs) > math.MaxInt16 {
		return 0, -1, false
	}
	sib = -1
	for i, s := range attrs {
		if s.Attr == AttrSibling {
			if sib >= 0 {
				return 0, -1, false
			}
			sib = i
		}
		switch f := dw.Form(s.form); f {
		case dw.FormFlagPresent, dw.FormImplicitConst:
		default:
			n := fixedSize(f, u)
			if n == 0 {
				return 0, -1, false
			}
			size += n
		}
	}
	return size, sib, true
}

// AbbrevTable is the parsed abbreviation table at one .debug_abbrev offset.
// It is immutable and shared by every unit that uses that offset.
type AbbrevTable struct {
	list  []Abbrev // sorted by Code, stable (the first of duplicates wins, as in LLVM)
	dense bool     // list[i].Code == i+1: index directly
	// index is the abbreviation of each code c at index[c-1]: list if
	// dense, else (for other numberings, which no producer we know
	// writes, if their codes are not too spread out) a copy with a slow
	// entry for each missing code. EntryReader finds codes there.
	index []Abbrev
	ops   []skipOp // the abbreviations' skip programs (Abbrev.op0)
	// steps is what EntryReader.NextIn needs to step over the record
	// of each code c at steps[c] (steps[0]: the null entry), when index
	// is set: len(index)+1 of them.
	steps []step
	sizes formSizes
}

// A step is what NextIn needs to step over a record of one code, in one
// word (a C++ unit's table is read once per DIE): tail fixed bytes after
// the code (bits 0-31); the change of depth (bits 32-39, an int8: +1 for
// a DIE with children, -1 for the null entry, steps[0]); for an
// abbreviation whose program is one op of kind opLEB or opBlock, that
// kind (bits 40-47) and the fixed bytes before its value (pre, bits
// 48-63). Any other program (of more ops, or slow) has kind stepOther and
// takes skipOps. A step below 1<<40 is a record of fixed size.
type step uint64

// stepOther is the kind of a step that NextIn's loop leaves to skipOps.
const stepOther = opKind(0xff)

func (s step) tail() int    { return int(uint32(s)) }
func (s step) delta() int   { return int(int8(s >> 32)) }
func (s step) kind() opKind { return opKind(s >> 40) }
func (s step) pre() int     { return int(s >> 48) }
func (s step) fixed() bool  { return s < 1<<40 }

// stepOf returns the step of a.
func stepOf(a *Abbrev) step {
	st := step(a.tail)
	switch {
	case a.slow || a.nop != 0 && a.one.kind == opNone || a.one.pre > math.MaxUint16:
		st |= step(stepOther) << 40
	case a.nop != 0:
		st |= step(a.one.kind)<<40 | step(a.one.pre)<<48
	}
	if a.Children {
		st |= 1 << 32
	}
	return st
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
func (d *Data) Abbrevs(off uint64) (*AbbrevTable, error) { return d.abbrevsFor(off, defaultSizes) }

// abbrevsFor is Abbrevs, compiling the table's skip programs for units of
// format sz if this call parses it (in practice every unit that shares a
// table has one format: the first unit's).
func (d *Data) abbrevsFor(off uint64, sz formSizes) (*AbbrevTable, error) {
	d.abbrevMu.Lock()
	s := d.abbrevs[off]
	if s == nil {
		s = new(abbrevSlot)
		d.abbrevs[off] = s
	}
	d.abbrevMu.Unlock()
	s.once.Do(func() { s.tab, s.err = parseAbbrevs(d.reader(secAbbrev, d.s.Abbrev), off, sz, &d.decls) })
	return s.tab, s.err
}

// countAbbrevs counts the declarations and attribute specifications that
// parseAbbrevsTo will read from r (up to the first declaration of code
// stop), so that it allocates them once; on bad input it stops, and
// parseAbbrevsTo finds the error.
func countAbbrevs(r buf.Reader, stop uint64) (decls, specs int) {
	for r.Len() > 0 {
		code := r.ULEB()
		if code == 0 {
			break
		}
		r.ULEB() // tag
		r.U8()   // children
		for r.Err() == nil {
			at, form := r.ULEB(), r.ULEB()
			if at == 0 && form == 0 {
				break
			}
			if dw.Form(form) == dw.FormImplicitConst {
				r.SLEB()
			}
			specs++
		}
		if r.Err() != nil {
			break
		}
		decls++
		if code == stop {
			break
		}
	}
	return decls, specs
}

// parseAbbrevs reads declarations until a 0 code or the end of the
// section (which some producers leave unterminated; LLVM accepts that too)
// and compiles their skip programs for units of format sz. With a pool,
// the declarations are shared with the pool's other tables.
func parseAbbrevs(r buf.Reader, off uint64, sz formSizes, pool *declPool) (*AbbrevTable, error) {
	return parseAbbrevsTo(r, off, sz, 0, pool)
}

// parseAbbrevsTo is parseAbbrevs stopping after the first declaration of
// code stop (never, for 0): that declaration is then the one the whole
// table's Find would give, decoded alike.
func parseAbbrevsTo(r buf.Reader, off uint64, sz formSizes, stop uint64, pool *declPool) (*AbbrevTable, error) {
	r.Seek(off)
	if r.Err() != nil {
		return nil, r.Err()
	}
	nd, ns := countAbbrevs(r, stop)
	decls := make([]parsedDecl, 0, nd)
	specs := make([]AttrSpec, 0, ns)
	var vals []int64
	t := &AbbrevTable{sizes: sz}
	for r.Len() > 0 {
		declOff := r.Offset()
		code := r.ULEB()
		if code == 0 {
			break
		}
		rawOff := r.Offset()
		tag := r.ULEB()
		children := r.U8()
		if r.Err() != nil {
			return nil, r.Err()
		}
		if tag == 0 || tag > math.MaxUint16 {
			return nil, buf.Errorf(pkg, secAbbrev, declOff, ErrFormat, "abbreviation %d has tag %#x", code, tag)
		}
		start, vstart := len(specs), len(vals)
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
				sp.form, sp.aux = formBig, uint32(len(vals)-vstart)
				vals = append(vals, int64(form))
			case dw.Form(form) == dw.FormImplicitConst:
				sp.aux = uint32(len(vals) - vstart)
				vals = append(vals, r.SLEB())
			}
			specs = append(specs, sp)
		}
		decls = append(decls, parsedDecl{code: code, tag: Tag(tag), children: children != 0,
			start: start, end: len(specs), vstart: vstart, vend: len(vals), raw0: rawOff, raw1: r.Offset()})
		if code == stop {
			break
		}
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	shared := pool.share(r.Data(), decls, specs, vals)
	t.list = make([]Abbrev, len(decls))
	for i, dc := range decls {
		t.list[i] = Abbrev{Code: dc.code, Tag: dc.tag, Children: dc.children, decl: shared[i]}
		t.compile(&t.list[i])
	}
	t.ops = slices.Clip(t.ops)
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
	t.index = t.list
	if n := len(t.list); !t.dense && n > 0 && t.list[n-1].Code <= 4*uint64(n)+256 {
		t.index = make([]Abbrev, t.list[n-1].Code)
		for i := range t.index {
			t.index[i].slow = true // codes not in the table: the generic path fails
		}
		for i := n - 1; i >= 0; i-- { // the first of duplicates wins
			if c := t.list[i].Code; c > 0 {
				t.index[c-1] = t.list[i]
			}
		}
	} else if !t.dense {
		t.index = nil
	}
	if t.index != nil {
		t.steps = make([]step, len(t.index)+1)
		t.steps[0] = 0xff << 32 // -1
		for i := range t.index {
			t.steps[i+1] = stepOf(&t.index[i])
		}
	}
	return t, nil
}

// parsedDecl is a declaration as parseAbbrevsTo reads it: its attributes
// are specs[start:end] and their values vals[vstart:vend] of the table's
// scratch, its bytes after the code raw[raw0:raw1].
type parsedDecl struct {
	code         uint64
	tag          Tag
	children     bool
	start, end   int
	vstart, vend int
	raw0, raw1   uint64
}

// declPool shares declarations between the abbreviation tables of one
// Data, by their bytes: gcc gives each unit a table of its own, and the
// tables repeat one another (the 193 tables of libradosgw's debug file
// declare 134,650 abbreviations, of which 11,431 are distinct). A
// declaration new to the pool is copied into chunks that it keeps for as
// long as the Data lives; the zero pool is ready for use.
type declPool struct {
	mu    sync.Mutex
	byRaw map[string]*abbrevDecl
	decls []abbrevDecl // the chunk new declarations are taken from
	specs []AttrSpec   // the chunk their attributes are copied into
	vals  []int64      // the chunk their values are copied into
}

// Chunk lengths of a declPool.
const (
	poolDecls = 256
	poolSpecs = 4096
	poolVals  = 256
)

// share returns the declaration of each of decls, parsed from raw into
// specs and vals: the pool's where it has one alike, else a new one that
// it keeps. A nil pool shares nothing: the declarations then alias specs
// and vals.
func (p *declPool) share(raw []byte, decls []parsedDecl, specs []AttrSpec, vals []int64) []*abbrevDecl {
	out := make([]*abbrevDecl, len(decls))
	if p == nil {
		// Exact sizes: the table may live as long as the Data.
		specs, vals = slices.Clip(specs), slices.Clip(vals)
		own := make([]abbrevDecl, len(decls))
		for i, dc := range decls {
			own[i] = abbrevDecl{attrs: specs[dc.start:dc.end:dc.end], vals: vals[dc.vstart:dc.vend:dc.vend]}
			out[i] = &own[i]
		}
		return out
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byRaw == nil {
		p.byRaw = make(map[string]*abbrevDecl)
	}
	for i, dc := range decls {
		key := raw[dc.raw0:dc.raw1]
		if d, ok := p.byRaw[string(key)]; ok {
			out[i] = d
			continue
		}
		if len(p.decls) == cap(p.decls) {
			p.decls = make([]abbrevDecl, 0, poolDecls)
		}
		p.decls = append(p.decls, abbrevDecl{
			attrs: keepChunk(&p.specs, specs[dc.start:dc.end], poolSpecs),
			vals:  keepChunk(&p.vals, vals[dc.vstart:dc.vend], poolVals),
		})
		d := &p.decls[len(p.decls)-1]
		p.byRaw[string(key)] = d
		out[i] = d
	}
	return out
}

// keepChunk copies s to the end of *chunk, or of a new chunk of at least
// n elements when it lacks the room, and returns the copy; nil for an
// empty s. The elements copied are never written again.
func keepChunk[E any](chunk *[]E, s []E, n int) []E {
	if len(s) == 0 {
		return nil
	}
	if cap(*chunk)-len(*chunk) < len(s) {
		*chunk = make([]E, 0, max(n, len(s)))
	}
	at := len(*chunk)
	*chunk = append(*chunk, s...)
	return (*chunk)[at:len(*chunk):len(*chunk)]
}
