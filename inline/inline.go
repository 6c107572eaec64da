package inline

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/sorted"
	"github.com/symbolize-go/symbolize/linetable"
)

// DecodeError says which section and offset held bad input; it is the same
// type in every package of this module.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

// attrGNUDiscriminator is DW_AT_GNU_discriminator, which gcc puts on
// DW_TAG_inlined_subroutine; LLVM reports it as the caller frame's
// discriminator.
const attrGNUDiscriminator dwinfo.Attr = 0x2136

// DefaultLazyMinSize is Options.LazyMinSize when 0: below 256 KiB of DIEs
// (most of a Go program's units, and C files) the scan for function ranges
// costs about as much as reading the unit whole, which a program that
// looks up many addresses then does all the same (cmd/go, the first
// 50,000 of bench/run.sh's 200,000 addresses: 1.625 G instructions with
// every unit lazy, 1.279 G with this bound; see bench/RESULTS.md), and the
// whole unit's index is small.
const DefaultLazyMinSize = 256 << 10

// DefaultMaxRefs is the number of DIEs a name lookup may visit through
// DW_AT_abstract_origin and DW_AT_specification when Options.MaxRefs is 0.
// Real chains visit two or three.
const DefaultMaxRefs = 64

// Options tunes Build. The zero value is ready to use.
type Options struct {
	// LineTable returns the line table of another unit, used to name the
	// DW_AT_decl_file of an abstract origin that lives in that unit (gcc
	// LTO puts them in a unit of their own; dwz in partial units, of the
	// file or of its supplementary file, whose Unit.Data tells which: see
	// sup.go). nil, or a nil result, leaves such StartFile names empty.
	LineTable func(u *dwinfo.Unit) *linetable.Table
	// MaxRefs bounds the DIEs one name lookup visits; 0 means
	// DefaultMaxRefs.
	MaxRefs int
	// Lazy makes Build read only the address ranges of the unit's
	// functions (its subprograms, and inlined subroutines outside any),
	// and a function's inline tree and names on the first lookup that
	// lands in it; nothing is kept of functions never looked up. The
	// answers are Build's without it (see lazy.go for the one kind of
	// input where they may not be). A unit with fewer than LazyMinSize
	// bytes of DIEs is read whole all the same.
	Lazy bool
	// LazyMinSize is the size of a unit's DIEs from which Lazy reads it
	// lazily; 0 means DefaultLazyMinSize.
	LazyMinSize uint64
	// Warn receives, with Lazy, the first problem met in each function
	// tree read after Build returned (nil: dropped).
	Warn func(error)
	// Skeleton is the skeleton unit of u when u is a split unit (split
	// DWARF): lt is then the skeleton's line table, and its relative
	// paths resolve against the skeleton's DW_AT_comp_dir, as LLVM
	// resolves every file of a split unit through its skeleton
	// (DWARFUnit::getLinkedUnit); a split unit's own DW_AT_comp_dir,
	// which clang leaves out, is not read.
	Skeleton *dwinfo.Unit
	// Strings, when not nil, holds the names and paths the Index hands
	// out, in one copy for every Index given the same Strings (those of
	// one program's units), instead of a copy in each.
	Strings *Strings
	// Lines, when not nil, gives the unit's own line table in place of
	// Build's lt argument, which is then ignored. Build calls it once, as
	// late as it can (with Lazy, after reading the ranges of the unit's
	// functions), so that the caller can build the table on another
	// goroutine while Build reads the DIEs.
	Lines func() *linetable.Table
	// Passed, when not nil, is called as the scan of a lazily read unit
	// (Lazy) goes, each time it has passed another 2 MiB of the unit's
	// DIEs, with the bytes it passed since the last call. The
	// scan does not read them again; a lookup reads those of a function
	// again when it first lands in it. A caller whose .debug_info is a
	// mapped file can so take their pages out of the resident set while
	// the scan goes on, instead of holding a whole large unit at once.
	Passed func(dies []byte)
}

// passedStep is how many bytes of DIEs the scan passes between two calls
// of Options.Passed (a variable for the tests).
var passedStep uint64 = 2 << 20

