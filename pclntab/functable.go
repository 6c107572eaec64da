package pclntab

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// A function's file, line and inline-index tables are decoded once, on
// its first lookup, into a funcTable: the runs of addresses where all
// three keep their values, with the files and inline tree entries they
// name resolved. Lookups then binary-search the runs and follow the
// inline chain from run to run, without decoding again and without locks.

// noLine is the line of a run where the line table has ended (as opposed
// to a line of -1, which a table may give).
const noLine = math.MinInt32

// run is the answer of the addresses [offs[k], offs[k+1]) from the
// function's entry (funcTable.offs: apart, for a denser search).
type run struct {
	line int32 // noLine: the line table gives none
	file int32 // index into funcTable.files; -1: no file
	inl  int32 // index into funcTable.inl; -1: the physical function
}

type fileEntry struct {
	name string
	err  error
}

// inlEntry is one inline tree entry that a run names, resolved.
type inlEntry struct {
	name      string
	startLine uint32
	funcID    uint8
	parent    int32 // the run holding the call site (when err is nil)
	err       error
}

// funcTable is one function decoded.
type funcTable struct {
	fn      Func
	nameErr error
	funcID  uint8
	lines   bool     // the function has a line table
	offs    []uint32 // each run's first address, from the entry
	runs    []run
	limit   uint32 // runs cover [0, limit) from the entry
	errAt   uint32 // at and after this offset every lookup fails with err
	err     error
	files   []fileEntry
	inl     []inlEntry
	size    int // bytes held, for the cache's budget
}

