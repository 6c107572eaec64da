package inline

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// builder holds the state of one Build. Builders are pooled: everything
// but the Index they produce is scratch that the next Build reuses, so a
// Build allocates little beyond what its Index keeps.
type builder struct {
	d       *dwinfo.Data
	u       *dwinfo.Unit
	opts    Options
	m       omap
	nodes   []node
	nodeRec []int32 // rec of each node's DIE (recs index)
	// bigUnit is set for a unit of 2 GiB or more, whose DIE offsets do
	// not fit a node's dieLow: dies holds them, by node.
	bigUnit bool
	dies    []uint64
	err     error // first non-fatal problem

	// starts marks the DIE offsets the walk met (bit off-base), so that a
	// reference is followed only to a real DIE, as LLVM's getDIEForOffset
	// requires. A DIE's ordinal in the unit is the number of bits set
	// before its own: rank holds that count at the start of each word.
	// base is u.DIEOffset, or for the inline tree of one function
	// (lazy.go) the function's DIE.
	base   uint64
	starts []uint64
	rank   []uint32
	// dieRec is, by DIE ordinal in u, 1 + the index in recs of the DIE's
	// rec, or 0 if it was not read yet: the references within the unit,
	// nearly all of them, find their rec without hashing.
	dieRec []int32

	own    fileTable
	others map[uint64]*unitInfo // by unit offset
	recIdx map[uint64]int32     // DIEs of other units by offset: index into recs, or -1 (no DIE there)
	recs   []rec
	sup    supState // the supplementary file's units and DIEs (sup.go)
	// inlineStrs holds the DW_FORM_string values of recs, each after its
	// length as a uvarint.
	inlineStrs []byte
	strs       *strTable // interned strings

	// skipped lists, in section order, the subtrees the walk jumped over:
	// a reference into one is checked by decoding the DIE it names.
	skipped []skipped

	// describe's worklist and visited set, kept for reuse.
	work, seen []int32
	// walkFrom's stack and ranges, kept for reuse.
	stack []pending
	rgs   []dwinfo.Range

	// shared is set while the builder expands one function of a lazy
	// Index: strs and others are then the Index's, kept across
	// expansions, and release must not keep them.
	shared bool
	// lz is, while shared, the lazy Index whose cache of the recs
	// decoded where a reference led outside the trees read (lazy.go)
	// lookupRec consults.
	lz *lazyIndex
	// The builder's own strs and others while shared.
	ownStrs   *strTable
	ownOthers map[uint64]*unitInfo
	// quiet drops the problems noted while set (lazy.go: the function's
	// own ranges, which the unit's scan reported already).
	quiet bool
	// inner collects, while expanding a function, the ranges of the DIEs
	// below it, checked against its own (lazy.go).
	inner      []dwinfo.Range
	rootRanges []dwinfo.Range
	// loc caches locates by abbreviation code during a scan (lazy.go):
	// 0 unknown, 1 true, 2 false.
	loc []int8
	// end is the end of the DIEs being built, from base.
	end uint64
	// described marks, after resolveLazy, the nodes it described, one
	// bit each.
	described []uint64
	// naming is set while the builder describes nodes of a tree already
	// read (lazyIndex.name), with no DIE of the tree marked: a reference
	// into the tree then sets needWalk instead of being followed.
	naming, needWalk bool
}

// bigUnitMin is the size from which a unit's nodes keep their DIE offsets
// in chains.dies (a variable for tests).
var bigUnitMin uint64 = 1 << 31

var builderPool = sync.Pool{New: func() any {
	return &builder{recIdx: make(map[uint64]int32), strs: newStrTable()}
}}

// maxPooledRecs bounds the scratch a pooled builder keeps: one giant unit
// should not pin its scratch for the rest of the process.
const maxPooledRecs = 1 << 20

// fileTable is the resolved file paths of one unit's line table.
type fileTable struct {
	lt     *linetable.Table
	dir    string
	paths  []string
	ok     []bool
	shared *Strings // Options.Strings, which holds the paths when set
}

