package inline

import (
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/sorted"
	"github.com/symbolize-go/symbolize/linetable"
)

// A lazy Index (Options.Lazy) is built in two levels, as gimli's
// addr2line reads a unit: Build scans the unit's DIEs once, decoding only
// the address ranges of its functions, and a function's inline tree (its
// nodes and address map) is read on the first lookup that lands in one of
// its ranges. A node's names and start data are looked up when an answer
// first holds it (resolveLazy): of libradosgw's 615,576 nodes in the trees
// 10,000 addresses read, the answers hold about 27,000. A function here is a tree root of LLVM's chains: a
// DW_TAG_subprogram (every chain ends at the first one it climbs to), or
// a DW_TAG_inlined_subroutine with no subroutine above it. Subprograms
// nested in another function (gcc's nested functions and methods of local
// classes) are roots of their own, found by the scan: it steps through
// function bodies, skipping only gcc's declaration trees (see gccC) by
// their DW_AT_sibling, as the whole-unit walk does.
//
// Why the answers are the whole-unit map's. LLVM's map (omap.insert) is
// built from every subroutine DIE in pre-order; a range of one function
// changes only the entries it overlaps. Where the ranges of a function
// overlap nobody else's, and the ranges of the DIEs below it lie within
// its own, the entries with keys in its ranges come from its tree alone,
// inserted in the same order: its own map answers there as the unit's
// would, and a PC in no function's range has no subroutine in either.
// The other cases, checked:
//   - ranges of different functions that overlap (identical code folded
//     by the linker, a relocatable object's sections all at 0, gc-ed
//     functions left at 0) make a conflict span, answered from the
//     whole-unit map, built on first need;
//   - a reversed range of a function, or a DIE with ranges below a
//     function without any, makes Build read the whole unit at once;
//   - a DIE whose range leaves its function's ranges is found only when
//     that function is read: from then on the Index answers from the
//     whole-unit map. Answers given before, at PCs of other functions
//     that such a range reached, may differ from LLVM's; no producer we
//     know writes such ranges.
//
// A reference into the middle of a DIE outside the function being read
// is decoded from there (as one into a tree the walk skips): the frame may
// then get a name where LLVM names none, on corrupt input only.

// lazyIndex is the state of a lazy Index.
type lazyIndex struct {
	d    *dwinfo.Data
	u    *dwinfo.Unit
	lt   *linetable.Table
	opts Options
	own  fileTable // the unit's resolved file table, shared by every tree
	// The functions' ranges, sorted and disjoint: topLo[i] is where the
	// i-th starts, top[i] where it ends and the root whose range it is,
	// or -1 for a span where ranges of several roots overlap. The starts
	// are a slice of their own for sorted.LastFrom.
	topLo []uint64
	top   []topEnd
	roots []root
	// stopAt is the offset where the scan stopped on bad input (the
	// whole-unit walk stops there too); ^0 if it read the unit whole.
	stopAt  uint64
	scanErr error

	mu sync.Mutex // held while a tree is read; guards the fields below
	// The strings of every tree read, interned once; each tree's chains
	// hold a prefix of strs.list.
	strs   *strTable
	others map[uint64]*unitInfo
	nodes  int
	// recIdx keeps the recs of the DIEs that references led to outside
	// the trees read (abstract origins, declarations, other units), by
	// offset: an index into recs, or -1 where no DIE decodes. Most trees
	// refer to the same few. (A map of indexes and the recs in chunks take
	// about 100 bytes a DIE, a map of recs 150; chunks, unlike one slice,
	// leave no outgrown arrays behind.)
	recIdx map[uint64]int32
	recs   [][]cachedRec // chunks of recChunk

	// eager describes every node of a tree as it is read (deferNames
	// false when the Index was built), keeping them as a whole-unit
	// Index does.
	eager bool
	det   details // the trees' described nodes (under mu)

	escaped  atomic.Bool // a tree had a range outside its root's: use full
	fullOnce sync.Once
	full     *chains
}