// Frame is one frame of an inline chain, described as llvm-symbolizer
// describes it (DILineInfo). Strings are shared between lookups; a Frame
// holds no other reference into the Index.
type Frame struct {
	// Name is the linkage name (DW_AT_linkage_name or
	// DW_AT_MIPS_linkage_name) found through abstract_origin and
	// specification references, else DW_AT_name; "" if neither.
	Name string
	// ShortName is DW_AT_name found the same way (LLVM's
	// FunctionNameKind::ShortName).
	ShortName string
	// File, Line, Column and Discriminator locate the PC for the innermost
	// frame (from the line table) and the call site for outer frames.
	// File is "" when the file index does not resolve.
	File          string
	Line          uint32
	Column        uint32
	Discriminator uint32
	// StartFile and StartLine are the function's DW_AT_decl_file and
	// DW_AT_decl_line, found through references like Name. StartFile is
	// "" when LLVM 14 names no file (see the package doc).
	StartFile string
	StartLine uint32
	// StartAddress is the DIE's DW_AT_low_pc, when it has one.
	StartAddress    uint64
	HasStartAddress bool
}

// node is one kept subroutine DIE, with everything a frame needs resolved,
// in 48 bytes: a template-heavy C++ program keeps hundreds of thousands.
type node struct {
	low       uint64
	parent    int32  // enclosing inlined subroutine or subprogram; -1 ends the chain
	name      uint32 // indexes into Index.strs
	short     uint32
	startFile uint32
	startLine uint32
	// Call site, describing the frame outside this one.
	callFile, callLine, callCol, callDisc uint32
	// dieLow is the DIE's offset from its unit's, shifted left once,
	// with bit 0 set when low is its DW_AT_low_pc (see chains.die; a
	// unit of 2 GiB or more keeps the offsets in chains.dies instead).
	dieLow uint32
}

// hasLow reports whether low is the DIE's DW_AT_low_pc.
func (nd *node) hasLow() bool { return nd.dieLow&1 != 0 }

// snode is a node as chains keep it when every field fits, in 36 bytes:
// low as an offset from chains.lowBase, the parent plus one, and the call
// site's file, column and discriminator in 16 bits each.
type snode struct {
	low                              uint32
	name, short, startFile           uint32
	startLine, callLine, dieLow      uint32
	parent1, callFile, callCol, disc uint16
}

// compactNodes is whether chains keep snodes where the nodes fit (a
// variable for tests).
var compactNodes = true

// setNodes stores nodes in c: as snodes if every one fits, else as a copy.
func (c *chains) setNodes(nodes []node) {
	if compactNodes && len(nodes) < 1<<16-1 {
		base := ^uint64(0)
		for i := range nodes {
			base = min(base, nodes[i].low)
		}
		fits := true
		for i := range nodes {
			nd := &nodes[i]
			if nd.low-base > 1<<32-1 || nd.callFile > 1<<16-1 || nd.callCol > 1<<16-1 || nd.callDisc > 1<<16-1 {
				fits = false
				break
			}
		}
		if fits {
			s := make([]snode, len(nodes))
			for i := range nodes {
				nd := &nodes[i]
				s[i] = snode{low: uint32(nd.low - base), name: nd.name, short: nd.short, startFile: nd.startFile,
					startLine: nd.startLine, callLine: nd.callLine, dieLow: nd.dieLow,
					parent1: uint16(nd.parent + 1), callFile: uint16(nd.callFile), callCol: uint16(nd.callCol), disc: uint16(nd.callDisc)}
			}
			c.lowBase, c.small = base, s
			return
		}
	}
	c.nodes = slices.Clone(nodes)
}

// nodeAt returns node n (of a lazy tree: once described).
func (c *chains) nodeAt(n int32) node {
	if c.lean != nil {
		return *c.det.at(c.lean[n].slot.Load())
	}
	if c.small == nil {
		return c.nodes[n]
	}
	s := &c.small[n]
	return node{low: c.lowBase + uint64(s.low), parent: int32(s.parent1) - 1,
		name: s.name, short: s.short, startFile: s.startFile, startLine: s.startLine,
		callFile: uint32(s.callFile), callLine: s.callLine, callCol: uint32(s.callCol), callDisc: uint32(s.disc),
		dieLow: s.dieLow}
}

// nodeCount returns the number of nodes in c.
func (c *chains) nodeCount() int { return len(c.nodes) + len(c.small) + len(c.lean) }

// Index answers inline chains for the PCs of one unit. Build it with
// Build; it is safe for concurrent use (a lazy Index reads a function's
// tree under a lock, once).
type Index struct {
	lt     *linetable.Table
	files  []string // unit line table paths by file index
	fileOK []bool
	// The whole unit's address map, unless lz is set.
	chains
	lz *lazyIndex // with Options.Lazy (lazy.go)
}