// path resolves file index i, building the table on first use.
func (ft *fileTable) path(i uint64) string {
	if ft.lt == nil {
		return ""
	}
	if ft.paths == nil {
		// FilePaths, not Header: a table with linetable.Options.LazyFiles
		// then keeps its file entries undecoded, and the unit's paths
		// are all that is kept of them.
		ft.paths, ft.ok = []string{}, []bool{}
		for p, ok := range ft.lt.FilePaths(ft.dir) {
			if ft.shared != nil {
				p = ft.shared.string(p)
			}
			ft.paths, ft.ok = append(ft.paths, p), append(ft.ok, ok)
		}
		ft.paths, ft.ok = slices.Clone(ft.paths), slices.Clone(ft.ok) // to size
	}
	if i >= uint64(len(ft.paths)) {
		return ""
	}
	return ft.paths[i]
}

// unitInfo is another unit that a reference led to.
type unitInfo struct {
	u     *dwinfo.Unit
	files fileTable
	done  bool // files.lt was asked for
}

// rec is what name lookups need of one DIE, decoded once per Build: the
// first occurrence of each attribute counts, as in LLVM's DWARFDie::find.
// References are resolved to offsets when the DIE is read; strings only
// when a node uses them, since finding a .debug_str string's end costs a
// scan of it (C++ linkage names are long) and most DIEs read never name a
// frame.
type rec struct {
	ui           *unitInfo // nil for the unit being built
	link, name   uint64    // string values (see str), valid under recLink, recName
	origin, spec uint64    // absolute DIE offsets, valid under recOrigin, recSpec
	file         uint32    // DW_AT_decl_file (clamped: no line table has 2^32 files), valid under recFileOK
	line         uint32    // DW_AT_decl_line as LLVM's toUnsigned reads it, else 0
	linkStr      int32     // interned link: strUnresolved, strBad or an index
	nameStr      int32
	// The recs that origin and spec lead to (lookupRec), once looked up;
	// refUnresolved before. Many nodes share one abstract origin.
	originRec, specRec int32
	linkClass          dw.Class // class of the link and name values
	nameClass          dw.Class
	flags              recFlags
}

// Values of rec.linkStr and rec.nameStr besides string indexes.
const (
	strUnresolved = -1
	strBad        = -2 // the value names no string
)

// refUnresolved marks rec.originRec and rec.specRec not looked up yet
// (lookupRec answers -1 for no DIE).
const refUnresolved = math.MinInt32

// recFlags says which attributes a rec holds. "Has" flags decide which DIE
// of a reference chain answers for an attribute; "OK" flags whether its
// value then resolved.
type recFlags uint16

const (
	recLink      recFlags = 1 << iota // has DW_AT_linkage_name or DW_AT_MIPS_linkage_name
	recName                           // has DW_AT_name
	recLine                           // has DW_AT_decl_line
	recFile                           // has DW_AT_decl_file
	recFileOK                         // and it is an unsigned constant LLVM 14 names a file for
	recOrigin                         // DW_AT_abstract_origin names an offset
	recSpec                           // DW_AT_specification names an offset
	recOriginSup                      // and that offset is in the supplementary file (sup.go)
	recSpecSup
)

// recReader collects a rec from a DIE's attributes, one at a time, so that
// the walk can fill the rec of a subroutine DIE while it decodes the DIE's
// other attributes.
type recReader struct {
	b    *builder
	seen [6]bool
}

