package inline

import (
	"io"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// This file answers llvm-symbolizer's FRAME requests: the local variables
// and parameters of the function at a PC, with their frame offsets, as
// LLVM 14's DWARFContext::getLocalsForAddress lists them. Its rules, each
// checked against llvm-symbolizer-14 on the fixtures:
//
//   - The DIE that answers is the one the inline address map gives for the
//     PC (Index.Subroutine): the innermost subprogram or inlined
//     subroutine. Every DW_TAG_variable and DW_TAG_formal_parameter in its
//     subtree is listed, in DIE order, whether or not its scope covers the
//     PC; the subtree of a variable is not entered. The functions that
//     enclose an inlined subroutine contribute nothing.
//   - A variable's FunctionName is the DW_AT_name (through abstract_origin
//     and specification) of the nearest enclosing inlined subroutine's
//     abstract origin, else of the answering DIE, when that DIE is a
//     subroutine.
//   - FrameOffset comes from the variable's own DW_AT_location: an
//     expression, or the first entry of a location list (whatever its
//     address range) whose expression is DW_OP_fbreg N, or DW_OP_bregR N
//     when the function's own DW_AT_frame_base is DW_OP_regR (clang), alone
//     or followed by DW_OP_deref. A location list that does not decode or
//     resolve whole gives none.
//   - TagOffset is the variable's own DW_AT_LLVM_tag_offset (clang's
//     hwasan).
//   - Name, DW_AT_type (for Size), DW_AT_decl_file and DW_AT_decl_line
//     come from the variable's DW_AT_abstract_origin when it has one (a
//     single step), else from the variable. The file is named in the line
//     table of the unit that answered, even when the origin lives in
//     another unit, as LLVM 14 does.
//   - Size follows the type: DW_AT_byte_size when present; otherwise the
//     address size for pointers and references (twice it for a pointer to
//     member function); typedef, const, volatile and restrict pass to their
//     DW_AT_type; an array multiplies its element size by each subrange's
//     DW_AT_count and by its DW_AT_upper_bound - DW_AT_lower_bound + 1,
//     the bounds read as LLVM's getAsSignedConstant reads them (a data1
//     upper bound of 255 is -1).

// attrFrameBase, attrLocation, attrType and the others are the attributes
// FRAME answers read [DWARF5 7.5.4].
const (
	attrLocation  dwinfo.Attr = 0x02   // DW_AT_location
	attrByteSize  dwinfo.Attr = 0x0b   // DW_AT_byte_size
	attrLowerBnd  dwinfo.Attr = 0x22   // DW_AT_lower_bound
	attrUpperBnd  dwinfo.Attr = 0x2f   // DW_AT_upper_bound
	attrCount     dwinfo.Attr = 0x37   // DW_AT_count
	attrFrameBase dwinfo.Attr = 0x40   // DW_AT_frame_base
	attrType      dwinfo.Attr = 0x49   // DW_AT_type
	attrTagOffset dwinfo.Attr = 0x3e03 // DW_AT_LLVM_tag_offset
)

// Type tags whose sizes are derived [DWARF5 7.5.3].
const (
	tagArrayType        dwinfo.Tag = 0x01
	tagPointerType      dwinfo.Tag = 0x0f
	tagReferenceType    dwinfo.Tag = 0x10
	tagSubroutineType   dwinfo.Tag = 0x15
	tagTypedef          dwinfo.Tag = 0x16
	tagPtrToMemberType  dwinfo.Tag = 0x1f
	tagSubrangeType     dwinfo.Tag = 0x21
	tagConstType        dwinfo.Tag = 0x26
	tagVolatileType     dwinfo.Tag = 0x35
	tagRestrictType     dwinfo.Tag = 0x37
	tagRvalueReferencem dwinfo.Tag = 0x42
)

// DWARF expression opcodes FRAME answers recognise [DWARF5 7.7.1].
const (
	opDeref = 0x06 // DW_OP_deref
	opReg0  = 0x50 // DW_OP_reg0; DW_OP_reg31 is 0x6f
	opBreg0 = 0x70 // DW_OP_breg0
	opFbreg = 0x91 // DW_OP_fbreg
)

// DefaultMaxTypeDepth bounds the DW_AT_type steps one size computation
// takes when LocalsOptions.MaxTypeDepth is 0. Real chains (a const typedef
// of an array of structs) take a handful; LLVM has no bound and overflows
// its stack on a cycle.
const DefaultMaxTypeDepth = 64

// Local is one variable or parameter of a FRAME answer, as llvm-symbolizer
// describes it (LLVM's DILocal). Strings alias nothing.
type Local struct {
	// FunctionName is the short name of the function the variable belongs
	// to (for a variable of an inlined call, the inlined function).
	FunctionName string
	// Name is DW_AT_name; "" if none.
	Name string
	// DeclFile and DeclLine are DW_AT_decl_file (a path from the unit's
	// line table; "" when it names none) and DW_AT_decl_line (0 if none).
	DeclFile string
	DeclLine uint64
	// FrameOffset is the offset from the frame base at which the variable
	// lives, when its location says so.
	FrameOffset    int64
	HasFrameOffset bool
	// Size is the byte size of the variable's type, when it is known.
	Size    uint64
	HasSize bool
	// TagOffset is DW_AT_LLVM_tag_offset (hwasan's tag of the variable).
	TagOffset    uint64
	HasTagOffset bool
}

// LocalsOptions says where AppendLocals finds what lies outside
// .debug_info. The zero value is ready to use: no file names, no location
// lists.
type LocalsOptions struct {
	// LineTable is the unit's line table; it names DW_AT_decl_file.
	LineTable *linetable.Table
	// PartialLineTable returns the line table of a partial unit (dwz's,
	// of this file or of its supplementary file) that holds a local's
	// abstract origin: the origin's DW_AT_decl_file names a file of that
	// table (see sup.go). nil, or a nil result, names no file there.
	PartialLineTable func(u *dwinfo.Unit) *linetable.Table
	// Loc and Loclists are .debug_loc (read for units before DWARF 5) and
	// .debug_loclists (DWARF 5): location lists.
	Loc, Loclists []byte
	// AddrSize is the pointer size sizes use; LLVM takes the first unit's
	// address size. 0 means the unit's.
	AddrSize uint8
	// MaxRefs bounds the DIEs one name lookup visits through
	// abstract_origin and specification; 0 means DefaultMaxRefs.
	MaxRefs int
	// MaxTypeDepth bounds the DW_AT_type steps of one size; 0 means
	// DefaultMaxTypeDepth.
	MaxTypeDepth int
}

// Subroutine returns the .debug_info offset of the DIE that answers pc in
// the address map, the innermost subprogram or inlined subroutine covering
// it (LLVM's DWARFUnit::getSubroutineForAddress), and whether there is
// one. Cost: one binary search.
func (ix *Index) Subroutine(pc uint64) (uint64, bool) {
	fn := -1
	c, _, _ := ix.chainsOf(pc, &fn)
	if n, _, _ := c.find(pc); n >= 0 {
		return c.die(n), true
	}
	return 0, false
}

// AppendLocals appends to dst the locals of the DIE of u at .debug_info
// offset die (as Subroutine gives it) and returns the extended slice; see
// the rules at the top of this file. opts may be nil.
//
// It always returns what it could read. The error, a *DecodeError,
// reports the first problem met: a DIE walk that stopped early (the
// locals before it are kept), or a location list, reference or type that
// did not decode (that field of that variable is then missing, as in
// LLVM).
//
// Cost: one pass over the DIE's subtree, plus for each variable its
// abstract origin and type chain; nothing is cached between calls.
func AppendLocals(dst []Local, d *dwinfo.Data, u *dwinfo.Unit, die uint64, opts *LocalsOptions) ([]Local, error) {
	lr := localsReader{d: d, u: u}
	if opts != nil {
		lr.opts = *opts
	}
	if lr.opts.MaxRefs <= 0 {
		lr.opts.MaxRefs = DefaultMaxRefs
	}
	if lr.opts.MaxTypeDepth <= 0 {
		lr.opts.MaxTypeDepth = DefaultMaxTypeDepth
	}
	if lr.opts.AddrSize == 0 {
		lr.opts.AddrSize = u.AddrSize
	}
	lr.compDir = string(u.Root.CompDir)
	return lr.walk(dst, die)
}

// localsReader holds the state of one AppendLocals.
type localsReader struct {
	d       *dwinfo.Data
	u       *dwinfo.Unit
	opts    LocalsOptions
	compDir string
	err     error // first problem

	// fn holds the functions met so far, fnIdx their indexes by DIE
	// offset.
	fn    []function
	fnIdx map[uint64]int
	// sizes memoizes type sizes by type DIE offset, so that many
	// variables of one type (or a hostile web of types) cost one walk.
	sizes map[uint64]typeSize

	baseState int8 // the unit's base address for location lists: 0 not looked up, 1 present, -1 absent
}

// function is a function whose locals are being listed.
type function struct {
	u      *dwinfo.Unit // the unit holding its DIE (an inlined call's origin may be in another)
	off    uint64       // its DIE
	name   string
	fbReg  int // register of a DW_AT_frame_base of DW_OP_regN; -1 if none
	loaded bool
}

type typeSize struct {
	size uint64
	ok   bool
}

func (lr *localsReader) note(err error) {
	if lr.err == nil && err != nil {
		lr.err = err
	}
}

// walk lists the locals of the subtree at die.
func (lr *localsReader) walk(dst []Local, die uint64) ([]Local, error) {
	u := lr.u
	er, err := u.EntriesAt(die)
	if err != nil {
		return dst, err
	}
	// fns[k] is the function of the children of the DIE at depth k (the
	// answering DIE is depth 0).
	var fns []int
	var e dwinfo.Entry
	for first := true; ; first = false {
		err := er.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			lr.note(err)
			break
		}
		if !first && e.Depth <= 0 {
			break // past the subtree
		}
		var fn int
		if first {
			fn = lr.function(u, die)
		} else {
			if e.Depth-1 >= len(fns) { // cannot happen: depths grow one at a time
				break
			}
			fn = fns[e.Depth-1]
		}
		if e.Tag == dwinfo.TagVariable || e.Tag == dwinfo.TagFormalParameter {
			dst = append(dst, lr.local(&e, fn))
			if err := er.SkipChildren(&e); err != nil {
				lr.note(err)
				break
			}
			continue
		}
		if !e.Children {
			continue
		}
		if e.Tag == dwinfo.TagInlinedSubroutine {
			if v, ok := lr.attr(u, &e, dwinfo.AttrAbstractOrigin); ok {
				if ou, off, ok := lr.ref(u, v); ok {
					if _, ok := lr.entry(ou, off); ok {
						fn = lr.function(ou, off)
					}
				}
			}
		}
		fns = append(fns[:e.Depth], fn)
	}
	return dst, lr.err
}