// chains is an address map and the nodes it answers with: a whole unit's,
// or one function's (lazy.go).
type chains struct {
	// The address map's spans [lo[i], hi[i]) of node[i], sorted by lo, in
	// three arrays (20 bytes a span) so the search reads only starts.
	lo    []uint64
	hi    []uint64
	node  []int32
	nodes []node
	// small is the nodes instead, nodes nil, when they fit (setNodes).
	lowBase uint64
	small   []snode
	// The spans are held as offsets from base in lo32 and hi32 instead
	// (12 bytes a span), lo and hi then nil, unless an offset would not
	// fit (omap.columns32).
	base       uint64
	lo32, hi32 []uint32
	// strs is the interned names and paths (strs[0] is ""), or, with
	// shared set (a lazy Index's trees), the strings are shared's.
	strs   []string
	shared *strTable
	// unit is the .debug_info offset of the nodes' unit, which dieLow
	// counts from; dies is, for a unit of 2 GiB or more, each node's DIE
	// offset (nil otherwise).
	unit uint64
	dies []uint64
	// For a tree of a lazy Index, lean holds the nodes instead (nodes
	// and small nil), each described once an answer holds it (see
	// resolveLazy) into the Index's details; root is the tree's root.
	lean []leanNode
	det  *details
	root int32
}

// leanNode is a node of a lazy Index's tree: its parent and DIE (dieLow
// as in node), and slot, 1 + the index in details of the whole node once
// it is described, 0 before. The slot is stored after the node it names,
// so a reader that loads a slot finds the node complete.
type leanNode struct {
	parent int32
	dieLow uint32
	slot   atomic.Uint32
}

// details holds the described nodes of a lazy Index's trees, in chunks
// that never move, of 16, 32, 64... nodes (most units of a large binary
// have few nodes answered); it grows under the Index's lock, and readers
// index it without one through the published chunk list.
type details struct {
	pub atomic.Pointer[[][]node]
	n   uint32
}

// detailChunk locates node i of details: chunk k, index j in it.
func detailChunk(i uint32) (k int, j uint32) {
	k = bits.Len32(i/16+1) - 1
	return k, i - 16*(1<<k-1)
}

// add stores nd and returns its slot (1 + its index).
func (d *details) add(nd *node) uint32 {
	var list [][]node
	if p := d.pub.Load(); p != nil {
		list = *p
	}
	k, j := detailChunk(d.n)
	if k == len(list) {
		list = append(slices.Clip(list), make([]node, 16<<k))
		d.pub.Store(&list)
	}
	list[k][j] = *nd
	d.n++
	return d.n
}

// at returns the node of slot s (not 0).
func (d *details) at(s uint32) *node {
	k, j := detailChunk(s - 1)
	return &(*d.pub.Load())[k][j]
}

// isPending reports whether node n of a lazy tree waits to be described.
func (c *chains) isPending(n int32) bool {
	return c.lean != nil && c.lean[n].slot.Load() == 0
}

// parentOf returns node n's parent, which is known before the node is
// described.
func (c *chains) parentOf(n int32) int32 {
	switch {
	case c.lean != nil:
		return c.lean[n].parent
	case c.small == nil:
		return c.nodes[n].parent
	}
	return int32(c.small[n].parent1) - 1
}

// describe stores nd as node n of a lazy tree, described (before c is
// published: see lazyIndex.name for a tree already read).
func (c *chains) describe(n int32, nd *node) {
	c.lean[n].slot.Store(c.det.add(nd))
}

// strList returns the strings the nodes index.
func (c *chains) strList() []string {
	if c.shared != nil {
		return c.shared.published()
	}
	return c.strs
}

// die returns the .debug_info offset of node n's DIE.
func (c *chains) die(n int32) uint64 {
	if c.dies != nil {
		return c.dies[n]
	}
	if c.lean != nil {
		return c.unit + uint64(c.lean[n].dieLow>>1)
	}
	if c.small != nil {
		return c.unit + uint64(c.small[n].dieLow>>1)
	}
	return c.unit + uint64(c.nodes[n].dieLow>>1)
}

// Lazy reports whether ix reads its functions' inline trees on first use
// (Options.Lazy, for a unit of at least Options.LazyMinSize bytes of
// DIEs) rather than having read the unit whole.
func (ix *Index) Lazy() bool { return ix.lz != nil }

// Len returns the number of kept subroutine DIEs (of a lazy Index, those
// of the functions read so far).
func (ix *Index) Len() int {
	if ix.lz != nil {
		return ix.lz.len()
	}
	return ix.nodeCount()
}