// add records f into r if it is one of the name attributes and the first
// of its kind.
func (rr *recReader) add(u *dwinfo.Unit, r *rec, f *dwinfo.Field) {
	var k int
	switch f.Attr {
	case dwinfo.AttrLinkageName, dwinfo.AttrMIPSLinkageName:
		k = 0
	case dwinfo.AttrName:
		k = 1
	case dwinfo.AttrDeclLine:
		k = 2
	case dwinfo.AttrDeclFile:
		k = 3
	case dwinfo.AttrAbstractOrigin:
		k = 4
	case dwinfo.AttrSpecification:
		k = 5
	default:
		return
	}
	if rr.seen[k] {
		return
	}
	rr.seen[k] = true
	switch k {
	case 0:
		if f.Val.Class != 0 {
			r.link, r.linkClass, r.flags = rr.b.strVal(f.Val), f.Val.Class, r.flags|recLink
		}
	case 1:
		if f.Val.Class != 0 {
			r.name, r.nameClass, r.flags = rr.b.strVal(f.Val), f.Val.Class, r.flags|recName
		}
	case 2:
		r.flags |= recLine
		if v, ok := unsigned(*f); ok {
			r.line = uint32(v)
		}
	case 3:
		r.flags |= recFile
		// llvm-symbolizer-14 names no file for a DW_AT_decl_file of form
		// DW_FORM_implicit_const, which gcc 11+ uses when every DIE of an
		// abbreviation shares the file (measured on the gcc fixtures; the
		// same form works for DW_AT_call_file).
		if v, ok := unsigned(*f); ok && f.Form != dw.FormImplicitConst {
			r.file, r.flags = uint32(min(v, math.MaxUint32)), r.flags|recFileOK
		}
	case 4, 5:
		// LLVM treats DW_FORM_ref_sig8 as a section offset that rarely
		// names anything; it names nothing here. References into a
		// supplementary file name its DIEs, as GNU addr2line reads them
		// (sup.go).
		if f.Val.Class == 0 {
			return
		}
		off, sup, ok := rr.b.refOf(u, f.Val)
		if !ok {
			return
		}
		if k == 4 {
			r.origin, r.flags = off, r.flags|recOrigin
			if sup {
				r.flags |= recOriginSup
			}
		} else {
			r.spec, r.flags = off, r.flags|recSpec
			if sup {
				r.flags |= recSpecSup
			}
		}
	}
}

// strVal returns what a rec keeps of a string value: U, or for
// DW_FORM_string (whose bytes are at hand, short, and alias .debug_info)
// the offset of a copy in b.inlineStrs, so that recs hold no slices.
func (b *builder) strVal(v dw.Value) uint64 {
	if v.Class != dw.ClassString {
		return v.U
	}
	off := uint64(len(b.inlineStrs))
	b.inlineStrs = binary.AppendUvarint(b.inlineStrs, uint64(len(v.B)))
	b.inlineStrs = append(b.inlineStrs, v.B...)
	return off
}

// newBuilder takes a builder from the pool and readies it for the DIEs of
// u (see newBuilderAt).
func newBuilder(d *dwinfo.Data, u *dwinfo.Unit, lt *linetable.Table, opts *Options) *builder {
	return newBuilderAt(d, u, lt, opts, u.DIEOffset, u.End, nil)
}

// newBuilderAt takes a builder from the pool and readies it for the DIEs
// of u in [base, end). With a non-nil lz, the builder interns into and
// loads other units through lz (a lazy Index's expansion, which holds
// lz.mu).
func newBuilderAt(d *dwinfo.Data, u *dwinfo.Unit, lt *linetable.Table, opts *Options, base, end uint64, lz *lazyIndex) *builder {
	b := builderPool.Get().(*builder)
	if lz != nil {
		b.shared = true
		b.ownStrs, b.ownOthers = b.strs, b.others
		b.strs, b.others = lz.strs, lz.others
		b.lz = lz
	}
	b.base, b.end = base, end
	b.d, b.u = d, u
	b.bigUnit = u.End-u.Offset >= bigUnitMin
	if opts != nil {
		b.opts = *opts
	}
	if b.opts.MaxRefs <= 0 {
		b.opts.MaxRefs = DefaultMaxRefs
	}
	b.own = fileTable{lt: lt, dir: string(u.Root.CompDir), shared: b.opts.Strings}
	if lz == nil {
		b.strs.shared = b.opts.Strings // a lazy Index's table has its own already
	}
	if b.opts.Skeleton != nil {
		b.own.dir = string(b.opts.Skeleton.Root.CompDir)
	}
	if end > base {
		n := int((end - base + 63) / 64)
		if cap(b.starts) < n {
			b.starts = make([]uint64, n)
			b.rank = make([]uint32, n)
		} else {
			b.starts = b.starts[:n]
			clear(b.starts)
		}
	}
	return b
}