// cachedRec is a rec kept by a lazy Index: a rec without the indexes of
// the recs its references lead to, which are a builder's.
type cachedRec struct {
	ui                   *unitInfo
	link, name           uint64
	origin, spec         uint64
	file, line           uint32
	linkStr, nameStr     int32
	linkClass, nameClass dw.Class
	flags                recFlags
}

// deferNames is whether the trees of a lazy Index leave nodes to be
// described on first use (resolveLazy); tests compare with false.
var deferNames = true

// namedByWalk counts the times lazyIndex.name read a tree again, over
// all Indexes: tests check that they exercise that path.
var namedByWalk atomic.Int64

// recChunk is the number of recs in a chunk of lazyIndex.recs.
const recChunk = 512

// rec returns cached rec j.
func (lz *lazyIndex) rec(j int32) *cachedRec { return &lz.recs[j/recChunk][j%recChunk] }

// addRec keeps c and returns its index.
func (lz *lazyIndex) addRec(c cachedRec) int32 {
	k := len(lz.recs) - 1
	if k < 0 || len(lz.recs[k]) == recChunk {
		// The first chunk starts small and grows to recChunk (most
		// units of a large binary keep a few dozen recs, now that nodes
		// are described when answered); the later ones are whole.
		n := recChunk
		if k < 0 {
			n = 16
		}
		lz.recs = append(lz.recs, make([]cachedRec, 0, n))
		k++
	}
	if k == 0 && len(lz.recs[0]) == cap(lz.recs[0]) {
		lz.recs[0] = slices.Grow(lz.recs[0], min(2*cap(lz.recs[0]), recChunk)-cap(lz.recs[0]))
	}
	lz.recs[k] = append(lz.recs[k], c)
	return int32(k*recChunk + len(lz.recs[k]) - 1)
}

// keep returns r as a lazy Index keeps it. A DW_FORM_string value is an
// offset into the builder's inlineStrs, which the next builder does not
// have: it is interned first.
func (b *builder) keep(r *rec) cachedRec {
	if r.linkClass == dw.ClassString {
		b.str(r, r.linkClass, r.link, &r.linkStr)
	}
	if r.nameClass == dw.ClassString {
		b.str(r, r.nameClass, r.name, &r.nameStr)
	}
	return cachedRec{ui: r.ui, link: r.link, name: r.name, origin: r.origin, spec: r.spec,
		file: r.file, line: r.line, linkStr: r.linkStr, nameStr: r.nameStr,
		linkClass: r.linkClass, nameClass: r.nameClass, flags: r.flags}
}

// rec returns c as a builder's rec, its references not looked up.
func (c *cachedRec) rec() rec {
	return rec{ui: c.ui, link: c.link, name: c.name, origin: c.origin, spec: c.spec,
		file: c.file, line: c.line, linkStr: c.linkStr, nameStr: c.nameStr,
		originRec: refUnresolved, specRec: refUnresolved,
		linkClass: c.linkClass, nameClass: c.nameClass, flags: c.flags}
}

// topSpan is one range of the first level.
type topSpan struct {
	lo, hi uint64
	root   int32
}

// topEnd is a topSpan without its start (lazyIndex.topLo holds it).
type topEnd struct {
	hi   uint64
	root int32
}

// root is one function tree: its DIE's offset, the end of its subtree
// (an upper bound: it may take in null entries after it) and its chains
// once read.
type root struct {
	off, end uint64
	ch       atomic.Pointer[chains]
}

