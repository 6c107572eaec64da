package dwinfo

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/bits"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// Unit is a unit ready for DIE reading: its header, what its root DIE says
// (the bases that strx, addrx and rnglistx forms need) and its abbreviation
// table. It is immutable and safe for concurrent use.
type Unit struct {
	Header
	Root RootInfo
	// RootErr is the first attribute of the unit DIE that could not be
	// decoded (a string in a form this reader cannot resolve, such as
	// dwz's DW_FORM_GNU_strp_alt without the supplementary file, or an
	// address index out of range). That attribute is left unset and the
	// unit is otherwise usable: a bad attribute costs that attribute.
	RootErr error

	d    *Data
	info []byte // .debug_info, available at least through End
	tab  *AbbrevTable
	fast bool // tab's skip programs are for this unit's format
	form dw.Unit
	// split: a split unit (LoadSplitUnit), whose DWARF 4 DW_AT_ranges
	// offsets count from its skeleton's DW_AT_GNU_ranges_base.
	split bool
}

// RootInfo is the decoded unit DIE [DWARF5 3.1.1]. Byte slices alias the
// string sections. Bases that are absent default as LLVM does for split
// units: 0 before DWARF 5, the size of the section header (8, or 16 for
// DWARF64) in DWARF 5.
type RootInfo struct {
	Tag      Tag
	Name     []byte
	CompDir  []byte
	Producer []byte
	Language uint64

	LowPC    uint64   // DW_AT_low_pc, else DW_AT_entry_pc: the base address of range lists
	HasLowPC bool     // LowPC came from DW_AT_low_pc
	HighPC   dw.Value // raw DW_AT_high_pc (address or offset from LowPC); Class 0 if absent
	Ranges   dw.Value // raw DW_AT_ranges; Class 0 if absent
	StmtList uint64   // offset into .debug_line
	HasStmt  bool
	DWOID    uint64 // from the v5 header or DW_AT_GNU_dwo_id
	HasDWOID bool
	// DWOName is a skeleton unit's DW_AT_dwo_name (DWARF 5) or
	// DW_AT_GNU_dwo_name (before): the file holding its split unit,
	// relative to CompDir. As in LLVM, each version reads only its own
	// attribute.
	DWOName []byte

	StrOffsetsBase uint64
	AddrBase       uint64
	RnglistsBase   uint64
	LoclistsBase   uint64
}

// LoadUnit fetches h's abbreviation table and decodes its unit DIE.
func (d *Data) LoadUnit(h Header) (*Unit, error) {
	info, err := d.info.UpTo(h.End)
	if err != nil {
		return nil, err
	}
	u := &Unit{Header: h, d: d, info: info, form: h.Form()}
	if err := d.loadUnit(u, nil); err != nil {
		return nil, err
	}
	return u, nil
}

// SplitBases is what a split unit takes from outside itself [DWARF5
// 3.1.3]: the bases its skeleton unit sets, and, in a DWARF package, where
// the unit's contributions to the package's sections start (from its row
// of .debug_cu_index).
type SplitBases struct {
	// AddrBase is the skeleton's DW_AT_addr_base (DW_AT_GNU_addr_base):
	// the split unit's addresses are in the skeleton file's .debug_addr,
	// which the Data's Sections.Addr must hold.
	AddrBase uint64
	// RangesBase is the skeleton's DW_AT_GNU_ranges_base (DWARF 4 GNU
	// split DWARF): the split unit's DW_AT_ranges offsets count from it,
	// in the skeleton file's .debug_ranges (Sections.Ranges).
	RangesBase uint64
	// Base, when HasBase, is the base address of the unit's range lists
	// if its unit DIE has no DW_AT_low_pc (a split unit has none): the
	// skeleton's DW_AT_low_pc, by the standard [DWARF5 3.1.3] and as GDB
	// reads it. Unset, the base is 0, as LLVM 14 has it (its split units
	// find no base address of their own), which shifts the
	// DW_RLE_offset_pair lists that gcc and clang write for units of
	// contiguous code.
	Base    uint64
	HasBase bool
	// Abbrev, StrOffsets, Rnglists and Loclists are the unit's
	// contributions to the package's .debug_abbrev.dwo,
	// .debug_str_offsets.dwo, .debug_rnglists.dwo and
	// .debug_loclists.dwo (.debug_loc.dwo before DWARF 5); 0 in a .dwo.
	Abbrev, StrOffsets, Rnglists, Loclists uint64
}

// LoadSplitUnit is LoadUnit for a split unit: a DW_UT_split_compile unit,
// or a DWARF 4 unit of a .dwo, read with the Sections of its .dwo (or
// .dwp) but for Addr and, before DWARF 5, Ranges, which are the skeleton
// file's. Its bases are LLVM 14's for split units (DWARFUnit::
// tryExtractDIEsIfNeeded, DWARFUnit::parseDWO): addresses at the
// skeleton's addr_base; string offsets at the unit's contribution plus,
// in DWARF 5, the table header (8 bytes, 16 in DWARF64); in DWARF 5, range
// and location lists at the contribution plus the list table header (12
// bytes, 20 in DWARF64), and before, ranges at the skeleton's
// DW_AT_GNU_ranges_base. Base attributes in the split unit's own DIE are
// ignored, as LLVM ignores them.
func (d *Data) LoadSplitUnit(h Header, b SplitBases) (*Unit, error) {
	if h.AbbrevOffset+b.Abbrev < b.Abbrev {
		return nil, buf.Errorf(pkg, secInfo, h.Offset, ErrOverflow, "abbreviation offset %#x", h.AbbrevOffset)
	}
	h.AbbrevOffset += b.Abbrev
	info, err := d.info.UpTo(h.End)
	if err != nil {
		return nil, err
	}
	u := &Unit{Header: h, d: d, info: info, form: h.Form(), split: true}
	if err := d.loadUnit(u, &b); err != nil {
		return nil, err
	}
	return u, nil
}