// Build reads the DIE tree of u, a unit loaded from d, and indexes its subprograms and inlined
// subroutines. lt is the unit's line table (from its DW_AT_stmt_list), or
// nil; it supplies the innermost frame's location and the names of call
// and declaration files. opts may be nil.
//
// Build always returns a usable Index. The error, a *DecodeError, reports
// the first problem met: a DIE walk that stopped early (the Index then
// covers the DIEs before it) or a range list that did not decode (that
// DIE's ranges are dropped, as in LLVM).
//
// Cost: one pass over the unit's DIEs (see the package doc for the trees
// it jumps over), decoding the attributes of the subroutine DIEs that may
// have addresses (and of the DIEs their names are found through);
// memory proportional to the subroutines kept. The scratch of a Build
// (decoded DIEs, the address map under construction) is pooled and reused
// by later Builds, so a Build allocates little beyond its Index.
func Build(d *dwinfo.Data, u *dwinfo.Unit, lt *linetable.Table, opts *Options) (*Index, error) {
	lines := func() *linetable.Table { return lt }
	if opts != nil && opts.Lines != nil {
		lines = opts.Lines
	}
	if opts != nil && opts.Lazy && u.End-u.DIEOffset >= cmp.Or(opts.LazyMinSize, DefaultLazyMinSize) {
		if ix, err, ok := buildLazy(d, u, lines, opts); ok {
			return ix, err
		}
	}
	ix, err := buildChains(d, u, lines(), opts)
	return ix, err
}

// buildChains is the whole-unit Build.
func buildChains(d *dwinfo.Data, u *dwinfo.Unit, lt *linetable.Table, opts *Options) (*Index, error) {
	b := newBuilder(d, u, lt, opts)
	defer b.release()
	err := b.walk()
	if err2 := b.resolve(); err == nil {
		err = err2
	}
	// The builder's slices are scratch: the Index gets exact-size copies.
	ix := &Index{lt: lt, files: b.own.paths, fileOK: b.own.ok}
	ix.setNodes(b.nodes)
	ix.strs = slices.Clone(b.strs.list)
	ix.unit, ix.dies = u.Offset, b.nodeDies()
	var ok bool
	if ix.base, ix.lo32, ix.hi32, ix.node, ok = b.m.columns32(); !ok {
		ix.lo, ix.hi, ix.node = b.m.columns()
	}
	return ix, err
}

// nodeDies returns a copy of b.dies for chains.dies: nil unless the unit
// is big.
func (b *builder) nodeDies() []uint64 {
	if !b.bigUnit {
		return nil
	}
	return append(make([]uint64, 0, len(b.dies)), b.dies...)
}

// pending is a subroutine DIE on the walk's ancestor stack, or one with
// ranges, before it becomes a node.
type pending struct {
	depth   int
	off     uint64 // the DIE's offset
	ord     int32  // the DIE's ordinal (markDIE)
	rec     int32  // index of the DIE's rec; -1 if not decoded yet or outside the unit's DIEs
	subprog bool
	node    int32 // -1 until materialized
	low     uint64
	hasLow  bool
	call    [4]uint32 // file, line, column, discriminator
}

// walk reads every DIE of the unit in section order, replaying LLVM's
// address-map construction for subroutine DIEs.
func (b *builder) walk() error {
	return b.walkFrom(b.u.Entries(), false, ^uint64(0))
}