// runAt returns the index of the run holding offset off, ok false past
// the runs.
func (ft *funcTable) runAt(off uint64) (int, bool) {
	if off >= uint64(ft.limit) || len(ft.offs) == 0 {
		return 0, false
	}
	o := uint32(off)
	offs := ft.offs
	lo, hi := 0, len(offs)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if offs[m] <= o {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, true
}

// runEnd returns the end offset of run k.
func (ft *funcTable) runEnd(k int) uint32 {
	if k+1 < len(ft.offs) {
		return ft.offs[k+1]
	}
	return ft.limit
}

// cache holds the decoded functions: a slot per function, filled on first
// use, read without locks. The bytes held are bounded by cacheBudget; when
// a new function would exceed it, every slot is emptied (functions are
// decoded again on their next use).
type cache struct {
	once   sync.Once
	slots  []atomic.Pointer[funcTable]
	index  funcIndex
	mu     sync.Mutex
	used   int
	budget int
}

// funcIndex finds functions by address without reading the function
// table: the entries as offsets from the first, and for each bucket of
// 1<<shift bytes the function holding the bucket's first address, so that
// a lookup searches the few functions between two buckets' (the runtime's
// findfunctab does the same). It is built only for a table whose entries
// are sorted and span less than 4 GiB (every valid one); else ok is false
// and lookups search the function table.
type funcIndex struct {
	ok      bool
	base    uint64
	entries []uint32 // nfunc+1: the last is the end of the last function
	shift   uint
	buckets []uint32
}

// buildIndex builds t's funcIndex: 4 bytes per function and about as many
// per function again for the buckets.
func (t *Table) buildIndex() funcIndex {
	var x funcIndex
	if t.nfunc == 0 {
		return x
	}
	x.base, _ = t.entryAt(0)
	x.entries = make([]uint32, t.nfunc+1)
	prev := x.base
	for i := 0; i <= t.nfunc; i++ {
		e, _ := t.entryAt(i)
		if e < prev || e-x.base > math.MaxUint32 {
			return funcIndex{}
		}
		x.entries[i], prev = uint32(e-x.base), e
	}
	span := uint64(x.entries[t.nfunc])
	// Buckets at most twice the functions, and at least 16 bytes.
	x.shift = 4
	for span>>x.shift > 2*uint64(t.nfunc)+1 {
		x.shift++
	}
	x.buckets = make([]uint32, span>>x.shift+2)
	f := 0
	for b := range x.buckets {
		start := uint64(b) << x.shift
		for f+1 < t.nfunc && uint64(x.entries[f+1]) <= start {
			f++
		}
		x.buckets[b] = uint32(f)
	}
	x.ok = true
	return x
}

// find returns the index of the function whose [entry, next entry) holds
// pc.
func (x *funcIndex) find(pc uint64) (int, bool) {
	off := pc - x.base
	if pc < x.base || off >= uint64(x.entries[len(x.entries)-1]) {
		return 0, false
	}
	o := uint32(off)
	b := off >> x.shift
	lo, hi := int(x.buckets[b]), int(x.buckets[b+1])+1
	hi = min(hi, len(x.entries)-1)
	// The largest i in [lo, hi) with entries[i] <= o.
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if x.entries[m] <= o {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, true
}

// init makes the cache's slots and index on first use.
func (t *Table) initCache() *cache {
	c := &t.cache
	c.once.Do(func() {
		c.slots = make([]atomic.Pointer[funcTable], t.nfunc)
		c.budget = cacheBudget(len(t.data))
		c.index = t.buildIndex()
	})
	return c
}

// lookup returns the function holding pc, decoded; ok false when none
// does.
func (t *Table) lookup(pc uint64) (_ *funcTable, ok bool, err error) {
	c := t.initCache()
	var i int
	if c.index.ok {
		i, ok = c.index.find(pc)
	} else {
		i, ok = t.find(pc)
	}
	if !ok {
		return nil, false, nil
	}
	ft, err := t.funcTable(i)
	return ft, err == nil, err
}

// cacheBudget returns the bytes the decoded functions of a table of n
// bytes may hold: 4n and 1 MiB more. Every function of Go 1.26's cmd/go
// decoded holds 12.0 MB for its 5.0 MB table (377,496 runs of 14,954
// functions), 2.4 times the table.
func cacheBudget(n int) int { return 4*n + 1<<20 }

// funcTable returns function i decoded, from the cache or decoded now.
func (t *Table) funcTable(i int) (*funcTable, error) {
	c := t.initCache()
	if ft := c.slots[i].Load(); ft != nil {
		return ft, nil
	}
	ft, err := t.decodeFunc(i)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.slots[i].Load(); old != nil {
		return old, nil // decoded meanwhile by another lookup
	}
	if c.used+ft.size > c.budget {
		for j := range c.slots {
			c.slots[j].Store(nil)
		}
		c.used = 0
	}
	c.used += ft.size
	c.slots[i].Store(ft)
	return ft, nil
}

// segment is a run of one pc-value table: [start, next start) has val.
type segment struct {
	start uint32
	val   int32
}

// stream is one pc-value table of a function decoded: segments covering
// [0, covered) from the entry; past it the table has ended (with err nil:
// its value is -1, and the line table gives none) or is corrupt (err).
type stream struct {
	segs    []segment
	covered uint32
	err     error
	ix      int // of the next segment, while merging
}

// decodeStream decodes the pc-value table at pctab offset off of a
// function whose code is [entry, entry+size). A table runs from the entry;
// a pair of it is read while its start lies before the function's end.
//
// A table is a sequence of (value delta, pc delta) pairs of varints, the
// value delta zig-zag coded, the pc delta in units of the quantum; the
// value starts at -1 and the pc at the entry, and a value delta of 0 after
// the first pair ends the table [runtime/symtab.go step].
func (t *Table) decodeStream(off uint32, size uint32) stream {
	var s stream
	if off == 0 {
		return s
	}
	p := t.pctab + uint64(off)
	val := int32(-1)
	var cur uint64
	for first := true; cur < uint64(size); first = false {
		uv, np, err := t.varint(t.data, p)
		if err != nil {
			s.err = err
			break
		}
		if uv == 0 && !first {
			break
		}
		p = np
		if uv&1 != 0 {
			uv = ^(uv >> 1)
		} else {
			uv >>= 1
		}
		val += int32(uv)
		d, np, err := t.varint(t.data, p)
		if err != nil {
			s.err = err
			break
		}
		p = np
		next := min(cur+uint64(d)*uint64(t.quantum), uint64(size))
		if next > cur {
			if n := len(s.segs); n > 0 && s.segs[n-1].val == val {
				// The same value again: one segment.
			} else {
				s.segs = append(s.segs, segment{uint32(cur), val})
			}
		}
		cur = next
	}
	s.covered = uint32(cur)
	return s
}

// valueAt returns s's value at offset pos (advancing s.ix, pos never
// decreasing), ok false past its coverage, and where the value next
// changes.
func (s *stream) valueAt(pos uint32) (val int32, ok bool, next uint32) {
	if pos >= s.covered {
		return -1, false, math.MaxUint32
	}
	for s.ix+1 < len(s.segs) && s.segs[s.ix+1].start <= pos {
		s.ix++
	}
	next = s.covered
	if s.ix+1 < len(s.segs) {
		next = s.segs[s.ix+1].start
	}
	return s.segs[s.ix].val, true, next
}

// decodeFunc decodes function i's tables.
func (t *Table) decodeFunc(i int) (*funcTable, error) {
	f, err := t.funcAt(i)
	if err != nil {
		return nil, err
	}
	end, _ := t.entryAt(i + 1)
	ft := &funcTable{funcID: f.funcID, lines: f.pcln != 0}
	ft.fn = Func{Entry: f.entry, End: end, StartLine: uint32(max(f.startLine, 0)), Index: i}
	ft.fn.Name, ft.nameErr = t.funcName(f.nameOff)
	// A corrupt table's entries may be out of order or far apart: its
	// functions answer for the first 4 GiB of their code.
	var size uint32
	if end > f.entry {
		size = uint32(min(end-f.entry, math.MaxUint32))
	}
	lines := t.decodeStream(f.pcln, size)
	var files stream
	if f.pcfile != 0 {
		files = t.decodeStream(f.pcfile, size)
	} else {
		// No file table: no file everywhere.
		files = stream{segs: []segment{{0, -1}}, covered: size}
	}
	var inls stream
	var inlTree uint64
	haveTree := false
	if t.opts.Memory != nil && f.npcdata > pcdataInlTreeIndex {
		fdi := uint8(funcdataInlTree)
		if t.version == Version12 {
			fdi = funcdataInlTree12
		}
		inlTree, haveTree = t.funcdataAddr(&f, fdi)
	}
	if off := t.pcdataOff(&f, pcdataInlTreeIndex); haveTree && off != 0 {
		inls = t.decodeStream(off, size)
	} else {
		inls = stream{segs: []segment{{0, -1}}, covered: size}
	}
	// Where the first corrupt table's coverage ends, every lookup fails.
	ft.errAt = size
	for _, s := range []*stream{&lines, &files, &inls} {
		if s.err != nil && (ft.err == nil || s.covered < ft.errAt) {
			ft.errAt, ft.err = s.covered, s.err
		}
	}
	ft.limit = ft.errAt
	fileIx := make(map[int32]int32)
	inlIx := make(map[int32]int32)
	var inlVals []int32
	for pos := uint32(0); pos < ft.limit; {
		line, lok, ln := lines.valueAt(pos)
		if !lok {
			line = noLine
		}
		fileno, _, fn := files.valueAt(pos)
		ix, _, in := inls.valueAt(pos)
		r := run{line: line, file: -1, inl: -1}
		if fileno >= 0 {
			k, ok := fileIx[fileno]
			if !ok {
				k = int32(len(ft.files))
				fileIx[fileno] = k
				name, err := t.fileName(&f, fileno)
				ft.files = append(ft.files, fileEntry{name, err})
			}
			r.file = k
		}
		if ix >= 0 {
			k, ok := inlIx[ix]
			if !ok {
				k = int32(len(inlVals))
				inlIx[ix] = k
				inlVals = append(inlVals, ix)
			}
			r.inl = k
		}
		if n := len(ft.runs); n > 0 && ft.runs[n-1].line == r.line && ft.runs[n-1].file == r.file && ft.runs[n-1].inl == r.inl {
			// The same answer as the run before: one run.
		} else {
			ft.runs = append(ft.runs, r)
			ft.offs = append(ft.offs, pos)
		}
		pos = min(ln, fn, in, ft.limit)
	}
	ft.inl = make([]inlEntry, len(inlVals))
	for k, ix := range inlVals {
		e := &ft.inl[k]
		call, err := t.inlinedCall(inlTree, ix, f.off)
		if err != nil {
			e.err = err
			continue
		}
		if e.name, err = t.funcName(call.nameOff); err != nil {
			e.err = err
			continue
		}
		e.startLine, e.funcID = uint32(max(call.startLine, 0)), call.funcID
		site := uint64(uint32(call.parentPc))
		if call.parentPc < 0 || f.entry+site >= end {
			e.err = buf.Errorf(pkg, Section, f.off, buf.ErrFormat, "function at %#x: inline tree entry %d: call site %#x outside the function", f.entry, ix, int64(call.parentPc))
			continue
		}
		if site >= uint64(ft.errAt) && ft.err != nil {
			e.err = ft.err
			continue
		}
		p, ok := ft.runAt(site)
		if !ok || ft.runs[p].line == noLine {
			e.err = buf.Errorf(pkg, Section, f.off, buf.ErrFormat, "function at %#x: no line for inlined call site %#x", f.entry, f.entry+site)
			continue
		}
		e.parent = int32(p)
	}
	// Exact sizes: the appends' doubling would hold up to twice as much.
	ft.runs, ft.offs = slices.Clone(ft.runs), slices.Clone(ft.offs)
	ft.size = int(unsafe.Sizeof(*ft)) + cap(ft.runs)*int(unsafe.Sizeof(run{})) + 4*cap(ft.offs) +
		len(ft.files)*int(unsafe.Sizeof(fileEntry{})) + len(ft.inl)*int(unsafe.Sizeof(inlEntry{}))
	return ft, nil
}