// function returns the index in lr.fn of the function whose DIE is at off
// in u, reading its name and frame base on first use.
func (lr *localsReader) function(u *dwinfo.Unit, off uint64) int {
	key := off
	if u.Data() != lr.d {
		key |= 1 << 63 // an origin in the supplementary file: offsets there are another file's
	}
	if i, ok := lr.fnIdx[key]; ok {
		return i
	}
	if lr.fnIdx == nil {
		lr.fnIdx = make(map[uint64]int)
	}
	lr.fn = append(lr.fn, function{u: u, off: off, fbReg: -1})
	lr.fnIdx[key] = len(lr.fn) - 1
	return len(lr.fn) - 1
}

// load fills in f's name (LLVM's getSubroutineName with ShortName: a
// subroutine DIE's DW_AT_name through findRecursively) and frame base
// register (DW_AT_frame_base of the DIE itself).
func (lr *localsReader) load(f *function) {
	if f.loaded {
		return
	}
	f.loaded = true
	u := f.u
	e, ok := lr.entry(u, f.off)
	if !ok {
		return
	}
	if e.Tag != dwinfo.TagSubprogram && e.Tag != dwinfo.TagInlinedSubroutine {
		return
	}
	if v, ok := lr.attr(u, &e, attrFrameBase); ok && v.Class == dw.ClassBlock && len(v.B) > 0 &&
		v.B[0] >= opReg0 && v.B[0] <= opReg0+31 {
		f.fbReg = int(v.B[0] - opReg0)
	}
	f.name = lr.shortName(u, &e)
}