// walkFrom is walk from er's position. With one, it reads one function's
// tree (lazy.go): the DIE at er, a subprogram or an outermost inlined
// subroutine, and its subtree but for the subprograms nested in it (their
// own trees, skipped and listed in b.skipped), stopping before the DIE at
// stopAt, where the unit's scan stopped on bad input; the ranges of the
// DIEs below the first go to b.inner too.
func (b *builder) walkFrom(er dwinfo.EntryReader, one bool, stopAt uint64) error {
	u := b.u
	var e dwinfo.Entry
	// The stack and the ranges are the pooled builder's, kept for the
	// next walk: a lazy Index walks thousands of small trees.
	stack, rgs := b.stack[:0], b.rgs[:0]
	defer func() { b.stack, b.rgs = stack[:0], rgs[:0] }()
	skipTop := !one && gccC(u)
	first := true
	for {
		err := er.Next(&e)
		if err == io.EOF {
			return b.err
		}
		if err != nil {
			return err // the DIE walk error takes precedence
		}
		if one {
			if (!first && e.Depth == 0) || e.Offset >= stopAt {
				return b.err
			}
			if !first && e.Tag == dwinfo.TagSubprogram {
				// Its chains end at itself: a tree of its own.
				lo := e.Offset
				if err := er.SkipChildren(&e); err != nil {
					return err
				}
				b.skipped = append(b.skipped, skipped{lo, er.Offset()})
				continue
			}
		}
		ord := b.markDIE(e.Offset)
		for len(stack) > 0 && stack[len(stack)-1].depth >= e.Depth {
			stack = stack[:len(stack)-1]
		}
		if e.Tag != dwinfo.TagSubprogram && e.Tag != dwinfo.TagInlinedSubroutine {
			if skipTop && e.Depth == 1 && e.Children {
				if sib := e.Sibling(); sib > er.Offset() && sib <= u.End {
					b.skipped = append(b.skipped, skipped{er.Offset(), sib})
					if err := er.SkipChildren(&e); err != nil {
						return err
					}
				}
			}
			continue
		}
		p := pending{depth: e.Depth, subprog: e.Tag == dwinfo.TagSubprogram, node: -1, rec: -1, ord: ord, off: e.Offset}
		rgs = rgs[:0]
		if locates(e.Abbrev()) {
			var r rec
			b.quiet = one && first
			rgs = b.subroutine(&e, &p, &r, rgs)
			b.quiet = false
			if one && first {
				b.rootRanges = append(b.rootRanges[:0], rgs...)
			} else if one {
				b.inner = append(b.inner, rgs...)
			}
			// Keep the rec of every subroutine DIE decoded here: besides
			// the nodes' own, they are what abstract_origin and
			// specification references lead to, and describe would
			// otherwise decode them again.
			if ord >= 0 {
				p.rec = b.addRec(ord, &r)
			}
		}
		// Otherwise the DIE has no address and no call site: a
		// declaration or an abstract instance (C++ classes hold millions
		// of member declarations). Its rec is read only if a reference
		// or a node needs it.
		first = false
		if e.Children {
			stack = append(stack, p)
		}
		if len(rgs) == 0 {
			continue
		}
		var id int32
		if e.Children {
			id = b.materialize(stack, len(stack)-1)
		} else {
			stack = append(stack, p)
			id = b.materialize(stack, len(stack)-1)
			stack = stack[:len(stack)-1]
		}
		for _, r := range rgs {
			if r.Low == r.High { // LLVM ignores empty ranges (reversed ones stay)
				continue
			}
			b.m.insert(r.Low, r.High, id)
		}
	}
}

// materialize makes nodes for stack[i] and the enclosing subroutines its
// chain climbs through, and returns stack[i]'s node.
func (b *builder) materialize(stack []pending, i int) int32 {
	p := &stack[i]
	if p.node >= 0 {
		return p.node
	}
	parent := int32(-1)
	if !p.subprog && i > 0 {
		parent = b.materialize(stack, i-1)
	}
	if p.rec < 0 && p.ord >= 0 {
		// A DIE whose attributes the walk did not decode (see locates);
		// in practice never a node, as it has no address.
		if r, ok := b.readRec(b.u, p.off); ok {
			p.rec = b.addRec(p.ord, &r)
		}
	}
	p.node = int32(len(b.nodes))
	nd := node{
		parent: parent, low: p.low,
		callFile: p.call[0], callLine: p.call[1], callCol: p.call[2], callDisc: p.call[3],
	}
	if b.bigUnit {
		b.dies = append(b.dies, p.off)
	} else {
		nd.dieLow = uint32(p.off-b.u.Offset) << 1
	}
	if p.hasLow {
		nd.dieLow |= 1
	}
	b.nodes = append(b.nodes, nd)
	b.nodeRec = append(b.nodeRec, p.rec)
	return p.node
}

// gccC reports whether u comes from gcc's C or C++ front end, which puts
// the DIE of every function with code either at the top level of the unit
// or inside the function that encloses it (a nested function, a method of
// a local class); namespaces, classes and the other top-level trees hold
// declarations only. Measured: of the 1.88M subprogram and inlined
// subroutine DIEs with addresses in 192 units of Debian's libradosgw.so.2
// (gcc 12, C++) and in the gcc fixtures, every one lies in a top-level
// DW_TAG_subprogram tree. Clang does nest function definitions in
// namespaces, and gfortran module procedures in modules: their units are
// walked whole.
func gccC(u *dwinfo.Unit) bool {
	return bytes.HasPrefix(u.Root.Producer, []byte("GNU C"))
}

// skipped is the extent [lo, hi) of the children of a top-level DIE that
// the walk jumped over (see gccC).
type skipped struct{ lo, hi uint64 }