// buildLazy scans u for its functions' ranges (see above). ok is false
// when u needs the whole-unit walk.
//
// lines gives the unit's line table, asked for once the scan is done and
// only when the scan succeeds (the whole-unit walk asks for it otherwise).
func buildLazy(d *dwinfo.Data, u *dwinfo.Unit, lines func() *linetable.Table, opts *Options) (_ *Index, _ error, ok bool) {
	lz := &lazyIndex{d: d, u: u, opts: *opts, stopAt: ^uint64(0),
		strs: newStrTable(), others: map[uint64]*unitInfo{},
		recIdx: map[uint64]int32{}}
	lz.opts.Lines = nil
	lz.strs.shared = opts.Strings
	lz.eager = !deferNames
	// The scan marks no DIEs, reads no names and needs no line table: no
	// bitmap, no strings, no file names.
	b := newBuilderAt(d, u, nil, opts, u.DIEOffset, u.DIEOffset, nil)
	spans, err, ok := b.scan(lz, false)
	if !ok {
		b.release()
		return nil, nil, false
	}
	lt := lines()
	lz.lt, b.own.lt = lt, lt
	b.own.path(0)
	lz.own = b.own
	b.release()
	lz.scanErr = err
	spans = disjoint(spans)
	lz.topLo, lz.top = make([]uint64, len(spans)), make([]topEnd, len(spans))
	for i, sp := range spans {
		lz.topLo[i], lz.top[i] = sp.lo, topEnd{sp.hi, sp.root}
	}
	ix := &Index{lt: lt, files: lz.own.paths, fileOK: lz.own.ok, lz: lz}
	return ix, err, true
}

// scan reads the DIEs of the unit in section order, as walk does, and
// lists the roots and their ranges, in pre-order. ok is false when the
// unit needs the whole-unit walk (a reversed range, or ranges below a
// root without any). byTag makes the reader return every subroutine
// (tests compare the two ways).
func (b *builder) scan(lz *lazyIndex, byTag bool) (spans []topSpan, _ error, ok bool) {
	u := b.u
	er := u.Entries()
	var (
		e   dwinfo.Entry
		rgs []dwinfo.Range
		p   pending
	)
	// The open subroutine DIEs with children: depth, and the root that
	// owns them (-1: one without ranges, which has no entry in lz.roots:
	// C++ classes declare millions of member functions).
	type open struct {
		depth  int
		root   int32
		isRoot bool // the root's own DIE
	}
	var stack []open
	closeTo := func(depth int, end uint64) {
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			if o := stack[len(stack)-1]; o.isRoot && o.root >= 0 {
				lz.roots[o.root].end = end
			}
			stack = stack[:len(stack)-1]
		}
	}
	skipTop := gccC(u)
	passed, passedTo := b.opts.Passed, u.DIEOffset
	// Which DIEs the reader returns besides the ones that close an open
	// subroutine (see scanCodes): by abbreviation where the table allows.
	sets, bySet := scanCodes(u)
	bySet = bySet && !byTag
	for {
		// Only subroutines, the DIEs that close an open one, and (for
		// skipTop) the top-level ones do anything below: the reader
		// steps over the others without returning them.
		depth := -1
		if len(stack) > 0 {
			depth = stack[len(stack)-1].depth
		}
		if skipTop {
			depth = max(depth, 1)
		}
		at := er.Offset()
		if passed != nil && at-passedTo >= passedStep {
			passed(u.DIEBytes(passedTo, at))
			passedTo = at
		}
		var err error
		switch {
		case !bySet:
			err = er.NextWhere(&e, depth, subroutines)
		case len(stack) > 0 && stack[len(stack)-1].root >= 0:
			err = er.NextIn(&e, depth, sets.inRoot)
		default:
			err = er.NextIn(&e, depth, sets.outside)
		}
		if err == io.EOF {
			closeTo(0, u.End)
			return spans, b.err, true
		}
		if err != nil {
			at = er.Offset() // after the last DIE it stepped over
			lz.stopAt = at
			closeTo(0, at)
			return spans, err, true // the DIE walk error takes precedence
		}
		if len(stack) > 0 && stack[len(stack)-1].depth >= e.Depth {
			closeTo(e.Depth, e.Offset)
		}
		if e.Tag != dwinfo.TagSubprogram && e.Tag != dwinfo.TagInlinedSubroutine {
			if skipTop && e.Depth == 1 && e.Children {
				if sib := e.Sibling(); sib > er.Offset() && sib <= u.End {
					if err := er.SkipChildren(&e); err != nil {
						lz.stopAt = at // not exact, but the walk stops here too
						return spans, err, true
					}
				}
			}
			continue
		}
		isRoot := e.Tag == dwinfo.TagSubprogram || len(stack) == 0
		if bySet && isRoot && e.Tag == dwinfo.TagInlinedSubroutine && e.Depth > 1 {
			// Outside every open subroutine the reader returned, below
			// DIEs it passed over: a subroutine without addresses above
			// would make this one a part of it, not a root. No producer
			// we know writes inlined subroutines outside functions.
			return nil, nil, false
		}
		rgs = rgs[:0]
		owner := int32(-1)
		if !isRoot {
			owner = stack[len(stack)-1].root
		}
		if isRoot || owner < 0 {
			if b.locates(e.Abbrev()) {
				rgs = b.subroutine(&e, &p, nil, rgs)
			}
		}
		has := false
		for _, r := range rgs {
			if r.Low > r.High {
				return nil, nil, false
			}
			has = has || r.Low < r.High
		}
		switch {
		case isRoot && has:
			owner = int32(len(lz.roots))
			lz.roots = append(lz.roots, root{off: e.Offset})
			for _, r := range rgs {
				if r.Low < r.High { // LLVM ignores empty ranges
					spans = append(spans, topSpan{r.Low, r.High, owner})
				}
			}
		case isRoot:
			owner = -1
		case has && owner < 0:
			return nil, nil, false
		}
		if e.Children {
			stack = append(stack, open{depth: e.Depth, root: owner, isRoot: isRoot})
		} else if isRoot && owner >= 0 {
			lz.roots[owner].end = er.Offset()
		}
	}
}