// loadUnit decodes u's unit DIE; split, when not nil, gives the bases of a
// split unit.
func (d *Data) loadUnit(u *Unit, split *SplitBases) error {
	tab, err := d.abbrevsFor(u.AbbrevOffset, sizesOf(&u.form))
	if err != nil {
		return err
	}
	return d.loadUnitTab(u, split, tab)
}

// loadRoot is LoadUnit for what a unit DIE alone says (Root and RootErr):
// its abbreviation table is parsed only up to the unit DIE's declaration,
// and neither cached nor kept, so that reading the ranges of every unit of
// a large program does not parse and keep every unit's table. Its Unit
// must not read any DIE but the first. It can succeed where LoadUnit
// fails on a declaration after that one.
func (d *Data) loadRoot(h Header) (*Unit, error) {
	info, err := d.info.UpTo(h.End)
	if err != nil {
		return nil, err
	}
	u := &Unit{Header: h, d: d, info: info, form: h.Form()}
	r := d.reader(secInfo, info)
	r.Seek(h.DIEOffset)
	code := r.ULEB()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if code == 0 {
		code = ^uint64(0) // a null entry: parse the whole table, as loadUnit would
	}
	tab, err := parseAbbrevsTo(d.reader(secAbbrev, d.s.Abbrev), u.AbbrevOffset, sizesOf(&u.form), code, nil)
	if err != nil {
		return nil, err
	}
	if err := d.loadUnitTab(u, nil, tab); err != nil {
		return nil, err
	}
	return u, nil
}