// wanted reports whether the walk or a rec needs attribute at; the others
// are skipped undecoded.
func wanted(at dwinfo.Attr) bool {
	switch at {
	case dwinfo.AttrLowPC, dwinfo.AttrHighPC, dwinfo.AttrRanges,
		dwinfo.AttrCallFile, dwinfo.AttrCallLine, dwinfo.AttrCallColumn, attrGNUDiscriminator,
		dwinfo.AttrLinkageName, dwinfo.AttrMIPSLinkageName, dwinfo.AttrName,
		dwinfo.AttrDeclLine, dwinfo.AttrDeclFile, dwinfo.AttrAbstractOrigin, dwinfo.AttrSpecification:
		return true
	}
	return false
}

// nextWanted reads it's next attribute that wanted accepts into f,
// skipping the others undecoded, and reports false at the end or on an
// error (see it.Err).
func nextWanted(it *dwinfo.AttrReader, f *dwinfo.Field) bool {
	for {
		at, ok := it.Peek()
		if !ok {
			return false
		}
		if wanted(at) {
			return it.Next(f)
		}
		it.Skip()
	}
}

// locates reports whether a DIE of abbreviation ab may have an address
// range, a low_pc or call-site attributes: what the walk must decode.
func locates(ab *dwinfo.Abbrev) bool {
	for _, s := range ab.Attrs() {
		switch s.Attr {
		case dwinfo.AttrLowPC, dwinfo.AttrHighPC, dwinfo.AttrRanges,
			dwinfo.AttrCallFile, dwinfo.AttrCallLine, dwinfo.AttrCallColumn, attrGNUDiscriminator:
			return true
		}
	}
	return false
}

// subroutine decodes the attributes of a subroutine DIE that matter here
// (into p and pr) and appends its address ranges to rgs, as
// LLVM's DWARFDie::getAddressRanges computes them.
func (b *builder) subroutine(e *dwinfo.Entry, p *pending, pr *rec, rgs []dwinfo.Range) []dwinfo.Range {
	u := b.u
	var low, high, ranges dwinfo.Field
	var seen [7]bool // first occurrence wins, as LLVM's find does
	nr := recReader{b: b}
	it := u.Attrs(e)
	var f dwinfo.Field
	for nextWanted(&it, &f) {
		var k int
		switch f.Attr {
		case dwinfo.AttrLowPC:
			k = 0
		case dwinfo.AttrHighPC:
			k = 1
		case dwinfo.AttrRanges:
			k = 2
		case dwinfo.AttrCallFile:
			k = 3
		case dwinfo.AttrCallLine:
			k = 4
		case dwinfo.AttrCallColumn:
			k = 5
		case attrGNUDiscriminator:
			k = 6
		default:
			if pr != nil { // nil: the ranges only (lazy.go's scan)
				nr.add(u, pr, &f)
			}
			continue
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case 0:
			low = f
		case 1:
			high = f
		case 2:
			ranges = f
		default:
			// LLVM reads these with toUnsigned into uint32 variables.
			if v, ok := unsigned(f); ok {
				p.call[k-3] = uint32(v)
			}
		}
	}
	if err := it.Err(); err != nil {
		b.note(err)
		return rgs
	}
	if low.Attr != 0 {
		if a, ok := b.addr(low.Val); ok {
			p.low, p.hasLow = a, true
		}
	}
	// DW_AT_low_pc with DW_AT_high_pc, unless low_pc is the linker's
	// tombstone for a discarded function (LLVM's getHighPC).
	if p.hasLow && high.Attr != 0 && p.low != tombstone(u.AddrSize) {
		if a, ok := b.addr(high.Val); ok {
			return append(rgs, dwinfo.Range{Low: p.low, High: a})
		}
		if v, ok := unsigned(high); ok {
			return append(rgs, dwinfo.Range{Low: p.low, High: p.low + v})
		}
	}
	if ranges.Attr == 0 {
		return rgs
	}
	n := len(rgs)
	rr := u.Ranges(ranges.Val)
	var r dwinfo.Range
	ts := tombstone(u.AddrSize)
	// The reader moves strictly forward through its section, so the list
	// ends within the section's size.
	for {
		err := rr.Next(&r)
		if err == io.EOF {
			return rgs
		}
		if err != nil {
			// LLVM drops the DIE's whole list when it fails to parse.
			b.note(err)
			return rgs[:n]
		}
		// LLVM 14 skips tombstoned entries of DWARF 5 range lists only.
		if u.Version >= 5 && r.Low == ts {
			continue
		}
		rgs = append(rgs, r)
	}
}