// release returns b to the pool, dropping every reference to the Build's
// inputs and outputs so that the pool pins no section data or Index.
func (b *builder) release() {
	if b.shared {
		b.shared = false
		b.strs, b.others = b.ownStrs, b.ownOthers
		b.ownStrs, b.ownOthers = nil, nil
		b.lz = nil
	}
	b.strs.shared = nil
	b.quiet, b.inner, b.rootRanges = false, b.inner[:0], b.rootRanges[:0]
	b.described, b.naming, b.needWalk = b.described[:0], false, false
	clear(b.loc)
	b.loc = b.loc[:0]
	if len(b.recs) > maxPooledRecs || len(b.nodes) > maxPooledRecs {
		return
	}
	b.d, b.u, b.opts, b.err, b.own = nil, nil, Options{}, nil, fileTable{}
	b.m.reset()
	b.nodes, b.nodeRec, b.dies = b.nodes[:0], b.nodeRec[:0], b.dies[:0]
	b.starts, b.dieRec = b.starts[:0], b.dieRec[:0]
	clear(b.others)
	clear(b.recIdx)
	b.sup.reset()
	clear(b.recs)
	b.recs, b.inlineStrs = b.recs[:0], b.inlineStrs[:0]
	b.strs.reset()
	b.work, b.seen = b.work[:0], b.seen[:0]
	b.skipped = b.skipped[:0]
	builderPool.Put(b)
}

// note records the first non-fatal problem.
func (b *builder) note(err error) {
	if b.err == nil && !b.quiet {
		b.err = err
	}
}

// markDIE notes the DIE at off, the next in section order, and returns
// its ordinal, or -1 if off lies outside the unit's DIEs.
func (b *builder) markDIE(off uint64) int32 {
	if i := off - b.base; off >= b.base && i/64 < uint64(len(b.starts)) && len(b.dieRec) < math.MaxInt32 {
		b.starts[i/64] |= 1 << (i % 64)
		b.dieRec = append(b.dieRec, 0)
		return int32(len(b.dieRec) - 1)
	}
	return -1
}

// rankDIEs readies ordinal for use, once the walk has marked every DIE.
func (b *builder) rankDIEs() {
	b.rank = b.rank[:len(b.starts)]
	n := uint32(0)
	for i, w := range b.starts {
		b.rank[i] = n
		n += uint32(bits.OnesCount64(w))
	}
}

// ordinal returns the ordinal of the DIE of u at off, or -1 if no DIE
// starts there.
func (b *builder) ordinal(off uint64) int32 {
	i := off - b.base
	if off < b.base || i/64 >= uint64(len(b.starts)) {
		return -1
	}
	w, bit := b.starts[i/64], uint64(1)<<(i%64)
	if w&bit == 0 {
		return -1
	}
	return int32(b.rank[i/64] + uint32(bits.OnesCount64(w&(bit-1))))
}

// intern returns the index of s in the Build's string table, adding it
// once: equal names share one string and nodes hold 4-byte indexes.
func (b *builder) intern(s []byte) uint32 { return b.strs.bytes(s) }

// internString is intern for a string.
func (b *builder) internString(s string) uint32 { return b.strs.string(s) }

// resolve fills in the names and start data of every node.
func (b *builder) resolve() error {
	b.rankDIEs()
	b.own.path(0) // build the path table, which the Index keeps
	for i := range b.nodes {
		b.describe(&b.nodes[i], b.nodeRec[i])
	}
	return b.err
}

// resolveLazy is resolve for the tree of one function of a lazy Index
// (lazy.go). Most of a tree's nodes are never in an answer, and most take
// their names from DIEs outside the tree (abstract origins and
// declarations), which need nothing of the walk: those nodes are left to
// be described when a lookup first returns them, from their DIEs. A node
// whose DIE refers into the tree itself is described now, while the
// walk's marks say which offsets there start DIEs. b.described marks the
// nodes described.
func (b *builder) resolveLazy() error {
	b.rankDIEs()
	b.own.path(0) // build the path table, which the Index keeps
	b.described = slices.Grow(b.described[:0], (len(b.nodes)+63)/64)[:(len(b.nodes)+63)/64]
	clear(b.described)
	for i := range b.nodes {
		self := b.nodeRec[i]
		if self >= 0 {
			r := &b.recs[self]
			if !b.inTree(r.flags&recOrigin != 0 && r.flags&recOriginSup == 0, r.origin) &&
				!b.inTree(r.flags&recSpec != 0 && r.flags&recSpecSup == 0, r.spec) {
				continue
			}
		}
		b.describe(&b.nodes[i], self)
		b.described[i/64] |= 1 << (i % 64)
	}
	return b.err
}