// shortName is LLVM's findRecursively(DW_AT_name) as a string: a
// depth-first worklist over abstract_origin and specification (the latter
// explored first), each DIE once, at most MaxRefs DIEs.
func (lr *localsReader) shortName(u *dwinfo.Unit, e *dwinfo.Entry) string {
	type item struct {
		u *dwinfo.Unit
		e dwinfo.Entry
	}
	work := []item{{u, *e}}
	seen := []uint64{e.Offset}
	for visits := 0; len(work) > 0 && visits < lr.opts.MaxRefs; visits++ {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		var name, origin, spec dw.Value
		var hasName, hasOrigin, hasSpec bool
		ar := it.u.Attrs(&it.e)
		var f dwinfo.Field
		for ar.Next(&f) {
			switch {
			case f.Attr == dwinfo.AttrName && !hasName:
				name, hasName = f.Val, true
			case f.Attr == dwinfo.AttrAbstractOrigin && !hasOrigin:
				origin, hasOrigin = f.Val, true
			case f.Attr == dwinfo.AttrSpecification && !hasSpec:
				spec, hasSpec = f.Val, true
			}
		}
		if err := ar.Err(); err != nil {
			lr.note(err)
			continue
		}
		if hasName {
			s, err := it.u.String(name)
			if err != nil {
				return ""
			}
			return string(s)
		}
		for _, v := range [...]struct {
			v  dw.Value
			ok bool
		}{{origin, hasOrigin}, {spec, hasSpec}} {
			if !v.ok {
				continue
			}
			ru, off, ok := lr.ref(it.u, v.v)
			if !ok || contains(seen, off) {
				continue
			}
			re, ok := lr.entry(ru, off)
			if !ok {
				continue
			}
			seen = append(seen, off)
			work = append(work, item{ru, re})
		}
	}
	return ""
}