// addr resolves an address-class value, reporting false for other classes
// or an unresolvable index (LLVM's toSectionedAddress).
func (b *builder) addr(v dw.Value) (uint64, bool) {
	if v.Class != dw.ClassAddress && v.Class != dw.ClassAddrx {
		return 0, false
	}
	a, err := b.u.Addr(v)
	return a, err == nil
}

// unsigned is LLVM's toUnsigned: constant and flag classes, but not
// DW_FORM_sdata.
func unsigned(f dwinfo.Field) (uint64, bool) {
	switch {
	case f.Form == dw.FormSdata:
		return 0, false
	case f.Val.Class == dw.ClassConstant, f.Val.Class == dw.ClassFlag:
		return f.Val.U, true
	}
	return 0, false
}

// tombstone is the all-ones address of the given size that linkers write
// for discarded code (lld; LLVM's computeTombstoneAddress).
func tombstone(size uint8) uint64 {
	if size >= 8 || size == 0 {
		return ^uint64(0)
	}
	return 1<<(8*uint(size)) - 1
}

// AppendChain appends the inline chain of pc to dst, innermost frame first,
// and returns the extended slice. It appends nothing when no subroutine
// DIE covers pc and the line table has no row for it either; when only the
// line table covers pc it appends one frame with a location and no name,
// as LLVM does.
//
// Cost: O(log spans + depth); no allocation when dst has room.
func (ix *Index) AppendChain(dst []Frame, pc uint64) []Frame {
	dst, _, _ = ix.AppendChainRange(dst, pc, 0)
	return dst
}

// AppendChainRange is AppendChain that also returns the addresses [lo, hi)
// around pc whose chains equal pc's (the same DIEs and the same line-table
// row), so that a caller walking sorted PCs can reuse the answer while it
// stays inside. The range may be as narrow as [pc, pc+1). It appends at
// most limit frames, innermost first (all of them when limit <= 0): one is
// what llvm-symbolizer --no-inlines reports.
func (ix *Index) AppendChainRange(dst []Frame, pc uint64, limit int) (_ []Frame, lo, hi uint64) {
	return ix.AppendChainFrom(dst, pc, limit, nil)
}

// A Hint carries where an Index's last lookup landed (in its address map
// and in its line table) to the next one, for a caller that looks up
// ascending addresses (AppendChainFrom). The zero Hint is a start; any
// Hint is valid, a stale one or another Index's included, and gives the
// same answers.
type Hint struct {
	lines linetable.Hint
	span  int // in the address map
	fn    int // in a lazy Index's functions
}

// AppendChainFrom is AppendChainRange for a caller that looks up
// ascending addresses: a lookup at or above h's last one searches its
// address map and line table forward from there, in a few probes, instead
// of searching them whole. It updates h; a nil h keeps nothing.
func (ix *Index) AppendChainFrom(dst []Frame, pc uint64, limit int, h *Hint) (_ []Frame, lo, hi uint64) {
	var fn int
	if h != nil {
		fn = h.fn
	}
	c, lo, hi := ix.chainsOf(pc, &fn)
	if h != nil {
		h.fn = fn
	}
	var n int32
	var clo, chi uint64
	if h != nil && c != nil && c.lo32 != nil {
		n, clo, chi = c.find32From(pc, &h.span)
	} else {
		n, clo, chi = c.find(pc)
	}
	lo, hi = max(lo, clo), min(hi, chi)
	var loc Frame
	located := false
	if ix.lt != nil {
		var row linetable.Row
		var end uint64
		var ok bool
		if h != nil {
			row, end, ok = ix.lt.LookupRangeFrom(pc, &h.lines)
		} else {
			row, end, ok = ix.lt.LookupRange(pc)
		}
		if ok {
			lo, hi = max(lo, row.Address), min(hi, end)
			if name, ok := ix.file(uint64(row.File)); ok {
				loc.File, loc.Line, loc.Column, loc.Discriminator = name, row.Line, row.Column, row.Discriminator
				located = true
			}
		} else {
			lo, hi = pc, pc+1
		}
	}
	if hi <= pc || lo > pc { // an empty end (pc+1 wrapped) or a row ending before the span
		lo, hi = pc, pc+1
	}
	if n < 0 {
		if located {
			dst = append(dst, loc)
		}
		return dst, lo, hi
	}
	if c.lean != nil {
		ix.lz.name(c, n, limit)
	}
	var inner node
	strs := c.strList()
	for count := 0; n >= 0 && (limit <= 0 || count < limit); count++ {
		nd := c.nodeAt(n)
		f := Frame{
			Name: strs[nd.name], ShortName: strs[nd.short],
			StartFile: strs[nd.startFile], StartLine: nd.startLine,
			StartAddress: nd.low, HasStartAddress: nd.hasLow(),
		}
		if count == 0 {
			f.File, f.Line, f.Column, f.Discriminator = loc.File, loc.Line, loc.Column, loc.Discriminator
		} else {
			if ix.lt != nil {
				f.File, _ = ix.file(uint64(inner.callFile))
			}
			f.Line, f.Column, f.Discriminator = inner.callLine, inner.callCol, inner.callDisc
		}
		dst = append(dst, f)
		inner = nd
		n = nd.parent // always less than n: parents are made first
	}
	return dst, lo, hi
}