// subroutines is what the scan stops at besides the DIEs that close one.
var subroutines = dwinfo.Tags(dwinfo.TagSubprogram, dwinfo.TagInlinedSubroutine)

// scanSets is what the scan asks the reader for by abbreviation code, so
// that it passes over (at the cost of stepping) the subroutine DIEs that
// could change nothing it records:
//   - outside: with no open subroutine, or inside one without ranges of
//     its own (root -1), the subroutines whose abbreviation can hold an
//     address (locates). One that cannot has no ranges; the only effect
//     it had when the scan saw it was to make the inlined subroutines
//     below it parts of a function without ranges (owner -1) instead of
//     roots: inside a subroutine without ranges they are that already,
//     and at the top an inlined subroutine found below depth 1 makes the
//     scan give up (it cannot tell what lies above it). C++ classes
//     declare hundreds of thousands of member functions, subprograms
//     without addresses, that the scan so passes over.
//   - inRoot: inside a function with ranges, every subprogram. The
//     inlined subroutines there are the function's, whatever they say;
//     only a subprogram starts something else (a root of its own, or one
//     without ranges, under which the first set applies again).
type scanSets struct{ outside, inRoot dwinfo.CodeSet }

// scanCodes returns the scan's sets for u, or false where the scan asks
// by tag (codes too large for a set, or a unit DIE that is itself a
// subroutine).
func scanCodes(u *dwinfo.Unit) (scanSets, bool) {
	if u.Root.Tag == dwinfo.TagSubprogram || u.Root.Tag == dwinfo.TagInlinedSubroutine {
		return scanSets{}, false
	}
	out, ok1 := u.Codes(func(ab *dwinfo.Abbrev) bool {
		return (ab.Tag == dwinfo.TagSubprogram || ab.Tag == dwinfo.TagInlinedSubroutine) && locates(ab)
	})
	in, ok2 := u.Codes(func(ab *dwinfo.Abbrev) bool { return ab.Tag == dwinfo.TagSubprogram })
	return scanSets{out, in}, ok1 && ok2
}