func contains(s []uint64, v uint64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// varAttrs are the attributes of a variable DIE (or its origin) that a
// Local needs; the first occurrence of each counts, as in LLVM's find.
type varAttrs struct {
	loc, tag, origin, name, typ, file, line dwinfo.Field
}

func (lr *localsReader) varAttrs(u *dwinfo.Unit, e *dwinfo.Entry) (varAttrs, bool) {
	var va varAttrs
	ar := u.Attrs(e)
	var f dwinfo.Field
	for ar.Next(&f) {
		var dst *dwinfo.Field
		switch f.Attr {
		case attrLocation:
			dst = &va.loc
		case attrTagOffset:
			dst = &va.tag
		case dwinfo.AttrAbstractOrigin:
			dst = &va.origin
		case dwinfo.AttrName:
			dst = &va.name
		case attrType:
			dst = &va.typ
		case dwinfo.AttrDeclFile:
			dst = &va.file
		case dwinfo.AttrDeclLine:
			dst = &va.line
		default:
			continue
		}
		if dst.Attr == 0 {
			*dst = f
		}
	}
	if err := ar.Err(); err != nil {
		lr.note(err)
		return va, false
	}
	return va, true
}

// local describes the variable DIE e of lr.u, a local of function fn.
func (lr *localsReader) local(e *dwinfo.Entry, fn int) Local {
	f := &lr.fn[fn]
	lr.load(f)
	l := Local{FunctionName: f.name}
	va, ok := lr.varAttrs(lr.u, e)
	if !ok {
		return l
	}
	if va.loc.Attr != 0 {
		l.FrameOffset, l.HasFrameOffset = lr.frameOffset(lr.u, va.loc, f.fbReg)
	}
	if va.tag.Attr != 0 {
		l.TagOffset, l.HasTagOffset = unsigned(va.tag)
	}
	// The rest from the abstract origin, one step, when it names a DIE.
	du := lr.u
	if va.origin.Attr != 0 {
		if ou, off, ok := lr.ref(du, va.origin.Val); ok {
			if oe, ok := lr.entry(ou, off); ok {
				if ova, ok := lr.varAttrs(ou, &oe); ok {
					du, va = ou, ova
				} else {
					return l
				}
			}
		}
	}
	if va.name.Attr != 0 {
		if s, err := du.String(va.name.Val); err == nil {
			l.Name = string(s)
		}
	}
	if va.typ.Attr != 0 {
		if tu, off, ok := lr.ref(du, va.typ.Val); ok {
			if _, ok := lr.entry(tu, off); ok {
				ts := lr.typeSize(tu, off, 0)
				l.Size, l.HasSize = ts.size, ts.ok
			}
		}
	}
	// LLVM 14 names an origin's DW_AT_decl_file in the answering unit's
	// line table, as the compiler meant it (gcc LTO's origins in other
	// units included); an origin that dwz moved into a partial unit names
	// a file of that unit's own table, as it did before dwz.
	lt, dir := lr.opts.LineTable, lr.compDir
	if du != lr.u && du.Root.Tag == dwinfo.TagPartialUnit {
		lt, dir = nil, string(du.Root.CompDir)
		if lr.opts.PartialLineTable != nil {
			lt = lr.opts.PartialLineTable(du)
		}
	}
	if va.file.Attr != 0 && lt != nil {
		if i, ok := unsigned(va.file); ok {
			// getFileNameByIndex: an index the table lacks names nothing.
			l.DeclFile, _ = lt.Header().FilePath(i, dir)
		}
	}
	if va.line.Attr != 0 {
		l.DeclLine, _ = unsigned(va.line)
	}
	return l
}

// frameOffset is LLVM's getExpressionFrameOffset over the locations of a
// DW_AT_location value (DWARFDie::getLocations): a section offset names a
// location list, a block is one expression.
func (lr *localsReader) frameOffset(u *dwinfo.Unit, f dwinfo.Field, fbReg int) (int64, bool) {
	off, isList := lr.locListOffset(u, f)
	if !isList {
		if f.Val.Class == dw.ClassBlock {
			return exprFrameOffset(f.Val.B, fbReg)
		}
		return 0, false
	}
	sec := lr.opts.Loc
	if u.Version >= 5 {
		sec = lr.opts.Loclists
	}
	if f.Val.Class == dw.ClassLoclistx {
		o, err := u.LoclistxOffset(sec, f.Val.U)
		if err != nil {
			lr.note(err)
			return 0, false
		}
		off = o
	}
	// The list must decode and resolve whole (findLoclistFromOffset);
	// then its first entry with a frame offset answers.
	var (
		ans    int64
		hasAns bool
		e      dwinfo.LocEntry
	)
	rd := u.LocList(sec, off)
	hasBase := lr.unitBase(u)
	for {
		err := rd.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			lr.note(err)
			return 0, false
		}
		switch e.Kind {
		case dwinfo.LLEEndOfList, dwinfo.LLEBaseAddress, dwinfo.LLEStartEnd, dwinfo.LLEStartLength,
			dwinfo.LLEDefaultLocation:
			if e.Kind == dwinfo.LLEBaseAddress {
				hasBase = true
			}
		case dwinfo.LLEBaseAddressx, dwinfo.LLEStartxLength:
			// LLVM reads the index as a uint32 and needs DW_AT_addr_base.
			if !lr.addrx(u, uint32(e.V0)) {
				return 0, false
			}
			if e.Kind == dwinfo.LLEBaseAddressx {
				hasBase = true
			}
		case dwinfo.LLEOffsetPair:
			if !hasBase {
				return 0, false // "Base address not defined"
			}
		case dwinfo.LLEStartxEndx:
			return 0, false // LLVM 14: "DW_LLE_startx_endx not implemented"
		}
		if !hasAns && e.Kind != dwinfo.LLEEndOfList && e.Kind != dwinfo.LLEBaseAddress && e.Kind != dwinfo.LLEBaseAddressx {
			ans, hasAns = exprFrameOffset(e.Expr, fbReg)
		}
	}
	return ans, hasAns
}