// loadUnitTab is loadUnit with the abbreviation table tab.
func (d *Data) loadUnitTab(u *Unit, split *SplitBases, tab *AbbrevTable) error {
	sz := sizesOf(&u.form)
	u.tab, u.fast = tab, tab.sizes == sz
	ri := &u.Root
	if u.Version >= 5 {
		hs := 2 * u.offSize() // unit_length + version/padding: 8 or 16
		ri.StrOffsetsBase, ri.AddrBase, ri.RnglistsBase, ri.LoclistsBase = hs, hs, hs, hs
	}
	if split != nil {
		ri.AddrBase = split.AddrBase
		ri.StrOffsetsBase, ri.RnglistsBase, ri.LoclistsBase = split.StrOffsets, split.RangesBase, split.Loclists
		if u.Version >= 5 {
			// unit_length (4, or 12 in DWARF64), version,
			// address_size, segment_selector_size,
			// offset_entry_count.
			lh := uint64(12)
			if u.Dwarf64 {
				lh = 20
			}
			ri.StrOffsetsBase += 2 * u.offSize()
			ri.RnglistsBase = split.Rnglists + lh
			ri.LoclistsBase += lh
		}
	}
	if u.Type == UnitSkeleton || u.Type == UnitSplitCompile {
		ri.DWOID, ri.HasDWOID = u.Header.DWOID, true
	}
	er := u.Entries()
	var e Entry
	if err := er.Next(&e); err != nil {
		if err == io.EOF {
			return buf.Errorf(pkg, secInfo, u.DIEOffset, ErrFormat, "unit has no DIE")
		}
		return err
	}
	ri.Tag = e.Tag
	// Strings and addresses are resolved after the loop: their bases may
	// follow them in attribute order.
	var name, dir, prod, low, entry, dwo dw.Value
	it := u.Attrs(&e)
	var f Field
	for it.Next(&f) {
		v := f.Val
		if split != nil {
			switch f.Attr {
			case AttrStrOffsetsBase, AttrAddrBase, AttrGNUAddrBase, AttrRnglistsBase, AttrGNURangesBase, AttrLoclistsBase:
				continue
			}
		}
		switch f.Attr {
		case AttrName:
			name = v
		case AttrCompDir:
			dir = v
		case AttrProducer:
			prod = v
		case AttrLanguage:
			ri.Language = v.U
		case AttrLowPC:
			low = v
		case AttrEntryPC:
			entry = v
		case AttrHighPC:
			ri.HighPC = v
		case AttrRanges:
			ri.Ranges = v
		case AttrStmtList:
			ri.StmtList, ri.HasStmt = v.U, true
		case AttrStrOffsetsBase:
			ri.StrOffsetsBase = v.U
		case AttrAddrBase, AttrGNUAddrBase:
			ri.AddrBase = v.U
		case AttrRnglistsBase, AttrGNURangesBase:
			ri.RnglistsBase = v.U
		case AttrLoclistsBase:
			ri.LoclistsBase = v.U
		case AttrGNUDWOID:
			ri.DWOID, ri.HasDWOID = v.U, true
		case AttrDWOName:
			if u.Version >= 5 {
				dwo = v
			}
		case AttrGNUDWOName:
			if u.Version < 5 {
				dwo = v
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	// LLVM takes the base address from DW_AT_low_pc, else DW_AT_entry_pc.
	if low.Class != 0 {
		if a, err := u.Addr(low); err != nil {
			u.rootErr(err)
		} else {
			ri.LowPC, ri.HasLowPC = a, true
		}
	} else if entry.Class == dw.ClassAddress || entry.Class == dw.ClassAddrx {
		if a, err := u.Addr(entry); err == nil {
			ri.LowPC = a
		}
	} else if split != nil && split.HasBase {
		ri.LowPC = split.Base
	}
	for _, p := range [...]struct {
		v   dw.Value
		dst *[]byte
	}{{name, &ri.Name}, {dir, &ri.CompDir}, {prod, &ri.Producer}, {dwo, &ri.DWOName}} {
		if p.v.Class == 0 {
			continue
		}
		s, err := u.String(p.v)
		if err != nil {
			u.rootErr(err)
			continue
		}
		*p.dst = s
	}
	return nil
}

// rootErr records err as the unit's RootErr unless one is already kept.
func (u *Unit) rootErr(err error) {
	if u.RootErr == nil && !u.quietRootErr(err) {
		u.RootErr = err
	}
}

// Entry is one DIE as returned by EntryReader.Next. Its attributes are
// decoded on demand with Unit.Attrs or Unit.Attr.
type Entry struct {
	Offset   uint64 // absolute .debug_info offset of the DIE
	Tag      Tag
	Children bool
	Depth    int // nesting depth relative to where reading started; the unit DIE is 0

	abbrev  *Abbrev
	attrOff uint64 // first attribute byte
	sibling uint64 // DW_AT_sibling (absolute), 0 if none
}

// Abbrev returns the entry's abbreviation declaration.
func (e *Entry) Abbrev() *Abbrev { return e.abbrev }

// Sibling returns the DIE's DW_AT_sibling as an absolute offset, or 0 if
// it has none.
func (e *Entry) Sibling() uint64 { return e.sibling }

// EntryReader iterates the DIEs of one unit in section order. It is a small
// value; it allocates nothing.
//
// Stepping over a DIE runs its abbreviation's skip program (Abbrev): one
// bounds check and an addition for a DIE of fixed-size forms, a short
// loop for the LEB128s, blocks and strings of the others. Anything that
// program does not cover (a truncated DIE, a long LEB128, an unknown
// form, a unit whose format is not its table's) goes to slowStep, the
// generic decoder, which also makes every error.
type EntryReader struct {
	u        *Unit
	tab      *AbbrevTable
	data     []byte // .debug_info up to the unit's end
	off      int    // next record; len(data) after an error
	depth    int    // depth of the next DIE
	mark     int    // the end of the last DIE returned or passed over
	maxDepth int
	fast     bool // the table's skip programs hold for this unit
	big      bool
	err      error // sticky
}

// infoReader returns a reader of the unit's bytes, positioned at off.
func (u *Unit) infoReader(off uint64) buf.Reader {
	r := u.d.reader(secInfo, u.info)
	r.Seek(off)
	r.SetLimit(u.End)
	return r
}

// checkDIE reports an error unless off lies within the unit's DIEs.
func (u *Unit) checkDIE(off uint64) error {
	if off < u.DIEOffset || off >= u.End {
		return buf.Errorf(pkg, secInfo, off, ErrFormat, "offset outside unit at %#x..%#x", u.DIEOffset, u.End)
	}
	return nil
}

// entries returns a reader at off, within [DIEOffset, End].
func (u *Unit) entries(off uint64) EntryReader {
	er := EntryReader{u: u, tab: u.tab, off: int(off), maxDepth: u.d.maxDepth, fast: u.fast, big: u.d.s.BigEndian}
	if u.End > uint64(len(u.info)) {
		r := u.infoReader(off) // fails, naming the unit's end
		er.err, er.off = r.Err(), int(r.Offset())
		return er
	}
	er.data = u.info[:u.End:u.End]
	return er
}

// DIEBytes returns the unit's .debug_info bytes [lo, hi), absolute
// offsets within its DIEs (clamped to them); nil when none are.
func (u *Unit) DIEBytes(lo, hi uint64) []byte {
	lo, hi = max(lo, u.DIEOffset), min(hi, u.End, uint64(len(u.info)))
	if lo >= hi {
		return nil
	}
	return u.info[lo:hi:hi]
}

// Entries returns a reader positioned at the unit DIE.
func (u *Unit) Entries() EntryReader { return u.entries(u.DIEOffset) }

// EntriesAt returns a reader positioned at the DIE at absolute offset off,
// which must lie within the unit's DIEs; depths count from that DIE (0).
func (u *Unit) EntriesAt(off uint64) (EntryReader, error) {
	if err := u.checkDIE(off); err != nil {
		return EntryReader{}, err
	}
	return u.entries(off), nil
}

// EntryAt fills e with the DIE at absolute offset off, which must lie
// within the unit's DIEs, without reading its attributes (decode them with
// Attrs); its Depth is 0 and Sibling unknown (0). A null entry at off, or
// an abbreviation code the unit's table lacks, is an error.
func (u *Unit) EntryAt(off uint64, e *Entry) error {
	if err := u.checkDIE(off); err != nil {
		return err
	}
	r := u.infoReader(off)
	code := r.ULEB()
	if err := r.Err(); err != nil {
		return err
	}
	if code == 0 {
		return buf.Errorf(pkg, secInfo, off, ErrFormat, "null entry where a DIE was expected")
	}
	ab, ok := u.tab.Lookup(code)
	if !ok {
		return buf.Errorf(pkg, secInfo, off, ErrFormat, "abbreviation code %d not in table at %#x", code, u.AbbrevOffset)
	}
	*e = Entry{Offset: off, Tag: ab.Tag, Children: ab.Children, abbrev: ab, attrOff: r.Offset()}
	return nil
}

// Offset returns the offset of the next record the reader will decode.
func (er *EntryReader) Offset() uint64 { return uint64(er.off) }

// Next fills e with the next DIE, skipping null entries (whose only effect
// is to end a list of children, reflected in Depth). It returns io.EOF at
// the end of the unit and a sticky *DecodeError on bad input. Every record
// consumes at least one byte, so a unit of n bytes ends within n calls.
// After an error, Offset reports where the call began.
func (er *EntryReader) Next(e *Entry) error {
	_, err := er.next(e, -1, math.MaxInt, 0, nil)
	return err
}

// NextWhere is Next for a caller that wants only some DIEs: it fills e with
// the next DIE whose depth is at most depth or whose tag is in tags, and
// steps over the others as Next would, without filling e, at a few
// instructions each (a scan for the functions of a unit passes over its
// types and variables so). After an error, Offset reports the end of the
// last DIE passed over or returned: the null entries, if any, and then the
// record that failed.
func (er *EntryReader) NextWhere(e *Entry, depth int, tags TagSet) error {
	_, err := er.next(e, -1, depth, tags, nil)
	return err
}

// NextIn is NextWhere for a set of abbreviation codes (see Unit.Codes)
// instead of tags: it fills e with the next DIE whose depth is at most
// depth or whose abbreviation's code is in codes. A scan can so pass over
// the DIEs of a tag it wants but whose abbreviation cannot hold what it
// looks for (C++ classes declare hundreds of thousands of member
// functions, without addresses) at the cost of stepping over them.
func (er *EntryReader) NextIn(e *Entry, depth int, codes CodeSet) error {
	if er.err != nil || !er.fast {
		_, err := er.next(e, -1, depth, 0, codes)
		return err
	}
	d, steps := er.data, er.tab.steps
	off, dep := er.off, er.depth
	mark := off
	if len(codes) == len(steps) && (len(codes) == 0 || !codes[0]) && depth < er.maxDepth {
		for {
			off, dep, mark = stepOver(d, steps, codes, off, dep, mark, depth, er.maxDepth)
			if off > len(d)-8 {
				break
			}
			// A record stepOver leaves: a code of three bytes or more
			// or not in the table, a null entry or DIE at depth 0 or
			// depth, a DIE to return, one of other ops, a longer
			// LEB128 or block length, at the largest depth, truncated.
			code, p := uint64(d[off]), off+1
			if code >= 0x80 {
				if code, p = codeLEB(d, off); p < 0 {
					break
				}
			}
			if code == 0 {
				dep, off = max(dep-1, 0), p
				continue
			}
			if code >= uint64(len(steps)) || dep <= depth || codes[code] {
				break
			}
			ab := &er.tab.index[code-1]
			q, _, ok := er.skipOps(ab, p)
			if ok && uint64(len(d)-q) >= uint64(ab.tail) && (!ab.Children || dep < er.maxDepth) {
				off, mark = q+int(ab.tail), q+int(ab.tail)
				if ab.Children {
					dep++
				}
				continue
			}
			// A LEB128 of more than 9 bytes (gcc's and clang's 64-bit
			// negative constants), or an error: the generic path, for
			// this one.
			er.off, er.depth, er.mark = off, dep, mark
			if isDIE, err := er.slowOne(e, depth, 0, codes); isDIE || err != nil {
				return err
			}
			off, dep, mark = er.off, er.depth, er.mark
		}
	}
	er.off, er.depth, er.mark = off, dep, mark
	_, err := er.nextFrom(e, -1, depth, 0, codes)
	return err
}

// stepOver steps over the records from off, at depth dep, that NextIn
// passes over (see NextIn for depth and codes; mark is as in
// EntryReader) and returns its state at the first one it leaves to its
// caller: one it returns, one whose program is not one LEB128 or block
// (or with a longer LEB128), one at depth 0 or at the largest depth, a
// code of more than two bytes, truncated, or in the last 8 bytes of the
// unit. len(codes) is len(steps), codes[0] is false and depth is below
// maxDepth.
//
// The records are a chain: each one's end is where the next starts, so
// the loop runs at the latency of what finds that end: for a DIE, two
// loads (its code, then its step) and, for one of a LEB128 or block, a
// third (the value). A null entry is one byte on a branch (predicted, it
// costs no load of its step). The rest (depth, mark, the tests for DIEs
// to return) is off that chain. A loop of its own, without calls, keeps
// that state in registers. (Tried: deciding 1- or 2-byte codes without a
// branch, with a mask: the longer chain costs more than the branches
// mispredicted, 1.3x slower on the cxx unit.)
func stepOver(d []byte, steps []step, codes CodeSet, off, dep, mark, depth, maxDepth int) (int, int, int) {
	d = d[:len(d):len(d)]
	codes = codes[:len(steps)]
	end := len(d) - 8
	// One test for both bounds of the depth: records at lo or deeper
	// and below maxDepth. At depth 0 or shallower (the unit DIE, the
	// null entries that end the unit) the caller decides.
	lo := max(depth+1, 1)
	span := uint(0)
	if maxDepth > lo {
		span = uint(maxDepth - lo)
	}
loop:
	for off <= end {
		// The code: one byte or two (a C++ unit has hundreds of
		// abbreviations); longer ones go to the caller.
		code, p := uint64(d[off]), off+1
		if code == 0 && dep > lo {
			off, dep = p, dep-1
			continue
		}
		if code >= 0x80 {
			c1 := uint64(d[p])
			if c1 >= 0x80 {
				break
			}
			code = code&0x7f | c1<<7
			p++
		}
		if code >= uint64(len(steps)) || uint(dep-lo) >= span || codes[code] {
			break
		}
		st := steps[code]
		q := p + st.tail()
		if !st.fixed() {
			v := p + st.pre()
			if v > end {
				break
			}
			y := le64(d, v)
			switch st.kind() {
			case opLEB:
				m := ^y & 0x8080808080808080
				if m == 0 {
					break loop
				}
				q += st.pre() + bits.TrailingZeros64(m)>>3 + 1
			case opBlock:
				if y&0x80 != 0 {
					break loop
				}
				q += st.pre() + 1 + int(y&0xff)
			default:
				break loop
			}
		}
		if q > len(d) {
			break
		}
		if code != 0 {
			mark = q
		}
		off, dep = q, dep+st.delta()
	}
	return off, dep, mark
}

// le64 reads the 8 little-endian bytes at i (as binary.LittleEndian.
// Uint64(d[i:]), but without the capacity arithmetic of a slice, for
// which stepOver has no register).
func le64(d []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(d[i : i+8 : i+8])
}

// CodeSet is a set of the abbreviation codes of one table, for NextIn: a
// flag per code, so that the test for each DIE stepped over is one load.
type CodeSet []bool

// Has reports whether code is in s.
func (s CodeSet) Has(code uint64) bool {
	return code < uint64(len(s)) && s[code]
}

// Codes returns the set of the codes of u's abbreviations for which keep
// reports true, and false if u's table numbers its abbreviations too
// sparsely for a set (then use NextWhere). keep sees each abbreviation
// once. Cost: a byte per code up to the table's largest.
func (u *Unit) Codes(keep func(*Abbrev) bool) (CodeSet, bool) {
	t := u.tab
	n := len(t.list)
	if n > 0 && t.list[n-1].Code > 4*uint64(n)+256 {
		return nil, false
	}
	var s CodeSet
	if n > 0 {
		s = make(CodeSet, t.list[n-1].Code+1)
	}
	for i := range t.list {
		ab := &t.list[i]
		if i > 0 && t.list[i-1].Code == ab.Code {
			continue // the first of duplicates wins
		}
		s[ab.Code] = keep(ab)
	}
	return s, true
}

// TagSet is a set of up to four tags, for NextWhere.
type TagSet uint64

// Tags returns the set of the given tags; more than four is a programming
// error (it panics).
func Tags(tags ...Tag) TagSet {
	if len(tags) > 4 {
		panic("dwinfo: more than four tags in a TagSet")
	}
	var s TagSet
	for i, t := range tags {
		s |= TagSet(t) << (16 * i)
	}
	return s
}

// Has reports whether t is in s: one lane of four 16-bit ones equal to t
// (0 is no DIE's tag, so the empty lanes never match).
func (s TagSet) Has(t Tag) bool {
	const lo, hi = 0x0001_0001_0001_0001, 0x8000_8000_8000_8000
	v := uint64(s) ^ uint64(t)*lo
	return t != 0 && (v-lo)&^v&hi != 0
}

// next returns the next DIE of depth at most depth, tag in tags or code in
// codes (true),
// or (false, nil) after a null entry that takes the depth to stop or less.
//
// The loop keeps its state in registers: around the calls it makes (the
// skip programs' ops, the generic path) that state goes through er.
func (er *EntryReader) next(e *Entry, stop, depth int, tags TagSet, codes CodeSet) (bool, error) {
	if er.err != nil {
		return false, er.err
	}
	if !er.fast {
		return er.nextSlow(e, stop, depth, tags, codes)
	}
	er.mark = er.off
	return er.nextFrom(e, stop, depth, tags, codes)
}

// nextFrom is next from er.off, with er.mark set.
func (er *EntryReader) nextFrom(e *Entry, stop, depth int, tags TagSet, codes CodeSet) (bool, error) {
	d, index, maxDepth := er.data, er.tab.index, er.maxDepth
	off, dep := er.off, er.depth
	for {
		if off >= len(d) {
			er.off, er.depth = off, dep
			return false, io.EOF
		}
		// The abbreviation code: one to three bytes in practice
		// (clang's largest C++ units have more than 16,383
		// abbreviations).
		code, p := uint64(d[off]), off+1
		if code >= 0x80 {
			if code, p = codeLEB(d, off); p < 0 {
				er.off, er.depth = off, dep
				goto slow
			}
		}
		if code == 0 {
			if dep > 0 {
				dep--
			}
			off = p
			if dep <= stop {
				er.off, er.depth = off, dep
				return false, nil
			}
			continue
		}
		if code-1 >= uint64(len(index)) {
			er.off, er.depth = off, dep
			goto slow // an unknown code fails there
		}
		{
			ab := &index[code-1]
			q, sib := p, uint64(0)
			if ab.nop != 0 || ab.slow {
				// A single LEB128 or ULEB128-sized block, inline;
				// anything else (or any doubt) runs the program.
				if ab.one.kind != opNone {
					var ok bool
					if q, ok = skipOne(d, p, ab.one); ok {
						goto tail
					}
				}
				er.off, er.depth = off, dep
				var ok bool
				if q, sib, ok = er.skipOps(ab, p); !ok {
					goto slow
				}
				off, dep = er.off, er.depth
			}
		tail:
			// Truncated, or too deep: the generic path makes the error.
			if uint64(len(d)-q) < uint64(ab.tail) || ab.Children && dep >= maxDepth {
				er.off, er.depth = off, dep
				goto slow
			}
			q += int(ab.tail)
			if dep <= depth || tags.Has(ab.Tag) || codes.Has(code) {
				e.Offset, e.Tag, e.Children, e.Depth = uint64(off), ab.Tag, ab.Children, dep
				e.abbrev, e.attrOff, e.sibling = ab, uint64(p), sib
				if ab.Children {
					dep++
				}
				er.off, er.depth = q, dep
				return true, nil
			}
			off = q
			if ab.Children {
				dep++
			}
			er.mark = off
			continue
		}
	slow:
		if isDIE, err := er.slowOne(e, depth, tags, codes); isDIE || err != nil || er.depth <= stop {
			return isDIE, err
		}
		off, dep = er.off, er.depth
	}
}

// codeLEB decodes the abbreviation code at off, of two or three bytes,
// and returns the offset after it, or -1 for a longer or truncated one
// (the generic path decodes those).
func codeLEB(d []byte, off int) (uint64, int) {
	if off+1 >= len(d) {
		return 0, -1
	}
	code := uint64(d[off]&0x7f) | uint64(d[off+1]&0x7f)<<7
	if d[off+1] < 0x80 {
		return code, off + 2
	}
	if off+2 >= len(d) || d[off+2] >= 0x80 {
		return 0, -1
	}
	return code | uint64(d[off+2])<<14, off + 3
}

// skipOne runs op, the whole skip program of kind opLEB or opBlock, from p
// and returns where the abbreviation's tail starts, or false where
// skipOps must decide (a LEB128 of more than 3 bytes, truncation).
func skipOne(d []byte, p int, op skipOp) (int, bool) {
	q := p + int(op.pre)
	var n uint64
	for i := uint(0); ; i += 7 {
		if q >= len(d) || i == 21 {
			return 0, false
		}
		b := d[q]
		q++
		n |= uint64(b&0x7f) << i
		if b < 0x80 {
			break
		}
	}
	if op.kind == opLEB {
		return q, true
	}
	if n > uint64(len(d)-q) {
		return 0, false
	}
	return q + int(n), true
}

// skipOps runs the ops of ab's skip program from p (ab's first attribute
// byte) and returns where its tail starts and the DW_AT_sibling it met
// (absolute, else 0), or false where only the generic path can go on.
func (er *EntryReader) skipOps(ab *Abbrev, p int) (_ int, sib uint64, _ bool) {
	if ab.slow {
		return 0, 0, false
	}
	d, big := er.data, er.big
	for _, op := range er.tab.ops[ab.op0 : ab.op0+uint32(ab.nop)] {
		if uint64(len(d)-p) <= uint64(op.pre) {
			return 0, 0, false // also no byte left for the value
		}
		p += int(op.pre)
		var n uint64 // the value's bytes after its length
		switch op.kind {
		case opLEB:
			for i := 0; ; i++ {
				if p >= len(d) || i == 9 {
					return 0, 0, false // past 9 bytes it might overflow
				}
				p++
				if d[p-1] < 0x80 {
					break
				}
			}
			continue
		case opBlock:
			var ok bool
			if n, p, ok = leb(d, p); !ok {
				return 0, 0, false
			}
		case opBlock1:
			n, p = uint64(d[p]), p+1
		case opBlock2:
			if len(d)-p < 2 {
				return 0, 0, false
			}
			n, p = uint64(u16(d[p:], big)), p+2
		case opBlock4:
			if len(d)-p < 4 {
				return 0, 0, false
			}
			n, p = uint64(u32(d[p:], big)), p+4
		case opString:
			i := bytes.IndexByte(d[p:], 0)
			if i < 0 {
				return 0, 0, false
			}
			p += i + 1
			continue
		default: // DW_AT_sibling
			var v uint64
			switch op.kind {
			case opSib1:
				v, p = uint64(d[p]), p+1
			case opSib2:
				if len(d)-p < 2 {
					return 0, 0, false
				}
				v, p = uint64(u16(d[p:], big)), p+2
			case opSib4:
				if len(d)-p < 4 {
					return 0, 0, false
				}
				v, p = uint64(u32(d[p:], big)), p+4
			case opSib8:
				if len(d)-p < 8 {
					return 0, 0, false
				}
				v, p = u64(d[p:], big), p+8
			default:
				var ok bool
				if v, p, ok = leb(d, p); !ok {
					return 0, 0, false
				}
			}
			sib = er.u.Offset + v
			continue
		}
		if n > uint64(len(d)-p) {
			return 0, 0, false
		}
		p += int(n)
	}
	return p, sib, true
}

// leb decodes the unsigned LEB128 at p if it ends within 9 bytes (so that
// it cannot overflow: longer ones go to the generic decoder) and returns
// the offset after it.
func leb(d []byte, p int) (v uint64, next int, ok bool) {
	for shift := uint(0); shift < 63 && p < len(d); shift += 7 {
		b := d[p]
		p++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, p, true
		}
	}
	return 0, 0, false
}

// nextSlow is next on the generic path alone: for a unit whose table's
// skip programs are for another format.
func (er *EntryReader) nextSlow(e *Entry, stop, depth int, tags TagSet, codes CodeSet) (bool, error) {
	er.mark = er.off
	for {
		if er.off >= len(er.data) {
			return false, io.EOF
		}
		if isDIE, err := er.slowOne(e, depth, tags, codes); isDIE || err != nil || er.depth <= stop {
			return isDIE, err
		}
	}
}

// slowOne reads the record at er.off with slowStep and reports a DIE that
// next returns (true), an error, or neither (a null entry, or a DIE it
// passes over: go on). After an error, Offset reports er.mark.
func (er *EntryReader) slowOne(e *Entry, depth int, tags TagSet, codes CodeSet) (bool, error) {
	isDIE, err := er.slowStep(e)
	if err != nil {
		er.off = er.mark
		return false, err
	}
	if isDIE {
		if e.Depth <= depth || tags.Has(e.Tag) || codes.Has(e.abbrev.Code) {
			return true, nil
		}
		er.mark = er.off
	}
	return false, nil
}

func u16(b []byte, big bool) uint16 {
	if big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func u32(b []byte, big bool) uint32 {
	if big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func u64(b []byte, big bool) uint64 {
	if big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// slowStep decodes the record at er.off with the generic decoder, a DIE
// (true) or a null entry (false): the path of the DIEs that the skip
// programs leave out, and of every error.
func (er *EntryReader) slowStep(e *Entry) (bool, error) {
	u := er.u
	r := u.infoReader(uint64(er.off))
	off := r.Offset()
	code := r.ULEB()
	if code == 0 {
		if er.depth > 0 {
			er.depth--
		}
		return false, er.sync(&r)
	}
	ab, ok := u.tab.Lookup(code)
	if !ok {
		r.Fail(off, ErrFormat, "abbreviation code %d not in table at %#x", code, u.AbbrevOffset)
		return false, er.sync(&r)
	}
	if ix := u.tab.index; !u.tab.dense && code-1 < uint64(len(ix)) {
		ab = &ix[code-1] // the same copy as next's
	}
	e.Offset, e.Tag, e.Children, e.Depth = off, ab.Tag, ab.Children, er.depth
	e.abbrev, e.attrOff, e.sibling = ab, r.Offset(), 0
	if size, sib, ok := ab.sized(&u.form); ok {
		if sib >= 0 {
			er.sibling(r, e, ab, sib)
		}
		r.Skip(size)
	} else {
		er.skipAttrs(&r, e, ab)
	}
	if err := er.sync(&r); err != nil {
		return false, err
	}
	if ab.Children {
		if er.depth+1 > er.maxDepth {
			er.err = buf.Errorf(pkg, secInfo, off, ErrLimit, "DIE nesting deeper than %d", er.maxDepth)
			er.off = len(er.data)
			return false, er.err
		}
		er.depth++
	}
	return true, nil
}

// sync takes r's position and error as the reader's.
func (er *EntryReader) sync(r *buf.Reader) error {
	er.off = int(r.Offset())
	if err := r.Err(); err != nil {
		er.err, er.off = err, len(er.data)
	}
	return er.err
}

// sibling records the DW_AT_sibling (attribute sib) of a sized
// abbreviation, whose attributes before it have fixed sizes; r is a copy.
func (er *EntryReader) sibling(r buf.Reader, e *Entry, ab *Abbrev, sib int) {
	for i := range sib {
		r.Skip(fixedSize(dw.Form(ab.decl.attrs[i].form), &er.u.form))
	}
	s := &ab.decl.attrs[sib]
	if v := dw.Read(&r, dw.Form(s.form), er.u.form, 0); v.Class == dw.ClassRef && r.Err() == nil {
		e.sibling = er.u.Offset + v.U
	}
}

// skipAttrs moves r past the attributes of a DIE, noting DW_AT_sibling.
func (er *EntryReader) skipAttrs(r *buf.Reader, e *Entry, ab *Abbrev) {
	attrs := ab.Attrs()
	for i := range attrs {
		s := &attrs[i]
		if s.Attr == AttrSibling {
			if v := dw.Read(r, ab.formOf(s), er.u.form, ab.implicitOf(s)); v.Class == dw.ClassRef {
				e.sibling = er.u.Offset + v.U
			}
		} else if !skipFixed(r, dw.Form(s.form), &er.u.form) {
			dw.Read(r, ab.formOf(s), er.u.form, 0) // implicit_const is fixed (0 bytes)
		}
	}
}

// SkipChildren moves past the subtree of e, which must be the entry the
// last Next returned. It jumps to DW_AT_sibling when that points forward
// within the unit, and otherwise walks the children.
func (er *EntryReader) SkipChildren(e *Entry) error {
	if !e.Children || er.u == nil || er.err != nil {
		return er.err
	}
	if e.sibling > uint64(er.off) && e.sibling <= er.u.End {
		er.off = int(e.sibling)
		er.depth = e.Depth
		return er.err
	}
	var tmp Entry
	for er.depth > e.Depth {
		if _, err := er.next(&tmp, e.Depth, math.MaxInt, 0, nil); err != nil {
			if err == io.EOF {
				er.depth = e.Depth
				return nil
			}
			return err
		}
	}
	return nil
}

// fixedSize returns the encoded size of forms whose size depends only on
// the unit, or 0.
func fixedSize(f dw.Form, u *dw.Unit) uint64 {
	switch f {
	case dw.FormData1, dw.FormRef1, dw.FormFlag, dw.FormStrx1, dw.FormAddrx1:
		return 1
	case dw.FormData2, dw.FormRef2, dw.FormStrx2, dw.FormAddrx2:
		return 2
	case dw.FormStrx3, dw.FormAddrx3:
		return 3
	case dw.FormData4, dw.FormRef4, dw.FormStrx4, dw.FormAddrx4, dw.FormRefSup4:
		return 4
	case dw.FormData8, dw.FormRef8, dw.FormRefSig8, dw.FormRefSup8:
		return 8
	case dw.FormData16:
		return 16
	case dw.FormAddr:
		return uint64(u.AddrSize)
	case dw.FormStrp, dw.FormLineStrp, dw.FormSecOffset, dw.FormStrpSup, dw.FormGNURefAlt, dw.FormGNUStrpAlt:
		if u.Dwarf64 {
			return 8
		}
		return 4
	case dw.FormRefAddr:
		if u.Version <= 2 {
			return uint64(u.AddrSize)
		}
		if u.Dwarf64 {
			return 8
		}
		return 4
	}
	return 0
}

// skipFixed skips a value of fixed size and reports whether f was one; it
// saves building a dw.Value for the common forms while skipping DIEs.
func skipFixed(r *buf.Reader, f dw.Form, u *dw.Unit) bool {
	switch f {
	case dw.FormFlagPresent, dw.FormImplicitConst:
		return true
	}
	n := fixedSize(f, u)
	if n == 0 {
		return false
	}
	r.Skip(n)
	return true
}

// Field is one decoded attribute. Form is as declared in the abbreviation
// (DW_FORM_indirect stays indirect; Val holds the resolved value).
type Field struct {
	Attr Attr
	Form dw.Form
	Val  dw.Value
}

// AttrReader iterates an entry's attributes in declaration order without
// allocating.
type AttrReader struct {
	r     buf.Reader
	specs []AttrSpec
	ab    *Abbrev
	form  dw.Unit
	i     int
}

// Attrs returns an iterator over e's attributes.
func (u *Unit) Attrs(e *Entry) AttrReader {
	// Not infoReader: this runs once per DIE decoded, and that call is
	// not inlined.
	r := u.d.reader(secInfo, u.info)
	r.Seek(e.attrOff)
	r.SetLimit(u.End)
	var specs []AttrSpec
	if e.abbrev != nil {
		specs = e.abbrev.Attrs()
	}
	return AttrReader{r: r, specs: specs, ab: e.abbrev, form: u.form}
}

// Next decodes the next attribute into f, reporting false at the end or on
// error (see Err).
func (a *AttrReader) Next(f *Field) bool {
	if a.i >= len(a.specs) || a.r.Err() != nil {
		return false
	}
	s := a.specs[a.i]
	a.i++
	form, imp := dw.Form(s.form), int64(0)
	if form >= dw.FormImplicitConst && (form == dw.FormImplicitConst || s.form == formBig) {
		form, imp = a.ab.formOf(&s), a.ab.implicitOf(&s)
	}
	f.Attr, f.Form = s.Attr, form
	f.Val = dw.Read(&a.r, form, a.form, imp)
	return a.r.Err() == nil
}

// Peek returns the attribute that the next Next or Skip reads, and false
// at the end or after an error.
func (a *AttrReader) Peek() (Attr, bool) {
	if a.i >= len(a.specs) || a.r.Err() != nil {
		return 0, false
	}
	return a.specs[a.i].Attr, true
}

// Skip moves past the next attribute without building its value (one
// addition for the fixed-size forms), reporting false at the end or on
// error (see Err).
func (a *AttrReader) Skip() bool {
	if a.i >= len(a.specs) || a.r.Err() != nil {
		return false
	}
	s := &a.specs[a.i]
	a.i++
	if !skipFixed(&a.r, dw.Form(s.form), &a.form) {
		dw.Read(&a.r, a.ab.formOf(s), a.form, 0) // implicit_const is fixed (0 bytes)
	}
	return a.r.Err() == nil
}

// Err returns the first decoding error, or nil.
func (a *AttrReader) Err() error { return a.r.Err() }

// Attr returns the value of e's first attribute at, and whether it has one.
// Cost: decodes the attributes before it.
func (u *Unit) Attr(e *Entry, at Attr) (dw.Value, bool, error) {
	it := u.Attrs(e)
	var f Field
	for it.Next(&f) {
		if f.Attr == at {
			return f.Val, true, nil
		}
	}
	return dw.Value{}, false, it.Err()
}

// AppendAttrs appends all of e's attributes to dst; with enough capacity
// in dst it allocates nothing.
func (u *Unit) AppendAttrs(dst []Field, e *Entry) ([]Field, error) {
	it := u.Attrs(e)
	var f Field
	for it.Next(&f) {
		dst = append(dst, f)
	}
	return dst, it.Err()
}

// String resolves a string-class value: DW_FORM_string, strp, line_strp,
// strx* (through str_offsets_base), and GNU_strp_alt and strp_sup (in the
// supplementary file: see SetSup). The result aliases the section.
func (u *Unit) String(v dw.Value) ([]byte, error) {
	s := &u.d.s
	switch v.Class {
	case dw.ClassString:
		return v.B, nil
	case dw.ClassStrp:
		return cstr(s.Str, secStr, v.U)
	case dw.ClassLineStrp:
		return cstr(s.LineStr, secLineStr, v.U)
	case dw.ClassStrpAlt:
		return u.supString(v.U) // sup.go
	case dw.ClassStrx:
		os := u.offSize()
		off, ok := mulAdd(u.Root.StrOffsetsBase, v.U, os)
		if !ok || off > uint64(len(s.StrOffsets)) || uint64(len(s.StrOffsets))-off < os {
			return nil, buf.Errorf(pkg, secStrOffsets, u.Root.StrOffsetsBase, ErrFormat, "string index %d out of range", v.U)
		}
		r := u.d.reader(secStrOffsets, s.StrOffsets)
		r.Seek(off)
		return cstr(s.Str, secStr, r.Off(u.Dwarf64))
	}
	return nil, buf.Errorf(pkg, secInfo, u.Offset, ErrFormat, "value of class %d is not a string", v.Class)
}

// cstr returns the NUL-terminated string at off. It uses bytes.IndexByte
// rather than a byte loop: a hostile string section without NULs makes
// every lookup scan to its end.
func cstr(data []byte, sec string, off uint64) ([]byte, error) {
	if off < uint64(len(data)) {
		if i := bytes.IndexByte(data[off:], 0); i >= 0 {
			return data[off : off+uint64(i) : off+uint64(i)], nil
		}
	}
	return nil, buf.Errorf(pkg, sec, off, ErrTruncated, "no string at offset")
}

// mulAdd returns base + i*size and whether it did not overflow.
func mulAdd(base, i, size uint64) (uint64, bool) {
	if size != 0 && i > (^uint64(0)-base)/size {
		return 0, false
	}
	return base + i*size, true
}

// Addr resolves an address-class value: DW_FORM_addr, or addrx* through
// addr_base into .debug_addr.
func (u *Unit) Addr(v dw.Value) (uint64, error) {
	switch v.Class {
	case dw.ClassAddress:
		return v.U, nil
	case dw.ClassAddrx:
		return u.d.addrx(u.Root.AddrBase, v.U, u.AddrSize)
	}
	return 0, buf.Errorf(pkg, secInfo, u.Offset, ErrFormat, "value of class %d is not an address", v.Class)
}

func (d *Data) addrx(base, i uint64, size uint8) (uint64, error) {
	off, ok := mulAdd(base, i, uint64(size))
	if !ok || off > uint64(len(d.s.Addr)) || uint64(len(d.s.Addr))-off < uint64(size) {
		return 0, buf.Errorf(pkg, secAddr, base, ErrFormat, "address index %d out of range", i)
	}
	r := d.reader(secAddr, d.s.Addr)
	r.Seek(off)
	a := r.Uint(int(size))
	return a, r.Err()
}

// HighPC resolves DW_AT_high_pc: an address, or (constant class, DWARF 4+)
// an offset from low.
func (u *Unit) HighPC(low uint64, v dw.Value) (uint64, error) {
	if v.Class == dw.ClassConstant {
		return low + v.U, nil
	}
	return u.Addr(v)
}

// Ref resolves a reference to an absolute .debug_info offset: unit-relative
// forms add the unit's offset, DW_FORM_ref_addr is absolute already. Other
// classes (ref_sig8, supplementary files) report false.
func (u *Unit) Ref(v dw.Value) (uint64, bool) {
	switch v.Class {
	case dw.ClassRef:
		return u.Offset + v.U, true
	case dw.ClassRefAddr:
		return v.U, true
	}
	return 0, false
}