// locates is the package's locates, remembered by abbreviation code: a
// C++ unit's classes declare hundreds of thousands of member functions
// with a few abbreviations.
func (b *builder) locates(ab *dwinfo.Abbrev) bool {
	const max = 1 << 12
	if ab.Code >= max {
		return locates(ab)
	}
	if int(ab.Code) >= len(b.loc) {
		b.loc = append(b.loc, make([]int8, int(ab.Code)+1-len(b.loc))...)
	}
	switch b.loc[ab.Code] {
	case 1:
		return true
	case 2:
		return false
	}
	ok := locates(ab)
	b.loc[ab.Code] = 2
	if ok {
		b.loc[ab.Code] = 1
	}
	return ok
}

// disjoint sorts the roots' spans and merges the ones that overlap into
// conflict spans (root -1).
func disjoint(spans []topSpan) []topSpan {
	slices.SortStableFunc(spans, func(a, b topSpan) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := spans[:0]
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.lo < out[k].hi {
			out[k].hi = max(out[k].hi, s.hi)
			out[k].root = -1
			continue
		}
		out = append(out, s)
	}
	return slices.Clip(out)
}

// chainsOf is Index.chainsOf for a lazy Index.
func (lz *lazyIndex) chainsOf(pc uint64, hint *int) (*chains, uint64, uint64) {
	if lz.escaped.Load() {
		return lz.whole(), 0, ^uint64(0)
	}
	los, top := lz.topLo, lz.top
	var i int
	if h := *hint; h >= 0 && h < len(los) && los[h] <= pc {
		// Forward from the hint: the last function starting at or
		// below pc.
		i = sorted.LastFrom(los, pc, h)
	} else {
		j, k := 0, len(los)
		for j < k {
			m := int(uint(j+k) >> 1)
			if los[m] <= pc {
				j = m + 1
			} else {
				k = m
			}
		}
		i = j - 1
	}
	if i >= 0 {
		*hint = i
	}
	j := i + 1
	if i < 0 || pc >= top[i].hi {
		// In no function: no subroutine in the whole-unit map either.
		lo, hi := uint64(0), ^uint64(0)
		if i >= 0 {
			lo = top[i].hi
		}
		if j < len(los) {
			hi = los[j]
		}
		return nil, lo, hi
	}
	t := top[i]
	if t.root < 0 {
		return lz.whole(), 0, ^uint64(0)
	}
	c := lz.tree(t.root)
	if c == nil { // the tree left its ranges
		return lz.whole(), 0, ^uint64(0)
	}
	return c, los[i], t.hi
}

// whole returns the whole-unit map, built once.
func (lz *lazyIndex) whole() *chains {
	lz.fullOnce.Do(func() {
		o := lz.opts
		o.Lazy = false
		ix, err := buildChains(lz.d, lz.u, lz.lt, &o)
		lz.full = &ix.chains
		if err != nil && (lz.scanErr == nil || err.Error() != lz.scanErr.Error()) {
			lz.warn(err)
		}
	})
	return lz.full
}

func (lz *lazyIndex) warn(err error) {
	if lz.opts.Warn != nil {
		lz.opts.Warn(err)
	}
}

// len is the number of nodes of the trees read so far.
func (lz *lazyIndex) len() int {
	lz.mu.Lock()
	defer lz.mu.Unlock()
	return lz.nodes
}