// locListOffset reports whether a DW_AT_location value is a section offset
// (LLVM's getAsSectionOffset): sec_offset, loclistx, rnglistx, and, as
// LLVM 14 classifies forms, strp and line_strp, and data4 or data8 in units
// of DWARF 3 and before.
func (lr *localsReader) locListOffset(u *dwinfo.Unit, f dwinfo.Field) (uint64, bool) {
	switch f.Form {
	case dw.FormSecOffset, dw.FormLoclistx, dw.FormRnglistx, dw.FormStrp, dw.FormLineStrp:
		return f.Val.U, true
	case dw.FormData4, dw.FormData8:
		return f.Val.U, u.Version <= 3
	}
	return 0, false
}

// unitBase reports whether the unit has a base address for location
// lists (LLVM's getBaseAddress: DW_AT_low_pc, else DW_AT_entry_pc, of an
// address form).
func (lr *localsReader) unitBase(u *dwinfo.Unit) bool {
	if lr.baseState == 0 {
		lr.baseState = -1
		if u.Root.HasLowPC {
			lr.baseState = 1
		} else if e, ok := lr.entry(u, u.DIEOffset); ok {
			if v, ok := lr.attr(u, &e, dwinfo.AttrEntryPC); ok && (v.Class == dw.ClassAddress || v.Class == dw.ClassAddrx) {
				if _, err := u.Addr(v); err == nil {
					lr.baseState = 1
				}
			}
		}
	}
	return lr.baseState > 0
}