// inTree reports whether has holds and off lies in the DIEs being built.
func (b *builder) inTree(has bool, off uint64) bool {
	return has && off >= b.base && off < b.end
}

// lookupRec returns the index in b.recs of the DIE at absolute offset off,
// or -1 if no DIE starts there. Within the unit being built, the offsets
// seen by the walk decide; in another unit, the entry decoded at off must
// start there (an offset inside a DIE is not detected: LLVM would ignore
// it).
func (b *builder) lookupRec(off uint64) int32 {
	inUnit := off >= b.u.Offset && off < b.u.End
	if inUnit {
		if ord := b.ordinal(off); ord >= 0 {
			if i := b.dieRec[ord]; i != 0 {
				return i - 1
			}
			r, ok := b.readRec(b.u, off)
			if !ok { // cannot happen: the walk decoded this DIE
				return -1
			}
			return b.addRec(ord, &r)
		}
		if !b.inSkipped(off) {
			// In the tree being built, and no DIE the walk met.
			b.needWalk = b.needWalk || b.naming
			return -1
		}
		// Not marked by the walk, which jumped over it: decoded like a
		// DIE of another unit, once.
	}
	if i, ok := b.recIdx[off]; ok {
		return i
	}
	if b.lz != nil {
		if j, ok := b.lz.recIdx[off]; ok {
			// Decoded by an earlier tree of a lazy Index (lazy.go), its
			// strings interned in the same table.
			i := int32(-1)
			if j >= 0 {
				i = int32(len(b.recs))
				b.recs = append(b.recs, b.lz.rec(j).rec())
			}
			b.recIdx[off] = i
			return i
		}
	}
	i := int32(-1)
	var ui *unitInfo // nil for the unit being built
	if !inUnit {
		ui = b.other(off)
	}
	if inUnit || ui != nil {
		u := b.u
		if ui != nil {
			u = ui.u
		}
		if r, ok := b.readRec(u, off); ok {
			r.ui = ui
			i = b.addRec(-1, &r)
		}
	}
	b.recIdx[off] = i
	return i
}

// inSkipped reports whether off lies in a subtree the walk jumped over.
func (b *builder) inSkipped(off uint64) bool {
	_, found := slices.BinarySearchFunc(b.skipped, off, func(s skipped, off uint64) int {
		switch {
		case s.hi <= off:
			return -1
		case s.lo > off:
			return 1
		}
		return 0
	})
	return found
}

// addRec stores r, the rec of the DIE of ordinal ord in u (-1: a DIE of
// another unit), and returns its index.
func (b *builder) addRec(ord int32, r *rec) int32 {
	i := int32(len(b.recs))
	r.linkStr, r.nameStr = strUnresolved, strUnresolved
	r.originRec, r.specRec = refUnresolved, refUnresolved
	b.recs = append(b.recs, *r)
	if ord >= 0 {
		b.dieRec[ord] = i + 1
	}
	return i
}

// other returns the unit holding .debug_info offset off, loading it once.
func (b *builder) other(off uint64) *unitInfo {
	h, ok, _ := b.d.UnitContaining(off)
	if !ok {
		return nil
	}
	if b.others == nil {
		b.others = make(map[uint64]*unitInfo)
	}
	if ui, ok := b.others[h.Offset]; ok {
		return ui
	}
	var ui *unitInfo
	if u, err := b.d.LoadUnit(h); err == nil {
		ui = &unitInfo{u: u, files: fileTable{dir: string(u.Root.CompDir), shared: b.opts.Strings}}
	} else {
		b.note(err)
	}
	b.others[h.Offset] = ui
	return ui
}

// readRec decodes the rec of the DIE of u at off, reporting false if no
// DIE decodes there.
func (b *builder) readRec(u *dwinfo.Unit, off uint64) (rec, bool) {
	var e dwinfo.Entry
	if u.EntryAt(off, &e) != nil {
		return rec{}, false
	}
	var r rec
	rr := recReader{b: b}
	it := u.Attrs(&e)
	var f dwinfo.Field
	for nextWanted(&it, &f) {
		rr.add(u, &r, &f)
	}
	// A DIE whose attributes do not decode is no DIE (the entry reader
	// would have stopped there).
	return r, it.Err() == nil
}