// tree returns the chains of root r, reading its tree on first use; nil
// if a range in the tree leaves the root's own (then escaped is set).
func (lz *lazyIndex) tree(r int32) *chains {
	rt := &lz.roots[r]
	if c := rt.ch.Load(); c != nil {
		return c
	}
	lz.mu.Lock()
	defer lz.mu.Unlock()
	if c := rt.ch.Load(); c != nil {
		return c
	}
	if lz.escaped.Load() {
		return nil
	}
	b, err := lz.walkTree(rt)
	resolve := b.resolveLazy
	if lz.eager {
		resolve = b.resolve
	}
	if err2 := resolve(); err == nil {
		err = err2
	}
	escaped := b.escapes()
	c := &chains{unit: lz.u.Offset, dies: b.nodeDies(), root: r, det: &lz.det}
	if lz.eager {
		c.setNodes(b.nodes)
	} else {
		c.lean = make([]leanNode, len(b.nodes))
		for i := range b.nodes {
			nd := &b.nodes[i]
			c.lean[i].parent, c.lean[i].dieLow = nd.parent, nd.dieLow
			if b.described[i/64]&(1<<(i%64)) != 0 {
				c.describe(int32(i), nd)
			}
		}
	}
	var ok bool
	if c.base, c.lo32, c.hi32, c.node, ok = b.m.columns32(); !ok {
		c.lo, c.hi, c.node = b.m.columns()
	}
	lz.keepRecs(b)
	c.shared = lz.strs
	b.release()
	if escaped {
		lz.escaped.Store(true)
		return nil
	}
	if err != nil && err != lz.scanErr {
		lz.warn(err)
	}
	lz.nodes += c.nodeCount()
	rt.ch.Store(c)
	return c
}

// walkTree reads the tree of root rt into a new builder (which the
// caller releases), as the whole-unit walk would read it.
func (lz *lazyIndex) walkTree(rt *root) (*builder, error) {
	u := lz.u
	end := lz.treeEnd(rt)
	b := newBuilderAt(lz.d, u, lz.lt, &lz.opts, rt.off, end, lz)
	b.own = lz.own
	// What lies outside the tree is decoded where a reference leads, as
	// in the trees the whole-unit walk skips.
	b.skipped = append(b.skipped, skipped{u.Offset, rt.off})
	er, err := u.EntriesAt(rt.off)
	if err == nil {
		err = b.walkFrom(er, true, lz.stopAt)
	}
	b.skipped = append(b.skipped, skipped{end, u.End})
	return b, err
}

// treeEnd returns the end of the DIEs walkTree reads for rt.
func (lz *lazyIndex) treeEnd(rt *root) uint64 {
	if rt.end <= rt.off || rt.end > lz.u.End {
		return lz.u.End
	}
	return rt.end
}

// keepRecs moves into lz what b decoded outside the trees read: the recs
// references led to, with the strings b resolved, and the strings; then
// publishes the strings. It runs under lz.mu.
func (lz *lazyIndex) keepRecs(b *builder) {
	lz.strs, lz.others = b.strs, b.others
	for off, i := range b.recIdx {
		if i < 0 {
			lz.recIdx[off] = -1
			continue
		}
		c := b.keep(&b.recs[i])
		if j, ok := lz.recIdx[off]; ok && j >= 0 {
			*lz.rec(j) = c // with the strings this builder resolved
			continue
		}
		lz.recIdx[off] = lz.addRec(c)
	}
	lz.strs.publish()
}