// addrx reports whether .debug_addr entry i of u resolves, as LLVM's
// getAddrOffsetSectionItem requires: the unit must have DW_AT_addr_base
// (or DW_AT_GNU_addr_base).
func (lr *localsReader) addrx(u *dwinfo.Unit, i uint32) bool {
	e, ok := lr.entry(u, u.DIEOffset)
	if !ok {
		return false
	}
	_, has := lr.attr(u, &e, dwinfo.AttrAddrBase)
	if !has {
		_, has = lr.attr(u, &e, dwinfo.AttrGNUAddrBase)
	}
	if !has {
		return false
	}
	_, err := u.Addr(dw.Value{Class: dw.ClassAddrx, U: uint64(i)})
	return err == nil
}

// exprFrameOffset is LLVM 14's getExpressionFrameOffset: DW_OP_fbreg N, or
// DW_OP_bregR N with R the frame base register, alone or followed by
// DW_OP_deref. The operand is decoded as LLVM's decodeSLEB128 decodes it:
// one cut short or too big for 64 bits reads as 0, its bytes counted up to
// where decoding stopped.
func exprFrameOffset(expr []byte, fbReg int) (int64, bool) {
	if len(expr) == 0 || !(expr[0] == opFbreg || fbReg >= 0 && int(expr[0]) == opBreg0+fbReg) {
		return 0, false
	}
	v, n := llvmSLEB(expr[1:])
	switch {
	case len(expr) == n+1:
		return v, true
	case len(expr) == n+2 && expr[n+1] == opDeref:
		return v, true
	}
	return 0, false
}