// chainsOf returns the address map that answers pc and the range around
// pc where it does: the whole unit's, or for a lazy Index the tree of the
// function whose range holds pc (read now if it was not), or nil in a gap
// between functions.
func (ix *Index) chainsOf(pc uint64, hint *int) (c *chains, lo, hi uint64) {
	if ix.lz == nil {
		return &ix.chains, 0, ^uint64(0)
	}
	return ix.lz.chainsOf(pc, hint)
}

// find returns the node answering pc in c's address map, or -1, and the
// range around pc where that holds; c may be nil (no spans).
func (c *chains) find(pc uint64) (n int32, lo, hi uint64) {
	n = -1
	lo, hi = 0, ^uint64(0)
	if c == nil {
		return n, lo, hi
	}
	if c.lo32 != nil {
		return c.find32(pc)
	}
	// i: the last span starting at or below pc (an upper-bound search).
	j, k := 0, len(c.lo)
	for j < k {
		m := int(uint(j+k) >> 1)
		if c.lo[m] <= pc {
			j = m + 1
		} else {
			k = m
		}
	}
	i := j - 1
	switch {
	case i >= 0 && pc < c.hi[i]:
		n = c.node[i]
		lo, hi = c.lo[i], c.hi[i]
	case i >= 0:
		lo = c.hi[i] // in the gap after span i
	}
	if i+1 < len(c.lo) {
		// The next span may start inside span i: LLVM's map is not
		// always a clean overlay (see omap.insert), and from there on
		// the next span answers.
		hi = min(hi, c.lo[i+1])
	}
	return n, lo, hi
}

// find32From is find32 searching forward from span *i (any value: a
// span above pc's, or none, means a full search), which it sets to the
// last span starting at or below pc.
func (c *chains) find32From(pc uint64, i *int) (n int32, lo, hi uint64) {
	k := *i
	if pc < c.base || k < 0 || k >= len(c.lo32) || uint64(c.lo32[k]) > pc-c.base {
		k = c.last32(pc)
		if k >= 0 {
			*i = k
		}
		return c.answer32(k, pc-c.base)
	}
	rel := pc - c.base
	if rel > math.MaxUint32 {
		k = len(c.lo32) - 1 // every span starts at or below pc
	} else {
		k = sorted.LastFrom(c.lo32, uint32(rel), k)
	}
	*i = k
	return c.answer32(k, rel)
}

// find32 is find over lo32 and hi32.
func (c *chains) find32(pc uint64) (n int32, lo, hi uint64) {
	return c.answer32(c.last32(pc), pc-c.base)
}

// last32 returns the last span starting at or below pc, or -1.
func (c *chains) last32(pc uint64) int {
	j, k := 0, len(c.lo32)
	if pc < c.base {
		k = 0 // every span starts above pc
	}
	rel := pc - c.base
	for j < k {
		m := int(uint(j+k) >> 1)
		if uint64(c.lo32[m]) <= rel {
			j = m + 1
		} else {
			k = m
		}
	}
	return j - 1
}

// answer32 is find32's answer from span i, the last starting at or below
// pc (or -1), and rel, pc less base.
func (c *chains) answer32(i int, rel uint64) (n int32, lo, hi uint64) {
	n = -1
	lo, hi = 0, ^uint64(0)
	switch {
	case i >= 0 && rel < uint64(c.hi32[i]):
		n = c.node[i]
		lo, hi = c.base+uint64(c.lo32[i]), c.base+uint64(c.hi32[i])
	case i >= 0:
		lo = c.base + uint64(c.hi32[i])
	}
	if i+1 < len(c.lo32) {
		hi = min(hi, c.base+uint64(c.lo32[i+1]))
	}
	return n, lo, hi
}

// file returns the path of the unit's line-table file index i.
func (ix *Index) file(i uint64) (string, bool) {
	if i >= uint64(len(ix.files)) || !ix.fileOK[i] {
		return "", false
	}
	return ix.files[i], true
}