// name describes the nodes of c that chain n's first limit frames (all
// with limit <= 0) climb through and that tree left pending (see
// resolveLazy), so that their names and start data may be read.
func (lz *lazyIndex) name(c *chains, n int32, limit int) {
	var buf [16]int32
	todo := buf[:0]
	for count := 0; n >= 0 && (limit <= 0 || count < limit); count++ {
		if c.isPending(n) {
			todo = append(todo, n)
		}
		n = c.parentOf(n)
	}
	if len(todo) == 0 {
		return
	}
	lz.mu.Lock()
	defer lz.mu.Unlock()
	rt := &lz.roots[c.root]
	end := lz.treeEnd(rt)
	u := lz.u
	b := newBuilderAt(lz.d, u, lz.lt, &lz.opts, rt.off, rt.off, lz)
	b.own = lz.own
	b.naming = true
	b.skipped = append(b.skipped, skipped{u.Offset, rt.off}, skipped{end, u.End})
	defer b.release()
	var e dwinfo.Entry
	var sbuf [16][2]uint32
	slots := sbuf[:0]
	for _, n := range todo {
		if !c.isPending(n) { // described by another goroutine meanwhile
			continue
		}
		// The node as the walk made it (materialize), from its DIE.
		off := c.die(n)
		if u.EntryAt(off, &e) != nil {
			b.needWalk = true
			break
		}
		nd := node{parent: c.lean[n].parent, dieLow: c.lean[n].dieLow}
		self := int32(-1)
		if locates(e.Abbrev()) {
			var p pending
			var r rec
			b.quiet = true // reported when the tree was read
			b.rgs = b.subroutine(&e, &p, &r, b.rgs[:0])
			b.quiet = false
			nd.low = p.low
			nd.callFile, nd.callLine, nd.callCol, nd.callDisc = p.call[0], p.call[1], p.call[2], p.call[3]
			self = b.addRec(-1, &r)
		} else if r, ok := b.readRec(u, off); ok {
			self = b.addRec(-1, &r)
		}
		b.describe(&nd, self)
		if b.needWalk {
			break
		}
		// The slot is stored once the strings are published, below.
		slots = append(slots, [2]uint32{uint32(n), lz.det.add(&nd)})
	}
	if b.needWalk {
		// A reference into the tree itself: which offsets start DIEs
		// there is the walk's to say. Read the tree again, as tree did,
		// and describe every node still pending.
		namedByWalk.Add(1)
		w, _ := lz.walkTree(rt)
		w.resolve()
		slots = slots[:0]
		same := len(w.nodes) == c.nodeCount() // the walk is deterministic
		for n := range int32(c.nodeCount()) {
			if !c.isPending(n) {
				continue
			}
			nd := node{parent: c.lean[n].parent, dieLow: c.lean[n].dieLow}
			if same {
				nd = w.nodes[n]
			}
			slots = append(slots, [2]uint32{uint32(n), lz.det.add(&nd)})
		}
		lz.keepRecs(w)
		for _, s := range slots {
			c.lean[s[0]].slot.Store(s[1])
		}
		// Not warned: the walk's problems were when tree read it, and
		// come first.
		w.release()
		return
	}
	lz.keepRecs(b)
	for _, s := range slots {
		c.lean[s[0]].slot.Store(s[1])
	}
	if b.err != nil {
		lz.warn(b.err)
	}
}

// escapes reports whether a range below the tree's root (b.inner) leaves
// the union of the root's own ranges (b.rootRanges).
func (b *builder) escapes() bool {
	if len(b.inner) == 0 {
		return false
	}
	// The union of the root's ranges, sorted, empty ones dropped.
	own := b.rootRanges[:0]
	for _, r := range b.rootRanges {
		if r.Low < r.High {
			own = append(own, r)
		}
	}
	slices.SortFunc(own, func(a, b dwinfo.Range) int {
		switch {
		case a.Low < b.Low:
			return -1
		case a.Low > b.Low:
			return 1
		}
		return 0
	})
	k := 0
	for _, r := range own {
		if k > 0 && r.Low <= own[k-1].High {
			own[k-1].High = max(own[k-1].High, r.High)
			continue
		}
		own[k] = r
		k++
	}
	own = own[:k]
	for _, r := range b.inner {
		if r.Low == r.High {
			continue
		}
		if r.Low > r.High {
			return true
		}
		// The own range starting last at or below r.Low must reach r.High.
		i, found := slices.BinarySearchFunc(own, r.Low, func(s dwinfo.Range, pc uint64) int {
			switch {
			case s.Low < pc:
				return -1
			case s.Low > pc:
				return 1
			}
			return 0
		})
		if !found {
			i--
		}
		if i < 0 || r.High > own[i].High {
			return true
		}
	}
	return false
}