// llvmSLEB decodes a signed LEB128 from p the way LLVM's decodeSLEB128
// does, returning the value and the bytes it consumed: 0 for an encoding
// cut off by the end of p or past 64 bits.
func llvmSLEB(p []byte) (int64, int) {
	var v int64
	var shift uint
	for i := 0; ; i++ {
		if i == len(p) {
			return 0, i
		}
		b := p[i]
		slice := int64(b & 0x7f)
		ext := int64(0) // what a byte past 64 bits must hold
		if v < 0 {
			ext = 0x7f
		}
		if shift >= 64 && slice != ext || shift == 63 && slice != 0 && slice != 0x7f {
			return 0, i
		}
		if shift < 64 {
			v |= slice << shift
		}
		shift += 7
		if b < 0x80 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
}

// typeSize is LLVM 14's getTypeSize for the type DIE of u at off, depth
// steps into a chain; memoized by offset.
func (lr *localsReader) typeSize(u *dwinfo.Unit, off uint64, depth int) typeSize {
	key := off
	if u.Data() != lr.d {
		key |= 1 << 63 // a type of the supplementary file: offsets there are another file's
	}
	if ts, ok := lr.sizes[key]; ok {
		return ts
	}
	if depth >= lr.opts.MaxTypeDepth {
		return typeSize{}
	}
	if lr.sizes == nil {
		lr.sizes = make(map[uint64]typeSize)
	}
	lr.sizes[key] = typeSize{} // a cycle back here sizes nothing
	ts := lr.computeSize(u, off, depth)
	lr.sizes[key] = ts
	return ts
}

func (lr *localsReader) computeSize(u *dwinfo.Unit, off uint64, depth int) typeSize {
	e, ok := lr.entry(u, off)
	if !ok {
		return typeSize{}
	}
	var bs, typ dwinfo.Field
	ar := u.Attrs(&e)
	var f dwinfo.Field
	for ar.Next(&f) {
		switch {
		case f.Attr == attrByteSize && bs.Attr == 0:
			bs = f
		case f.Attr == attrType && typ.Attr == 0:
			typ = f
		}
	}
	if err := ar.Err(); err != nil {
		lr.note(err)
		return typeSize{}
	}
	if bs.Attr != 0 {
		if v, ok := unsigned(bs); ok {
			return typeSize{v, true}
		}
	}
	ptr := uint64(lr.opts.AddrSize)
	// base returns the DIE DW_AT_type names, if any.
	base := func() (*dwinfo.Unit, uint64, dwinfo.Entry, bool) {
		if typ.Attr == 0 {
			return nil, 0, dwinfo.Entry{}, false
		}
		bu, boff, ok := lr.ref(u, typ.Val)
		if !ok {
			return nil, 0, dwinfo.Entry{}, false
		}
		be, ok := lr.entry(bu, boff)
		return bu, boff, be, ok
	}
	switch e.Tag {
	case tagPointerType, tagReferenceType, tagRvalueReferencem:
		return typeSize{ptr, true}
	case tagPtrToMemberType:
		if _, _, be, ok := base(); ok && be.Tag == tagSubroutineType {
			return typeSize{2 * ptr, true}
		}
		return typeSize{ptr, true}
	case tagConstType, tagVolatileType, tagRestrictType, tagTypedef:
		if bu, boff, _, ok := base(); ok {
			return lr.typeSize(bu, boff, depth+1)
		}
	case tagArrayType:
		bu, boff, _, ok := base()
		if !ok {
			return typeSize{}
		}
		ts := lr.typeSize(bu, boff, depth+1)
		if !ts.ok {
			return ts
		}
		return lr.arraySize(u, &e, ts.size)
	}
	return typeSize{}
}

// arraySize multiplies size by the extent of each DW_TAG_subrange_type
// child of the array type e.
func (lr *localsReader) arraySize(u *dwinfo.Unit, e *dwinfo.Entry, size uint64) typeSize {
	if !e.Children {
		return typeSize{size, true}
	}
	er, err := u.EntriesAt(e.Offset)
	if err != nil {
		lr.note(err)
		return typeSize{size, true}
	}
	var c dwinfo.Entry
	if er.Next(&c) != nil { // the array itself
		return typeSize{size, true}
	}
	for {
		if err := er.Next(&c); err != nil {
			if err != io.EOF {
				lr.note(err)
			}
			break
		}
		if c.Depth <= 0 {
			break
		}
		if c.Depth > 1 {
			continue
		}
		if c.Children {
			if err := er.SkipChildren(&c); err != nil {
				lr.note(err)
				break
			}
		}
		if c.Tag != tagSubrangeType {
			continue
		}
		var count, upper, lower dwinfo.Field
		ar := u.Attrs(&c)
		var f dwinfo.Field
		for ar.Next(&f) {
			switch {
			case f.Attr == attrCount && count.Attr == 0:
				count = f
			case f.Attr == attrUpperBnd && upper.Attr == 0:
				upper = f
			case f.Attr == attrLowerBnd && lower.Attr == 0:
				lower = f
			}
		}
		if err := ar.Err(); err != nil {
			lr.note(err)
			break
		}
		if count.Attr != 0 {
			if n, ok := unsigned(count); ok {
				size *= n
			}
		}
		if upper.Attr != 0 {
			if ub, ok := signed(upper); ok {
				var lb int64
				if lower.Attr != 0 {
					lb, _ = signed(lower)
				}
				size *= uint64(ub - lb + 1)
			}
		}
	}
	return typeSize{size, true}
}

// signed is LLVM's getAsSignedConstant: constant and flag classes, data1,
// data2 and data4 sign-extended from their width, udata only up to
// MaxInt64.
func signed(f dwinfo.Field) (int64, bool) {
	if f.Val.Class != dw.ClassConstant && f.Val.Class != dw.ClassFlag {
		return 0, false
	}
	switch f.Form {
	case dw.FormData1:
		return int64(int8(f.Val.U)), true
	case dw.FormData2:
		return int64(int16(f.Val.U)), true
	case dw.FormData4:
		return int64(int32(f.Val.U)), true
	case dw.FormUdata:
		if f.Val.U > 1<<63-1 {
			return 0, false
		}
	case dw.FormSdata, dw.FormImplicitConst:
		return f.Val.S, true
	}
	return int64(f.Val.U), true
}

// attr returns e's first attribute at, if it has one.
func (lr *localsReader) attr(u *dwinfo.Unit, e *dwinfo.Entry, at dwinfo.Attr) (dw.Value, bool) {
	v, ok, err := u.Attr(e, at)
	if err != nil {
		lr.note(err)
		return dw.Value{}, false
	}
	return v, ok
}

// ref resolves a reference value of a DIE of u to the unit and offset of
// the DIE it names, as LLVM's getAttributeValueAsReferencedDie: a
// unit-relative form stays within u, DW_FORM_ref_addr may name any unit.
// A reference into a dwz supplementary file (DW_FORM_GNU_ref_alt,
// DW_FORM_ref_sup4/8: the types dwz moved there) names a unit of that
// file when the Data has it (see sup.go); signatures name nothing.
func (lr *localsReader) ref(u *dwinfo.Unit, v dw.Value) (*dwinfo.Unit, uint64, bool) {
	d, off, ok := u.Target(v)
	if !ok {
		return nil, 0, false
	}
	if d == u.Data() && off >= u.DIEOffset && off < u.End {
		return u, off, true
	}
	if v.Class == dw.ClassRef {
		return nil, 0, false
	}
	h, ok, _ := d.UnitContaining(off)
	if !ok || off < h.DIEOffset {
		return nil, 0, false
	}
	ou, err := d.UnitAt(h.Offset)
	if err != nil {
		lr.note(err)
		return nil, 0, false
	}
	return ou, off, true
}

// entry decodes the DIE of u at off, reporting false if none does.
func (lr *localsReader) entry(u *dwinfo.Unit, off uint64) (dwinfo.Entry, bool) {
	var e dwinfo.Entry
	if err := u.EntryAt(off, &e); err != nil {
		lr.note(err)
		return e, false
	}
	return e, true
}