// describe resolves node n from the rec of its DIE, self: LLVM's
// getSubroutineName for both name kinds, getDeclLine and getDeclFile, all
// four through findRecursively.
func (b *builder) describe(n *node, self int32) {
	if self < 0 {
		return
	}
	// findRecursively: a depth-first worklist over abstract_origin and
	// specification references, each DIE visited once; the first DIE
	// holding an attribute answers for it (even if its value then proves
	// useless). The walk order does not depend on the attribute, so one
	// walk serves all four.
	link, name, line, file := int32(-1), int32(-1), int32(-1), int32(-1)
	// Chains are short, so the visited set is a slice: MaxRefs bounds it.
	work := append(b.work[:0], self)
	seen := append(b.seen[:0], self)
	for visits := 0; len(work) > 0 && visits < b.opts.MaxRefs; visits++ {
		ri := work[len(work)-1]
		work = work[:len(work)-1]
		r := &b.recs[ri]
		if link < 0 && r.flags&recLink != 0 {
			link = ri
		}
		if name < 0 && r.flags&recName != 0 {
			name = ri
		}
		if line < 0 && r.flags&recLine != 0 {
			line = ri
		}
		if file < 0 && r.flags&recFile != 0 {
			file = ri
		}
		if link >= 0 && name >= 0 && line >= 0 && file >= 0 {
			break
		}
		if r.flags&recOrigin != 0 {
			t := r.originRec
			if t == refUnresolved {
				t = b.lookupTarget(r.origin, r.flags&recOriginSup != 0)
				b.recs[ri].originRec = t // lookupRec may have grown b.recs
			}
			if t >= 0 && !slices.Contains(seen, t) {
				seen = append(seen, t)
				work = append(work, t)
			}
		}
		if r := &b.recs[ri]; r.flags&recSpec != 0 {
			t := r.specRec
			if t == refUnresolved {
				t = b.lookupTarget(r.spec, r.flags&recSpecSup != 0)
				b.recs[ri].specRec = t
			}
			if t >= 0 && !slices.Contains(seen, t) {
				seen = append(seen, t)
				work = append(work, t)
			}
		}
	}
	b.work, b.seen = work, seen
	if name >= 0 {
		r := &b.recs[name]
		if s := b.str(r, r.nameClass, r.name, &r.nameStr); s >= 0 {
			n.short = uint32(s)
		}
	}
	n.name = n.short
	if link >= 0 {
		// A linkage name that does not resolve to a string falls back to
		// DW_AT_name, as LLVM's getName does.
		r := &b.recs[link]
		if s := b.str(r, r.linkClass, r.link, &r.linkStr); s >= 0 {
			n.name = uint32(s)
		}
	}
	if line >= 0 {
		n.startLine = b.recs[line].line
	}
	if file >= 0 {
		if r := &b.recs[file]; r.flags&recFileOK != 0 {
			ft := &b.own
			if ui := r.ui; ui != nil {
				if !ui.done {
					ui.done = true
					if b.opts.LineTable != nil {
						ui.files.lt = b.opts.LineTable(ui.u)
					}
				}
				ft = &ui.files
			}
			// Resolved in the line table of the unit holding the
			// attribute (LLVM's DWARFFormValue::getAsFile).
			n.startFile = b.internString(ft.path(uint64(r.file)))
		}
	}
}

// str resolves and interns a string value of r (see strVal) once,
// caching the result in *cache; it returns strBad if the value names no
// string.
func (b *builder) str(r *rec, class dw.Class, v uint64, cache *int32) int32 {
	if *cache != strUnresolved {
		return *cache
	}
	*cache = strBad
	if class == dw.ClassString {
		n, k := binary.Uvarint(b.inlineStrs[v:]) // written by strVal
		*cache = int32(b.intern(b.inlineStrs[v+uint64(k):][:n]))
		return *cache
	}
	u := b.u
	if r.ui != nil {
		u = r.ui.u
	}
	if s, err := u.String(dw.Value{Class: class, U: v}); err == nil {
		*cache = int32(b.intern(s))
	}
	return *cache
}
